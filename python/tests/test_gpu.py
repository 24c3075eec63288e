"""cured against NumPy on the GPU, for every operator and element type, over
CuPy and PyTorch arrays. Skipped without a GPU, or without the library."""
import math
import warnings

import pytest

import cured

np = pytest.importorskip("numpy")

N = 1000  # small integers in [-2, 2]: every float sum is exact, even in float16

INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_TYPES = ["float16", "float32", "float64"]


def host_data(dtype, n=N, nan=False):
    rng = np.random.default_rng(12345)
    if dtype.startswith("uint"):
        x = rng.integers(0, 5, n).astype(dtype)
    else:
        x = rng.integers(-2, 3, n).astype(dtype)
    if nan:
        x[[n // 3, n // 2]] = np.nan
    return x


class CupyLib:
    name = "cupy"

    def __init__(self):
        self.cp = pytest.importorskip("cupy")

    def array(self, host):
        return self.cp.asarray(host)

    def empty(self, dtype):
        return self.cp.empty((), dtype=dtype)

    def get(self, a):
        return self.cp.asnumpy(a)


class TorchLib:
    name = "torch"

    def __init__(self):
        self.torch = pytest.importorskip("torch")
        if not self.torch.cuda.is_available():
            pytest.skip("torch sees no GPU")

    def dtype(self, name):
        return getattr(self.torch, name)

    def array(self, host):
        if host.dtype.name.startswith("uint") and host.dtype.name != "uint8":
            # torch's uint16/32/64 are limited: go through int64, then view.
            t = self.torch.from_numpy(host.astype(np.int64)).to(self.dtype(host.dtype.name))
            return t.cuda()
        return self.torch.from_numpy(np.ascontiguousarray(host)).cuda()

    def empty(self, dtype):
        return self.torch.empty((), dtype=self.dtype(dtype), device="cuda")

    def get(self, a):
        return a.cpu().numpy() if a.dtype != self.torch.bfloat16 else a.float().cpu().numpy()


@pytest.fixture(params=["cupy", "torch"])
def xp(request, gpu):
    return CupyLib() if request.param == "cupy" else TorchLib()


def same(got, want):
    if isinstance(want, float) or isinstance(want, np.floating):
        if math.isnan(want):
            return isinstance(got, float) and math.isnan(got)
        return float(got) == float(want)
    return int(got) == int(want)


@pytest.mark.parametrize("dtype", INT_TYPES + FLOAT_TYPES)
@pytest.mark.parametrize("fn", ["sum", "prod", "min", "max", "argmin", "argmax"])
def test_against_numpy(xp, fn, dtype):
    host = host_data(dtype)
    if fn == "prod":
        host = np.ones(N, dtype=dtype)
        host[[3, 500, 900]] = 2
    try:
        dev = xp.array(host)
    except Exception as e:  # a type the library lacks (old torch's uint16...)
        pytest.skip("%s cannot hold %s: %s" % (xp.name, dtype, e))
    got = getattr(cured, fn)(dev)
    want = getattr(np, fn)(host)
    assert same(got, want), (fn, dtype, got, want)
    assert type(got) is (int if fn in ("argmin", "argmax") or dtype in INT_TYPES else float)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("fn", ["min", "max", "argmin", "argmax", "nanmin", "nanmax", "nanargmin",
                                "nanargmax", "sum"])
def test_nan_rules(xp, fn, dtype):
    host = host_data(dtype, nan=True)
    got = getattr(cured, fn)(xp.array(host))
    want = getattr(np, fn)(host)
    assert same(got, want), (fn, dtype, got, want)


@pytest.mark.parametrize("fn", ["nanmin", "nanargmin"])
def test_all_nan(xp, fn):
    host = np.full(64, np.nan, dtype="float32")
    if fn == "nanmin":
        with pytest.warns(RuntimeWarning, match="All-NaN"):
            assert math.isnan(cured.nanmin(xp.array(host)))
    else:
        with pytest.raises(ValueError, match="All-NaN"):
            cured.nanargmin(xp.array(host))


@pytest.mark.parametrize("dtype", INT_TYPES)
@pytest.mark.parametrize("fn", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise(xp, fn, dtype):
    rng = np.random.default_rng(7)
    host = rng.integers(0, 127, N).astype(dtype) | np.array(1, dtype=dtype)
    try:
        dev = xp.array(host)
    except Exception as e:
        pytest.skip("%s cannot hold %s: %s" % (xp.name, dtype, e))
    assert int(getattr(cured, fn)(dev)) == int(getattr(np, fn).reduce(host))


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_all_any(xp, dtype):
    host = host_data(dtype)
    for h in (host, np.abs(host) + 1, np.zeros(N, dtype=dtype)):
        d = xp.array(h.astype(dtype))
        assert cured.all(d) == bool(np.all(h)) and cured.any(d) == bool(np.any(h))


def test_bool_arrays(xp):
    host = np.zeros(N, dtype=bool)
    host[[1, 10, 100]] = True
    d = xp.array(host)
    assert cured.sum(d) == 3 and type(cured.sum(d)) is int
    assert cured.max(d) is True and cured.min(d) is False
    assert cured.any(d) and not cured.all(d)
    assert cured.argmax(d) == 1


@pytest.mark.parametrize("dtype", ["int8", "int32", "float16", "float32", "float64"])
def test_dot(xp, dtype):
    x, y = host_data(dtype), host_data(dtype)[::-1].copy()
    assert same(cured.dot(xp.array(x), xp.array(y)), np.dot(x, y))


def test_dtype_argument(xp):
    host = np.full(N, 2**30, dtype="int32")
    d = xp.array(host)
    assert cured.sum(d) == N * 2**30                                  # int64, exact
    assert cured.sum(d, dtype="int32") == int(np.sum(host, dtype=np.int32))  # wraps, as NumPy
    f = xp.array(np.full(N, 0.1, dtype="float32"))
    assert cured.sum(f, dtype="float64") == pytest.approx(float(np.sum(np.full(N, 0.1, "float32"),
                                                                       dtype=np.float64)))
    with pytest.raises(TypeError, match="not offered"):
        cured.sum(d, dtype="float32")   # cured sums integers into integers only


@pytest.mark.parametrize("fn,np_fn,dtype", [("sum", "sum", "int64"), ("max", "max", "float32"),
                                            ("argmin", "argmin", "int64")])
def test_out(xp, fn, np_fn, dtype):
    host = host_data("float32") if fn != "sum" else host_data("int32")
    out = xp.empty(dtype)
    ret = getattr(cured, fn)(xp.array(host), out=out)
    assert ret is out
    assert same(xp.get(out).item(), getattr(np, np_fn)(host))


def test_out_checks(xp):
    d = xp.array(host_data("int32"))
    with pytest.raises(TypeError, match="int64"):
        cured.sum(d, out=xp.empty("int32"))


def test_custom(xp):
    host = host_data("float32")
    sq = cured.custom("x*x", "a+b", "0", acc="float64")
    assert sq(xp.array(host)) == float(np.sum(host.astype(np.float64) ** 2))
    dot2 = cured.custom("x*y", "a+b", "0")
    assert dot2(xp.array(host), xp.array(host)) == float(np.dot(host, host))
    with pytest.raises(cured.CuredError, match="INVALID_EXPRESSION") as e:  # refused by the grammar
        cured.custom("x * no_such_name", "a+b", "0")(xp.array(host))
    assert "no_such_name" in str(e.value)
    with pytest.raises(cured.CuredError, match="COMPILE") as e:  # % of a float: NVRTC's error
        cured.custom("x % 2.5", "a+b", "0")(xp.array(host))
    assert "map_expr" in str(e.value)
    with pytest.raises(cured.CuredError, match="INVALID_EXPRESSION"):
        cured.custom("x; y", "a+b", "0")(xp.array(host))


def test_torch_bfloat16_through_dlpack(gpu):
    torch = pytest.importorskip("torch")
    host = host_data("float32")
    t = torch.from_numpy(host).to(torch.bfloat16).cuda()
    assert cured.sum(t) == float(host.sum())
    assert cured.argmax(t) == int(np.argmax(host))


def test_torch_current_stream(gpu):
    torch = pytest.importorskip("torch")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.ones(1 << 24, dtype=torch.float32, device="cuda")  # filled on s
        x.mul_(2)                     # even partial sums: exact in float32 up to 2^25
        assert cured.sum(x) == float(2 << 24)                       # runs on s, after the fill


def test_cupy_current_stream(gpu):
    cp = pytest.importorskip("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.full(1 << 24, 2, dtype=cp.int32)
        assert cured.sum(x) == 2 << 24


# ---- axis=, keepdims= and strided views (cured_reduce_axes_async) ----

AXIS_CASES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (), (0, 1, 2)]


def host_3d(dtype, shape=(5, 7, 3), seed=3):
    rng = np.random.default_rng(seed)
    lo = 0 if dtype.startswith("uint") or dtype == "bool" else -3
    x = rng.integers(lo, 4, shape)
    return x.astype(dtype) if dtype != "bool" else x > 1


def check_array(got, want, xp):
    got = xp.get(got) if not isinstance(got, (int, float, bool)) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind == "f":
        assert np.array_equal(got, want, equal_nan=True), (got, want)
    else:
        assert np.array_equal(got.astype(want.dtype), want), (got, want)


AXES_CASES = [(fn, t) for fn in ("sum", "prod", "min", "max", "bitwise_or")
              for t in ("int8", "int32", "uint16", "int64", "float16", "float32", "float64", "bool")
              if not (fn == "bitwise_or" and t.startswith("float"))]  # bitwise reductions take integers


@pytest.mark.parametrize("fn,dtype", AXES_CASES)
def test_axes_against_numpy(xp, fn, dtype):
    host = host_3d(dtype)
    if fn == "prod":  # signs and four 2s: every order of multiplication is exact
        host = np.where(host_3d("int8", seed=4) > 0, 1, -1).astype(host.dtype)
        host.flat[[3, 40, 77, 100]] = 2
    try:
        dev = xp.array(host)
    except Exception as e:
        pytest.skip("%s cannot hold %s: %s" % (xp.name, dtype, e))
    np_fn = np.bitwise_or.reduce if fn == "bitwise_or" else getattr(np, fn)
    for axis in AXIS_CASES:
        for keepdims in (False, True):
            if fn == "bitwise_or" and axis is None:
                want = np.bitwise_or.reduce(host, axis=None, keepdims=keepdims)
            else:
                want = np_fn(host, axis=axis, keepdims=keepdims)
            got = getattr(cured, fn)(dev, axis=axis, keepdims=keepdims)
            if axis is None and not keepdims:
                assert same(got, want), (fn, dtype, got, want)
            else:
                check_array(got, want, xp)


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
@pytest.mark.parametrize("fn", ["argmin", "argmax"])
def test_arg_axes_against_numpy(xp, fn, dtype):
    host = host_3d(dtype)   # few distinct values: many ties, the first index wins
    dev = xp.array(host)
    for axis in (0, 1, 2, -2):
        for keepdims in (False, True):
            check_array(getattr(cured, fn)(dev, axis=axis, keepdims=keepdims),
                        getattr(np, fn)(host, axis=axis, keepdims=keepdims), xp)


def test_strided_views(xp):
    host = host_3d("float32", shape=(6, 8, 4)) * 0.5
    dev = xp.array(host)
    if xp.name == "torch":
        views = [(dev.transpose(0, 2), np.swapaxes(host, 0, 2)), (dev[:, 1::3, :], host[:, 1::3, :]),
                 (dev.permute(2, 0, 1), host.transpose(2, 0, 1)), (dev[2], host[2]),
                 (dev[:, :, :1].expand(6, 8, 5), np.broadcast_to(host[:, :, :1], (6, 8, 5)))]
    else:
        cp = xp.cp
        views = [(dev.transpose(2, 1, 0), host.transpose(2, 1, 0)), (dev[:, 1::3, :], host[:, 1::3, :]),
                 (dev[2], host[2]), (cp.broadcast_to(dev[:, :, :1], (6, 8, 5)),
                                     np.broadcast_to(host[:, :, :1], (6, 8, 5)))]
    for v, h in views:
        for axis in [None] + list(range(h.ndim)) + [(0, h.ndim - 1)]:
            check_array(cured.sum(v, axis=axis, keepdims=True), np.sum(h, axis=axis, keepdims=True), xp)
            check_array(cured.max(v, axis=axis), np.max(h, axis=axis), xp)
        assert same(cured.sum(v), np.sum(h))                        # a view reduced whole
        assert cured.argmax(v) == int(np.argmax(h))                 # its flat index, row-major


def test_axes_out_and_empty(xp):
    host = host_3d("int32")
    dev = xp.array(host)
    out = xp.array(np.full((5, 1, 3), -99, dtype="int64"))
    assert cured.sum(dev, axis=1, keepdims=True, out=out) is out
    check_array(out, np.sum(host, axis=1, keepdims=True), xp)
    big = xp.array(np.full((3, 10), -99, dtype="int64"))
    col = big[:, 2:7]                                               # a strided out=
    cured.sum(dev, axis=1, out=col.T if xp.name == "cupy" else col.t())
    want = np.full((3, 10), -99, dtype="int64")
    want[:, 2:7] = np.sum(host, axis=1).T
    check_array(big, want, xp)
    idx = xp.array(np.full((5, 3), -99, dtype="int64"))
    cured.argmax(dev, axis=1, out=idx)
    check_array(idx, np.argmax(host, axis=1), xp)
    with pytest.raises(ValueError, match="shape"):
        cured.sum(dev, axis=1, out=xp.array(np.zeros((3, 5), dtype="int64")))
    empty = xp.array(np.zeros((4, 0, 2), dtype="float32"))
    check_array(cured.sum(empty, axis=1), np.zeros((4, 2), dtype="float32"), xp)
    check_array(cured.prod(empty, axis=1), np.ones((4, 2), dtype="float32"), xp)
    check_array(cured.max(empty, axis=0), np.zeros((0, 2), dtype="float32"), xp)  # no outputs
    with pytest.raises(ValueError, match="zero-size"):
        cured.max(empty, axis=1)
    with pytest.raises(ValueError, match="empty sequence"):
        cured.argmin(empty, axis=1)
    b = xp.array(host > 0)
    check_array(cured.sum(b, axis=0), np.sum(host > 0, axis=0), xp)         # counts, int64
    check_array(cured.max(b, axis=2), np.max(host > 0, axis=2), xp)         # bool results


def test_axes_nan_rules(xp):
    host = host_3d("float32").copy()
    host[1, 2, 0] = np.nan
    host[3, :, 1] = np.nan                 # one all-NaN slice along axis 1
    dev = xp.array(host)
    check_array(cured.max(dev, axis=1), np.max(host, axis=1), xp)
    check_array(cured.argmin(dev, axis=1), np.argmin(host, axis=1), xp)
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        got = cured.nanmin(dev, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_array(got, np.nanmin(host, axis=1), xp)
    check_array(cured.nanargmax(dev, axis=2), np.nanargmax(host, axis=2), xp)
    with pytest.raises(ValueError, match="All-NaN"):
        cured.nanargmax(dev, axis=1)


def test_all_nan_into_out(xp):
    """The all-NaN warning with out=: a whole contiguous array (whose
    asynchronous call cannot report it), and along an axis into an out= of
    the other library (the check reads it through a DLPack view)."""
    host = np.full(64, np.nan, dtype="float32")
    out = xp.empty("float32")
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        cured.nanmax(xp.array(host), out=out)
    assert math.isnan(float(xp.get(out)))
    other = TorchLib() if xp.name == "cupy" else CupyLib()
    grid = np.ones((3, 5), dtype="float32")
    grid[1, :] = np.nan
    dst = other.array(np.zeros(3, dtype="float32"))
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        got = cured.nanmin(xp.array(grid), axis=1, out=dst)
    assert got is dst
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_array(dst, np.nanmin(grid, axis=1), other)


def test_axes_bfloat16_and_stream(gpu):
    torch = pytest.importorskip("torch")
    host = host_3d("float32")
    t = torch.from_numpy(host).to(torch.bfloat16).cuda()
    got = cured.sum(t, axis=(0, 2))
    assert got.dtype == torch.bfloat16
    assert np.array_equal(got.float().cpu().numpy(), host.sum(axis=(0, 2)))
    want = np.argmax(host.transpose(1, 0, 2), axis=0)
    assert np.array_equal(cured.argmax(t.transpose(0, 1), axis=0).cpu().numpy(), want)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.ones((64, 1 << 16), dtype=torch.float32, device="cuda").mul_(2)
        r = cured.sum(x, axis=1)        # runs on s, after the fill; r made on s
        assert bool((r == float(2 << 16)).all())
    cp = pytest.importorskip("cupy")
    cs = cp.cuda.Stream(non_blocking=True)
    with cs:
        y = cp.full((1 << 10, 1 << 12), 3, dtype=cp.int32)
    cs.synchronize()
    r = cured.sum(y, axis=0, stream=cs)  # an explicit stream: the result is made and written on it
    cs.synchronize()
    assert bool((r == 3 << 10).all())

