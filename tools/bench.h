/*
 * `cured bench`: Table 12-1 of The CUDA Handbook on the GPU that is present
 * (bench.c), its report and the compile-only run without a GPU
 * (bench_report.c).
 */
#ifndef CURED_BENCH_H
#define CURED_BENCH_H

#include <stdint.h>

#include "cured.h"

/* K_BURST: cured AUTO, BENCH_BURST calls between one pair of events (the time is per call);
 * K_SWEPT: the NVRTC read ceiling of ceiling.c, the best of its grid sweep. */
enum kind { K_CURED, K_CUB64, K_CUB32, K_THRUST, K_CEIL, K_BURST, K_SWEPT };
#define BENCH_BURST 10
enum state { ST_OK, ST_NA, ST_FAIL };

struct row {
    enum kind kind;
    cured_algorithm algo;
    int is64, correct; /* correct: 1 yes, 0 no, -1 not checked */
    char variant[32];
    enum state state;
    double med_us, min_us, max_us, gbps, first_ms;
    const char *first_src;
    char note[1024];
};

/* No GPU: say so on stderr. Returns the exit status (1). */
int bench_no_gpu(const char *reason);

/* One row of the table; cub is the CUB int64 row that ratios refer to (or NULL). */
void bench_print_row(const struct row *r, const struct row *cub);

/* The rows as CSV; 0, or -1 after a message on stderr. */
int bench_write_csv(const char *path, const struct row *rows, int nrows, const struct row *cub);

#endif
