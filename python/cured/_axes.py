"""Reductions along axes (axis=, keepdims=) and of non-contiguous views, through
cured_reduce_axes_async. Results are device arrays of the input's library
(CuPy or PyTorch), made on the stream the reduction runs on; out= may be any
device array of the right shape and type (for the ARG operators, of CuPy or
PyTorch)."""
import contextlib
import ctypes
import operator
import warnings

from . import _arrays, _dtypes, _lib


class AxisError(ValueError, IndexError):
    """An axis outside the array's dimensions (as numpy.exceptions.AxisError)."""


_layout_type = None


def max_rank():
    """CURED_MAX_RANK, as the library in use was built with."""
    return _lib.tables().max_rank


def _layout(shape, strides):
    """A cured_layout (its arrays sized by the library's CURED_MAX_RANK)."""
    global _layout_type
    if _layout_type is None:
        r = max_rank()

        class Layout(ctypes.Structure):
            _fields_ = [("rank", ctypes.c_int), ("extent", ctypes.c_int64 * r), ("stride", ctypes.c_int64 * r)]
        _layout_type = Layout
    lay = _layout_type()
    lay.rank = len(shape)
    for k, (e, s) in enumerate(zip(shape, strides)):
        lay.extent[k], lay.stride[k] = int(e), int(s)
    return lay


# NumPy's reductions read a 0-d array as 1-d for an int axis 0 or -1 (it
# reduces nothing; a tuple is checked as it is), but for its statistics.
NO_AXIS_OF_0D = ("mean", "var", "std", "logsumexp")  # (not nanmean, nanvar, nanstd: NumPy takes axis 0 there)


def normalize(fn, axis, ndim, single=False):
    """axis= as NumPy reads it -> a sorted tuple of axes (None: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    scalar = not isinstance(axis, tuple)  # NumPy takes no list
    if not scalar:
        if single:
            raise TypeError("cured.%s: axis must be an int or None, not %r" % (fn, axis))
        axes = axis
    else:
        axes = (axis,)
    seen = []
    for ax in axes:
        try:
            if isinstance(ax, bool):  # NumPy refuses axis=True
                raise TypeError
            ax = operator.index(ax)
        except TypeError:
            raise TypeError("cured.%s: axis must be an int or a tuple of ints, not %r" % (fn, axis)) from None
        if scalar and ndim == 0 and ax in (0, -1) and fn not in NO_AXIS_OF_0D:
            return ()
        if not -ndim <= ax < ndim:
            raise AxisError("cured.%s: axis %d is out of bounds for array of dimension %d" % (fn, ax, ndim))
        ax %= ndim
        if ax in seen:
            raise ValueError("cured.%s: duplicate value in 'axis'" % fn)
        seen.append(ax)
    return tuple(sorted(seen))


def result_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if k in axes else e for k, e in enumerate(shape))
    return tuple(e for k, e in enumerate(shape) if k not in axes)


class Frontend:
    """What the axis path needs of the input's library: empty arrays of a
    NumPy type name, work on a given stream, and element-wise helpers."""

    def __init__(self, obj, arr):
        self.kind = _arrays._library(obj)
        self.obj, self.arr = obj, arr
        if self.kind == "cupy":
            import cupy
            self.mod = cupy
        elif self.kind == "torch":
            import torch
            self.mod = torch
        else:
            self.mod = None

    def require(self, fn, what, hint="pass out="):
        if self.mod is None:
            raise TypeError("cured.%s: %s needs a CuPy or PyTorch array (this is a %s array); "
                            "%s" % (fn, what, type(self.obj).__name__, hint))

    def stream(self):
        """A context in which the library's current device and stream are the
        reduction's (nothing to do for a library cured cannot drive: the C
        call takes the stream itself)."""
        s, m = self.arr.stream, self.mod
        if m is None:
            return contextlib.nullcontext()
        ctx = contextlib.ExitStack()
        if self.kind == "cupy":
            ctx.enter_context(m.cuda.Device(self.arr.device))
        if s == _arrays.current_stream(self.obj):
            return ctx
        if self.kind == "cupy":
            if s == _arrays.STREAM_LEGACY:
                ctx.enter_context(m.cuda.Stream.null)
            else:
                with warnings.catch_warnings():  # CuPy 14 deprecates it for Stream.from_external
                    warnings.simplefilter("ignore", DeprecationWarning)
                    ctx.enter_context(m.cuda.ExternalStream(s, self.arr.device))
        elif s == _arrays.STREAM_LEGACY:
            ctx.enter_context(m.cuda.stream(m.cuda.default_stream(self.obj.device)))
        else:
            ctx.enter_context(m.cuda.stream(m.cuda.ExternalStream(s, device=self.obj.device)))
        return ctx

    def empty(self, shape, dtype):
        if self.kind == "cupy":
            return self.mod.empty(shape, dtype=dtype)
        return self.mod.empty(shape, dtype=getattr(self.mod, dtype), device=self.obj.device)

    def ptr(self, a):
        return a.data.ptr if self.kind == "cupy" else a.data_ptr()

    def cast(self, a, dtype):
        """a as another type: integers wrap (C's conversion, as NumPy's astype),
        floats round to nearest."""
        if self.kind == "cupy":
            return a.astype(dtype)
        return a.to(getattr(self.mod, dtype))

    def any(self, a):
        return bool(a.any().item())

    def isnan(self, a):
        return self.mod.isnan(a)

    def holds_bits(self, a, bits):
        """Does the float32 or float64 array a hold an element of these bits (a NaN's payload)?"""
        wide = a.dtype.itemsize == 8 if self.kind == "cupy" else a.element_size() == 8
        v = a.view(self.mod.int64 if wide else self.mod.int32)
        return bool((v == bits).any().item())

    def first_column(self, pairs, shape):
        """pairs[:, 0] as a dense array of the given shape."""
        col = pairs[:, 0]
        if self.kind == "cupy":
            return self.mod.ascontiguousarray(col).reshape(shape)
        return col.contiguous().reshape(shape)

    def own(self, a):
        """a as an array of this library (a DLPack view of a CuPy or PyTorch
        array of the other one), or None for other libraries' arrays."""
        kind = _arrays._library(a)
        if kind == self.kind:
            return a
        return self.mod.from_dlpack(a) if kind in ("cupy", "torch") else None

    def copy_into(self, out, src):
        """src (an array of this library) into out=, by this library on its
        current stream (the reduction's, inside stream()): a CuPy or PyTorch
        out= of the other library through a DLPack view of it."""
        mine = self.own(out)
        view = out if mine is None else mine
        if self.kind == "torch" and mine is not None:
            view.copy_(src)
        else:
            view[...] = src


def run(fn, plan, ARG_OPS, NAN_ARG_OPS, NAN_VALUE_OPS, a, axis, dtype, out, keepdims, stream,
        empty_error=None, single=False, ddof=None, few=None, skip_few=None):
    """One reduction along axes; returns a device array, or a Python scalar
    when axis is None and keepdims is false (the result of a non-contiguous
    view reduced whole). ddof: a statistic (cured_reduce_axes_stats_async);
    few(n): the RuntimeWarning for outputs of n elements, or None;
    skip_few: (warning, {cured result type: bits}) of a NaN-skipping statistic,
    whose outputs with too few elements hold those bits."""
    arr = _arrays.device_array(a, stream, strided=True)
    try:
        ndim = len(arr.shape)
        if ndim > max_rank():
            raise ValueError("cured.%s: %d dimensions; cured reduces up to %d" % (fn, ndim, max_rank()))
        axes = normalize(fn, axis, ndim, single)
        op, src, cured_res, np_res, convert = plan(arr.dtype, dtype)
        reduced = 1
        for k in axes:
            reduced *= arr.shape[k]
        if reduced == 0 and empty_error is not None:
            raise ValueError("cured.%s: %s" % (fn, empty_error))
        shape = result_shape(arr.shape, axes, keepdims)
        kept = [k for k in range(ndim) if k not in axes]
        nout = 1
        for k in kept:
            nout *= arr.shape[k]
        front = Frontend(a, arr)
        is_arg = op in ARG_OPS
        if out is None or is_arg:
            front.require(fn, "a result array" if out is None else "out= of an ARG operator")
        # A dtype= that cured computes wider and wraps after (sum of int32 as
        # int8): the result is made in cured's type and cast (wrapping) after;
        # unsigned results as the signed type of their width (the same bits:
        # PyTorch's uint64 casts little).
        # A bool result of no element (AND: 0xFF, not a bool) is cast too.
        narrow = not is_arg and (_dtypes.size(cured_res) != _dtypes.size(np_res) or
                                 np_res == "bool" and cured_res != "bool" and reduced == 0)
        made = cured_res.replace("uint", "int") if narrow else np_res
        if narrow and out is not None and not _dtypes.is_float(np_res) and np_res != "bool":
            raise TypeError("cured.%s: dtype=%s with out= is not supported for this input (cured computes "
                            "it in %s and wraps after); omit out=" % (fn, np_res, cured_res))
        # A float16/bfloat16 out= of a statistic (computed in float32): made in
        # cured's type, rounded into out= after.
        via = narrow and out is not None
        if via:
            front.require(fn, "out= of %s (cured computes it in %s)" % (np_res, cured_res), "omit out=")
        if (is_arg or via) and out is not None:  # checked before any work, filled after
            _check_out(fn, out, shape, "int64" if is_arg else np_res, arr, keepdims, kept, axes).release()
        with front.stream():
            res = front.empty(shape, made) if out is None or via else None
            dst, out_lay = None, None
            if is_arg:
                pairs = front.empty((nout, 2), "int64")
                dptr = front.ptr(pairs) if nout else 0
            elif out is not None and not via:
                dst = _check_out(fn, out, shape, np_res, arr, keepdims, kept, axes)
                dptr = dst.ptr
                out_lay = _layout([arr.shape[k] for k in kept], dst.kept_strides)
            else:
                dptr = front.ptr(res) if nout else 0
            try:
                if nout:
                    L, h = _lib.lib(), _lib.handle(arr.device)
                    from ._dtypes import TYPES
                    bits = 0
                    for k in axes:
                        bits |= 1 << k
                    lay = _layout(arr.shape, arr.strides)
                    args = (ctypes.c_void_p(dptr), TYPES[cured_res][0],
                            ctypes.byref(out_lay) if out_lay is not None else None, ctypes.c_void_p(arr.stream))
                    inp = (h, op, ctypes.c_void_p(arr.ptr or None), TYPES[src][0], ctypes.byref(lay), bits)
                    if ddof is None:
                        code = L.cured_reduce_axes_async(*inp, *args)
                    else:
                        code = L.cured_reduce_axes_stats_async(*inp, ctypes.c_double(ddof), *args)
                    _lib.check(code, "cured.%s" % fn)
            finally:
                if dst is not None:
                    dst.release()
            skipped_too_many = False
            if skip_few is not None and nout:  # read before a cast to float16 drops the payload
                mine = res if out is None or via else (front.own(out) if front.mod is not None else None)
                skipped_too_many = mine is not None and front.holds_bits(mine, skip_few[1][cured_res])
            if is_arg:
                res = front.first_column(pairs, shape)
                if op in NAN_ARG_OPS and nout and front.any(res == -1):
                    raise ValueError("cured.%s: All-NaN slice encountered" % fn)
                if out is not None:
                    front.copy_into(out, res)
                    res = out
            elif out is not None and not via:
                res = out
            elif narrow:
                res = front.cast(res, np_res)
                if via:
                    front.copy_into(out, res)
                    res = out
            warning = few(reduced) if few is not None else None  # NumPy warns with no outputs too
            if warning:
                warnings.warn(warning, RuntimeWarning, stacklevel=4)
            elif skipped_too_many:
                warnings.warn(skip_few[0], RuntimeWarning, stacklevel=4)
            mine = front.own(res) if op in NAN_VALUE_OPS and nout and front.mod is not None else None
            if mine is not None and front.any(front.isnan(mine)):  # (out= of another library: a view)
                warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
            if axis is None and not keepdims and out is None:
                value = res.item()  # on the reduction's stream
                return convert(value) if convert is not None else value
        return res
    finally:
        arr.release()


def _check_out(fn, out, shape, dtype, src, keepdims, kept, axes):
    dst = _arrays.device_array(out, src.stream, strided=True)
    try:
        _arrays.check_out(fn, dst, dtype, src)
        if not shape and dst.n == 1:  # a full reduction: any one-element out=, as the whole-array path
            dst.kept_strides = []
        elif tuple(dst.shape) != tuple(shape):
            raise ValueError("cured.%s: out= has shape %r, the result %r" % (fn, tuple(dst.shape),
                                                                             tuple(shape)))
        elif keepdims:
            dst.kept_strides = [dst.strides[k] for k in kept]
        else:
            dst.kept_strides = list(dst.strides)
    except BaseException:
        dst.release()
        raise
    return dst
