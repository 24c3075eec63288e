/*
 * The public reductions: each fills the one internal request (struct
 * cr_call, src/call.h) from its arguments and hands it to cr_call(). No
 * public function calls another, and every check runs once, in the planner
 * (src/call.c).
 */
#include "call.h"
#include "comm.h"

CR_API cured_status cured_reduce_async(cured_handle h, cured_op op, cured_algorithm algo, const void *in,
                                       cured_type in_type, size_t n, void *out, cured_type out_type,
                                       struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_reduce_async", .h = h, .dest = CR_DEST_LOCAL, .op = op, .algo = algo,
                              .in_type = in_type, .out_type = out_type, .view = CR_VIEW_ARRAY, .in = in, .n = n,
                              .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_reduce(cured_handle h, cured_op op, cured_algorithm algo, const void *in, cured_type in_type,
                                 size_t n, void *host_out, cured_type out_type, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_reduce", .h = h, .dest = CR_DEST_LOCAL, .op = op, .algo = algo,
                              .in_type = in_type, .out_type = out_type, .view = CR_VIEW_ARRAY, .in = in, .n = n,
                              .out = host_out, .host_out = 1, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_reduce_stats_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                             size_t n, double ddof, void *out, cured_type out_type,
                                             struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_reduce_stats_async", .h = h, .dest = CR_DEST_LOCAL, .op = op,
                              .in_type = in_type, .out_type = out_type, .takes_ddof = 1, .ddof = ddof,
                              .view = CR_VIEW_ARRAY, .in = in, .n = n, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_reduce_stats(cured_handle h, cured_op op, const void *in, cured_type in_type, size_t n,
                                       double ddof, void *host_out, cured_type out_type, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_reduce_stats", .h = h, .dest = CR_DEST_LOCAL, .op = op,
                              .in_type = in_type, .out_type = out_type, .takes_ddof = 1, .ddof = ddof,
                              .view = CR_VIEW_ARRAY, .in = in, .n = n, .out = host_out, .host_out = 1,
                              .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_dot_async(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                                    void *out, cured_type out_type, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_dot_async", .h = h, .dest = CR_DEST_LOCAL, .op = CURED_OP_DOT,
                              .in_type = type, .out_type = out_type, .two_inputs = 1, .view = CR_VIEW_ARRAY, .in = x,
                              .in2 = y, .n = n, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_dot(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                              void *host_out, cured_type out_type, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_dot", .h = h, .dest = CR_DEST_LOCAL, .op = CURED_OP_DOT, .in_type = type,
                              .out_type = out_type, .two_inputs = 1, .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n,
                              .out = host_out, .host_out = 1, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_exact_dot_async(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                                          void *out, cured_type out_type, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_exact_dot_async", .h = h, .dest = CR_DEST_LOCAL,
                              .op = CURED_OP_EXACT_DOT, .in_type = type, .out_type = out_type, .two_inputs = 1,
                              .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_exact_dot(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                                    void *host_out, cured_type out_type, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_exact_dot", .h = h, .dest = CR_DEST_LOCAL, .op = CURED_OP_EXACT_DOT,
                              .in_type = type, .out_type = out_type, .two_inputs = 1, .view = CR_VIEW_ARRAY,
                              .in = x, .in2 = y, .n = n, .out = host_out, .host_out = 1, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_reduce_axes_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                            const cured_layout *in_layout, uint32_t axes, void *out,
                                            cured_type out_type, const cured_layout *out_layout,
                                            struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_reduce_axes_async", .h = h, .dest = CR_DEST_LOCAL, .op = op,
                              .in_type = in_type, .out_type = out_type, .view = CR_VIEW_AXES, .in = in,
                              .lay = in_layout, .axes = axes, .out_lay = out_layout, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_reduce_axes_stats_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                                  const cured_layout *in_layout, uint32_t axes, double ddof,
                                                  void *out, cured_type out_type, const cured_layout *out_layout,
                                                  struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_reduce_axes_stats_async", .h = h, .dest = CR_DEST_LOCAL, .op = op,
                              .in_type = in_type, .out_type = out_type, .takes_ddof = 1, .ddof = ddof,
                              .view = CR_VIEW_AXES, .in = in, .lay = in_layout, .axes = axes, .out_lay = out_layout,
                              .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_uniform_segmented_reduce_async(cured_handle h, cured_op op, const void *in,
                                                         cured_type in_type, size_t num_segments,
                                                         size_t segment_size, void *out, cured_type out_type,
                                                         struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_uniform_segmented_reduce_async", .h = h, .dest = CR_DEST_LOCAL, .op = op,
                              .in_type = in_type, .out_type = out_type, .view = CR_VIEW_UNIFORM, .in = in,
                              .num_segments = num_segments, .segment_size = segment_size, .out = out,
                              .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_segmented_reduce_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                                 size_t num_segments, const void *begin, const void *end,
                                                 cured_type offset_type, void *out, cured_type out_type,
                                                 struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_segmented_reduce_async", .h = h, .dest = CR_DEST_LOCAL, .op = op,
                              .in_type = in_type, .out_type = out_type, .view = CR_VIEW_SEGMENTS, .in = in,
                              .num_segments = num_segments, .begin = begin, .end = end, .offset_type = offset_type,
                              .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_segmented_reduce_stats_async(cured_handle h, cured_op op, const void *in,
                                                       cured_type in_type, size_t num_segments, const void *begin,
                                                       const void *end, cured_type offset_type, double ddof,
                                                       void *out, cured_type out_type, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_segmented_reduce_stats_async", .h = h, .dest = CR_DEST_LOCAL, .op = op,
                              .in_type = in_type, .out_type = out_type, .takes_ddof = 1, .ddof = ddof,
                              .view = CR_VIEW_SEGMENTS, .in = in, .num_segments = num_segments, .begin = begin,
                              .end = end, .offset_type = offset_type, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_custom_reduce_async(cured_handle h, cured_custom op, const void *x, const void *y,
                                              size_t n, void *out, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_custom_reduce_async", .h = h, .dest = CR_DEST_LOCAL, .is_user = 1,
                              .user = op, .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n, .out = out,
                              .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_custom_reduce(cured_handle h, cured_custom op, const void *x, const void *y,
                                        size_t n, void *host_out, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_custom_reduce", .h = h, .dest = CR_DEST_LOCAL, .is_user = 1, .user = op,
                              .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n, .out = host_out, .host_out = 1,
                              .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_custom_reduce_axes_async(cured_handle h, cured_custom op, const void *in,
                                                   const cured_layout *in_layout, uint32_t axes, void *out,
                                                   const cured_layout *out_layout, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_custom_reduce_axes_async", .h = h, .dest = CR_DEST_LOCAL, .is_user = 1,
                              .user = op, .view = CR_VIEW_AXES, .in = in, .lay = in_layout, .axes = axes,
                              .out_lay = out_layout, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_custom_segmented_reduce_async(cured_handle h, cured_custom op, const void *in,
                                                        size_t num_segments, const void *begin, const void *end,
                                                        cured_type offset_type, void *out,
                                                        struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_custom_segmented_reduce_async", .h = h, .dest = CR_DEST_LOCAL,
                              .is_user = 1, .user = op, .view = CR_VIEW_SEGMENTS, .in = in,
                              .num_segments = num_segments, .begin = begin, .end = end, .offset_type = offset_type,
                              .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_reduce_async(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                            size_t n_local, void *out, cured_type out_type, unsigned flags,
                                            struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_reduce_async",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = op, .in_type = in_type, .out_type = out_type, .view = CR_VIEW_ARRAY, .in = in,
                              .n = n_local, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_reduce(cured_comm cc, cured_op op, const void *in, cured_type in_type, size_t n_local,
                                      void *host_out, cured_type out_type, unsigned flags, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_reduce",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = op, .in_type = in_type, .out_type = out_type, .view = CR_VIEW_ARRAY, .in = in,
                              .n = n_local, .out = host_out, .host_out = 1, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_dot_async(cured_comm cc, const void *x, const void *y, cured_type type, size_t n_local,
                                         void *out, cured_type out_type, unsigned flags, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_dot_async",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = CURED_OP_DOT, .in_type = type, .out_type = out_type, .two_inputs = 1,
                              .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n_local, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_dot(cured_comm cc, const void *x, const void *y, cured_type type, size_t n_local,
                                   void *host_out, cured_type out_type, unsigned flags, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_dot",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = CURED_OP_DOT, .in_type = type, .out_type = out_type, .two_inputs = 1,
                              .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n_local, .out = host_out, .host_out = 1,
                              .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_exact_dot_async(cured_comm cc, const void *x, const void *y, cured_type type,
                                               size_t n_local, void *out, cured_type out_type, unsigned flags,
                                               struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_exact_dot_async",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = CURED_OP_EXACT_DOT, .in_type = type, .out_type = out_type, .two_inputs = 1,
                              .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n_local, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_exact_dot(cured_comm cc, const void *x, const void *y, cured_type type,
                                         size_t n_local, void *host_out, cured_type out_type, unsigned flags,
                                         struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_exact_dot",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = CURED_OP_EXACT_DOT, .in_type = type, .out_type = out_type, .two_inputs = 1,
                              .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n_local, .out = host_out,
                              .host_out = 1, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_reduce_stats_async(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                                  size_t n_local, double ddof, void *out, cured_type out_type,
                                                  unsigned flags, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_reduce_stats_async",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = op, .in_type = in_type, .out_type = out_type, .takes_ddof = 1, .ddof = ddof,
                              .view = CR_VIEW_ARRAY, .in = in, .n = n_local, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_reduce_stats(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                            size_t n_local, double ddof, void *host_out, cured_type out_type,
                                            unsigned flags, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_reduce_stats",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = op, .in_type = in_type, .out_type = out_type, .takes_ddof = 1, .ddof = ddof,
                              .view = CR_VIEW_ARRAY, .in = in, .n = n_local, .out = host_out, .host_out = 1,
                              .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_reduce_axes_async(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                                 const cured_layout *lay, uint32_t axes, void *out,
                                                 cured_type out_type, unsigned flags, struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_reduce_axes_async",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = op, .in_type = in_type, .out_type = out_type, .view = CR_VIEW_AXES, .in = in,
                              .lay = lay, .axes = axes, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_reduce_axes_stats_async(cured_comm cc, cured_op op, const void *in,
                                                       cured_type in_type, const cured_layout *lay, uint32_t axes,
                                                       double ddof, void *out, cured_type out_type, unsigned flags,
                                                       struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_reduce_axes_stats_async",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .op = op, .in_type = in_type, .out_type = out_type, .takes_ddof = 1, .ddof = ddof,
                              .view = CR_VIEW_AXES, .in = in, .lay = lay, .axes = axes, .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_custom_reduce_async(cured_comm cc, cured_custom op, const void *x, const void *y,
                                                   size_t n_local, void *out, unsigned flags,
                                                   struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_custom_reduce_async",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .is_user = 1, .user = op, .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n_local,
                              .out = out, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_comm_custom_reduce(cured_comm cc, cured_custom op, const void *x, const void *y,
                                             size_t n_local, void *host_out, unsigned flags,
                                             struct CUstream_st *stream)
{
    const struct cr_call c = {.name = "cured_comm_custom_reduce",
                              .comm = cc, .h = cc != NULL ? cc->h : NULL, .dest = CR_DEST_COMM, .flags = flags,
                              .is_user = 1, .user = op, .view = CR_VIEW_ARRAY, .in = x, .in2 = y, .n = n_local,
                              .out = host_out, .host_out = 1, .stream = stream};
    return cr_call(&c);
}

CR_API cured_status cured_prepare(cured_handle h, cured_op op, cured_algorithm algo, cured_type in_type,
                                  cured_type out_type)
{
    return cr_call_prepare(h, op, algo, in_type, out_type);
}
