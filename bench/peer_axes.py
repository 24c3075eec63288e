#!/usr/bin/env python3
"""cured beside torch.sum(dim=...) and cupy.sum(axis=...) on the same buffers.

Run by hand on a GPU host (not a dependency of the library):

    CURED_LIBRARY=/path/to/libcured.so PYTHONPATH=python python3 bench/peer_axes.py [--iters 20] [--csv out.csv]

The shapes are those of `cured bench axes`: 256 MiB 2-D arrays, rows = 2^0,
2^2, ..., 2^26 of float32 (the same bytes for bfloat16, int32, int8), each
reduced along axis 1 and axis 0, SUM for each type and MAX, ARGMAX,
MEAN_VAR and LOGSUMEXP for float32 (torch.var_mean with correction=0 and
torch.logsumexp; cupy.mean and cupy.var, two calls, and
cupyx.scipy.special.logsumexp). One process, one device, one buffer per type: torch allocates it,
cupy wraps it (cupy.asarray of the torch tensor, no copy) and cured reads it
through ctypes on torch's current stream. Result types follow cured's: sums of
bfloat16 into float32 (torch dtype=torch.float32; cupy has no bfloat16, so
its cells are skipped), of integers into int64. Each figure is the median of
--iters calls, each between its own pair of CUDA events, after one untimed
call; GB/s counts input read plus results written, as the bench does. The
reference is cured's whole-array float32 SUM of the same 256 MiB (a read at
the ceiling, within a few per cent of the bench's read kernel).
"""
import argparse
import ctypes
import os
import statistics
import sys

BYTES = 256 << 20
MAX_RANK = 8  # cured_layout's arrays (include/cured.h); main() checks it against cured_max_rank()


class Layout(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int), ("extent", ctypes.c_int64 * MAX_RANK), ("stride", ctypes.c_int64 * MAX_RANK)]


def load_cured():
    path = os.environ.get("CURED_LIBRARY", "libcured.so")
    lib = ctypes.CDLL(path)
    lib.cured_create.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    lib.cured_destroy.argtypes = [ctypes.c_void_p]
    lib.cured_last_error.restype = ctypes.c_char_p
    lib.cured_reduce_axes_async.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                                            ctypes.POINTER(Layout), ctypes.c_uint32, ctypes.c_void_p, ctypes.c_int,
                                            ctypes.POINTER(Layout), ctypes.c_void_p]
    return lib


def median_us(torch, fn, iters):
    fn()  # compiles (cured), warms caches and allocators (torch, cupy)
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--only", default=None, help="only the cells whose name contains this text")
    args = ap.parse_args()
    import torch
    try:
        import cupy
    except ImportError:
        cupy = None
        print("cupy not found: its columns stay empty", file=sys.stderr)
    torch.cuda.set_device(args.device)
    if cupy is not None:
        cupy.cuda.Device(args.device).use()
    lib = load_cured()
    if lib.cured_max_rank() != MAX_RANK:
        sys.exit("cured_max_rank() is %d; this script's cured_layout has %d" % (lib.cured_max_rank(), MAX_RANK))
    from cured import _lib  # the library's own tables (python/cured, on PYTHONPATH)
    ops, types = _lib.tables().ops, {name: entry[0] for name, entry in _lib.tables().types.items()}
    T_INT32, T_INT64, T_INT8, T_BF16, T_FLOAT32 = (types[k] for k in ("int32", "int64", "int8", "bfloat16", "float32"))
    OP_SUM, OP_MAX, OP_ARGMAX, OP_MEAN_VAR, OP_LOGSUMEXP = (
        ops[k] for k in ("SUM", "MAX", "ARGMAX", "MEAN_VAR", "LOGSUMEXP"))
    h = ctypes.c_void_p()
    st = lib.cured_create(args.device, ctypes.byref(h))
    if st != 0:
        sys.exit("cured_create: status %d: %s" % (st, lib.cured_last_error().decode()))
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    if cupy is not None:
        cupy_stream = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        cupy_stream.use()

    cells = [  # label, torch dtype, cured in/out types, op, result bytes
        ("float32 SUM", torch.float32, T_FLOAT32, T_FLOAT32, OP_SUM, 4),
        ("bfloat16 SUM", torch.bfloat16, T_BF16, T_FLOAT32, OP_SUM, 4),
        ("int32 SUM", torch.int32, T_INT32, T_INT64, OP_SUM, 8),
        ("int8 SUM", torch.int8, T_INT8, T_INT64, OP_SUM, 8),
        ("float32 MAX", torch.float32, T_FLOAT32, T_FLOAT32, OP_MAX, 4),
        ("float32 ARGMAX", torch.float32, T_FLOAT32, T_FLOAT32, OP_ARGMAX, 16),
        ("float32 MEAN_VAR", torch.float32, T_FLOAT32, T_FLOAT32, OP_MEAN_VAR, 8),
        ("float32 LOGSUMEXP", torch.float32, T_FLOAT32, T_FLOAT32, OP_LOGSUMEXP, 4),
    ]
    if args.only:
        cells = [c for c in cells if args.only in c[0]]
    try:
        from cupyx.scipy.special import logsumexp as cupy_logsumexp
    except ImportError:
        cupy_logsumexp = None
    out = torch.empty(BYTES + 2, dtype=torch.int64, device="cuda")  # 2 GiB: int8 1 x 2^28 along axis 0 gives 2^28 int64
    rows_out = []

    def cured_call(x, l, axes, tin, tout, op):
        def f():
            s = lib.cured_reduce_axes_async(h, op, ctypes.c_void_p(x.data_ptr()), tin, ctypes.byref(l), axes,
                                            ctypes.c_void_p(out.data_ptr()), tout, None, stream)
            if s != 0:
                raise RuntimeError("cured: status %d: %s" % (s, lib.cured_last_error().decode()))
        return f

    # The reference: cured's whole-array float32 SUM of 256 MiB.
    x = torch.ones(BYTES // 4, dtype=torch.float32, device="cuda")
    l = Layout(1, (ctypes.c_int64 * MAX_RANK)(BYTES // 4), (ctypes.c_int64 * MAX_RANK)(1))
    ref_us = median_us(torch, cured_call(x, l, 1, T_FLOAT32, T_FLOAT32, OP_SUM), args.iters)
    ref_gbps = BYTES / (ref_us * 1e3)
    print("reference: cured whole-array float32 SUM of 256 MiB, %.2f us = %.1f GB/s" % (ref_us, ref_gbps))
    print("%-15s %-20s %4s %10s %10s %10s   share of the reference: cured / torch / cupy"
          % ("cell", "shape", "axis", "cured us", "torch us", "cupy us"))
    del x
    for label, tdt, tin, tout, op, rsize in cells:
        esize = torch.tensor([], dtype=tdt).element_size()
        n = BYTES // esize
        if tdt.is_floating_point:
            x = torch.randint(-8, 8, (n,), device="cuda").to(tdt)
        else:
            x = torch.randint(-8, 8, (n,), dtype=tdt, device="cuda")
        for k in range(0, 27, 2):
            rows = 1 << k
            cols = n // rows
            m = x.view(rows, cols)
            cm = cupy.asarray(m) if cupy is not None and tdt != torch.bfloat16 else None
            for axis in (1, 0):
                nout = rows if axis == 1 else cols
                l = Layout(2, (ctypes.c_int64 * MAX_RANK)(rows, cols), (ctypes.c_int64 * MAX_RANK)(cols, 1))
                c_us = median_us(torch, cured_call(m, l, 1 << axis, tin, tout, op), args.iters)
                if op == OP_SUM:
                    sdt = torch.float32 if tdt == torch.bfloat16 else (torch.int64 if not tdt.is_floating_point else None)
                    t_fn = (lambda m=m, a=axis, d=sdt: torch.sum(m, dim=a, dtype=d))
                    p_fn = (lambda cm=cm, a=axis: cupy.sum(cm, axis=a)) if cm is not None else None
                elif op == OP_MAX:
                    t_fn = lambda m=m, a=axis: torch.amax(m, dim=a)
                    p_fn = (lambda cm=cm, a=axis: cupy.max(cm, axis=a)) if cm is not None else None
                elif op == OP_ARGMAX:
                    t_fn = lambda m=m, a=axis: torch.max(m, dim=a)  # values and indices, as cured's ARGMAX
                    p_fn = (lambda cm=cm, a=axis: cupy.argmax(cm, axis=a)) if cm is not None else None
                elif op == OP_MEAN_VAR:  # cured's ddof is 0
                    t_fn = lambda m=m, a=axis: torch.var_mean(m, dim=a, correction=0)
                    p_fn = ((lambda cm=cm, a=axis: (cupy.mean(cm, axis=a), cupy.var(cm, axis=a)))
                            if cm is not None else None)
                else:
                    t_fn = lambda m=m, a=axis: torch.logsumexp(m, dim=a)
                    p_fn = ((lambda cm=cm, a=axis: cupy_logsumexp(cm, axis=a))
                            if cm is not None and cupy_logsumexp is not None else None)
                t_us = median_us(torch, t_fn, args.iters)
                p_us = median_us(torch, p_fn, args.iters) if p_fn is not None else float("nan")
                moved = BYTES + nout * rsize
                share = lambda us: (moved / (us * 1e3)) / ref_gbps if us == us else float("nan")
                shape = "%d x %d" % (rows, cols)
                print("%-15s %-20s %4d %10.2f %10.2f %10.2f   %.2f / %.2f / %.2f"
                      % (label, shape, axis, c_us, t_us, p_us, share(c_us), share(t_us), share(p_us)), flush=True)
                rows_out.append((label, rows, cols, axis, moved, c_us, t_us, p_us, share(c_us), share(t_us),
                                 share(p_us)))
        del x
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("cell,rows,cols,axis,bytes,cured_us,torch_us,cupy_us,cured_share,torch_share,cupy_share\n")
            for r in rows_out:
                f.write("%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f\n" % r)
    lib.cured_destroy(h)


if __name__ == "__main__":
    main()
