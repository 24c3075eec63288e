/*
 * Every public reduction, one bad argument at a time: a table of the 29
 * entry points (what each takes) crossed with a table of bad arguments
 * (what each changes in a call that is otherwise valid, and the status and
 * message cured.h documents for it). Each row runs on tests/fakecuda.c's
 * device and tests/fakenccl.c's communicator with no NVRTC, so that the
 * valid call itself stops at CURED_ERROR_NO_NVRTC; a row must give its own
 * status, write neither the poisoned device output nor the poisoned host
 * output, launch nothing, call no collective and leave the caller's context
 * current. The valid call of each entry point is a row too, as are the
 * arguments that are not faults for some calls (an empty shard, a host
 * output at any alignment, n <= ddof for the calls that give NaN).
 */
#include "comm_fake.h"

#include <math.h>
#include <stdint.h>

#define POISON 0x5a

/* What an entry point takes. */
enum {
    T_LOCAL = 1 << 0,   /* a handle */
    T_COMM = 1 << 1,    /* a communicator, and flags */
    T_SYNC = 1 << 2,    /* a host output, the call waits */
    T_ASYNC = 1 << 3,   /* a device output */
    T_OP = 1 << 4,      /* an operator argument (not DOT's calls, not a user op's) */
    T_TYPES = 1 << 5,   /* element and result types (the built-in operators) */
    T_ALGO = 1 << 6,    /* an algorithm */
    T_STATS = 1 << 7,   /* a statistic and ddof */
    T_PLAIN = 1 << 8,   /* an operator argument that is not a statistic's */
    T_TWO = 1 << 9,     /* a second input (DOT, a user op's array calls) */
    T_USER = 1 << 10,   /* a user-defined op */
    T_ARRAY = 1 << 11,  /* n elements */
    T_AXES = 1 << 12,   /* a layout and axes */
    T_OUTLAY = 1 << 13, /* an output layout */
    T_UNIFORM = 1 << 14,
    T_SEGMENTS = 1 << 15, /* offset arrays */
    T_DOT = 1 << 16,
};

enum entry {
    E_REDUCE_ASYNC, E_REDUCE, E_STATS_ASYNC, E_STATS, E_DOT_ASYNC, E_DOT, E_AXES, E_AXES_STATS, E_UNIFORM,
    E_SEGMENTS, E_SEGMENTS_STATS, E_CUSTOM_ASYNC, E_CUSTOM, E_CUSTOM_AXES, E_CUSTOM_SEGMENTS, E_COMM_ASYNC, E_COMM,
    E_COMM_DOT_ASYNC, E_COMM_DOT, E_COMM_STATS_ASYNC, E_COMM_STATS, E_COMM_AXES, E_COMM_AXES_STATS,
    E_COMM_CUSTOM_ASYNC, E_COMM_CUSTOM, E_EXACT_DOT_ASYNC, E_EXACT_DOT, E_COMM_EXACT_DOT_ASYNC, E_COMM_EXACT_DOT,
    E_COUNT
};

static const struct {
    const char *name;
    unsigned traits;
} entries[E_COUNT] = {
    [E_REDUCE_ASYNC] = {"cured_reduce_async", T_LOCAL | T_ASYNC | T_OP | T_PLAIN | T_TYPES | T_ALGO | T_ARRAY},
    [E_REDUCE] = {"cured_reduce", T_LOCAL | T_SYNC | T_OP | T_PLAIN | T_TYPES | T_ALGO | T_ARRAY},
    [E_STATS_ASYNC] = {"cured_reduce_stats_async", T_LOCAL | T_ASYNC | T_OP | T_STATS | T_TYPES | T_ARRAY},
    [E_STATS] = {"cured_reduce_stats", T_LOCAL | T_SYNC | T_OP | T_STATS | T_TYPES | T_ARRAY},
    [E_DOT_ASYNC] = {"cured_dot_async", T_LOCAL | T_ASYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
    [E_DOT] = {"cured_dot", T_LOCAL | T_SYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
    [E_AXES] = {"cured_reduce_axes_async", T_LOCAL | T_ASYNC | T_OP | T_PLAIN | T_TYPES | T_AXES | T_OUTLAY},
    [E_AXES_STATS] = {"cured_reduce_axes_stats_async",
                      T_LOCAL | T_ASYNC | T_OP | T_STATS | T_TYPES | T_AXES | T_OUTLAY},
    [E_UNIFORM] = {"cured_uniform_segmented_reduce_async", T_LOCAL | T_ASYNC | T_OP | T_PLAIN | T_TYPES | T_UNIFORM},
    [E_SEGMENTS] = {"cured_segmented_reduce_async", T_LOCAL | T_ASYNC | T_OP | T_PLAIN | T_TYPES | T_SEGMENTS},
    [E_SEGMENTS_STATS] = {"cured_segmented_reduce_stats_async",
                          T_LOCAL | T_ASYNC | T_OP | T_STATS | T_TYPES | T_SEGMENTS},
    [E_CUSTOM_ASYNC] = {"cured_custom_reduce_async", T_LOCAL | T_ASYNC | T_USER | T_TWO | T_ARRAY},
    [E_CUSTOM] = {"cured_custom_reduce", T_LOCAL | T_SYNC | T_USER | T_TWO | T_ARRAY},
    [E_CUSTOM_AXES] = {"cured_custom_reduce_axes_async", T_LOCAL | T_ASYNC | T_USER | T_AXES | T_OUTLAY},
    [E_CUSTOM_SEGMENTS] = {"cured_custom_segmented_reduce_async", T_LOCAL | T_ASYNC | T_USER | T_SEGMENTS},
    [E_COMM_ASYNC] = {"cured_comm_reduce_async", T_COMM | T_ASYNC | T_OP | T_PLAIN | T_TYPES | T_ARRAY},
    [E_COMM] = {"cured_comm_reduce", T_COMM | T_SYNC | T_OP | T_PLAIN | T_TYPES | T_ARRAY},
    [E_COMM_DOT_ASYNC] = {"cured_comm_dot_async", T_COMM | T_ASYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
    [E_COMM_DOT] = {"cured_comm_dot", T_COMM | T_SYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
    [E_COMM_STATS_ASYNC] = {"cured_comm_reduce_stats_async", T_COMM | T_ASYNC | T_OP | T_STATS | T_TYPES | T_ARRAY},
    [E_COMM_STATS] = {"cured_comm_reduce_stats", T_COMM | T_SYNC | T_OP | T_STATS | T_TYPES | T_ARRAY},
    [E_COMM_AXES] = {"cured_comm_reduce_axes_async", T_COMM | T_ASYNC | T_OP | T_PLAIN | T_TYPES | T_AXES},
    [E_COMM_AXES_STATS] = {"cured_comm_reduce_axes_stats_async",
                           T_COMM | T_ASYNC | T_OP | T_STATS | T_TYPES | T_AXES},
    [E_COMM_CUSTOM_ASYNC] = {"cured_comm_custom_reduce_async", T_COMM | T_ASYNC | T_USER | T_TWO | T_ARRAY},
    [E_COMM_CUSTOM] = {"cured_comm_custom_reduce", T_COMM | T_SYNC | T_USER | T_TWO | T_ARRAY},
    [E_EXACT_DOT_ASYNC] = {"cured_exact_dot_async", T_LOCAL | T_ASYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
    [E_EXACT_DOT] = {"cured_exact_dot", T_LOCAL | T_SYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
    [E_COMM_EXACT_DOT_ASYNC] = {"cured_comm_exact_dot_async", T_COMM | T_ASYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
    [E_COMM_EXACT_DOT] = {"cured_comm_exact_dot", T_COMM | T_SYNC | T_DOT | T_TYPES | T_TWO | T_ARRAY},
};

static cured_handle H;
static cured_comm CC;
static cured_custom ONE, TWO; /* user ops of one and two float32 inputs (float64 accumulator), never compiled */
static unsigned char *X, *OUT, HOST[64]; /* 4096 and 256 device bytes, each followed by unmapped memory */
static int32_t *OFF;                     /* 64 int32 offsets, then unmapped memory */

/* The union of every entry point's arguments. */
struct args {
    cured_handle h;
    cured_comm cc;
    cured_custom user;
    cured_op op;
    cured_algorithm algo;
    const void *in, *in2;
    cured_type in_type, out_type;
    size_t n;
    double ddof;
    void *out;
    const cured_layout *lay, *out_lay;
    uint32_t axes;
    size_t num_segments, segment_size;
    const void *begin, *end;
    cured_type offset_type;
    unsigned flags;
};

static const cured_layout M = {2, {8, 16}, {16, 1}};  /* axis 0 reduced: 16 results of 8 elements */
static const cured_layout EMPTY_OUT = {2, {8, 0}, {16, 1}}; /* no results */

/* A valid call of entry e: float32 elements, SUM (VAR with ddof 1 for the statistics), 16 results at most. */
static struct args valid(enum entry e)
{
    const unsigned t = entries[e].traits;
    struct args a = {
        .h = H, .cc = CC, .user = ONE,
        .op = (t & T_STATS) ? CURED_OP_VAR : (t & T_DOT) ? CURED_OP_DOT : CURED_OP_SUM, /* DOT's: its message */
        .algo = CURED_ALGO_AUTO, .in = X, .in2 = (t & T_TWO) ? X + 512 : NULL,
        .in_type = CURED_TYPE_FLOAT32, .out_type = CURED_TYPE_FLOAT32, .n = 4, .ddof = 1.0,
        .out = (t & T_SYNC) ? (void *)HOST : (void *)OUT, .lay = &M, .out_lay = NULL, .axes = 1u,
        .num_segments = 4, .segment_size = 16, .begin = OFF, .end = OFF + 1,
        .offset_type = CURED_TYPE_INT32, .flags = 0,
    };
    return a;
}

static cured_status call(enum entry e, const struct args *a)
{
    switch (e) {
    case E_REDUCE_ASYNC:
        return cured_reduce_async(a->h, a->op, a->algo, a->in, a->in_type, a->n, a->out, a->out_type, NULL);
    case E_REDUCE:
        return cured_reduce(a->h, a->op, a->algo, a->in, a->in_type, a->n, a->out, a->out_type, NULL);
    case E_STATS_ASYNC:
        return cured_reduce_stats_async(a->h, a->op, a->in, a->in_type, a->n, a->ddof, a->out, a->out_type, NULL);
    case E_STATS:
        return cured_reduce_stats(a->h, a->op, a->in, a->in_type, a->n, a->ddof, a->out, a->out_type, NULL);
    case E_DOT_ASYNC:
        return cured_dot_async(a->h, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, NULL);
    case E_DOT:
        return cured_dot(a->h, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, NULL);
    case E_AXES:
        return cured_reduce_axes_async(a->h, a->op, a->in, a->in_type, a->lay, a->axes, a->out, a->out_type,
                                       a->out_lay, NULL);
    case E_AXES_STATS:
        return cured_reduce_axes_stats_async(a->h, a->op, a->in, a->in_type, a->lay, a->axes, a->ddof, a->out,
                                             a->out_type, a->out_lay, NULL);
    case E_UNIFORM:
        return cured_uniform_segmented_reduce_async(a->h, a->op, a->in, a->in_type, a->num_segments,
                                                    a->segment_size, a->out, a->out_type, NULL);
    case E_SEGMENTS:
        return cured_segmented_reduce_async(a->h, a->op, a->in, a->in_type, a->num_segments, a->begin, a->end,
                                            a->offset_type, a->out, a->out_type, NULL);
    case E_SEGMENTS_STATS:
        return cured_segmented_reduce_stats_async(a->h, a->op, a->in, a->in_type, a->num_segments, a->begin, a->end,
                                                  a->offset_type, a->ddof, a->out, a->out_type, NULL);
    case E_CUSTOM_ASYNC:
        return cured_custom_reduce_async(a->h, a->user, a->in, a->in2, a->n, a->out, NULL);
    case E_CUSTOM:
        return cured_custom_reduce(a->h, a->user, a->in, a->in2, a->n, a->out, NULL);
    case E_CUSTOM_AXES:
        return cured_custom_reduce_axes_async(a->h, a->user, a->in, a->lay, a->axes, a->out, a->out_lay, NULL);
    case E_CUSTOM_SEGMENTS:
        return cured_custom_segmented_reduce_async(a->h, a->user, a->in, a->num_segments, a->begin, a->end,
                                                   a->offset_type, a->out, NULL);
    case E_COMM_ASYNC:
        return cured_comm_reduce_async(a->cc, a->op, a->in, a->in_type, a->n, a->out, a->out_type, a->flags, NULL);
    case E_COMM:
        return cured_comm_reduce(a->cc, a->op, a->in, a->in_type, a->n, a->out, a->out_type, a->flags, NULL);
    case E_COMM_DOT_ASYNC:
        return cured_comm_dot_async(a->cc, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, a->flags, NULL);
    case E_COMM_DOT:
        return cured_comm_dot(a->cc, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, a->flags, NULL);
    case E_EXACT_DOT_ASYNC:
        return cured_exact_dot_async(a->h, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, NULL);
    case E_EXACT_DOT:
        return cured_exact_dot(a->h, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, NULL);
    case E_COMM_EXACT_DOT_ASYNC:
        return cured_comm_exact_dot_async(a->cc, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, a->flags,
                                          NULL);
    case E_COMM_EXACT_DOT:
        return cured_comm_exact_dot(a->cc, a->in, a->in2, a->in_type, a->n, a->out, a->out_type, a->flags, NULL);
    case E_COMM_STATS_ASYNC:
        return cured_comm_reduce_stats_async(a->cc, a->op, a->in, a->in_type, a->n, a->ddof, a->out, a->out_type,
                                             a->flags, NULL);
    case E_COMM_STATS:
        return cured_comm_reduce_stats(a->cc, a->op, a->in, a->in_type, a->n, a->ddof, a->out, a->out_type,
                                       a->flags, NULL);
    case E_COMM_AXES:
        return cured_comm_reduce_axes_async(a->cc, a->op, a->in, a->in_type, a->lay, a->axes, a->out, a->out_type,
                                            a->flags, NULL);
    case E_COMM_AXES_STATS:
        return cured_comm_reduce_axes_stats_async(a->cc, a->op, a->in, a->in_type, a->lay, a->axes, a->ddof, a->out,
                                                  a->out_type, a->flags, NULL);
    case E_COMM_CUSTOM_ASYNC:
        return cured_comm_custom_reduce_async(a->cc, a->user, a->in, a->in2, a->n, a->out, a->flags, NULL);
    case E_COMM_CUSTOM:
        return cured_comm_custom_reduce(a->cc, a->user, a->in, a->in2, a->n, a->out, a->flags, NULL);
    case E_COUNT:
        break;
    }
    ck_abort_msg("entry %d", (int)e);
    return CURED_ERROR_INTERNAL;
}

/* The bad arguments: what each changes, where it applies (every trait of need, none of not), what the call
 * returns and a text its message holds. A status of CURED_ERROR_NO_NVRTC: the argument is no fault there. */
enum bad {
    B_NONE, B_NULL_HANDLE, B_NULL_COMM, B_OP_ENUM, B_DOT_OP, B_NOT_STAT, B_ALGO, B_IN_TYPE, B_OUT_TYPE, B_MISMATCH,
    B_NULL_OUT, B_NULL_IN, B_NULL_Y, B_Y_IGNORED, B_IN_ALIGN, B_Y_ALIGN, B_OUT_ALIGN, B_HOST_ALIGN, B_OVERFLOW,
    B_EMPTY_ARG, B_EMPTY_SHARD, B_EMPTY_SUM, B_DDOF_NEG, B_DDOF_NAN, B_DDOF_INF, B_FEW_SYNC, B_FEW_ASYNC, B_FEW_COMM,
    B_NULL_LAYOUT, B_RANK, B_AXES_BIT, B_STRIDE, B_OUT_LAYOUT, B_AXIS0_KEPT, B_NO_RESULTS, B_OFFSET_TYPE,
    B_NULL_BEGIN, B_NULL_END, B_BEGIN_ALIGN, B_NO_SEGMENTS, B_NO_SEGMENTS_ALIGN, B_SEGMENTS_OVERFLOW, B_FLAGS, B_BITWISE,
    B_NULL_USER, B_TWO_INPUT_USER, B_HOST_DEVICE_OUT, B_IN_RANGE, B_EXACT_INT, B_EXACT_DOT_OP, B_EXACT_NOT_STAT,
    B_EXACT_ALGO, B_COUNT
};

static const struct {
    const char *what;
    unsigned need, not;
    cured_status want;
    const char *needle; /* NULL: the entry point's operator name */
} bads[B_COUNT] = {
    [B_NONE] = {"valid", 0, 0, CURED_ERROR_NO_NVRTC, ""},
    [B_NULL_HANDLE] = {"NULL handle", T_LOCAL, 0, CURED_ERROR_NULL_HANDLE, "handle is NULL"},
    [B_NULL_COMM] = {"NULL communicator", T_COMM, 0, CURED_ERROR_NULL_HANDLE, "communicator is NULL"},
    [B_OP_ENUM] = {"operator 99", T_OP, 0, CURED_ERROR_INVALID_ENUM, "operator 99"},
    [B_DOT_OP] = {"DOT through a one-input call", T_PLAIN, 0, CURED_ERROR_INVALID_VALUE, "two inputs"},
    [B_NOT_STAT] = {"SUM through a statistics call", T_STATS, 0, CURED_ERROR_INVALID_VALUE, "not SUM"},
    [B_ALGO] = {"algorithm 7", T_ALGO, 0, CURED_ERROR_INVALID_ENUM, "algorithm 7"},
    [B_IN_TYPE] = {"input type 99", T_TYPES, 0, CURED_ERROR_INVALID_ENUM, "input type"},
    [B_OUT_TYPE] = {"result type -1", T_TYPES, 0, CURED_ERROR_INVALID_ENUM, "result type"},
    [B_MISMATCH] = {"an int32 result of float32", T_TYPES, 0, CURED_ERROR_TYPE_MISMATCH, NULL},
    [B_NULL_OUT] = {"NULL output", 0, 0, CURED_ERROR_NULL_POINTER, "output"},
    [B_NULL_IN] = {"NULL input", 0, 0, CURED_ERROR_NULL_POINTER, "input"},
    [B_NULL_Y] = {"NULL second input", T_TWO, 0, CURED_ERROR_NULL_POINTER, "(y)"},
    [B_Y_IGNORED] = {"a one-input op's misaligned y (ignored)", T_USER | T_TWO, 0, CURED_ERROR_NO_NVRTC, ""},
    [B_IN_ALIGN] = {"misaligned input", 0, 0, CURED_ERROR_MISALIGNED, "input"},
    [B_Y_ALIGN] = {"misaligned second input", T_TWO, 0, CURED_ERROR_MISALIGNED, "(y)"},
    [B_OUT_ALIGN] = {"misaligned device output", T_ASYNC, 0, CURED_ERROR_MISALIGNED, "output"},
    [B_HOST_ALIGN] = {"host output at an odd address", T_SYNC, 0, CURED_ERROR_NO_NVRTC, ""},
    [B_OVERFLOW] = {"n * size overflows", T_ARRAY, 0, CURED_ERROR_SIZE_OVERFLOW, "overflows"},
    [B_EMPTY_ARG] = {"ARGMAX of no element", T_LOCAL | T_PLAIN | T_ARRAY, 0, CURED_ERROR_EMPTY_INPUT, "empty"},
    [B_EMPTY_SHARD] = {"ARGMAX of an empty shard", T_COMM | T_PLAIN | T_ARRAY, 0, CURED_ERROR_NO_NVRTC, ""},
    [B_EMPTY_SUM] = {"no element, NULL inputs", T_ARRAY, T_STATS, CURED_ERROR_NO_NVRTC, ""},
    [B_DDOF_NEG] = {"ddof -1", T_STATS, 0, CURED_ERROR_INVALID_VALUE, "ddof"},
    [B_DDOF_NAN] = {"ddof NaN", T_STATS, 0, CURED_ERROR_INVALID_VALUE, "ddof"},
    [B_DDOF_INF] = {"ddof inf", T_STATS, 0, CURED_ERROR_INVALID_VALUE, "ddof"},
    [B_FEW_SYNC] = {"n <= ddof, here", T_STATS | T_SYNC | T_LOCAL | T_ARRAY, 0, CURED_ERROR_TOO_FEW_ELEMENTS,
                    "n <= ddof"},
    [B_FEW_ASYNC] = {"n <= ddof, asynchronous (NaN)", T_STATS | T_ARRAY | T_ASYNC, 0, CURED_ERROR_NO_NVRTC, ""},
    [B_FEW_COMM] = {"n <= ddof on this rank (the global count decides)", T_STATS | T_ARRAY | T_COMM | T_SYNC, 0,
                    CURED_ERROR_NO_NVRTC, ""},
    [B_NULL_LAYOUT] = {"NULL layout", T_AXES, 0, CURED_ERROR_NULL_POINTER, "layout"},
    [B_RANK] = {"rank 9", T_AXES, 0, CURED_ERROR_INVALID_VALUE, "rank 9"},
    [B_AXES_BIT] = {"an axis bit above the rank", T_AXES, 0, CURED_ERROR_INVALID_VALUE, "0x9"},
    [B_STRIDE] = {"a negative stride", T_AXES, 0, CURED_ERROR_INVALID_VALUE, "stride -16"},
    [B_OUT_LAYOUT] = {"an output layout of the wrong rank", T_OUTLAY, 0, CURED_ERROR_INVALID_VALUE, "rank 2"},
    [B_AXIS0_KEPT] = {"the sharded axis kept", T_COMM | T_AXES, 0, CURED_ERROR_INVALID_VALUE, "sharded axis 0"},
    [B_NO_RESULTS] = {"no results, NULL output", T_AXES, 0, CURED_SUCCESS, ""},
    [B_OFFSET_TYPE] = {"float32 offsets", T_SEGMENTS, 0, CURED_ERROR_INVALID_VALUE, "int32 or int64"},
    [B_NULL_BEGIN] = {"NULL begin offsets", T_SEGMENTS, 0, CURED_ERROR_NULL_POINTER, "begin offsets"},
    [B_NULL_END] = {"NULL end offsets", T_SEGMENTS, 0, CURED_ERROR_NULL_POINTER, "end offsets"},
    [B_BEGIN_ALIGN] = {"misaligned offsets", T_SEGMENTS, 0, CURED_ERROR_MISALIGNED, "offset"},
    [B_NO_SEGMENTS] = {"no segments, NULL pointers", 0, T_ARRAY | T_AXES, CURED_SUCCESS, ""},
    [B_NO_SEGMENTS_ALIGN] = {"no segments, a misaligned input", T_SEGMENTS, 0, CURED_ERROR_MISALIGNED, "input"},
    [B_SEGMENTS_OVERFLOW] = {"2^40 segments of 2^40", T_UNIFORM, 0, CURED_ERROR_SIZE_OVERFLOW, "overflow"},
    [B_FLAGS] = {"flags 2", T_COMM, 0, CURED_ERROR_INVALID_VALUE, "flags"},
    [B_BITWISE] = {"CURED_COMM_BITWISE on a whole-array call", T_COMM | T_ARRAY, 0, CURED_ERROR_INVALID_VALUE,
                   "flags"},
    [B_NULL_USER] = {"NULL user op", T_USER, 0, CURED_ERROR_NULL_POINTER, "user-defined op"},
    [B_TWO_INPUT_USER] = {"a two-input op along axes", T_USER, T_ARRAY, CURED_ERROR_INVALID_VALUE, "two inputs"},
    [B_HOST_DEVICE_OUT] = {"a host output where a device one goes", T_ASYNC, 0, CURED_ERROR_NOT_DEVICE_POINTER,
                           "output"},
    [B_IN_RANGE] = {"an input past its allocation", 0, T_SEGMENTS, CURED_ERROR_OUT_OF_RANGE, "input"},
    [B_EXACT_INT] = {"EXACT_SUM of int32", T_PLAIN, 0, CURED_ERROR_TYPE_MISMATCH, "EXACT_SUM of int32"},
    [B_EXACT_DOT_OP] = {"EXACT_DOT through a one-input call", T_PLAIN, 0, CURED_ERROR_INVALID_VALUE, "two inputs"},
    [B_EXACT_NOT_STAT] = {"EXACT_MEAN through a statistics call", T_STATS, 0, CURED_ERROR_INVALID_VALUE,
                          "not EXACT_MEAN"},
    [B_EXACT_ALGO] = {"EXACT_SUM with a Handbook algorithm", T_ALGO, 0, CURED_ERROR_NOT_SUPPORTED, "EXACT_SUM"},
};

/* Entry e's call with bad argument b. */
static struct args with(enum entry e, enum bad b)
{
    const unsigned t = entries[e].traits;
    struct args a = valid(e);
    static const cured_layout rank9 = {9, {1}, {1}}, neg = {2, {8, 16}, {-16, 1}}, o_rank = {2, {8, 1}, {1, 1}},
                              tall = {2, {65, 16}, {16, 1}}; /* 4160 bytes of float32 */
    switch (b) {
    case B_NONE: break;
    case B_NULL_HANDLE: a.h = NULL; break;
    case B_NULL_COMM: a.cc = NULL; break;
    case B_OP_ENUM: a.op = (cured_op)99; break;
    case B_DOT_OP: a.op = CURED_OP_DOT; break;
    case B_EXACT_INT: a.op = CURED_OP_EXACT_SUM, a.in_type = CURED_TYPE_INT32, a.out_type = CURED_TYPE_INT64; break;
    case B_EXACT_DOT_OP: a.op = CURED_OP_EXACT_DOT; break;
    case B_EXACT_NOT_STAT: a.op = CURED_OP_EXACT_MEAN; break;
    case B_EXACT_ALGO: a.op = CURED_OP_EXACT_SUM, a.algo = CURED_ALGO_SINGLE_PASS_TICKET; break;
    case B_NOT_STAT: a.op = CURED_OP_SUM; break;
    case B_ALGO: a.algo = (cured_algorithm)7; break;
    case B_IN_TYPE: a.in_type = (cured_type)99; break;
    case B_OUT_TYPE: a.out_type = (cured_type)-1; break;
    case B_MISMATCH: a.out_type = CURED_TYPE_INT32; break;
    case B_NULL_OUT: a.out = NULL; break;
    case B_NULL_IN: a.in = NULL; break;
    case B_NULL_Y: a.in2 = NULL; a.user = TWO; break;
    case B_Y_IGNORED: a.in2 = X + 3; break; /* ONE takes no y */
    case B_IN_ALIGN: a.in = X + 2; break;
    case B_Y_ALIGN: a.in2 = X + 514; a.user = TWO; break;
    case B_OUT_ALIGN: /* OUT + 4: an 8-byte result (the user op's float64; float64 results; ARGMAX's pair) */
        a.out = OUT + 4;
        if (t & (T_STATS | T_DOT))
            a.out_type = CURED_TYPE_FLOAT64;
        else if (t & T_OP)
            a.op = CURED_OP_ARGMAX;
        break;
    case B_HOST_ALIGN: a.out = HOST + 1; break;
    case B_OVERFLOW: a.n = SIZE_MAX / 2; break;
    case B_EMPTY_ARG: case B_EMPTY_SHARD: a.op = CURED_OP_ARGMAX; a.n = 0; break;
    case B_EMPTY_SUM: a.n = 0; a.in = NULL; a.in2 = NULL; break;
    case B_DDOF_NEG: a.ddof = -1; break;
    case B_DDOF_NAN: a.ddof = NAN; break;
    case B_DDOF_INF: a.ddof = INFINITY; break;
    case B_FEW_SYNC: case B_FEW_ASYNC: case B_FEW_COMM: a.n = 1; break;
    case B_NULL_LAYOUT: a.lay = NULL; break;
    case B_RANK: a.lay = &rank9; break;
    case B_AXES_BIT: a.axes = 9u; break;
    case B_STRIDE: a.lay = &neg; break;
    case B_OUT_LAYOUT: a.out_lay = &o_rank; break;
    case B_AXIS0_KEPT: a.axes = 2u; break;
    case B_NO_RESULTS: a.lay = &EMPTY_OUT; a.out = NULL; a.in = NULL; break;
    case B_OFFSET_TYPE: a.offset_type = CURED_TYPE_FLOAT32; break;
    case B_NULL_BEGIN: a.begin = NULL; break;
    case B_NULL_END: a.end = NULL; break;
    case B_BEGIN_ALIGN: a.offset_type = CURED_TYPE_INT64; a.end = OFF + 1; break; /* OFF + 1: 4 bytes in */
    case B_NO_SEGMENTS: a.num_segments = 0; a.in = a.out = NULL; a.begin = a.end = NULL; break;
    case B_NO_SEGMENTS_ALIGN: a.num_segments = 0; a.in = X + 2; a.begin = a.end = NULL; break;
    case B_SEGMENTS_OVERFLOW: a.num_segments = a.segment_size = (size_t)1 << 40; break;
    case B_FLAGS: a.flags = 2; break;
    case B_BITWISE: a.flags = CURED_COMM_BITWISE; break;
    case B_NULL_USER: a.user = NULL; break;
    case B_TWO_INPUT_USER: a.user = TWO; break;
    case B_HOST_DEVICE_OUT: a.out = HOST; break;
    case B_IN_RANGE:
        a.n = 1025; /* 4100 bytes of 4096 */
        a.lay = &tall;
        a.segment_size = 257; /* uniform: 4 x 257 */
        break;
    case B_COUNT: break;
    }
    return a;
}

static struct fake_counts before;

static void setup(void)
{
    H = fake_handle(0);
    CC = fake_comm(H, "2", "1", 0);
    X = fake_alloc(4096, 1, 4096);
    OUT = fake_alloc(256, 1, 4096);
    OFF = fake_alloc(256, 1, 4096);
    memset(X, 0, 4096);
    memset(OFF, 0, 256);
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x", "a + b", "0", &ONE),
                     CURED_SUCCESS);
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 2, "x * y", "a + b", "0", &TWO),
                     CURED_SUCCESS);
}

static void teardown(void)
{
    cured_custom_destroy(ONE);
    cured_custom_destroy(TWO);
    ck_assert_int_eq(cured_comm_destroy(CC), CURED_SUCCESS);
    ck_assert_int_eq(cured_destroy(H), CURED_SUCCESS);
}

/* One row: entry e with bad argument b. */
static void row(enum entry e, enum bad b)
{
    const struct args a = with(e, b);
    const cured_status want = bads[b].want;
    const char *needle = bads[b].needle ? bads[b].needle : cured_op_name(a.op);
    memset(OUT, POISON, 256);
    memset(HOST, POISON, sizeof HOST);
    before = counts();
    const int gathers = ncalls();
    clear_error();
    const cured_status got = call(e, &a);
    ck_assert_msg(got == want, "%s, %s: got %s, want %s: %s", entries[e].name, bads[b].what,
                  cured_status_string(got), cured_status_string(want), cured_last_error());
    if (want == CURED_SUCCESS)
        ck_assert_msg(cured_last_error()[0] == '\0', "%s, %s: a success left a message: %s", entries[e].name,
                      bads[b].what, cured_last_error());
    else if (want != CURED_ERROR_NO_NVRTC)
        ck_assert_msg(strstr(cured_last_error(), needle) != NULL, "%s, %s: message \"%s\" does not hold \"%s\"",
                      entries[e].name, bads[b].what, cured_last_error(), needle);
    for (int i = 0; i < 256; i++)
        ck_assert_msg(OUT[i] == POISON, "%s, %s: wrote device byte %d", entries[e].name, bads[b].what, i);
    for (size_t i = 0; i < sizeof HOST; i++)
        ck_assert_msg(HOST[i] == POISON, "%s, %s: wrote host byte %zu", entries[e].name, bads[b].what, i);
    const struct fake_counts c = counts();
    ck_assert_msg(c.launches == before.launches && c.memsets == before.memsets && c.syncs == before.syncs,
                  "%s, %s: %d launches, %d memsets, %d syncs", entries[e].name, bads[b].what,
                  c.launches - before.launches, c.memsets - before.memsets, c.syncs - before.syncs);
    if (want != CURED_ERROR_NO_NVRTC) /* a refusal allocates nothing either */
        ck_assert_msg(c.allocs == before.allocs, "%s, %s: %d allocations", entries[e].name, bads[b].what,
                      c.allocs - before.allocs);
    ck_assert_msg(c.pushed == 0, "%s, %s: the handle's context is still current", entries[e].name, bads[b].what);
    ck_assert_msg(ncalls() == gathers, "%s, %s: a collective was called", entries[e].name, bads[b].what);
}

static int applies(enum entry e, enum bad b)
{
    const unsigned t = entries[e].traits;
    return (t & bads[b].need) == bads[b].need && (t & bads[b].not) == 0;
}

START_TEST(test_each_entry_each_bad_argument)
{
    setup();
    int rows = 0, refusals[E_COUNT] = {0};
    for (int e = 0; e < E_COUNT; e++)
        for (int b = 0; b < B_COUNT; b++)
            if (applies((enum entry)e, (enum bad)b)) {
                row((enum entry)e, (enum bad)b);
                rows++;
                refusals[e] += bads[b].want != CURED_ERROR_NO_NVRTC && bads[b].want != CURED_SUCCESS;
            }
    /* every entry point met the faults of each of its arguments (at least handle, output, input, and its own) */
    for (int e = 0; e < E_COUNT; e++)
        ck_assert_msg(refusals[e] >= 6, "%s: %d refusals", entries[e].name, refusals[e]);
    printf("%d rows over %d entry points\n", rows, (int)E_COUNT);
    teardown();
}
END_TEST

int main(void)
{
    if (!fake_comm_libraries())
        return 77;
    Suite *s = suite_create("entry-refusals");
    TCase *tc = tcase_create("entry-refusals");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_each_entry_each_bad_argument);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
