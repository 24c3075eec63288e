// test-exact: kernels-src/exact.cuh's arithmetic on the CPU, behind the C
// functions of exact_emu.h. The CUDA intrinsics the header uses are given
// their host meanings (host_cuda.h, and the one-thread atomicAdd below);
// everything else is the header's own code.
#include "exact_emu.h"
#include "host_cuda.h" // the keywords, bit casts and types.cuh's element types

static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) // one thread here
{
    const unsigned long long old = *p;
    *p += v;
    return old;
}
using std::ldexp;
using std::sqrt;

#include "exact.cuh"

// float16 and bfloat16 widened to float32 as the kernels do (exactly).
static float widen_term(int type, uint64_t bits)
{
    return type == ET_BF16 ? __uint_as_float((unsigned)bits << 16) : from_half((unsigned)bits);
}

template <class F> static void init(void *s) { exact_init(*(Exact<F> *)s); }
template <class F> static void add(void *s, int type, uint64_t bits)
{
    Exact<F> &st = *(Exact<F> *)s;
    if (type == ET_DOUBLE)
        exact_add(st, __longlong_as_double((long long)bits));
    else if (type == ET_FLOAT)
        exact_add(st, __uint_as_float((unsigned)bits));
    else
        exact_add(st, widen_term(type, bits));
}
template <class F> static void add_product(void *s, int type, uint64_t x, uint64_t y)
{
    Exact<F> &st = *(Exact<F> *)s;
    if (type == ET_DOUBLE)
        exact_add_product(st, __longlong_as_double((long long)x), __longlong_as_double((long long)y));
    else if (type == ET_FLOAT)
        exact_add_product(st, __uint_as_float((unsigned)x), __uint_as_float((unsigned)y));
    else
        exact_add_product(st, widen_term(type, x), widen_term(type, y));
}
// The same terms into a state whose digits are strided (every 3rd of a
// buffer, as one thread's column in shared memory), merged into s.
template <class F> static void strided(void *s, int type, const uint64_t *bits, const uint64_t *y, size_t n)
{
    static long long buf[3 * ExactDoubleProducts::DIGITS];
    Exact<F, ExactStrided> st;
    st.d.p = buf + 1;
    st.d.stride = 3;
    exact_init(st);
    for (size_t i = 0; i < n; i++) {
        const double x = type == ET_DOUBLE ? __longlong_as_double((long long)bits[i])
                         : type == ET_FLOAT ? (double)__uint_as_float((unsigned)bits[i])
                                            : (double)widen_term(type, bits[i]);
        if (!y)
            exact_add(st, x);
        else
            exact_add_product(st, x, type == ET_DOUBLE ? __longlong_as_double((long long)y[i])
                                     : type == ET_FLOAT ? (double)__uint_as_float((unsigned)y[i])
                                                        : (double)widen_term(type, y[i]));
    }
    exact_normalize(st);
    exact_init(*(Exact<F> *)s);
    exact_merge(*(Exact<F> *)s, st);
}
template <class F> static void normalize(void *s) { exact_normalize(*(Exact<F> *)s); }
template <class F> static void merge(void *a, const void *b) { exact_merge(*(Exact<F> *)a, *(const Exact<F> *)b); }
template <class F> static uint64_t round_to(const void *s, int rtype, int what, uint64_t n)
{
    const Exact<F> &st = *(const Exact<F> *)s;
    switch (rtype) {
    case ET_HALF:
        return what == 0 ? exact_round<half_t>(st) : what == 1 ? exact_mean<half_t>(st, n) : exact_norm2<half_t>(st);
    case ET_BF16:
        return what == 0 ? exact_round<bf16_t>(st) : what == 1 ? exact_mean<bf16_t>(st, n) : exact_norm2<bf16_t>(st);
    case ET_FLOAT:
        return what == 0 ? exact_round<float>(st) : what == 1 ? exact_mean<float>(st, n) : exact_norm2<float>(st);
    default:
        return what == 0 ? exact_round<double>(st) : what == 1 ? exact_mean<double>(st, n) : exact_norm2<double>(st);
    }
}
template <class F> static void add_raw(void *a, const void *b)
{
    Exact<F> &x = *(Exact<F> *)a;
    const Exact<F> &y = *(const Exact<F> *)b;
    for (int i = 0; i < F::DIGITS; i++)
        x.d[i] += y.d[i];
    x.special += y.special;
    x.flags |= y.flags;
}
template <class F> static int same(const void *a, const void *b)
{
    const Exact<F> &x = *(const Exact<F> *)a, &y = *(const Exact<F> *)b;
    const bool nans = x.special != x.special && y.special != y.special; // any NaN: the results agree
    return std::memcmp(x.d.v, y.d.v, sizeof x.d.v) == 0 && (nans || __float_as_uint(x.special) == __float_as_uint(y.special)) &&
           x.flags == y.flags;
}
// The bins flushed into s, or (odd periods) into a state of atomic digits
// (a warp's, in shared memory) merged into s at the end.
template <class F> static void bins(void *s, int type, const uint64_t *bits, size_t n, size_t every)
{
    ExactBins<> f;
    exact_bins_init(f);
    Exact<F> shared;
    exact_init(shared);
    Exact<F, ExactAtomic> warp;
    warp.d.p = shared.d.v;
    warp.special = 0.0f;
    warp.flags = 0;
    for (size_t i = 0; i < n; i++) {
        exact_bins_add(f, type == ET_FLOAT ? (unsigned)bits[i] : __float_as_uint(widen_term(type, bits[i])));
        if (f.n == every && every % 2)
            exact_bins_flush(warp, f);
        else if (f.n == every)
            exact_bins_flush(*(Exact<F> *)s, f);
    }
    exact_bins_flush(warp, f);
    shared.special = warp.special;
    shared.flags = warp.flags;
    exact_normalize(shared);
    exact_merge(*(Exact<F> *)s, shared);
}

#define DISPATCH(fmt, call)                                   \
    switch (fmt) {                                            \
    case EF_HALF: {                                           \
        typedef ExactHalf F;                                  \
        call;                                                 \
    }                                                         \
    case EF_SINGLE: {                                         \
        typedef ExactSingle F;                                \
        call;                                                 \
    }                                                         \
    case EF_DOUBLE: {                                         \
        typedef ExactDouble F;                                \
        call;                                                 \
    }                                                         \
    case EF_HALF_PRODUCTS: {                                  \
        typedef ExactHalfProducts F;                          \
        call;                                                 \
    }                                                         \
    case EF_SINGLE_PRODUCTS: {                                \
        typedef ExactSingleProducts F;                        \
        call;                                                 \
    }                                                         \
    default: {                                                \
        typedef ExactDoubleProducts F;                        \
        call;                                                 \
    }                                                         \
    }

extern "C" {
size_t emu_exact_bytes(int fmt) { DISPATCH(fmt, return sizeof(Exact<F>)) }
int emu_exact_digits(int fmt) { DISPATCH(fmt, return F::DIGITS) }
void emu_exact_init(int fmt, void *s) { DISPATCH(fmt, init<F>(s); return) }
void emu_exact_add(int fmt, void *s, int type, uint64_t bits) { DISPATCH(fmt, add<F>(s, type, bits); return) }
void emu_exact_add_product(int fmt, void *s, int type, uint64_t x, uint64_t y)
{
    DISPATCH(fmt, add_product<F>(s, type, x, y); return)
}
void emu_exact_strided(int fmt, void *s, int type, const uint64_t *x, const uint64_t *y, size_t n)
{
    DISPATCH(fmt, strided<F>(s, type, x, y, n); return)
}
void emu_exact_normalize(int fmt, void *s) { DISPATCH(fmt, normalize<F>(s); return) }
void emu_exact_merge(int fmt, void *a, const void *b) { DISPATCH(fmt, merge<F>(a, b); return) }
void emu_exact_add_raw(int fmt, void *a, const void *b) { DISPATCH(fmt, add_raw<F>(a, b); return) }
uint64_t emu_exact_round(int fmt, const void *s, int rtype) { DISPATCH(fmt, return round_to<F>(s, rtype, 0, 0)) }
uint64_t emu_exact_mean(int fmt, const void *s, uint64_t n, int rtype)
{
    DISPATCH(fmt, return round_to<F>(s, rtype, 1, n))
}
uint64_t emu_exact_norm2(int fmt, const void *s, int rtype) { DISPATCH(fmt, return round_to<F>(s, rtype, 2, 0)) }
int emu_exact_same(int fmt, const void *a, const void *b) { DISPATCH(fmt, return same<F>(a, b)) }
void emu_exact_bins(int fmt, void *s, int type, const uint64_t *bits, size_t n, size_t every)
{
    DISPATCH(fmt, bins<F>(s, type, bits, n, every); return)
}
void emu_exact_bins_half_products(void *s, const uint64_t *x, const uint64_t *y, size_t n, size_t every)
{
    ExactBins<> f;
    exact_bins_init(f);
    for (size_t i = 0; i < n; i++) {
        exact_bins_add(f, __float_as_uint(widen_term(ET_HALF, x[i]) * widen_term(ET_HALF, y[i])));
        if (f.n == every)
            exact_bins_flush(*(Exact<ExactHalfProducts> *)s, f);
    }
    exact_bins_flush(*(Exact<ExactHalfProducts> *)s, f);
}
void emu_exact_half(void *s, const uint64_t *h, size_t n, size_t every)
{
    ExactHalfSum f;
    exact_half_init(f);
    for (size_t i = 0; i < n; i++) {
        half_t x = {(unsigned short)h[i]};
        exact_half_add(f, x);
        if (f.n == every)
            exact_half_flush(*(Exact<ExactHalf> *)s, f);
    }
    exact_half_flush(*(Exact<ExactHalf> *)s, f);
}
// A warp's way: term i to lane i % lanes; each lane's front, the lanes'
// fronts merged pairwise (the shuffle tree) and flushed every `every` terms a
// lane.
void emu_exact_warp(int fmt, void *s, int type, const uint64_t *bits, size_t n, int lanes, size_t every)
{
    static ExactBins<> b[32];
    static ExactHalfSum h[32];
    size_t i = 0;
    while (i < n) {
        for (int l = 0; l < lanes; l++) {
            exact_bins_init(b[l]);
            exact_half_init(h[l]);
        }
        for (size_t k = 0; k < every * lanes && i < n; k++, i++) {
            const int l = (int)(i % (size_t)lanes);
            if (type == ET_HALF) {
                half_t x = {(unsigned short)bits[i]};
                exact_half_add(h[l], x);
            } else {
                exact_bins_add(b[l], type == ET_FLOAT ? (unsigned)bits[i] : __float_as_uint(widen_term(type, bits[i])));
            }
        }
        for (int off = 1; off < lanes; off *= 2)
            for (int l = 0; l + off < lanes; l += 2 * off) {
                exact_bins_merge(b[l], b[l + off]);
                exact_half_merge(h[l], h[l + off]);
            }
        if (type == ET_HALF) {
            DISPATCH(fmt, exact_half_flush(*(Exact<F> *)s, h[0]); break)
        } else {
            DISPATCH(fmt, exact_bins_flush(*(Exact<F> *)s, b[0]); break)
        }
    }
}
}
