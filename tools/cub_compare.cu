// The benchmark's comparator (see cub_compare.h): CUB, Thrust and a plain
// read-bandwidth kernel, built by nvcc and called from C. Nothing here
// throws across the C boundary and every runtime return code is checked.
// cmp_reduce()'s CUB calls are in cub_ops_int.cu and cub_ops_float.cu.
#include "cub_compare.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/version.h>

// In cub_ops_int.cu and cub_ops_float.cu (declared in cub_ops.cuh, which
// this file does not include: its 16-bit float headers only cost time here).
namespace cmp_ops {
cudaError_t reduce_int(cmp_op op, cmp_type type, void *temp, size_t &bytes, const void *d_in,
                       void *d_out, int n, cudaStream_t stream);
cudaError_t reduce_float(cmp_op op, cmp_type type, void *temp, size_t &bytes, const void *d_in,
                         void *d_out, int n, cudaStream_t stream);
cudaError_t segmented(cmp_op op, cmp_type type, const void *in, long long nseg, const long long *begin,
                      const long long *end, long long seg_len, void *out, void *temp, size_t &bytes,
                      cudaStream_t s); // cub_segmented.cu
cudaError_t sum_gpu_to_gpu(cmp_type type, const void *d_in, void *d_out, int n, cudaStream_t stream); // cub_determ.cu
const char *gpu_to_gpu_missing(); // cub_determ.cu: null when built in, else why not
} // namespace cmp_ops

namespace {

thread_local char last_error[512];

int fail(const char *what, cudaError_t e)
{
    std::snprintf(last_error, sizeof last_error, "%s failed: %s (%s)", what, cudaGetErrorName(e),
                  cudaGetErrorString(e));
    return 1;
}

int fail_msg(const char *what, const char *msg)
{
    std::snprintf(last_error, sizeof last_error, "%s failed: %s", what, msg);
    return 1;
}

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess)                                                                    \
            return fail(#call, e_);                                                               \
    } while (0)

const int CEIL_THREADS = 256;
const int CEIL_BLOCKS_PER_SM = 8;
const int CEIL_UNROLL = 4;

// Warp shuffles, then one shared word per warp: thread 0 gets the block's sum.
__device__ unsigned block_sum(unsigned v)
{
    __shared__ unsigned warp_sum[CEIL_THREADS / 32];
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        warp_sum[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < CEIL_THREADS / 32 ? warp_sum[threadIdx.x] : 0u;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

// As little work per byte as a reduction can do: UNROLL independent 16-byte
// loads in flight per thread, a wrapping sum so that the loads are used, and
// one partial per block (no atomics, no memset, so nothing else is timed).
__global__ void __launch_bounds__(CEIL_THREADS)
read_ceiling_kernel(const int4 *in, size_t nvec, const int *tail, unsigned ntail, unsigned *partials)
{
    const size_t tid = (size_t)blockIdx.x * CEIL_THREADS + threadIdx.x;
    const size_t nth = (size_t)gridDim.x * CEIL_THREADS;
    unsigned acc = 0;
    size_t i = tid;
    for (; i + (CEIL_UNROLL - 1) * nth < nvec; i += CEIL_UNROLL * nth) {
        int4 v[CEIL_UNROLL];
#pragma unroll
        for (int u = 0; u < CEIL_UNROLL; u++)
            v[u] = __ldg(in + i + u * nth);
#pragma unroll
        for (int u = 0; u < CEIL_UNROLL; u++)
            acc += (unsigned)v[u].x + (unsigned)v[u].y + (unsigned)v[u].z + (unsigned)v[u].w;
    }
    for (; i < nvec; i += nth) {
        int4 v = __ldg(in + i);
        acc += (unsigned)v.x + (unsigned)v.y + (unsigned)v.z + (unsigned)v.w;
    }
    if (tid < ntail)
        acc += (unsigned)tail[tid];
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = acc;
}

// CUB with an int item count when it fits, as a typical caller writes it
// (CUB picks 32-bit offsets then), else a 64-bit count.
template <class Out>
cudaError_t cub_sum(void *temp, size_t &bytes, const int *in, Out *out, size_t n, cudaStream_t s)
{
    if (n <= (size_t)INT_MAX)
        return cub::DeviceReduce::Sum(temp, bytes, in, out, (int)n, s);
    return cub::DeviceReduce::Sum(temp, bytes, in, out, (long long)n, s);
}

} // namespace

struct cmp_state {
    int device;
    size_t n;
    void *temp;
    size_t temp_bytes;
    unsigned *partials;
    unsigned *h_partials;
    int blocks;
};

extern "C" int cmp_prepare(int device, size_t n, cmp_state **out)
{
    if (out == nullptr)
        return fail_msg("cmp_prepare", "out is NULL");
    *out = nullptr;
    CK(cudaSetDevice(device));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (sms <= 0)
        return fail_msg("cmp_prepare", "the device reports no multiprocessors");

    // Size queries: the largest need over both output types and, when n does
    // not fit an int, both offset widths (smaller calls switch to int).
    size_t need = 1, b = 0;
    const size_t n32 = n <= (size_t)INT_MAX ? n : (size_t)INT_MAX;
    CK(cub_sum<long long>(nullptr, b, nullptr, nullptr, n, nullptr));
    need = b > need ? b : need;
    CK(cub_sum<int>(nullptr, b, nullptr, nullptr, n, nullptr));
    need = b > need ? b : need;
    if (n32 != n) {
        CK(cub_sum<long long>(nullptr, b, nullptr, nullptr, n32, nullptr));
        need = b > need ? b : need;
        CK(cub_sum<int>(nullptr, b, nullptr, nullptr, n32, nullptr));
        need = b > need ? b : need;
    }

    cmp_state *s = (cmp_state *)std::calloc(1, sizeof *s);
    if (s == nullptr)
        return fail_msg("cmp_prepare", "out of host memory");
    s->device = device;
    s->n = n;
    s->temp_bytes = need;
    s->blocks = CEIL_BLOCKS_PER_SM * sms;
    cudaError_t e = cudaMalloc(&s->temp, need);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&s->partials, (size_t)s->blocks * sizeof(unsigned));
    if (e == cudaSuccess)
        e = cudaMallocHost((void **)&s->h_partials, (size_t)s->blocks * sizeof(unsigned));
    if (e != cudaSuccess) {
        fail("cudaMalloc in cmp_prepare", e);
        cmp_release(s);
        return 1;
    }
    *out = s;
    return 0;
}

extern "C" void cmp_release(cmp_state *s)
{
    if (s == nullptr)
        return;
    // Errors here cannot be acted on; they are left for cmp_last_error().
    cudaError_t e;
    if (s->temp != nullptr && (e = cudaFree(s->temp)) != cudaSuccess)
        fail("cudaFree", e);
    if (s->partials != nullptr && (e = cudaFree(s->partials)) != cudaSuccess)
        fail("cudaFree", e);
    if (s->h_partials != nullptr && (e = cudaFreeHost(s->h_partials)) != cudaSuccess)
        fail("cudaFreeHost", e);
    std::free(s);
}

extern "C" int cmp_cub_sum_i64(cmp_state *s, const int *d_in, size_t n, long long *d_out,
                               cudaStream_t stream)
{
    if (s == nullptr || n > s->n)
        return fail_msg("cmp_cub_sum_i64", "not prepared for this n");
    size_t bytes = s->temp_bytes;
    CK(cub_sum<long long>(s->temp, bytes, d_in, d_out, n, stream));
    return 0;
}

extern "C" int cmp_cub_sum_i32(cmp_state *s, const int *d_in, size_t n, int *d_out,
                               cudaStream_t stream)
{
    if (s == nullptr || n > s->n)
        return fail_msg("cmp_cub_sum_i32", "not prepared for this n");
    size_t bytes = s->temp_bytes;
    CK(cub_sum<int>(s->temp, bytes, d_in, d_out, n, stream));
    return 0;
}

extern "C" int cmp_thrust_sum_i64(const int *d_in, size_t n, long long *h_out, cudaStream_t stream)
{
    if (h_out == nullptr)
        return fail_msg("cmp_thrust_sum_i64", "h_out is NULL");
    try {
        thrust::device_ptr<const int> first(d_in);
        *h_out = thrust::reduce(thrust::cuda::par.on(stream), first, first + (std::ptrdiff_t)n, 0LL,
                                thrust::plus<long long>());
    } catch (const std::exception &ex) {
        return fail_msg("thrust::reduce", ex.what());
    } catch (...) {
        return fail_msg("thrust::reduce", "unknown exception");
    }
    return 0;
}

extern "C" int cmp_thrust_sum_f32(const float *d_in, size_t n, float *h_out, cudaStream_t stream)
{
    if (h_out == nullptr)
        return fail_msg("cmp_thrust_sum_f32", "h_out is NULL");
    try {
        thrust::device_ptr<const float> first(d_in);
        *h_out = thrust::reduce(thrust::cuda::par.on(stream), first, first + (std::ptrdiff_t)n, 0.0f,
                                thrust::plus<float>());
    } catch (const std::exception &ex) {
        return fail_msg("thrust::reduce", ex.what());
    } catch (...) {
        return fail_msg("thrust::reduce", "unknown exception");
    }
    return 0;
}

namespace {

const char *const type_names[CMP_TYPE_COUNT] = {"int8",    "int32",    "int64",   "uint32",
                                                 "float16", "bfloat16", "float32", "float64"};

// One CUB call of cmp_ops (a size query when temp is null), or a message.
int ops_call(const char *who, cmp_op op, cmp_type type, void *temp, size_t &bytes, const void *d_in,
             size_t n, void *d_out, cudaStream_t stream)
{
    if ((unsigned)op >= CMP_OP_COUNT || (unsigned)type >= CMP_TYPE_COUNT)
        return fail_msg(who, "unknown operator or type");
    if (n > (size_t)INT_MAX)
        return fail_msg(who, "n is over INT_MAX (the comparator gives CUB an int count)");
    const bool ints = type <= CMP_UINT32;
    if (op == CMP_SUM_GPU_TO_GPU) {
        if (cmp_ops::gpu_to_gpu_missing() != nullptr)
            return fail_msg("DeviceReduce::Sum (gpu_to_gpu)", cmp_ops::gpu_to_gpu_missing());
        if (type != CMP_FLOAT32 && type != CMP_FLOAT64)
            return fail_msg("DeviceReduce::Sum (gpu_to_gpu)", "float32 and float64 only");
        if (temp == nullptr) { // the size query: CUB allocates for itself
            bytes = 0;
            return 0;
        }
        cudaError_t e = cmp_ops::sum_gpu_to_gpu(type, d_in, d_out, (int)n, stream);
        return e == cudaSuccess ? 0 : fail("cub::DeviceReduce::Sum (gpu_to_gpu)", e);
    }
    cudaError_t e = ints ? cmp_ops::reduce_int(op, type, temp, bytes, d_in, d_out, (int)n, stream)
                         : cmp_ops::reduce_float(op, type, temp, bytes, d_in, d_out, (int)n, stream);
    if (e == cudaErrorNotSupported) {
        char what[96];
        std::snprintf(what, sizeof what, "%s %s", cmp_op_call(op, type), type_names[type]);
        return fail_msg(what, CUB_VERSION >= 300000 ? "not built in" : "needs CCCL 3 (CUB 3.0)");
    }
    if (e != cudaSuccess) {
        char what[96];
        std::snprintf(what, sizeof what, "cub::%s %s", cmp_op_call(op, type), type_names[type]);
        return fail(what, e);
    }
    return 0;
}

} // namespace

extern "C" const char *cmp_op_call(cmp_op op, cmp_type type)
{
    const bool half = type == CMP_FLOAT16 || type == CMP_BFLOAT16;
    switch (op) {
    case CMP_SUM:
        return half ? "DeviceReduce::TransformReduce" : "DeviceReduce::Sum";
    case CMP_MIN:
        return "DeviceReduce::Min";
    case CMP_MAX:
        return "DeviceReduce::Max";
    case CMP_ARGMIN:
        return "DeviceReduce::ArgMin";
    case CMP_ARGMAX:
        return "DeviceReduce::ArgMax";
    case CMP_SUM_SQUARES:
        return "DeviceReduce::TransformReduce";
    case CMP_SUM_GPU_TO_GPU:
        return "DeviceReduce::Sum (gpu_to_gpu)";
    }
    return "?";
}

extern "C" int cmp_reserve(cmp_state *s, cmp_op op, cmp_type type, size_t n)
{
    if (s == nullptr)
        return fail_msg("cmp_reserve", "state is NULL");
    size_t need = 0;
    if (ops_call("cmp_reserve", op, type, nullptr, need, nullptr, n, nullptr, nullptr) != 0)
        return 1;
    if (need <= s->temp_bytes)
        return 0;
    void *temp = nullptr;
    CK(cudaDeviceSynchronize());
    CK(cudaMalloc(&temp, need));
    cudaError_t e = cudaFree(s->temp);
    if (e != cudaSuccess) {
        cudaFree(temp);
        return fail("cudaFree", e);
    }
    s->temp = temp;
    s->temp_bytes = need;
    return 0;
}

extern "C" int cmp_reduce(cmp_state *s, cmp_op op, cmp_type type, const void *d_in, size_t n,
                          void *d_out, cudaStream_t stream)
{
    if (s == nullptr)
        return fail_msg("cmp_reduce", "state is NULL");
    size_t bytes = s->temp_bytes;
    return ops_call("cmp_reduce", op, type, s->temp, bytes, d_in, n, d_out, stream);
}

extern "C" int cmp_segmented(cmp_op op, cmp_type type, const void *d_in, long long num_segments,
                             const long long *d_begin, const long long *d_end, long long seg_len, void *d_out,
                             void *temp, size_t *temp_bytes, cudaStream_t stream)
{
    if (temp_bytes == nullptr)
        return fail_msg("cmp_segmented", "temp_bytes is NULL");
    cudaError_t e = cmp_ops::segmented(op, type, d_in, num_segments, d_begin, d_end, seg_len, d_out, temp,
                                       *temp_bytes, stream);
    if (e == cudaErrorNotSupported)
        return fail_msg("cub::DeviceSegmentedReduce", "no such comparison (float32 SUM/MAX/ARGMAX, int32 SUM)");
    if (e != cudaSuccess)
        return fail("cub::DeviceSegmentedReduce", e);
    return 0;
}

extern "C" int cmp_read_ceiling(cmp_state *s, const int *d_in, size_t n, cudaStream_t stream)
{
    if (s == nullptr)
        return fail_msg("cmp_read_ceiling", "state is NULL");
    if (((size_t)d_in & 15) != 0)
        return fail_msg("cmp_read_ceiling", "input is not 16-byte aligned");
    const size_t nvec = n / 4;
    read_ceiling_kernel<<<s->blocks, CEIL_THREADS, 0, stream>>>(
        (const int4 *)d_in, nvec, d_in + nvec * 4, (unsigned)(n - nvec * 4), s->partials);
    CK(cudaGetLastError());
    return 0;
}

extern "C" int cmp_read_ceiling_result(cmp_state *s, cudaStream_t stream, unsigned *h_sum)
{
    if (s == nullptr || h_sum == nullptr)
        return fail_msg("cmp_read_ceiling_result", "NULL argument");
    CK(cudaMemcpyAsync(s->h_partials, s->partials, (size_t)s->blocks * sizeof(unsigned),
                       cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    unsigned sum = 0;
    for (int i = 0; i < s->blocks; i++)
        sum += s->h_partials[i];
    *h_sum = sum;
    return 0;
}

extern "C" int cmp_read_ceiling_function(cmp_state *s, void **function, void **partials)
{
    if (s == nullptr || function == nullptr || partials == nullptr)
        return fail_msg("cmp_read_ceiling_function", "NULL argument");
    cudaFunction_t f;
    CK(cudaGetFuncBySymbol(&f, (const void *)read_ceiling_kernel));
    *function = (void *)f;
    *partials = s->partials;
    return 0;
}

extern "C" void cmp_read_ceiling_grid(const cmp_state *s, int *blocks, int *threads)
{
    if (blocks != nullptr)
        *blocks = s != nullptr ? s->blocks : 0;
    if (threads != nullptr)
        *threads = CEIL_THREADS;
}

extern "C" const char *cmp_cub_version(void)
{
    static char buf[128];
    int rt = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
        rt = 0;
    std::snprintf(buf, sizeof buf, "CUB %d.%d.%d, Thrust %d.%d.%d, CUDA runtime %d.%d (static)",
                  CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, THRUST_MAJOR_VERSION,
                  THRUST_MINOR_VERSION, THRUST_SUBMINOR_VERSION, rt / 1000, rt % 1000 / 10);
    return buf;
}

extern "C" const char *cmp_last_error(void) { return last_error; }
