"""cured against NumPy's rules on the GPU (the audit's cases): dtype= of
integer sums wrapping in any integer type, 0-d arrays, ARG of -0/+0 ties and
NaN among infinities, mean/var/std (result types, ddof, warnings, views,
out=). Skipped without a GPU, as test_gpu.py, whose helpers these use."""
import pytest

import cured
from test_gpu import FLOAT_TYPES, check_array, host_3d, np, same, xp  # noqa: F401  (xp: the fixture)


class _HostLib:
    """check_array's view of arrays already on the host."""
    @staticmethod
    def get(a):
        return a


np_lib = _HostLib()

# (input type, dtype=): integer results wrap as NumPy's, in any integer type.
DTYPE_CASES = [("uint8", "int64"), ("bool", "int32"), ("int32", "int8"), ("int8", "uint64"),
               ("int16", "uint16"), ("uint8", "int16"), ("bool", "int8")]


@pytest.mark.parametrize("src,want", DTYPE_CASES)
def test_dtype_wraps_as_numpy(xp, src, want):
    rng = np.random.default_rng(7)
    host = rng.integers(0, 120, (6, 50)).astype(src) if src != "bool" else rng.integers(0, 2, (6, 50)) > 0
    if src == "int32":
        host = host * 1000003
    odd = rng.integers(1, 4, host.shape).astype(host.dtype)   # products without a zero: they wrap
    for fn in ("sum", "prod"):
        if fn == "prod":
            host = odd
        dev = xp.array(host)
        want_all = getattr(np, fn)(host, dtype=want)
        try:
            got_all = getattr(cured, fn)(dev, dtype=want)
            got = getattr(cured, fn)(dev, axis=1, dtype=want)
            got_host = xp.get(got)
        except (RuntimeError, TypeError) as e:
            # PyTorch before 2.3 has no uint16/uint32/uint64 casts, item() or numpy():
            # skipped only when this PyTorch says so.
            if xp.name == "torch" and want in ("uint16", "uint32", "uint64") and "cured" not in str(e):
                pytest.skip("this PyTorch lacks %s support: %s" % (want, e))
            raise
        assert int(got_all) == int(want_all), (fn, src, want)
        check_array(got_host, getattr(np, fn)(host, axis=1, dtype=want), np_lib)
        assert str(got.dtype).rsplit(".", 1)[-1] == want


def test_zero_d_and_signed_zeros(xp):
    """0-d arrays; ARG of -0/+0 ties and NaN among infinities, as NumPy."""
    x = xp.array(np.array([7], dtype="int32")).reshape(())   # (TorchLib.array makes 0-d arrays 1-d)
    assert tuple(x.shape) == ()
    assert cured.sum(x) == 7 and cured.max(x) == 7 and cured.argmax(x) == 0
    check_array(cured.sum(x, keepdims=True), np.sum(np.array(7, "int32"), keepdims=True), xp)
    for fn, want in (("argmin", 0), ("argmax", 0), ("sum", 7), ("max", 7), ("count_nonzero", 1)):
        for ax in (0, -1):   # NumPy reads a 0-d array as 1-d here
            r = getattr(cured, fn)(x, axis=ax)
            assert int(r) == want and tuple(r.shape) == (), (fn, ax)
        with pytest.raises(cured.AxisError):
            getattr(cured, fn)(x, axis=1)
    for fn in ("mean", "var"):   # but not for its statistics
        with pytest.raises(cured.AxisError):
            getattr(cured, fn)(x, axis=0)
    for dtype in FLOAT_TYPES:
        for vals in ([-0.0, 0.0, -0.0], [0.0, -0.0], [1.0, np.inf, np.nan, -np.inf, np.nan],
                     [-np.inf, np.nan, np.inf], [np.inf, np.inf, -np.inf, -np.inf]):
            host = np.array(vals, dtype=dtype)
            d = xp.array(host)
            for fn in ("argmin", "argmax", "min", "max"):
                assert same(getattr(cured, fn)(d), getattr(np, fn)(host)), (fn, dtype, vals)
            if not np.isnan(host).all():
                for fn in ("nanargmin", "nanargmax"):
                    assert getattr(cured, fn)(d) == getattr(np, fn)(host), (fn, dtype, vals)


STATS_TYPES = ["int16", "int64", "uint8", "bool", "float16", "float32", "float64"]
TOL = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12}


def close(got, want, dtype):
    got, want = np.asarray(got, dtype="float64"), np.asarray(want, dtype="float64")
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.allclose(got, want, rtol=TOL.get(dtype, 1e-12), atol=0, equal_nan=True), (got, want)


@pytest.mark.parametrize("dtype", STATS_TYPES)
@pytest.mark.parametrize("fn", ["mean", "var", "std"])
def test_stats_against_numpy(xp, fn, dtype):
    host = host_3d(dtype) if dtype != "float32" else host_3d("float32") * 0.37 + 1e4   # a shifted mean
    try:
        dev = xp.array(host)
    except Exception as e:
        pytest.skip("%s cannot hold %s: %s" % (xp.name, dtype, e))
    rtype = dtype if dtype.startswith("float") else "float64"
    kw = [{}] if fn == "mean" else [{}, {"ddof": 1}, {"ddof": 2.5}]
    for k in kw:
        want = getattr(np, fn)(host.astype("float64"), **k)
        got = getattr(cured, fn)(dev, **k)
        assert isinstance(got, float)
        close(got, want, rtype)
        for axis in (0, -1, (0, 2), None):
            for keepdims in (False, True):
                if axis is None and not keepdims:
                    continue
                want = getattr(np, fn)(host.astype("float64"), axis=axis, keepdims=keepdims, **k)
                got = getattr(cured, fn)(dev, axis=axis, keepdims=keepdims, **k)
                assert str(got.dtype).rsplit(".", 1)[-1] == rtype, (got.dtype, rtype)   # NumPy's result type
                close(xp.get(got), want, rtype)
    view = dev.transpose(2, 0, 1) if xp.name == "cupy" else dev.permute(2, 0, 1)
    close(getattr(cured, fn)(view), getattr(np, fn)(host.astype("float64")), rtype)   # a view reduced whole
    d64 = getattr(cured, fn)(dev, dtype="float64")
    close(d64, getattr(np, fn)(host.astype("float64")), "float64" if dtype != "float16" else "float32")


def test_stats_numpy_edge_rules(xp):
    host = host_3d("float32")
    dev = xp.array(host)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = cured.var(dev, axis=2, ddof=3)                    # 3 elements per output: NaN, as NumPy
    assert np.isnan(xp.get(got)).all() and xp.get(got).shape == (5, 7)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = cured.mean(xp.array(np.zeros((4, 0), dtype="float32")), axis=1)
    assert np.isnan(xp.get(got)).all() and xp.get(got).shape == (4,)
    nan = host.copy()
    nan[1, 2, 0] = np.nan
    nan[2, 3, 1] = np.inf
    d = xp.array(nan)
    with np.errstate(invalid="ignore"):
        for fn in ("mean", "var"):
            close(xp.get(getattr(cured, fn)(d, axis=1)), getattr(np, fn)(nan.astype("float64"), axis=1), "float32")
    out = xp.array(np.full((5, 3), -1.0, dtype="float32"))
    assert cured.std(dev, axis=1, out=out, ddof=1) is out
    close(xp.get(out), np.std(host.astype("float64"), axis=1, ddof=1), "float32")
    one = xp.array(np.full(1, -1.0, dtype="float64"))
    cured.mean(xp.array(np.arange(10, dtype="int32")), out=one)
    assert float(xp.get(one)[0]) == 4.5
    assert cured.var(xp.array(np.full(1000, 3.25, dtype="float32"))) == 0.0   # constant: exactly 0


def _with_nans(host, rng, rate):
    h = host.astype("float64").copy()
    h[rng.random(h.shape) < rate] = np.nan
    return h


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32"])
@pytest.mark.parametrize("fn", ["nansum", "nanmean", "nanvar", "nanstd"])
def test_nan_reductions_against_numpy(xp, fn, dtype):
    """nansum/nanmean/nanvar/nanstd as NumPy's: values, result types, ddof, axes, views,
    all-NaN rows (0 for nansum; NaN and NumPy's warning for the statistics) and out=."""
    import warnings
    rng = np.random.default_rng(11)
    host = host_3d(dtype)
    if dtype.startswith("float"):
        host = _with_nans(host, rng, 0.3).astype(dtype)
        host[1, :, :] = np.nan                            # whole all-NaN slices along axes 1 and 2
        host[2, 0, :2] = np.nan                           # two of three NaN: too few for ddof 1
    try:
        dev = xp.array(host)
    except Exception as e:
        pytest.skip("%s cannot hold %s: %s" % (xp.name, dtype, e))
    rtype = dtype if dtype.startswith("float") else ("int64" if fn == "nansum" else "float64")
    h64 = host.astype("float64")
    kws = [{}] if fn in ("nansum", "nanmean") else [{}, {"ddof": 1}]
    for kw in kws:
        with warnings.catch_warnings():   # (every whole array here has elements that are not NaN)
            warnings.simplefilter("ignore", RuntimeWarning)
            want = getattr(np, fn)(h64, **kw)
            got = getattr(cured, fn)(dev, **kw)
        assert isinstance(got, (float, int))
        close(got, want, rtype)   # (the data are small integers: sums are exact)
        for axis in (0, 2, (1, 2)):
            with warnings.catch_warnings(record=True) as np_warned:
                warnings.simplefilter("always")
                want = getattr(np, fn)(h64, axis=axis, **kw)
            with warnings.catch_warnings(record=True) as cured_warned:
                warnings.simplefilter("always")
                got = getattr(cured, fn)(dev, axis=axis, **kw)
            assert str(got.dtype).rsplit(".", 1)[-1] == rtype, (got.dtype, rtype)
            close(xp.get(got), want, rtype)
            ours = {"Mean of empty slice", "Degrees of freedom <= 0 for slice."}
            np_msgs = {str(w.message) for w in np_warned} & ours
            cured_msgs = {str(w.message) for w in cured_warned if issubclass(w.category, RuntimeWarning)}
            assert cured_msgs == np_msgs, (fn, axis, kw, cured_msgs, np_msgs)
    view = dev.transpose(2, 0, 1) if xp.name == "cupy" else dev.permute(2, 0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        close(getattr(cured, fn)(view), getattr(np, fn)(h64), rtype)
    if dtype.startswith("float"):
        allnan = xp.array(np.full(7, np.nan, dtype=dtype))
        if fn == "nansum":
            assert getattr(cured, fn)(allnan) == 0.0      # NumPy: 0, no warning
        else:
            msg = "Mean of empty slice" if fn == "nanmean" else "Degrees of freedom <= 0 for slice."
            with pytest.warns(RuntimeWarning, match=msg.replace(".", r"\.")):
                assert np.isnan(getattr(cured, fn)(allnan))
            if dtype != "float16":                      # out=: the same warning, NaN written
                out = xp.array(np.zeros(1, dtype=dtype))
                with pytest.warns(RuntimeWarning, match=msg.replace(".", r"\.")):
                    assert getattr(cured, fn)(allnan, out=out) is out
                assert np.isnan(np.asarray(xp.get(out), dtype="float64")).all()


def test_out_checked_before_the_reduction(xp):
    dev = xp.array(host_3d("float32"))
    with pytest.raises(TypeError, match="int64"):     # ARG along an axis: out= of the wrong type
        cured.argmax(dev, axis=1, out=xp.array(np.zeros((5, 3), dtype="int32")))
    with pytest.raises(ValueError, match="shape"):
        cured.argmin(dev, axis=1, out=xp.array(np.zeros((3, 5), dtype="int64")))
    with pytest.raises(ValueError, match="1-D"):
        cured.dot(dev, dev)                           # numpy.dot of 3-D arrays is no vector product


def _logsumexp(a, axis=None, keepdims=False):
    """scipy.special.logsumexp's value in float64, from NumPy."""
    m = np.max(a, axis=axis, keepdims=True)
    r = m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))
    return r if keepdims else (np.squeeze(r, axis=axis) if axis is not None else r.reshape(()))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "float64"])
def test_logsumexp_and_count_nonzero(xp, dtype):
    host = host_3d(dtype)
    dev = xp.array(host)
    rtype = dtype if dtype.startswith("float") else "float64"
    h64 = host.astype("float64")
    close(cured.logsumexp(dev), _logsumexp(h64), rtype)
    assert cured.count_nonzero(dev) == np.count_nonzero(host)
    for axis in (0, -1, (0, 2)):
        for keepdims in (False, True):
            got = cured.logsumexp(dev, axis=axis, keepdims=keepdims)
            assert str(got.dtype).rsplit(".", 1)[-1] == rtype
            close(xp.get(got), _logsumexp(h64, axis=axis, keepdims=keepdims), rtype)
            got = cured.count_nonzero(dev, axis=axis, keepdims=keepdims)
            assert str(got.dtype).rsplit(".", 1)[-1] == "int64"
            assert (xp.get(got) == np.count_nonzero(host, axis=axis, keepdims=keepdims)).all()
    if dtype == "float32":
        special = host.copy()
        special[0, 0, 0], special[1, 1, 1] = np.nan, -0.0      # NaN counts, -0 does not
        assert cured.count_nonzero(xp.array(special)) == np.count_nonzero(special)
        assert np.isnan(cured.logsumexp(xp.array(special)))
        assert cured.logsumexp(xp.array(np.zeros(0, dtype="float32"))) == -np.inf   # as SciPy


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_stats_half_out(xp, dtype):
    """out= of a float16/bfloat16 statistic (cured computes it in float32 and
    rounds into out=), whole and along an axis, as numpy.mean(out=)."""
    if xp.name == "cupy" and dtype == "bfloat16":
        pytest.skip("CuPy has no bfloat16")

    def half(host):
        a = xp.array(host.astype("float32"))
        return a.astype(dtype) if xp.name == "cupy" else a.to(xp.dtype(dtype))

    host = host_3d("float32") * 0.37
    dev = half(host)
    h = np.asarray(xp.get(dev), dtype="float64")           # the values the half array holds
    tol = 2e-3 if dtype == "float16" else 1e-2
    out1 = half(np.zeros(1))
    assert cured.mean(dev, out=out1) is out1
    assert np.allclose(np.asarray(xp.get(out1), dtype="float64"), np.mean(h), rtol=tol)
    out = half(np.zeros((5, 3)))
    assert cured.var(dev, axis=1, out=out, ddof=1) is out
    assert np.allclose(np.asarray(xp.get(out), dtype="float64"), np.var(h, axis=1, ddof=1), rtol=tol)


def test_bool_and_of_no_element(xp):
    """AND of no element is True (numpy.bitwise_and.reduce), along an axis and
    into a bool out=, though cured's AND of nothing is all ones."""
    host = np.zeros((3, 0), dtype=bool)
    want = np.bitwise_and.reduce(host, axis=1)
    got = cured.bitwise_and(xp.array(host), axis=1)
    assert str(got.dtype).rsplit(".", 1)[-1] == "bool"
    out = xp.array(np.zeros(3, dtype=bool))
    cured.bitwise_and(xp.array(host), axis=1, out=out)
    whole = xp.array(np.zeros(1, dtype=bool))
    cured.bitwise_and(xp.array(np.zeros(0, dtype=bool)), out=whole)
    for r, w in ((got, want), (out, want), (whole, np.ones(1, dtype=bool))):
        assert np.array_equal(np.asarray(xp.get(r)).view(np.uint8), w.view(np.uint8))   # bytes of 1, not 0xFF
