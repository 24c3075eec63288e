"""Host references for the exact sums (cured.sum/mean/dot/norm with exact=True):
the exact real value as a Fraction, rounded once to nearest, ties to even,
into a binary float format, and the IEEE rules for NaN, infinities and -0.0
as include/cured.h ("Exact sums") states them. float(Fraction) followed by a
narrowing (numpy.float32(...)) rounds twice and is not correctly rounded in
general; round_fraction() rounds once."""
import math
import struct
from fractions import Fraction

# (precision in bits with the implicit one, smallest normal exponent, largest exponent)
FORMATS = {"float16": (11, -14, 15), "bfloat16": (8, -126, 127), "float32": (24, -126, 127),
           "float64": (53, -1022, 1023)}


def round_fraction(q, fmt):
    """The Fraction q rounded once to nearest, ties to even, in fmt, as a Python
    float (every value of these formats is a double); +-inf past the largest
    finite value; 0 gives +0.0."""
    p, emin, emax = FORMATS[fmt]
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()   # 2^e <= a < 2^(e+2)
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    assert Fraction(2) ** e <= a < Fraction(2) ** (e + 1)
    k = max(e, emin) - (p - 1)               # the exponent of one unit in the last place
    m = a / Fraction(2) ** k
    n = m.numerator // m.denominator
    rest = m - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2):
        n += 1
    if n * Fraction(2) ** k >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * math.ldexp(n, k)           # exact: n has at most p + 1 bits


def _special(terms):
    """NaN, +-inf or None (finite terms) for a list of float terms."""
    if any(math.isnan(t) for t in terms):
        return math.nan
    pos, neg = math.inf in terms, -math.inf in terms
    if pos and neg:
        return math.nan
    if pos or neg:
        return math.inf if pos else -math.inf
    return None


def _all_negative_zero(terms):
    return bool(terms) and all(t == 0 and math.copysign(1, t) < 0 for t in terms)


def exact_sum(terms, fmt):
    """EXACT_SUM of float terms (Python floats) into fmt."""
    s = _special(terms)
    if s is not None:
        return s
    if _all_negative_zero(terms):
        return -0.0
    return round_fraction(sum((Fraction(t) for t in terms), Fraction(0)), fmt)


def exact_mean(terms, fmt):
    """EXACT_MEAN: the exact sum over n, rounded once; NaN when empty."""
    if not terms:
        return math.nan
    s = _special(terms)
    if s is not None:
        return s
    if _all_negative_zero(terms):
        return -0.0
    return round_fraction(sum((Fraction(t) for t in terms), Fraction(0)) / len(terms), fmt)


def _product(x, y):
    """x * y as a term: a Python float product where it is special or zero (the
    sign of a zero, inf * 0 = NaN), else None (the exact product is used)."""
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y) or x == 0 or y == 0:
        return x * y
    return None


def exact_dot(xs, ys, fmt):
    """EXACT_DOT: the exact sum of the exact products, rounded once."""
    specials = [_product(x, y) for x, y in zip(xs, ys)]
    s = _special([t for t in specials if t is not None])
    if s is not None:
        return s
    if specials and all(t is not None for t in specials) and _all_negative_zero(specials):
        return -0.0
    return round_fraction(sum((Fraction(x) * Fraction(y) for x, y in zip(xs, ys)), Fraction(0)), fmt)


def exact_norm(terms, fmt):
    """EXACT_NORM2 (cured.h): the exact sum of squares correctly rounded to
    float64, its square root in float64 (math.sqrt is correctly rounded), then
    rounded once more to fmt."""
    s = _special([t * t for t in terms if not math.isfinite(t)])
    if s is not None:
        return s
    sq = round_fraction(sum((Fraction(t) ** 2 for t in terms), Fraction(0)), "float64")
    return round_fraction(Fraction(math.sqrt(sq)), fmt) if math.isfinite(sq) else sq


def bits(v):
    """A float's double bits (NaNs: one pattern), for bitwise comparisons that see -0.0."""
    return "nan" if math.isnan(v) else struct.pack("<d", float(v)).hex()
