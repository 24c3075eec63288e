"""cured: GPU reductions compiled at run time, for arrays of any library.

NumPy's names and semantics over device arrays that expose
__cuda_array_interface__ (CuPy, Numba, PyTorch) or DLPack (PyTorch, JAX,
CuPy)::

    import cupy, cured
    x = cupy.arange(1000, dtype=cupy.int32)
    cured.sum(x)        # 499500, a Python int
    cured.argmax(x)     # 999

Full reductions (axis=None) return a Python scalar, or write a one-element
device array given as out= (then asynchronously, for all but the ARG
operators). With axis= (an int or a tuple of ints) or keepdims=True, and for
non-contiguous views, the result is a device array of the input's library
(CuPy or PyTorch), as numpy.sum(x, axis=...) gives; out= may name one
(views with negative strides raise ValueError: reduce a copy).
Work runs on the stream the array's interface names, else on the current
stream of its library (torch.cuda.current_stream(), CuPy's
current stream), or on stream= when given. mean, var and std follow
NumPy's result types and warnings (_stats.py). libcured is found through
CURED_LIBRARY (a path), then the system loader (libcured.so.0).
"""
import ctypes
import math
import struct
import warnings

from . import _arrays, _axes, _dtypes, _lib
from ._axes import AxisError
from ._lib import CuredError, LibraryNotFound

__version__ = "0.1.0"
__all__ = [
    "sum", "prod", "min", "max", "amin", "amax", "nanmin", "nanmax", "argmin", "argmax",
    "nanargmin", "nanargmax", "bitwise_and", "bitwise_or", "bitwise_xor", "all", "any", "dot",
    "mean", "var", "std", "logsumexp", "count_nonzero", "nansum", "nanmean", "nanvar", "nanstd",
    "norm", "custom", "Custom", "CuredError", "LibraryNotFound", "AxisError", "library_version", "info",
]

ALGO_AUTO = 0  # CURED_ALGO_AUTO: the library's own choice
# The operators whose result is an index (NumPy's arg* functions), by the library's names.
_ARG_NAMES = ("ARGMIN", "ARGMAX", "NANARGMIN", "NANARGMAX")


def __getattr__(name):
    """cured.SUM, cured.NANARGMAX, ...: every operator of the library's table, by
    its cured_op_name(), with its cured_op value (read from libcured on first
    use: LibraryNotFound without it); ARG_OPS: those whose result is an index."""
    if name == "ARG_OPS":
        return _arg_ops()
    if name.isupper() and not name.startswith("_"):
        ops = _lib.tables().ops
        if name in ops:
            return ops[name]
    raise AttributeError("module 'cured' has no attribute %r" % name)


def __dir__():
    try:
        ops = list(_lib.tables().ops)
    except LibraryNotFound:
        ops = []
    return sorted(set(globals()) | set(ops) | {"ARG_OPS"})


def _ops():
    """The library's operators as attributes: _ops().SUM."""
    return _lib.tables().op


def _arg_ops():
    ops = _lib.tables().ops
    return tuple(ops[n] for n in _ARG_NAMES)


def library_version():
    """The version string of the libcured in use, e.g. "0.1.0"."""
    return _lib.lib().cured_version_string().decode()


def info():
    """What this installation found, as a dict: "library" (the libcured loaded: the wheel's own
    copy, CURED_LIBRARY's, or the system's; "library_bundled" says which) and its version,
    "nvrtc" (NVRTC's version, "nvrtc_from": "system" or the path of the nvidia-cuda-nvrtc
    wheel's library or CURED_NVRTC_LIBRARY's), "driver" (the CUDA driver's version) and
    "cache_dir" (the disk cache, None when off). What could not be found is None, with the
    reason under the same name plus "_error". Never raises for a missing GPU or library."""
    return _lib.info()


def _no_axis(fn, axis, keepdims):
    """For the user-defined reductions, which cured reduces whole only."""
    if axis is not None:
        raise NotImplementedError("cured.%s: axis=%r is not supported for user-defined reductions "
                                  "(cured reduces them over whole arrays)" % (fn, axis))
    if keepdims:
        raise NotImplementedError("cured.%s: keepdims=True is not supported for user-defined reductions" % fn)


def _reduce(fn, name, a, axis, dtype, out, keepdims, stream, empty_error=None, few=None):
    """The whole-array call for a contiguous array reduced whole, else the axis path;
    name: the operator's name in the library's table ("SUM"); few(n): the
    RuntimeWarning of the axis path for n reduced elements, or None."""
    O, op = _ops(), _op(fn, name)
    ARG_OPS = _arg_ops()
    # (NANMIN/NANMAX into out=: the axis path, which looks at the result for the
    # all-NaN warning; the whole-array call's status is not seen asynchronously.)
    if axis is None and not keepdims and _arrays.is_contiguous(a) and not (out is not None and op in (O.NANMIN, O.NANMAX)):
        return _run(fn, op, a, dtype, out, stream, empty_error=empty_error)
    return _axes.run(fn, lambda t, d: _plan(fn, op, t, d), ARG_OPS, (O.NANARGMIN, O.NANARGMAX), (O.NANMIN, O.NANMAX),
                     a, axis, dtype, out, keepdims, stream, empty_error, single=op in ARG_OPS, few=few)


def _op(fn, name):
    """The operator's value in the library's table; an exact operator that an older
    libcured lacks is a clear error."""
    op = _lib.tables().ops.get(name)
    if op is None:
        raise NotImplementedError("cured.%s: the libcured in use (%s) has no operator %s" % (
            fn, library_version(), name))
    return op


def _decode(raw, dtype):
    """One value of a cured type from bytes, as a Python scalar."""
    if dtype == "bfloat16":
        return struct.unpack("<f", b"\0\0" + raw[:2])[0]
    fmt = {"int8": "b", "int16": "h", "int32": "i", "int64": "q", "uint8": "B", "uint16": "H",
           "uint32": "I", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d"}[dtype]
    return struct.unpack("<" + fmt, raw[:struct.calcsize(fmt)])[0]


def _plan(fn, op, in_dtype, dtype):
    """(cured op, cured input type, cured result type, NumPy result type, how
    to convert the result) for fn over in_dtype, with NumPy's rules."""
    src = "uint8" if in_dtype == "bool" else in_dtype
    want = _dtypes.dtype_name(dtype)
    O, ARG_OPS = _ops(), _arg_ops()
    name = _lib.tables().names[op]
    if name.startswith("EXACT_"):
        return _exact_plan(fn, name, op, in_dtype, want)
    if name == "NORM2":
        return _norm_plan(fn, op, src, in_dtype, want)
    SUM, PRODUCT, DOT, NANSUM = O.SUM, O.PRODUCT, O.DOT, O.NANSUM
    if op in (SUM, PRODUCT, DOT, NANSUM):  # (NANSUM of integers: cured runs SUM, as NumPy)
        res = want or (_dtypes.sum_result(in_dtype) if op != DOT else in_dtype)
        if in_dtype == "bool" and op == DOT:
            raise TypeError("cured.dot: bool arrays are not supported")
        # Integers wrap modulo 2^bits whatever the accumulator's sign (a bool sum
        # is a count of bytes in uint64, which NumPy calls int64).
        try:
            cured_res, exact = _dtypes.sum_plan(src, res)
        except TypeError as e:
            raise TypeError("cured.%s: %s" % (fn, e)) from None
        convert = None if cured_res == res else (lambda v, res=res: _dtypes.wrap(v, res))
        return op, src, cured_res, res, convert
    if want is not None:
        raise TypeError("cured.%s takes no dtype=" % fn)
    if name.startswith("NAN") and name[3:] in _lib.tables().ops and not _dtypes.is_float(in_dtype):
        op = _lib.tables().ops[name[3:]]  # integers have no NaN: NumPy takes the base operator
    if op in (O.AND, O.OR, O.XOR) and _dtypes.is_float(in_dtype):
        raise TypeError("cured.%s: bitwise reductions need integer or bool arrays, not %s" % (fn, in_dtype))
    if op in ARG_OPS:
        return op, src, src, "int64", None
    if op == O.COUNT_NONZERO:
        return op, src, "int64", "int64", None
    return op, src, src, in_dtype, (bool if in_dtype == "bool" else None)


def _exact_plan(fn, name, op, in_dtype, want):
    """exact=True (the EXACT_ operators): float elements only; the result is
    dtype= or, as NumPy's sum and mean of floats, the input's own type (the
    library's default for float16/bfloat16 is float32, so it is asked for)."""
    t = _lib.tables()
    takes = [s for s in t.types if t.offered(name, s, s)]
    if in_dtype not in takes:
        raise TypeError("cured.%s: exact=True takes %s arrays, not %s" % (fn, ", ".join(takes), in_dtype))
    res = want or in_dtype
    if not t.offered(name, in_dtype, res):
        offered = [r for r in t.types if t.offered(name, in_dtype, r)]
        raise TypeError("cured.%s: exact=True with dtype=%s is not offered for %s input (cured gives %s)" % (
            fn, res, in_dtype, " or ".join(offered)))
    return op, in_dtype, res, res, None


def _norm_plan(fn, op, src, in_dtype, want):
    """numpy.linalg.norm's result type: float64 for integers and bool, floating
    types keep their own (float16/bfloat16: computed in float32, rounded once after)."""
    if want is not None:
        raise TypeError("cured.%s takes no dtype=" % fn)
    from ._stats import round_to
    t = _lib.tables()
    res = in_dtype if _dtypes.is_float(in_dtype) else "float64"
    cured_res = res if t.offered("NORM2", src, res) else t.default_result("NORM2", src)
    return op, src, cured_res, res, None if cured_res == res else (lambda v: round_to(v, res))


def _run(fn, op, a, dtype=None, out=None, stream=None, y=None, empty_error=None):
    """op: a cured_op value, or its name in the library's table."""
    O, ARG_OPS = _ops(), _arg_ops()
    if isinstance(op, str):
        op = _op(fn, op)
    # The two-input operators and their calls.
    dot_call = {"DOT": "cured_dot", "EXACT_DOT": "cured_exact_dot"}.get(_lib.tables().names[op])
    empty_mean = _lib.tables().names[op] == "EXACT_MEAN"
    arr = _arrays.device_array(a, stream)
    other = None
    try:
        if y is not None:
            other = _arrays.device_array(y, arr.stream)
            if len(arr.shape) != 1 or len(other.shape) != 1:
                # numpy.dot of 2-D arrays is a matrix product, of 0-d ones a multiplication
                raise ValueError("cured.%s: the arrays must be 1-D (shapes %r and %r)" % (fn, arr.shape, other.shape))
            if other.dtype != arr.dtype or other.n != arr.n:
                raise ValueError("cured.%s: the arrays differ: %d %s and %d %s elements" % (
                    fn, arr.n, arr.dtype, other.n, other.dtype))
        op, src, cured_res, np_res, convert = _plan(fn, op, arr.dtype, dtype)
        if arr.n == 0 and empty_error is not None:
            raise ValueError("cured.%s: %s" % (fn, empty_error))
        if arr.n == 0 and out is not None and np_res == "bool" and cured_res != "bool":
            # AND of no element is 0xFF, not a bool: the axis path casts it
            return _axes.run(fn, lambda t, d: _plan(fn, op, t, d), ARG_OPS, (), (), a, None, dtype, out,
                             False, stream)
        # out= is checked before any CUDA call (ARG operators: filled after).
        if out is not None and op in ARG_OPS:
            _out_array(fn, out, "int64", arr).release()
        if out is not None and op not in ARG_OPS:
            _same_width(fn, cured_res, np_res)
            dst = _out_array(fn, out, np_res, arr)
            try:
                L, h = _lib.lib(), _lib.handle(arr.device)
                in_t, out_t = _dtypes.TYPES[src][0], _dtypes.TYPES[cured_res][0]
                stream_p = ctypes.c_void_p(arr.stream)
                if dot_call is not None:
                    code = getattr(L, dot_call + "_async")(h, arr.ptr, other.ptr, in_t, arr.n, dst.ptr, out_t,
                                                           stream_p)
                else:
                    code = L.cured_reduce_async(h, op, ALGO_AUTO, arr.ptr, in_t, arr.n, dst.ptr, out_t, stream_p)
                _lib.check(code, "cured.%s" % fn)
            finally:
                dst.release()
            if empty_mean and arr.n == 0:  # the library wrote NaN
                from ._stats import EMPTY_MEAN
                warnings.warn(EMPTY_MEAN, RuntimeWarning, stacklevel=3)
            return out
        if empty_mean and arr.n == 0:  # the synchronous call would return TOO_FEW_ELEMENTS, launching nothing
            from ._stats import EMPTY_MEAN
            warnings.warn(EMPTY_MEAN, RuntimeWarning, stacklevel=3)
            return math.nan
        L, h = _lib.lib(), _lib.handle(arr.device)
        in_t, out_t = _dtypes.TYPES[src][0], _dtypes.TYPES[cured_res][0]
        stream_p = ctypes.c_void_p(arr.stream)
        raw = ctypes.create_string_buffer(16)
        if dot_call is not None:
            code = getattr(L, dot_call)(h, arr.ptr, other.ptr, in_t, arr.n, raw, out_t, stream_p)
        else:
            code = L.cured_reduce(h, op, ALGO_AUTO, arr.ptr, in_t, arr.n, raw, out_t, stream_p)
        if code == _lib.tables().statuses["CURED_ERROR_ALL_NAN"]:
            if op in (O.NANARGMIN, O.NANARGMAX):
                raise ValueError("cured.%s: All-NaN slice encountered" % fn)
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
            value = math.nan
        else:
            _lib.check(code, "cured.%s" % fn)
            value = struct.unpack("<q", raw.raw[:8])[0] if op in ARG_OPS else _decode(raw.raw, cured_res)
            if convert is not None:
                value = convert(value)
        if out is not None:  # ARG operators: the index, written by the array's library
            _fill(fn, out, value, "int64", arr)
            return out
        return value
    finally:
        if other is not None:
            other.release()
        arr.release()


def _same_width(fn, cured_res, np_res):
    """out= receives cured's result bits: a dtype= that cured computes in a
    wider type and wraps after (sum of int32 as int8) cannot go there."""
    if _dtypes.size(cured_res) != _dtypes.size(np_res):
        raise TypeError("cured.%s: dtype=%s with out= is not supported for this input (cured computes it "
                        "in %s and wraps after); omit out=" % (fn, np_res, cured_res))


def _out_array(fn, out, dtype, src):
    dst = _arrays.device_array(out)
    try:
        if dst.n != 1:
            raise ValueError("cured.%s: out= must have one element, not %d" % (fn, dst.n))
        _arrays.check_out(fn, dst, dtype, src)
    except BaseException:
        dst.release()
        raise
    return dst


def _fill(fn, out, value, dtype, src):
    _out_array(fn, out, dtype, src).release()
    for method in ("fill_", "fill"):  # PyTorch, CuPy
        f = getattr(out, method, None)
        if callable(f):
            f(value)
            return
    out[...] = value  # Numba and others


def sum(a, axis=None, dtype=None, out=None, keepdims=False, *, exact=False, stream=None):
    """Sum of the elements (numpy.sum). Integers widen to int64/uint64 unless
    dtype= names another integer type (the result then wraps modulo 2^bits,
    as NumPy's); floating types keep their type (float16/bfloat16 accumulate
    in float32, rounded once; dtype="float32" keeps that, dtype="float64"
    sums float32 in float64); other float dtype= combinations: TypeError.
    exact=True: the exact sum rounded once to nearest even (EXACT_SUM; for
    float64 math.fsum's value), bitwise the same for any layout of the same
    values; float arrays only (TypeError otherwise), into the input's type or
    a wider float dtype=."""
    return _reduce("sum", "EXACT_SUM" if exact else "SUM", a, axis, dtype, out, keepdims, stream)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    """Sum of the elements that are not NaN (numpy.nansum): result types as sum();
    0 where every element is NaN (no warning, as NumPy)."""
    return _reduce("nansum", "NANSUM", a, axis, dtype, out, keepdims, stream)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    """Product of the elements (numpy.prod), result types as sum()."""
    return _reduce("prod", "PRODUCT", a, axis, dtype, out, keepdims, stream)


def min(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Smallest element (numpy.min); NaN if any element is NaN; ValueError when empty."""
    return _reduce("min", "MIN", a, axis, None, out, keepdims, stream,
                   empty_error="zero-size array to reduction operation minimum which has no identity")


def max(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Largest element (numpy.max); NaN if any element is NaN; ValueError when empty."""
    return _reduce("max", "MAX", a, axis, None, out, keepdims, stream,
                   empty_error="zero-size array to reduction operation maximum which has no identity")


amin, amax = min, max


def nanmin(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Smallest element ignoring NaNs (numpy.nanmin): NaN with a RuntimeWarning
    when every element is NaN; ValueError when empty."""
    return _reduce("nanmin", "NANMIN", a, axis, None, out, keepdims, stream,
                   empty_error="zero-size array to reduction operation fmin which has no identity")


def nanmax(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Largest element ignoring NaNs (numpy.nanmax)."""
    return _reduce("nanmax", "NANMAX", a, axis, None, out, keepdims, stream,
                   empty_error="zero-size array to reduction operation fmax which has no identity")


def argmin(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Index of the first smallest element (numpy.argmin; the first NaN if any)."""
    return _reduce("argmin", "ARGMIN", a, axis, None, out, keepdims, stream,
                   empty_error="attempt to get argmin of an empty sequence")


def argmax(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Index of the first largest element (numpy.argmax; the first NaN if any)."""
    return _reduce("argmax", "ARGMAX", a, axis, None, out, keepdims, stream,
                   empty_error="attempt to get argmax of an empty sequence")


def nanargmin(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Index of the first smallest element ignoring NaNs (numpy.nanargmin);
    ValueError when every element is NaN or the array is empty."""
    return _reduce("nanargmin", "NANARGMIN", a, axis, None, out, keepdims, stream,
                   empty_error="attempt to get argmin of an empty sequence")


def nanargmax(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Index of the first largest element ignoring NaNs (numpy.nanargmax)."""
    return _reduce("nanargmax", "NANARGMAX", a, axis, None, out, keepdims, stream,
                   empty_error="attempt to get argmax of an empty sequence")


def bitwise_and(a, axis=None, out=None, keepdims=False, *, stream=None):
    """numpy.bitwise_and.reduce (over every axis by default; all bits set when empty)."""
    return _reduce("bitwise_and", "AND", a, axis, None, out, keepdims, stream)


def bitwise_or(a, axis=None, out=None, keepdims=False, *, stream=None):
    """numpy.bitwise_or.reduce (over every axis by default; 0 when empty)."""
    return _reduce("bitwise_or", "OR", a, axis, None, out, keepdims, stream)


def bitwise_xor(a, axis=None, out=None, keepdims=False, *, stream=None):
    """numpy.bitwise_xor.reduce (over every axis by default; 0 when empty)."""
    return _reduce("bitwise_xor", "XOR", a, axis, None, out, keepdims, stream)


def count_nonzero(a, axis=None, *, keepdims=False, out=None, stream=None):
    """Number of nonzero elements (numpy.count_nonzero): int64; NaN counts,
    -0.0 does not."""
    return _reduce("count_nonzero", "COUNT_NONZERO", a, axis, None, out, keepdims, stream)


def dot(a, b, out=None, *, exact=False, stream=None):
    """Dot product of two 1-D arrays of one type (numpy.dot): the result has
    their type (integers wrap, as in NumPy). exact=True: the exact sum of the
    products rounded once (EXACT_DOT, cured_exact_dot); float arrays only."""
    return _run("dot", "EXACT_DOT" if exact else "DOT", a, None, out, stream, y=b)


def norm(x, ord=None, axis=None, keepdims=False, *, exact=False, stream=None):
    """The 2-norm, sqrt of the sum of squares (numpy.linalg.norm with ord=None):
    of every element for axis=None, along an int axis, or the Frobenius norm
    over a tuple of two axes; float64 for integers and bool, floating types
    keep their type (float16/bfloat16 computed in float32, rounded once
    after); 0.0 when empty. exact=True: the square root of the correctly
    rounded exact sum of squares, rounded once more (EXACT_NORM2); float
    arrays only."""
    if ord is not None:
        raise NotImplementedError("cured.norm: ord=%r is not supported (cured computes the 2-norm and the "
                                  "Frobenius norm, ord=None)" % (ord,))
    if isinstance(axis, tuple) and len(axis) not in (1, 2):
        raise ValueError("cured.norm: Improper number of dimensions to norm.")
    return _reduce("norm", "EXACT_NORM2" if exact else "NORM2", x, axis, None, None, keepdims, stream)


from ._custom import Custom, custom, all, any  # noqa: E402  (they use _run's helpers)
from ._stats import mean, var, std, logsumexp, nanmean, nanvar, nanstd  # noqa: E402
