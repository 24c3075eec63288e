// The exact family's kernels (src/family_exact.c): EXACT_SUM, EXACT_MEAN,
// EXACT_SUM_SQUARES, EXACT_NORM2 and EXACT_DOT over every view, with the
// arithmetic of exact.cuh. A unit (one warp, or a block's warps) takes one
// part of one output: each lane adds its elements into a front, the warp
// moves its fronts into its exact state every chunk, and the unit's warps
// merge their states at its end. An output of one part is rounded there;
// the parts of a split output add their states into an accumulator of the
// output, the last part to arrive rounding it (exact_arrive), or leave state
// records that exact_finish merges and rounds. Every merge is an integer sum of digits, so the bits do not
// depend on the grid, the parts, the layout or the order. Short outputs of
// SUM and MEAN go first through exact_quick, in doubles: a double that lost
// no bit is the exact sum, so its rounding is the same result.
#include "exact.cuh"
#include "abi.h"

#define EXACT_FULL 0xffffffffu

// The fronts: ExactHalfSum's double (float16 terms), ExactBins' bins
// (float32 terms, products of float16 and of bfloat16 pairs), bins of
// floats (bfloat16 terms) or a pair of doubles kept by TwoSum (float64
// terms; products of float32 and float64 pairs).
#define EXACT_FRONT_HALF 0
#define EXACT_FRONT_BINS 1
#define EXACT_FRONT_PAIR 2
#define EXACT_FRONT_FLOAT_BINS 3

// The operators (src/family_exact.c names them in this order).
#define EXACT_OP_SUM 0
#define EXACT_OP_MEAN 1
#define EXACT_OP_SUM_SQUARES 2
#define EXACT_OP_NORM2 3
#define EXACT_OP_DOT 4

template <class T, bool PROD> struct ExactPlan;
template <> struct ExactPlan<half_t, false> { typedef ExactHalf F; enum { FRONT = EXACT_FRONT_HALF, CHUNK = EXACT_HALF_TERMS }; };
template <> struct ExactPlan<bf16_t, false> { typedef ExactSingle F; enum { FRONT = EXACT_FRONT_FLOAT_BINS, CHUNK = EXACT_BIN_TERMS }; };
template <> struct ExactPlan<float, false> { typedef ExactSingle F; enum { FRONT = EXACT_FRONT_BINS, CHUNK = EXACT_BIN_TERMS }; };
template <> struct ExactPlan<double, false> { typedef ExactDouble F; enum { FRONT = EXACT_FRONT_PAIR, CHUNK = CR_EXACT_CHUNK }; };
template <> struct ExactPlan<half_t, true> { typedef ExactHalfProducts F; enum { FRONT = EXACT_FRONT_BINS, CHUNK = EXACT_BIN_TERMS }; };
template <> struct ExactPlan<bf16_t, true> { typedef ExactSingleProducts F; enum { FRONT = EXACT_FRONT_BINS, CHUNK = EXACT_BIN_TERMS }; };
template <> struct ExactPlan<float, true> { typedef ExactSingleProducts F; enum { FRONT = EXACT_FRONT_PAIR, CHUNK = CR_EXACT_CHUNK }; };
template <> struct ExactPlan<double, true> { typedef ExactDoubleProducts F; enum { FRONT = EXACT_FRONT_PAIR, CHUNK = CR_EXACT_CHUNK }; };

// What the planner (src/family_exact.c) sizes records and parts by, through abi.h.
static_assert(EXACT_BIN_TERMS == CR_EXACT_CHUNK && EXACT_HALF_TERMS == CR_EXACT_CHUNK_HALF, "chunks");
static_assert(ExactHalf::DIGITS == CR_EXACT_DIGITS_HALF && ExactSingle::DIGITS == CR_EXACT_DIGITS_SINGLE &&
                  ExactDouble::DIGITS == CR_EXACT_DIGITS_DOUBLE && ExactHalfProducts::DIGITS == CR_EXACT_DIGITS_HALF_PRODUCTS &&
                  ExactSingleProducts::DIGITS == CR_EXACT_DIGITS_SINGLE_PRODUCTS &&
                  ExactDoubleProducts::DIGITS == CR_EXACT_DIGITS_DOUBLE_PRODUCTS,
              "digits");

// A state record: the digits, then the special value's bits and the flags.
template <class F> struct ExactRecord { enum { WORDS = F::DIGITS + 1 }; };

__device__ __forceinline__ double exact_warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(EXACT_FULL, v, o);
    return v;
}
// The special values {0, +inf, -inf, NaN} add in any order to the same value.
__device__ __forceinline__ float exact_warp_special(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(EXACT_FULL, v, o);
    return v;
}
__device__ __forceinline__ unsigned exact_warp_or(unsigned v)
{
    for (int o = 16; o > 0; o >>= 1)
        v |= __shfl_xor_sync(EXACT_FULL, v, o);
    return v;
}

// The offset of index i of a row-major shape (innermost last) with these strides.
__device__ __forceinline__ long long exact_offset(u64 i, int n, const long long *extent, const long long *stride)
{
    if (n == 1) // i < extent[0]: no 64-bit division
        return (long long)i * stride[0];
    long long at = 0;
    for (int k = n - 1; k >= 0; k--) {
        const u64 e = (u64)extent[k];
        if ((i | e) >> 32 == 0) { // a 32-bit division costs a fifth of a 64-bit one
            at += (long long)((unsigned)i % (unsigned)e) * stride[k];
            i = (unsigned)i / (unsigned)e;
        } else {
            at += (long long)(i % e) * stride[k];
            i /= e;
        }
    }
    return at;
}
// Where output o's elements start in the input, and where its result goes.
__device__ __forceinline__ long long exact_in_offset(const ExactJob &j, u64 o)
{
    return exact_offset(o, j.kept.n, j.kept.extent, j.kept.in_stride);
}
__device__ __forceinline__ long long exact_out_offset(const ExactJob &j, u64 o)
{
    return j.view == EXACT_VIEW_SEGMENTS ? (long long)o : exact_offset(o, j.kept.n, j.kept.extent, j.kept.out_stride);
}
// Element i of an output along several reduced dimensions.
__device__ __forceinline__ long long exact_red_offset(const ExactJob &j, u64 i)
{
    return exact_offset(i, j.red.n, j.red.extent, j.red.stride);
}

// Output o's first element and count (a bad segment counts none and is reported).
__device__ __forceinline__ void exact_output(const ExactJob &j, u64 o, long long &base, u64 &len, bool report)
{
    if (j.view != EXACT_VIEW_SEGMENTS) {
        base = exact_in_offset(j, o);
        len = j.len;
        return;
    }
    const long long b = j.offsets_32 ? (long long)((const int *)j.begin)[o] : ((const long long *)j.begin)[o];
    const long long e = j.offsets_32 ? (long long)((const int *)j.end)[o] : ((const long long *)j.end)[o];
    const bool bad = (u64)b > j.guard.limit || (u64)e > j.guard.limit; // negative: above any limit
    if (bad && report)
        atomicMax(j.guard.bad, ~(unsigned long long)o);
    base = bad ? 0 : b;
    len = !bad && e > b ? (u64)(e - b) : 0;
}

// With j.retry set, whether output o's group of 32 is marked for the exact
// state (exact_quick, exact_quick_columns): the kernels after them take only
// the marked outputs.
__device__ __forceinline__ bool exact_marked(const ExactJob &j, u64 o)
{
    // a bit a group (the columns' rule) is a shift: a 64-bit division an output would be most of the units'
    // pass over the outputs (bench/NOTES.md)
    const u64 g = o / 32, b = j.per_bit == 1 ? g : g >> 32 == 0 ? (unsigned)g / j.per_bit : g / j.per_bit;
    return (j.retry[b / 32] >> (b % 32) & 1u) != 0;
}

// Group g of 32 outputs marked in j.retry (j.per_bit groups a bit) for the exact state.
__device__ __forceinline__ void exact_mark(const ExactJob &j, u64 g)
{
    const u64 b = g / j.per_bit;
    atomicOr(j.retry + b / 32, 1u << (b % 32));
}

// The bits of a result of type R.
template <class R> __device__ __forceinline__ void exact_store(void *out, long long at, u64 bits)
{
    if (sizeof(R) == 2)
        ((unsigned short *)out)[at] = (unsigned short)bits;
    else if (sizeof(R) == 4)
        ((unsigned *)out)[at] = (unsigned)bits;
    else
        ((u64 *)out)[at] = bits;
}
template <class R, int OP, class F, class D> __device__ __noinline__ u64 exact_result(const Exact<F, D> &s, u64 n)
{
    if (OP == EXACT_OP_MEAN)
        return exact_mean<R>(s, n);
    if (OP == EXACT_OP_NORM2)
        return exact_norm2<R>(s);
    return exact_round<R>(s);
}
template <class A, class B> struct exact_same { enum { V = 0 }; };
template <class A> struct exact_same<A, A> { enum { V = 1 }; };
// The result of n terms of type T rounded into out[at], in the type `result`
// names (CR_EXACT_R_*: T or a wider float; one compiled unit serves them all).
template <class T, int OP, class F, class D>
__device__ __forceinline__ void exact_store_result(void *out, long long at, const Exact<F, D> &s, u64 n, u64 result)
{
    if constexpr (exact_same<T, half_t>::V)
        if (result == CR_EXACT_R_FLOAT16)
            return exact_store<half_t>(out, at, exact_result<half_t, OP>(s, n));
    if constexpr (exact_same<T, bf16_t>::V)
        if (result == CR_EXACT_R_BFLOAT16)
            return exact_store<bf16_t>(out, at, exact_result<bf16_t, OP>(s, n));
    if constexpr (sizeof(T) <= 4)
        if (result == CR_EXACT_R_FLOAT32)
            return exact_store<float>(out, at, exact_result<float, OP>(s, n));
    exact_store<double>(out, at, exact_result<double, OP>(s, n));
}

// Where a unit's state ends: its result, or (STATE: a communicator's rank)
// its record at out + o * slot: the element count, the digits, the special
// value and flags (src/family_exact.c's cr_exact_state_bytes sizes it). The
// warp's lanes call it together.
template <class T, int OP, bool STATE, class F, class D>
__device__ __forceinline__ void exact_emit(const ExactJob &j, u64 o, u64 len, const Exact<F, D> &s, int lane)
{
    if (STATE) {
        long long *rec = (long long *)j.out + o * (ExactRecord<F>::WORDS + 1);
        for (int d = lane; d < F::DIGITS; d += 32)
            rec[1 + d] = s.d[d];
        if (lane == 0) {
            rec[0] = (long long)len;
            rec[1 + F::DIGITS] = (long long)((u64)s.flags << 32 | __float_as_uint(s.special));
        }
    } else if (lane == 0) {
        exact_store_result<T, OP>(j.out, exact_out_offset(j, o), s, len, j.result);
    }
}

// A part of a split output, when the job has tickets: the part's digits,
// special value and flags go by atomics into the output's accumulator, then
// it takes a ticket; the part with the last ticket takes the accumulator
// (leaving it and the ticket at zero, for the next call), normalizes and
// rounds it. So no second kernel waits on the grid, and integer sums make
// the bits independent of the order of arrival. The warp's lanes call it
// together, with w normalized.
template <class T, int OP, bool STATE, class F, class D>
__device__ __forceinline__ void exact_arrive(const ExactJob &j, u64 o, u64 len, Exact<F, D> &w, int lane)
{
    unsigned long long *acc = (unsigned long long *)j.states + o * ExactRecord<F>::WORDS;
    unsigned *meta = (unsigned *)(acc + F::DIGITS); // the special value's bits, the flags
    for (int d = lane; d < F::DIGITS; d += 32)
        if (w.d[d] != 0)
            atomicAdd(acc + d, (unsigned long long)w.d[d]); // two's complement: a signed sum
    if (lane == 0) {
        if (w.special != 0.0f)
            atomicAdd((float *)meta, w.special);
        if (w.flags)
            atomicOr(meta + 1, w.flags);
    }
    __threadfence(); // every lane's sums before the ticket
    __syncwarp();
    unsigned last = 0;
    if (lane == 0)
        last = atomicAdd(j.tickets + o, 1u) == j.splits - 1u;
    if (!exact_warp_or(last))
        return;
    __threadfence(); // the other parts' sums, seen through their tickets (lane 0's)
    __syncwarp();    // lane 0's fence before the other lanes' reads
    for (int d = lane; d < F::DIGITS; d += 32)
        w.d[d] = (long long)atomicExch(acc + d, 0ull);
    if (lane == 0) {
        w.special = __uint_as_float(atomicExch(meta, 0u));
        w.flags = atomicExch(meta + 1, 0u);
        atomicExch(j.tickets + o, 0u);
    }
    __syncwarp();
    if (lane == 0)
        exact_normalize(w);
    __syncwarp();
    exact_emit<T, OP, STATE>(j, o, len, w, lane);
}

// One lane's front and the terms it takes.
template <class T, bool PROD, int FRONT> struct ExactFront;

// What a front sends to a state's digits whole (the terms or rests its own
// arithmetic cannot hold exactly): the warp's state, shared by its lanes
// (atomics), or the lane's own.
template <class F, bool PROD> struct ExactSpill {
    long long *spill; // the digits of the state the rest goes to
    bool atomic;      // spill is the warp's state, shared by its lanes
    float sp;         // the special value of the terms sent whole
    unsigned fl;      // their flags
    __device__ __forceinline__ void spill_init(long long *digits, bool shared)
    {
        spill = digits;
        atomic = shared;
        sp = 0.0f;
        fl = 0;
    }
    // The exact path: a value (count false: a front's rest) or a term into the digits of t.
    template <class S, class X> __device__ __forceinline__ void into(S &t, X x, X y, bool count)
    {
        t.special = sp;
        t.flags = fl;
        if (!count)
            exact_add_value(t, x);
        else if (PROD)
            exact_add_product(t, x, y);
        else
            exact_add(t, x);
        sp = t.special;
        fl = t.flags;
    }
    template <class X> __device__ __forceinline__ void whole(X x, X y, bool count)
    {
        if (atomic) {
            Exact<F, ExactAtomic> t;
            t.d.p = spill;
            into(t, x, y, count);
        } else {
            Exact<F, ExactStrided> t;
            t.d.p = spill;
            t.d.stride = 1;
            into(t, x, y, count);
        }
    }
};

template <class T> struct ExactFront<T, false, EXACT_FRONT_HALF> {
    double sum;
    unsigned nz;
    __device__ __forceinline__ void init(long long *, int, int, long long *, bool) { sum = 0.0; nz = 0; }
    __device__ __forceinline__ void take(half_t x, half_t)
    {
        sum += (double)to_float(x);
        nz |= x.bits ^ 0x8000u;
    }
    // The warp's terms of a chunk (at most EXACT_HALF_TERMS) into the warp's state (lane 0).
    template <class S> __device__ __forceinline__ void flush(S &w, int lane)
    {
        const double v = exact_warp_sum(sum);
        if (lane == 0)
            exact_add_value(w, v);
        sum = 0.0;
    }
    __device__ __forceinline__ unsigned flags() const { return nz ? EXACT_NOT_NEG_ZERO : 0u; }
    __device__ __forceinline__ float special() const { return 0.0f; } // the flushes put it in the warp's state
    // A lane's own output (at most EXACT_HALF_TERMS terms since the last flush) into its state.
    template <class S> __device__ __forceinline__ void lane_flush(S &s)
    {
        exact_add_value(s, sum);
        sum = 0.0;
        exact_normalize(s);
    }
};

// float32 terms and the products of float16 and bfloat16 pairs: ExactBins'
// 16 doubles a lane, in shared memory (exact.cuh).
template <class T, bool PROD>
struct ExactFront<T, PROD, EXACT_FRONT_BINS> : ExactSpill<typename ExactPlan<T, PROD>::F, PROD> {
    typedef ExactSpill<typename ExactPlan<T, PROD>::F, PROD> Spill;
    ExactBinStrided bin;
    unsigned nz;
    __device__ __forceinline__ void init(long long *area, int thread, int threads, long long *digits, bool shared)
    {
        bin.p = (double *)area + thread;
        bin.stride = threads;
        for (int b = 0; b < 16; b++)
            bin[b] = 0.0;
        nz = 0;
        Spill::spill_init(digits, shared);
    }
    __device__ __forceinline__ void add_bits(unsigned bits)
    {
        bin[(bits >> 27) & 15u] += (double)__uint_as_float(bits);
        nz |= bits ^ 0x80000000u;
    }
    __device__ __forceinline__ void take(float x, float) { add_bits(__float_as_uint(x)); }
    // float16 products: exact in float32 (22 significant bits, exponents -48 .. 32)
    __device__ __forceinline__ void take(half_t x, half_t y) { add_bits(__float_as_uint(to_float(x) * to_float(y))); }
    // bfloat16 products (16 significant bits): exact in a float from 2^-125 up (then its precision
    // reaches 2^-149), and IEEE's product where a factor is zero, infinite or NaN; the others (tiny
    // products, and finite ones past float's range) go to the digits whole.
    __device__ __forceinline__ void take(bf16_t x, bf16_t y)
    {
        const float fx = to_float(x), fy = to_float(y);
        const unsigned bits = __float_as_uint(fx * fy), e = bits >> 23 & 255u;
        const bool zx = (x.bits & 0x7fffu) == 0 || (x.bits & 0x7f80u) == 0x7f80u,
                   zy = (y.bits & 0x7fffu) == 0 || (y.bits & 0x7f80u) == 0x7f80u;
        if ((e >= 2u && e != 255u) || zx || zy)
            add_bits(bits);
        else
            Spill::whole(fx, fy, true);
    }
    template <class S> __device__ __forceinline__ void flush(S &w, int lane)
    {
        __syncwarp(); // the lanes' spills (shared atomics) before lane 0's additions
        for (int b = 0; b < 16; b++) {
            const double v = exact_warp_sum(bin[b]); // exact: the warp's chunk is at most EXACT_BIN_TERMS terms
            bin[b] = 0.0;
            if (lane == 0 && v != 0.0)
                exact_add_value(w, v);
        }
    }
    __device__ __forceinline__ unsigned flags() const { return Spill::fl | (nz ? EXACT_NOT_NEG_ZERO : 0u); }
    // the bins' infinities and NaNs reach the warp's state through the flushes; the terms sent whole, here
    __device__ __forceinline__ float special() const { return Spill::sp; }
    template <class S> __device__ __forceinline__ void lane_flush(S &s)
    {
        for (int b = 0; b < 16; b++) {
            exact_add_value(s, bin[b]);
            bin[b] = 0.0;
        }
        exact_normalize(s);
    }
};

// bfloat16 terms: 30 float bins a lane, chosen by the exponent's top five
// bits, and a double for the rest. A bin's terms span 8 binades of 8-bit
// significands (below 32640 units of the bin's least place), so a float
// holds the exact sum of the 2^9 + 1 a lane takes between flushes (its share
// of a chunk, and one of a chunk's tail). Half the shared memory a
// term of ExactBins' doubles, and no conversion. Terms from 2^113 (where 2^9
// of them could overflow a float), infinities and NaNs add to the double
// `top` (multiples of 2^106 below 2^128: 31 bits for 2^9 terms).
template <> struct ExactFront<bf16_t, false, EXACT_FRONT_FLOAT_BINS> {
    // a lane's terms between flushes: its share of a chunk, and one of the chunk's scalar tail
    static_assert((EXACT_BIN_TERMS / 32 + 1) * 32640 < (1 << 24), "a float bin's bound");
    enum { BINS = 30 };
    float *bin;
    int stride;
    double top;
    unsigned nz;
    __device__ __forceinline__ void init(long long *area, int thread, int threads, long long *, bool)
    {
        bin = (float *)area + thread;
        stride = threads;
        for (int b = 0; b < BINS; b++)
            bin[b * stride] = 0.0f;
        top = 0.0;
        nz = 0;
    }
    __device__ __forceinline__ void take(bf16_t x, bf16_t)
    {
        const unsigned bits = (unsigned)x.bits << 16, b = bits >> 26 & 31u;
        nz |= bits ^ 0x80000000u;
        if (b < BINS)
            bin[b * stride] += __uint_as_float(bits);
        else
            top += (double)__uint_as_float(bits);
    }
    // The warp's bins into its state (lane 0), the bins in use only: a bin's
    // 32 lanes sum exactly in a double (at most 29 bits; top's, 36).
    template <class S> __device__ __forceinline__ void flush(S &w, int lane)
    {
        unsigned used = top != 0.0 ? 1u << BINS : 0u;
        for (int b = 0; b < BINS; b++)
            used |= bin[b * stride] != 0.0f ? 1u << b : 0u;
        used = exact_warp_or(used);
        while (used) {
            const int b = __ffs(used) - 1;
            used &= used - 1u;
            const double v = exact_warp_sum(b < BINS ? (double)bin[b * stride] : top);
            if (b < BINS)
                bin[b * stride] = 0.0f;
            if (lane == 0 && v != 0.0)
                exact_add_value(w, v);
        }
        top = 0.0;
    }
    __device__ __forceinline__ unsigned flags() const { return nz ? EXACT_NOT_NEG_ZERO : 0u; }
    __device__ __forceinline__ float special() const { return 0.0f; } // the flushes put it in the warp's state
    template <class S> __device__ __forceinline__ void lane_flush(S &s)
    {
        for (int b = 0; b < BINS; b++) {
            exact_add_value(s, (double)bin[b * stride]);
            bin[b * stride] = 0.0f;
        }
        exact_add_value(s, top);
        top = 0.0;
        exact_normalize(s);
    }
};


// Float64 terms and the products of float32 and float64 pairs: two
// doubles a lane, hi and lo, kept by TwoSum (Knuth): a term adds to hi, hi's
// rounding error to lo, and lo's rounding error (zero on ordinary data)
// spills to a state's digits, so hi + lo + the spills is the exact sum.
// TwoSum is exact unless a sum overflows, and a float64 product's rounding
// error (fma) is a double unless the product is tiny: terms outside those
// ranges, infinities and NaNs go to the digits whole. The spills go to the
// warp's state (shared memory, by atomics) or to the lane's own (lane units).
template <class T, bool PROD>
struct ExactFront<T, PROD, EXACT_FRONT_PAIR> : ExactSpill<typename ExactPlan<T, PROD>::F, PROD> {
    typedef typename ExactPlan<T, PROD>::F F;
    typedef ExactSpill<F, PROD> Spill;
    using Spill::whole;
    using Spill::sp;
    using Spill::fl;
    enum { ERR = PROD && sizeof(T) == 8 }; // float64 products' rounding errors: a pair of their own
    double hi, lo, ehi, elo;
    u64 nz; // ORs each term's bits with -0.0's flipped, as ExactBins' nz
    __device__ __forceinline__ void init(long long *, int, int, long long *digits, bool shared)
    {
        hi = lo = ehi = elo = 0.0;
        nz = 0;
        Spill::spill_init(digits, shared);
    }
    // TwoSum twice into (h, l); __dadd_rn and __dsub_rn are never fused with a product.
    __device__ __forceinline__ void add(double t, double &h, double &l)
    {
        const double s = __dadd_rn(h, t), b = __dsub_rn(s, h);
        const double e = __dadd_rn(__dsub_rn(h, __dsub_rn(s, b)), __dsub_rn(t, b));
        h = s;
        const double s2 = __dadd_rn(l, e), b2 = __dsub_rn(s2, l);
        const double e2 = __dadd_rn(__dsub_rn(l, __dsub_rn(s2, b2)), __dsub_rn(e, b2));
        l = s2;
        if (e2 != 0.0)
            whole(e2, e2, false);
    }
    // float64 terms below 2^1000 (zeros and subnormals included): 2^14 of them sum below 2^1014.
    __device__ __forceinline__ void take(double x, double y)
    {
        const u64 bx = (u64)__double_as_longlong(x);
        if (!PROD) {
            nz |= bx ^ 0x8000000000000000ull;
            if (((bx >> 52) & 2047u) < 1023u + 1000u)
                add(x, hi, lo);
            else
                whole(x, x, true);
            return;
        }
        // products 2^-960 .. 2^1000 of normal numbers: the rounding error fma gives is exact
        const u64 by = (u64)__double_as_longlong(y);
        const int ex = (int)((bx >> 52) & 2047u), ey = (int)((by >> 52) & 2047u), e = ex + ey - 2 * 1023;
        if (ex != 0 && ey != 0 && ex != 2047 && ey != 2047 && e >= -960 && e < 1000) {
            const double p = __dmul_rn(x, y);
            nz |= 1u;
            add(p, hi, lo);
            // the error (below 2^-53 of p, its bits reaching 2^-106 of p) in its own pair: beside
            // the products' sum, whose low part has coarser bits, it would spill every time
            add(__fma_rn(x, y, -p), ehi, elo);
        } else {
            whole(x, y, true);
        }
    }
    // float32 products: exact in a double (48 bits, 2^-298 .. 2^256).
    __device__ __forceinline__ void take_product(float x, float y)
    {
        const double p = __dmul_rn((double)x, (double)y);
        const u64 bp = (u64)__double_as_longlong(p);
        nz |= bp ^ 0x8000000000000000ull;
        if (((bp >> 52) & 2047u) != 2047u)
            add(p, hi, lo);
        else
            whole(x, y, true);
    }
    __device__ __forceinline__ void take(float x, float y) { take_product(x, y); }
    // The lane's pair into the digits (the warp's: each lane by atomics).
    template <class S> __device__ __forceinline__ void flush(S &, int)
    {
        whole(hi, hi, false);
        whole(lo, lo, false);
        if (ERR) {
            whole(ehi, ehi, false);
            whole(elo, elo, false);
        }
        hi = lo = ehi = elo = 0.0;
    }
    __device__ __forceinline__ unsigned flags() const { return fl | (nz ? EXACT_NOT_NEG_ZERO : 0u); }
    __device__ __forceinline__ float special() const { return sp; }
    template <class S> __device__ __forceinline__ void lane_flush(S &s)
    {
        flush(s, 0);
        exact_normalize(s);
    }
};

// Threads a block and its shared memory: a lane's bins (16 doubles or 32 floats, for the
// fronts that have them) and a warp's state.
template <class T, bool PROD, int BLOCK> struct ExactShape {
    typedef typename ExactPlan<T, PROD>::F F;
    enum {
        FRONT = ExactPlan<T, PROD>::FRONT,
        WARPS = BLOCK / 32,
        LANE_WORDS = FRONT == EXACT_FRONT_BINS || FRONT == EXACT_FRONT_FLOAT_BINS ? 16 : 0, // 16 doubles or 32 floats
        SHARED = (LANE_WORDS * BLOCK + WARPS * F::DIGITS) * 8
    };
};

// The elements of [c0, c1) of an output at base, a warp's chunk: lane by lane,
// 16-byte vectors where the data allow. PREFETCH (sums of terms): a lane's
// next two vectors load while it takes the current two; the products'
// fronts hold too many registers for it (measured slower).
template <class T, bool TWO, bool PREFETCH, class Front>
__device__ __forceinline__ void exact_chunk(const ExactJob &j, const T *x, const T *y, long long base, u64 c0, u64 c1,
                                           bool contiguous, int lane, Front &f)
{
    static_assert(!(PREFETCH && TWO), "the prefetch loads x only");
    if (contiguous) {
        enum { V = 16 / sizeof(T) };
        const T *px = x + base + c0, *py = y + base + c0;
        const u64 nv = (c1 - c0) / V;
        const uint4 *vx = (const uint4 *)px, *vy = (const uint4 *)py;
        u64 v = lane;
        if (PREFETCH && v + 32 < nv) {
            uint4 a0 = __ldg(vx + v), a1 = __ldg(vx + v + 32);
            for (;;) {
                const u64 nx = v + 64;
                const bool more = nx + 32 < nv;
                uint4 n0 = a0, n1 = a1;
                if (more) {
                    n0 = __ldg(vx + nx);
                    n1 = __ldg(vx + nx + 32);
                }
                const T *ea0 = (const T *)&a0, *ea1 = (const T *)&a1;
#pragma unroll
                for (int k = 0; k < V; k++)
                    f.take(ea0[k], ea0[k]);
#pragma unroll
                for (int k = 0; k < V; k++)
                    f.take(ea1[k], ea1[k]);
                v = nx;
                if (!more)
                    break;
                a0 = n0, a1 = n1;
            }
        }
        for (; !PREFETCH && v + 32 < nv; v += 64) { // two vectors in flight a lane
            uint4 a0 = __ldg(vx + v), a1 = __ldg(vx + v + 32), b0 = a0, b1 = a1;
            if (TWO) {
                b0 = __ldg(vy + v);
                b1 = __ldg(vy + v + 32);
            }
            const T *ea0 = (const T *)&a0, *ea1 = (const T *)&a1, *eb0 = (const T *)&b0, *eb1 = (const T *)&b1;
#pragma unroll
            for (int k = 0; k < V; k++)
                f.take(ea0[k], eb0[k]);
#pragma unroll
            for (int k = 0; k < V; k++)
                f.take(ea1[k], eb1[k]);
        }
        for (; v < nv; v += 32) {
            uint4 a = __ldg(vx + v), b = a;
            if (TWO)
                b = __ldg(vy + v);
            const T *ea = (const T *)&a, *eb = (const T *)&b;
#pragma unroll
            for (int k = 0; k < V; k++)
                f.take(ea[k], eb[k]);
        }
        for (u64 i = nv * V + lane; i < c1 - c0; i += 32)
            f.take(px[i], TWO ? py[i] : px[i]);
        return;
    }
    if (j.view == EXACT_VIEW_GENERAL) {
        for (u64 i = c0 + lane; i < c1; i += 32) {
            const long long at = base + exact_red_offset(j, i);
            f.take(x[at], TWO ? y[at] : x[at]);
        }
        return;
    }
    const long long stride = j.view == EXACT_VIEW_SEGMENTS ? 1 : j.red.n ? j.red.stride[0] : 0;
    for (u64 i = c0 + lane; i < c1; i += 32) {
        const long long at = base + (long long)i * stride;
        f.take(x[at], TWO ? y[at] : x[at]);
    }
}

// A lane's own state of output o (n terms) at its end: the result, or
// (STATE) the output's record.
template <class T, int OP, bool STATE, class F>
__device__ __forceinline__ void exact_lane_emit(const ExactJob &j, u64 o, u64 n, const Exact<F> &s)
{
    if (STATE) {
        long long *rec = (long long *)j.out + o * (ExactRecord<F>::WORDS + 1);
        rec[0] = (long long)n;
        for (int d = 0; d < F::DIGITS; d++)
            rec[1 + d] = s.d[d];
        rec[1 + F::DIGITS] = (long long)((u64)s.flags << 32 | __float_as_uint(s.special));
    } else {
        exact_store_result<T, OP>(j.out, exact_out_offset(j, o), s, n, j.result);
    }
}

// exact_arrive for a lane's own part of output o (s normalized): the lane
// adds it into the output's accumulator and takes a ticket; the lane with
// the last ticket rounds.
template <class T, int OP, bool STATE, class F>
__device__ __forceinline__ void exact_lane_arrive(const ExactJob &j, u64 o, u64 n, Exact<F> &s)
{
    unsigned long long *acc = (unsigned long long *)j.states + o * ExactRecord<F>::WORDS;
    unsigned *meta = (unsigned *)(acc + F::DIGITS);
    for (int d = 0; d < F::DIGITS; d++)
        if (s.d[d] != 0)
            atomicAdd(acc + d, (unsigned long long)s.d[d]);
    if (s.special != 0.0f)
        atomicAdd((float *)meta, s.special);
    if (s.flags)
        atomicOr(meta + 1, s.flags);
    __threadfence();
    if (atomicAdd(j.tickets + o, 1u) != j.splits - 1u)
        return;
    __threadfence();
    for (int d = 0; d < F::DIGITS; d++)
        s.d[d] = (long long)atomicExch(acc + d, 0ull);
    s.special = __uint_as_float(atomicExch(meta, 0u));
    s.flags = atomicExch(meta + 1, 0u);
    atomicExch(j.tickets + o, 0u);
    exact_normalize(s);
    exact_lane_emit<T, OP, STATE>(j, o, n, s);
}

// Output o, whole, by one warp (a long output met by the lane units): the
// warp's state in `digits` (shared memory), a chunk at a time.
template <class T, int OP, int BLOCK, bool STATE, bool PROD, bool TWO, class F, class Front>
__device__ __forceinline__ void exact_warp_output(const ExactJob &j, u64 o, long long base, u64 len, int lane,
                                                  long long *digits, long long *lanes)
{
    enum { CHUNK = ExactPlan<T, PROD>::CHUNK };
    const T *x = (const T *)j.in, *y = TWO ? (const T *)j.in2 : x;
    Exact<F, ExactStrided> w;
    w.d.p = digits;
    w.d.stride = 1;
    for (int i = lane; i < F::DIGITS; i += 32)
        w.d[i] = 0;
    w.special = 0.0f;
    w.flags = 0;
    Front f;
    f.init(lanes, threadIdx.x, BLOCK, digits, true);
    __syncwarp();
    const bool contiguous = (j.view == EXACT_VIEW_SEGMENTS ||
                             (j.view == EXACT_VIEW_LINEAR && j.red.n == 1 && j.red.stride[0] == 1)) &&
                            (((unsigned long long)(x + base)) & 15u) == 0 &&
                            (!TWO || (((unsigned long long)(y + base)) & 15u) == 0);
    for (u64 c0 = 0; c0 < len; c0 += CHUNK) {
        const u64 c1 = c0 + CHUNK < len ? c0 + CHUNK : len;
        exact_chunk<T, TWO, !PROD>(j, x, y, base, c0, c1, contiguous, lane, f);
        f.flush(w, lane);
        __syncwarp();
        if (lane == 0)
            exact_normalize(w);
        __syncwarp();
    }
    const unsigned flags = exact_warp_or(f.flags() | w.flags) | (len ? EXACT_ANY : 0u);
    const float special = exact_warp_special(w.special + f.special());
    __syncwarp();
    if (lane == 0) {
        exact_normalize(w);
        w.special = special;
        w.flags = flags;
    }
    __syncwarp();
    exact_emit<T, OP, STATE>(j, o, len, w, lane);
    __syncwarp(); // the next output's warp state reuses the digits
}

// The bits of a finite nonzero double v rounded to nearest-even in R; with
// `off` nonzero, those of a value just above (off > 0) or just below
// (off < 0) |v| (R narrower than a double, v's significand above 1).
template <class R> __device__ __forceinline__ u64 exact_round_double(double v, int off)
{
    const u64 b = (u64)__double_as_longlong(v);
    const int ef = (int)(b >> 52 & 0x7ff);
    const u64 m = (b & ((1ull << 52) - 1)) | (ef ? 1ull << 52 : 0ull);
    return exact_round_scaled<R>(off < 0 ? m - 1 : m, (ef ? ef : 1) - 1075, off != 0, (long long)b < 0);
}

// The sum s (exact) of n terms, or their mean, rounded once into R: false
// where a double quotient cannot tell the mean's rounding (near underflow).
template <class R, int OP> __device__ __forceinline__ bool exact_quick_bits(double s, u64 n, u64 &bits)
{
    if (n == 0) { // no terms: +0.0, and a mean of none is NaN (exact_round, exact_mean)
        bits = OP == EXACT_OP_MEAN ? exact_nan_bits<R>() : 0ull;
        return true;
    }
    if (s == 0.0) { // -0.0 only when every term is -0.0 (s started at -0.0); the mean keeps the sign
        bits = __double_as_longlong(s) < 0 ? exact_sign_bit<R>() : 0ull;
        return true;
    }
    if (OP == EXACT_OP_SUM) { // s is exact: a conversion rounds it once (subnormals and overflow included)
        if (sizeof(R) == 8)
            bits = (u64)__double_as_longlong(s);
        else if (exact_same<R, float>::V)
            bits = __float_as_uint((float)s);
        else
            bits = exact_round_double<R>(s, 0);
        return true;
    }
    const double q = s / (double)n; // rounded once: the mean when R is a double
    if (sizeof(R) == 8) {
        bits = (u64)__double_as_longlong(q);
        return true;
    }
    if (!(fabs(q) >= 0x1p-960))
        return false;
    // q + r / n is the mean, r exactly; R's midpoints are doubles, so only the side of q on which
    // the mean lies can matter, and only when q is one
    const double r = fma(-q, (double)n, s);
    bits = exact_round_double<R>(q, r == 0.0 ? 0 : (r > 0.0) == (s > 0.0) ? 1 : -1);
    return true;
}

// The unsigned word of a result's bits.
template <int BYTES> struct ExactWord;
template <> struct ExactWord<2> { typedef unsigned short U; };
template <> struct ExactWord<4> { typedef unsigned U; };
template <> struct ExactWord<8> { typedef u64 U; };

// V neighbouring outputs' results of type R (exact_quick_bits of their sums s, n terms each) at out[at],
// out[at + 1], ...: 16-byte stores (8-byte ones for 8 bytes of results) where out[at] is on such a boundary
// (outputs of one term write as many bytes as they read; V stores of one result a lane, 16 bytes apart,
// wrote each sector of the L2 V times, which bound them, bench/NOTES.md); every result store of
// exact_quick's kernels comes here (V 1 for one). False, with nothing stored, where exact_quick_bits
// cannot tell one.
template <class R, int OP, unsigned V>
__device__ __forceinline__ bool exact_quick_store_vector(void *out, long long at, const double (&s)[V], u64 n)
{
    if constexpr (V == 1) { // one result: its own store (through the union, float64 means spilled, ptxas)
        u64 bits;
        if (!exact_quick_bits<R, OP>(s[0], n, bits))
            return false;
        exact_store<R>(out, at, bits);
        return true;
    }
    typedef typename ExactWord<sizeof(R)>::U U;
    constexpr unsigned BYTES = V * sizeof(U), W = BYTES >= 16 ? 16 : BYTES == 8 ? 8 : 0;
    union {
        U b[V];
        uint4 w[BYTES / 16 ? BYTES / 16 : 1];
        uint2 h;
    } u;
#pragma unroll
    for (unsigned q = 0; q < V; q++) {
        u64 bits;
        if (!exact_quick_bits<R, OP>(s[q], n, bits))
            return false;
        u.b[q] = (U)bits;
    }
    U *p = (U *)out + at;
    if (W == 16 && ((unsigned long long)p & 15u) == 0) {
#pragma unroll
        for (unsigned c = 0; c < BYTES / 16; c++)
            ((uint4 *)p)[c] = u.w[c];
    } else if (W == 8 && ((unsigned long long)p & 7u) == 0) {
        *(uint2 *)p = u.h;
    } else {
#pragma unroll
        for (unsigned q = 0; q < V; q++)
            p[q] = u.b[q];
    }
    return true;
}

// exact_quick_store_vector into j.result's type, for V outputs whose results are out[at], out[at + 1], ...
template <class T, int OP, unsigned V>
__device__ __forceinline__ bool exact_quick_results(const ExactJob &j, long long at, const double (&s)[V], u64 len)
{
    if constexpr (exact_same<T, half_t>::V)
        if (j.result == CR_EXACT_R_FLOAT16)
            return exact_quick_store_vector<half_t, OP, V>(j.out, at, s, len);
    if constexpr (exact_same<T, bf16_t>::V)
        if (j.result == CR_EXACT_R_BFLOAT16)
            return exact_quick_store_vector<bf16_t, OP, V>(j.out, at, s, len);
    if constexpr (sizeof(T) <= 4)
        if (j.result == CR_EXACT_R_FLOAT32)
            return exact_quick_store_vector<float, OP, V>(j.out, at, s, len);
    return exact_quick_store_vector<double, OP, V>(j.out, at, s, len);
}

// Output o's result from s, the exact sum of its len terms of type T, into
// j.result's type at out[at]: false, with nothing stored, where
// exact_quick_bits cannot tell it.
template <class T, int OP> __device__ __forceinline__ bool exact_quick_result_at(const ExactJob &j, long long at, double s,
                                                                               u64 len)
{
    const double one[1] = {s};
    return exact_quick_results<T, OP, 1>(j, at, one, len);
}
// The same at output o's place.
template <class T, int OP> __device__ __forceinline__ bool exact_quick_result(const ExactJob &j, u64 o, double s, u64 len)
{
    return exact_quick_result_at<T, OP>(j, exact_out_offset(j, o), s, len);
}

// s + v into s by TwoSum, lost set where the addition was not exact (NaN
// where a term is not finite, which is not exact either).
__device__ __forceinline__ void exact_two_sum(double &s, double v, bool &lost)
{
    const double t = s + v, vt = t - s;
    lost |= (s - (t - vt)) + (v - vt) != 0.0;
    s = t;
}

// N terms into s. 16-bit terms meet first a pair at a time in float32, by
// TwoSum; where every pair's error is zero (it is unless one term is below
// about 2^-13 (float16) or 2^-16 (bfloat16) of the other), the pairs' sums
// go into the double, and otherwise each term. 16-bit terms arrive twice as
// fast as float32's, and a term's conversion and TwoSum take the FP64 pipe:
// a pair costs one of each instead of two (bench/NOTES.md, "16-bit terms in
// pairs"). A term that is not finite, or two bfloat16 terms whose sum
// overflows float32, make an error NaN: their terms go one by one, as before.
template <class T, unsigned N> __device__ __forceinline__ void exact_two_sum_terms(double &s, const T *v, bool &lost)
{
    if constexpr (sizeof(T) == 2) {
        static_assert(N % 2 == 0, "pairs");
        float f[N / 2];
        bool inexact = false;
#pragma unroll
        for (unsigned q = 0; q < N; q += 2) {
            const float x = widen<float, T>(v[q]), y = widen<float, T>(v[q + 1]);
            f[q / 2] = x + y;
            const float yf = f[q / 2] - x;
            inexact |= !((x - (f[q / 2] - yf)) + (y - yf) == 0.0f);
        }
        if (!inexact) {
#pragma unroll
            for (unsigned q = 0; q < N / 2; q++)
                exact_two_sum(s, (double)f[q], lost);
            return;
        }
    }
#pragma unroll
    for (unsigned q = 0; q < N; q++)
        exact_two_sum(s, widen<double, T>(v[q]), lost);
}

// A lane's output (splits 1, len > 0 terms) summed in a double by TwoSum:
// when no addition loses a bit (the terms span fewer bits than a double
// holds, as most float32, bfloat16 and float16 terms of one output do), the
// double is the exact sum, and the result is rounded from it without the
// exact state. False, with nothing written, otherwise (a lost bit, a NaN or
// an infinity), and the lane takes the exact state.
template <class T, int OP>
__device__ __forceinline__ bool exact_lane_quick(const ExactJob &j, const T *x, long long base, long long stride,
                                                 u64 len, u64 o)
{
    double s = -0.0;
    bool lost = false;
#pragma unroll 4
    for (u64 i = 0; i < len; i++) {
        const long long at = base + (j.view == EXACT_VIEW_GENERAL ? exact_red_offset(j, i) : (long long)i * stride);
        exact_two_sum(s, widen<double, T>(x[at]), lost);
    }
    return !lost && exact_quick_result<T, OP>(j, o, s, len);
}

// Outputs of a few elements (unit_warps == 0): a lane an output, a warp 32
// neighbouring outputs, split into j.splits parts of j.part elements (the
// planner splits only under the tests' force: columns in split lanes
// measured slower than warps, bench/NOTES.md). A lane's front flushes into a state of its own
// (local memory) every CHUNK / 32 terms (a warp lane's share of a chunk, the
// fronts' bound); the lane rounds it, or adds it into the output's
// accumulator (the last part rounds), or writes its part's record. A lane
// whose output, unsplit, has more than EXACT_LANE_LONG elements (a long
// segment among short ones) leaves it to the whole warp. State requests get
// warp units (the planner's), so the STATE path of the lanes runs in no test
// yet. This is part p of group g's outputs (32 g ... 32 g + 31); `quick`
// first tries a double (float64 terms, and GENERAL views: the others' short
// SUM and MEAN outputs take exact_quick first).
#define EXACT_LANE_LONG 1024
// After exact_quick, whose rows reach EXACT_LANE_LONG, the warp takes the
// marked outputs past this: a lane reading its own row of 1024 terms, 32 rows
// a load, thrashes the L1 (spread data, where every output is marked).
#define EXACT_RETRY_LONG 256
template <class T, int OP, int BLOCK, bool STATE, bool PROD, bool TWO, class F, class Front>
__device__ __forceinline__ void exact_lane_group(const ExactJob &j, u64 g, u64 p, bool quick, long long *lanes,
                                                 long long *digits)
{
    enum { CHUNK = ExactPlan<T, PROD>::CHUNK };
    const T *x = (const T *)j.in, *y = TWO ? (const T *)j.in2 : x;
    const int lane = threadIdx.x & 31;
    const long long stride = j.view == EXACT_VIEW_SEGMENTS ? 1 : j.red.n ? j.red.stride[0] : 0;
    const u64 o = g * 32 + lane;
    const bool live = o < j.nout;
    long long base = 0;
    u64 len = 0;
    if (live)
        exact_output(j, o, base, len, p == 0);
    const u64 p0 = p * j.part < len ? p * j.part : len;
    const u64 p1 = p0 + j.part < len ? p0 + j.part : len;
    const bool defer = live && j.splits == 1 && len > (j.retry ? EXACT_RETRY_LONG : EXACT_LANE_LONG);
    bool done = false;
    if constexpr (!STATE && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN))
        done = quick && live && !defer && j.splits == 1 && len > 0 && exact_lane_quick<T, OP>(j, x, base, stride, len, o);
    if (live && !defer && !done) {
        Exact<F> s;
        exact_init(s);
        Front f;
        f.init(lanes, threadIdx.x, BLOCK, &s.d[0], false);
        for (u64 c0 = p0; c0 < p1; c0 += CHUNK / 32) { // a warp's lane's share of a chunk: the fronts' bound
            const u64 c1 = c0 + CHUNK / 32 < p1 ? c0 + CHUNK / 32 : p1;
            for (u64 i = c0; i < c1; i++) {
                const long long at =
                    base + (j.view == EXACT_VIEW_GENERAL ? exact_red_offset(j, i) : (long long)i * stride);
                f.take(x[at], TWO ? y[at] : x[at]);
            }
            f.lane_flush(s);
        }
        s.special += f.special();
        s.flags |= f.flags() | (p1 > p0 ? EXACT_ANY : 0u);
        if (j.splits == 1) {
            exact_lane_emit<T, OP, STATE>(j, o, len, s);
        } else if (j.tickets) {
            exact_lane_arrive<T, OP, STATE>(j, o, len, s);
        } else {
            long long *rec = j.states + (o * j.splits + p) * ExactRecord<F>::WORDS;
            for (int d = 0; d < F::DIGITS; d++)
                rec[d] = s.d[d];
            rec[F::DIGITS] = (long long)((u64)s.flags << 32 | __float_as_uint(s.special));
        }
    }
    for (unsigned longs = exact_warp_or(defer ? 1u << lane : 0u); longs; longs &= longs - 1u) {
        const u64 k = g * 32 + (unsigned)(__ffs((int)longs) - 1);
        long long kb;
        u64 kl;
        exact_output(j, k, kb, kl, false);
        exact_warp_output<T, OP, BLOCK, STATE, PROD, TWO, F, Front>(j, k, kb, kl, lane, digits, lanes);
    }
}

// The lane units' warps over the groups of 32 outputs and their parts; or,
// after exact_quick (j.retry set), over the groups whose retry bit is set:
// each warp takes an equal range of the bits (so that a wave shares out the
// groups of a run in which every output needs the exact state, as it does
// without exact_quick), reads the range's words a word a lane, and clears
// each set bit of its own once it has summed that bit's groups.
template <class T, int OP, int BLOCK, bool STATE, bool PROD, bool TWO, class F, class Front>
__device__ __forceinline__ void exact_lanes(const ExactJob &j, long long *lanes, long long *digits)
{
    enum { WARPS = BLOCK / 32 };
    const int lane = threadIdx.x & 31;
    const u64 first = (u64)blockIdx.x * WARPS + (threadIdx.x >> 5), warps = (u64)gridDim.x * WARPS;
    const u64 groups = (j.nout + 31) / 32;
    if (j.retry) {
        const u64 bits = (groups + j.per_bit - 1) / j.per_bit, per = (bits + warps - 1) / warps;
        const u64 b0 = first * per < bits ? first * per : bits, b1 = b0 + per < bits ? b0 + per : bits;
        for (u64 w0 = b0 / 32; w0 * 32 < b1; w0 += 32) { // 32 words at a time, a lane each
            const u64 wk = w0 + (unsigned)lane;
            unsigned w = wk * 32 < b1 ? j.retry[wk] : 0u;
            if (wk * 32 < b0) // the range's first word: bits below b0 are another warp's
                w &= ~0u << (b0 % 32);
            if (wk * 32 + 32 > b1) // its last: bits from b1 on are another warp's
                w &= (b1 % 32) ? ~(~0u << (b1 % 32)) : ~0u;
            for (unsigned lanes_set = __ballot_sync(EXACT_FULL, w != 0u); lanes_set; lanes_set &= lanes_set - 1u) {
                const int l = __ffs((int)lanes_set) - 1;
                const unsigned word = __shfl_sync(EXACT_FULL, w, l);
                for (unsigned m = word; m; m &= m - 1u) {
                    const u64 bit = (w0 + (unsigned)l) * 32 + (unsigned)(__ffs((int)m) - 1), g0 = bit * j.per_bit;
                    for (u64 g = g0; g < g0 + j.per_bit && g < groups; g++)
                        exact_lane_group<T, OP, BLOCK, STATE, PROD, TWO, F, Front>(j, g, 0, false, lanes, digits);
                }
                if (lane == 0)
                    atomicAnd(j.retry + w0 + (unsigned)l, ~word); // this warp's bits of the word, summed
            }
        }
        return;
    }
    for (u64 u = first; u < groups * j.splits; u += warps) // the same for the warp
        exact_lane_group<T, OP, BLOCK, STATE, PROD, TWO, F, Front>(
            j, u / j.splits, u % j.splits, sizeof(T) == 8 || j.view == EXACT_VIEW_GENERAL, lanes, digits);
}

// Short SUM and MEAN outputs of float16, bfloat16 and float32 terms
// (unsplit lane units), first in doubles: j.group lanes an output (a power
// of two up to 32; a group's lanes take every j.group-th term, or with
// j.vec every j.group-th 16-byte vector, then merge by shuffles),
// EXACT_QUICK_K outputs a lane at a time, so that a lane has as many loads
// in flight: four terms of 4 bytes or less were too few to hide the
// memory's latency (bench/NOTES.md). Every addition is a TwoSum: where none lost a
// bit, the double is the exact sum and is rounded once into the result
// (exact_quick_result). A group of 32 outputs with an output that a double
// cannot sum (a lost bit, a NaN or an infinity, a mean near underflow, an
// output past EXACT_LANE_LONG terms a lane) sets its bit in j.retry, and
// exact_reduce_lanes sums that group's outputs in the exact state. Without
// shared memory and with few registers, the kernel keeps the SM full. Views
// LINEAR and SEGMENTS (GENERAL's offsets go to the lanes).
#define EXACT_QUICK_K 4

// The terms of each piece of a listed segment of n terms: j.long_piece, or
// more where that would make over `most` pieces.
__device__ __forceinline__ u64 exact_piece_len(const ExactJob &j, u64 n, unsigned most)
{
    const u64 least = (n + most - 1) / most;
    return least > j.long_piece ? least : j.long_piece;
}

// exact_quick's rows of whole 16-byte vectors: lane sub of a group of G
// takes every G-th vector of its K outputs (len terms from base, a multiple
// of the vector), K vectors in flight.
template <class T, int K>
__device__ __forceinline__ void exact_quick_vectors(const T *x, const long long (&base)[K], const unsigned (&len)[K],
                                                    unsigned most, unsigned sub, unsigned G, double (&s)[K],
                                                    bool (&lost)[K])
{
    constexpr unsigned V = 16 / sizeof(T);
    constexpr unsigned NEG0 = sizeof(T) == 4 ? 0x80000000u : 0x80008000u; // -0.0 in each of a word's terms
    for (unsigned i = sub; i * V < most; i += G) {
        uint4 w[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            w[k].x = w[k].y = w[k].z = w[k].w = NEG0; // past output k's terms: -0.0, which adds nothing
            if (i * V < len[k])
                w[k] = __ldg((const uint4 *)(x + base[k] + (long long)i * V));
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            exact_two_sum_terms<T, V>(s[k], reinterpret_cast<const T *>(&w[k]), lost[k]);
        }
    }
}

// exact_quick's segments in 16-byte lines (j.vec 4, the planner's where the input is aligned and its extent
// measured): lane sub of a group of G takes every G-th line that holds one of its K outputs' terms (len from
// base), K lines in flight; the line's other terms become -0.0, which adds nothing. A line puts four times a
// term's bytes in flight a load, which segments of a few dozen terms need (bench/NOTES.md, "Segments in
// lines"). A line lies in the input's elements [0, limit) but for the input's last, whose terms are read one
// by one.
template <class T, int K>
__device__ __forceinline__ void exact_quick_lines(const T *x, u64 limit, const long long (&base)[K],
                                                 const unsigned (&len)[K], unsigned sub, unsigned G, double (&s)[K],
                                                 bool (&lost)[K])
{
    constexpr unsigned V = 16 / sizeof(T), TW = 4 / sizeof(T); // terms a line, a 32-bit word
    constexpr unsigned NEG0 = sizeof(T) == 4 ? 0x80000000u : 0x80008000u; // -0.0 in each of a word's terms
    const uint4 *lines_of = (const uint4 *)x;
    unsigned line[K], at[K], most = 0; // output k's first line (the planner's: fewer than 2^32 lines); at: its whole
                                       // lines, and (from bit 29) where its first term lies in the first
#pragma unroll
    for (int k = 0; k < K; k++) {
        const long long first = base[k] & ~(long long)(V - 1); // the input starts on a line
        const unsigned lo = (unsigned)(base[k] - first), lines = len[k] ? (lo + len[k] + V - 1) / V : 0u;
        const u64 whole = (limit - (u64)first) / V; // lines before the input's end (a segment ends at limit or before)
        line[k] = (unsigned)(first / V);
        at[k] = (whole < lines ? (unsigned)whole : lines) | lo << 29;
        most = (at[k] & 0x1fffffffu) > most ? at[k] & 0x1fffffffu : most;
        // the terms of a last line that passes the input's end, one by one
        if (sub == 0 && whole < lines)
            for (unsigned q = whole ? 0u : lo; q < lo + len[k] - (unsigned)whole * V; q++)
                exact_two_sum(s[k], widen<double, T>(x[first + (long long)whole * V + q]), lost[k]);
    }
    for (unsigned i = sub; i < most; i += G) {
        uint4 w[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            w[k].x = w[k].y = w[k].z = w[k].w = NEG0;
            if (i < (at[k] & 0x1fffffffu))
                w[k] = __ldg(lines_of + (line[k] + i));
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            // the line's terms [lo, hi) are output k's (a line past its lines is -0.0 whatever it keeps)
            const unsigned lo = i == 0 ? at[k] >> 29 : 0u, end = (at[k] >> 29) + len[k] - i * V,
                           hi = end < V ? end : V;
            const unsigned keep = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
            unsigned *word = reinterpret_cast<unsigned *>(&w[k]);
#pragma unroll
            for (unsigned q = 0; q < 4; q++) {
                unsigned m;
                if constexpr (TW == 1)
                    m = keep >> q & 1u ? ~0u : 0u;
                else
                    m = (keep >> 2 * q & 1u ? 0xffffu : 0u) | (keep >> (2 * q + 1) & 1u ? 0xffff0000u : 0u);
                word[q] = (word[q] & m) | (NEG0 & ~m);
            }
            const T *e = reinterpret_cast<const T *>(&w[k]);
#pragma unroll
            for (unsigned q = 0; q < V; q++)
                exact_two_sum(s[k], widen<double, T>(e[q]), lost[k]);
        }
    }
}

// exact_quick's columns of whole 16-byte vectors (j.vec 2, the planner's:
// neighbouring outputs neighbours in memory, everything aligned; outputs of
// one term too): a lane takes V neighbouring outputs, a 16-byte vector a
// row, four rows in flight; a warp 32 V outputs. A lane's outputs are in one
// group of 32 (32 is a multiple of V); where they are neighbours in the
// output too, their results leave in 16-byte stores.
template <class T, int OP> __device__ __forceinline__ void exact_quick_vector_columns(const ExactJob &j)
{
    enum { WARPS = 256 / 32 };
    constexpr unsigned V = 16 / sizeof(T), K = V == 8 ? 2 : 4; // 16-bit terms: eight sums a lane (two rows in flight)
    const T *x = (const T *)j.in;
    const unsigned lane = threadIdx.x & 31;
    const long long stride = j.red.stride[0];
    const unsigned len = (unsigned)j.len; // a lane's outputs: at most EXACT_LANE_LONG terms (the planner's)
    const u64 vectors = j.nout / V;
    // a lane's V outputs are neighbours in the output too, output o at o (one kept dimension: the general
    // offset's divisions here would raise the kernel's registers, bench/NOTES.md)
    const bool together = j.kept.n == 1 && j.kept.out_stride[0] == 1;
    for (u64 w = (u64)blockIdx.x * WARPS + (threadIdx.x >> 5); w * 32 < vectors; w += (u64)gridDim.x * WARPS) {
        const u64 o0 = (w * 32 + lane) * V;
        if (o0 >= j.nout)
            continue;
        const uint4 *at = (const uint4 *)(x + exact_in_offset(j, o0));
        const long long step = stride / (long long)V; // rows of a column, in vectors
        double s[V];
        bool lost = false;
#pragma unroll
        for (unsigned q = 0; q < V; q++)
            s[q] = -0.0; // -0.0 adds nothing and keeps a sum of -0.0 terms -0.0
        unsigned i = 0;
        for (; i + K <= len; i += K) {
            uint4 v[K];
#pragma unroll
            for (unsigned k = 0; k < K; k++) // loads first: K in flight
                v[k] = __ldg(at + (long long)(i + k) * step);
#pragma unroll
            for (unsigned k = 0; k < K; k++) {
                const T *e = reinterpret_cast<const T *>(&v[k]);
#pragma unroll
                for (unsigned q = 0; q < V; q++)
                    exact_two_sum(s[q], widen<double, T>(e[q]), lost);
            }
        }
        for (; i < len; i++) {
            const uint4 v = __ldg(at + (long long)i * step);
            const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
            for (unsigned q = 0; q < V; q++)
                exact_two_sum(s[q], widen<double, T>(e[q]), lost);
        }
        bool bad = lost;
        if (!bad && together) {
            bad = !exact_quick_results<T, OP, V>(j, (long long)o0, s, len);
        } else {
#pragma unroll
            for (unsigned q = 0; q < V; q++)
                bad = bad || !exact_quick_result<T, OP>(j, o0 + q, s[q], len);
        }
        if (bad) // this lane's outputs' group, for the exact lanes (rare but for spread data)
            exact_mark(j, o0 / 32);
    }
}

// exact_quick's rows of L terms, V / L of them a 16-byte vector (j.vec 3, the planner's: L = j.len of 2, 4
// or 8 dividing V; one kept dimension, the rows neighbours, everything aligned): a lane takes K vectors at
// once, 32 apart (the warp's loads whole lines), sums each row of each by TwoSum and stores the vector's
// V / L results together where the output's stride is 1. In exact_quick's groups, an output's bookkeeping
// cost more instructions than a row of one vector has terms (bench/NOTES.md).
template <class T, int OP, unsigned L> __device__ __forceinline__ void exact_quick_packed_rows(const ExactJob &j)
{
    enum { WARPS = 256 / 32, K = 4 };
    constexpr unsigned V = 16 / sizeof(T), N = V / L;
    static_assert(L >= 2 && V % L == 0, "whole rows in a vector");
    const uint4 *x = (const uint4 *)j.in;
    const unsigned lane = threadIdx.x & 31;
    const u64 vectors = j.nout / N;
    const long long os = j.kept.out_stride[0];
    for (u64 w = (u64)blockIdx.x * WARPS + (threadIdx.x >> 5); w * 32 * K < vectors; w += (u64)gridDim.x * WARPS) {
        uint4 v[K];
#pragma unroll
        for (unsigned k = 0; k < K; k++) { // loads first: K in flight
            const u64 i = (w * K + k) * 32 + lane;
            v[k].x = v[k].y = v[k].z = v[k].w = 0u;
            if (i < vectors)
                v[k] = __ldg(x + i);
        }
#pragma unroll
        for (unsigned k = 0; k < K; k++) {
            const u64 i = (w * K + k) * 32 + lane;
            if (i >= vectors)
                continue;
            const T *e = reinterpret_cast<const T *>(&v[k]);
            double s[N];
            bool lost = false;
#pragma unroll
            for (unsigned q = 0; q < N; q++) {
                s[q] = -0.0; // -0.0 adds nothing and keeps a sum of -0.0 terms -0.0
#pragma unroll
                for (unsigned l = 0; l < L; l++)
                    exact_two_sum(s[q], widen<double, T>(e[q * L + l]), lost);
            }
            const u64 o0 = i * N;
            bool bad = lost;
            if (!bad && os == 1) {
                bad = !exact_quick_results<T, OP, N>(j, (long long)o0, s, L);
            } else {
#pragma unroll
                for (unsigned q = 0; q < N; q++) // one kept dimension: output o at o * os
                    bad = bad || !exact_quick_result_at<T, OP>(j, (long long)(o0 + q) * os, s[q], L);
            }
            if (bad) // this vector's outputs' group, for the exact lanes
                exact_mark(j, o0 / 32);
        }
    }
}

// A segment over long_len terms would hold its warp long after the others: its group's first lane lists it
// for exact_quick_long's blocks, in pieces (past long_cap, the exact lanes take it, in a warp), unless the
// list is full (so that the count, however many warps add, cannot wrap). As the list fills, a segment takes
// fewer, longer pieces (at most an eighth of the room the warp sees), so that a few huge segments leave room
// for the rest; which pieces a segment gets changes no bit. A warp lists its segments of one step together:
// one read of the count and one atomic, the pieces in lane order, and a group's G lanes write its entries
// side by side, so that a segment of many pieces costs its warp no chain of stores (bench/NOTES.md, "Segments
// in lines"). Called by the whole warp; true for the group whose segment is listed.
__device__ __forceinline__ bool exact_list_long(const ExactJob &j, u64 o, long long b, u64 n, unsigned lane,
                                                unsigned sub, unsigned G)
{
    const bool want = sub == 0 && n > j.long_len;
    const unsigned wants = __ballot_sync(EXACT_FULL, want);
    if (wants == 0u) // the same for the warp
        return false;
    const int reader = __ffs(wants) - 1;
    unsigned seen = lane == (unsigned)reader ? *(volatile unsigned *)j.long_count : 0u;
    seen = __shfl_sync(EXACT_FULL, seen, reader);
    if (seen >= j.long_cap) // the same for the warp: the list is full
        return false;
    u64 plen = 0;
    unsigned pieces = 0u;
    if (want) {
        const unsigned room = (j.long_cap - seen) / 8;
        plen = exact_piece_len(j, n, room < 1 ? 1 : room < CR_EXACT_LONG_PIECES ? room : CR_EXACT_LONG_PIECES);
        pieces = (unsigned)((n + plen - 1) / plen);
    }
    unsigned upto = pieces; // the warp's pieces up to this lane's, inclusive
    for (unsigned d = 1; d < 32; d <<= 1) {
        const unsigned v = __shfl_sync(EXACT_FULL, upto, lane >= d ? lane - d : lane);
        upto += lane >= d ? v : 0u;
    }
    const unsigned total = __shfl_sync(EXACT_FULL, upto, 31);
    unsigned first = lane == 0 ? atomicAdd(j.long_count, total) : 0u;
    first = __shfl_sync(EXACT_FULL, first, 0);
    // the group's segment (its first lane's), to its G lanes
    const unsigned lead = lane & ~(G - 1), at = __shfl_sync(EXACT_FULL, first + upto - pieces, lead),
                   np = __shfl_sync(EXACT_FULL, pieces, lead);
    plen = __shfl_sync(EXACT_FULL, plen, lead);
    const bool listed = np && at < j.long_cap && np <= j.long_cap - at;
    // pieces that do not all fit leave empty entries up to long_cap
    const unsigned end = listed ? at + np : np && at < j.long_cap ? j.long_cap : at;
    for (unsigned e = at + sub; e < end; e += G) {
        const u64 q = e - at, from = q * plen;
        LongEntry *p = j.longs + e;
        p->seg = o;
        p->begin = b + (long long)from;
        p->len = !listed ? 0 : n - from < plen ? n - from : plen;
        p->ticket = 0u;
        p->pad = listed ? (unsigned)q | np << 16 : 0u;
    }
    return listed;
}

// exact_quick's items, a warp's group of 32 outputs at one of the group's G steps, K a warp at a time: rows of a
// LINEAR view (SEGMENTS false), or segments (true: the long ones listed for exact_quick_long, aligned inputs
// read in lines). Segments have a kernel of their own: their listing and lines cost registers that the rows'
// occupancy would pay for.
template <class T, int OP, bool SEGMENTS> __device__ __forceinline__ void exact_quick_items(const ExactJob &j)
{
    enum { K = EXACT_QUICK_K, WARPS = 256 / 32 };
    const T *x = (const T *)j.in;
    // G is a power of two: shifts, not a 64-bit division by G an item (what bound short rows)
    const unsigned G = j.group, lg = __ffs(G) - 1, lane = threadIdx.x & 31, sub = lane & (G - 1), per = 32 >> lg;
    const long long stride = SEGMENTS ? 1 : j.red.stride[0];
    const u64 groups = (j.nout + 31) / 32, items = groups * G; // an item: a group's outputs a warp takes at once
    const u64 first = ((u64)blockIdx.x * WARPS + (threadIdx.x >> 5)) * K, step = (u64)gridDim.x * WARPS * K;
    for (u64 t0 = first; t0 < items; t0 += step) { // the same for the warp
        long long base[K];
        unsigned len[K], most = 0;
        bool fail[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const u64 t = t0 + k, o = (t >> lg) * 32 + (t & (G - 1)) * per + (lane >> lg);
            u64 n = 0;
            base[k] = 0;
            if (t < items && o < j.nout)
                exact_output(j, o, base[k], n, sub == 0);
            bool listed = false;
            if (SEGMENTS && j.long_len) // the same for the warp
                listed = exact_list_long(j, o, base[k], n, lane, sub, G);
            fail[k] = !listed && n > (j.long_len ? j.long_len : EXACT_LANE_LONG * G); // the exact lanes give it a warp
            len[k] = fail[k] || listed ? 0u : (unsigned)n;
            if (listed)
                base[k] = -1; // no terms, and no result here: exact_quick_long's (a segment starts at 0 or past it)
            most = len[k] > most ? len[k] : most;
        }
        double s[K];
        bool lost[K];
#pragma unroll
        for (int k = 0; k < K; k++)
            s[k] = -0.0, lost[k] = false; // -0.0 adds nothing and keeps a sum of -0.0 terms -0.0
        if (!SEGMENTS && j.vec == 1) // rows of whole, aligned 16-byte vectors (the planner's)
            exact_quick_vectors<T, K>(x, base, len, most, sub, G, s, lost);
        else if (SEGMENTS && j.vec == 4) // segments in aligned 16-byte lines (the planner's)
            exact_quick_lines<T, K>(x, j.guard.limit, base, len, sub, G, s, lost);
        else {
            for (unsigned i = sub; i < most; i += G) {
                double v[K];
#pragma unroll
                for (int k = 0; k < K; k++) // loads first: K in flight
                    v[k] = i < len[k] ? widen<double, T>(x[base[k] + (long long)i * stride]) : -0.0;
#pragma unroll
                for (int k = 0; k < K; k++)
                    exact_two_sum(s[k], v[k], lost[k]);
            }
        }
        for (unsigned off = G / 2; off > 0; off >>= 1)
#pragma unroll
            for (int k = 0; k < K; k++)
                exact_two_sum(s[k], __shfl_xor_sync(EXACT_FULL, s[k], off), lost[k]);
        const unsigned mine = (G == 32 ? EXACT_FULL : (1u << G) - 1u) << (lane & ~(G - 1));
#pragma unroll
        for (int k = 0; k < K; k++) {
            const bool any = (__ballot_sync(EXACT_FULL, lost[k] || fail[k]) & mine) != 0;
            const u64 t = t0 + k, o = (t >> lg) * 32 + (t & (G - 1)) * per + (lane >> lg);
            const bool bad = t < items && o < j.nout && sub == 0 && !(SEGMENTS && j.long_len && base[k] == -1) &&
                             (any || !exact_quick_result<T, OP>(j, o, s[k], len[k]));
            if (__ballot_sync(EXACT_FULL, bad) && lane == 0)
                exact_mark(j, t >> lg);
        }
    }
}

template <class T, int OP>
__global__ void __launch_bounds__(256) exact_quick(ExactJob j)
{
    static_assert(sizeof(T) <= 4 && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN), "exact_quick's terms");
    if (j.vec == 2) {
        exact_quick_vector_columns<T, OP>(j);
        return;
    }
    if (j.vec == 3 && j.len == 2) {
        exact_quick_packed_rows<T, OP, 2>(j);
        return;
    }
    if (j.vec == 3 && j.len == 4) {
        exact_quick_packed_rows<T, OP, 4>(j);
        return;
    }
    if constexpr (sizeof(T) == 2)
        if (j.vec == 3 && j.len == 8) {
            exact_quick_packed_rows<T, OP, 8>(j);
            return;
        }
    // any other vec 3 (not the planner's) is read by terms below: slower, the same sums
    exact_quick_items<T, OP, false>(j);
}

template <class T, int OP>
__global__ void __launch_bounds__(256, 3) exact_quick_segments(ExactJob j)
{
    static_assert(sizeof(T) <= 4 && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN), "exact_quick_segments' terms");
    exact_quick_items<T, OP, true>(j);
}

// The segments over j.long_len terms that exact_quick listed (SUM and MEAN
// of float16, bfloat16 and float32), in pieces of about j.long_piece terms:
// a block a piece, taken from a counter (a block that drew short pieces
// takes more), its threads summing 16-byte vectors in doubles by TwoSum,
// four in flight a thread, then merging by shuffles and, in warp order,
// through shared memory. A segment of several pieces meets at its first
// piece's ticket: each piece leaves its double in its entry, and the last
// to arrive adds them. Where no addition lost a bit, the double is the exact
// sum (whatever the order of the additions) and is rounded once; otherwise
// the segment's group is marked in j.retry, and the exact lanes (whose warp
// takes a long segment) sum it again. The last block out puts the list's
// three words back to zero.
template <class T, int OP>
__global__ void __launch_bounds__(256, 8) exact_quick_long(ExactJob j)
{
    enum { K = 4, BLOCK = 256, WARPS = BLOCK / 32 };
    constexpr unsigned V = 16 / sizeof(T);
    static_assert(sizeof(T) <= 4 && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN), "exact_quick_long's terms");
    __shared__ unsigned take;
    __shared__ double part[WARPS];
    __shared__ unsigned lost_in[WARPS];
    const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned count = *(volatile unsigned *)j.long_count, listed = count < j.long_cap ? count : j.long_cap;
    for (;;) {
        if (t == 0)
            take = atomicAdd(j.long_count + 1, 1u);
        __syncthreads();
        const unsigned e = take;
        if (e >= listed) // the same for the block
            break;
        const u64 seg = j.longs[e].seg, n = j.longs[e].len; // an empty entry has no terms
        const unsigned piece = j.longs[e].pad & 0xffffu, pieces = j.longs[e].pad >> 16;
        const T *x = (const T *)j.in + j.longs[e].begin;
        // terms up to the first 16-byte boundary, then whole vectors, then the rest (fewer than V)
        const u64 a = (u64)x;
        u64 head = a % sizeof(T) ? n : (16 - a % 16) % 16 / sizeof(T);
        head = head < n ? head : n;
        const u64 nv = (n - head) / V, tail = head + nv * V;
        const uint4 *xv = (const uint4 *)(x + head);
        double s[K];
        bool lost = false;
#pragma unroll
        for (int k = 0; k < K; k++)
            s[k] = -0.0; // adds nothing, and keeps a sum of -0.0 terms -0.0
        for (u64 i = t; i < nv; i += (u64)BLOCK * K) {
            uint4 w[K];
#pragma unroll
            for (int k = 0; k < K; k++) {
                w[k].x = w[k].y = w[k].z = w[k].w = 0u;
                if (i + (u64)k * BLOCK < nv)
                    w[k] = __ldg(xv + i + (u64)k * BLOCK);
            }
#pragma unroll
            for (int k = 0; k < K; k++) {
                const T *v = reinterpret_cast<const T *>(&w[k]);
                const bool in = i + (u64)k * BLOCK < nv;
#pragma unroll
                for (unsigned q = 0; q < V; q++)
                    exact_two_sum(s[k], in ? widen<double, T>(v[q]) : -0.0, lost);
            }
        }
        for (u64 i = t; i < head; i += BLOCK) // fewer than V, or (terms not aligned to their size) all
            exact_two_sum(s[0], widen<double, T>(x[i]), lost);
        for (u64 i = tail + t; i < n; i += BLOCK)
            exact_two_sum(s[1], widen<double, T>(x[i]), lost);
#pragma unroll
        for (int k = 1; k < K; k++)
            exact_two_sum(s[0], s[k], lost);
        for (unsigned off = 16; off > 0; off >>= 1)
            exact_two_sum(s[0], __shfl_xor_sync(EXACT_FULL, s[0], off), lost);
        const unsigned lw = exact_warp_or(lost ? 1u : 0u);
        if (lane == 0) {
            part[warp] = s[0];
            lost_in[warp] = lw;
        }
        __syncthreads();
        if (t == 0) {
            double sum = -0.0;
            bool bad = false;
            for (int w = 0; w < WARPS; w++) {
                exact_two_sum(sum, part[w], bad);
                bad |= lost_in[w] != 0u;
            }
            if (pieces == 1) {
                if (bad || !exact_quick_result<T, OP>(j, seg, sum, n))
                    exact_mark(j, seg / 32);
            } else if (pieces > 1) {
                volatile LongEntry *first = j.longs + (e - piece);
                j.longs[e].begin = __double_as_longlong(bad ? __longlong_as_double(0x7ff8000000000000ll) : sum);
                __threadfence(); // the double before the ticket
                if (atomicAdd((unsigned *)&first->ticket, 1u) == pieces - 1u) {
                    __threadfence(); // the ticket before the others' doubles
                    double total = -0.0; // a NaN (a piece that lost a bit) loses one here
                    bool lost = false;
                    u64 terms = 0;
                    for (unsigned q = 0; q < pieces; q++) {
                        exact_two_sum(total, __longlong_as_double(first[q].begin), lost);
                        terms += first[q].len;
                    }
                    if (lost || !exact_quick_result<T, OP>(j, seg, total, terms))
                        exact_mark(j, seg / 32);
                }
            }
        }
    }
    if (t == 0) {
        __threadfence(); // this block's reads of the count and the entries come before its done
        if (atomicAdd(j.long_count + 2, 1u) == gridDim.x - 1u) {
            atomicExch(j.long_count, 0u);
            atomicExch(j.long_count + 1, 0u);
            atomicExch(j.long_count + 2, 0u);
        }
    }
}

// Parts' doubles from..to of output o (a stride of nout apart), into s by
// TwoSum, eight loads in flight (into two sums: any order is the exact
// sum), lost set where a part is NaN (one that lost a bit) or an addition
// loses one.
__device__ __forceinline__ void exact_merge_parts(volatile double *parts, u64 from, u64 to, u64 nout, u64 o,
                                                  double &s, bool &lost)
{
    double m = -0.0;
    u64 q = from;
    for (; q + 8 <= to; q += 8) {
        double v[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            v[k] = parts[(q + k) * nout + o];
#pragma unroll
        for (int k = 0; k < 8; k += 2) {
            exact_two_sum(s, v[k], lost);
            exact_two_sum(m, v[k + 1], lost);
        }
    }
    for (; q < to; q++)
        exact_two_sum(s, parts[q * nout + o], lost);
    exact_two_sum(s, m, lost);
}

// Rows r, r + step, ... below r1 of a column (its first term at col, rows
// stride apart) into s by TwoSum, IN loads in flight (a lane's element is
// 2 or 4 bytes: few bytes a load, so many loads); STEP 1: a step of one,
// known to the compiler (32 columns a warp, the common case).
template <class T, int STEP>
__device__ __forceinline__ void exact_column_rows(const T *col, long long stride, u64 r, u64 r1, unsigned step,
                                                  double &s, bool &lost)
{
    enum { IN = 8 };
    const u64 by = STEP == 1 ? 1u : step;
    const long long d = (long long)by * stride;
    const T *p = col + (long long)r * stride;
    for (; r + (IN - 1) * by < r1; r += IN * by, p += IN * d) { // loads first: IN in flight
        T v[IN];
#pragma unroll
        for (int k = 0; k < IN; k++)
            v[k] = p[k * d];
#pragma unroll
        for (int k = 0; k < IN; k += 2) // a pair at a time: fewer registers than all IN at once
            exact_two_sum_terms<T, 2>(s, v + k, lost);
    }
    for (; r < r1; r += by, p += d)
        exact_two_sum(s, widen<double, T>(*p), lost);
}

// The warp's double s (lanes of `live` outputs) into parts[at], its fences,
// then a ticket: whether this warp is the last of `count` to arrive (then
// also past the ticket's fence, the ticket back at zero).
__device__ __forceinline__ bool exact_arrive_part(volatile double *parts, u64 at, bool live, double s, bool lost,
                                                  unsigned *ticket, u64 count)
{
    if (live)
        parts[at] = lost ? __longlong_as_double(0x7ff8000000000000ll) : s;
    __threadfence();
    __syncwarp();
    unsigned last = 0;
    if ((threadIdx.x & 31) == 0)
        last = atomicAdd(ticket, 1u) == (unsigned)(count - 1);
    if (!__shfl_sync(EXACT_FULL, last, 0))
        return false;
    __threadfence();
    __syncwarp(); // lane 0's fence before the other lanes' reads
    if ((threadIdx.x & 31) == 0)
        atomicExch(ticket, 0u); // kept at zero
    return true;
}

// Columns too long for the lanes (SUM and MEAN of float16, bfloat16 and
// float32; a reduced stride other than 1), first in doubles: a warp takes 32
// neighbouring outputs (a line of each row; with fewer than 32 outputs, each
// column's 32 / nout lanes take every (32 / nout)-th row, and meet by
// shuffles) over a part of j.part rows, eight rows in flight a lane, each
// addition a TwoSum. With j.splits parts an output, each part leaves its
// double (NaN where a bit was lost) in j.states and takes a ticket; the last
// of CR_EXACT_COLS_FAN parts sums them, and with more parts than that, each
// such chunk's double meets the others' likewise: no warp sums thousands of
// parts one after another (a few long columns' tail). The warp that
// finishes a group sets its bit in j.retry where an output needs the exact
// state, and clears it otherwise, so the bits need no zeroing (a bit a
// group: j.per_bit is 1), and exact_reduce (and exact_finish) then take
// only the marked outputs.
template <class T, int OP>
__global__ void __launch_bounds__(256) exact_quick_columns(ExactJob j)
{
    enum { WARPS = 256 / 32, FAN = CR_EXACT_COLS_FAN };
    static_assert(sizeof(T) <= 4 && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN), "exact_quick_columns' terms");
    const T *x = (const T *)j.in;
    const unsigned lane = threadIdx.x & 31;
    // fewer than 32 outputs: C columns, R = 32 / C lanes a column, each taking every R-th row
    const unsigned C = j.nout < 32 ? (unsigned)j.nout : 32u, R = 32u / C, col = lane % C, sub = lane / C;
    const long long stride = j.red.stride[0];
    const u64 groups = (j.nout + 31) / 32, S = j.splits, items = groups * S;
    // more than FAN parts: chunks of FAN parts meet first (a ticket each), then the chunks (one more)
    const u64 chunks = (S + FAN - 1) / FAN, per_group = chunks > 1 ? chunks + 1 : 1;
    volatile double *parts = (volatile double *)j.states, // read back by another block's warp
        *chunk_parts = parts + S * j.nout;
    for (u64 t = (u64)blockIdx.x * WARPS + (threadIdx.x >> 5); t < items; t += (u64)gridDim.x * WARPS) {
        const u64 g = t / S, p = t % S, o = g * 32 + col;
        const bool live = o < j.nout && sub < R, lead = live && sub == 0;
        const long long base = live ? exact_in_offset(j, o) : 0;
        const u64 r0 = p * j.part < j.len ? p * j.part : j.len, r1 = r0 + j.part < j.len ? r0 + j.part : j.len;
        double s = -0.0; // -0.0 adds nothing and keeps a sum of -0.0 terms -0.0
        bool lost = false;
        if (live && R == 1) // the same for the warp
            exact_column_rows<T, 1>(x + base, stride, r0, r1, 1, s, lost);
        else if (live)
            exact_column_rows<T, 0>(x + base, stride, r0 + sub, r1, R, s, lost);
        for (unsigned k = 1; k < R; k++) { // a column's lanes into its first (R is the same for the warp)
            const double v = __shfl_sync(EXACT_FULL, s, col + k * C);
            const bool l = __shfl_sync(EXACT_FULL, lost, col + k * C);
            if (sub == 0) {
                exact_two_sum(s, v, lost);
                lost |= l;
            }
        }
        if (S > 1) {
            unsigned *ticket = j.tickets + g * per_group;
            const u64 c = p / FAN, c0 = c * FAN, c1 = c0 + FAN < S ? c0 + FAN : S;
            if (!exact_arrive_part(parts, p * j.nout + o, lead, s, lost, ticket + (chunks > 1 ? c : 0), c1 - c0))
                continue;
            s = -0.0;
            lost = false;
            if (lead)
                exact_merge_parts(parts, c0, c1, j.nout, o, s, lost);
            if (chunks > 1) {
                if (!exact_arrive_part(chunk_parts, c * j.nout + o, lead, s, lost, ticket + chunks, chunks))
                    continue;
                s = -0.0;
                lost = false;
                if (lead)
                    exact_merge_parts(chunk_parts, 0, chunks, j.nout, o, s, lost);
            }
        }
        const bool bad = lead && (lost || !exact_quick_result<T, OP>(j, o, s, j.len));
        const unsigned marked = __ballot_sync(EXACT_FULL, bad);
        if (lane == 0) {
            if (marked)
                atomicOr(j.retry + g / 32, 1u << (g % 32));
            else
                atomicAnd(j.retry + g / 32, ~(1u << (g % 32)));
        }
    }
}

// T the element type, R the result's, OP one of EXACT_OP_*.
template <class T, int OP, int BLOCK, bool STATE>
__global__ void __launch_bounds__(BLOCK) exact_reduce(ExactJob j)
{
    enum { PROD = OP == EXACT_OP_SUM_SQUARES || OP == EXACT_OP_NORM2 || OP == EXACT_OP_DOT, TWO = OP == EXACT_OP_DOT };
    typedef ExactShape<T, PROD, BLOCK> Shape;
    typedef typename Shape::F F;
    typedef ExactFront<T, PROD, Shape::FRONT> Front;
    enum { WARPS = Shape::WARPS, CHUNK = ExactPlan<T, PROD>::CHUNK, LANE_WORDS = Shape::LANE_WORDS };
    static_assert(Shape::SHARED <= 48 * 1024, "static shared memory");
    __shared__ long long lanes[LANE_WORDS > 0 ? LANE_WORDS * BLOCK : 1];
    __shared__ long long warp_digits[WARPS][F::DIGITS];
    __shared__ float warp_special[WARPS];
    __shared__ unsigned warp_flags[WARPS];

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const T *x = (const T *)j.in, *y = TWO ? (const T *)j.in2 : x;
    const int uw = (int)j.unit_warps;            // 0 (a lane an output), 1 or WARPS
    const int per_block = WARPS / uw;            // units a block takes at once
    const int in_unit = warp % uw;               // this warp's place in its unit
    const int leader = warp - in_unit;
    const u64 units = j.nout * j.splits;
    Exact<F, ExactStrided> w; // this warp's state: digits in shared memory, the special value and flags per lane
    w.d.p = warp_digits[warp];
    w.d.stride = 1;

    for (u64 u = (u64)blockIdx.x * per_block + warp / uw; u - warp / uw < units;
         u += (u64)gridDim.x * per_block) {
        const bool live = u < units; // a block's units run together: every warp goes round, some with nothing
        const u64 o = !live ? 0 : j.splits == 1 ? u : u / j.splits, p = !live || j.splits == 1 ? 0 : u % j.splits;
        if (j.retry && live && !exact_marked(j, o))
            continue; // exact_quick_columns finished it (the same for the unit's warps)
        long long base = 0;
        u64 len = 0;
        if (live)
            exact_output(j, o, base, len, lane == 0 && in_unit == 0 && p == 0);
        const u64 p0 = p * j.part < len ? p * j.part : len;
        const u64 p1 = live ? (p0 + j.part < len ? p0 + j.part : len) : p0;
        const bool contiguous = (j.view == EXACT_VIEW_SEGMENTS || (j.view == EXACT_VIEW_LINEAR && j.red.n == 1 &&
                                                                   j.red.stride[0] == 1)) &&
                                (((unsigned long long)(x + base)) & 15u) == 0 &&
                                (!TWO || (((unsigned long long)(y + base)) & 15u) == 0);
        for (int i = lane; i < F::DIGITS; i += 32)
            w.d[i] = 0;
        w.special = 0.0f;
        w.flags = 0;
        Front f;
        f.init(lanes, threadIdx.x, BLOCK, warp_digits[warp], true);
        __syncwarp();
        // This warp's share of the part (the unit's warps take equal shares, 64-element multiples, so
        // that 16-byte vectors stay aligned), a chunk at a time.
        const u64 q = ((p1 - p0 + (u64)uw - 1) / (u64)uw + 63) & ~63ull;
        const u64 w0 = p0 + (u64)in_unit * q < p1 ? p0 + (u64)in_unit * q : p1, w1 = w0 + q < p1 ? w0 + q : p1;
        for (u64 c0 = w0; c0 < w1; c0 += CHUNK) {
            const u64 c1 = c0 + CHUNK < w1 ? c0 + CHUNK : w1;
            exact_chunk<T, TWO, !PROD>(j, x, y, base, c0, c1, contiguous, lane, f);
            f.flush(w, lane);
            __syncwarp();
            if (lane == 0)
                exact_normalize(w);
            __syncwarp();
        }
        // The warp's special value and flags (each lane holds a share of them).
        unsigned flags = f.flags() | w.flags;
        float special = exact_warp_special(w.special + f.special());
        flags = exact_warp_or(flags) | (p1 > p0 ? EXACT_ANY : 0u);
        __syncwarp();
        if (lane == 0) {
            exact_normalize(w);
            warp_special[warp] = special;
            warp_flags[warp] = flags;
        }
        if (uw > 1) { // the unit's warps into its leader's state
            __syncthreads();
            if (in_unit == 0) {
                for (int d = lane; d < F::DIGITS; d += 32) {
                    long long sum = 0;
                    for (int k = 0; k < uw; k++)
                        sum += warp_digits[leader + k][d];
                    warp_digits[leader][d] = sum;
                }
                float sp = 0.0f;
                unsigned fl = 0;
                for (int k = 0; k < uw; k++) {
                    sp += warp_special[leader + k];
                    fl |= warp_flags[leader + k];
                }
                __syncwarp();
                if (lane == 0) {
                    exact_normalize(w);
                    warp_special[warp] = sp;
                    warp_flags[warp] = fl;
                }
            }
        }
        __syncwarp();
        if (live && in_unit == 0) {
            w.special = warp_special[warp];
            w.flags = warp_flags[warp];
            if (j.splits == 1) {
                exact_emit<T, OP, STATE>(j, o, len, w, lane);
            } else if (j.tickets) {
                exact_arrive<T, OP, STATE>(j, o, len, w, lane);
            } else {
                long long *rec = j.states + u * ExactRecord<F>::WORDS;
                for (int d = lane; d < F::DIGITS; d += 32)
                    rec[d] = w.d[d];
                if (lane == 0)
                    rec[F::DIGITS] = (long long)((u64)w.flags << 32 | __float_as_uint(w.special));
            }
        }
        if (uw > 1)
            __syncthreads(); // the next unit's warps reuse the leader's digits
        else
            __syncwarp();
    }
}

// The lane units (unit_warps 0: exact_lanes), a kernel of their own: their
// warp path and local states would raise exact_reduce's registers.
template <class T, int OP, int BLOCK, bool STATE>
__global__ void __launch_bounds__(BLOCK) exact_reduce_lanes(ExactJob j)
{
    enum { PROD = OP == EXACT_OP_SUM_SQUARES || OP == EXACT_OP_NORM2 || OP == EXACT_OP_DOT, TWO = OP == EXACT_OP_DOT };
    typedef ExactShape<T, PROD, BLOCK> Shape;
    typedef typename Shape::F F;
    typedef ExactFront<T, PROD, Shape::FRONT> Front;
    enum { WARPS = Shape::WARPS, LANE_WORDS = Shape::LANE_WORDS };
    __shared__ long long lanes[LANE_WORDS > 0 ? LANE_WORDS * BLOCK : 1];
    __shared__ long long warp_digits[WARPS][F::DIGITS];
    exact_lanes<T, OP, BLOCK, STATE, PROD, TWO, F, Front>(j, lanes, warp_digits[threadIdx.x >> 5]);
}

// The split outputs of a job without tickets (more outputs than the
// workspace has accumulators for): each output's part records merged (any
// order: integer sums) and rounded, a block an output: its warps take the
// records in turn, a lane a digit.
template <class T, int OP, bool STATE>
__global__ void __launch_bounds__(256) exact_finish(ExactJob j)
{
    enum { PROD = OP == EXACT_OP_SUM_SQUARES || OP == EXACT_OP_NORM2 || OP == EXACT_OP_DOT };
    typedef typename ExactPlan<T, PROD>::F F;
    enum { WORDS = ExactRecord<F>::WORDS, PER_LANE = (F::DIGITS + 31) / 32 };
    __shared__ long long digits[8][F::DIGITS];
    __shared__ float specials[8];
    __shared__ unsigned flagss[8];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (u64 o = blockIdx.x; o < j.nout; o += gridDim.x) {
        if (j.retry && !exact_marked(j, o))
            continue; // exact_quick_columns finished it
        long long sum[PER_LANE];
#pragma unroll
        for (int k = 0; k < PER_LANE; k++)
            sum[k] = 0;
        float sp = 0.0f;
        unsigned fl = 0;
#pragma unroll 4 // independent loads in flight: the records are read once, from L2
        for (u64 p = warp; p < j.splits; p += 8) {
            const long long *rec = j.states + (o * j.splits + p) * WORDS;
#pragma unroll
            for (int k = 0; k < PER_LANE; k++)
                if (lane + 32 * k < F::DIGITS)
                    sum[k] += rec[lane + 32 * k];
            const u64 meta = (u64)rec[F::DIGITS];
            sp += __uint_as_float((unsigned)meta);
            fl |= (unsigned)(meta >> 32);
        }
#pragma unroll
        for (int k = 0; k < PER_LANE; k++)
            if (lane + 32 * k < F::DIGITS)
                digits[warp][lane + 32 * k] = sum[k];
        if (lane == 0) {
            specials[warp] = sp;
            flagss[warp] = fl;
        }
        __syncthreads();
        if (warp == 0) {
            for (int d = lane; d < F::DIGITS; d += 32) {
                long long s = 0;
                for (int k = 0; k < 8; k++)
                    s += digits[k][d];
                digits[0][d] = s;
            }
            __syncwarp();
            Exact<F, ExactStrided> s;
            s.d.p = digits[0];
            s.d.stride = 1;
            s.special = 0.0f;
            s.flags = 0;
            for (int k = 0; k < 8; k++) {
                s.special += specials[k];
                s.flags |= flagss[k];
            }
            if (lane == 0)
                exact_normalize(s);
            __syncwarp();
            long long base;
            u64 len;
            exact_output(j, o, base, len, false);
            exact_emit<T, OP, STATE>(j, o, len, s, lane);
        }
        __syncthreads();
    }
}

// A communicator's gathered records (nranks blocks of record_bytes, output
// o's at o * slot in each) merged and rounded into nout dense results: a
// warp an output.
template <class T, int OP>
__global__ void __launch_bounds__(256) exact_combine(const char *records, u64 record_bytes, unsigned nranks, u64 nout,
                                                     u64 slot, void *out, u64 result)
{
    enum { PROD = OP == EXACT_OP_SUM_SQUARES || OP == EXACT_OP_NORM2 || OP == EXACT_OP_DOT };
    typedef typename ExactPlan<T, PROD>::F F;
    enum { PER_LANE = (F::DIGITS + 31) / 32 };
    __shared__ long long digits[8][F::DIGITS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (u64 o = (u64)blockIdx.x * 8 + warp; o < nout; o += (u64)gridDim.x * 8) {
        long long sum[PER_LANE];
#pragma unroll
        for (int k = 0; k < PER_LANE; k++)
            sum[k] = 0;
        Exact<F, ExactStrided> s;
        s.d.p = digits[warp];
        s.d.stride = 1;
        s.special = 0.0f;
        s.flags = 0;
        u64 count = 0;
        for (unsigned r = 0; r < nranks; r++) {
            const long long *rec = (const long long *)(records + r * record_bytes + o * slot);
#pragma unroll
            for (int k = 0; k < PER_LANE; k++)
                if (lane + 32 * k < F::DIGITS)
                    sum[k] += rec[1 + lane + 32 * k];
            const u64 meta = (u64)rec[1 + F::DIGITS];
            s.special += __uint_as_float((unsigned)meta);
            s.flags |= (unsigned)(meta >> 32);
            count += (u64)rec[0];
        }
#pragma unroll
        for (int k = 0; k < PER_LANE; k++)
            if (lane + 32 * k < F::DIGITS)
                digits[warp][lane + 32 * k] = sum[k];
        __syncwarp();
        if (lane == 0) {
            exact_normalize(s);
            exact_store_result<T, OP>(out, (long long)o, s, count, result);
        }
        __syncwarp();
    }
}
