/*
 * Requests, kernel families, compile units and launch plans (HACKING.md's
 * glossary). A request says what the caller asked for; a family is one
 * kind of kernel (a source file and how to name, plan and launch its
 * kernels); a family builds a compile unit (one NVRTC program) for a
 * request, and plans each launch from the request, the loaded kernels and
 * the device.
 */
#ifndef CURED_FAMILY_H
#define CURED_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "cured.h"
#include "../kernels-src/abi.h"

/* ---- types.c -------------------------------------------------------------- */
enum cr_type_class { CR_SIGNED, CR_UNSIGNED, CR_HALF, CR_FLOAT };
struct cr_type_info {
    const char *name, *cxx; /* "int32", "int" */
    size_t size;
    enum cr_type_class cls;
};
const struct cr_type_info *cr_type(cured_type t); /* NULL for an unknown value */
size_t cr_type_size(cured_type t);                /* 0 for an unknown value */
const char *cr_type_name(cured_type t);           /* "int32", ...; "unknown" */
const char *cr_type_cxx(cured_type t);            /* "int", "half_t", ... (t valid) */

/* ---- ops.c: the operator table ------------------------------------------- */
enum cr_result_rule {
    CR_RULE_SUM,     /* sums and products: see cured_op */
    CR_RULE_NORM,    /* float32 or float64 */
    CR_RULE_SAME,    /* the element type (MIN, MAX, MINMAX, ARG*) */
    CR_RULE_BITWISE, /* integers only, the element type */
    CR_RULE_COUNT,   /* int64 */
    CR_RULE_STATS,   /* FLOAT32 or FLOAT64 for 16/32-bit floats, FLOAT64 otherwise */
    CR_RULE_EXACT    /* float elements: their own type or a wider float type */
};
enum cr_layout {
    CR_LAYOUT_VALUE, /* one value of the result type */
    CR_LAYOUT_PAIR,  /* two values: min then max (MINMAX), mean then variance (MEAN_VAR) */
    CR_LAYOUT_ARG    /* cured_arg_result */
};
#define CR_OP_IGNORES_NAN 1u /* floating types only; all NaN is reported */
#define CR_OP_NO_EMPTY 2u    /* no value for n == 0: CURED_ERROR_EMPTY_INPUT */
#define CR_OP_TWO_INPUTS 4u  /* map2(x, y): cured_dot */
#define CR_OP_HANDBOOK 8u    /* the Handbook's variants offer its int32 forms */
#define CR_OP_STATS 16u      /* a statistic: the stats family (family_stats.c, kernels-src/stats.cu) */
#define CR_OP_DOF 32u        /* NaN when n <= ddof: CURED_ERROR_TOO_FEW_ELEMENTS from synchronous calls */
#define CR_OP_SKIPS_NAN 64u  /* its base operator over the elements that are not NaN (NANSUM, NANMEAN...) */
#define CR_OP_EXACT 128u     /* its base operator's exact value rounded once (the exact family, family_exact.c) */
/* The NaN a NaN-skipping statistic writes for too few elements (kernels-src/stats.cuh's
 * stats_too_few: the two must agree; test-stats-emu's statuses check it). */
#define CR_TOO_FEW_F32 0x7fc0c0deu
#define CR_TOO_FEW_F64 0x7ff8c0de00000000ull

struct cr_op_info {
    const char *name;    /* "SUM": the enumerator without CURED_OP_ */
    const char *functor; /* its template in kernels-src/ops.cuh */
    enum cr_result_rule rule;
    enum cr_layout layout;
    unsigned flags;
    size_t state; /* bytes of the operator's own state struct (8-byte aligned); 0: from the layout */
    cured_op base; /* CR_OP_SKIPS_NAN: the operator it is with NaN elements left out; CR_OP_EXACT: the one it rounds
                      correctly */
};
const struct cr_op_info *cr_op(cured_op op); /* NULL for an unknown value */
/* The operator a request runs: a NaN-skipping one's base for element types without NaN. */
cured_op cr_op_for_type(cured_op op, cured_type in);
/* The operator whose rules (ddof, n = 0) apply: the base of a NaN-skipping one, else op itself. */
cured_op cr_op_base(cured_op op);
/* A synchronous call's status from its host result: CURED_ERROR_ALL_NAN (NANMIN, NANMAX,
 * NANARG*), CURED_ERROR_TOO_FEW_ELEMENTS (NANMEAN, NANVAR, NANSTD), or CURED_SUCCESS. */
cured_status cr_op_result_status(cured_op op, cured_type out, const void *result);

/* What an operator allows the axis planner (src/axes.c), for built-in rows and user ops alike. */
struct cr_traits {
    unsigned packed_max;     /* longest row, in bytes, of the PACKED shape (0: never packed) */
    unsigned row_warp_waves; /* rows up to 64 KiB keep a warp each from this many waves of blocks of rows on
                                (0: from 16 KiB a row always takes blocks) */
    int foldable;            /* columns narrower than 16 bytes may be read as 16-byte rows (any order and grouping) */
};
struct cr_request;
struct cr_traits cr_request_traits(const struct cr_request *r);

/* An operator's accumulator for an element and result type. */
struct cr_acc {
    enum cr_layout layout;
    cured_type scalar;  /* VALUE: the accumulator; PAIR: each half; ARG: the key */
    size_t size, align; /* of one partial */
    size_t result_size, result_align;
};
/* 1 and *acc (may be NULL) if (op, in, out) is offered, else 0. */
int cr_op_accumulator(cured_op op, cured_type in, cured_type out, struct cr_acc *acc);

/* ---- requests, units, plans ----------------------------------------------- */
/* A user-defined operator's programs (custom.c makes them): the families build their units from them. */
struct cr_user {
    char *source;      /* the generated program (the whole-array kernels of fast.cu) */
    char *axes_source; /* the same op with the many-result kernels of segmented.cu */
};

/* What the request reduces: one array to one result, or many results at once
 * (family_segmented.c; the geometry travels in struct cr_args). */
enum cr_shape {
    CR_SHAPE_WHOLE,      /* n elements to one result */
    CR_SHAPE_ROWS,       /* a contiguous row per output, `group` threads each */
    CR_SHAPE_ROWS_SPLIT, /* a contiguous row per output, one or more blocks each */
    CR_SHAPE_SEGMENTS,   /* rows given by begin/end offset arrays, `group` threads each */
    CR_SHAPE_COLS,       /* outputs adjacent in memory, reduced along a strided axis */
    CR_SHAPE_STRIDED,    /* any other layout: a warp per output */
    CR_SHAPE_COMBINE,    /* gathered states of a communicator's ranks, combined in rank order (family_comm.c) */
    CR_SHAPE_PACKED      /* short contiguous rows (`group` bytes, up to 64): whole 16-byte vectors per thread */
};

struct cr_request {
    cured_op op;           /* built-in operator (unused for user ops) */
    cured_algorithm algo;
    cured_type in, out;
    int ninputs;           /* 1, or 2 for DOT and two-input user ops */
    struct cr_acc acc;
    const struct cr_user *user; /* NULL for built-in operators */
    enum cr_shape shape;
    int group, vec;        /* ROWS, SEGMENTS: threads per output; COLS: lanes across, columns per lane;
                              PACKED: bytes per row */
    cured_type offsets;    /* SEGMENTS: INT32 or INT64 */
    double ddof;           /* VAR, STD, MEAN_VAR: delta degrees of freedom (a launch parameter) */
    int state;             /* write the state record, not the result (state.c, kernels-src/state.cuh) */
};

#define CR_MAX_KERNELS 7 /* name expressions in one program (two-pass: 2; exact sums: 7) */
struct cr_unit {
    const char *file;   /* kernels-src file, e.g. "fast.cu" */
    const char *source; /* its text; NULL = the embedded file */
    int needs_toolkit;  /* includes cooperative_groups.h */
    int nkernels;
    char kernels[CR_MAX_KERNELS][384]; /* NVRTC name expressions */
    char label[160];    /* for cured_kernel_name() and logs */
    int block, unroll;  /* compile-time shape the plan needs */
};

/* The geometry of a many-result request: struct cr_kept, cr_reduced and
 * cr_cols are the kernels' own (kernels-src/abi.h, one definition for both
 * sides), as are the segment kernels' cr_long_list and cr_seg_guard. */
_Static_assert(CR_ABI_MAX_RANK == CURED_MAX_RANK, "the kernels' dimensions are cured_layout's");
struct cr_geometry {
    uint64_t nout, len;      /* outputs; elements per output (ROWS, STRIDED) */
    struct cr_kept kept;
    struct cr_reduced red;
    struct cr_cols cols;
    unsigned per;            /* ROWS_SPLIT: blocks per row */
    unsigned dense;          /* PACKED: results stored a vector's rows at a time */
    const void *begin, *end; /* SEGMENTS: device offset arrays */
    int offsets_32;          /* SEGMENTS: int32 offsets */
    uint64_t limit;          /* SEGMENTS: elements the offsets may index from the input (cr_segment_limit) */
    int limit_sized;         /* SEGMENTS: 1 where mapped memory was measured up to limit (which may be the output's
                                start), 0 where the driver could not size it (limit is then only a bound) */
    size_t in_bytes, out_bytes, offset_bytes; /* the ranges the call reads and writes */
    const char *overlap;     /* what the output overlaps (refused after the range checks), or NULL */
};

/* Gathered state records (CR_SHAPE_COMBINE): nranks records of record_bytes,
 * output j's state at j * slot in each. */
struct cr_gather {
    CUdeviceptr records;
    uint64_t record_bytes, nout, slot;
    int nranks;
};

/* What a plan launches with. */
struct cr_args {
    const void *in, *in2; /* inputs (in2: second input, or NULL) */
    size_t n;
    CUdeviceptr out;      /* device result */
    CUdeviceptr ws;       /* the stream's workspace slot */
    const struct cr_geometry *geo; /* many-result requests, else NULL */
    double ddof;          /* the request's ddof */
    const struct cr_gather *gather; /* CR_SHAPE_COMBINE, else NULL */
};

/* One or two launches with their parameters; the values live in the plan.
 * Scalar parameters are stored as 8-byte values: pointers and size_t use
 * all of them, the few 4-byte ones (unsigned) their low bytes, which is
 * what cuLaunchKernel reads on the little-endian hosts CUDA runs on. */
#define CR_MAX_PARAMS 12
struct cr_launch {
    int fn;               /* index into the loaded kernels */
    unsigned grid, grid_y, block;
    int nparams;
    void *params[CR_MAX_PARAMS];
};
struct cr_plan {
    int nlaunch;
    struct cr_launch l[CR_MAX_KERNELS];
    int nvalues;
    uint64_t values[CR_MAX_KERNELS * CR_MAX_PARAMS];
    size_t nblob;                 /* struct parameters, 8-byte aligned */
    uint64_t blob[192];
    int overflow;                 /* a plan outgrew these arrays: a bug, refused at launch */
};
/* Append a launch; then its parameters, in the kernel's order. */
struct cr_launch *cr_plan_launch(struct cr_plan *p, int fn, unsigned grid, unsigned block);
void cr_plan_param(struct cr_plan *p, struct cr_launch *l, uint64_t value);
void cr_plan_struct(struct cr_plan *p, struct cr_launch *l, const void *value, size_t size);
/* A combine kernel's first parameters (records, record bytes, ranks, outputs, slot, out), from a->gather. */
void cr_plan_gather(struct cr_plan *p, struct cr_launch *l, const struct cr_args *a);

/* The device facts and loaded kernels a plan reads. */
struct cr_device_facts {
    int sms;
    size_t partials_capacity; /* partials of CR_MAX_ACC bytes a slot holds */
};
struct cr_kernel;

/*
 * A kernel family. offers: 1 if it serves the request; build: the compile
 * unit; plan: the launches for a request it offers; enumerate: its i-th
 * built-in request (for cured_kernel_count() and `cured cache warm`), 0
 * past the end.
 */
struct cr_family {
    const char *name;
    const char *file;
    int needs_toolkit;
    int (*offers)(const struct cr_request *r);
    void (*build)(const struct cr_request *r, struct cr_unit *u);
    void (*plan)(const struct cr_request *r, const struct cr_unit *u, const struct cr_kernel *k,
                 const struct cr_device_facts *dev, const struct cr_args *a, struct cr_plan *p);
    int (*enumerate)(size_t i, struct cr_request *r);
};
extern const struct cr_family cr_family_segmented, cr_family_auto, cr_family_auto2, cr_family_two_pass_shared,
    cr_family_two_pass_shuffle, cr_family_two_pass_cg, cr_family_single_pass_ticket,
    cr_family_single_pass_atomic, cr_family_listing_12_4, cr_family_stats, cr_family_comm, cr_family_exact;
/* The families, in the order cr_family_for tries them (src/plan.c; the
 * first that offers a request serves it): the combine and many-result
 * families, which offer only their own shapes, AUTO one-input, AUTO
 * two-input, the statistics, then the Handbook variants (one per
 * cured_algorithm). The catalog lists their kernels in this order. */
extern const struct cr_family *const cr_families[];
extern const size_t cr_nfamilies;
const char *cr_algo_name(cured_algorithm a); /* "auto", "two_pass_shared", ... */

/* The family serving a request, or NULL (see cr_request_make for the reasons). */
const struct cr_family *cr_family_for(const struct cr_request *r);
/*
 * A request for a built-in operator, checked against the operator table
 * and the families: CURED_SUCCESS, or TYPE_MISMATCH / NOT_SUPPORTED with a
 * recorded message. Enums must already be valid.
 */
cured_status cr_request_make(cured_op op, cured_algorithm algo, cured_type in, cured_type out,
                             struct cr_request *r);
/* The i-th AUTO request (operator, element type, result type) of the operator
 * table whose operator has every flag of need and none of refuse: 1 and *r,
 * or 0 past the last (a family's enumerate). */
int cr_request_enumerate(size_t i, unsigned need, unsigned refuse, struct cr_request *r);
/* A key that tells built-in requests apart (the handle's table of loaded kernels). */
uint64_t cr_request_code(const struct cr_request *r);

/* ceil(a / b), at least 1 and at most 2^31 - 1 (CUDA's gridDim.x limit): a grid size. */
unsigned cr_div_up(size_t a, size_t b);
/* The accumulator's C++ type and the operator's functor for a request (family_auto.c). */
void cr_acc_cxx(const struct cr_acc *a, char *buf, size_t cap);
void cr_functor_cxx(const struct cr_request *r, char *buf, size_t cap);
/* ---- cols_split.c: how a column reduction's rows split over blocks ------- */
/* Partials of acc_size bytes the column area and the block partials hold. */
uint64_t cr_cols_room(const struct cr_device_facts *dev, size_t acc_size);
/* c's splits, group and ngroups for its tiles and batches: one wave of
 * `resident` blocks of 256 threads (ty rows a pass), within partial_room and
 * the tickets. */
void cr_cols_splits(struct cr_cols *c, uint64_t resident, unsigned ty, uint64_t partial_room);
/* Blocks of a kernel that are resident at once, capped by the workspace's partials. */
unsigned cr_resident(const struct cr_kernel *k, const struct cr_device_facts *dev);
/* Bytes of a slot's partials area: a partial a resident block, then the column area
 * (column partials, the long-segment list). */
size_t cr_partials_area(const struct cr_device_facts *dev);

/* ---- family_exact.c: the exact sums' split ------------------------------------ */
/* A test hook: nonzero fields force the exact kernels' parts an output, warps a unit (1 or a block's) and grid;
 * lanes: 1 a lane an output (short outputs), -1 never, 0 the planner's choice. */
struct cr_exact_force {
    unsigned splits, unit_warps, grid;
    int lanes;
    int finish; /* 1: split outputs through exact_finish's records, not the accumulators */
    int quick;  /* -1: short SUM and MEAN outputs without exact_quick first; 0: the planner's choice */
    unsigned long_cap;   /* exact_quick's list of long segments: the entries it holds (0: the planner's) */
    unsigned long_piece; /* the terms of a listed segment's pieces (0: the planner's) */
};
/* exact_quick lists the segments over cr_exact_long_len(its lanes an output) terms for exact_quick_long, in
 * pieces of CR_EXACT_LONG_PIECE_BYTES (a block each), up to CR_EXACT_LONG_CAP pieces (and what the partials
 * area holds). */
#define CR_EXACT_LONG_MIN 512u
#define CR_EXACT_LONG_CAP 65536u
#define CR_EXACT_LONG_PIECE_BYTES 32768u
uint32_t cr_exact_long_len(unsigned group);
/* exact_quick_columns' parts a column of len rows (at most `most`, each of ceil(len / parts) rows) for `groups`
 * groups of 32 columns, its items (a part of a group) filling whole waves of `wave` resident warps. */
uint64_t cr_exact_cols_parts(uint64_t groups, uint64_t len, uint64_t most, uint64_t wave);
/* Outputs of at most this many elements take a lane each (when there are 32 or more). */
#define CR_EXACT_LANE_LEN 256
extern struct cr_exact_force cr_exact_force;
struct cr_exact_job;
/* Whether exact_quick reads a job's outputs as whole aligned 16-byte vectors of elem-byte terms: 1 rows (a
 * vector of one output's terms), 2 columns and outputs of one term (a vector of neighbouring outputs'), 0 not. */
int cr_exact_quick_vec(const struct cr_exact_job *j, size_t elem);
/* exact_quick's lanes an output of a job (its view, lengths, strides and vec): a power of two up to 32. */
unsigned cr_exact_quick_group(const struct cr_exact_job *j, size_t elem);
/* Bytes of an exact request's state: its digits, then the special value and flags. */
size_t cr_exact_state_bytes(const struct cr_request *r);
/* Parts an output (*splits), warps a unit (0: a lane an output) and elements a part of an exact request's nout
 * outputs of len elements: lanes for outputs of at most CR_EXACT_LANE_LEN elements; one wave of units of
 * resident_blocks (lane units: of lanes_resident_blocks), one state record a part within area bytes. */
void cr_exact_split(const struct cr_request *r, uint64_t nout, uint64_t len, uint64_t resident_blocks,
                    uint64_t lanes_resident_blocks, size_t area, unsigned *splits, unsigned *unit_warps, uint64_t *part);

/* ---- state.c: state records (kernels-src/state.cuh) ------------------------ */
/* 1 if the request's state is its raw accumulator, 0 if its result is its state (MIN, MAX, MINMAX, ARG). */
int cr_state_raw(const struct cr_request *r);
/* Bytes of one record: the 8-byte count, then the state, rounded up to 8. */
size_t cr_state_slot(const struct cr_request *r);
/* Make r a state request: its kernels write records (result size = the slot). */
void cr_request_state(struct cr_request *r);

/* ---- catalog.c: what the families offer, enumerated ----------------------- */
struct cr_spec {
    struct cr_request req;
    struct cr_unit unit;
};
size_t cr_catalog_count(void);
const struct cr_spec *cr_catalog(size_t index);     /* NULL past the end */
const struct cr_unit *cr_catalog_unit(size_t index); /* its unit, or NULL */
int cr_catalog_index(const struct cr_request *r);               /* -1 if absent */

#endif
