"""User-defined reductions from C++ expressions (cured_custom_create), and
all()/any(), which are such reductions."""
import ctypes
import threading

from . import _arrays, _dtypes, _lib


class Custom:
    """A reduction defined by three C++ expressions (see cured_custom_create):
    map_expr over x (and y for two inputs), combine_expr over a and b (it
    must be associative), identity_expr. acc is the accumulator and result
    type (default: the input's type; float32 for float16/bfloat16 input,
    which the map sees as float). Compiled with NVRTC on first use for each
    (device, input type, accumulator type, number of inputs), then cached.
    Call it as op(x), or op(x, y) for a two-input map."""

    def __init__(self, map_expr, combine_expr, identity_expr, acc=None):
        for name, e in (("map_expr", map_expr), ("combine_expr", combine_expr),
                        ("identity_expr", identity_expr)):
            if not isinstance(e, str) or not e.strip():
                raise TypeError("cured.custom: %s must be a non-empty string" % name)
        self.map_expr, self.combine_expr, self.identity_expr = map_expr, combine_expr, identity_expr
        self.acc = _dtypes.dtype_name(acc)
        self._ops = {}
        self._lock = threading.Lock()

    def __repr__(self):
        return "cured.custom(%r, %r, %r, acc=%r)" % (self.map_expr, self.combine_expr, self.identity_expr,
                                                     self.acc)

    def acc_type(self, in_dtype):
        if self.acc is not None:
            return self.acc
        return "float32" if in_dtype in ("float16", "bfloat16") else in_dtype

    def _op(self, device, src, acc, ninputs):
        key = (device, src, acc, ninputs)
        with self._lock:
            op = self._ops.get(key)
            if op is None:
                L, out = _lib.lib(), ctypes.c_void_p()
                _lib.check(L.cured_custom_create(_lib.handle(device), _dtypes.TYPES[src][0],
                                                 _dtypes.TYPES[acc][0], ninputs, self.map_expr.encode(),
                                                 self.combine_expr.encode(), self.identity_expr.encode(),
                                                 ctypes.byref(out)), "cured.custom(%r)" % self.map_expr)
                op = self._ops[key] = out
        return op

    def __call__(self, x, y=None, out=None, stream=None, _convert=None, _name="custom"):
        from . import _decode, _out_array
        arr = _arrays.device_array(x, stream)
        other = None
        try:
            src = "uint8" if arr.dtype == "bool" else arr.dtype
            if y is not None:
                other = _arrays.device_array(y, arr.stream)
                if other.dtype != arr.dtype or other.n != arr.n:
                    raise ValueError("cured.custom: the arrays differ: %d %s and %d %s elements" % (
                        arr.n, arr.dtype, other.n, other.dtype))
            acc = self.acc_type(src)
            op = self._op(arr.device, src, acc, 2 if y is not None else 1)
            L, h = _lib.lib(), _lib.handle(arr.device)
            yp = other.ptr if other is not None else None
            stream_p = ctypes.c_void_p(arr.stream)
            if out is not None:
                want = acc
                if _convert is bool and acc == "uint8":  # cured.all, cured.any: a bool out= takes 0 or 1
                    probe = _arrays.device_array(out)
                    try:
                        want = "bool" if probe.dtype == "bool" else acc
                    finally:
                        probe.release()
                dst = _out_array(_name, out, want, arr)
                try:
                    _lib.check(L.cured_custom_reduce_async(h, op, arr.ptr, yp, arr.n, dst.ptr, stream_p),
                               "cured.custom(%r)" % self.map_expr)
                finally:
                    dst.release()
                return out
            raw = ctypes.create_string_buffer(16)
            _lib.check(L.cured_custom_reduce(h, op, arr.ptr, yp, arr.n, raw, stream_p),
                       "cured.custom(%r)" % self.map_expr)
            value = _decode(raw.raw, acc)
            return _convert(value) if _convert else value
        finally:
            if other is not None:
                other.release()
            arr.release()


def custom(map_expr, combine_expr, identity_expr, acc=None):
    """A user-defined reduction: cured.custom("x*x", "a+b", "0", acc="float64")(x)."""
    return Custom(map_expr, combine_expr, identity_expr, acc)


# all and any, made on first use (their type is checked against the library's table).
_BOOLS = {"all": ("x != 0", "a & b", "1"), "any": ("x != 0", "a | b", "0")}
_bools = {}


def _bool_op(name):
    op = _bools.get(name)
    if op is None:
        op = _bools.setdefault(name, Custom(*_BOOLS[name], acc="uint8"))
    return op


def all(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Whether every element is nonzero (numpy.all; True when empty). Returns
    a Python bool; with out=, a one-element bool or uint8 device array holds 1 or 0."""
    from . import _no_axis
    _no_axis("all", axis, keepdims)
    return _bool_op("all")(a, out=out, stream=stream, _convert=bool, _name="all")


def any(a, axis=None, out=None, keepdims=False, *, stream=None):
    """Whether some element is nonzero (numpy.any; False when empty)."""
    from . import _no_axis
    _no_axis("any", axis, keepdims)
    return _bool_op("any")(a, out=out, stream=stream, _convert=bool, _name="any")
