"""Element types: cured's enum, NumPy-style names, and NumPy's result types."""

from collections.abc import Mapping

from . import _lib


class _LibraryTypes(Mapping):
    """name -> (cured type, size in bytes, kind: 'i' signed, 'u' unsigned, 'f'
    float), as the library's type table gives them (read on first use)."""

    def __getitem__(self, name):
        return _lib.tables().types[name]

    def __iter__(self):
        return iter(_lib.tables().types)

    def __len__(self):
        return len(_lib.tables().types)


class _CuredNames(Mapping):
    """cured type -> name."""

    def __getitem__(self, value):
        for name, v in _lib.tables().types.items():
            if v[0] == value:
                return name
        raise KeyError(value)

    def __iter__(self):
        return (v[0] for v in _lib.tables().types.values())

    def __len__(self):
        return len(_lib.tables().types)


TYPES = _LibraryTypes()
CURED_NAME = _CuredNames()

# Array-interface type strings ("<i4") of the types above; bool is read as uint8.
_TYPESTR = {
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "f2": "float16", "f4": "float32", "f8": "float64", "b1": "bool",
}


def from_typestr(typestr):
    """'<f4' -> 'float32' ('|b1' -> 'bool'); TypeError for what cured cannot read."""
    if not isinstance(typestr, str) or len(typestr) < 3 or typestr[0] not in "<>|=":
        raise TypeError("cured: unknown array type string %r" % (typestr,))
    if typestr[0] == ">" and typestr[1:] not in ("i1", "u1", "b1"):
        raise TypeError("cured: big-endian arrays (%r) are not supported" % typestr)
    name = _TYPESTR.get(typestr[1:])
    if name is None:
        raise TypeError("cured: element type %r is not supported (cured reduces 8- to 64-bit integers, "
                        "float16, bfloat16, float32 and float64)" % typestr)
    return name


# DLPack type codes: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6.
def from_dlpack(code, bits, lanes):
    """A DLPack dtype -> 'int32', 'bfloat16', 'bool', ...; TypeError otherwise."""
    if lanes != 1:
        raise TypeError("cured: vector DLPack types (%d lanes) are not supported" % lanes)
    names = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
             (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
             (2, 16): "float16", (2, 32): "float32", (2, 64): "float64", (4, 16): "bfloat16",
             (6, 8): "bool", (1, 1): "bool"}
    name = names.get((code, bits))
    if name is None:
        raise TypeError("cured: DLPack type (code %d, %d bits) is not supported" % (code, bits))
    return name


# NumPy's one-letter type codes (64-bit Linux: 'l' is int64) and other names of the types above.
_CODES = {"b": "int8", "B": "uint8", "h": "int16", "H": "uint16", "i": "int32", "I": "uint32",
          "l": "int64", "L": "uint64", "q": "int64", "Q": "uint64", "p": "int64", "P": "uint64",
          "e": "float16", "f": "float32", "d": "float64"}
_NAMES = {"half": "float16", "single": "float32", "float": "float64", "double": "float64",
          "byte": "int8", "ubyte": "uint8", "short": "int16", "ushort": "uint16", "intc": "int32",
          "uintc": "uint32", "int": "int64", "long": "int64", "longlong": "int64", "intp": "int64",
          "uint": "uint64", "ulong": "uint64", "ulonglong": "uint64", "uintp": "uint64"}


def dtype_name(dtype):
    """A dtype given by the caller: 'float32', numpy.float32, numpy.dtype('f4'),
    torch.float32, cupy's dtypes... -> cured's name ('float32'). None stays None."""
    if dtype is None:
        return None
    if isinstance(dtype, str):
        s = dtype
    else:
        s = getattr(dtype, "name", None)          # numpy.dtype('float32').name
        if s is None and isinstance(dtype, type):
            s = dtype.__name__                    # numpy.float32, float, int
        if s is None:
            s = str(dtype)                        # torch.float32 -> 'torch.float32'
    s = s.rsplit(".", 1)[-1]
    if len(s) >= 2 and s[0] in "<=|" or len(s) == 3 and s[0] == ">" and s[2] == "1":
        s = s[1:]                                 # NumPy's byte order: '<f4', '|i1'
    if s in _CODES:                               # NumPy's one-letter codes are case-sensitive
        s = _CODES[s]
    else:
        s = s.lower()
        s = _TYPESTR.get(s, _NAMES.get(s, s)) if s != "b1" else s
    if s not in TYPES:
        raise TypeError("cured: dtype %r is not one of %s" % (dtype, ", ".join(TYPES)))
    return s


def sum_result(name):
    """NumPy's result type of sum and prod: integers smaller than 64 bits widen
    to int64 / uint64 (bool to int64); floating types keep their type."""
    if name == "bool":
        return "int64"
    kind = TYPES[name][2]
    return {"i": "int64", "u": "uint64"}.get(kind, name)


def size(name):
    """Bytes of one element ('bool': 1)."""
    return 1 if name == "bool" else TYPES[name][1]


def sum_results(src):
    """The result types cured offers for SUM and PRODUCT of src, the library's
    default first, then the wider (include/cured.h, cured_op; asked of the library's rules):
    integers their 64-bit type, their 32-bit type or themselves;
    float16/bfloat16 float32 or themselves; float32 itself or float64."""
    t = _lib.tables()
    first = t.default_result("SUM", src)
    rest = [res for res in t.types if res != first and t.offered("SUM", src, res)]
    return [first] + sorted(rest, key=lambda res: -t.types[res][1])


def sum_plan(src, want):
    """(cured result type, exact) for a SUM/PRODUCT of src asked to give want,
    with NumPy's rules: an integer result wraps modulo 2^bits, which does not
    depend on the accumulator's signedness or on a wider accumulator, so an
    integer want that cured does not offer is computed in an offered type of
    the same width (the same bits: exact is True) or in the 64-bit type and
    wrapped after (exact is False: only where the result is converted).
    TypeError for the float combinations cured does not offer."""
    offered = sum_results(src)
    if want in offered:
        return want, True
    if is_integer(src) and is_integer(want):
        prefix = "int" if TYPES[src][2] == "i" else "uint"
        same = prefix + str(8 * TYPES[want][1])
        if same in offered:
            return same, True
        return offered[0], False
    raise TypeError("dtype=%s is not offered for %s input (cured gives %s)" % (want, src, " or ".join(offered)))


def wrap(value, name):
    """An integer as NumPy's integer type name holds it (modulo 2^bits); other
    values unchanged."""
    if not is_integer(name) or not isinstance(value, int):
        return value
    bits = 8 * TYPES[name][1]
    value &= (1 << bits) - 1
    return value - (1 << bits) if TYPES[name][2] == "i" and value >> (bits - 1) else value


def is_float(name):
    return name in TYPES and TYPES[name][2] == "f"


def is_integer(name):
    return name in TYPES and TYPES[name][2] in "iu"
