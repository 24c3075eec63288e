/*
 * cured: the command-line tool of the cured library.
 *
 *   cured info                     what cured finds here           (cured.c)
 *   cured cache dir|list|clear     the persistent kernel cache    (cache.c)
 *   cured cache warm [--arch T]    fill it without a GPU          (cache_warm.c)
 *   cured bench [options]          Table 12-1 on this GPU         (bench.c)
 *   cured bench warmstart          first call of a fresh process  (warmstart.c, warmstart_child.c)
 *   cured bench sweep              sizes 2^10 ... 2^30            (sweep.c)
 *   cured bench ops                operators x types              (opsbench.c)
 *   cured bench axes               axes and segments              (axesbench.c)
 *   cured bench allreduce          cured_comm over NCCL           (allreducebench.c)
 *   cured help | -h | --help       the usage
 *   cured version | -V | --version the version
 *
 * The driver is opened at run time (src/driver.c, compiled into the tool
 * too), so every command starts where there is no GPU or no driver.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_all.h"
#include "tool.h"
#ifdef CURED_HAVE_CUB_COMPARATOR
#include "cub_compare.h"
#endif

static const char usage_text[] =
    "usage: cured <command> [options]\n"
    "commands:\n"
    "  info                   library, driver, NVRTC, devices, targets, cache\n"
    "  cache dir|list|clear   the persistent kernel cache: where, what, empty it\n"
    "  cache warm [options]   compile every built-in kernel into it (no GPU)\n"
    "  bench [options]        Table 12-1 of The CUDA Handbook on this GPU\n"
    "  bench warmstart        first call of a fresh process, against a warm cache\n"
    "  bench sweep            the sum from 2^10 to 2^30 elements beside CUB\n"
    "  bench ops              every operator and type at 64Mi elements beside CUB\n"
    "  bench axes             axis and segmented reductions beside the read ceiling\n"
    "  bench allreduce        cured_comm's cost over a local reduction, beside NCCL\n"
    "  help                   this text (also -h, --help)\n"
    "  version                the version (also -V, --version)\n"
    "Run `cured <command> --help` for a command's options; `man cured` for more.\n";

static const char info_usage[] =
    "usage: cured info\n"
    "Print the library version, the CUDA driver and NVRTC versions (or why they\n"
    "cannot be loaded), the architectures NVRTC offers, the toolkit headers, each\n"
    "device with the target cured compiles for, the benchmarks' CUB comparator,\n"
    "the disk cache and the CURED_* variables that are set.\n"
    "Exit status: 0 if everything could be queried (an absent driver, GPU or\n"
    "NVRTC is reported, not a failure); 1 if a query failed; 2 for usage.\n";

static const char *const env_names[] = {
    "CURED_ARCH",       "CURED_NVRTC_LIBRARY", "CURED_CUDA_DRIVER_LIBRARY", "CURED_CUDA_HOME", "CURED_NCCL_LIBRARY",
    "CURED_CACHE_DIR",  "CURED_CACHE_DISABLE", "CURED_CACHE_MAX_BYTES",     "CURED_LOG"};

/* One device: facts from the driver, then the target from a cured handle. */
static int info_device(const struct cr_driver_all *d, int i)
{
    CUdevice dev = 0;
    char name[256] = "?";
    int sms = 0, major = 0, minor = 0;
    size_t mem = 0;
    CUresult e;
    if ((e = d->DeviceGet(&dev, i)) != CUDA_SUCCESS ||
        (e = d->DeviceGetName(name, sizeof name, dev)) != CUDA_SUCCESS ||
        (e = d->DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)) != CUDA_SUCCESS ||
        (e = d->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) != CUDA_SUCCESS ||
        (e = d->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) != CUDA_SUCCESS ||
        (e = d->DeviceTotalMem(&mem, dev)) != CUDA_SUCCESS) {
        printf("  device %d: cannot be queried: %s\n", i, cr_driver_error_text(e));
        return 1;
    }
    printf("  device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB; ", i, name, major, minor, sms,
           (double)mem / (1024.0 * 1024 * 1024));
    cured_handle h = NULL;
    int sm = 0, ptx = 0, rc = 0;
    cured_status st = cured_create(i, &h);
    if (st != CURED_SUCCESS) {
        printf("cured_create failed: %s: %s\n", cured_status_string(st), cured_last_error());
        return 1;
    }
    st = cured_get_arch(h, &sm, &ptx);
    if (st == CURED_SUCCESS)
        printf("cured compiles for %s_%d (%s)\n", ptx ? "compute" : "sm", sm,
               ptx ? "PTX for the driver to JIT" : "cubin");
    else
        printf("no target: %s: %s\n", cured_status_string(st), cured_last_error());
    rc = st != CURED_SUCCESS && st != CURED_ERROR_NO_NVRTC;
    if ((st = cured_destroy(h)) != CURED_SUCCESS) {
        fprintf(stderr, "cured info: cured_destroy: %s: %s\n", cured_status_string(st), cured_last_error());
        rc = 1;
    }
    return rc;
}

int cmd_info(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(info_usage, stdout);
            return 0;
        }
        fprintf(stderr, "cured info: unexpected argument %s\n%s", argv[i], info_usage);
        return 2;
    }
    int rc = 0, major = 0, minor = 0, patch = 0, api = cured_version(&major, &minor, &patch);
    printf("cured %s (library API %d, this program built against %d)\n", cured_version_string(), api,
           CURED_API_VERSION);

    int drv = 0, have_driver = cured_driver_version(&drv) == CURED_SUCCESS;
    if (have_driver)
        printf("CUDA driver: %d.%d (%d)\n", drv / 1000, drv % 1000 / 10, drv);
    else
        printf("CUDA driver: not available: %s\n", cured_last_error());

    int nv_major = 0, nv_minor = 0, archs[128], count = 0;
    if (cured_nvrtc_version(&nv_major, &nv_minor) == CURED_SUCCESS) {
        printf("NVRTC: %d.%d\n", nv_major, nv_minor);
        if (cured_supported_archs(archs, 128, &count) == CURED_SUCCESS) {
            printf("NVRTC targets (sm_XY cubin or compute_XY PTX):");
            for (int i = 0; i < count && i < 128; i++)
                printf(" %d", archs[i]);
            printf("\n");
        } else {
            printf("NVRTC targets: cannot be read: %s\n", cured_last_error());
            rc = 1;
        }
    } else {
        printf("NVRTC: not available: %s\n", cured_last_error());
    }

    const char *inc = cured_toolkit_include();
    if (inc != NULL)
        printf("toolkit headers (cooperative-groups kernels): %s\n", inc);
    else
        printf("toolkit headers (cooperative-groups kernels): not found: %s\n", cured_last_error());

    const char *why = NULL;
    int no_device = 0;
    const struct cr_driver_all *d = cr_driver_all_load(&why, &no_device);
    if (d == NULL) {
        printf("devices: none (%s)\n", have_driver ? why : "no driver");
    } else {
        CUresult e = d->DeviceGetCount(&count);
        if (e != CUDA_SUCCESS) {
            printf("devices: cannot be counted: %s\n", cr_driver_error_text(e));
            rc = 1;
        } else {
            printf("devices: %d\n", count);
            for (int i = 0; i < count; i++)
                rc |= info_device(d, i);
        }
    }

#ifdef CURED_HAVE_CUB_COMPARATOR
    const char *cub_path = cmp_library_path();
    if (cub_path != NULL)
        printf("benchmark comparator: %s (%s)\n", cmp_cub_version(), cub_path);
    else
        printf("benchmark comparator: not loadable: %s\n", cmp_last_error());
#else
    printf("benchmark comparator: not built (no nvcc at configure time)\n");
#endif

    const char *reason = NULL, *dir = cache_dir_or_reason(&reason);
    if (dir != NULL) {
        size_t entries = 0;
        uint64_t bytes = 0;
        char human[32];
        cache_totals(&entries, &bytes);
        printf("disk cache: %s: %zu entr%s, %s\n", dir, entries, entries == 1 ? "y" : "ies",
               human_bytes(bytes, human));
    } else {
        printf("disk cache: off: %s\n", reason);
    }

    int any = 0;
    for (size_t i = 0; i < sizeof env_names / sizeof *env_names; i++) {
        const char *v = getenv(env_names[i]);
        if (v != NULL)
            printf("%s%s=%s", any++ ? " " : "environment: ", env_names[i], v);
    }
    fputs(any ? "\n" : "environment: no CURED_* variables set\n", stdout);
    return rc;
}

/* `cured bench [SUB]`: Table 12-1 (bench.c) or one of the other benchmarks. */
static int cmd_bench(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } subs[] = {
        {"warmstart", cmd_warmstart},
        {"warmstart-child", cmd_warmstart_child}, /* internal: run by warmstart */
        {"sweep", cmd_bench_sweep},
        {"ops", cmd_bench_ops},
        {"axes", cmd_bench_axes},
        {"allreduce", cmd_bench_allreduce},
    };
    for (size_t i = 0; argc > 1 && i < sizeof subs / sizeof *subs; i++)
        if (strcmp(argv[1], subs[i].name) == 0)
            return subs[i].run(argc - 1, argv + 1);
    return cmd_bench_table(argc, argv);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("cured %s\n", cured_version_string());
        return 0;
    }
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "cache") == 0)
        return cmd_cache(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "cured: unknown command %s\n%s", cmd, usage_text);
    return 2;
}
