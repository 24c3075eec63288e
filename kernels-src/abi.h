/*
 * The kernels' ABI: the structs the many-result kernels (segmented.cu) take
 * by value and the constants both sides size things by, written once for
 * both sides. The host compiles this file as C
 * (src/family.h includes it) and NVRTC as CUDA C++ (it is embedded with the
 * other kernel sources), so the planner fills the very struct the kernel
 * reads. The C names (struct cr_kept, ...) are the tags; the kernels use
 * the CUDA names (Kept, ...), typedefs of the same structs.
 *
 * The layouts are pinned by static assertions, in both compilations: each
 * struct's size is the sum of its fields' (no padding, so the field order
 * fixes every offset) and, where the compiler has offsetof (the host's C,
 * nvcc; not NVRTC), each field's offset. A field added, removed or widened
 * without its assertion, or a layout one compiler makes differently, fails
 * the host build or the kernel's NVRTC compile (off the GPU, test-compile
 * compiles the catalog's kernels and test-axes the axis kernels). Fields are 8-byte values first, 4-byte ones
 * paired, so that no compiler pads.
 *
 * Only the common subset of C and CUDA C++: no standard headers (NVRTC has
 * none), fixed-width types below, device pointers as 8-byte integers on the
 * host (CUdeviceptr).
 */
#ifndef CURED_ABI_H
#define CURED_ABI_H

#ifdef __cplusplus
#define CR_ABI_ASSERT(cond, what) static_assert(cond, what)
#else
#define CR_ABI_ASSERT(cond, what) _Static_assert(cond, what)
#endif
#ifdef __CUDACC_RTC__ /* NVRTC has no offsetof: there the sizes, which leave no room for padding, fix the offsets */
#define CR_ABI_AT(type, field, offset) CR_ABI_ASSERT(sizeof(((type *)0)->field) > 0, #type "." #field)
#else
#define CR_ABI_AT(type, field, offset) CR_ABI_ASSERT(__builtin_offsetof(type, field) == (offset), #type "." #field)
#endif

/* The widths the structs are written in: long long and int are 64 and 32
 * bits wherever CUDA runs (asserted below). */
typedef long long cr_i64;
typedef unsigned long long cr_u64;
typedef int cr_i32;
typedef unsigned int cr_u32;
/* A device pointer: typed in CUDA, the host's CUdeviceptr in C. */
#ifdef __CUDACC__
#define CR_DEVPTR(T) T *
#else
#define CR_DEVPTR(T) cr_u64
#endif
CR_ABI_ASSERT(sizeof(cr_i64) == 8 && sizeof(cr_u64) == 8 && sizeof(cr_i32) == 4 && sizeof(cr_u32) == 4,
              "fixed widths");
CR_ABI_ASSERT(sizeof(void *) == 8, "64-bit device pointers");

/* The largest accumulator: the workspace holds partials of this many bytes
 * (a resident block's, a column's, a long segment part's), and every
 * kernel's partials fit them (grid.cuh, cols_combine.cuh assert it). */
#define CR_MAX_ACC 32

/* A state record (state.cuh writes it, combine.cu reads it, src/state.c
 * sizes it): the element count (a 64-bit integer), then the state from
 * this offset. */
#define CR_RECORD_STATE 8

/* Dimensions of a view the geometry holds: CURED_MAX_RANK of cured.h, which
 * NVRTC cannot include (family.h asserts that they are equal). */
#define CR_ABI_MAX_RANK 8

/* Where output o's elements start in the input and where its result goes:
 * o decomposed row-major over the n kept dimensions (innermost last). */
typedef struct cr_kept {
    cr_i32 n, pad;
    cr_i64 extent[CR_ABI_MAX_RANK], in_stride[CR_ABI_MAX_RANK], out_stride[CR_ABI_MAX_RANK];
} Kept;
CR_ABI_AT(struct cr_kept, extent, 8);
CR_ABI_AT(struct cr_kept, in_stride, 8 + 8 * CR_ABI_MAX_RANK);
CR_ABI_AT(struct cr_kept, out_stride, 8 + 16 * CR_ABI_MAX_RANK);
CR_ABI_ASSERT(sizeof(struct cr_kept) == 2 * 4 + 3 * 8 * CR_ABI_MAX_RANK, "sizeof Kept");

/* The elements reduced into one output: row-major over the n reduced
 * dimensions, whose index is the ARG index. */
typedef struct cr_reduced {
    cr_i32 n, pad;
    cr_i64 extent[CR_ABI_MAX_RANK], stride[CR_ABI_MAX_RANK];
} Reduced;
CR_ABI_AT(struct cr_reduced, extent, 8);
CR_ABI_AT(struct cr_reduced, stride, 8 + 8 * CR_ABI_MAX_RANK);
CR_ABI_ASSERT(sizeof(struct cr_reduced) == 2 * 4 + 2 * 8 * CR_ABI_MAX_RANK, "sizeof Reduced");

/* Columns: outputs (b, c) adjacent along c (in-stride 1), reduced along
 * rows r (stride row) of each batch b; the rows split over `splits` blocks
 * a batch, whose partials meet in `ngroups` groups of `group` splits
 * (cols_combine.cuh). */
typedef struct cr_cols {
    cr_i64 rows, row, batches, batch, cols, out_batch, out_col;
    cr_u32 splits, tiles;
    cr_u32 group, ngroups;
    cr_i64 len;  /* rows reduced into each result (rows, unless folded) */
    cr_u32 fold; /* 0, or dense rows of cols < vec elements read as 16-byte rows: rows and row are
                    of those, and vector lane k holds column k % fold (= cols) */
    cr_u32 spare;
} Cols;
CR_ABI_AT(struct cr_cols, out_col, 48);
CR_ABI_AT(struct cr_cols, splits, 56);
CR_ABI_AT(struct cr_cols, tiles, 60);
CR_ABI_AT(struct cr_cols, group, 64);
CR_ABI_AT(struct cr_cols, ngroups, 68);
CR_ABI_AT(struct cr_cols, len, 72);
CR_ABI_AT(struct cr_cols, fold, 80);
CR_ABI_ASSERT(sizeof(struct cr_cols) == 7 * 8 + 4 * 4 + 8 + 2 * 4, "sizeof Cols");

/* Segments over `huge` elements, listed by reduce_segments for
 * reduce_long_segments (segments_long.cuh): an entry keeps the segment's
 * index, start and length, so that its blocks need not look them up, and the
 * ticket of its parts (written as zero with the entry, left at zero by the
 * entry's last part). */
typedef struct cr_long_entry {
    cr_u64 seg;
    cr_i64 begin;
    cr_u64 len;
    cr_u32 ticket, pad;
} LongEntry;
CR_ABI_AT(struct cr_long_entry, begin, 8);
CR_ABI_AT(struct cr_long_entry, len, 16);
CR_ABI_AT(struct cr_long_entry, ticket, 24);
CR_ABI_ASSERT(sizeof(struct cr_long_entry) == 4 * 8, "sizeof LongEntry");

/* The most entries a list shares out in chunks: the long kernel's prefix
 * sum over them is in shared memory. */
#define CR_LONG_MAX 512
/* The most entries a list holds: past CR_LONG_MAX, each listed entry goes
 * whole to the next block free (a counter), so that no block is left with
 * the longest few of a fixed share. */
#define CR_LONG_LISTED 8192

/* The list, in the workspace: the first `listed` entries met (in whatever
 * order the warps meet them), their count, which goes on past them, a done
 * word and the counter from which the long kernel's blocks take chunks or
 * entries (the three in the slot's tickets, kept at zero). The count alone
 * decides how they are reduced (chunks up to cap, an entry a block up to
 * listed, a fixed share of the segments a block past it), and it does not
 * depend on timing. */
typedef struct cr_long_list {
    CR_DEVPTR(LongEntry) seg; /* listed entries */
    CR_DEVPTR(unsigned int) len; /* cap lengths, beside the entries: each at most 2^32 - 1 (what the
                                  * long kernel's blocks cut the entries by, read by every block) */
    CR_DEVPTR(unsigned int) count;
    CR_DEVPTR(unsigned int) done;
    CR_DEVPTR(unsigned int) next;
    cr_u32 cap;
    cr_u32 chunks; /* a block's share of the listed elements is cut into about this many chunks; the
                    * parts' partials are a pool of cap + chunks x grid, indexed by chunk */
    cr_u32 listed, pad;
} LongList;
CR_ABI_AT(struct cr_long_list, len, 8);
CR_ABI_AT(struct cr_long_list, count, 16);
CR_ABI_AT(struct cr_long_list, done, 24);
CR_ABI_AT(struct cr_long_list, next, 32);
CR_ABI_AT(struct cr_long_list, cap, 40);
CR_ABI_AT(struct cr_long_list, chunks, 44);
CR_ABI_AT(struct cr_long_list, listed, 48);
CR_ABI_ASSERT(sizeof(struct cr_long_list) == 5 * 8 + 4 * 4, "sizeof LongList");

/* What segment offsets may index: elements [0, limit) of the input. A
 * segment with an offset outside [0, limit] keeps the complement of its
 * index in *bad, the stream slot's error word (CR_WS_ERROR), if it is the
 * lowest bad one; cured_check_stream reads and clears it. */
typedef struct cr_seg_guard {
    cr_u64 limit;
    CR_DEVPTR(unsigned long long) bad;
} SegGuard;
CR_ABI_AT(struct cr_seg_guard, bad, 8);
CR_ABI_ASSERT(sizeof(struct cr_seg_guard) == 2 * 8, "sizeof SegGuard");

/* An exact-sum launch (exact.cu, src/family_exact.c): nout outputs, each
 * split into `splits` parts of `part` elements (a multiple of 64: 16-byte
 * vectors stay aligned; the planner makes them whole chunks), each part
 * shared out among `unit_warps` warps. With one part an output's result
 * is written where its unit ends; with more, each part's state record
 * (digits, then the special value and flags) goes to states[o * splits + p]
 * and exact_finish merges them. view: EXACT_VIEW_LINEAR (output o's
 * elements at o's kept offset + j * red.stride[0], red.n <= 1; a whole
 * array is the one-output case), EXACT_VIEW_GENERAL (red over several
 * dimensions) or EXACT_VIEW_SEGMENTS (begin/end offset arrays, results
 * dense). */
#define EXACT_VIEW_LINEAR 0
#define EXACT_VIEW_GENERAL 1
#define EXACT_VIEW_SEGMENTS 2
/* The exact kernels' block, the terms a warp takes between flushes of its
 * fronts (the parts of an output start on them), and the digits of each
 * state format (a record is the digits and one word of special value and
 * flags): exact.cu asserts that its formats agree. */
#define CR_EXACT_BLOCK 256
#define CR_EXACT_CHUNK 16384     /* float32, bfloat16 and float64 terms, every product */
#define CR_EXACT_CHUNK_HALF 8192 /* float16 terms */
/* The result types (ExactJob's result, exact_combine's last parameter). */
#define CR_EXACT_R_FLOAT16 0
#define CR_EXACT_R_BFLOAT16 1
#define CR_EXACT_R_FLOAT32 2
#define CR_EXACT_R_FLOAT64 3
#define CR_EXACT_DIGITS_HALF 4
#define CR_EXACT_DIGITS_SINGLE 11
#define CR_EXACT_DIGITS_DOUBLE 68
#define CR_EXACT_DIGITS_HALF_PRODUCTS 5
#define CR_EXACT_DIGITS_SINGLE_PRODUCTS 20
#define CR_EXACT_DIGITS_DOUBLE_PRODUCTS 134
typedef struct cr_exact_job {
    CR_DEVPTR(const void) in;
    CR_DEVPTR(const void) in2; /* DOT's y */
    CR_DEVPTR(void) out;
    CR_DEVPTR(long long) states;   /* split outputs: a record a part, or (tickets set) an accumulator an output */
    CR_DEVPTR(unsigned) tickets;   /* set: a ticket an output; accumulators and tickets are kept at zero */
    CR_DEVPTR(const void) begin;
    CR_DEVPTR(const void) end;
    CR_DEVPTR(unsigned) retry;     /* set: exact_quick ran first; bit b marks groups [b, b + 1) x per_bit of 32
                                    * outputs for the exact state (exact_reduce_lanes clears it: kept at zero) */
    cr_u64 nout, len, part;
    struct cr_seg_guard guard;
    cr_u32 splits, unit_warps;
    cr_u32 view, offsets_32;
    cr_u32 result, group;      /* the result's type: CR_EXACT_R_*; exact_quick's lanes an output (1, 2, 4 ... 32) */
    cr_u32 per_bit, vec;       /* groups of 32 outputs a bit of retry; exact_quick: 1 where every output's
                                * terms are whole aligned 16-byte vectors (a lane reads vectors, not terms), 2
                                * where neighbouring outputs' terms are (columns: a lane a vector of outputs),
                                * 3 where a vector holds whole rows (of len 2, 4 or 8 terms), 4 for segments
                                * of an aligned input (a lane reads the 16-byte lines that hold its terms) */
    struct cr_kept kept;
    struct cr_reduced red;
    CR_DEVPTR(LongEntry) longs;      /* exact_quick over segments: where it lists those over long_len terms
                                      * for exact_quick_long, in pieces (long_len 0: it lists none). An entry is
                                      * a piece: seg, begin and len its own; pad = k | pieces << 16 (pieces 0:
                                      * no piece); the segment's first piece's ticket counts its pieces done.
                                      * A piece's block leaves its double at begin (NaN where it lost a bit). */
    CR_DEVPTR(unsigned) long_count;  /* three words, kept at zero: the entries listed (it goes on past long_cap),
                                      * exact_quick_long's counter and its done word */
    cr_u32 long_len, long_cap;       /* segments over long_len terms are listed, the first long_cap entries */
    cr_u32 long_piece, pad_long;     /* a listed segment's pieces: long_piece terms each (the last fewer), or
                                      * more where it would take over CR_EXACT_LONG_PIECES of them */
} ExactJob;
CR_ABI_AT(struct cr_exact_job, retry, 56);
CR_ABI_AT(struct cr_exact_job, nout, 64);
CR_ABI_AT(struct cr_exact_job, guard, 88);
CR_ABI_AT(struct cr_exact_job, splits, 104);
CR_ABI_AT(struct cr_exact_job, view, 112);
CR_ABI_AT(struct cr_exact_job, result, 120);
CR_ABI_AT(struct cr_exact_job, per_bit, 128);
CR_ABI_AT(struct cr_exact_job, kept, 136);
CR_ABI_AT(struct cr_exact_job, red, 136 + 8 + 24 * CR_ABI_MAX_RANK);
CR_ABI_AT(struct cr_exact_job, longs, 136 + sizeof(struct cr_kept) + sizeof(struct cr_reduced));
CR_ABI_ASSERT(sizeof(struct cr_exact_job) == 8 * 8 + 3 * 8 + 16 + 8 * 4 + sizeof(struct cr_kept) + sizeof(struct cr_reduced) +
                  2 * 8 + 4 * 4,
              "sizeof ExactJob");
/* The most pieces of one segment on exact_quick's list (pad's 16 bits; few enough that the list's count, which
 * no lane adds to once it has reached long_cap, cannot wrap past 2^32 however many lanes add at once). */
#define CR_EXACT_LONG_PIECES 1024u

/* exact_quick's retry bits (CR_WS_RETRY of the stream's workspace): groups of 32 outputs share a bit past
 * this many groups. exact_quick_columns' bits (a group each, so at most this many groups) and tickets (for
 * outputs split into parts: at most this many groups). */
#define CR_EXACT_RETRY_BITS (1u << 18)
#define CR_EXACT_RETRY_COLS_BITS (1u << 17)
#define CR_EXACT_COLS_TICKETS 4096u
/* exact_quick_columns' parts meet FAN at a time (a ticket each chunk of them), then, with more than one
 * chunk, the chunks' doubles (one more ticket a group): a group's tickets are 1, or its chunks + 1. */
#define CR_EXACT_COLS_FAN 64u

#endif
