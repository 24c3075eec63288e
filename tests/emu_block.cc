// A CUDA block's threads as fibers on the calling thread; see emu_block.h.
// One block runs at a time. A switch between fibers saves and restores the
// callee-saved registers and the stack pointer (x86-64), or is
// swapcontext() elsewhere (which also sets the signal mask: a system call a
// switch, several times slower).
#include "emu_block.h"

#include <sys/mman.h>
#include <unistd.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#include <vector>

emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace {

enum { RUNNABLE, AT_BLOCK, AT_WARP, DONE };
const unsigned MAX_THREADS = 1024;
const size_t STACK = 256 << 10; // the lowest page of each is a guard

#if defined(__x86_64__)
// emu_switch(from, to): saves the registers on the stack, the stack pointer
// in *from, and resumes the context whose stack pointer is to.
extern "C" void emu_switch(void **from, void *to);
asm(".text\n"
    ".p2align 4\n"
    "emu_switch:\n"
    "pushq %rbp\n pushq %rbx\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
    "movq %rsp, (%rdi)\n"
    "movq %rsi, %rsp\n"
    "popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbx\n popq %rbp\n"
    "ret\n");
struct Context {
    void *sp;
};
#else
typedef ucontext_t Context;
#endif
struct Fiber {
    Context ctx;
    int state;
};
Fiber fibers[MAX_THREADS];
char *stacks;
Context scheduler;
unsigned nthreads, current;
unsigned at_block, at_warp[MAX_THREADS / 32];
unsigned live, live_warp[MAX_THREADS / 32]; // threads not DONE
int warp_site[MAX_THREADS / 32];
uint64_t slots[MAX_THREADS / 32][32];
std::vector<unsigned> ready;
const char *failure;
void (*body_fn)(void *);
void *body_arg;
uint64_t rng;

uint64_t next_random()
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Releases the threads waiting in [first, first + count) at `state`.
void release(unsigned first, unsigned count, int state)
{
    for (unsigned t = first; t < first + count && t < nthreads; t++)
        if (fibers[t].state == state) {
            fibers[t].state = RUNNABLE;
            ready.push_back(t);
        }
}
// The barriers that the waiting threads complete (also when a thread ends).
void settle(unsigned warp)
{
    if (at_block && at_block == live) {
        at_block = 0;
        release(0, nthreads, AT_BLOCK);
    }
    if (at_warp[warp] && at_warp[warp] == live_warp[warp]) {
        at_warp[warp] = 0;
        release(32 * warp, 32, AT_WARP);
    }
}
void switch_to(Context &from, Context &to)
{
#if defined(__x86_64__)
    emu_switch(&from.sp, to.sp);
#else
    swapcontext(&from, &to);
#endif
}
void to_scheduler() { switch_to(fibers[current].ctx, scheduler); }

// A fiber's first and last frame: its body, then back to the scheduler for good.
void trampoline()
{
    body_fn(body_arg);
    fibers[current].state = DONE;
    live--;
    live_warp[current / 32]--;
    if (at_block || at_warp[current / 32]) // they wait for a thread that ends instead
        emu_fail(at_block ? "__syncthreads that not every thread reaches" : "a warp barrier that not every lane reaches");
    settle(current / 32);
    to_scheduler();
}

void start(Fiber &f, char *stack)
{
#if defined(__x86_64__)
    // emu_switch pops six registers and returns to trampoline, which starts
    // as after a call: its return address slot 16-byte aligned.
    void **top = (void **)(((uintptr_t)stack + STACK) & ~(uintptr_t)15);
    top[-1] = NULL;
    top[-2] = (void *)trampoline;
    for (int k = 3; k <= 8; k++)
        top[-k] = NULL;
    f.ctx.sp = top - 8;
#else
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = stack;
    f.ctx.uc_stack.ss_size = STACK;
    f.ctx.uc_link = NULL;
    makecontext(&f.ctx, trampoline, 0);
#endif
}

} // namespace

void emu_fail(const char *what)
{
    if (!failure)
        failure = what;
}

uint64_t *emu_warp_slots() { return slots[current / 32]; }

void emu_barrier_block()
{
    if (live < nthreads)
        emu_fail("__syncthreads that not every thread reaches");
    fibers[current].state = AT_BLOCK;
    at_block++;
    settle(current / 32);
    to_scheduler();
}

void emu_barrier_warp(int site)
{
    const unsigned w = current / 32;
    if (live_warp[w] < 32)
        emu_fail("a warp barrier that not every lane reaches");
    if (at_warp[w] == 0)
        warp_site[w] = site;
    else if (warp_site[w] != site)
        emu_fail("the lanes of a warp meet at different barriers (__syncwarp, shuffles)");
    fibers[current].state = AT_WARP;
    at_warp[w]++;
    settle(w);
    to_scheduler();
}

int emu_block_run(unsigned block, unsigned grid, unsigned threads, void (*body)(void *), void *arg, uint64_t seed,
                  const char **error)
{
    if (threads == 0 || threads > MAX_THREADS || threads % 32) {
        *error = "a block of 32 to 1024 threads, a multiple of 32";
        return -1;
    }
    if (!stacks) {
        void *p = mmap(NULL, MAX_THREADS * STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        if (p == MAP_FAILED) {
            *error = "no memory for the fibers' stacks";
            return -1;
        }
        stacks = (char *)p;
        const size_t page = (size_t)sysconf(_SC_PAGESIZE);
        for (unsigned t = 0; t < MAX_THREADS; t++)
            mprotect(stacks + t * STACK, page, PROT_NONE);
    }
    rng = seed ^ ((uint64_t)block << 32);
    failure = NULL;
    nthreads = threads;
    at_block = 0;
    live = threads;
    for (unsigned w = 0; w < threads / 32; w++) {
        at_warp[w] = 0;
        live_warp[w] = 32;
    }
    body_fn = body;
    body_arg = arg;
    blockIdx.x = block;
    blockIdx.y = blockIdx.z = 0;
    gridDim.x = grid;
    gridDim.y = gridDim.z = 1;
    blockDim.x = threads;
    blockDim.y = blockDim.z = 1;
    threadIdx.y = threadIdx.z = 0;
    ready.clear();
    for (unsigned t = 0; t < threads; t++) {
        Fiber &f = fibers[t];
        start(f, stacks + t * STACK);
        f.state = RUNNABLE;
        ready.push_back(t);
    }
    while (!ready.empty()) {
        const size_t k = (size_t)(next_random() % ready.size());
        current = ready[k];
        ready[k] = ready.back();
        ready.pop_back();
        threadIdx.x = current;
        switch_to(scheduler, fibers[current].ctx);
    }
    for (unsigned t = 0; t < threads; t++)
        if (fibers[t].state != DONE) {
            emu_fail(fibers[t].state == AT_BLOCK ? "__syncthreads that not every thread reaches"
                                                  : "a warp barrier that not every lane reaches");
            break;
        }
    *error = failure;
    return failure ? -1 : 0;
}
