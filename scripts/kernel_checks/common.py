"""Shared by the kernel checks: loading libtcc_kernel_check.so, errors, timing.

The checks run on the GPU machine beside PyTorch (CUDA 13, torch 2.11). They
call tcc's kernel entry points (tcc_gemm, tcc_attention, tcc_row) through
ctypes on torch tensors, compare with PyTorch computed in float64 (or by its
own kernels), and time both with CUDA events.

    python3 scripts/kernel_checks/run_all.py [--lib build/lib/libtcc_kernel_check.so]
"""
import ctypes
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cuda_timing  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LIB = os.path.join(ROOT, "build", "lib", "libtcc_kernel_check.so")

# include/tcc/Runtime/KernelTypes.h
DTYPE_CODE = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}

_lib = None


def lib(path=None):
    """The check library, loaded once (after torch, so its CUDA libraries resolve)."""
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(path or os.environ.get("TCC_KERNEL_CHECK_LIB", DEFAULT_LIB))
        _lib.tcc_check_take_error.argtypes = [ctypes.c_char_p, ctypes.c_int]
        _lib.tcc_check_take_error.restype = ctypes.c_int
    return _lib


def take_error():
    """The kernel error recorded on this thread since the last call, or None."""
    buf = ctypes.create_string_buffer(4096)
    n = lib().tcc_check_take_error(buf, len(buf))
    return buf.value.decode(errors="replace") if n else None


def ptr(t):
    """A tensor's data pointer as a ctypes void pointer (None for None)."""
    return ctypes.c_void_p(t.data_ptr()) if t is not None else ctypes.c_void_p(0)


def stream():
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def rel_err(out, ref):
    """max|out - ref| / max|ref|, in float64; inf when out has NaN where ref has none."""
    out = out.double()
    ref = ref.double()
    if torch.isnan(out).any() and not torch.isnan(ref).any():
        return float("inf")
    denom = ref.abs().max().item() or 1.0
    return (out - ref).abs().nan_to_num(0.0).max().item() / denom


def time_cuda(fn, iters=200, warmup=20):
    """Median microseconds per call of fn(), by CUDA events around each call."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    return cuda_timing.median_us(fn, iters)


class Report:
    """Collects check lines; `failed` counts the failures."""

    def __init__(self, title):
        self.title = title
        self.lines = []
        self.failed = 0

    def check(self, name, err, tol, extra=""):
        ok = err <= tol
        self.failed += not ok
        self.lines.append(f"{'PASS' if ok else 'FAIL'} {self.title} {name}: err {err:.2e} (tol {tol:.0e}) {extra}")
        print(self.lines[-1], flush=True)
        return ok

    def fail(self, name, why):
        self.failed += 1
        self.lines.append(f"FAIL {self.title} {name}: {why}")
        print(self.lines[-1], flush=True)

    def note(self, text):
        self.lines.append(f"     {self.title} {text}")
        print(self.lines[-1], flush=True)
