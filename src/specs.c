/*
 * The built-in kernel specializations: one NVRTC program for each
 * (algorithm, input type, result type) that cured offers. Only the programs
 * a process uses are ever compiled.
 */
#include "internal.h"

#include <stdio.h>

/* Per algorithm: source file, name-expression pattern (element type,
 * accumulator type, block size), whether a second pass reduces the per-block
 * partials (the same kernel over <A, A>), whether it needs the toolkit. */
static const struct algo {
    const char *label, *file, *pattern;
    int two_pass, needs_toolkit;
} algos[CURED_ALGO_COUNT] = {
    [CURED_ALGO_AUTO] = {"auto", "fast.cu", "reduce_fast<%s, %s, %d, 4, Sum>", 0, 0},
    [CURED_ALGO_TWO_PASS_SHARED] = {"two_pass_shared", "two_pass.cu",
                                    "reduce_pass_shared<%s, %s, %d, Sum>", 1, 0},
    [CURED_ALGO_TWO_PASS_SHUFFLE] = {"two_pass_shuffle", "two_pass.cu",
                                     "reduce_pass_shuffle<%s, %s, %d, Sum>", 1, 0},
    [CURED_ALGO_TWO_PASS_CG] = {"two_pass_cg", "two_pass_cg.cu", "reduce_pass_cg<%s, %s, %d, Sum>", 1, 1},
    [CURED_ALGO_SINGLE_PASS_TICKET] = {"single_pass_ticket", "single_pass.cu",
                                       "reduce_ticket<%s, %s, %d, Sum>", 0, 0},
    [CURED_ALGO_SINGLE_PASS_ATOMIC] = {"single_pass_atomic", "single_pass.cu",
                                       "reduce_atomic<%s, %s, %d, Sum>", 0, 0},
    [CURED_ALGO_LISTING_12_4] = {"listing_12_4", "listing_12_4.cu",
                                 "reduce_listing_12_4<%s, %s, %d, Sum>", 0, 1},
};

/* The (input, result) type pairs offered for CURED_OP_SUM. */
static const struct pair {
    cured_type in, out;
} pairs[] = {
    {CURED_TYPE_INT32, CURED_TYPE_INT32},
    {CURED_TYPE_INT32, CURED_TYPE_INT64},
};
#define NPAIRS (sizeof pairs / sizeof *pairs)
#define NSPECS (CURED_ALGO_COUNT * NPAIRS)

static struct cr_program programs[NSPECS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *cxx_name(cured_type t)
{
    return t == CURED_TYPE_INT32 ? "int" : "long long";
}

static const char *short_name(cured_type t)
{
    return t == CURED_TYPE_INT32 ? "int32" : "int64";
}

size_t cr_type_size(cured_type t)
{
    switch (t) {
    case CURED_TYPE_INT32: return 4;
    case CURED_TYPE_INT64: return 8;
    }
    return 0;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void build(void)
{
    for (size_t a = 0; a < CURED_ALGO_COUNT; a++) {
        for (size_t p = 0; p < NPAIRS; p++) {
            struct cr_program *prog = &programs[a * NPAIRS + p];
            const char *t = cxx_name(pairs[p].in), *acc = cxx_name(pairs[p].out);
            prog->file = algos[a].file;
            prog->needs_toolkit = algos[a].needs_toolkit;
            prog->nkernels = algos[a].two_pass ? 2 : 1;
            snprintf(prog->kernels[0], sizeof prog->kernels[0], algos[a].pattern, t, acc, CR_BLOCK);
            if (algos[a].two_pass)
                snprintf(prog->kernels[1], sizeof prog->kernels[1], algos[a].pattern, acc, acc, CR_BLOCK);
            snprintf(prog->label, sizeof prog->label, "%s sum %s->%s (kernels-src/%s)",
                     algos[a].label, short_name(pairs[p].in), short_name(pairs[p].out), algos[a].file);
        }
    }
}
#pragma GCC diagnostic pop

int cr_spec_index(cured_op op, cured_algorithm algo, cured_type in, cured_type out)
{
    if (op != CURED_OP_SUM || (unsigned)algo >= CURED_ALGO_COUNT)
        return -1;
    for (size_t p = 0; p < NPAIRS; p++)
        if (pairs[p].in == in && pairs[p].out == out)
            return (int)(algo * NPAIRS + p);
    return -1;
}

const struct cr_program *cr_spec(size_t index)
{
    pthread_once(&once, build);
    return index < NSPECS ? &programs[index] : NULL;
}

size_t cr_spec_count(void)
{
    return NSPECS;
}

CR_API size_t cured_kernel_count(void)
{
    return NSPECS;
}

CR_API const char *cured_kernel_name(size_t index)
{
    const struct cr_program *p = cr_spec(index);
    return p ? p->label : NULL;
}
