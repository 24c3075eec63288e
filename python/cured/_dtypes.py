"""Element types: cured's enum, NumPy-style names, and NumPy's result types."""

# cured_type values (include/cured.h); stable.
INT32, INT64, INT8, UINT8, INT16, UINT16, UINT32, UINT64 = 0, 1, 2, 3, 4, 5, 6, 7
FLOAT16, BFLOAT16, FLOAT32, FLOAT64 = 8, 9, 10, 11

# name -> (cured type, size in bytes, kind: 'i' signed, 'u' unsigned, 'f' float)
TYPES = {
    "int8": (INT8, 1, "i"), "int16": (INT16, 2, "i"), "int32": (INT32, 4, "i"), "int64": (INT64, 8, "i"),
    "uint8": (UINT8, 1, "u"), "uint16": (UINT16, 2, "u"), "uint32": (UINT32, 4, "u"),
    "uint64": (UINT64, 8, "u"),
    "float16": (FLOAT16, 2, "f"), "bfloat16": (BFLOAT16, 2, "f"), "float32": (FLOAT32, 4, "f"),
    "float64": (FLOAT64, 8, "f"),
}
CURED_NAME = {v[0]: k for k, v in TYPES.items()}

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
    """The result types cured offers for SUM and PRODUCT of src (include/cured.h,
    cured_op): integers their 64-bit type, their 32-bit type or themselves;
    float16/bfloat16 float32 or themselves; float32 itself or float64."""
    kind, bits = TYPES[src][2], 8 * TYPES[src][1]
    if kind in "iu":
        prefix = "int" if kind == "i" else "uint"
        res = [prefix + "64", prefix + "32"]
        return res + ([src] if src not in res else [])
    if src in ("float16", "bfloat16"):
        return ["float32", src]
    return ["float32", "float64"] if bits == 32 else ["float64"]


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
