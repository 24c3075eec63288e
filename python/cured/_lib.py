"""libcured through ctypes: finding it, the prototypes, statuses as exceptions."""
import ctypes
import ctypes.util
import glob
import os
import threading

SUCCESS = 0  # every other status, operator and type number comes from the library (tables())


class CuredError(RuntimeError):
    """A cured call failed: .status is the status name (e.g.
    "CURED_ERROR_NO_DRIVER"), .code its value, .message cured_last_error()."""

    def __init__(self, code, message, call=None):
        self.code = code
        self.status = status_name(code)
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
                        ". Install the package with its library (pip install ./python from the cured "
                        "source tree), install cured (make install; ldconfig), or set CURED_LIBRARY to the "
                        "path of libcured.so")
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
    "cured_nvrtc_version": (c_status, [ctypes.POINTER(ctypes.c_int)] * 2),
    "cured_driver_version": (c_status, [ctypes.POINTER(ctypes.c_int)]),
    "cured_cache_dir": (ctypes.c_char_p, []),
    "cured_last_error": (ctypes.c_char_p, []),
    "cured_create": (c_status, [ctypes.c_int, ctypes.POINTER(c_handle)]),
    "cured_destroy": (c_status, [c_handle]),
    "cured_reduce_async": (c_status, [c_handle, ctypes.c_int, ctypes.c_int, P, ctypes.c_int, SZ, P,
                                      ctypes.c_int, P]),
    "cured_reduce": (c_status, [c_handle, ctypes.c_int, ctypes.c_int, P, ctypes.c_int, SZ, P,
                                ctypes.c_int, P]),
    "cured_dot_async": (c_status, [c_handle, P, P, ctypes.c_int, SZ, P, ctypes.c_int, P]),
    "cured_dot": (c_status, [c_handle, P, P, ctypes.c_int, SZ, P, ctypes.c_int, P]),
    "cured_exact_dot_async": (c_status, [c_handle, P, P, ctypes.c_int, SZ, P, ctypes.c_int, P]),
    "cured_exact_dot": (c_status, [c_handle, P, P, ctypes.c_int, SZ, P, ctypes.c_int, P]),
    "cured_default_result": (c_status, [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
    "cured_result_offered": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, ctypes.c_int]),
    "cured_op_name": (ctypes.c_char_p, [ctypes.c_int]),
    "cured_type_name": (ctypes.c_char_p, [ctypes.c_int]),
    "cured_type_size": (SZ, [ctypes.c_int]),
    "cured_max_rank": (ctypes.c_int, []),
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


BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libcured.so.0")
_loaded_from = None
_nvrtc_from = None


def _candidates():
    """CURED_LIBRARY alone if set; else the wheel's own copy, then the system loader's."""
    env = os.environ.get("CURED_LIBRARY")
    if env:
        return [env]
    names = [BUNDLED] if os.path.exists(BUNDLED) else []
    names += ["libcured.so.0", "libcured.so"]
    found = ctypes.util.find_library("cured")
    if found and found not in names:
        names.append(found)
    return names


def _wheel_nvrtc():
    """libnvrtc from NVIDIA's nvidia-cuda-nvrtc wheel, when it is installed; None otherwise."""
    try:
        import importlib.util
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    for base in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cuda_nvrtc/lib", "cu13/lib", "cu12/lib"):
            hits = sorted(glob.glob(os.path.join(base, sub, "libnvrtc.so.*")))
            hits = [h for h in hits if "builtins" not in os.path.basename(h)]
            if hits:
                return hits[-1]
    return None


def _choose_nvrtc():
    """NVRTC from the wheel when present and CURED_NVRTC_LIBRARY is unset (the library reads that
    variable when it first compiles); else the library's own search of the system toolkit."""
    global _nvrtc_from
    if os.environ.get("CURED_NVRTC_LIBRARY"):
        _nvrtc_from = "CURED_NVRTC_LIBRARY"
        return
    path = _wheel_nvrtc()
    if path:
        os.environ["CURED_NVRTC_LIBRARY"] = path
        _nvrtc_from = "nvidia-cuda-nvrtc wheel"
    else:
        _nvrtc_from = "system"


def lib():
    """The loaded libcured, with prototypes set; LibraryNotFound if it cannot be loaded."""
    global _lib, _loaded_from
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            _choose_nvrtc()
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
                _loaded_from = name
                break
            else:
                raise LibraryNotFound(tried)
    return _lib


def status_name(code):
    """The name of a cured_status value, e.g. "CURED_ERROR_NO_DRIVER", as the library gives it."""
    try:
        name = lib().cured_status_string(int(code))
    except LibraryNotFound:
        name = None
    name = name.decode() if name else ""
    known = name.startswith("CURED_") and name != "CURED_STATUS_UNKNOWN"
    return name if known else "CURED_STATUS_%d" % code


class Tables:
    """The library's own tables, read once from libcured at run time, so that an
    operator or type added there appears here with nothing copied by hand:
    ops: {"SUM": 0, ...} (cured_op_name() until "UNKNOWN"); names: the list of them;
    op: the same as attributes (tables().op.SUM);
    types: {"int32": (cured_type, size in bytes, kind), ...} with kind 'i'
    (signed), 'u' (unsigned) or 'f' (floating) read from the NumPy-style
    name, ordered by kind, then size, then the library's order;
    statuses: {"CURED_ERROR_ALL_NAN": 19, ...} (cured_status_string());
    max_rank: CURED_MAX_RANK (cured_max_rank())."""

    _KINDS = (("uint", "u"), ("int", "i"), ("float", "f"), ("bfloat", "f"))

    def __init__(self, L):
        self.ops = {}
        while True:
            name = L.cured_op_name(len(self.ops)).decode()
            if name == "UNKNOWN":
                break
            self.ops[name] = len(self.ops)
        self.names = list(self.ops)
        self.op = type("Ops", (), dict(self.ops))
        found = []
        while L.cured_type_size(len(found)):
            t = len(found)
            name = L.cured_type_name(t).decode()
            kind = next((k for prefix, k in self._KINDS if name.startswith(prefix)), None)
            if kind is None:
                raise CuredError(-1, "libcured has a type %r this front end cannot classify" % name,
                                 "cured_type_name(%d)" % t)
            found.append((name, (t, L.cured_type_size(t), kind)))
        found.sort(key=lambda e: ("iuf".index(e[1][2]), e[1][1], e[1][0]))
        self.types = dict(found)
        self.statuses = {}
        while True:
            name = L.cured_status_string(len(self.statuses)).decode()
            if not name.startswith("CURED_") or name == "CURED_STATUS_UNKNOWN":
                break
            self.statuses[name] = len(self.statuses)
        self.max_rank = L.cured_max_rank()

    def offered(self, op, src, res):
        """Does the library reduce src with op (a name) into res (type names)? cured's result rules."""
        return bool(lib().cured_result_offered(self.ops[op], self.types[src][0], self.types[res][0]))

    def default_result(self, op, src):
        """The library's default result type name of op over src, or None."""
        got = ctypes.c_int(-1)
        if lib().cured_default_result(self.ops[op], self.types[src][0], ctypes.byref(got)) != SUCCESS:
            return None
        return next(name for name, v in self.types.items() if v[0] == got.value)


_tables = None


def tables():
    """The library's tables (Tables), read on first use; LibraryNotFound without libcured."""
    global _tables
    if _tables is None:
        L = lib()
        with _lock:
            if _tables is None:
                _tables = Tables(L)
    return _tables


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


def info():
    """What the front end found: see cured.info()."""
    out = {"package": os.path.dirname(os.path.abspath(__file__)), "library": None, "library_bundled": False,
           "library_version": None, "library_error": None, "nvrtc": None, "nvrtc_from": None,
           "nvrtc_error": None, "driver": None, "driver_error": None, "cache_dir": None}
    try:
        L = lib()
    except LibraryNotFound as e:
        out["library_error"] = e.message
        return out
    out["library"] = _loaded_from
    out["library_bundled"] = _loaded_from == BUNDLED
    out["library_version"] = L.cured_version_string().decode()
    out["nvrtc_from"] = os.environ.get("CURED_NVRTC_LIBRARY") if _nvrtc_from != "system" else "system"
    major, minor = ctypes.c_int(), ctypes.c_int()
    if L.cured_nvrtc_version(ctypes.byref(major), ctypes.byref(minor)) == SUCCESS:
        out["nvrtc"] = "%d.%d" % (major.value, minor.value)
    else:
        out["nvrtc_error"] = last_error()
    v = ctypes.c_int()
    if L.cured_driver_version(ctypes.byref(v)) == SUCCESS:
        out["driver"] = "%d.%d" % (v.value // 1000, v.value % 1000 // 10)
    else:
        out["driver_error"] = last_error()
    d = L.cured_cache_dir()
    out["cache_dir"] = d.decode() if d else None
    return out
