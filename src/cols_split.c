/*
 * Column reductions (reduce_cols, kernels-src/segmented.cu): how many
 * blocks share each column tile's rows, and how their partials meet
 * (cols_combine.cuh). The launch plan calls it with the loaded kernel's own
 * occupancy, so that the splits fill one wave of the blocks that really fit.
 */
#include "family.h"
#include "internal.h"

uint64_t cr_cols_room(const struct cr_device_facts *dev, size_t acc_size)
{
    return cr_partials_area(dev) / acc_size;
}

/* Enough blocks for one wave of `resident` (fewer leave SMs idle on a
 * partials-bound column; more wait on a second wave: bench/NOTES.md, COLS),
 * at least 4 rows a thread, within the partials area and the tickets. Over
 * 16 splits they meet in groups of about sqrt(splits), then the groups, so
 * that no block combines more than a few dozen partials per column. */
void cr_cols_splits(struct cr_cols *c, uint64_t resident, unsigned ty, uint64_t partial_room)
{
    const uint64_t blocks = (uint64_t)c->tiles * (uint64_t)c->batches;
    const uint64_t per_split = (uint64_t)c->batches * (uint64_t)c->cols;
    uint64_t splits = blocks == 0 || blocks >= resident ? 1 : resident / blocks;
    const uint64_t most = (uint64_t)c->rows / (4u * ty);
    splits = splits < most ? splits : most;
    while (splits > 1 && splits * (uint64_t)c->batches > 65535)
        splits--;
    if (splits > 1 && splits * per_split > partial_room) /* a first cap; the groups' partials are checked below */
        splits = partial_room / per_split;
    uint64_t group = splits, ngroups = 1;
    for (; splits > 1; splits = splits > 16 ? splits * 15 / 16 : splits - 1) {
        group = splits;
        ngroups = 1;
        if (splits > 16) {
            group = 1;
            while (group * group < splits)
                group++;
            ngroups = (splits + group - 1) / group;
        }
        const uint64_t tickets = blocks * (ngroups > 1 ? ngroups + 1 : 1);
        if (tickets <= CR_WS_NTICKETS && (splits + (ngroups > 1 ? ngroups : 0)) * per_split <= partial_room)
            break;
    }
    c->splits = splits < 1 ? 1 : (uint32_t)splits;
    c->group = c->splits > 1 ? (uint32_t)group : 1;
    c->ngroups = c->splits > 1 ? (uint32_t)ngroups : 1;
}
