"""mean, var, std, logsumexp, nanmean, nanvar and nanstd with NumPy's (SciPy's) names, result types and warnings, through
cured_reduce_stats (whole arrays) and cured_reduce_axes_stats_async (axes,
views)."""
import ctypes
import math
import struct
import warnings

from . import _arrays, _axes, _dtypes, _lib

# A NaN-skipping statistic (NANMEAN) is its base (MEAN) over the elements that are not NaN.
def _base(name):
    return name[3:] if name.startswith("NAN") and name[3:] in ("MEAN", "VAR", "STD") else name


EMPTY_MEAN = "Mean of empty slice"
FEW_DOF = "Degrees of freedom <= 0 for slice"
NAN_FEW_DOF = "Degrees of freedom <= 0 for slice."  # numpy.nanvar's own (with the period)
# The NaN the NaN-skipping statistics write for too few elements (kernels-src/stats.cuh's
# stats_too_few): the asynchronous results' counterpart of CURED_ERROR_TOO_FEW_ELEMENTS.
TOO_FEW_BITS = {"float32": 0x7FC0C0DE, "float64": 0x7FF8C0DE00000000}


def result_types(fn, in_dtype, dtype):
    """(cured input, cured result, NumPy result) with NumPy's rules: integers
    and bool give float64, floating types their own type. cured computes
    float16/bfloat16 data in float32 and integers in float64: a result type
    it does not give is that one, rounded once after (NumPy's float16 mean
    is computed in float32 too)."""
    src = "uint8" if in_dtype == "bool" else in_dtype
    want = _dtypes.dtype_name(dtype)
    if want is None:
        want = in_dtype if _dtypes.is_float(in_dtype) else "float64"
    if not _dtypes.is_float(want):
        raise TypeError("cured.%s: dtype=%s: the statistics give floating types" % (fn, want))
    tables = _lib.tables()  # the library's result rules (fn names its operator: "var" is VAR)
    offered = [res for res in ("float32", "float64") if tables.offered(fn.upper(), src, res)]
    return src, want if want in offered else offered[0], want


def check_ddof(fn, ddof):
    """ddof as cured takes it: a finite number >= 0 (NumPy also takes negative ones)."""
    try:
        d = float(ddof)
    except (TypeError, ValueError):
        raise TypeError("cured.%s: ddof must be a number, not %r" % (fn, ddof)) from None
    if not math.isfinite(d) or d < 0:
        raise ValueError("cured.%s: ddof must be finite and >= 0, not %r" % (fn, ddof))
    return d


def round_to(value, name):
    """A Python float as the float type name holds it (round to nearest even)."""
    if name == "float32":
        return struct.unpack("<f", struct.pack("<f", value))[0]
    if name == "float16":
        try:
            return struct.unpack("<e", struct.pack("<e", value))[0]
        except OverflowError:
            return math.copysign(math.inf, value)
    if name == "bfloat16":
        if math.isnan(value):
            return value
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    return value


def _few(name, n, ddof):
    """The warning NumPy gives for n elements (of a NaN-skipping statistic: that are not NaN), or None."""
    if name == "LOGSUMEXP":
        return None  # -inf when empty, as SciPy
    if _base(name) == "MEAN":
        return EMPTY_MEAN if n == 0 else None
    if n > ddof:
        return None
    return NAN_FEW_DOF if _base(name) != name else FEW_DOF


def run(fn, name, a, axis, dtype, out, ddof, keepdims, stream):
    """name: the operator's name in the library's table ("MEAN")."""
    ddof = check_ddof(fn, ddof) if _base(name) not in ("MEAN", "LOGSUMEXP") else 0.0
    op = _lib.tables().ops[name]
    skips = _base(name) != name
    # A NaN-skipping statistic's count is known after the run: its too-few results hold
    # TOO_FEW_BITS (out=: through the axis path, which looks at them).
    skip_few = (_few(name, 0, ddof), TOO_FEW_BITS) if skips else None

    def plan(in_dtype, d):
        src, cured_res, want = result_types(fn, in_dtype, d)
        return op, src, cured_res, want, None if cured_res == want else (lambda v: round_to(v, want))

    if axis is not None or keepdims or not _arrays.is_contiguous(a) or (out is not None and skips):
        return _axes.run(fn, plan, (), (), (), a, axis, dtype, out, keepdims, stream,
                         ddof=ddof, few=lambda n: _few(name, n, ddof), skip_few=skip_few)
    arr = _arrays.device_array(a, stream)
    try:
        _, src, cured_res, want, convert = plan(arr.dtype, dtype)
        few = _few(name, arr.n, ddof)
        in_t, out_t = _dtypes.TYPES[src][0], _dtypes.TYPES[cured_res][0]
        if out is not None:
            if cured_res != want:  # float16/bfloat16: made in float32, rounded into out= by the axis path
                return _axes.run(fn, plan, (), (), (), a, axis, dtype, out, keepdims, stream,
                                 ddof=ddof, few=lambda n: _few(name, n, ddof))
            from . import _out_array
            dst = _out_array(fn, out, want, arr)
            try:
                L, h = _lib.lib(), _lib.handle(arr.device)
                _lib.check(L.cured_reduce_stats_async(h, op, arr.ptr, in_t, arr.n, ddof, dst.ptr, out_t,
                                                      ctypes.c_void_p(arr.stream)), "cured.%s" % fn)
            finally:
                dst.release()
            if few:
                warnings.warn(few, RuntimeWarning, stacklevel=3)
            return out
        if few:  # cured_reduce_stats would return TOO_FEW_ELEMENTS, launching nothing
            warnings.warn(few, RuntimeWarning, stacklevel=3)
            return math.nan
        L, h = _lib.lib(), _lib.handle(arr.device)
        raw = ctypes.create_string_buffer(16)
        code = L.cured_reduce_stats(h, op, arr.ptr, in_t, arr.n, ddof, raw, out_t, ctypes.c_void_p(arr.stream))
        if code == _lib.tables().statuses["CURED_ERROR_TOO_FEW_ELEMENTS"] and skips:  # too few elements that are not NaN
            warnings.warn(skip_few[0], RuntimeWarning, stacklevel=3)
            return math.nan
        _lib.check(code, "cured.%s" % fn)
        value = struct.unpack("<f", raw.raw[:4])[0] if cured_res == "float32" else struct.unpack("<d", raw.raw[:8])[0]
        return convert(value) if convert is not None else value
    finally:
        arr.release()


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, exact=False, stream=None):
    """Arithmetic mean (numpy.mean): float64 for integers and bool, the input's
    type for floating types; NaN with a RuntimeWarning when empty.
    exact=True: the exact sum divided by n, rounded once (EXACT_MEAN), in the
    input's type or a wider float dtype=; float arrays only (TypeError otherwise)."""
    if exact:
        from . import _reduce
        return _reduce("mean", "EXACT_MEAN", a, axis, dtype, out, keepdims, stream,
                       few=lambda n: EMPTY_MEAN if n == 0 else None)
    return run("mean", "MEAN", a, axis, dtype, out, 0, keepdims, stream)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, stream=None):
    """Variance (numpy.var): the sum of squared deviations over n - ddof, in one
    pass; NaN with a RuntimeWarning where n <= ddof (NumPy gives inf there
    when the values differ). ddof must be finite and >= 0."""
    return run("var", "VAR", a, axis, dtype, out, ddof, keepdims, stream)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, stream=None):
    """Standard deviation (numpy.std), the square root of var()."""
    return run("std", "STD", a, axis, dtype, out, ddof, keepdims, stream)


def logsumexp(a, axis=None, *, keepdims=False, dtype=None, out=None, stream=None):
    """log(sum(exp(a))) without overflow (scipy.special.logsumexp without b= and
    return_sign=): float64 for integers and bool, the input's type for floating
    types; -inf when empty; NaN if any element is NaN, else +inf if any is +inf."""
    return run("logsumexp", "LOGSUMEXP", a, axis, dtype, out, 0, keepdims, stream)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    """Mean of the elements that are not NaN (numpy.nanmean): result types as mean();
    NaN with a RuntimeWarning ("Mean of empty slice") where every element is NaN."""
    return run("nanmean", "NANMEAN", a, axis, dtype, out, 0, keepdims, stream)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, stream=None):
    """Variance of the elements that are not NaN (numpy.nanvar): NaN with a
    RuntimeWarning ("Degrees of freedom <= 0 for slice.") where at most ddof of them
    are left. ddof must be finite and >= 0."""
    return run("nanvar", "NANVAR", a, axis, dtype, out, ddof, keepdims, stream)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, stream=None):
    """Standard deviation of the elements that are not NaN (numpy.nanstd), the square
    root of nanvar()."""
    return run("nanstd", "NANSTD", a, axis, dtype, out, ddof, keepdims, stream)
