"""tcc_gemm (cuBLASLt) against PyTorch: every element type and compute mode,
transposes, bias/ReLU/GELU-tanh epilogues, a residual, alpha, two batch dims
that collapse into one strided batch and two that do not, a weight shared by
the batch, and pointers only element-aligned. Products of 1-8 rows with a
linear layer's weight go through tcc's GEMV kernels (GemvKernels.h): each of
those cases runs twice, GEMV path on and off (tcc_gemv_tune). See common.py
for the harness.
"""
import ctypes

import torch
import torch.nn.functional as F

import common

# include/tcc/Runtime/CublasLtGemm.h
BIAS, RELU, GELU = 1, 2, 4
F32, TF32, BF16 = 0, 1, 2
TOL = {(torch.float32, F32): 2e-5, (torch.float32, TF32): 5e-3, (torch.float32, BF16): 2e-2,
       (torch.bfloat16, F32): 2e-2, (torch.float16, F32): 5e-3}


def setup():
    fn = common.lib().tcc_gemm
    i32, i64, p, f32 = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p, ctypes.c_float
    fn.argtypes = [i32, i32, i64, i64, i64, i64, i64,
                   p, i64, i64, i64, i32,
                   p, i64, i64, i64, i32,
                   p, i64, i64, i64,
                   p, i64, i64, i64,
                   p, i32, f32, p]
    fn.restype = None
    return fn


def strides(t, batch_dims):
    """(ld, stride0, stride1) of a [b0, b1, r, c] view (0 where broadcast)."""
    s = t.stride()
    return s[2], (s[0] if t.shape[0] > 1 else 0), (s[1] if t.shape[1] > 1 else 0)


def run_case(fn, report, name, dtype, compute, b0, b1, m, n, k, trans_a=False, trans_b=False,
             bias=False, act=0, residual=False, alpha=1.0, shared_b=False, misalign=False,
             swap_batch=False, pad=0):
    """pad: C (and R) are views of rows `pad` elements longer, whose extra
    columns must stay untouched (NaN)."""
    dev = "cuda"
    def make(*shape, shared=False):
        x = torch.randn(*shape, device=dev, dtype=torch.float32).to(dtype)
        if misalign:
            buf = torch.empty(x.numel() + 1, device=dev, dtype=dtype)
            v = buf[1:].view(x.shape)
            v.copy_(x)
            x = v
        return x
    a_shape = (b0, b1, k, m) if trans_a else (b0, b1, m, k)
    b_shape = (1 if shared_b else b0, 1 if shared_b else b1) + ((n, k) if trans_b else (k, n))
    a = make(*a_shape)
    if swap_batch:  # batch dims that do not collapse: a [b1, b0, ...] tensor viewed as [b0, b1]
        a = make(b1, b0, *a_shape[2:]).transpose(0, 1)
    b = make(*b_shape)
    c_rows = torch.full((b0, b1, m, n + pad), float("nan"), device=dev, dtype=dtype)
    c = c_rows[..., :n]
    r = make(b0, b1, m, n) if residual else None
    if residual and pad:
        r = torch.cat([r, torch.zeros(b0, b1, m, pad, device=dev, dtype=dtype)], -1)[..., :n]
    bv = make(n) if bias else None
    am = a.transpose(-1, -2) if trans_a else a
    bm = b.transpose(-1, -2) if trans_b else b
    ref = alpha * (am.double() @ bm.double())
    if bias:
        ref = ref + bv.double()
    if act == RELU:
        ref = ref.relu()
    elif act == GELU:
        ref = F.gelu(ref, approximate="tanh")
    if residual:
        ref = ref + r.double()
    lda, sa0, sa1 = strides(a, 2)
    ldb, sb0, sb1 = strides(b, 2)
    ldc, sc0, sc1 = strides(c, 2)
    ldr, sr0, sr1 = strides(r, 2) if residual else (0, 0, 0)
    epilogue = (BIAS if bias else 0) | act
    fn(common.DTYPE_CODE[dtype], compute, b0, b1, m, n, k,
       common.ptr(a), lda, sa0, sa1, int(trans_a),
       common.ptr(b), ldb, sb0, sb1, int(trans_b),
       common.ptr(c), ldc, sc0, sc1,
       common.ptr(r), ldr, sr0, sr1,
       common.ptr(bv), epilogue, alpha, common.stream())
    torch.cuda.synchronize()
    err = common.take_error()
    if err:
        report.fail(name, err)
        return
    if pad and not torch.isnan(c_rows[..., n:]).all():
        report.fail(name, "wrote into the padding of C's rows")
        return
    report.check(name, common.rel_err(c, ref), TOL[(dtype, compute)])


def linear_call(fn, dtype, m, n, k, a, w, c, ldc=None):
    """A call of tcc_gemm computing c = a @ w.T (a [m, k], w [n, k], c rows of ldc)."""
    return lambda: fn(common.DTYPE_CODE[dtype], 0, 1, 1, m, n, k, common.ptr(a), k, 0, 0, 0,
                      common.ptr(w), k, 0, 0, 1, common.ptr(c), ldc or n, 0, 0,
                      None, 0, 0, 0, None, 0, 1.0, common.stream())


def gemv_cases(fn, report, quick):
    """Decode-shaped products (1-8 rows, f16/bf16, a linear weight): tcc's
    GEMV kernels (tune 2) and cuBLASLt (tune 1) on the same cases."""
    tune = common.lib().tcc_gemv_tune
    tune.argtypes = [ctypes.c_int32]
    tune.restype = ctypes.c_int32
    shapes = [(1, 1, 8), (1, 7, 64), (3, 64, 1000), (1, 2048, 2048), (8, 1024, 2816),
              (5, 33, 5632), (2, 1000, 768), (7, 129, 136)]
    if quick:
        shapes = shapes[:5]
    for mode, label in ((2, "gemv"), (1, "gemv off")):
        tune(mode)
        for dtype in (torch.bfloat16, torch.float16):
            tag = f"{str(dtype)[6:]} {label}"
            for (m, n, k) in shapes:
                run_case(fn, report, f"{tag} {m}x{n}x{k}", dtype, F32, 1, 1, m, n, k,
                         trans_b=True)
            run_case(fn, report, f"{tag} bias+relu", dtype, F32, 1, 1, 4, 300, 512,
                     trans_b=True, bias=True, act=RELU)
            run_case(fn, report, f"{tag} bias+gelu", dtype, F32, 1, 1, 8, 256, 1024,
                     trans_b=True, bias=True, act=GELU)
            run_case(fn, report, f"{tag} residual+alpha, padded rows", dtype, F32, 1, 1, 6, 500,
                     256, trans_b=True, residual=True, alpha=0.5, pad=3)
            run_case(fn, report, f"{tag} bias (a decode residual)", dtype, F32, 1, 1, 1, 2048,
                     2048, trans_b=True, bias=True)
            run_case(fn, report, f"{tag} 8 rows of a shared weight", dtype, F32, 8, 1, 1, 96, 64,
                     trans_b=True, shared_b=True)
            run_case(fn, report, f"{tag} misaligned (cuBLASLt)", dtype, F32, 1, 1, 2, 40, 64,
                     trans_b=True, misalign=True)
    tune(0)
    if quick:
        return
    # Timing: a ~1B LLaMA decode step's products (qkv, o, gate/up, down, LM
    # head) at 1 to 8 rows (a decode batch), bf16, GEMV against cuBLASLt and
    # torch: where the GEMV stops paying (GemvKernels.cpp's row limit).
    dtype = torch.bfloat16
    for m in range(1, 9):
        for (n, k) in ((3072, 2048), (2048, 2048), (11264, 2048), (2048, 5632), (32000, 2048)):
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            w = torch.randn(n, k, device="cuda", dtype=dtype)
            c = torch.empty(m, n, device="cuda", dtype=dtype)
            call = linear_call(fn, dtype, m, n, k, a, w, c)
            tune(2)
            ours = common.time_cuda(call, iters=100)
            tune(1)
            lt = common.time_cuda(call, iters=100)
            tune(0)
            torch_us = common.time_cuda(lambda: torch.mm(a, w.t()), iters=100)
            gbs = (n * k + m * k + m * n) * 2 / (ours * 1e-6) / 1e9
            report.note(f"time gemv bf16 {m}x{n}x{k}: gemv {ours:.1f} µs ({gbs:.0f} GB/s), "
                        f"cuBLASLt {lt:.1f} µs, torch {torch_us:.1f} µs")


def run(quick=False):
    fn = setup()
    report = common.Report("gemm")
    torch.manual_seed(0)
    gemv_cases(fn, report, quick)
    for dtype, compute in TOL:
        tag = f"{str(dtype)[6:]}/{['f32', 'tf32', 'bf16'][compute]}"
        run_case(fn, report, f"{tag} linear+bias+relu", dtype, compute, 1, 1, 100, 64, 96,
                 trans_b=True, bias=True, act=RELU)
        run_case(fn, report, f"{tag} gelu epilogue", dtype, compute, 1, 1, 64, 256, 128,
                 trans_b=True, bias=True, act=GELU)
        run_case(fn, report, f"{tag} residual + alpha", dtype, compute, 2, 3, 33, 40, 24,
                 residual=True, alpha=0.5)
        run_case(fn, report, f"{tag} transA, shared B", dtype, compute, 2, 4, 16, 24, 40,
                 trans_a=True, shared_b=True)
        run_case(fn, report, f"{tag} batch dims not collapsing", dtype, compute, 3, 2, 8, 16, 32,
                 trans_b=True, swap_batch=True)
        run_case(fn, report, f"{tag} misaligned", dtype, compute, 1, 2, 17, 19, 23,
                 bias=True, misalign=True)
        # A ragged n >= 1024 in padded rows: aligned columns and the rest as
        # two products (tcc_gemm), with each epilogue operand offset.
        run_case(fn, report, f"{tag} ragged n, padded rows, bias+gelu", dtype, compute, 1, 1, 40,
                 1030, 64, trans_b=True, bias=True, act=GELU, pad=10)
        run_case(fn, report, f"{tag} ragged n, padded rows, residual, shared B", dtype, compute,
                 2, 3, 24, 1027, 32, residual=True, shared_b=True, alpha=0.5, pad=13)
        # A classifier over 8 images (ViT-B/16's head): fp32 runs it unsplit.
        run_case(fn, report, f"{tag} 8-row head", dtype, compute, 1, 1, 8, 1000, 768,
                 trans_b=True, bias=True)
        # An empty reduction: PyTorch's zeros, then the epilogue.
        run_case(fn, report, f"{tag} k = 0, bias+gelu", dtype, compute, 1, 1, 5, 24, 0,
                 trans_b=True, bias=True, act=GELU)
        run_case(fn, report, f"{tag} k = 0, batched transA, residual", dtype, compute, 2, 3, 7,
                 9, 0, trans_a=True, residual=True)
    # An unknown dtype is recorded, not a crash.
    fn(7, 0, 1, 1, 4, 4, 4, None, 4, 0, 0, 0, None, 4, 0, 0, 0, None, 4, 0, 0,
       None, 0, 0, 0, None, 0, 1.0, common.stream())
    err = common.take_error()
    if err and "element type" in err:
        report.check("unknown dtype recorded", 0.0, 1.0)
    else:
        report.fail("unknown dtype", f"expected an error, got {err!r}")
    if not quick:
        # Timing: BERT's MLP GEMM and the LM head, and the LLaMA benchmark's
        # projections (q/o, k/v, gate/up, down), fp32 and bf16, against torch.
        for dtype in (torch.float32, torch.bfloat16):
            for (m, n, k) in ((1024, 3072, 768), (1024, 50257, 768), (1024, 1024, 1024),
                              (1024, 256, 1024), (1024, 2816, 1024), (1024, 1024, 2816)):
                a = torch.randn(m, k, device="cuda", dtype=dtype)
                w = torch.randn(n, k, device="cuda", dtype=dtype)
                c = torch.empty(m, n, device="cuda", dtype=dtype)
                call = linear_call(fn, dtype, m, n, k, a, w, c)
                ours = common.time_cuda(call, iters=50)
                torch_us = common.time_cuda(lambda: torch.mm(a, w.t()), iters=50)
                report.note(f"time {str(dtype)[6:]} {m}x{n}x{k}: tcc {ours:.1f} µs, torch {torch_us:.1f} µs")
                if n % 8:  # C in rows padded to 16 bytes, as tcc compiles an LM head
                    ldc = (n + 7) // 8 * 8
                    cp = torch.empty(m, ldc, device="cuda", dtype=dtype)
                    call = linear_call(fn, dtype, m, n, k, a, w, cp, ldc)
                    padded = common.time_cuda(call, iters=50)
                    report.note(f"time {str(dtype)[6:]} {m}x{n}x{k}, C rows of {ldc}: tcc {padded:.1f} µs")
    return report
