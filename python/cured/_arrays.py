"""Device arrays from __cuda_array_interface__ (CuPy, Numba, PyTorch, ...) or
DLPack (PyTorch, JAX, CuPy, ...), and the stream a reduction runs on."""
import ctypes
import sys

from . import _dtypes

# CUstream values with a meaning of their own (cuda.h).
STREAM_LEGACY = 1      # CU_STREAM_LEGACY: the legacy default stream
STREAM_PER_THREAD = 2  # CU_STREAM_PER_THREAD


class DeviceArray:
    """What a reduction needs of an array: pointer, element count and type,
    device, the stream its producer wants work on (an int handle), whether it
    may be written, and what must stay alive while it is used."""

    def __init__(self, ptr, n, dtype, device, stream, readonly, owner, release=None, shape=None, strides=None):
        self.ptr, self.n, self.dtype, self.device = ptr, n, dtype, device
        self.stream, self.readonly, self.owner, self._release = stream, readonly, owner, release
        self.shape = tuple(shape) if shape is not None else (n,)
        self.strides = tuple(strides) if strides is not None else _dense(self.shape)  # in elements

    def release(self):
        if self._release is not None:
            r, self._release = self._release, None
            r()


def _contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    expect = itemsize
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expect:
            return False
        expect *= dim
    return True


def _dense(shape):
    """Row-major strides, in elements."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= int(dim)
    return tuple(reversed(strides))


def _element_strides(shape, strides, itemsize):
    """Byte strides -> element strides for the axis path: ValueError where
    cured cannot follow them (negative, or not whole elements)."""
    if strides is None:
        return _dense(shape)
    out = []
    for dim, stride in zip(shape, strides):
        if dim <= 1:
            out.append(0)
            continue
        if stride < 0 or stride % itemsize:
            raise ValueError("cured: strides %r cannot be reduced in place (cured needs non-negative "
                             "strides of whole elements); reduce a copy" % (tuple(strides),))
        out.append(stride // itemsize)
    return tuple(out)


def _count(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _library(obj):
    return type(obj).__module__.split(".", 1)[0]


def current_stream(obj):
    """The current stream of the object's library, for DLPack producers and
    for objects whose interface names none: torch.cuda.current_stream(),
    cupy's current stream; otherwise the legacy default stream."""
    lib = _library(obj)
    try:
        if lib == "torch":
            import torch
            s = torch.cuda.current_stream(obj.device).cuda_stream
            return s if s else STREAM_LEGACY
        if lib == "cupy":
            import cupy
            s = cupy.cuda.get_current_stream().ptr
            return s if s else STREAM_LEGACY
    except Exception:  # a library that cannot tell: the default stream
        pass
    return STREAM_LEGACY


def stream_handle(stream):
    """A stream given by the caller -> a CUstream value: None (the legacy default
    stream), an int handle, or an object with .ptr (CuPy), .cuda_stream
    (PyTorch) or .handle (Numba)."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attr in ("ptr", "cuda_stream", "handle"):
        v = getattr(stream, attr, None)
        if v is not None:
            v = getattr(v, "value", v)  # Numba's handle is a ctypes c_void_p
            return int(v) if v else STREAM_LEGACY
    raise TypeError("cured: stream must be None, an int handle or a stream object with .ptr, "
                    ".cuda_stream or .handle; got %r" % (stream,))


def _device_of(obj, ptr):
    """The array's device: its library's attribute, else the driver's answer for ptr
    (ptr None: an empty array, whose pointer says nothing: device 0)."""
    dev = getattr(obj, "device", None)
    for attr in ("id", "index"):           # cupy.cuda.Device.id, torch.device.index
        v = getattr(dev, attr, None)
        if isinstance(v, int):
            return v
    get_id = getattr(obj, "get_device", None)  # torch
    if callable(get_id):
        try:
            v = get_id()
            if isinstance(v, int) and v >= 0:
                return v
        except Exception:
            pass
    return _driver_device(ptr) if ptr is not None else 0


def _driver_device(ptr):
    """The device of a pointer, asked of the driver (cuPointerGetAttribute);
    0 when the driver cannot be asked (cured then reports what is wrong)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        ordinal = ctypes.c_int(-1)
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
        if cuda.cuPointerGetAttribute(ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                      ctypes.c_void_p(ptr)) == 0 and ordinal.value >= 0:
            return ordinal.value
    except OSError:
        pass
    return 0


def from_cai(obj, cai, strided=False):
    for key in ("shape", "typestr", "data"):
        if key not in cai:
            raise TypeError("cured: __cuda_array_interface__ of %r has no %r" % (type(obj).__name__, key))
    dtype = _dtypes.from_typestr(cai["typestr"])
    shape = tuple(cai["shape"])
    itemsize = int(cai["typestr"][2:])
    ptr, readonly = cai["data"]
    if cai.get("mask") is not None:
        raise TypeError("cured: masked arrays are not supported")
    if strided:
        el_strides = _element_strides(shape, cai.get("strides"), itemsize)
    elif not _contiguous(shape, cai.get("strides"), itemsize):
        raise ValueError("cured: the array is not contiguous (strides %r); reduce a contiguous copy "
                         "(e.g. cupy.ascontiguousarray(x) or x.contiguous())" % (cai.get("strides"),))
    else:
        el_strides = None
    n = _count(shape)
    ptr = int(ptr or 0)
    # Version 3: None = no synchronisation needed, else the producer's stream.
    stream = cai.get("stream") if cai.get("version", 2) >= 3 else None
    if stream is None:
        stream = current_stream(obj)
    return DeviceArray(ptr, n, dtype, _device_of(obj, ptr if n else None), int(stream), bool(readonly), obj,
                       shape=shape, strides=el_strides)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor)))]

KDL_CUDA, KDL_CUDA_MANAGED = 2, 13

_MOVE_IT = ("cured reduces arrays in GPU memory: move it there first, e.g. cupy.asarray(x) "
            "or torch.as_tensor(x, device='cuda')")


def _not_on_gpu(obj, where):
    return TypeError("cured: the %s is %s; %s" % (type(obj).__name__, where, _MOVE_IT))

_pyapi = ctypes.pythonapi
_pyapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pyapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pyapi.PyCapsule_IsValid.restype = ctypes.c_int
_pyapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pyapi.PyCapsule_SetName.restype = ctypes.c_int
_pyapi.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]


def from_dlpack(obj, stream, strided=False):
    """obj.__dlpack__(stream=...) parsed; stream None means the object's
    library's current stream. The tensor is handed back (its deleter called)
    by DeviceArray.release()."""
    if stream is None:
        stream = current_stream(obj)
    dev_fn = getattr(obj, "__dlpack_device__", None)
    if callable(dev_fn):
        dev_type, _ = dev_fn()
        if int(dev_type) not in (KDL_CUDA, KDL_CUDA_MANAGED):
            raise _not_on_gpu(obj, "not in CUDA device memory (DLPack device type %d)" % int(dev_type))
    try:
        capsule = obj.__dlpack__(stream=stream)
    except TypeError:  # a producer without the stream argument
        capsule = obj.__dlpack__()
    if not _pyapi.PyCapsule_IsValid(capsule, b"dltensor"):
        raise TypeError("cured: __dlpack__ of %r did not return a DLPack capsule" % type(obj).__name__)
    mt = ctypes.cast(_pyapi.PyCapsule_GetPointer(capsule, b"dltensor"), ctypes.POINTER(_DLManagedTensor))
    # The capsule is consumed: it must not call the deleter when collected.
    _pyapi.PyCapsule_SetName(capsule, b"used_dltensor")

    def release():
        if mt.contents.deleter:
            mt.contents.deleter(mt)

    try:
        t = mt.contents.dl_tensor
        if t.device.device_type not in (KDL_CUDA, KDL_CUDA_MANAGED):
            raise _not_on_gpu(obj, "not in CUDA device memory (DLPack device type %d)"
                              % t.device.device_type)
        dtype = _dtypes.from_dlpack(t.dtype.code, t.dtype.bits, t.dtype.lanes)
        shape = tuple(t.shape[i] for i in range(t.ndim))
        itemsize = max(1, t.dtype.bits // 8)
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim)) if t.strides else None
        if strided:
            el_strides = _element_strides(shape, strides, itemsize)
        elif not _contiguous(shape, strides, itemsize):
            raise ValueError("cured: the array is not contiguous; reduce a contiguous copy, or give axis=")
        else:
            el_strides = None
        ptr = (t.data or 0) + t.byte_offset
        return DeviceArray(ptr, _count(shape), dtype, t.device.device_id, int(stream), False, obj, release,
                           shape=shape, strides=el_strides)
    except BaseException:
        release()
        raise


def check_out(fn, dst, dtype, src):
    """out= must be of the result type, writable, and on the input's device
    (an empty one may be anywhere): TypeError or ValueError otherwise."""
    if dst.dtype != dtype:
        raise TypeError("cured.%s: out= must be %s, not %s" % (fn, dtype, dst.dtype))
    if dst.readonly:
        raise ValueError("cured.%s: out= is read-only" % fn)
    if dst.n and dst.device != src.device:
        raise ValueError("cured.%s: out= is on device %d, the input on device %d" % (fn, dst.device, src.device))


def device_array(obj, stream=None, strided=False):
    """The DeviceArray of obj, preferring __cuda_array_interface__ over DLPack.
    An explicit stream replaces the one the interface names. strided: accept
    any non-negative strides (the axis path), else the array must be contiguous."""
    explicit = stream_handle(stream)
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        cai = None
    except (TypeError, ValueError, KeyError):
        # PyTorch's bfloat16 has no type string: DLPack carries it.
        if not hasattr(obj, "__dlpack__"):
            raise
        cai = None
    if cai is not None and str(cai.get("typestr", ""))[1:] == "V2" and hasattr(obj, "__dlpack__"):
        cai = None  # PyTorch's bfloat16 is an opaque 2-byte type there: DLPack names it
    if cai is not None:
        a = from_cai(obj, cai, strided)
        if explicit is not None:
            a.stream = explicit
        return a
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj, explicit, strided)
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
        raise _not_on_gpu(obj, "in host memory")
    raise TypeError("cured: %r has neither __cuda_array_interface__ nor __dlpack__ (pass a CuPy, "
                    "Numba, PyTorch or JAX array in GPU memory)" % type(obj).__name__)


def is_contiguous(obj):
    """Whether obj's interface describes a dense row-major array (no memory is touched)."""
    try:
        cai = obj.__cuda_array_interface__
    except Exception:
        cai = None
    if cai is not None and "shape" in cai and "typestr" in cai and str(cai["typestr"])[1:] != "V2":
        try:
            return _contiguous(tuple(cai["shape"]), cai.get("strides"), int(str(cai["typestr"])[2:]))
        except ValueError:
            return True  # let the whole-array path report the bad type string
    f = getattr(obj, "is_contiguous", None)  # torch, whose bfloat16 has no type string
    if callable(f):
        try:
            return bool(f())
        except Exception:
            return True
    return True


def is_torch(obj):
    return _library(obj) == "torch" and "torch" in sys.modules
