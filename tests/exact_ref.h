/*
 * The exact sums' reference (exact_ref.c): element and result types by the
 * ET_* numbers of exact_emu.h, values as doubles (every value of every type
 * is one), sums as one wide integer rounded by search over the patterns.
 */
#ifndef CURED_TESTS_EXACT_REF_H
#define CURED_TESTS_EXACT_REF_H

#include <stdint.h>

#include "exact_emu.h"

/* The types: IEEE layouts and exact_emu.h's formats of their sums. */
struct ty {
    const char *name;
    int p, emax, ebits, fmt, pfmt; /* significand bits, largest exponent, exponent bits, formats */
};
extern const struct ty tys[4];
uint64_t sign_bit(int t);
uint64_t inf_bits(int t);
uint64_t nan_bits(int t);
uint64_t max_bits(int t);
double value(int t, uint64_t bits);
uint64_t bits_of(int t, double x); /* the pattern of a value of type t (x must be one) */
int is_nan_bits(int t, uint64_t b);

/* A two's complement integer of RW words, bit 0 weighing 2^RLOW. */
#define RW 180
#define RLOW (-2400)
typedef struct {
    uint32_t w[RW];
} big;

/* The terms so far: their exact sum and what decides the special results. */
struct ref {
    big v;
    int nan, pinf, ninf, negzero; /* negzero: every term so far is -0.0 */
    uint64_t n;
};
void ref_init(struct ref *r);
void ref_term(struct ref *r, double x);
void ref_product(struct ref *r, double x, double y);
/* The sum divided by n (1 for the sum, the count for the mean) rounded once to t. */
uint64_t ref_round(const struct ref *r, int t, uint64_t n);
/* NORM2: the float64 square root of the sum rounded to float64, rounded once more to t (cured.h). */
uint64_t ref_norm2(const struct ref *r, int t);

/* The exact tests' random numbers: splitmix64, seeded from the run's seed, a case's name and an index. */
struct rng {
    uint64_t s;
};
static inline uint64_t rnd(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t rnd_below(struct rng *r, uint64_t n) { return n ? rnd(r) % n : 0; }
static inline void rng_seed(struct rng *r, const char *name, long i, unsigned long long seed)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    r->s = h ^ (seed * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)i << 40);
}

#endif
