// The rank-order combine of a communicator's gathered states (src/comm.c,
// src/family_comm.c). Every rank runs it on the same records, so every rank
// writes the same bits. records holds nranks records of record_bytes; in
// each, output j's state is at j * slot: its element count (8 bytes), then
// the state that state.cuh's Record<Op, A, RAW> wrote. Empty shards are
// skipped; the first nonempty one is the start (no identity is combined in,
// so one rank gives exactly the single-GPU result); ARG indices are offset by
// the counts of the ranks before.
#include "stats.cuh"

// A state back into the operator's accumulator.
template <class Op, class A, bool RAW> struct Restore {
    __device__ static A get(const char *p) { return *(const A *)p; }
};
template <class T, class V, class R, bool MAX, bool IGN> struct Restore<MinMaxOf<T, V, R, MAX, IGN>, V, false> {
    __device__ static V get(const char *p) { return widen<V>(*(const R *)p); }
};
template <class T, class V, class R> struct Restore<MinMax<T, V, R>, Pair<V>, false> {
    __device__ static Pair<V> get(const char *p)
    {
        Pair<V> v = {widen<V>(((const R *)p)[0]), widen<V>(((const R *)p)[1])};
        return v;
    }
};

template <class Op, class A, bool RAW> struct Combine {
    __device__ static void run(const Op &op, const char *rec, u64 stride, int nranks, void *out)
    {
        A acc = Op::identity();
        u64 total = 0;
        for (int r = 0; r < nranks; r++) {
            const char *s = rec + (u64)r * stride;
            const u64 n = *(const u64 *)s;
            if (n == 0)
                continue;
            const A v = Restore<Op, A, RAW>::get(s + CR_RECORD_STATE);
            acc = total == 0 ? v : op(acc, v);
            total += n;
        }
        op.write(out, acc, total);
    }
};

// ARG: the winner's value travels with it (the input is on another rank).
template <class T, class K, class R, bool MAX, bool IGN> struct Combine<ArgOf<T, K, R, MAX, IGN>, Arg<K>, false> {
    typedef ArgOf<T, K, R, MAX, IGN> Op;
    __device__ static void run(const Op &op, const char *rec, u64 stride, int nranks, void *out)
    {
        Arg<K> best = Op::identity();
        R value = R(), first = R();
        u64 total = 0;
        for (int r = 0; r < nranks; r++) {
            const char *s = rec + (u64)r * stride;
            const u64 n = *(const u64 *)s;
            if (n == 0)
                continue;
            const long long i = *(const long long *)(s + CR_RECORD_STATE); // the ARG result: index, value
            const R v = *(const R *)(s + CR_RECORD_STATE + 8);
            if (total == 0)
                first = v; // an all-NaN result's value: the first element's
            if (i >= 0) {  // -1: an all-NaN shard of a NaN-ignoring operator
                Arg<K> c = {op.key(v), i + (long long)total};
                best = op(best, c);
                if (best.i == c.i)
                    value = v;
            }
            total += n;
        }
        const bool none = total == 0 || best.i == CURED_NO_INDEX;
        *(long long *)out = none ? -1ll : best.i;
        *(R *)((char *)out + 8) = none ? (total ? first : R()) : value;
    }
};

template <class Op, class A, bool RAW>
__global__ void combine_states(const char *records, u64 record_bytes, int nranks, u64 nout, u64 slot, void *out,
                               u64 result_size, double ddof)
{
    Op op;
    bind_ddof(op, ddof);
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < nout; j += (u64)gridDim.x * blockDim.x)
        Combine<Op, A, RAW>::run(op, records + j * slot, record_bytes, nranks, (char *)out + j * result_size);
}
