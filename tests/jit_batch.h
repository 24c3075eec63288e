/*
 * The off-GPU suites' "every unit compiles" checks, several units to an
 * NVRTC program (jit_batch.c). NVRTC spends ~35 ms of CPU on any program
 * before its kernels (an empty one costs ~20 ms), a third of a small
 * unit's compile: units of one program text and options share a program,
 * with every unit's name expressions, as cr_jit_compile sets one up (the
 * embedded headers, cr_jit_options). A program that fails is compiled again
 * unit by unit through cr_jit_compile, so each status and message is the
 * unit's own. PTX instead of cubins: the checks that want every C++ and
 * template error at a fraction of the CPU (ptxas takes half or more of a
 * compile); test-compile builds the catalog's cubins, the GPU suites the rest.
 */
#ifndef CURED_TESTS_JIT_BATCH_H
#define CURED_TESTS_JIT_BATCH_H

#include "internal.h"

#include <stddef.h>

#define JIT_BATCH_MSG 320

struct jit_batch {
    const struct cr_unit *units; /* n units; a unit's source (user ops) must outlive the call */
    size_t n;
    int arch;                    /* sm_<arch> cubins */
    cured_status *st;            /* out: n statuses */
    char (*msg)[JIT_BATCH_MSG];  /* out: n messages ("" on success) */
    const char *what;            /* progress lines: "compiled k/n <what>" every 100 units */
    int ptx;                     /* 1: compute_<arch> PTX (the front end and NVVM, ~45% of a cubin's CPU)... */
    size_t cubin_every;          /* ...except units 0, k, 2k, ...: cubins (ptxas too); 0: none */
};

/* Compile every unit on every CPU; 0 when the pool ran (see st for the results). */
int jit_batch_run(struct jit_batch *b);

#endif
