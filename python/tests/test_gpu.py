"""cured against NumPy on the GPU, for every operator and element type, over
CuPy and PyTorch arrays. Skipped without a GPU, or without the library."""
import math

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
    with pytest.raises(cured.CuredError, match="TYPE_MISMATCH"):
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
