"""Tests that need no GPU (CI runs them): type mapping, argument checks made
before any CUDA call, and cured's clear errors without a driver or library."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

import cured
from cured import _arrays, _axes, _dtypes, _lib

from conftest import LIBRARY_NOT_FOUND, library_loads, need_library


class Fake:
    """An object with a __cuda_array_interface__ and no real memory."""

    def __init__(self, n=10, typestr="<i4", strides=None, ptr=0x7F0000000000, readonly=False, shape=None):
        self.__cuda_array_interface__ = {"shape": shape if shape is not None else (n,), "typestr": typestr,
                                         "data": (ptr, readonly), "strides": strides, "version": 3,
                                         "stream": None}


def test_typestr_mapping():
    assert _dtypes.from_typestr("<i4") == "int32"
    assert _dtypes.from_typestr("|u1") == "uint8"
    assert _dtypes.from_typestr("<f2") == "float16"
    assert _dtypes.from_typestr("<f8") == "float64"
    assert _dtypes.from_typestr("|b1") == "bool"
    assert _dtypes.from_typestr(">i1") == "int8"       # one byte: no byte order
    for bad in ("<c8", ">f4", "f4", "<V4", None):
        with pytest.raises(TypeError):
            _dtypes.from_typestr(bad)


def test_dlpack_type_mapping():
    assert _dtypes.from_dlpack(4, 16, 1) == "bfloat16"
    assert _dtypes.from_dlpack(0, 64, 1) == "int64"
    assert _dtypes.from_dlpack(1, 16, 1) == "uint16"
    assert _dtypes.from_dlpack(2, 16, 1) == "float16"
    assert _dtypes.from_dlpack(6, 8, 1) == "bool"
    with pytest.raises(TypeError):
        _dtypes.from_dlpack(2, 32, 4)   # vector lanes
    with pytest.raises(TypeError):
        _dtypes.from_dlpack(5, 64, 1)   # complex


class TorchLikeDtype:
    def __str__(self):
        return "torch.bfloat16"


def test_dtype_names():
    need_library()                                     # the types and operators are the library's
    assert _dtypes.dtype_name(None) is None
    assert _dtypes.dtype_name("float32") == "float32"
    assert _dtypes.dtype_name(float) == "float64"      # as numpy reads Python's float
    assert _dtypes.dtype_name(int) == "int64"
    assert _dtypes.dtype_name("f4") == "float32"
    assert _dtypes.dtype_name(TorchLikeDtype()) == "bfloat16"
    # NumPy's type strings, one-letter codes and other names, as numpy.dtype() reads them
    numpy_reads = {"u8": "uint64", "i2": "int16", "<f4": "float32", "|i1": "int8", ">u1": "uint8",
                   "b": "int8", "B": "uint8", "h": "int16", "H": "uint16", "i": "int32", "I": "uint32",
                   "l": "int64", "q": "int64", "Q": "uint64", "e": "float16", "d": "float64",
                   "single": "float32", "double": "float64", "intc": "int32", "intp": "int64",
                   "uint": "uint64", "longlong": "int64", "ulonglong": "uint64", "ubyte": "uint8"}
    for code, name in numpy_reads.items():
        assert _dtypes.dtype_name(code) == name, code
    for bad in ("complex64", "b1", "?", ">f4", "bool", "g"):
        with pytest.raises(TypeError):
            _dtypes.dtype_name(bad)


def test_numpy_result_types():
    need_library()                                     # the types and operators are the library's
    assert [_dtypes.sum_result(t) for t in ("int8", "int16", "int32", "int64")] == ["int64"] * 4
    assert [_dtypes.sum_result(t) for t in ("uint8", "uint32", "uint64")] == ["uint64"] * 3
    assert [_dtypes.sum_result(t) for t in ("float16", "bfloat16", "float32", "float64")] == \
        ["float16", "bfloat16", "float32", "float64"]
    assert _dtypes.sum_result("bool") == "int64"


def test_plans():
    need_library()                                     # the types and operators are the library's
    # (op, cured input, cured result, NumPy result, conversion)
    assert cured._plan("sum", cured.SUM, "int32", None)[1:4] == ("int32", "int64", "int64")
    assert cured._plan("sum", cured.SUM, "int32", "int32")[2] == "int32"       # dtype=: wraps
    assert cured._plan("sum", cured.SUM, "bool", None)[1:4] == ("uint8", "uint64", "int64")
    assert cured._plan("nanmin", cured.NANMIN, "int16", None)[0] == cured.MIN  # as numpy.nanmin
    assert cured._plan("nanargmax", cured.NANARGMAX, "uint8", None)[0] == cured.ARGMAX
    assert cured._plan("nanmin", cured.NANMIN, "float32", None)[0] == cured.NANMIN
    assert cured._plan("argmin", cured.ARGMIN, "float16", None)[3] == "int64"
    assert cured._plan("max", cured.MAX, "bool", None)[4] is bool
    assert cured._plan("dot", cured.DOT, "int8", None)[2:4] == ("int8", "int8")
    with pytest.raises(TypeError):
        cured._plan("bitwise_and", cured.AND, "float32", None)
    with pytest.raises(TypeError):
        cured._plan("min", cured.MIN, "int32", "int64")    # min takes no dtype=


def test_sum_dtype_plans():
    """dtype= of sum/prod as NumPy reads it: any integer type wraps modulo
    2^bits, computed in an offered type of that width (same bits) or in
    64 bits and wrapped after; float combinations cured lacks: TypeError."""
    need_library()                                     # the types and operators are the library's
    plan = lambda src, want, op=cured.SUM: cured._plan("sum", op, src, want)
    # (input, dtype=) -> cured's result type; the NumPy result is dtype=
    cases = {("uint8", "int64"): "uint64", ("int8", "uint64"): "int64", ("bool", "int32"): "uint32",
             ("bool", "int8"): "uint8", ("uint16", "int16"): "uint16", ("int64", "uint32"): "int32",
             ("int32", "int8"): "int64", ("uint8", "int16"): "uint64", ("int16", "int16"): "int16",
             ("float16", "float32"): "float32", ("bfloat16", "bfloat16"): "bfloat16",
             ("float32", "float64"): "float64"}
    for (src, want), res in cases.items():
        for op in (cured.SUM, cured.PRODUCT):
            p = plan(src, want, op)
            assert p[2:4] == (res, want), (src, want, p)
            assert (p[4] is None) == (res == want)
    wrap = plan("uint8", "int64")[4]
    assert wrap(2**64 - 1) == -1 and wrap(5) == 5
    assert plan("int32", "int8")[4](200) == int(np.array(200).astype(np.int8))
    assert plan("int8", "uint64")[4](-3 % 2**64) == 2**64 - 3
    assert plan("int16", "uint16")[4](70000) == 70000 % 2**16
    assert cured._plan("sum", cured.SUM, "bool", None)[4] is not None   # uint64 bits read as int64
    for src, want in (("int32", "float32"), ("float32", "int32"), ("float16", "float64"),
                      ("float64", "float32"), ("bfloat16", "float16"), ("float32", "float16")):
        with pytest.raises(TypeError, match="not offered"):
            plan(src, want)
    assert _dtypes.wrap(-1.5, "float32") == -1.5
    # The default result types agree with the C library's (no GPU needed).
    if library_loads():
        L = _lib.lib()
        for src in _dtypes.TYPES:
            got = ctypes.c_int(-1)
            assert L.cured_default_result(cured.SUM, _dtypes.TYPES[src][0], ctypes.byref(got)) == 0
            assert _dtypes.CURED_NAME[got.value] == _dtypes.sum_results(src)[0], src
            for res in _dtypes.sum_results(src):   # every offered type is one cured takes (its size)
                assert _dtypes.size(res) in (1, 2, 4, 8)


def test_dtype_checks_before_cuda():
    need_library()                                     # the types and operators are the library's
    x = Fake(shape=(3, 4), typestr="<i4")
    with pytest.raises(TypeError, match="not offered"):
        cured.sum(x, dtype="float32")
    with pytest.raises(TypeError, match="not offered"):
        cured.prod(x, axis=1, dtype="float64")
    with pytest.raises(TypeError, match="omit out"):   # cured computes int64 and wraps: not into out=
        cured.sum(x, dtype="int8", out=Fake(shape=(1,), typestr="|i1"))
    with pytest.raises(TypeError, match="omit out"):
        cured.sum(x, axis=1, dtype="int16", out=Fake(shape=(3,), typestr="<i2"))
    with pytest.raises(TypeError, match="uint64"):      # out= has the dtype= type, not cured's
        cured.sum(Fake(typestr="|u1"), dtype="int64", out=Fake(shape=(1,), typestr="<u8"))
    with pytest.raises(TypeError, match="int64"):       # an ARG out= is checked before the reduction
        cured.argmax(Fake(typestr="<f4"), out=Fake(shape=(1,), typestr="<i4"))


def test_stats_plans():
    """mean/var/std result types as NumPy's (integers and bool: float64; floats
    their own type), computed in what cured offers and rounded after."""
    need_library()                                     # the types and operators are the library's
    from cured import _stats
    cases = {("int32", None): ("int32", "float64", "float64"), ("bool", None): ("uint8", "float64", "float64"),
             ("float16", None): ("float16", "float32", "float16"),
             ("bfloat16", None): ("bfloat16", "float32", "bfloat16"),
             ("float32", None): ("float32", "float32", "float32"), ("float64", None): ("float64", "float64", "float64"),
             ("float32", "float64"): ("float32", "float64", "float64"),
             ("int8", "float32"): ("int8", "float64", "float32"), ("float16", "float64"): ("float16", "float64", "float64"),
             ("float64", "float16"): ("float64", "float64", "float16")}
    for (src, dtype), want in cases.items():
        assert _stats.result_types("mean", src, dtype) == want, (src, dtype)
    with pytest.raises(TypeError, match="floating"):
        _stats.result_types("mean", "int32", "int64")
    assert _stats.check_ddof("var", 1) == 1.0 and _stats.check_ddof("var", 0.5) == 0.5
    for bad in (-1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="ddof"):
            _stats.check_ddof("var", bad)
    with pytest.raises(TypeError, match="ddof"):
        _stats.check_ddof("var", "one")
    for v in (0.1, 1 / 3, 65519.0, 70000.0, -2.5e-8, 1e-40):
        with np.errstate(over="ignore"):
            assert _stats.round_to(v, "float16") == float(np.float16(v)), v
        assert _stats.round_to(v, "float32") == float(np.float32(v)), v
    # bfloat16: the float32 bits rounded to their top 16, to nearest even
    for v, want in ((1.0, 1.0), (1 + 2**-8, 1.0), (1 + 3 * 2**-8, 1 + 2**-6), (1 + 2**-7, 1 + 2**-7)):
        assert _stats.round_to(v, "bfloat16") == want, v
    import math
    assert math.isnan(_stats.round_to(math.nan, "bfloat16"))


def test_stats_checks_before_cuda():
    """Empty inputs and n <= ddof give NaN with NumPy's warning, launching nothing."""
    need_library()                                     # the types and operators are the library's
    import math
    import warnings
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert math.isnan(cured.mean(Fake(n=0, typestr="<f4")))
    for fn, n, ddof in (("var", 0, 0), ("std", 1, 1), ("var", 3, 3.5)):
        with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
            assert math.isnan(getattr(cured, fn)(Fake(n=n, typestr="<f8"), ddof=ddof))
    with pytest.raises(ValueError, match="ddof"):
        cured.var(Fake(typestr="<f4"), ddof=-1)
    with pytest.raises(TypeError, match="floating"):
        cured.mean(Fake(typestr="<i4"), dtype="int64")
    with pytest.raises(TypeError, match="omit out"):   # float16 data: cured gives float32
        cured.mean(Fake(typestr="<f2"), out=Fake(shape=(1,), typestr="<f2"))
    with pytest.raises(TypeError, match="omit out"):
        cured.std(Fake(shape=(3, 4), typestr="<f2"), axis=1, out=Fake(shape=(3,), typestr="<f2"))
    with pytest.raises(TypeError, match="float64"):    # int data: float64, out= checked first
        cured.mean(Fake(typestr="<i4"), out=Fake(shape=(1,), typestr="<f4"), dtype="float64")
    with pytest.raises(cured.AxisError):
        cured.var(Fake(shape=(3, 4), typestr="<f4"), axis=2)
    with pytest.raises(TypeError, match="CuPy or PyTorch"):
        cured.mean(Fake(shape=(3, 4), typestr="<f4"), axis=1)
    need_library()                                     # the rest calls the library
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # n > ddof: no warning, a CUDA call (none here)
        r = _child("import cured\n"
                   "class F:\n"
                   "    __cuda_array_interface__ = {'shape': (8,), 'typestr': '<f4', 'data': (4096, False), 'version': 2}\n"
                   "try:\n    cured.var(F(), ddof=7)\nexcept cured.CuredError as e:\n    print(e.status)\n",
                   CURED_CUDA_DRIVER_LIBRARY="/nonexistent/libcuda.so.1")
    assert r.stdout.strip() == "CURED_ERROR_NO_DRIVER", (r.stdout, r.stderr)


def test_nan_stats_checks_before_cuda():
    """nansum/nanmean/nanvar/nanstd: exported; n <= ddof (NaNs aside) warns as numpy.nanvar does,
    launching nothing; the NaN-skipping operators' numbers are the header's (read from the library)."""
    import math
    import re
    from cured import _stats
    for fn in ("nansum", "nanmean", "nanvar", "nanstd"):
        assert fn in cured.__all__ and callable(getattr(cured, fn))
    assert _stats._few("NANVAR", 2, 2) == "Degrees of freedom <= 0 for slice."   # numpy.nanvar's
    assert _stats._few("VAR", 2, 2) == "Degrees of freedom <= 0 for slice"       # numpy.var's
    assert _stats._few("NANMEAN", 0, 5) == "Mean of empty slice" and _stats._few("NANMEAN", 1, 5) is None
    assert [_stats._base(n) for n in ("NANMEAN", "NANVAR", "NANSTD", "MEAN", "NANSUM")] == \
        ["MEAN", "VAR", "STD", "MEAN", "NANSUM"]
    from cured import _axes
    for fn in ("nansum", "nanmean", "nanvar", "nanstd"):   # NumPy reads a 0-d array as 1-d for these
        assert _axes.normalize(fn, 0, 0) == () and _axes.normalize(fn, -1, 0) == ()
    # The too-few NaN the front end looks for is the one the kernels write (kernels-src/stats.cuh).
    here = os.path.join(os.path.dirname(__file__), "..", "..")
    stats_cuh = os.path.join(here, "kernels-src", "stats.cuh")
    if os.path.exists(stats_cuh):
        text = open(stats_cuh).read()
        assert "__int_as_float(0x%x)" % _stats.TOO_FEW_BITS["float32"] in text
        assert "__longlong_as_double(0x%xll)" % _stats.TOO_FEW_BITS["float64"] in text
    need_library()
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert math.isnan(cured.nanmean(Fake(n=0, typestr="<f4")))
    for fn, n, ddof in (("nanvar", 0, 0), ("nanstd", 1, 1), ("nanvar", 3, 3.5)):
        with pytest.warns(RuntimeWarning, match=re.escape("Degrees of freedom <= 0 for slice.")):
            assert math.isnan(getattr(cured, fn)(Fake(n=n, typestr="<f8"), ddof=ddof))
    with pytest.raises(ValueError, match="ddof"):
        cured.nanstd(Fake(typestr="<f4"), ddof=-1)
    with pytest.raises(TypeError, match="floating"):
        cured.nanmean(Fake(typestr="<i4"), dtype="int64")
    with pytest.raises(TypeError, match="float16"):   # nansum's result types are sum's
        cured.nansum(Fake(typestr="<f4"), dtype="float16")
    assert cured._plan("nansum", cured.NANSUM, "int16", None)[1:4] == ("int16", "int64", "int64")
    assert cured._plan("nansum", cured.NANSUM, "float16", None)[1:4] == ("float16", "float16", "float16")
    header = os.path.join(here, "include", "cured.h")
    if os.path.exists(header):
        ops = dict(re.findall(r"\bCURED_OP_([A-Z_0-9]+) = (\d+)", open(header).read()))
        for name in ("NANSUM", "NANMEAN", "NANVAR", "NANSTD"):
            assert int(ops[name]) == getattr(cured, name)


def test_axis_normalization():
    from cured import _axes
    assert _axes.normalize("sum", None, 3) == (0, 1, 2)
    assert _axes.normalize("sum", -1, 3) == (2,)
    assert _axes.normalize("sum", (2, 0), 3) == (0, 2)
    assert _axes.normalize("sum", (), 3) == ()
    assert _axes.result_shape((2, 3, 4), (0, 2), False) == (3,)
    assert _axes.result_shape((2, 3, 4), (0, 2), True) == (1, 3, 1)
    with pytest.raises(cured.AxisError):
        _axes.normalize("sum", 3, 3)
    with pytest.raises(IndexError):           # AxisError is both, as NumPy's
        _axes.normalize("sum", -4, 3)
    with pytest.raises(cured.AxisError):
        _axes.normalize("sum", 1, 0)          # a 0-d array has no axis 1 (0 and -1: read as 1-d)
    with pytest.raises(ValueError, match="duplicate"):
        _axes.normalize("sum", (1, -2), 3)
    with pytest.raises(TypeError):
        _axes.normalize("argmax", (0,), 3, single=True)
    with pytest.raises(TypeError):
        _axes.normalize("sum", 1.5, 3)
    assert _arrays._element_strides((4, 3), (12, 4), 4) == (3, 1)
    assert _arrays._element_strides((4, 1), (4, -7), 4) == (1, 0)   # a length-1 axis: any stride
    with pytest.raises(ValueError, match="non-negative"):
        _arrays._element_strides((4,), (-4,), 4)
    with pytest.raises(ValueError, match="whole elements"):
        _arrays._element_strides((4,), (6,), 4)


def test_axis_types_as_numpy_reads_them():
    """NumPy takes an int or a tuple for axis=, not a list nor a bool; argmin and
    argmax, as NumPy's other reductions, read a 0-d array as 1-d (axis 0 or
    -1 reduces nothing; argmax: index 0), but mean, var and std do not."""
    need_library()                                     # the types and operators are the library's
    from cured import _axes
    x = Fake(shape=(3, 4))
    for bad in ([0], [0, 1], True, (0, False)):
        with pytest.raises(TypeError, match="tuple of ints"):
            cured.sum(x, axis=bad)
    with pytest.raises(TypeError):
        cured.argmax(x, axis=[0])
    assert _axes.normalize("argmax", 0, 0, single=True) == ()
    assert _axes.normalize("argmin", -1, 0, single=True) == ()
    assert _axes.normalize("sum", 0, 0) == () and _axes.normalize("bitwise_or", -1, 0) == ()
    for tup in ((0,), (-1,), (0, 0), (0, 1)):        # a tuple is checked as it is (numpy: AxisError)
        with pytest.raises(cured.AxisError):
            _axes.normalize("sum", tup, 0)
    with pytest.raises(cured.AxisError):
        _axes.normalize("argmax", 1, 0, single=True)
    with pytest.raises(cured.AxisError):
        _axes.normalize("mean", 0, 0)                 # numpy.mean too refuses axis 0 of a 0-d array
    with pytest.raises(TypeError, match="CuPy or PyTorch"):   # past the axis check: the result array
        cured.argmax(Fake(shape=()), axis=0)


def test_bool_and_of_no_element_is_cast():
    """cured's AND of no element is all ones (0xFF), not a bool: into a bool
    out= it goes through the array's library, which casts (numpy: True)."""
    need_library()                                     # the types and operators are the library's
    for a, out in ((Fake(shape=(3, 0), typestr="|b1"), Fake(shape=(3,), typestr="|b1")),
                   (Fake(n=0, typestr="|b1"), Fake(shape=(1,), typestr="|b1"))):
        kw = {"axis": 1} if len(a.__cuda_array_interface__["shape"]) == 2 else {}
        with pytest.raises(TypeError, match="out= of bool"):
            cured.bitwise_and(a, out=out, **kw)
    assert cured._plan("bitwise_or", cured.OR, "bool", None)[2:4] == ("uint8", "bool")


def test_axis_argument_checks_before_cuda():
    need_library()                                     # the types and operators are the library's
    x = Fake(shape=(3, 4))
    with pytest.raises(cured.AxisError):
        cured.sum(x, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        cured.max(x, axis=(0, 0))
    with pytest.raises(TypeError, match="int or None"):
        cured.argmax(x, axis=(0, 1))
    with pytest.raises(ValueError, match="non-negative"):
        cured.sum(Fake(shape=(3, 4), strides=(16, -4)), axis=0)
    with pytest.raises(ValueError, match="dimensions"):
        cured.sum(Fake(shape=(1,) * 9), axis=0)
    with pytest.raises(ValueError, match="zero-size array"):
        cured.max(Fake(shape=(3, 0)), axis=1)
    with pytest.raises(ValueError, match="empty sequence"):
        cured.argmin(Fake(shape=(0, 3)), axis=0)
    with pytest.raises(TypeError, match="CuPy or PyTorch"):   # no library to make the result with
        cured.sum(x, axis=1)
    with pytest.raises(TypeError, match="CuPy or PyTorch"):
        cured.sum(Fake(n=10, strides=(8,)))                  # a strided view reduced whole
    with pytest.raises(ValueError, match="shape"):
        cured.sum(x, axis=1, out=Fake(shape=(4,), typestr="<i8"))
    with pytest.raises(TypeError, match="int64"):
        cured.sum(x, axis=1, out=Fake(shape=(3,), typestr="<i4"))
    # Every check passed: the call itself (without a driver here) reports.
    need_library()
    code = ("import cured\n"
            "class F:\n"
            "    def __init__(s, shape, t):\n"
            "        s.__cuda_array_interface__ = {'shape': shape, 'typestr': t, 'data': (4096, False), 'version': 2}\n"
            "try:\n    cured.sum(F((3, 4), '<i4'), axis=1, out=F((3,), '<i8'))\n"
            "except cured.CuredError as e:\n    print(e.status)\n")
    r = _child(code, CURED_CUDA_DRIVER_LIBRARY="/nonexistent/libcuda.so.1")
    assert r.returncode == 0 and r.stdout.strip() == "CURED_ERROR_NO_DRIVER", (r.stdout, r.stderr)
    view = Fake(n=10, strides=(8,))           # reduced whole through the axis path: out= checked first
    with pytest.raises(TypeError, match="int64"):
        cured.sum(view, out=Fake(shape=(), typestr="<f4"))
    with pytest.raises(ValueError, match="read-only"):
        cured.sum(view, out=Fake(shape=(1,), typestr="<i8", readonly=True))
    for f in (cured.all, cured.any):          # user-defined reductions: whole arrays only
        with pytest.raises(NotImplementedError, match="axis"):
            f(Fake(), axis=0)
        with pytest.raises(NotImplementedError, match="keepdims"):
            f(Fake(), keepdims=True)


def test_empty_array_keeps_its_device():
    """An empty array's pointer says nothing: its device is its library's (CuPy's .device.id)."""
    class Dev:
        id = 3
    empty = Fake(shape=(0, 3), typestr="<f4", ptr=0)
    empty.device = Dev()
    assert cured._arrays.device_array(empty).device == 3
    assert cured._arrays.device_array(Fake(shape=(0, 3), typestr="<f4", ptr=0)).device == 0


def test_argument_checks_before_cuda():
    need_library()                                     # the types and operators are the library's
    # a float16 statistic into a float16 out=: made in float32 by the array's library, which a bare
    # interface object does not have (CuPy and PyTorch arrays: test_gpu_numpy.test_stats_half_out)
    for kw in ({}, {"axis": 0}):
        with pytest.raises(TypeError, match="needs a CuPy or PyTorch array"):
            cured.mean(Fake(shape=(4, 4), typestr="<f2"), out=Fake(shape=(1,) if not kw else (4,), typestr="<f2"),
                       **kw)
    with pytest.raises(ValueError, match="not contiguous"):
        cured.all(Fake(n=10, strides=(8,)))         # user-defined reductions need contiguous arrays
    with pytest.raises(ValueError, match="not contiguous"):
        cured.dot(Fake(shape=(4, 4), strides=(4, 16)), Fake(shape=(4, 4)))  # a transposed view
    cured._arrays.from_cai(Fake(shape=(4, 1), strides=(4, 99)), Fake(shape=(4, 1), strides=(4, 99))
                           .__cuda_array_interface__)  # a size-1 dimension's stride does not matter
    with pytest.raises(TypeError, match="neither"):
        cured.sum([1, 2, 3])
    with pytest.raises(TypeError, match="not supported"):
        cured.sum(Fake(typestr="<c8"))
    with pytest.raises(ValueError, match="zero-size array"):
        cured.min(Fake(n=0))
    with pytest.raises(ValueError, match="empty sequence"):
        cured.argmax(Fake(n=0))
    with pytest.raises(ValueError, match="1-D"):     # numpy.dot of 2-D arrays is a matrix product
        cured.dot(Fake(shape=(4, 4)), Fake(shape=(4, 4)))
    with pytest.raises(ValueError, match="1-D"):
        cured.dot(Fake(shape=()), Fake(shape=()))
    with pytest.raises(ValueError, match="differ"):
        cured.dot(Fake(n=10), Fake(n=11))
    with pytest.raises(ValueError, match="differ"):
        cured.dot(Fake(n=10, typestr="<f4"), Fake(n=10, typestr="<f8"))
    with pytest.raises(TypeError):
        cured.custom("", "a+b", "0")
    with pytest.raises(TypeError):
        cured.sum(Fake(), stream="default")


def test_stream_handles():
    class CupyStream:
        ptr = 1234

    class TorchStream:
        cuda_stream = 5678

    class NumbaStream:
        handle = ctypes.c_void_p(91011)

    class NullCupyStream:
        ptr = 0

    assert _arrays.stream_handle(None) is None
    assert _arrays.stream_handle(42) == 42
    assert _arrays.stream_handle(CupyStream()) == 1234
    assert _arrays.stream_handle(TorchStream()) == 5678
    assert _arrays.stream_handle(NumbaStream()) == 91011
    assert _arrays.stream_handle(NullCupyStream()) == _arrays.STREAM_LEGACY
    # The interface's stream is used unless stream= is given.
    f = Fake()
    f.__cuda_array_interface__["stream"] = 777
    assert _arrays.device_array(f).stream == 777
    assert _arrays.device_array(f, stream=CupyStream()).stream == 1234
    f.__cuda_array_interface__["stream"] = None    # nothing to wait for: the legacy default stream
    assert _arrays.device_array(f).stream == _arrays.STREAM_LEGACY


def test_status_names_match_the_header():
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "cured.h")
    if not os.path.exists(header):
        pytest.skip("include/cured.h is not beside python/")
    import re
    text = open(header).read()
    enum = text[text.index("typedef enum cured_status"):text.index("} cured_status;")]
    codes = {int(v): k for k, v in re.findall(r"\b(CURED_[A-Z_]+) = (\d+)", enum)}
    assert len(codes) >= 21
    assert sorted(codes) == list(range(len(codes)))  # values are only appended
    if not library_loads():
        pytest.skip("libcured not found: the names come from cured_status_string()")
    # The front end takes every name from the library, which must agree with the header.
    assert [_lib.status_name(i) for i in range(len(codes))] == [codes[i] for i in range(len(codes))]
    assert _lib.status_name(len(codes) + 1000) == "CURED_STATUS_%d" % (len(codes) + 1000)


def test_tables_come_from_the_library():
    """Operators, types and the rank limit are the library's (no number is copied
    into the front end): they agree with include/cured.h, and every operator is
    cured.NAME."""
    need_library()
    t = _lib.tables()
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "cured.h")
    if os.path.exists(header):
        import re
        text = open(header).read()
        ops = text[text.index("typedef enum cured_op"):text.index("} cured_op;")]
        assert t.ops == {k: int(v) for k, v in re.findall(r"\bCURED_OP_([A-Z0-9_]+) = (\d+)", ops)}
        types = text[text.index("typedef enum cured_type"):text.index("} cured_type;")]
        values = {k.lower(): int(v) for k, v in re.findall(r"\bCURED_TYPE_([A-Z0-9_]+) = (\d+)", types)}
        assert {name: v[0] for name, v in t.types.items()} == values
        assert t.max_rank == int(re.search(r"#define CURED_MAX_RANK (\d+)", text).group(1))
    for name, value in t.ops.items():
        assert getattr(cured, name) == value
    assert cured.SUM == t.ops["SUM"] and cured.ARG_OPS == tuple(t.ops[n] for n in cured._ARG_NAMES)
    with pytest.raises(AttributeError):
        cured.NO_SUCH_OPERATOR
    for name, (value, size, kind) in t.types.items():
        assert size == np.dtype(name).itemsize if name != "bfloat16" else size == 2
        assert kind == ("f" if name == "bfloat16" else np.dtype(name).kind)
    assert t.statuses["CURED_ERROR_ALL_NAN"] == 19 and t.statuses["CURED_SUCCESS"] == 0
    assert _axes._layout((2, 3), (3, 1)).rank == 2


def test_import_without_a_library():
    """import cured works without libcured; the names that need its tables raise LibraryNotFound."""
    r = _child("import cured\ntry:\n    cured.SUM\nexcept cured.LibraryNotFound:\n    print('caught')\n",
               CURED_LIBRARY="/nonexistent/libcured.so")
    assert r.returncode == 0, r.stderr
    assert "caught" in r.stdout


def test_info_never_raises():
    r = _child("import cured, json\nprint(json.dumps(cured.info()))\n")
    assert r.returncode == 0, r.stderr
    import json
    i = json.loads(r.stdout.strip().splitlines()[-1])
    for key in ("library", "nvrtc", "driver"):
        assert key in i and key + "_error" in i
    if i["library"] is None:
        assert "could not be loaded" in i["library_error"]
    else:
        assert i["library_version"] == cured.__version__
        assert (i["nvrtc"] is None) != (i["nvrtc_error"] is None)
        assert (i["driver"] is None) != (i["driver_error"] is None)


def test_info_without_a_library():
    r = _child("import cured, json\nprint(json.dumps(cured.info()))\n", CURED_LIBRARY="/nonexistent/libcured.so")
    assert r.returncode == 0, r.stderr
    import json
    i = json.loads(r.stdout.strip().splitlines()[-1])
    assert i["library"] is None and "/nonexistent/libcured.so" in i["library_error"]


def _child(code, **env):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=120)


def test_host_array_says_how_to_move_it():
    need_library()                                     # the types and operators are the library's
    class Host:                                        # NumPy's interfaces, no device memory
        __array_interface__ = {"shape": (3,), "typestr": "<f4", "data": (0, False), "version": 3}
    for a in (np.arange(3, dtype=np.float32), Host()):
        with pytest.raises(TypeError, match=r"cupy\.asarray\(x\) or torch\.as_tensor\(x, device='cuda'\)"):
            cured.sum(a)


def test_library_not_found_names_what_was_tried():
    r = _child("import cured\ntry:\n    cured.library_version()\nexcept cured.LibraryNotFound as e:\n"
               "    print('caught', e)\n", CURED_LIBRARY="/nonexistent/libcured.so")
    assert r.returncode == 0, r.stderr
    assert "caught libcured could not be loaded; tried /nonexistent/libcured.so" in r.stdout
    assert "CURED_LIBRARY" in r.stdout


needs_library = pytest.mark.skipif(not library_loads(), reason=LIBRARY_NOT_FOUND)


@needs_library
def test_version_matches_the_library():
    assert cured.library_version() == cured.__version__


@needs_library
def test_no_driver_is_a_clear_exception():
    code = ("import cured\n"
            "class F:\n"
            "    __cuda_array_interface__ = {'shape': (8,), 'typestr': '<f4', 'data': (4096, False), 'version': 2}\n"
            "try:\n    cured.sum(F())\n"
            "except cured.CuredError as e:\n    print(e.status); print(e.code); print(e)\n")
    r = _child(code, CURED_CUDA_DRIVER_LIBRARY="/nonexistent/libcuda.so.1")
    assert r.returncode == 0, r.stderr
    status, code_, text = r.stdout.strip().splitlines()[:3]
    assert status == "CURED_ERROR_NO_DRIVER"
    assert code_ == "7"
    assert "CURED_ERROR_NO_DRIVER" in text and "/nonexistent/libcuda.so.1" in text


def _fake_driver():
    """tests/.libs/libfakecuda.so of the build (make check builds it), or CURED_TEST_FAKE_DRIVER."""
    env = os.environ.get("CURED_TEST_FAKE_DRIVER")
    lib = os.environ.get("CURED_LIBRARY", "")
    for p in ([env] if env else []) + [os.path.join(os.path.dirname(lib), "..", "tests", ".libs", "libfakecuda.so"),
                                       os.path.join(os.path.dirname(__file__), "..", "..", "tests", ".libs",
                                                    "libfakecuda.so")]:
        if p and os.path.exists(p):
            return os.path.abspath(p)
    return None


@needs_library
def test_calls_reach_the_library_on_a_fake_device():
    """The ctypes prototypes of the statistics and the dtype= paths, end to end
    on tests/fakecuda.c's device (its memory is host memory; kernels compile
    with NVRTC and are counted, not run): each call launches, bad ones launch
    nothing."""
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
            return fake.fake_launches() - before, type(r).__name__
        print(launches(lambda: cured.var(F(x, (64,), "<f4"), ddof=1)))
        print(launches(lambda: cured.mean(F(x, (64,), "<f2"))))
        print(launches(lambda: cured.mean(F(x, (8, 8), "<f4"), axis=1, out=F(o, (8,), "<f4"))))
        print(launches(lambda: cured.std(F(x, (8, 8), "<f8", strides=(8, 64)), out=F(o, (1,), "<f8"), ddof=1)))
        print(launches(lambda: cured.var(F(x, (8, 8), "<i4"), axis=(0, 1), keepdims=True, ddof=2.5,
                                         out=F(o, (1, 1), "<f8"))))
        print(launches(lambda: cured.sum(F(x, (8, 8), "|u1"), axis=0, dtype="int64", out=F(o, (8,), "<i8"))))
        print(launches(lambda: cured.sum(F(x, (64,), "<i4"), dtype="int8")))
        print(launches(lambda: cured.prod(F(x, (64,), "|b1"), dtype="int32", out=F(o, (1,), "<i4"))))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print(launches(lambda: cured.var(F(x, (3,), "<f4"), ddof=3)))
            print(launches(lambda: cured.var(F(x, (4, 3), "<f4"), axis=1, ddof=3, out=F(o, (4,), "<f4"))))
        print(launches(lambda: cured.all(F(x, (64,), "<f4"), out=F(o, (1,), "|b1"))))  # numpy.all(out=bool)
        print(launches(lambda: cured.any(F(x, (64,), "<f4"), out=F(o, (1,), "|u1"))))
        print(launches(lambda: cured.logsumexp(F(x, (64,), "<f4"))))
        print(launches(lambda: cured.logsumexp(F(x, (8, 8), "<i4"), axis=1, out=F(o, (8,), "<f8"))))
        print(launches(lambda: cured.count_nonzero(F(x, (64,), "<f2"))))
        print(launches(lambda: cured.count_nonzero(F(x, (8, 8), "|b1"), axis=0, out=F(o, (8,), "<i8"))))
        try:
            cured.all(F(x, (64,), "<f4"), out=F(o, (1,), "<f4"))
        except TypeError as e:
            print(str(e))
        """
    r = _child(code, CURED_CUDA_DRIVER_LIBRARY=fake, FAKECUDA_DEVICE="1", CURED_CACHE_DISABLE="1")
    assert r.returncode == 0, r.stderr
    got = r.stdout.split("\n")
    want = ["(1, 'float')", "(1, 'float')", "(1, 'F')", "(1, 'F')", "(1, 'F')", "(1, 'F')", "(1, 'int')",
            "(1, 'F')", "(0, 'float')", "(1, 'F')", "(1, 'F')", "(1, 'F')",
            "(1, 'float')", "(1, 'F')", "(1, 'int')", "(1, 'F')",
            "cured.all: out= must be uint8, not float32"]
    assert got[:len(want)] == want, r.stdout


def test_stream_is_keyword_only():
    """stream= never takes a positional slot: NumPy's sum(a, axis, dtype, out,
    keepdims, initial) would otherwise pass initial as a stream handle."""
    import inspect
    for name in cured.__all__:
        fn = getattr(cured, name)
        if not inspect.isfunction(fn):
            continue
        params = inspect.signature(fn).parameters
        if "stream" in params:
            assert params["stream"].kind == inspect.Parameter.KEYWORD_ONLY, name
    with pytest.raises(TypeError):
        cured.sum(Fake(shape=(3,), typestr="<f4"), None, None, None, False, 5)
