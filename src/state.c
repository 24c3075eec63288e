/*
 * State records (kernels-src/state.cuh): what a state request writes, and
 * how large a record is. Gathered records combine in rank order by
 * kernels-src/combine.cu (tests/state_host.c has the same rule on the host,
 * for the tests' oracles). A record is the element count, then from
 * CR_RECORD_STATE (kernels-src/abi.h) the raw accumulator or, for MIN, MAX,
 * MINMAX and ARG, the result itself.
 */
#include "internal.h"


int cr_state_raw(const struct cr_request *r)
{
    return cr_op(r->op)->rule != CR_RULE_SAME;
}

size_t cr_state_slot(const struct cr_request *r)
{
    if (r->state) /* already a state request: its result is the record */
        return r->acc.result_size;
    if (r->user == NULL && (cr_op(r->op)->flags & CR_OP_EXACT)) /* the count, the digits, special value and flags */
        return CR_RECORD_STATE + cr_exact_state_bytes(r);
    size_t s = cr_state_raw(r) ? r->acc.size : r->acc.result_size;
    return CR_RECORD_STATE + (s + 7) / 8 * 8;
}

void cr_request_state(struct cr_request *r)
{
    r->acc.result_size = cr_state_slot(r);
    r->acc.result_align = 8;
    r->state = 1;
}
