/*
 * The one internal request: every public reduction fills a struct cr_call
 * (src/api.c) and hands it to cr_call(), which checks it once, plans it once
 * and runs it (src/call.c). HACKING.md's call path follows it.
 */
#ifndef CURED_CALL_H
#define CURED_CALL_H

#include "internal.h"

/* What the call reduces. */
enum cr_view {
    CR_VIEW_ARRAY,    /* n contiguous elements (and DOT's second input) to one result */
    CR_VIEW_AXES,     /* an N-D layout, reduced along a set of axes */
    CR_VIEW_UNIFORM,  /* num_segments contiguous segments of segment_size elements */
    CR_VIEW_SEGMENTS  /* segments given by begin/end offset arrays */
};

/* Where the results go. */
enum cr_dest {
    CR_DEST_LOCAL, /* this handle's device: out, or host_out for a synchronous call */
    CR_DEST_COMM   /* every rank of a communicator */
};

struct cr_call {
    const char *name; /* the public function, for messages */
    /* the operator: a built-in row, or a user-defined op */
    int is_user;
    cured_op op;
    cured_custom user;
    cured_algorithm algo;
    cured_type in_type, out_type; /* built-in operators (a user op has its own) */
    int takes_ddof;               /* the statistics' calls: ddof below, and only statistics */
    double ddof;
    int two_inputs;               /* DOT (built-in); a user op says itself */
    /* the view */
    enum cr_view view;
    const void *in, *in2;
    size_t n;
    const cured_layout *lay, *out_lay;
    uint32_t axes;
    size_t num_segments, segment_size;
    const void *begin, *end;
    cured_type offset_type;
    /* the destination */
    enum cr_dest dest;
    cured_handle h;
    cured_comm comm;
    unsigned flags;   /* communicator calls: CURED_COMM_* */
    void *out;
    int host_out;     /* a synchronous call: out is host memory, the call waits */
    int state;        /* write state records, not results (a communicator's ranks, state.c) */
    CUstream stream;
};

/* What the planner made of a call: the request (operator, types, accumulator and the
 * variant chosen), the geometry of a many-result view, and whether one contiguous
 * result of a contiguous input remains (the whole-array kernels over n elements). */
struct cr_planned {
    struct cr_request r;
    struct cr_geometry g;
    int whole;
    size_t n;        /* whole: elements */
    int nothing;     /* no results (an empty view of no outputs, no segments): success, nothing launched */
};

/* Check and plan a call without touching the GPU (the handle gives device facts only). */
cured_status cr_call_plan(const struct cr_call *c, struct cr_planned *p);
/* The same without the handle's NULL check (the tests plan with a stand-in handle, or none for 1-D views). */
cured_status cr_call_check(const struct cr_call *c, struct cr_planned *p);
/* Check, plan and run a call: the one way down of every public reduction. */
cured_status cr_call(const struct cr_call *c);
/* Run a planned local call (the communicator's NCCL path reuses it for its local part). */
cured_status cr_call_local(const struct cr_call *c, struct cr_planned *p);
/* cured_prepare: the operator's checks, then its kernels loaded in h's context. */
cured_status cr_call_prepare(cured_handle h, cured_op op, cured_algorithm algo, cured_type in_type,
                             cured_type out_type);

/* ---- the pieces the planner uses (also the tests') ----------------------- */
/* The operator and types of a built-in request (enums, the operator table, the families). */
cured_status cr_check_op(cured_op op, cured_algorithm algo, cured_type in_type, cured_type out_type,
                         struct cr_request *r);
/* A contiguous view's pointers: output, input, size, alignment; empty input for the operators without a value
 * for it unless allow_empty (a communicator's shard). host_out: the output is a host buffer (no alignment). */
cured_status cr_check_array(const struct cr_request *r, const void *in, size_t n, const void *out, int host_out,
                            int allow_empty);

/* ---- user-defined ops (custom.c, custom_axes.c) -------------------------- */
/* The target of a user op's whole-array kernels, and of a many-result variant (arg: struct cr_user_want). */
struct cr_user_want {
    cured_custom op;
    const struct cr_request *req; /* the op's request with the planned shape */
};
cured_status cr_custom_target(cured_handle h, const void *arg, struct cr_target *t);
cured_status cr_custom_variant_target(cured_handle h, const void *arg, struct cr_target *t);

/* ---- communicators (comm.c, comm_axes.c, comm_custom.c) ------------------ */
/* Run a planned call whose destination is a communicator. */
cured_status cr_comm_call(const struct cr_call *c, struct cr_planned *p);
cured_status cr_comm_axes(const struct cr_call *c, struct cr_planned *p);
cured_status cr_comm_custom(const struct cr_call *c, const struct cr_request *r);

#endif
