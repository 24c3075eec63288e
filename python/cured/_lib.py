"""libcured through ctypes: finding it, the prototypes, statuses as exceptions."""
import ctypes
import ctypes.util
import os
import threading

# cured_status names by value (include/cured.h; values are only appended).
STATUS_NAMES = [
    "CURED_SUCCESS", "CURED_ERROR_NULL_HANDLE", "CURED_ERROR_NULL_POINTER", "CURED_ERROR_INVALID_ENUM",
    "CURED_ERROR_SIZE_OVERFLOW", "CURED_ERROR_NOT_DEVICE_POINTER", "CURED_ERROR_MISALIGNED",
    "CURED_ERROR_NO_DRIVER", "CURED_ERROR_NO_DEVICE", "CURED_ERROR_NO_NVRTC", "CURED_ERROR_INVALID_DEVICE",
    "CURED_ERROR_COMPILE", "CURED_ERROR_NOT_SUPPORTED", "CURED_ERROR_OUT_OF_MEMORY", "CURED_ERROR_CUDA",
    "CURED_ERROR_TYPE_MISMATCH", "CURED_ERROR_INVALID_VALUE", "CURED_ERROR_INTERNAL",
    "CURED_ERROR_EMPTY_INPUT", "CURED_ERROR_ALL_NAN", "CURED_ERROR_INVALID_EXPRESSION", "CURED_ERROR_OUT_OF_RANGE",
    "CURED_ERROR_TOO_FEW_ELEMENTS", "CURED_ERROR_NO_NCCL", "CURED_ERROR_NCCL",
    "CURED_ERROR_COMPILE_BUDGET",
]
SUCCESS = 0
TYPE_MISMATCH = 15
ALL_NAN = 19
TOO_FEW_ELEMENTS = 22


class CuredError(RuntimeError):
    """A cured call failed: .status is the status name (e.g.
    "CURED_ERROR_NO_DRIVER"), .code its value, .message cured_last_error()."""

    def __init__(self, code, message, call=None):
        self.code = code
        self.status = STATUS_NAMES[code] if 0 <= code < len(STATUS_NAMES) else "CURED_STATUS_%d" % code
        self.message = message
        self.call = call
        where = "%s: " % call if call else ""
        super().__init__("%s%s: %s" % (where, self.status, message))


class LibraryNotFound(CuredError, OSError):
    """libcured could not be loaded (CURED_LIBRARY, then the system loader)."""

    def __init__(self, tried):
        self.tried = tried
        self.code, self.status, self.call = -1, "LIBRARY_NOT_FOUND", None
        self.message = ("libcured could not be loaded; tried " + "; ".join(tried) +
                        ". Install cured (make install; ldconfig) or set CURED_LIBRARY to the path "
                        "of libcured.so")
        OSError.__init__(self, self.message)

    def __str__(self):
        return self.message


_lock = threading.RLock()
_lib = None

c_status = ctypes.c_int
c_handle = ctypes.c_void_p
P = ctypes.c_void_p
SZ = ctypes.c_size_t

# name: (restype, argtypes)
_PROTOTYPES = {
    "cured_version": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int)] * 3),
    "cured_version_string": (ctypes.c_char_p, []),
    "cured_status_string": (ctypes.c_char_p, [c_status]),
    "cured_last_error": (ctypes.c_char_p, []),
    "cured_create": (c_status, [ctypes.c_int, ctypes.POINTER(c_handle)]),
    "cured_destroy": (c_status, [c_handle]),
    "cured_reduce_async": (c_status, [c_handle, ctypes.c_int, ctypes.c_int, P, ctypes.c_int, SZ, P,
                                      ctypes.c_int, P]),
    "cured_reduce": (c_status, [c_handle, ctypes.c_int, ctypes.c_int, P, ctypes.c_int, SZ, P,
                                ctypes.c_int, P]),
    "cured_dot_async": (c_status, [c_handle, P, P, ctypes.c_int, SZ, P, ctypes.c_int, P]),
    "cured_dot": (c_status, [c_handle, P, P, ctypes.c_int, SZ, P, ctypes.c_int, P]),
    "cured_default_result": (c_status, [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
    "cured_custom_create": (c_status, [c_handle, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(P)]),
    "cured_custom_reduce_async": (c_status, [c_handle, P, P, P, SZ, P, P]),
    "cured_custom_reduce": (c_status, [c_handle, P, P, P, SZ, P, P]),
    "cured_custom_destroy": (c_status, [P]),
    "cured_reduce_axes_async": (c_status, [c_handle, ctypes.c_int, P, ctypes.c_int, P, ctypes.c_uint32, P,
                                           ctypes.c_int, P, P]),
    "cured_reduce_stats_async": (c_status, [c_handle, ctypes.c_int, P, ctypes.c_int, SZ, ctypes.c_double, P,
                                            ctypes.c_int, P]),
    "cured_reduce_stats": (c_status, [c_handle, ctypes.c_int, P, ctypes.c_int, SZ, ctypes.c_double, P,
                                      ctypes.c_int, P]),
    "cured_reduce_axes_stats_async": (c_status, [c_handle, ctypes.c_int, P, ctypes.c_int, P, ctypes.c_uint32,
                                                 ctypes.c_double, P, ctypes.c_int, P, P]),
}


def _candidates():
    env = os.environ.get("CURED_LIBRARY")
    if env:
        return [env]
    names = ["libcured.so.0", "libcured.so"]
    found = ctypes.util.find_library("cured")
    if found and found not in names:
        names.append(found)
    return names


def lib():
    """The loaded libcured, with prototypes set; LibraryNotFound if it cannot be loaded."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            tried = []
            for name in _candidates():
                try:
                    handle = ctypes.CDLL(name)
                except OSError as e:
                    tried.append("%s (%s)" % (name, e))
                    continue
                for fn, (res, args) in _PROTOTYPES.items():
                    f = getattr(handle, fn)
                    f.restype = res
                    f.argtypes = args
                _lib = handle
                break
            else:
                raise LibraryNotFound(tried)
    return _lib


def last_error():
    msg = lib().cured_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


def check(code, call):
    """Raise CuredError for a failing status, with this thread's message."""
    if code != SUCCESS:
        raise CuredError(code, last_error(), call)


_handles = {}


def handle(device):
    """The process's cured handle for a device ordinal (made on first use, kept)."""
    h = _handles.get(device)
    if h is not None:
        return h
    with _lock:
        h = _handles.get(device)
        if h is None:
            out = c_handle()
            check(lib().cured_create(int(device), ctypes.byref(out)), "cured_create(%d)" % device)
            h = _handles[device] = out
    return h
