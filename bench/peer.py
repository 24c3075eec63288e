#!/usr/bin/env python3
"""Whole-array reductions: cured beside torch and cupy on the same buffers, in
one process, with a read ceiling measured in the same run.

Run by hand on a GPU host with PyTorch and CuPy (not a dependency of cured):
    CURED_LIBRARY=$PWD/.libs/libcured.so PYTHONPATH=$PWD/python \\
        python3 bench/peer.py [--log2 24,26,28] [--iters 20] [--csv FILE]
cured is called through its C API (ctypes, asynchronous, result left on the
GPU) as torch and cupy are (a 0-d device result): every call is timed alone
between two events on the legacy default stream, after one untimed call, and
the median is kept (peer_axes.median_us). The ceiling is the best of a grid
sweep of a read-only kernel (four streaming 16-byte loads in flight per
thread).
"""
import argparse
import ctypes
import sys

import cupy
import torch

from cured import _lib
from peer_axes import median_us  # the same per-call event timing as the axes peer script

CEILING_SRC = r"""
extern "C" __global__ void read4(const int4 *p, size_t n4, int *sink) {
    int acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        int4 a = __ldcs(p + i), b = __ldcs(p + i + stride), c = __ldcs(p + i + 2 * stride),
             d = __ldcs(p + i + 3 * stride);
        acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < n4; i += stride) { int4 a = __ldcs(p + i); acc ^= a.x ^ a.y ^ a.z ^ a.w; }
    if (acc == 0x7fffffff) *sink = acc;   /* never in practice: keeps the loads */
}
"""

# the library's codes, from its tables
SUM, MAX, ARGMAX, MEAN_VAR, LOGSUMEXP = (_lib.tables().ops[k] for k in ("SUM", "MAX", "ARGMAX", "MEAN_VAR", "LOGSUMEXP"))
T = {name: entry[0] for name, entry in _lib.tables().types.items()}


def ceiling_us(x, iters):
    kern = cupy.RawKernel(CEILING_SRC, "read4")
    buf = cupy.asarray(x.view(torch.int32).reshape(-1))
    n4 = buf.size // 4
    sink = cupy.zeros(1, dtype=cupy.int32)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    best = None
    for per_sm in (4, 8, 16, 32):
        grid = sms * per_sm
        t = median_us(torch, lambda: kern((grid,), (256,), (buf, cupy.uint64(n4), sink)), iters)
        best = t if best is None else min(best, t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log2", default="24,26,28")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--csv")
    args = ap.parse_args()
    L = _lib.lib()
    h = _lib.handle(0)
    L.cured_reduce_stats_async.restype = ctypes.c_int
    L.cured_reduce_stats_async.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                                           ctypes.c_size_t, ctypes.c_double, ctypes.c_void_p, ctypes.c_int,
                                           ctypes.c_void_p]
    out = torch.empty(4, dtype=torch.int64, device="cuda")
    P = ctypes.c_void_p

    def cured_call(op, x, in_t, out_t, stats=False):
        ptr, n, o = P(x.data_ptr()), x.numel(), P(out.data_ptr())
        if stats:
            def f():
                _lib.check(L.cured_reduce_stats_async(h, op, ptr, T[in_t], n, 0.0, o, T[out_t], None), "stats")
        else:
            def f():
                _lib.check(L.cured_reduce_async(h, op, 0, ptr, T[in_t], n, o, T[out_t], None), "reduce")
        return f

    rows = []
    print("cured vs torch vs cupy, whole arrays, %s, torch %s, cupy %s" % (
        torch.cuda.get_device_name(0), torch.__version__, cupy.__version__), file=sys.stderr)
    for lg in [int(s) for s in args.log2.split(",")]:
        n = 1 << lg
        g = torch.Generator(device="cuda").manual_seed(lg)
        xf = torch.randn(n, device="cuda", generator=g)
        xi = torch.randint(-1000, 1000, (n,), device="cuda", dtype=torch.int32, generator=g)
        xb = xf.to(torch.bfloat16)
        cf, ci = cupy.asarray(xf), cupy.asarray(xi)   # the same buffers
        ceil = ceiling_us(xf, args.iters)
        cells = [
            ("int32", "sum", xi, cured_call(SUM, xi, "int32", "int64"), lambda: torch.sum(xi),
             lambda: cupy.sum(ci)),
            ("float32", "sum", xf, cured_call(SUM, xf, "float32", "float32"), lambda: torch.sum(xf),
             lambda: cupy.sum(cf)),
            ("bfloat16", "sum", xb, cured_call(SUM, xb, "bfloat16", "bfloat16"), lambda: torch.sum(xb), None),
            ("float32", "max", xf, cured_call(MAX, xf, "float32", "float32"), lambda: torch.max(xf),
             lambda: cupy.max(cf)),
            ("float32", "argmax", xf, cured_call(ARGMAX, xf, "float32", "float32"), lambda: torch.argmax(xf),
             lambda: cupy.argmax(cf)),
            ("float32", "var_mean", xf, cured_call(MEAN_VAR, xf, "float32", "float32", stats=True),
             lambda: torch.var_mean(xf, correction=0), lambda: cupy.var(cf)),
            ("float32", "logsumexp", xf, cured_call(LOGSUMEXP, xf, "float32", "float32", stats=True),
             lambda: torch.logsumexp(xf, 0), None),
        ]
        for dtype, name, x, fc, ft, fp in cells:
            nbytes = x.numel() * x.element_size()
            ceil_b = ceil * nbytes / (xf.numel() * 4)  # the ceiling scaled to this input's bytes
            tc, tt = median_us(torch, fc, args.iters), median_us(torch, ft, args.iters)
            tp = median_us(torch, fp, args.iters) if fp is not None else None
            rows.append((lg, dtype, name, nbytes, ceil_b, tc, tt, tp))
            print("2^%d %-9s %-10s cured %8.2f us (%.2fx ceiling)  torch %8.2f us (%.2fx)  cupy %s" % (
                lg, dtype, name, tc, ceil_b / tc, tt, ceil_b / tt,
                "%8.2f us (%.2fx)" % (tp, ceil_b / tp) if tp else "-"))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("log2n,dtype,op,bytes,ceiling_us,cured_us,torch_us,cupy_us\n")
            for r in rows:
                f.write("%d,%s,%s,%d,%.3f,%.3f,%.3f,%s\n" % (r[:7] + ("%.3f" % r[7] if r[7] else "",)))


if __name__ == "__main__":
    main()
