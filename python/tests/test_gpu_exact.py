"""exact=True on the GPU (cured.sum, mean, dot, norm over EXACT_SUM, EXACT_MEAN,
EXACT_DOT, EXACT_NORM2): bitwise against math.fsum and the host reference
(exact_ref.py: the exact value as a Fraction, rounded once) on adversarial
data, bitwise alike across layouts, and the NaN/inf/-0.0 and n == 0 rules.
Skipped without a GPU, as test_gpu.py, whose fixture these use. Sizes are
small: the cost is mostly one NVRTC compile per operator and type pair."""
import math
import warnings

import pytest

import cured
from exact_ref import bits, exact_dot, exact_mean, exact_norm, exact_sum
from test_gpu import np, xp  # noqa: F401  (xp: the fixture)

SEED = 20261206
TINY = {"float16": 2.0 ** -24, "float32": 2.0 ** -149, "float64": 2.0 ** -1074}   # least subnormals
EMAX = {"float16": 15, "float32": 127, "float64": 1023}


def adversarial(dtype, rng):
    """{name: host array of dtype}: cancellation, the whole exponent range with
    alternating signs, subnormals, many tiny beside one huge, and random values."""
    big = float(np.finfo(dtype).max) / 4
    e = np.arange(-EMAX[dtype] + 1, EMAX[dtype] - 1)
    ranged = np.ldexp(rng.uniform(1, 2, e.size), e) * np.where(np.arange(e.size) % 2, -1, 1)
    cases = {
        "cancellation": [big, 1.0, -big],
        "exponent_range": ranged,
        "subnormals": TINY[dtype] * rng.integers(-1000, 1000, 1000),
        "tiny_beside_huge": np.concatenate([[big], np.full(2000, TINY[dtype] * 3), [-big / 2]]),
        "one_lost_each": np.concatenate([[2.0 ** 11 if dtype == "float16" else 2.0 ** 30], np.ones(3000) * 0.25]),
        "random": rng.standard_normal(5001) * np.ldexp(1.0, rng.integers(-8, 8, 5001)),
    }
    out = {}
    with np.errstate(over="ignore", under="ignore"):
        for name, v in cases.items():
            h = np.asarray(v, dtype=np.float64).astype(dtype)
            assert np.isfinite(h).all(), name
            out[name] = h
    return out


def terms(host):
    return [float(v) for v in np.asarray(host).ravel()]


def host_bits(a):
    return [bits(float(v)) for v in np.asarray(a).ravel()]


def check(got, want, what):
    assert bits(got) == bits(want), (what, got, want)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_exact_sum_adversarial(xp, dtype):
    print("seed", SEED)
    rng = np.random.default_rng(SEED)
    for name, host in adversarial(dtype, rng).items():
        dev = xp.array(host)
        t = terms(host)
        want = exact_sum(t, dtype)
        if dtype == "float64":
            assert bits(want) == bits(math.fsum(t)), name
        check(cured.sum(dev, exact=True), want, (name, dtype))
        if dtype != "float64":   # the input's type by default; a wider one on request
            wide = "float64"
            check(cured.sum(dev, dtype=wide, exact=True), exact_sum(t, wide), (name, dtype, wide))
        if dtype != "float16":   # (float16: one operator pair more for little; EXACT_MEAN of float16 below)
            check(cured.mean(dev, exact=True), exact_mean(t, dtype), (name, "mean", dtype))
        out = xp.empty(dtype)
        assert cured.sum(dev, out=out, exact=True) is out
        check(float(xp.get(out)), want, (name, "out=", dtype))


def test_exact_sum_float32_rounds_once(xp):
    """A float32 sum whose exact value sits just above a tie: rounding it to
    double first and then to float32 gives 1.0, the correct rounding 1 + 2^-23."""
    host = np.array([1.0, 2.0 ** -24, 2.0 ** -60, 2.0 ** -70], dtype="float32")
    assert float(np.float32(math.fsum(terms(host)))) == 1.0
    check(cured.sum(xp.array(host), exact=True), 1 + 2.0 ** -23, "float32 tie")
    host16 = np.array([1.0, 2.0 ** -11, 2.0 ** -24, 2.0 ** -24], dtype="float16")
    check(cured.sum(xp.array(host16), exact=True), 1 + 2.0 ** -10, "float16 tie")


def test_exact_mean(xp):
    rng = np.random.default_rng(SEED + 1)
    for dtype in ("float64", "float32", "float16"):
        big = float(np.finfo(dtype).max)
        for host in (np.array([big, big, big / 2], dtype=dtype),     # the sum alone overflows
                     (rng.standard_normal(3001) * 100).astype(dtype),
                     np.array([1.0, 2.0, 2.0], dtype=dtype)):         # 5/3: not a float
            check(cured.mean(xp.array(host), exact=True), exact_mean(terms(host), dtype), (dtype, host[:3]))


def test_exact_dot(xp):
    rng = np.random.default_rng(SEED + 2)
    for dtype in ("float64", "float32"):
        a, b = (np.asarray(rng.uniform(1, 2, 2) * 2.0 ** 40, dtype=dtype))   # a * b is not a float
        cases = [([a, 1.0, -a], [b, 1.0, b], 1.0),
                 (rng.standard_normal(4001) * 1e3, rng.standard_normal(4001) * 1e-3, None),
                 ([0.0, -1.0, 3.0], [-5.0, 0.0, 2.0], 6.0)]
        for x, y, known in cases:
            hx, hy = np.asarray(x, dtype=dtype), np.asarray(y, dtype=dtype)
            want = exact_dot(terms(hx), terms(hy), dtype)
            assert known is None or want == known
            check(cured.dot(xp.array(hx), xp.array(hy), exact=True), want, (dtype, hx[:3]))


def test_exact_norm(xp):
    rng = np.random.default_rng(SEED + 3)
    for dtype in ("float64", "float16"):
        for host in (np.array([3.0, -4.0], dtype=dtype), (rng.standard_normal(2001) * 2).astype(dtype),
                     np.array([TINY[dtype]] * 7, dtype=dtype)):
            dev = xp.array(host)
            check(cured.norm(dev, exact=True), exact_norm(terms(host), dtype), (dtype, host[:3]))
        two = (rng.standard_normal((9, 33)) * 8).astype(dtype)
        got = xp.get(cured.norm(xp.array(two), axis=1, exact=True))
        assert host_bits(got) == [bits(exact_norm(terms(r), dtype)) for r in two]


def _same_bits(xp, got, want):
    assert host_bits(xp.get(got)) == host_bits(want)


def test_exact_layouts(xp):
    """Bitwise the same for any layout of the same values: a C-contiguous array,
    its transpose, a strided view, axis reductions and the same rows made
    contiguous, keepdims=, out=, a tuple of axes."""
    rng = np.random.default_rng(SEED + 4)
    for dtype in ("float64", "float32"):
        host = (rng.standard_normal((24, 257)) * np.ldexp(1.0, rng.integers(-30, 30, (24, 257)))).astype(dtype)
        dev = xp.array(host)
        rows = [exact_sum(terms(r), dtype) for r in host]
        whole = exact_sum(terms(host), dtype)
        check(cured.sum(dev, exact=True), whole, "whole")
        tdev = dev.T
        check(cured.sum(tdev, exact=True), whole, "transposed, whole")
        _same_bits(xp, cured.sum(dev, axis=1, exact=True), np.array(rows))
        _same_bits(xp, cured.sum(tdev, axis=0, exact=True), np.array(rows))
        _same_bits(xp, cured.sum(dev, axis=-1, keepdims=True, exact=True), np.array(rows)[:, None])
        check(cured.sum(dev, axis=(0, 1), exact=True).item(), whole, "axis=(0, 1)")
        for k in (0, 7, 23):   # a row made contiguous, reduced whole
            check(cured.sum(xp.array(np.ascontiguousarray(host[k])), exact=True), rows[k], ("row", k))
        strided = dev[:, ::3]
        want = np.array([exact_sum(terms(r), dtype) for r in host[:, ::3]])
        _same_bits(xp, cured.sum(strided, axis=1, exact=True), want)
        check(cured.sum(strided, exact=True), exact_sum(terms(host[:, ::3]), dtype), "strided, whole")
        cols = np.array([exact_sum(terms(c), dtype) for c in host.T])
        out = xp.array(np.zeros(host.shape[1], dtype=dtype))
        assert cured.sum(dev, axis=0, out=out, exact=True) is out
        _same_bits(xp, out, cols)
        if dtype == "float64":
            means = np.array([exact_mean(terms(r), dtype) for r in host])
            _same_bits(xp, cured.mean(tdev, axis=0, exact=True), means)


def test_exact_special_values(xp):
    """NaN if any element is NaN or both infinities occur; an infinity if one
    does; -0.0 only when every element is -0.0; along an axis too."""
    inf, nan = math.inf, math.nan
    rows = [[nan, 1.0, 2.0], [inf, -inf, 1.0], [inf, 1.0, 5.0], [-inf, -inf, 1.0], [-0.0, -0.0, -0.0],
            [-0.0, 0.0, -0.0], [1.0, -1.0, 0.0], [1e308, 1e308, 1.0]]
    host = np.array(rows, dtype="float64")
    dev = xp.array(host)
    _same_bits(xp, cured.sum(dev, axis=1, exact=True), np.array([exact_sum(r, "float64") for r in rows]))
    got = host_bits(xp.get(cured.sum(dev, axis=1, exact=True)))
    assert got[0] == got[1] == "nan" and got[2] == bits(inf) and got[3] == bits(-inf)
    assert got[4] == bits(-0.0) and got[5] == got[6] == bits(0.0) and got[7] == bits(inf)
    for r in rows:
        check(cured.sum(xp.array(np.array(r)), exact=True), exact_sum(r, "float64"), r)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no warning where NaN comes from the data
        assert math.isnan(cured.mean(xp.array(np.array(rows[0])), exact=True))
    check(cured.dot(xp.array(np.array([inf, 1.0])), xp.array(np.array([0.0, 1.0])), exact=True), nan, "inf*0")
    h32 = np.array([-0.0, -0.0], dtype="float32")
    check(cured.sum(xp.array(h32), exact=True), -0.0, "float32 -0.0")


def test_exact_empty(xp):
    """n == 0: sums +0.0, mean NaN with NumPy's warning, along axes too."""
    empty = xp.array(np.zeros(0, dtype="float64"))
    check(cured.sum(empty, exact=True), 0.0, "sum")
    check(cured.dot(empty, empty, exact=True), 0.0, "dot")
    check(cured.norm(empty, exact=True), 0.0, "norm")
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert math.isnan(cured.mean(empty, exact=True))
    out = xp.array(np.zeros(1, dtype="float64"))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        cured.mean(empty, out=out, exact=True)
    assert math.isnan(float(xp.get(out)[0]))
    rows = xp.array(np.zeros((4, 0), dtype="float64"))
    _same_bits(xp, cured.sum(rows, axis=1, exact=True), np.zeros(4))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(xp.get(cured.mean(rows, axis=1, exact=True))).all()


def test_exact_bfloat16(gpu):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    rng = np.random.default_rng(SEED + 5)
    # float32 values with 8 significant bits: bfloat16 holds them exactly
    host = (rng.integers(-255, 256, 3000) * np.ldexp(1.0, rng.integers(-60, 60, 3000))).astype("float32")
    host[:2] = [2.0 ** 100, -2.0 ** 100]
    dev = torch.from_numpy(host).cuda().to(torch.bfloat16)
    assert np.array_equal(dev.float().cpu().numpy(), host)
    got = cured.sum(dev, exact=True)
    check(got, exact_sum(terms(host), "bfloat16"), "bfloat16")
    check(cured.sum(dev, dtype="float32", exact=True), exact_sum(terms(host), "float32"), "bfloat16 -> float32")
    r = cured.sum(dev.reshape(30, 100), axis=1, exact=True)
    assert r.dtype == torch.bfloat16
    assert host_bits(r.float().cpu().numpy()) == [bits(exact_sum(terms(row), "bfloat16"))
                                                  for row in host.reshape(30, 100)]


def test_norm_against_numpy(xp):
    """cured.norm without exact=: numpy.linalg.norm's values (to rounding) and result types."""
    rng = np.random.default_rng(SEED + 6)
    for dtype in ("float32", "int32"):
        host = (rng.standard_normal((6, 50)) * 10).astype(dtype)
        dev = xp.array(host)
        ref = host.astype("float64")
        want_type = "float64" if dtype == "int32" else dtype
        got = cured.norm(dev)
        assert isinstance(got, float) and math.isclose(got, np.linalg.norm(ref), rel_tol=1e-5)
        for axis, keepdims in ((1, False), (0, True), ((0, 1), False)):
            r = cured.norm(dev, axis=axis, keepdims=keepdims)
            want = np.linalg.norm(ref, axis=axis, keepdims=keepdims)
            assert str(r.dtype).rsplit(".", 1)[-1] == want_type
            assert np.allclose(xp.get(r), want, rtol=1e-5) and xp.get(r).shape == want.shape, (dtype, axis)
