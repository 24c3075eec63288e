// Exact sums: the real sum of the terms, held without rounding, merged in
// any order to the same bits, and rounded once to nearest-even in the result
// type. The result depends only on the multiset of terms, so it is the same on
// every GPU, grid, layout, segmentation and number of ranks; for float64 terms
// it equals Python's math.fsum.
//
// The state (Exact<F>) is a fixed-point number: signed 64-bit digits of 32
// bits each, digit i weighing 2^(F::LOW + 32 i), covering every bit a term of
// the format can have plus 64 bits for the count. A term adds its bits to
// three neighbouring digits with no carry; a digit then has 31 bits of room,
// so a state takes up to EXACT_ADDS terms before exact_normalize() moves the
// carries up (digits back into [0, 2^32), the top digit signed). Integer
// additions do not depend on their order, and normalizing gives the one
// canonical form of a value, so any tree of exact_merge() calls gives the same
// digits; so does an integer sum of up to EXACT_ADDS normalized states' digits
// (an ncclInt64 allreduce) followed by exact_normalize().
//
// Non-finite terms go into `special`, an IEEE sum of just those (0, +-inf or
// NaN: NaN when any term is NaN or both infinities occur). The flags make the
// sign of a zero sum: -0.0 only when there are terms and every one is -0.0.
//
// The fronts are what a thread accumulates into between flushes, cheaper per
// element than the state: ExactBins (float32 terms, and the products of
// float16 and bfloat16 pairs) sums in 16 doubles chosen by the exponent, each
// exact for EXACT_BIN_TERMS terms; ExactHalfSum (float16 terms) sums in one
// double, exact for EXACT_HALF_TERMS terms. Fronts merge exactly within the
// same bounds (a warp's lanes by shuffles). bfloat16 terms go to float bins,
// and other terms (float64, the products of float32 and float64 pairs)
// through a pair of doubles kept by TwoSum (both in exact.cu), whose rounding
// errors spill to a state.
//
// Ordinary CUDA that also compiles as host C++ (tests/exact_emu.cc supplies
// the intrinsics), so that the tests run this arithmetic on the CPU.
#ifndef CURED_EXACT_CUH
#define CURED_EXACT_CUH

#include "types.cuh"

// The terms of a format are integer multiples of 2^LOW below 2^MAXE in
// magnitude.
template <int LOW_, int MAXE_> struct ExactFormat {
    enum { LOW = LOW_, MAXE = MAXE_, DIGITS = (MAXE_ - LOW_ + 31) / 32 + 2 };
};
typedef ExactFormat<-24, 16> ExactHalf;                // float16 terms
typedef ExactFormat<-149, 128> ExactSingle;            // float32 and bfloat16 terms
typedef ExactFormat<-1074, 1024> ExactDouble;          // float64 terms
typedef ExactFormat<-48, 32> ExactHalfProducts;        // products of float16 pairs
typedef ExactFormat<-298, 256> ExactSingleProducts;    // products of float32 or bfloat16 pairs
typedef ExactFormat<-2148, 2048> ExactDoubleProducts;  // products of float64 pairs

#define EXACT_ANY 1u          // a term was added
#define EXACT_NOT_NEG_ZERO 2u // a term other than -0.0 was added
#define EXACT_ADDS (1u << 30) // terms (or normalized states) a state takes between normalizations
#define EXACT_BIN_TERMS (1u << 14) // terms an ExactBins takes between flushes
#define EXACT_HALF_TERMS (1u << 13) // terms an ExactHalfSum takes between flushes

// Where a state's digits live: in the state itself (registers, or a block of
// shared memory), or strided in shared memory, digit i of a thread at
// p[i * stride]: with the stride a multiple of 16 threads, a warp's lanes reach
// 32 different banks whatever digits each touches.
template <class F> struct ExactDigits {
    long long v[F::DIGITS];
    __device__ __forceinline__ long long &operator[](int i) { return v[i]; }
    __device__ __forceinline__ long long operator[](int i) const { return v[i]; }
};
struct ExactStrided {
    long long *p;
    int stride;
    __device__ __forceinline__ long long &operator[](int i) const { return p[i * stride]; }
};

template <class F, class D = ExactDigits<F> > struct Exact {
    D d;            // value: sum of d[i] 2^(F::LOW + 32 i)
    float special;  // IEEE sum of the non-finite terms
    unsigned flags; // EXACT_ANY, EXACT_NOT_NEG_ZERO
};

template <class F, class D> __device__ __forceinline__ void exact_init(Exact<F, D> &s)
{
    for (int i = 0; i < F::DIGITS; i++)
        s.d[i] = 0;
    s.special = 0.0f;
    s.flags = 0;
}

// Adds (neg ? -m : m) 2^(F::LOW + pos), pos >= 0: the 95 bits of m 2^(pos % 32)
// in three digits, each addend below 2^32.
template <class F, class D> __device__ __forceinline__ void exact_add_bits(Exact<F, D> &s, u64 m, int pos, bool neg)
{
    const int k = pos >> 5, sh = pos & 31;
    const u64 lo = m << sh, hi = sh ? m >> (64 - sh) : 0ull;
    const long long sign = neg ? -1ll : 0ll; // x ^ sign - sign negates when neg
    s.d[k] += ((long long)(lo & 0xffffffffull) ^ sign) - sign;
    s.d[k + 1] += ((long long)(lo >> 32) ^ sign) - sign;
    s.d[k + 2] += ((long long)hi ^ sign) - sign;
}

// Adds (neg ? -m : m) 2^e, a multiple of 2^F::LOW (the bits shifted out
// when e < F::LOW are zero).
template <class F, class D> __device__ __forceinline__ void exact_add_scaled(Exact<F, D> &s, u64 m, int e, bool neg)
{
    int pos = e - F::LOW;
    if (pos < 0) {
        m = pos > -64 ? m >> -pos : 0ull;
        pos = 0;
    }
    exact_add_bits(s, m, pos, neg);
}

// The parts of a float32 or float64 bit pattern: |x| = m 2^e for finite x.
struct ExactParts {
    u64 m;
    int e;
    bool neg, finite;
};
__device__ __forceinline__ ExactParts exact_parts(float x)
{
    const unsigned u = __float_as_uint(x), E = (u >> 23) & 255u, f = u & 0x7fffffu;
    ExactParts p;
    p.m = E ? f | 0x800000u : f;
    p.e = (E ? (int)E : 1) - 150;
    p.neg = u >> 31;
    p.finite = E != 255u;
    return p;
}
__device__ __forceinline__ ExactParts exact_parts(double x)
{
    const u64 u = (u64)__double_as_longlong(x), f = u & 0xfffffffffffffull;
    const unsigned E = (unsigned)(u >> 52) & 2047u;
    ExactParts p;
    p.m = E ? f | 0x10000000000000ull : f;
    p.e = (E ? (int)E : 1) - 1075;
    p.neg = u >> 63;
    p.finite = E != 2047u;
    return p;
}

// The value of x, without counting it as a term (the fronts' flushes).
template <class F, class D, class X> __device__ __forceinline__ void exact_add_value(Exact<F, D> &s, X x)
{
    const ExactParts p = exact_parts(x);
    if (!p.finite)
        s.special += (float)x;
    else if (p.m)
        exact_add_scaled(s, p.m, p.e, p.neg);
}

// A term: a float32 or float64 element.
template <class F, class D, class X> __device__ __forceinline__ void exact_add(Exact<F, D> &s, X x)
{
    const ExactParts p = exact_parts(x);
    exact_add_value(s, x);
    s.flags |= EXACT_ANY | (p.m || !p.neg || !p.finite ? EXACT_NOT_NEG_ZERO : 0u);
}

// A term that is the product x y, exact: the integer product of the
// significands (up to 106 bits, in two pieces) at the sum of the exponents.
// Infinity times zero is NaN, as in IEEE.
template <class F, class D, class X> __device__ __forceinline__ void exact_add_product(Exact<F, D> &s, X x, X y)
{
    const ExactParts a = exact_parts(x), b = exact_parts(y);
    const bool neg = a.neg != b.neg;
    s.flags |= EXACT_ANY;
    if (!a.finite || !b.finite) {
        s.special += (float)(x * y);
        s.flags |= EXACT_NOT_NEG_ZERO;
        return;
    }
    if (!a.m || !b.m) {
        s.flags |= neg ? 0u : EXACT_NOT_NEG_ZERO;
        return;
    }
    s.flags |= EXACT_NOT_NEG_ZERO;
    u64 lo = a.m * b.m, hi = __umul64hi(a.m, b.m);
    int pos = a.e + b.e - F::LOW;
    if (pos < 0) { // zeros below 2^LOW (significands with trailing zeros): shifted out
        const int r = -pos;
        lo = r < 64 ? lo >> r | hi << (64 - r) : hi >> (r - 64);
        hi = r < 64 ? hi >> r : 0ull;
        pos = 0;
    }
    exact_add_bits(s, lo, pos, neg);
    if (hi)
        exact_add_bits(s, hi, pos + 64, neg);
}

// Digits into [0, 2^32), the carries into the next digit; the top digit keeps
// the sign. The result is the one normalized form of the value.
template <class F, class D> __device__ __forceinline__ void exact_normalize(Exact<F, D> &s)
{
    #pragma unroll 1 // once a result or a flush: code size, not speed (NVRTC's compile time)
    for (int i = 0; i < F::DIGITS - 1; i++) {
        const long long c = s.d[i] >> 32; // floor division: the digit's rest is its low 32 bits
        s.d[i] &= 0xffffffffll;
        s.d[i + 1] += c;
    }
}

// a += b, both normalized (or together at most EXACT_ADDS terms since their
// last normalization); a ends normalized.
template <class F, class D, class D2> __device__ __forceinline__ void exact_merge(Exact<F, D> &a, const Exact<F, D2> &b)
{
    #pragma unroll 1 // once a result or a flush: code size, not speed (NVRTC's compile time)
    for (int i = 0; i < F::DIGITS; i++)
        a.d[i] += b.d[i];
    a.special += b.special;
    a.flags |= b.flags;
    exact_normalize(a);
}

// A state whose digits live in shared memory shared by several threads (a
// warp's): every addition is an integer atomic, so the threads' terms arrive
// in any order and leave the same digits.
struct ExactAtomic {
    long long *p;
    struct Digit {
        long long *p;
        __device__ __forceinline__ void operator+=(long long v) const
        {
            atomicAdd((unsigned long long *)p, (unsigned long long)v);
        }
    };
    __device__ __forceinline__ Digit operator[](int i) const
    {
        Digit d = {p + i};
        return d;
    }
};

// ---- Fronts ----

// Float32 terms (as bit patterns; bfloat16 widened to them, and the products
// of float16 pairs, which float32 holds exactly) in 16 doubles: bin b sums the
// terms whose biased exponent is 16 b .. 16 b + 15, integer multiples of the
// bin's smallest ulp below 2^39 of them; 2^14 such terms sum below 2^53, so
// every bin's double additions are exact (the top bin's sum, up to 2^142,
// fits the format's count digits). Infinities and NaNs fall into bin 15 and
// stay there with IEEE's rules. nz ORs each pattern with -0.0's bits
// flipped: zero exactly when every term is -0.0. The bins live where B puts
// them (ExactBinArray, or strided in shared memory as ExactBinStrided).
struct ExactBinArray {
    double v[16];
    __device__ __forceinline__ double &operator[](int i) { return v[i]; }
    __device__ __forceinline__ double operator[](int i) const { return v[i]; }
};
struct ExactBinStrided {
    double *p;
    int stride;
    __device__ __forceinline__ double &operator[](int i) const { return p[i * stride]; }
};
template <class B = ExactBinArray> struct ExactBins {
    B bin;
    unsigned nz, n;
};
template <class B> __device__ __forceinline__ void exact_bins_init(ExactBins<B> &f)
{
    for (int b = 0; b < 16; b++)
        f.bin[b] = 0.0;
    f.nz = 0;
    f.n = 0;
}
template <class B> __device__ __forceinline__ void exact_bins_add(ExactBins<B> &f, unsigned bits)
{
    f.bin[(bits >> 27) & 15u] += (double)__uint_as_float(bits);
    f.nz |= bits ^ 0x80000000u;
    f.n++;
}
template <class F, class D, class B> __device__ __forceinline__ void exact_bins_flush(Exact<F, D> &s, ExactBins<B> &f)
{
    for (int b = 0; b < 16; b++)
        exact_add_value(s, f.bin[b]);
    s.flags |= (f.n ? EXACT_ANY : 0u) | (f.nz ? EXACT_NOT_NEG_ZERO : 0u);
    exact_bins_init(f);
}

// Merging two threads' bins (a warp's shuffles): exact while the two hold at
// most EXACT_BIN_TERMS terms together, so a warp that merges its lanes' bins
// flushes each lane's every EXACT_BIN_TERMS / 32 terms.
template <class B, class B2> __device__ __forceinline__ void exact_bins_merge(ExactBins<B> &a, const ExactBins<B2> &b)
{
    for (int i = 0; i < 16; i++)
        a.bin[i] += b.bin[i];
    a.nz |= b.nz;
    a.n += b.n;
}

// Float16 terms in one double: each is a multiple of 2^-24 below 2^16, so
// EXACT_HALF_TERMS of them sum below 2^53 units, exactly (and with IEEE's
// rules for infinities and NaNs). nz as in ExactBins.
struct ExactHalfSum {
    double sum;
    unsigned nz, n;
};
__device__ __forceinline__ void exact_half_init(ExactHalfSum &f)
{
    f.sum = 0.0;
    f.nz = 0;
    f.n = 0;
}
__device__ __forceinline__ void exact_half_add(ExactHalfSum &f, half_t h)
{
    f.sum += (double)to_float(h);
    f.nz |= h.bits ^ 0x8000u;
    f.n++;
}
// Exact while the two hold at most EXACT_HALF_TERMS terms together.
__device__ __forceinline__ void exact_half_merge(ExactHalfSum &a, const ExactHalfSum &b)
{
    a.sum += b.sum;
    a.nz |= b.nz;
    a.n += b.n;
}
template <class F, class D> __device__ __forceinline__ void exact_half_flush(Exact<F, D> &s, ExactHalfSum &f)
{
    exact_add_value(s, f.sum);
    s.flags |= (f.n ? EXACT_ANY : 0u) | (f.nz ? EXACT_NOT_NEG_ZERO : 0u);
    exact_half_init(f);
}

// ---- Rounding ----

// IEEE binary formats: P significand bits (with the hidden one), EMAX the
// largest exponent, EMIN = 1 - EMAX the smallest normal one.
template <class R> struct ExactResult;
template <> struct ExactResult<half_t> { enum { P = 11, EMAX = 15, EBITS = 5 }; };
template <> struct ExactResult<bf16_t> { enum { P = 8, EMAX = 127, EBITS = 8 }; };
template <> struct ExactResult<float> { enum { P = 24, EMAX = 127, EBITS = 8 }; };
template <> struct ExactResult<double> { enum { P = 53, EMAX = 1023, EBITS = 11 }; };

template <class R> __device__ __forceinline__ u64 exact_sign_bit()
{
    return 1ull << (ExactResult<R>::EBITS + ExactResult<R>::P - 1);
}
template <class R> __device__ __forceinline__ u64 exact_inf_bits(bool neg)
{
    return ((1ull << ExactResult<R>::EBITS) - 1) << (ExactResult<R>::P - 1) | (neg ? exact_sign_bit<R>() : 0ull);
}
template <class R> __device__ __forceinline__ u64 exact_nan_bits()
{
    return exact_inf_bits<R>(false) | 1ull << (ExactResult<R>::P - 2);
}

// The bits of (q + t) 2^e rounded to nearest-even in R, for q > 0 and
// 0 <= t < 1 with t > 0 exactly when sticky.
template <class R> __device__ __forceinline__ u64 exact_round_scaled(u64 q, int e, bool sticky, bool neg)
{
    const int P = ExactResult<R>::P, EMAX = ExactResult<R>::EMAX, EMIN = 1 - EMAX;
    const int lead = e + 63 - __clzll((long long)q); // exponent of q's leading bit
    int ulp = (lead > EMIN ? lead : EMIN) - (P - 1);
    const int drop = ulp - e; // bits of q below the result's last place
    u64 m;
    bool half, rest;
    if (drop <= 0) {
        m = q << -drop; // fewer than P bits: exact
        half = false;
        rest = sticky;
    } else if (drop > 64) {
        m = 0;
        half = false;
        rest = true;
    } else {
        m = drop == 64 ? 0ull : q >> drop;
        half = (q >> (drop - 1)) & 1u;
        rest = sticky || (drop > 1 && (q << (65 - drop)) != 0);
    }
    if (half && (rest || (m & 1u)))
        m++;
    if (m >> P) { // rounded up to 2^P: one binade higher, still exact
        m >>= 1;
        ulp++;
    }
    const u64 sign = neg ? exact_sign_bit<R>() : 0ull;
    if (!(m >> (P - 1))) // subnormal or zero: the exponent field is 0
        return sign | m;
    const int biased = ulp + P - 1 + EMAX;
    if (biased > 2 * EMAX)
        return exact_inf_bits<R>(neg);
    return sign | (u64)biased << (P - 1) | (m & ((1ull << (P - 1)) - 1));
}

// The magnitude of a normalized state as 32-bit words (one more than digits:
// the top digit may exceed 32 bits), and its sign.
template <class F, class D> __device__ __forceinline__ bool exact_magnitude(const Exact<F, D> &s, unsigned *w)
{
    const bool neg = s.d[F::DIGITS - 1] < 0;
    long long carry = 0;
    #pragma unroll 1 // once a result or a flush: code size, not speed (NVRTC's compile time)
    for (int i = 0; i < F::DIGITS - 1; i++) { // negation with the borrows moved up
        const long long v = (neg ? -s.d[i] : s.d[i]) + carry;
        w[i] = (unsigned)(v & 0xffffffffll);
        carry = v >> 32;
    }
    const long long top = (neg ? -s.d[F::DIGITS - 1] : s.d[F::DIGITS - 1]) + carry;
    w[F::DIGITS - 1] = (unsigned)(top & 0xffffffffll);
    w[F::DIGITS] = (unsigned)(top >> 32);
    return neg;
}

// Bits [b, b + 64) of the words (b may be negative: zeros below bit 0).
__device__ __forceinline__ u64 exact_window(const unsigned *w, int nw, int b)
{
    u64 r = 0;
    for (int j = 0; j < 64; j += 32) {
        // the 32 bits from b + j: words (b + j) >> 5 and the next
        const int at = b + j, k = at >> 5, sh = at & 31;
        const u64 lo = k >= 0 && k < nw ? w[k] : 0u, hi = k + 1 >= 0 && k + 1 < nw ? w[k + 1] : 0u;
        r |= (((hi << 32 | lo) >> sh) & 0xffffffffull) << j;
    }
    return r;
}
__device__ __forceinline__ bool exact_any_below(const unsigned *w, int nw, int b)
{
    #pragma unroll 1 // once a result or a flush: code size, not speed (NVRTC's compile time)
    for (int k = 0; k < nw && 32 * k < b; k++)
        if ((32 * (k + 1) <= b ? w[k] : w[k] & ((1u << (b - 32 * k)) - 1u)) != 0)
            return true;
    return false;
}
__device__ __forceinline__ int exact_top_bit(const unsigned *w, int nw) // -1 when zero
{
    #pragma unroll 1 // once a result or a flush: code size, not speed (NVRTC's compile time)
    for (int k = nw - 1; k >= 0; k--)
        if (w[k])
            return 32 * k + 31 - __clz((int)w[k]);
    return -1;
}

// The sum of a normalized state rounded once to nearest-even in R, as R's
// bits: NaN when a term is NaN or both infinities occur, else the infinity;
// -0.0 when there are terms and all are -0.0; +-inf when the sum rounds past
// the largest finite value.
template <class R, class F, class D> __device__ __forceinline__ u64 exact_round(const Exact<F, D> &s)
{
    if (s.special != 0.0f)
        return s.special != s.special ? exact_nan_bits<R>() : exact_inf_bits<R>(s.special < 0.0f);
    unsigned w[F::DIGITS + 1];
    const bool neg = exact_magnitude(s, w);
    const int top = exact_top_bit(w, F::DIGITS + 1);
    if (top < 0)
        return s.flags == EXACT_ANY ? exact_sign_bit<R>() : 0ull;
    const u64 q = exact_window(w, F::DIGITS + 1, top - 62);
    return exact_round_scaled<R>(q, top - 62 + F::LOW, exact_any_below(w, F::DIGITS + 1, top - 62), neg);
}

// The mean: the sum divided by n, rounded once. The quotient's top 61 or 62
// bits come from a 128-by-64-bit division of the sum's top bits (scaled so
// that they hold g + 61 bits for an n of g bits); any remainder, and any sum
// bit below those, make it inexact. n == 0 gives NaN.
template <class R, class F, class D> __device__ __forceinline__ u64 exact_mean(const Exact<F, D> &s, u64 n)
{
    if (s.special != 0.0f || n == 0)
        return s.special != s.special || n == 0 ? exact_nan_bits<R>() : exact_inf_bits<R>(s.special < 0.0f);
    unsigned w[F::DIGITS + 1];
    const bool neg = exact_magnitude(s, w);
    const int top = exact_top_bit(w, F::DIGITS + 1);
    if (top < 0)
        return s.flags == EXACT_ANY ? exact_sign_bit<R>() : 0ull;
    const int g = 64 - __clzll((long long)n);
    const int b = top + 1 - (g + 61); // sum bit that becomes bit 0 of the dividend
    const u64 lo = exact_window(w, F::DIGITS + 1, b), hi = exact_window(w, F::DIGITS + 1, b + 64);
    const bool sticky = exact_any_below(w, F::DIGITS + 1, b);
    u64 q = 0, rem = 0;
    #pragma unroll 1 // once a result or a flush: code size, not speed (NVRTC's compile time)
    for (int i = 127; i >= 0; i--) { // restoring division; the quotient is below 2^62
        const u64 over = rem >> 63;
        rem = rem << 1 | ((i >= 64 ? hi >> (i - 64) : lo >> i) & 1u);
        q <<= 1;
        if (over || rem >= n) {
            rem -= n;
            q |= 1u;
        }
    }
    return exact_round_scaled<R>(q, b + F::LOW, sticky || rem != 0, neg);
}

// A double rounded to R (for results computed in double).
template <class R> __device__ __forceinline__ u64 exact_round_double(double x)
{
    const ExactParts p = exact_parts(x);
    if (!p.finite)
        return p.m != 0x10000000000000ull ? exact_nan_bits<R>() : exact_inf_bits<R>(p.neg);
    if (!p.m)
        return p.neg ? exact_sign_bit<R>() : 0ull;
    return exact_round_scaled<R>(p.m, p.e, false, p.neg);
}
template <class R> __device__ __forceinline__ double exact_bits_double(u64 bits)
{
    const int P = ExactResult<R>::P, EMAX = ExactResult<R>::EMAX, EBITS = ExactResult<R>::EBITS;
    const u64 mask = (1ull << (P - 1)) - 1;
    const int biased = (int)(bits >> (P - 1)) & ((1 << EBITS) - 1);
    const bool neg = (bits >> (EBITS + P - 1)) & 1u;
    if (biased == (1 << EBITS) - 1)
        return (bits & mask) ? __longlong_as_double(0x7ff8000000000000ll)
                             : __longlong_as_double(neg ? (long long)0xfff0000000000000ull : 0x7ff0000000000000ll);
    const u64 m = biased ? (bits & mask) | (mask + 1) : bits & mask;
    const double v = ldexp((double)m, (biased ? biased : 1) - EMAX - (P - 1)); // exact: P <= 53
    return neg ? -v : v;
}

// NORM2: the square root of the sum of squares rounded to double, in double
// (correctly rounded), rounded once more to R. For double that is the square
// root of the correctly rounded sum; for the narrower types the sum keeps 53
// bits before the root, so a sum of squares past R's range can still give a
// finite norm, and the result is within one rounding of the exact norm.
template <class R, class F, class D> __device__ __forceinline__ u64 exact_norm2(const Exact<F, D> &s)
{
    const double sq = __longlong_as_double((long long)exact_round<double>(s));
    return exact_round_double<R>(sqrt(sq));
}

#endif
