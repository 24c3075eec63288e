"""exact=True (the EXACT_ operators) without a GPU: the operators come from the
library's tables, the result types asked for, the argument checks made before
any CUDA call, and the host reference (exact_ref.py) the GPU tests trust."""
import inspect
import math
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest

import cured
from cured import _lib

from conftest import need_library
from exact_ref import bits, exact_dot, exact_mean, exact_norm, exact_sum, round_fraction
from test_offgpu import Fake, _child

EXACT_NAMES = ("EXACT_SUM", "EXACT_MEAN", "EXACT_SUM_SQUARES", "EXACT_NORM2", "EXACT_DOT")
FLOATS = ("float16", "bfloat16", "float32", "float64")


def test_exact_operators_are_the_librarys():
    need_library()
    t = _lib.tables()
    for name in EXACT_NAMES:
        assert name in t.ops and getattr(cured, name) == t.ops[name]
        # float elements into their own type; nothing else
        assert [s for s in t.types if t.offered(name, s, s)] == list(FLOATS), name
        assert not any(t.offered(name, s, r) for s in t.types if s not in FLOATS for r in t.types), name


def test_exact_is_keyword_only():
    for fn in (cured.sum, cured.mean, cured.dot, cured.norm):
        p = inspect.signature(fn).parameters["exact"]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is False, fn
    with pytest.raises(TypeError):
        cured.sum(Fake(typestr="<f4"), None, None, None, False, True)


def test_exact_plans():
    """dtype=None: the input's own type (NumPy's rule; the library's default for
    float16/bfloat16 is float32); dtype= a wider float; nothing converted after."""
    need_library()
    ops = _lib.tables().ops
    for fn, name in (("sum", "EXACT_SUM"), ("mean", "EXACT_MEAN"), ("dot", "EXACT_DOT"), ("norm", "EXACT_NORM2")):
        for src in FLOATS:
            assert cured._plan(fn, ops[name], src, None) == (ops[name], src, src, src, None), (fn, src)
    for src, want in (("float16", "float32"), ("float16", "float64"), ("bfloat16", "float32"), ("float32", "float64")):
        assert cured._plan("sum", ops["EXACT_SUM"], src, want)[1:4] == (src, want, want)
    for src, want in (("float32", "float16"), ("float64", "float32"), ("float16", "bfloat16"), ("float32", "int32")):
        with pytest.raises(TypeError, match="exact=True with dtype=.* is not offered"):
            cured._plan("sum", ops["EXACT_SUM"], src, want)
    for src in ("int8", "int32", "uint64", "bool"):
        with pytest.raises(TypeError, match="exact=True takes float16, bfloat16, float32, float64 arrays, not " + src):
            cured._plan("sum", ops["EXACT_SUM"], src, None)


def test_exact_refusals_before_cuda():
    """Integer and bool arrays, and dtype= the library does not offer, raise
    TypeError before any CUDA call (the Fake arrays have no memory: a CUDA
    call would fail otherwise), over the whole-array and the axis paths."""
    need_library()
    for ts in ("<i4", "|u1", "<i8", "|b1"):
        x, m = Fake(shape=(3, 4), typestr=ts), "exact=True takes"
        for call in (lambda: cured.sum(x, exact=True), lambda: cured.sum(x, axis=1, exact=True),
                     lambda: cured.sum(x, axis=(0, 1), keepdims=True, exact=True),
                     lambda: cured.mean(x, exact=True), lambda: cured.mean(x, axis=0, exact=True),
                     lambda: cured.norm(x, exact=True), lambda: cured.norm(x, axis=1, exact=True),
                     lambda: cured.sum(x, out=Fake(shape=(1,), typestr="<f8"), exact=True),
                     lambda: cured.dot(Fake(typestr=ts), Fake(typestr=ts), exact=True)):
            with pytest.raises(TypeError, match=m):
                call()
    with pytest.raises(TypeError, match="not offered"):
        cured.sum(Fake(typestr="<f8"), dtype="float32", exact=True)
    with pytest.raises(TypeError, match="not offered"):
        cured.mean(Fake(shape=(3, 4), typestr="<f4"), axis=1, dtype="float16", exact=True)
    with pytest.raises(TypeError, match="out= must be float32"):   # out= of the input's type
        cured.sum(Fake(typestr="<f4"), out=Fake(shape=(1,), typestr="<f8"), exact=True)
    with pytest.raises(TypeError, match="takes no dtype"):
        cured._plan("norm", cured.NORM2, "float32", "float64")
    with pytest.raises(NotImplementedError, match="ord="):
        cured.norm(Fake(typestr="<f4"), ord=1)
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        cured.norm(Fake(shape=(2, 2, 2), typestr="<f4"), axis=(0, 1, 2))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):   # launching nothing, as mean()
        assert math.isnan(cured.mean(Fake(n=0, typestr="<f4"), exact=True))


def test_exact_reaches_the_library():
    """A float array passes every check and comes to the library's call (no driver: NO_DRIVER)."""
    need_library()
    code = ("import cured\n"
            "class F:\n"
            "    __cuda_array_interface__ = {'shape': (8,), 'typestr': '<f2', 'data': (4096, False), 'version': 2}\n"
            "for f in (lambda: cured.sum(F(), exact=True), lambda: cured.mean(F(), exact=True),\n"
            "          lambda: cured.norm(F(), exact=True), lambda: cured.dot(F(), F(), exact=True)):\n"
            "    try:\n        f()\n    except cured.CuredError as e:\n        print(e.status)\n")
    r = _child(code, CURED_CUDA_DRIVER_LIBRARY="/nonexistent/libcuda.so.1")
    assert r.stdout.split() == ["CURED_ERROR_NO_DRIVER"] * 4, (r.stdout, r.stderr)


def test_norm_plans():
    """numpy.linalg.norm's result types for exact=False: float64 for integers and
    bool, floating types their own (float16/bfloat16 computed in float32)."""
    need_library()
    N = cured.NORM2
    assert cured._plan("norm", N, "int32", None)[1:4] == ("int32", "float64", "float64")
    assert cured._plan("norm", N, "bool", None)[1:4] == ("uint8", "float64", "float64")
    assert cured._plan("norm", N, "float32", None)[1:5] == ("float32", "float32", "float32", None)
    p = cured._plan("norm", N, "float16", None)
    assert p[1:4] == ("float16", "float32", "float16") and p[4](1 / 3) == float(np.float16(1 / 3))


# ---- the host reference itself ----

def test_round_fraction_against_numpy():
    """One rounding of a double's exact value agrees with NumPy's conversions
    (correctly rounded from a double); seeded, so that a failure reruns."""
    seed = 20261206
    print("seed", seed, "(rerun: the same test)")
    rng = random.Random(seed)
    for _ in range(3000):
        x = math.ldexp(rng.uniform(-1, 1), rng.randint(-160, 140))
        q = Fraction(x)
        assert round_fraction(q, "float64") == x
        with np.errstate(over="ignore"):
            assert bits(round_fraction(q, "float32")) == bits(float(np.float32(x))), x
            assert bits(round_fraction(q, "float16")) == bits(float(np.float16(x))), x


def test_round_fraction_rounds_once():
    """Cases where float(Fraction) then a narrowing rounds twice and misses."""
    q = 1 + Fraction(1, 2 ** 24) + Fraction(1, 2 ** 60)        # just above a float32 tie
    assert float(np.float32(float(q))) == 1.0                  # the double rounding: to the tie, then even
    assert round_fraction(q, "float32") == 1 + 2 ** -23
    q = 1 + Fraction(1, 2 ** 11) + Fraction(1, 2 ** 70)        # just above a float16 tie
    assert float(np.float16(float(q))) == 1.0
    assert round_fraction(q, "float16") == 1 + 2 ** -10
    assert round_fraction(1 + Fraction(1, 2 ** 24), "float32") == 1.0           # a tie: to even
    assert round_fraction(1 + Fraction(3, 2 ** 24), "float32") == 1 + 2 ** -22
    assert round_fraction(1 + Fraction(1, 2 ** 8), "bfloat16") == 1.0
    assert round_fraction(1 + Fraction(3, 2 ** 8), "bfloat16") == 1 + 2 ** -6
    assert round_fraction(Fraction(65520), "float16") == math.inf               # past 65504 + half an ulp
    assert round_fraction(Fraction(65519), "float16") == 65504.0
    assert round_fraction(-Fraction(2) ** 128, "float32") == -math.inf
    assert round_fraction(Fraction(1, 2 ** 25), "float16") == 0.0               # half the least subnormal: even
    assert round_fraction(Fraction(3, 2 ** 26), "float16") == 2 ** -24
    assert round_fraction(Fraction(1, 2 ** 1075) * 3, "float64") == 2 ** -1073  # 1.5 least subnormals: even
    assert round_fraction(Fraction(0), "float32") == 0.0


def test_reference_rules():
    assert exact_sum([1e30, 1.0, -1e30], "float64") == 1.0 == math.fsum([1e30, 1.0, -1e30])
    assert bits(exact_sum([-0.0, -0.0], "float32")) == bits(-0.0)
    assert bits(exact_sum([-0.0, 0.0], "float32")) == bits(0.0)
    assert bits(exact_sum([], "float32")) == bits(0.0)
    assert bits(exact_sum([1.0, -1.0], "float32")) == bits(0.0)
    assert math.isnan(exact_sum([math.inf, -math.inf], "float64"))
    assert exact_sum([math.inf, 1e308, 1e308], "float64") == math.inf
    assert exact_sum([1e308, 1e308], "float64") == math.inf                      # overflow of the rounding
    assert math.isnan(exact_mean([], "float64"))
    assert exact_mean([3e38, 3e38, 3e38], "float32") == float(np.float32(3e38))  # the sum alone overflows float32
    assert math.isnan(exact_dot([math.inf], [0.0], "float64"))
    assert bits(exact_dot([-1.0, 0.0], [0.0, -2.0], "float64")) == bits(-0.0)
    assert bits(exact_dot([1.0, 0.0], [0.0, -2.0], "float64")) == bits(0.0)
    assert exact_dot([1e200, 1.0, -1e200], [1e200, 1.0, 1e200], "float64") == 1.0
    assert exact_norm([3.0, -4.0], "float32") == 5.0 and exact_norm([], "float64") == 0.0
    assert exact_norm([-math.inf, math.inf], "float64") == math.inf
    rng = random.Random(7)
    for _ in range(200):
        xs = [math.ldexp(rng.uniform(-1, 1), rng.randint(-1074, 1000)) for _ in range(20)]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert bits(exact_sum(xs, "float64")) == bits(math.fsum(xs))


def test_exact_calls_reach_the_library_on_a_fake_device():
    """The exact paths end to end on tests/fakecuda.c's device (kernels compile
    with NVRTC and are counted, not run): the whole-array calls, the axis path,
    cured_exact_dot's prototypes; each launches, an empty mean launches nothing."""
    need_library()
    from test_offgpu import _fake_driver
    fake = _fake_driver()
    if fake is None:
        pytest.skip("tests/.libs/libfakecuda.so not built (make check builds it)")
    code = """if 1:
        import ctypes, os, warnings
        import cured
        fake = ctypes.CDLL(os.environ["CURED_CUDA_DRIVER_LIBRARY"])
        fake.fake_alloc.restype = ctypes.c_void_p
        fake.fake_alloc.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_size_t]
        class F:
            def __init__(s, ptr, shape, t, strides=None):
                s.__cuda_array_interface__ = {"shape": shape, "typestr": t, "data": (ptr, False),
                                              "strides": strides, "version": 2}
        x, o = fake.fake_alloc(4096, 1, 0), fake.fake_alloc(256, 1, 0)
        def launches(f):
            before = fake.fake_launches()
            r = f()
            return min(fake.fake_launches() - before, 1), type(r).__name__
        print(launches(lambda: cured.sum(F(x, (64,), "<f4"), exact=True)))
        print(launches(lambda: cured.sum(F(x, (64,), "<f4"), out=F(o, (1,), "<f4"), exact=True)))
        print(launches(lambda: cured.sum(F(x, (8, 8), "<f4"), axis=1, out=F(o, (8,), "<f4"), exact=True)))
        print(launches(lambda: cured.sum(F(x, (8, 8), "<f4", strides=(4, 32)), out=F(o, (1,), "<f4"), exact=True)))
        print(launches(lambda: cured.mean(F(x, (64,), "<f4"), exact=True)))
        print(launches(lambda: cured.mean(F(x, (8, 8), "<f4"), axis=0, out=F(o, (8,), "<f4"), exact=True)))
        print(launches(lambda: cured.dot(F(x, (64,), "<f8"), F(x, (64,), "<f8"), exact=True)))
        print(launches(lambda: cured.dot(F(x, (64,), "<f8"), F(x, (64,), "<f8"), out=F(o, (1,), "<f8"), exact=True)))
        print(launches(lambda: cured.norm(F(x, (64,), "<f4"), exact=True)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print(launches(lambda: cured.mean(F(x, (0,), "<f4"), exact=True)))
            print(launches(lambda: cured.mean(F(x, (0,), "<f4"), out=F(o, (1,), "<f4"), exact=True)))
        """
    r = _child(code, CURED_CUDA_DRIVER_LIBRARY=fake, FAKECUDA_DEVICE="1", CURED_CACHE_DISABLE="1")
    assert r.returncode == 0, r.stderr
    want = ["(1, 'float')", "(1, 'F')", "(1, 'F')", "(1, 'F')", "(1, 'float')", "(1, 'F')",
            "(1, 'float')", "(1, 'F')", "(1, 'float')", "(0, 'float')", "(1, 'F')"]
    assert r.stdout.split("\n")[:len(want)] == want, (r.stdout, r.stderr)
