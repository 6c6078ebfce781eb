"""Checks tcc_row (include/tcc/Runtime/RowKernels.h) against PyTorch.

Each case makes fresh random inputs, poisons the outputs with NaN (and the
memory around them, the padding between rows and the element before a
misaligned base, with a sentinel), calls tcc_row once and requires:

  * no recorded error (common.take_error() is None);
  * out within the tolerance of a float64 reference computed as PyTorch
    computes the same graph: h = x + residual in the input type, then the op
    on h in float64 (rms_norm rounds h * rsqrt(mean(h^2) + eps) to the input
    type before the weight multiplies it, as F.rms_norm does); NaN and +-inf
    exactly where the reference has them;
  * sumOut bitwise equal to PyTorch's x + residual (or x);
  * the sentinels untouched.

The shapes cover every kernel variant of Rows.cu (warp kernels of 8, 16 and
32 lanes, block kernels of 1 to 8 chunks per thread, the two-pass long
kernel; vectorized and scalar), rows of 1, 7 and 1024, row strides larger
than n, bases one element past 16-byte alignment, layer_norm of values in
[100, 101], softmax of rows with -inf elements and of a row that is all -inf
(NaN, as PyTorch gives), sumOut or out aliasing x. Invalid calls must
record an error and write nothing. Unless quick, timings against PyTorch eager follow (CUDA graphs of
back-to-back calls, so that launch overhead does not hide the kernels).

    python3 scripts/kernel_checks/run_all.py --only rows [--quick]
"""
import ctypes

import torch
import torch.nn.functional as F

import common

# The device tensors live on; the CPU emulation of the kernels used while
# writing them sets "cpu".
DEVICE = "cuda"

# include/tcc/Runtime/RowKernels.h
SOFTMAX, LOG_SOFTMAX, LAYER_NORM, RMS_NORM = 0, 1, 2, 3
KIND_NAME = {SOFTMAX: "softmax", LOG_SOFTMAX: "log_softmax", LAYER_NORM: "layer_norm",
             RMS_NORM: "rms_norm"}

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16
SHORT = {F32: "f32", F16: "f16", BF16: "bf16"}
TOL = {F32: 1e-5, F16: 5e-3, BF16: 2e-2}

# Row lengths: the brief's, plus ones that reach every kernel variant (see
# RowKernels.cpp; vectorized kernels need n a multiple of 4 (fp32) or 8):
# 8, 96, 320 are warp kernels of 8 lanes, 16 lanes, 32 lanes of 2 chunks for
# 16-bit input; 100, 200, 500 of 1, 2, 4 chunks per lane for fp32 (scalar);
# 2000 a block kernel of 1 (16-bit) or 2 chunks per thread; 10000 and 16384
# of 4 (16-bit) or 8 (fp32); 20000 and up the long kernel.
NS = [1, 3, 8, 64, 96, 100, 200, 320, 500, 767, 768, 1000, 1024, 2000, 4096, 5000, 10000, 16384,
      20000, 50257, 131072]
ROWS = [1, 7, 1024]
# Rows of 1024 only for n up to this (the float64 references stay small).
MAX_N_MANY_ROWS = 5000

SOFTMAX_DTYPES = [(F32, F32), (BF16, BF16), (F16, F16), (BF16, F32), (F16, F32)]
NORM_DTYPES = [(F32, F32, F32), (BF16, BF16, BF16), (F16, F16, F16), (BF16, BF16, F32),
               (BF16, F32, F32), (F32, BF16, F32)]

# Memory layouts of the row-major (rows, n) operands.
DENSE, PADDED, OFFSET = "dense", "padded", "offset"
PAD = 5          # extra elements per row of PADDED
SENTINEL = 7.0   # exact in every type


class Options:
    """What one call passes besides x and out."""

    def __init__(self, layout=DENSE, residual=False, sum_out=False, weight=False, bias=False):
        self.layout = layout
        self.residual = residual
        self.sum_out = sum_out
        self.weight = weight
        self.bias = bias

    def name(self, kind):
        parts = [self.layout]
        parts += [p for p, on in (("res", self.residual), ("sum", self.sum_out),
                                  ("w", self.weight and kind in (LAYER_NORM, RMS_NORM)),
                                  ("b", self.bias and kind == LAYER_NORM)) if on]
        return "+".join(parts)


# Rotated over the cases, so that every combination meets every shape class.
OPTION_SETS = [
    Options(DENSE, weight=True, bias=True),
    Options(DENSE, residual=True, sum_out=True, weight=True, bias=True),
    Options(PADDED, residual=True),
    Options(OFFSET, residual=True, sum_out=True, weight=True),
    Options(DENSE, sum_out=True, bias=True),
    Options(OFFSET),
]

_ARGTYPES = [
    ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,  # kind, in, out, param dtype
    ctypes.c_int64, ctypes.c_int64,                                  # rows, n
    ctypes.c_void_p, ctypes.c_int64,                                 # x, xStride
    ctypes.c_void_p, ctypes.c_int64,                                 # residual, residualStride
    ctypes.c_void_p, ctypes.c_int64,                                 # sumOut, sumStride
    ctypes.c_void_p, ctypes.c_void_p,                                # weight, bias
    ctypes.c_float,                                                  # eps
    ctypes.c_void_p, ctypes.c_int64,                                 # out, outStride
    ctypes.c_void_p,                                                 # stream
]


def tcc_row_fn():
    fn = common.lib().tcc_row
    fn.argtypes = _ARGTYPES
    fn.restype = None
    return fn


def _code(dtype):
    return common.DTYPE_CODE[dtype]


def _stride(t):
    return t.stride(0) if t is not None else 0


def call(kind, x, out, residual=None, sum_out=None, weight=None, bias=None, eps=1e-5,
         param_dtype=None, fn=None):
    """tcc_row on (rows, n) views with contiguous rows; dtype codes from the tensors."""
    rows, n = x.shape
    if param_dtype is None:
        p = weight if weight is not None else bias
        param_dtype = p.dtype if p is not None else F32
    (fn or tcc_row_fn())(kind, _code(x.dtype), _code(out.dtype), _code(param_dtype), rows, n,
                         common.ptr(x), _stride(x), common.ptr(residual), _stride(residual),
                         common.ptr(sum_out), _stride(sum_out), common.ptr(weight),
                         common.ptr(bias), eps, common.ptr(out), _stride(out), common.stream())


def _sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def alloc(rows, n, dtype, layout):
    """(buffer, view): a (rows, n) view of `buffer` laid out as `layout`."""
    if layout == PADDED:
        buf = torch.empty(rows * (n + PAD), dtype=dtype, device=DEVICE)
        return buf, buf.view(rows, n + PAD)[:, :n]
    if layout == OFFSET:
        # PyTorch's allocations are 256-byte aligned: one element past that.
        buf = torch.empty(rows * n + 1, dtype=dtype, device=DEVICE)
        return buf, buf[1:].view(rows, n)
    buf = torch.empty(rows * n, dtype=dtype, device=DEVICE)
    return buf, buf.view(rows, n)


def poisoned(rows, n, dtype, layout):
    """An output: NaN in the view, the sentinel around it."""
    buf, view = alloc(rows, n, dtype, layout)
    buf.fill_(SENTINEL)
    view.fill_(float("nan"))
    return buf, view


def outside_untouched(buf, view):
    """Whether the elements of buf outside view still hold the sentinel."""
    mask = torch.ones(buf.numel(), dtype=torch.bool, device=buf.device)
    torch.as_strided(mask, view.size(), view.stride(), view.storage_offset()).fill_(False)
    return bool((buf[mask] == SENTINEL).all())


def reference(kind, h, weight, bias, eps):
    """kind(h) in float64, as PyTorch computes the graph on h (the input type)."""
    hd = h.double()
    n = h.shape[-1]
    if kind == SOFTMAX:
        return torch.softmax(hd, -1)
    if kind == LOG_SOFTMAX:
        return torch.log_softmax(hd, -1)
    w = weight.double() if weight is not None else None
    if kind == LAYER_NORM:
        b = bias.double() if bias is not None else None
        return F.layer_norm(hd, (n,), w, b, eps)
    y = (hd * torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + eps)).to(h.dtype).double()
    return y * w if w is not None else y


def compare(out, ref):
    """max|out - ref| / max|ref| over finite ref; inf unless NaN and +-inf match exactly."""
    out = out.double()
    special = ~torch.isfinite(ref)
    if not torch.equal(torch.isnan(out), torch.isnan(ref)):
        return float("inf")
    inf_ref = torch.isinf(ref)
    if not torch.equal(out[inf_ref], ref[inf_ref]):
        return float("inf")
    keep = ~special
    if not bool(torch.isfinite(out[keep]).all()):
        return float("inf")
    o, r = out[keep], ref[keep]
    if r.numel() == 0:
        return 0.0
    denom = r.abs().max().item() or 1.0
    return (o - r).abs().max().item() / denom


def tolerance(kind, in_dtype, out_dtype):
    tol = TOL[out_dtype]
    if kind == RMS_NORM:
        # Its intermediate rounding to the input type can differ by one ulp.
        tol = max(tol, TOL[in_dtype])
    return tol


def inputs(kind, rows, n, dtype, layout, far=False, masked=False, inf_row=False):
    """x as a (rows, n) view: softmax logits (scale 3), normal values, or [100, 101]."""
    _, x = alloc(rows, n, dtype, layout)
    if far:
        x.copy_(100.0 + torch.rand(rows, n, device=DEVICE))
    elif kind in (SOFTMAX, LOG_SOFTMAX):
        x.copy_(3.0 * torch.randn(rows, n, device=DEVICE))
    else:
        x.copy_(torch.randn(rows, n, device=DEVICE) + 0.5)
    if masked:
        x.masked_fill_(torch.rand(rows, n, device=DEVICE) < 0.2, float("-inf"))
        x[:, 0] = 1.0  # one finite element per row
    if inf_row:
        x[min(1, rows - 1)] = float("-inf")
    return x


def check_case(report, kind, rows, n, in_dtype, out_dtype, param_dtype, opt, eps=1e-5, far=False,
               masked=False, inf_row=False):
    name = (f"{KIND_NAME[kind]} {SHORT[in_dtype]}->{SHORT[out_dtype]}"
            + (f" param {SHORT[param_dtype]}" if "+w" in opt.name(kind) or "+b" in opt.name(kind)
               else "")
            + f" {rows}x{n} {opt.name(kind)}" + (" far" if far else "")
            + (" masked" if masked else "") + (" -inf row" if inf_row else ""))
    norm = kind in (LAYER_NORM, RMS_NORM)
    x = inputs(kind, rows, n, in_dtype, opt.layout, far, masked, inf_row)
    residual = None
    if opt.residual:
        _, residual = alloc(rows, n, in_dtype, opt.layout)
        residual.copy_(0.5 * torch.randn(rows, n, device=DEVICE))
    weight = bias = None
    if norm and opt.weight:
        weight = torch.randn(n, dtype=param_dtype, device=DEVICE)
    if kind == LAYER_NORM and opt.bias:
        bias = torch.randn(n, dtype=param_dtype, device=DEVICE)
    out_buf, out = poisoned(rows, n, out_dtype, opt.layout)
    sum_buf = sum_out = None
    if opt.sum_out:
        sum_buf, sum_out = poisoned(rows, n, in_dtype, opt.layout)

    call(kind, x, out, residual, sum_out, weight, bias, eps, param_dtype)
    _sync()
    err = common.take_error()
    if err:
        report.fail(name, f"error recorded: {err}")
        return
    h = x + residual if residual is not None else x
    ref = reference(kind, h, weight, bias, eps)
    why = []
    if not outside_untouched(out_buf, out):
        why.append("wrote outside out's rows")
    if sum_out is not None:
        if not torch.equal(sum_out, h):
            why.append("sumOut differs from x + residual")
        if not outside_untouched(sum_buf, sum_out):
            why.append("wrote outside sumOut's rows")
    if why:
        report.fail(name, "; ".join(why))
        return
    report.check(name, compare(out, ref), tolerance(kind, in_dtype, out_dtype))


def check_errors(report):
    """Invalid calls record an error and write nothing; a pending error stops later calls."""
    fn = tcc_row_fn()
    x = torch.randn(4, 64, device=DEVICE)
    w = torch.randn(64, device=DEVICE)

    def raw(kind=SOFTMAX, ind=0, outd=0, pard=0, rows=4, n=64, weight=None, bias=None, out=None):
        o = out if out is not None else torch.full((4, 64), float("nan"), device=DEVICE)
        fn(kind, ind, outd, pard, rows, n, common.ptr(x), 64, None, 0, None, 0,
           common.ptr(weight), common.ptr(bias), 1e-5, common.ptr(o), 64, common.stream())
        _sync()
        return o

    bad = [
        ("unknown kind 7", dict(kind=7)),
        ("unknown kind -1", dict(kind=-1)),
        ("unknown input dtype", dict(ind=5)),
        ("unknown output dtype", dict(outd=3)),
        ("unknown parameter dtype", dict(kind=LAYER_NORM, pard=9, weight=w)),
        ("negative rows", dict(rows=-1)),
        ("negative n", dict(n=-3)),
        ("softmax with a weight", dict(weight=w)),
        ("rms_norm with a bias", dict(kind=RMS_NORM, bias=w)),
    ]
    for what, kw in bad:
        o = raw(**kw)
        err = common.take_error()
        if not err or "tcc_row" not in err:
            report.fail(f"error: {what}", f"no tcc_row error recorded (got {err!r})")
        elif not bool(torch.isnan(o).all()):
            report.fail(f"error: {what}", "wrote out")
        else:
            report.check(f"error: {what} -> {err!r}", 0.0, 0.0)
    for what, kw in (("rows 0", dict(rows=0)), ("n 0", dict(n=0))):
        o = raw(**kw)
        err = common.take_error()
        ok = err is None and bool(torch.isnan(o).all())
        report.check(f"empty: {what}", 0.0 if ok else float("inf"), 0.0, "" if ok else f"({err!r})")
    # A pending error: the next call returns at once and the first error stays.
    raw(kind=9)
    o = raw()
    err = common.take_error()
    ok = err is not None and "unknown kind 9" in err and bool(torch.isnan(o).all())
    report.check("pending error skips later calls", 0.0 if ok else float("inf"), 0.0,
                 "" if ok else f"({err!r})")
    o = raw()
    ok = common.take_error() is None and bool(torch.isfinite(o).all())
    report.check("works again after the error was taken", 0.0 if ok else float("inf"), 0.0)


def check_aliasing(report):
    """In place: sumOut = x (the residual stream updated), and out = x."""
    for n in (768, 4096, 50257):
        for kind in (SOFTMAX, LAYER_NORM):
            for dt in (F32, BF16):
                name = f"{KIND_NAME[kind]} {SHORT[dt]} 7x{n}"
                x0 = inputs(kind, 7, n, dt, DENSE)
                r = (0.5 * torch.randn(7, n, device=DEVICE)).to(dt)
                w = torch.randn(n, dtype=dt, device=DEVICE) if kind == LAYER_NORM else None
                h = x0 + r
                ref = reference(kind, h, w, None, 1e-5)
                x = x0.clone()
                out = torch.full_like(x, float("nan"))
                call(kind, x, out, r, x, w)
                _sync()
                err = common.take_error()
                if err or not torch.equal(x, h):
                    report.fail(f"{name} sumOut aliasing x", err or "x is not x + residual")
                else:
                    report.check(f"{name} sumOut aliasing x", compare(out, ref), TOL[dt])
                x = x0.clone()
                call(kind, x, x, r, None, w)
                _sync()
                err = common.take_error()
                if err:
                    report.fail(f"{name} out aliasing x", err)
                else:
                    report.check(f"{name} out aliasing x", compare(x, ref), TOL[dt])


def correctness(report, quick):
    torch.manual_seed(0)
    rows_list = ROWS[:2] if quick else ROWS
    case = 0
    for n in NS:
        for rows in rows_list:
            if rows > 7 and n > MAX_N_MANY_ROWS:
                continue
            for kind in (SOFTMAX, LOG_SOFTMAX, LAYER_NORM, RMS_NORM):
                combos = ([(i, o, F32) for i, o in SOFTMAX_DTYPES]
                          if kind in (SOFTMAX, LOG_SOFTMAX) else NORM_DTYPES)
                for in_dtype, out_dtype, param_dtype in combos:
                    picks = (case,) if quick else (case, case + 2)
                    case += 1
                    for pick in picks:
                        opt = OPTION_SETS[pick % len(OPTION_SETS)]
                        check_case(report, kind, rows, n, in_dtype, out_dtype, param_dtype, opt)
    # Rows far from zero: the variance must survive the mean.
    for n in (768, 4096, 20000, 131072):
        for dt in (F32, BF16):
            for opt in (Options(DENSE, weight=True, bias=True), Options(OFFSET, residual=True)):
                check_case(report, LAYER_NORM, 7, n, dt, dt, dt, opt, far=True)
    # Masked rows (-inf elements, as attention masks make) and a row of -inf.
    for n in (64, 768, 4096, 20000, 50257):
        for kind in (SOFTMAX, LOG_SOFTMAX):
            for dt in (F32, BF16):
                layout = OFFSET if n == 768 else DENSE
                check_case(report, kind, 7, n, dt, dt, F32, Options(layout), masked=True)
                check_case(report, kind, 3, n, dt, dt, F32, Options(layout, residual=True,
                                                                    sum_out=True), inf_row=True)
    # eps matters (a constant row normalizes to 0 + bias, not NaN).
    for kind in (LAYER_NORM, RMS_NORM):
        check_case(report, kind, 7, 1000, F32, F32, F32, Options(DENSE, weight=True), eps=0.5)


# -- timing -----------------------------------------------------------------


def per_call_us(fn, reps=20):
    """Microseconds per call of fn, replayed from a CUDA graph of `reps` calls."""
    fn()
    torch.cuda.synchronize()
    try:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(reps):
                fn()
        err = common.take_error()
        if err:
            raise RuntimeError(err)
        return common.time_cuda(graph.replay, iters=30, warmup=3) / reps
    except Exception:  # capture refused: time calls one by one
        common.take_error()
        return common.time_cuda(fn)


def timing(report):
    torch.manual_seed(0)
    fn = tcc_row_fn()
    rows_out = []

    def bench(name, bytes_moved, tcc, eager):
        t_tcc = per_call_us(tcc)
        t_eager = per_call_us(eager)
        err = common.take_error()
        if err:
            report.fail(f"timing {name}", f"error recorded: {err}")
            return
        rows_out.append((name, t_tcc, t_eager, bytes_moved / t_tcc / 1e3))

    def t(shape, dtype):
        return torch.randn(*shape, device=DEVICE, dtype=dtype)

    # softmax 4096x4096 fp32
    x = t((4096, 4096), F32)
    o = torch.empty_like(x)
    bench("softmax 4096x4096 f32", 2 * x.numel() * 4,
          lambda: call(SOFTMAX, x, o, fn=fn), lambda: torch.softmax(x, -1))
    # layer_norm 4096x4096 fp32 with weight and bias
    w, b = t((4096,), F32), t((4096,), F32)
    bench("layer_norm 4096x4096 f32", 2 * x.numel() * 4,
          lambda: call(LAYER_NORM, x, o, weight=w, bias=b, fn=fn),
          lambda: F.layer_norm(x, (4096,), w, b, 1e-5))
    # BERT: residual add + layer_norm, 1024x768, sumOut kept
    for dt in (F32, BF16):
        x, r = t((1024, 768), dt), t((1024, 768), dt)
        s, o = torch.empty_like(x), torch.empty_like(x)
        w, b = t((768,), dt), t((768,), dt)
        bench(f"add+layer_norm 1024x768 {SHORT[dt]}", 4 * x.numel() * x.element_size(),
              lambda: call(LAYER_NORM, x, o, r, s, w, b, 1e-12, fn=fn),
              lambda: F.layer_norm(x + r, (768,), w, b, 1e-12))
    # GPT-2 and ViT: layer_norm alone (the residual is in the GEMM before it)
    for dt in (F32, BF16):
        x = t((1024, 768), dt)
        o = torch.empty_like(x)
        w, b = t((768,), dt), t((768,), dt)
        bench(f"layer_norm 1024x768 {SHORT[dt]}", 2 * x.numel() * x.element_size(),
              lambda: call(LAYER_NORM, x, o, weight=w, bias=b, fn=fn),
              lambda: F.layer_norm(x, (768,), w, b, 1e-5))
    # LLaMA: residual add + rms_norm, 1024x1024 bf16, sumOut kept
    x, r = t((1024, 1024), BF16), t((1024, 1024), BF16)
    s, o = torch.empty_like(x), torch.empty_like(x)
    w = t((1024,), BF16)
    bench("add+rms_norm 1024x1024 bf16", 4 * x.numel() * 2,
          lambda: call(RMS_NORM, x, o, r, s, w, eps=1e-6, fn=fn),
          lambda: F.rms_norm(x + r, (1024,), w, 1e-6))
    # A vocabulary: GPT-2's 50257 (odd: the scalar long kernel)
    x = t((1024, 50257), F32)
    o = torch.empty_like(x)
    bench("softmax 1024x50257 f32", 2 * x.numel() * 4,
          lambda: call(SOFTMAX, x, o, fn=fn), lambda: torch.softmax(x, -1))
    x = t((1024, 32000), BF16)
    o = torch.empty_like(x)
    bench("log_softmax 1024x32000 bf16", 2 * x.numel() * 2,
          lambda: call(LOG_SOFTMAX, x, o, fn=fn), lambda: torch.log_softmax(x, -1))

    report.note(f"{'case':32s} {'tcc us':>9s} {'torch us':>9s} {'tcc/torch':>9s} {'tcc GB/s':>9s}")
    for name, a, e, gbs in rows_out:
        report.note(f"{name:32s} {a:9.1f} {e:9.1f} {a / e:9.2f} {gbs:9.0f}")


def run(quick=False):
    report = common.Report("rows")
    check_errors(report)
    check_aliasing(report)
    correctness(report, quick)
    if not quick and DEVICE == "cuda":
        timing(report)
    passed = sum(line.startswith("PASS") for line in report.lines)
    report.note(f"{passed} passed, {report.failed} failed")
    return report
