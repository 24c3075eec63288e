/* Compiling the NCCL suites' kernels ahead on all CPUs; see comm_warm.h. */
#include <config.h>

#include "comm_warm.h"

#include "family.h"
#include "pool.h"

#define MAX_UNITS (3 * 400)

struct warm {
    const struct cr_unit *units;
    int arch, ptx;
};

static void warm_one(void *user, size_t i)
{
    const struct warm *w = user;
    const struct cr_image *img;
    if (cr_kcache_get(&w->units[i], w->arch, w->ptx, &img) == CURED_SUCCESS)
        cr_kcache_put(img);
}

cured_status comm_warm(cured_handle h, int (*want)(cured_op op))
{
    static struct cr_unit units[MAX_UNITS];
    struct warm w = {units, 0, 0};
    cured_status st = cr_handle_arch(h, &w.arch, &w.ptx);
    if (st != CURED_SUCCESS)
        return st;
    size_t n = 0;
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT && n + 3 <= MAX_UNITS; out++) {
                struct cr_request r, s, c;
                if (!want((cured_op)op) || !cr_op_accumulator((cured_op)op, (cured_type)in, (cured_type)out, NULL) ||
                    cr_request_make((cured_op)op, CURED_ALGO_AUTO, (cured_type)in, (cured_type)out, &r))
                    continue;
                s = c = r;
                cr_request_state(&s);
                c.shape = CR_SHAPE_COMBINE;
                cr_family_for(&r)->build(&r, &units[n++]);
                cr_family_for(&s)->build(&s, &units[n++]);
                cr_family_for(&c)->build(&c, &units[n++]);
            }
    pool_run(n, pool_cpus(), warm_one, NULL, &w);
    return CURED_SUCCESS;
}
