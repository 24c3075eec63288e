// An operator's state instead of its result, for reductions that go on
// elsewhere (the ranks of a communicator, src/comm.c, combine.cu). The
// record is the element count (8 bytes), then either the accumulator itself
// (RAW: sums, whose write narrows or takes a root, and the statistics) or the
// operator's own result where that loses nothing (MIN, MAX, MINMAX, ARG:
// combine.cu rebuilds the accumulator from it). Only write() changes: the
// per-thread loops and vector steps of the operator are its own.
#ifndef CURED_STATE_CUH
#define CURED_STATE_CUH

#include "abi.h" // CR_RECORD_STATE
#include "arg.cuh"

template <class Op, class A, bool RAW> struct Record : Op {
    __device__ void write(void *out, A a, u64 n) const
    {
        *(u64 *)out = n;
        if (RAW)
            *(A *)((char *)out + CR_RECORD_STATE) = a;
        else
            Op::write((char *)out + CR_RECORD_STATE, a, n);
    }
};

template <class Op, class A, bool RAW> struct ThreadLoop<Record<Op, A, RAW> > : ThreadLoop<Op> {};
template <class Op, class A, bool RAW> struct VecStep<Record<Op, A, RAW> > : VecStep<Op> {};
template <class Op, class A, bool RAW> struct CombinePartials<Record<Op, A, RAW> > : CombinePartials<Op> {};
template <class Op, class A, bool RAW, class T>
__device__ __forceinline__ void bind_input(Record<Op, A, RAW> &op, const T *in)
{
    bind_input(static_cast<Op &>(op), in);
}

#endif
