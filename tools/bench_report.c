/*
 * `cured bench`: printing the table and its CSV, and the compile-only run
 * that stands in for the benchmark where there is no GPU.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "tool.h"

/* No GPU: show that the JIT half works, then say that nothing was timed. */
int bench_no_gpu(const char *reason, int arch)
{
    fprintf(stderr, "cured bench: no CUDA GPU here: %s\n", reason);
    int major = 0, minor = 0, skipped = 0, failed = 0;
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS) {
        fprintf(stderr, "cured bench: NVRTC is not available either: %s\n", cured_last_error());
        return 1;
    }
    printf("NVRTC %d.%d: compiling the built-in kernels for sm_%d (cubin) without a GPU\n", major,
           minor, arch);
    if (arch_offered(arch) == 0) { /* -1, unknown: just try */
        int archs[128], count = 0;
        fprintf(stderr, "cured bench: this NVRTC cannot target sm_%d; it offers", arch);
        if (cured_supported_archs(archs, 128, &count) == CURED_SUCCESS)
            for (int i = 0; i < count && i < 128; i++)
                fprintf(stderr, " sm_%d", archs[i]);
        fprintf(stderr, "\n");
        return 1;
    }
    size_t nk = cured_kernel_count();
    double total = 0;
    for (size_t i = 0; i < nk; i++) {
        const char *name = cured_kernel_name(i);
        struct compile_result r;
        cured_status st = compile_one(i, arch, 0, &r);
        printf("  %-64s ", name != NULL ? name : "(unnamed)");
        if (st == CURED_SUCCESS)
            printf("%9zu bytes %9.1f ms %s\n", r.bytes, r.ms, r.source);
        else if (st == CURED_ERROR_NOT_SUPPORTED)
            printf("skipped: needs toolkit headers\n");
        else
            printf("FAILED: %s: %s\n", cured_status_string(st), r.why);
        total += st == CURED_SUCCESS ? r.ms : 0;
        skipped += st == CURED_ERROR_NOT_SUPPORTED;
        failed += st != CURED_SUCCESS && st != CURED_ERROR_NOT_SUPPORTED;
    }
    printf("%zu kernels: %zu compiled in %.1f ms, %d skipped, %d failed\n", nk,
           nk - (size_t)(skipped + failed), total, skipped, failed);
    if (skipped > 0 && cured_toolkit_include() == NULL)
        printf("toolkit headers for the cooperative-groups kernels: %s\n", cured_last_error());
    fprintf(stderr, "cured bench: nothing was benchmarked (no GPU)\n");
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

