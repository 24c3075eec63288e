/*
 * `cured bench`: printing the table and its CSV, and the message where
 * there is no GPU.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "tool.h"

/* No GPU: say so at once; nothing is compiled or timed. */
int bench_no_gpu(const char *reason)
{
    fprintf(stderr, "cured bench: no CUDA GPU here: %s\n"
                    "cured bench: nothing to measure (`cured cache warm` compiles every kernel "
                    "without a GPU)\n", reason);
    return 1;
}

static const char *yes_no(int correct) { return correct == 1 ? "yes" : correct == 0 ? "NO" : "?"; }

void bench_print_row(const struct row *r, const struct row *cub)
{
    printf("%-22s %-6s ", r->kind == K_THRUST ? "thrust::reduce *" : r->variant,
           r->is64 ? "int64" : "int32");
    if (r->state != ST_OK) {
        printf(r->state == ST_NA ? "n/a (%s)\n" : "FAIL: %s\n", r->note);
        return;
    }
    char ratio[16] = "-", first[32];
    if (cub != NULL && cub->state == ST_OK && cub->gbps > 0)
        snprintf(ratio, sizeof ratio, "%.2fx", r->gbps / cub->gbps);
    snprintf(first, sizeof first, "%.1f%s%s", r->first_ms, *r->first_src ? " " : "", r->first_src);
    printf("%10.2f %9.2f %9.2f %8.*f %7s %11s  %s\n", r->med_us, r->min_us, r->max_us,
           r->gbps >= 100 ? 1 : r->gbps >= 1 ? 2 : 4, r->gbps, ratio, first, yes_no(r->correct));
    if (r->correct == 0)
        printf("%29s%s\n", "^ ", r->note);
}

static void csv_text(FILE *f, const char *s, char sep)
{
    fputc('"', f);
    for (; *s; s++)
        fputs(*s == '"' ? "\"\"" : *s == '\n' ? " " : (char[2]){*s, 0}, f);
    fprintf(f, "\"%c", sep);
}

int bench_write_csv(const char *path, const struct row *rows, int nrows, const struct row *cub)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "cured bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fputs("variant,result_type,status,median_us,min_us,max_us,gbps,ratio_to_cub,first_call_ms,"
          "first_call_source,correct,note\n", f);
    for (const struct row *r = rows; r < rows + nrows; r++) {
        csv_text(f, r->variant, ',');
        fprintf(f, "%s,%s,", r->is64 ? "int64" : "int32",
                r->state == ST_OK ? "ok" : r->state == ST_NA ? "n/a" : "FAIL");
        if (r->state == ST_OK) {
            fprintf(f, "%.3f,%.3f,%.3f,%.6g,", r->med_us, r->min_us, r->max_us, r->gbps);
            if (cub != NULL && cub->state == ST_OK && cub->gbps > 0)
                fprintf(f, "%.4f", r->gbps / cub->gbps);
            fprintf(f, ",%.3f,%s,%s,", r->first_ms, r->first_src, yes_no(r->correct));
        } else {
            fputs(",,,,,,,,", f);
        }
        csv_text(f, r->state == ST_OK && r->correct != 0 ? "" : r->note, '\n');
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "cured bench: error writing %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

