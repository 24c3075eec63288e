// test-exact-emu: kernels-src/exact.cu's kernels, compiled from the file
// itself through the host shim (exact_kernel_shim.h), launched on the CPU:
// every block of the grid, one after another in an order drawn from the
// seed, each block's threads as fibers (emu_block.cc).
#include "exact_kernel_shim.h"

#include "exact.cu"

#include "exact_emu.h"
#include "exact_kernel_emu.h"

#include <vector>

emu_exact_bounds emu_exact_inputs;
unsigned long long emu_exact_quick_marked;

namespace {

// src/family_exact.c's block (abi.h's).
template <class T, int OP> struct Block {
    enum { PROD = OP == EXACT_OP_SUM_SQUARES || OP == EXACT_OP_NORM2 || OP == EXACT_OP_DOT, V = CR_EXACT_BLOCK };
};

template <class T, int OP> struct Shape {
    enum { PROD = Block<T, OP>::PROD };
    typedef typename ExactPlan<T, PROD>::F F;
    static unsigned block() { return Block<T, OP>::V; }
    static unsigned chunk() { return ExactPlan<T, PROD>::CHUNK; }
    static unsigned words() { return ExactRecord<F>::WORDS; }
};

template <class T, int OP> struct Kernels {
    enum { BLOCK = Block<T, OP>::V };
    static void reduce(void *j) { exact_reduce<T, OP, BLOCK, false>(*(const ExactJob *)j); }
    static void lanes(void *j) { exact_reduce_lanes<T, OP, BLOCK, false>(*(const ExactJob *)j); }
    static void finish(void *j) { exact_finish<T, OP, false>(*(const ExactJob *)j); }
    static void quick(void *j)
    {
        if constexpr (sizeof(T) <= 4 && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN))
        {
            const ExactJob &e = *(const ExactJob *)j;
            if (e.view == EXACT_VIEW_SEGMENTS) // the plan's kernels[6]
                exact_quick_segments<T, OP>(e);
            else
                exact_quick<T, OP>(e);
        }
        else
            emu_fail("exact_quick takes SUM and MEAN of 16- and 32-bit floats");
    }
    static void quick_long(void *j)
    {
        if constexpr (sizeof(T) <= 4 && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN))
            exact_quick_long<T, OP>(*(const ExactJob *)j);
        else
            emu_fail("exact_quick_long takes SUM and MEAN of 16- and 32-bit floats");
    }
    static void quick_columns(void *j)
    {
        if constexpr (sizeof(T) <= 4 && (OP == EXACT_OP_SUM || OP == EXACT_OP_MEAN))
            exact_quick_columns<T, OP>(*(const ExactJob *)j);
        else
            emu_fail("exact_quick_columns takes SUM and MEAN of 16- and 32-bit floats");
    }
};

uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int launch(void (*kernel)(void *), const ExactJob &j, unsigned grid, unsigned threads, uint64_t seed,
           const char **error)
{
    std::vector<unsigned> order(grid);
    for (unsigned b = 0; b < grid; b++)
        order[b] = b;
    for (unsigned b = grid; b > 1; b--) {
        const unsigned k = (unsigned)(mix(seed + b) % b);
        const unsigned t = order[k];
        order[k] = order[b - 1];
        order[b - 1] = t;
    }
    ExactJob job = j;
    for (unsigned b = 0; b < grid; b++)
        if (emu_block_run(order[b], grid, threads, kernel, &job, mix(seed ^ order[b]), error))
            return -1;
    return 0;
}

template <class T, int OP>
int run(const ExactJob &j, unsigned grid, unsigned finish_grid, const ExactJob *quick, int quick_columns,
        unsigned quick_grid, unsigned long_grid, uint64_t seed, const char **error)
{
    if (quick && launch(quick_columns ? Kernels<T, OP>::quick_columns : Kernels<T, OP>::quick, *quick, quick_grid, 256,
                        seed ^ 0x5bd1e995u, error))
        return -1;
    if (quick && !quick_columns && quick->long_len &&
        launch(Kernels<T, OP>::quick_long, *quick, long_grid, 256, seed ^ 0x2545f491u, error))
        return -1;
    if (quick && !quick_columns) {
        const u64 groups = (quick->nout + 31) / 32, bits = (groups + quick->per_bit - 1) / quick->per_bit;
        const unsigned *retry = (const unsigned *)(uintptr_t)quick->retry;
        emu_exact_quick_marked = 0;
        for (u64 b = 0; b < bits; b++)
            emu_exact_quick_marked += retry[b / 32] >> (b % 32) & 1u;
    }
    if (launch(j.unit_warps ? Kernels<T, OP>::reduce : Kernels<T, OP>::lanes, j, grid, Kernels<T, OP>::BLOCK, seed, error))
        return -1;
    if (j.splits > 1 && !j.tickets && launch(Kernels<T, OP>::finish, j, finish_grid, 256, ~seed, error))
        return -1;
    return 0;
}

template <class T>
int run_op(int op, const ExactJob &j, unsigned grid, unsigned finish_grid, const ExactJob *quick, int quick_columns,
           unsigned quick_grid, unsigned long_grid, uint64_t seed, const char **error)
{
    switch (op) {
    case EOP_SUM: return run<T, EXACT_OP_SUM>(j, grid, finish_grid, quick, quick_columns, quick_grid, long_grid, seed, error);
    case EOP_MEAN: return run<T, EXACT_OP_MEAN>(j, grid, finish_grid, quick, quick_columns, quick_grid, long_grid, seed, error);
    case EOP_SUM_SQUARES: return run<T, EXACT_OP_SUM_SQUARES>(j, grid, finish_grid, quick, quick_columns, quick_grid, long_grid, seed, error);
    case EOP_NORM2: return run<T, EXACT_OP_NORM2>(j, grid, finish_grid, quick, quick_columns, quick_grid, long_grid, seed, error);
    default: return run<T, EXACT_OP_DOT>(j, grid, finish_grid, quick, quick_columns, quick_grid, long_grid, seed, error);
    }
}

template <class T> unsigned shape(int op, int what)
{
    switch (op) {
#define SHAPE_CASE(OP)                                                                                     \
    case OP: return what == 0 ? Shape<T, OP>::block() : what == 1 ? Shape<T, OP>::chunk() : Shape<T, OP>::words();
        SHAPE_CASE(EXACT_OP_SUM)
        SHAPE_CASE(EXACT_OP_MEAN)
        SHAPE_CASE(EXACT_OP_SUM_SQUARES)
        SHAPE_CASE(EXACT_OP_NORM2)
        SHAPE_CASE(EXACT_OP_DOT)
#undef SHAPE_CASE
    }
    return 0;
}
unsigned shape_of(int type, int op, int what)
{
    switch (type) {
    case ET_HALF: return shape<half_t>(op, what);
    case ET_BF16: return shape<bf16_t>(op, what);
    case ET_FLOAT: return shape<float>(op, what);
    default: return shape<double>(op, what);
    }
}

} // namespace

static_assert(ET_HALF == CR_EXACT_R_FLOAT16 && ET_BF16 == CR_EXACT_R_BFLOAT16 && ET_FLOAT == CR_EXACT_R_FLOAT32 &&
                  ET_DOUBLE == CR_EXACT_R_FLOAT64,
              "abi.h's result codes");
static_assert(EOP_SUM == EXACT_OP_SUM && EOP_MEAN == EXACT_OP_MEAN && EOP_SUM_SQUARES == EXACT_OP_SUM_SQUARES &&
                  EOP_NORM2 == EXACT_OP_NORM2 && EOP_DOT == EXACT_OP_DOT,
              "exact.cu's operators");

extern "C" {
unsigned emu_exact_kernel_block(int type, int op) { return shape_of(type, op, 0); }
unsigned emu_exact_kernel_chunk(int type, int op) { return shape_of(type, op, 1); }
unsigned emu_exact_kernel_record_words(int type, int op) { return shape_of(type, op, 2); }

int emu_exact_kernel_run(int type, int rtype, int op, const struct cr_exact_job *job, unsigned grid,
                         unsigned finish_grid, const struct cr_exact_job *quick, int quick_columns, unsigned quick_grid,
                         unsigned long_grid, const void *in, size_t in_bytes, const void *in2, size_t in2_bytes, uint64_t seed, const char **error)
{
    emu_exact_inputs.lo[0] = in;
    emu_exact_inputs.bytes[0] = in_bytes;
    emu_exact_inputs.lo[1] = in2;
    emu_exact_inputs.bytes[1] = in2_bytes;
    *error = NULL;
    // The result types exact sums allow: the element type or a wider float (the job names it).
    if (rtype < type || (rtype == ET_BF16 && type == ET_HALF) || (type == ET_BF16 && rtype == ET_HALF)) {
        *error = "a result type exact sums do not take";
        return -1;
    }
    ExactJob j = *job, q;
    j.result = (cr_u32)rtype;
    if (quick) {
        q = *quick;
        q.result = (cr_u32)rtype;
    }
    const ExactJob *qj = quick ? &q : nullptr;
    switch (type) {
    case ET_HALF: return run_op<half_t>(op, j, grid, finish_grid, qj, quick_columns, quick_grid, long_grid, seed, error);
    case ET_BF16: return run_op<bf16_t>(op, j, grid, finish_grid, qj, quick_columns, quick_grid, long_grid, seed, error);
    case ET_FLOAT: return run_op<float>(op, j, grid, finish_grid, qj, quick_columns, quick_grid, long_grid, seed, error);
    default: return run_op<double>(op, j, grid, finish_grid, qj, quick_columns, quick_grid, long_grid, seed, error);
    }
}
}
