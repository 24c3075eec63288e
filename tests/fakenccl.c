/*
 * A stand-in for libnccl.so.2, loaded through CURED_NCCL_LIBRARY by
 * tests/test-comm (with tests/fakecuda.c's device, whose memory is host
 * memory). A communicator is any non-NULL pointer: FAKENCCL_NRANKS (1),
 * FAKENCCL_RANK (0) and FAKENCCL_DEVICE (0) say what it reports. The
 * collectives run nothing: they record their arguments for the tests
 * (fake_nccl_calls), and FAKENCCL_GATHER_COUNT sets the gathered counts.
 * FAKENCCL_FAIL=AllGather (or AllReduce, CommCount)
 * makes that call return ncclInvalidArgument.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

struct fake_nccl_call {
    const char *what; /* "AllGather", "AllReduce" */
    const void *send;
    void *recv;
    size_t count;
    int type, op;
};
static struct fake_nccl_call calls[64];
static int ncalls;

EXPORT int fake_nccl_calls(const struct fake_nccl_call **out);
int fake_nccl_calls(const struct fake_nccl_call **out)
{
    *out = calls;
    return ncalls;
}

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? atoi(v) : dflt;
}

static int fails(const char *what)
{
    const char *v = getenv("FAKENCCL_FAIL");
    return v != NULL && strcmp(v, what) == 0 ? 4 /* ncclInvalidArgument */ : 0;
}

static int record(const char *what, const void *send, void *recv, size_t count, int type, int op)
{
    if (fails(what))
        return fails(what);
    if (ncalls < 64)
        calls[ncalls++] = (struct fake_nccl_call){what, send, recv, count, type, op};
    return 0;
}

EXPORT int ncclGetVersion(int *v);
EXPORT const char *ncclGetErrorString(int r);
EXPORT int ncclCommCount(void *c, int *n);
EXPORT int ncclCommUserRank(void *c, int *r);
EXPORT int ncclCommCuDevice(void *c, int *d);
EXPORT int ncclAllGather(const void *s, void *r, size_t n, int t, void *c, void *st);
EXPORT int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *c, void *st);
EXPORT int ncclGroupStart(void);
EXPORT int ncclGroupEnd(void);
struct fake_nccl_id { char b[128]; }; /* ncclUniqueId */
/* Enough for tools/cured-multirank's plumbing with K = 1 (it makes its own communicator). */
EXPORT int ncclGetUniqueId(void *id);
EXPORT int ncclCommInitRank(void **c, int n, struct fake_nccl_id id, int r);
EXPORT int ncclCommInitAll(void **c, int n, const int *devs);
EXPORT int ncclCommDestroy(void *c);

int ncclGetVersion(int *v) { *v = env_int("FAKENCCL_VERSION", 22800); return 0; }
const char *ncclGetErrorString(int r) { return r == 4 ? "invalid argument (fake)" : "fake error"; }
int ncclCommCount(void *c, int *n) { *n = env_int("FAKENCCL_NRANKS", 1); return c ? fails("CommCount") : 4; }
int ncclCommUserRank(void *c, int *r) { *r = env_int("FAKENCCL_RANK", 0); return c ? 0 : 4; }
int ncclCommCuDevice(void *c, int *d) { *d = env_int("FAKENCCL_DEVICE", 0); return c ? 0 : 4; }
int ncclAllGather(const void *s, void *r, size_t n, int t, void *c, void *st)
{
    (void)c, (void)st;
    /* FAKENCCL_GATHER_COUNT=k: every rank's first record says it holds k
     * elements (the fake device's memory is host memory). */
    const char *k = getenv("FAKENCCL_GATHER_COUNT");
    if (k != NULL && n >= 8)
        for (int i = 0; i < env_int("FAKENCCL_NRANKS", 1); i++) {
            unsigned long long v = strtoull(k, NULL, 0);
            memcpy((char *)r + (size_t)i * n, &v, sizeof v);
        }
    if (s != (char *)r + (size_t)env_int("FAKENCCL_RANK", 0) * n) /* out of place: this rank's part */
        memmove((char *)r + (size_t)env_int("FAKENCCL_RANK", 0) * n, s, n);
    return record("AllGather", s, r, n, t, -1);
}
int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *c, void *st)
{
    (void)c, (void)st;
    return record("AllReduce", s, r, n, t, op);
}
int ncclGroupStart(void) { return 0; }
int ncclGroupEnd(void) { return 0; }
int ncclGetUniqueId(void *id) { memset(id, 0, 128); return 0; }
int ncclCommInitRank(void **c, int n, struct fake_nccl_id id, int r)
{
    (void)id;
    *c = calls; /* any non-NULL pointer */
    return n == 1 && r == 0 ? 0 : 4;
}
int ncclCommInitAll(void **c, int n, const int *devs)
{
    for (int i = 0; i < n; i++)
        c[i] = calls;
    return n == 1 && devs[0] == 0 ? 0 : 4;
}
int ncclCommDestroy(void *c) { return c ? 0 : 4; }
