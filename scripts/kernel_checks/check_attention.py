"""tcc_attention (lib/Runtime/AttentionKernels.cpp, Kernels/Attention.cu) vs float64.

Every case draws fresh random inputs, fills the output with NaN, calls
tcc_attention through ctypes, checks that no error was recorded, and compares
with a float64 reference computed from the definition in AttentionKernels.h
(softmax over the visible keys, 0 for a query that sees none):
max|out - ref| / max|ref| within 2e-5 (f32), 5e-3 (TF32, f16), 2e-2 (bf16).
Strided outputs are checked for writes outside the view. Head dims: the
compiled ones (16, 32, 64, 80, 96, 128) and some that run in a larger
kernel with zero columns (8, 40, 72, 120), whose row padding must be neither
read nor written. Masks come in layouts that reach the kernels' shared
memory by cp.async (16-byte aligned rows, with a ragged lk) and element by
element. Static KV-cache masks (prefixes of 1 to 2048 of 2048 keys per
sequence, bands inside the cache, rows of one block seeing different keys,
-inf, finfo.min and bool padding, a row of only finfo.min) check the
kernel's mask scan, which reads only the key tiles a block's rows must see
(AttentionMaskScan.h). Then the launcher's alternative choices
(tcc_attention_tune: 128 or 64 query rows per block, masks element by
element with one buffer, a rescale on every tile, double-buffered f32/tf32,
key splits, the mask scan off or forced, splits scanning their own keys or
all of them, the splits merged by a second kernel) rerun the cases they
touch; split calls captured in a CUDA graph are replayed with new inputs
(the merge's counters must be back at 0 after every launch). Then (unless
quick) tcc and torch.nn.functional.scaled_dot_product_attention are timed
on the same inputs, and tcc under each of those choices where it applies
(an A/B of the defaults); times are per call, from CUDA graphs of 20 calls
(device time, no Python overhead), falling back to common.time_cuda per
call.
"""
import ctypes
import math

import torch
import torch.nn.functional as F

import common

# AttentionKernels.h
MASK_NONE, MASK_BOOL, MASK_ADD = 0, 1, 2
MATH_F32, MATH_TF32 = 0, 1
# tcc::AttentionTune knobs
TUNE_ROWS, TUNE_MASK_TILES, TUNE_RESCALE, TUNE_STAGES, TUNE_MASK_BUFFERS = 0, 1, 2, 3, 4
TUNE_KV_SPLITS, TUNE_MASK_SCAN, TUNE_COMBINE, TUNE_SCAN_RANGE, TUNE_DECODE = 5, 6, 7, 8, 9

_I32, _I64, _PTR = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
_ARGTYPES = (
    [_I32, _I32]                       # dtype, math
    + [_I64] * 7                       # batch, heads, kvHeads, lq, lk, headDim, valueDim
    + [_PTR, _I64, _I64, _I64] * 4     # q, k, v, out: pointer, strides B, H, L
    + [_PTR, _I32, _I64, _I64, _I64, _I64]  # mask, maskKind, strides B, H, Q, K
    + [_I64, _I64]                     # mask batch period, outer stride
    + [_I32, ctypes.c_float, _PTR]     # causal, scale, stream
)

# Where the tensors live (the kernels need CUDA; "cpu" only serves dry runs
# of this script against a host emulation of the kernels).
DEVICE = "cuda"

TOL = {("f32", MATH_F32): 2e-5, ("f32", MATH_TF32): 5e-3, ("f16", 0): 5e-3, ("bf16", 0): 2e-2}
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def _fn():
    f = common.lib().tcc_attention
    if f.argtypes is None:
        f.argtypes = _ARGTYPES
        f.restype = None
    return f


def tune(knob, value):
    """tcc_attention_tune: sets a knob for the calls that follow; the previous value."""
    f = common.lib().tcc_attention_tune
    if f.argtypes is None:
        f.argtypes = [ctypes.c_int32, ctypes.c_int32]
        f.restype = ctypes.c_int32
    return f(knob, value)


class Tuned:
    """Knobs set for the calls inside `with`, restored after."""

    def __init__(self, knobs):
        self.knobs = dict(knobs)

    def __enter__(self):
        self.was = {k: tune(k, v) for k, v in self.knobs.items()}
        return self

    def __exit__(self, *exc):
        for k, v in self.was.items():
            tune(k, v)
        return False


def call(q, k, v, out, mask=None, mask_kind=MASK_NONE, causal=False, scale=None, math_mode=MATH_F32,
         head_dim=None, value_dim=None, kv_heads=None):
    """tcc_attention on [B, H, L, D] views (any strides, D contiguous); `mask`
    is a view expanded to [B, H, Lq, Lk] (stride 0 where it broadcasts), or
    to [B / P, P, H, Lq, Lk]: a mask per window, the batch split by P."""
    B, H, Lq, D = q.shape
    Lk = k.shape[2]
    for t in (q, k, v, out):
        assert t.stride(3) == 1 or t.shape[3] <= 1
    ms = mask.stride() if mask is not None else (0, 0, 0, 0)
    period, outer = 0, 0
    if mask is not None and mask.dim() == 5:
        period, outer, ms = mask.shape[1], ms[0], ms[1:]
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    _fn()(common.DTYPE_CODE[q.dtype], math_mode, B, H, kv_heads or k.shape[1], Lq, Lk,
          head_dim or D, value_dim or v.shape[3],
          common.ptr(q), q.stride(0), q.stride(1), q.stride(2),
          common.ptr(k), k.stride(0), k.stride(1), k.stride(2),
          common.ptr(v), v.stride(0), v.stride(1), v.stride(2),
          common.ptr(out), out.stride(0), out.stride(1), out.stride(2),
          common.ptr(mask), mask_kind, ms[0], ms[1], ms[2], ms[3], period, outer,
          int(causal), scale, common.stream())


def reference(q, k, v, mask=None, mask_kind=MASK_NONE, causal=False, scale=None):
    """The definition of AttentionKernels.h in float64 (scores + additive mask
    added in fp32, as PyTorch does, so that finfo.min padding saturates)."""
    B, H, Lq, D = q.shape
    Lk = k.shape[2]
    group = H // k.shape[1]
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    if Lk == 0:
        return torch.zeros(B, H, Lq, v.shape[3], dtype=torch.float64, device=q.device)
    kd = k.double().repeat_interleave(group, dim=1)
    vd = v.double().repeat_interleave(group, dim=1)
    s = (q.double() @ kd.transpose(-1, -2)) * scale
    visible = torch.ones(B, H, Lq, Lk, dtype=torch.bool, device=q.device)
    if causal:
        visible &= torch.ones(Lq, Lk, dtype=torch.bool, device=q.device).tril()
    if mask is not None and mask.dim() == 5:  # a mask per window: [B / P, P, ...]
        mask = mask.reshape(B, H, Lq, Lk)
    if mask_kind == MASK_BOOL:
        visible &= mask.bool()
    elif mask_kind == MASK_ADD:
        s = (s.float() + mask.float()).double()
        visible &= s > -math.inf
    s = s.masked_fill(~visible, -math.inf)
    m = s.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    p = torch.exp(s - m)
    l = p.sum(dim=-1, keepdim=True)
    out = (p @ vd) / torch.where(l > 0, l, torch.ones_like(l))
    return torch.where(l > 0, out, torch.zeros_like(out))


def _tensor(B, H, L, D, dtype, layout, gen, scale=1.0):
    """A [B, H, L, D] tensor of random values: "contig", "blhd" (a transposed
    view of [B, L, H, D]), "offset" (contiguous, one element past an aligned
    base), "padded" (rows of D + 8, a view of the first D; the other 8 are
    NaN, so that a kernel reading past the head dim shows)."""
    dev = DEVICE
    if layout == "blhd":
        base = torch.randn(B, L, H, D, generator=gen, device=dev) * scale
        return base.to(dtype).transpose(1, 2)
    if layout == "offset":
        n = B * H * L * D
        flat = torch.empty(n + 1, dtype=dtype, device=dev)
        flat[1:] = (torch.randn(n, generator=gen, device=dev) * scale).to(dtype)
        return flat[1:].view(B, H, L, D)
    if layout == "padded":
        base = torch.randn(B, H, L, D + 8, generator=gen, device=dev) * scale
        base[..., D:] = math.nan
        return base.to(dtype)[..., :D]
    return (torch.randn(B, H, L, D, generator=gen, device=dev) * scale).to(dtype)


def _output(B, H, L, D, dtype, layout):
    """A NaN-filled output view and its whole buffer (to find stray writes)."""
    if layout == "blhd":
        buf = torch.full((B, L, H, D), math.nan, dtype=dtype, device=DEVICE)
        return buf.transpose(1, 2), buf
    if layout == "padded":
        buf = torch.full((B, H, L, D + 8), math.nan, dtype=dtype, device=DEVICE)
        return buf[..., :D], buf
    if layout == "offset":
        buf = torch.full((B * H * L * D + 1,), math.nan, dtype=dtype, device=DEVICE)
        return buf[1:].view(B, H, L, D), buf
    buf = torch.full((B, H, L, D), math.nan, dtype=dtype, device=DEVICE)
    return buf, buf


def _span_mask(kind, B, H, Lq, Lk, dtype, spans, pad, pitch=None):
    """A static KV cache's mask [B, 1, Lq, Lk] expanded to [B, H, Lq, Lk]:
    spans[b][i] (or spans[b] for every row, or "min" for a row of only
    finfo.min) is the (lo, hi) range of keys row i of batch b sees (0 or
    True); the others are `pad`: "inf" (-inf, or False for bool) or "min"
    (PyTorch's finfo.min, as transformers pads). `pitch`: rows of that
    many elements, a view of the first Lk (the rest NaN / True)."""
    width = pitch or Lk
    if kind == MASK_BOOL:
        m = torch.zeros(B, 1, Lq, width, dtype=torch.bool, device=DEVICE)
        m[..., Lk:] = True
    else:
        fill = -math.inf if pad == "inf" else torch.finfo(dtype).min
        m = torch.full((B, 1, Lq, width), fill, dtype=dtype, device=DEVICE)
        m[..., Lk:] = math.nan
    for b in range(B):
        for i in range(Lq):
            span = spans[b][i] if isinstance(spans[b], list) else spans[b]
            if span == "min":
                m[b, :, i, :Lk] = torch.finfo(dtype).min
                continue
            lo, hi = span
            m[b, :, i, lo:hi] = True if kind == MASK_BOOL else 0.0
    return m[..., :Lk].expand(B, H, Lq, Lk)


def _mask(kind, shape, B, H, Lq, Lk, dtype, gen, empty_rows, min_rows, pitch=None, spans=None,
          pad="inf"):
    """A mask expanded to [B, H, Lq, Lk]. shape "full" [B, H, Lq, Lk], "qk"
    [Lq, Lk] broadcast over batch and heads, "keys" [B, 1, 1, Lk] (padding),
    "window" [1, 2, H, Lq, Lk] expanded to [B / 2, 2, H, Lq, Lk] (a mask per
    window, as Swin's shifted windows: 5-D, the batch split by 2), "prefix"
    [B, 1, Lq, Lk] additive, 0 on the first keys and -inf after (a static
    KV cache filled to a different position per batch row: 1 + 97 b keys,
    so that whole key splits see nothing).
    `pitch`: rows of that many elements, a view of the first Lk (the others
    would make a difference if read: visible / NaN)."""
    if shape == "spans":
        return _span_mask(kind, B, H, Lq, Lk, dtype, spans, pad, pitch)
    if shape == "spans_keys":  # [B, 1, 1, Lk], broadcast over the queries
        return _span_mask(kind, B, H, 1, Lk, dtype, spans, pad, pitch).expand(B, H, Lq, Lk)
    if shape == "prefix":
        m = torch.full((B, 1, Lq, Lk), -math.inf, dtype=dtype, device=DEVICE)
        for b in range(B):
            m[b, :, :, :min(Lk, 1 + 97 * b)] = 0.0
        return m.expand(B, H, Lq, Lk)
    if shape == "window":
        m = _mask(kind, "full", 2, H, Lq, Lk, dtype, gen, empty_rows, min_rows, pitch)
        return m.contiguous()[None].expand(B // 2, 2, H, Lq, Lk)
    dims = {"full": (B, H, Lq, Lk), "qk": (1, 1, Lq, Lk), "keys": (B, 1, 1, Lk)}[shape]
    r = torch.rand(dims, generator=gen, device=DEVICE)
    if kind == MASK_BOOL:
        m = r < 0.7
    else:
        m = torch.randn(dims, generator=gen, device=DEVICE)
        m = m.masked_fill(r < 0.2, -math.inf).to(dtype)
    if dims[2] > 1:
        for row in empty_rows:  # queries that see no key
            m[:, :, row % Lq, :] = False if kind == MASK_BOOL else -math.inf
        for row in min_rows:  # HF-style padding: finfo.min, finite
            m[:, :, row % Lq, :] = torch.finfo(dtype).min
    if pitch is not None and pitch > Lk:
        base = torch.full(dims[:3] + (pitch,), True if kind == MASK_BOOL else math.nan,
                          dtype=m.dtype, device=DEVICE)
        base[..., :Lk] = m
        m = base[..., :Lk]
    return m.expand(B, H, Lq, Lk)


class Case:
    def __init__(self, name, dtype="bf16", math_mode=MATH_F32, B=2, H=4, KVH=None, Lq=128, Lk=None,
                 D=64, causal=False, mask=None, mask_shape="full", empty_rows=(), min_rows=(),
                 layouts=("contig",) * 3, out_layout="contig", scale=None, magnitude=1.0,
                 mask_pitch=None, spans=None, pad="inf"):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.KVH = KVH or H
        self.Lk = Lq if Lk is None else Lk


def _run_case(report, c, gen, variant=""):
    dtype = DTYPES[c.dtype]
    q = _tensor(c.B, c.H, c.Lq, c.D, dtype, c.layouts[0], gen, c.magnitude)
    k = _tensor(c.B, c.KVH, c.Lk, c.D, dtype, c.layouts[1], gen, c.magnitude)
    v = _tensor(c.B, c.KVH, c.Lk, c.D, dtype, c.layouts[2], gen)
    out, buf = _output(c.B, c.H, c.Lq, c.D, dtype, c.out_layout)
    mask = None
    kind = MASK_NONE
    if c.mask:
        kind = MASK_BOOL if c.mask == "bool" else MASK_ADD
        mask = _mask(kind, c.mask_shape, c.B, c.H, c.Lq, c.Lk, dtype, gen, c.empty_rows, c.min_rows,
                     c.mask_pitch, c.spans, c.pad)
    common.take_error()
    call(q, k, v, out, mask, kind, c.causal, c.scale, c.math_mode)
    err = common.take_error()
    torch.cuda.synchronize()
    label = f"{c.dtype}{'/tf32' if c.math_mode == MATH_TF32 else ''} d{c.D} {c.name}{variant}"
    if err is not None:
        report.fail(label, f"error recorded: {err}")
        return
    ref = reference(q, k, v, mask, kind, c.causal, c.scale)
    # Everything of the buffer outside the view must still be NaN (buf is a
    # base tensor, so the view's storage offset is relative to it).
    untouched = buf.clone()
    torch.as_strided(untouched, out.shape, out.stride(), out.storage_offset()).fill_(math.nan)
    stray = not torch.isnan(untouched).all().item() if untouched.numel() else False
    e = common.rel_err(out, ref) if out.numel() else 0.0
    tol = TOL[(c.dtype, c.math_mode if c.dtype == "f32" else 0)]
    if stray:
        report.fail(label, "wrote outside the output view")
    else:
        report.check(label, e, tol)


def _cases(quick):
    cases = []
    kinds = [("f32", MATH_F32), ("f32", MATH_TF32), ("f16", MATH_F32), ("bf16", MATH_F32)]
    lengths = [1, 7, 64, 127, 128, 197, 1000]
    for dt, mm in kinds:
        def add(name, **kw):
            cases.append(Case(name, dtype=dt, math_mode=mm, **kw))
        for D in (16, 32, 64, 80, 96, 128):
            add("lq=lk=128", D=D)
            add("lq 197 lk 64, BLHD views", D=D, Lq=197, Lk=64, layouts=("blhd",) * 3,
                out_layout="blhd")
            add("lq 100 lk 300 causal, gqa 4/2", D=D, Lq=100, Lk=300, KVH=2, causal=True)
            add("lq 67 lk 129 misaligned q/k/v/out (+1 element)", D=D, Lq=67, Lk=129,
                layouts=("offset",) * 3, out_layout="offset")
            if not quick:
                add("lq 300 lk 100 causal, bool mask, empty rows", D=D, Lq=300, Lk=100,
                    causal=True, mask="bool", empty_rows=(0, 150, 299))
                add("lq=lk=70 additive full mask, padded out rows", D=D, Lq=70, mask="add",
                    out_layout="padded")
        # Head dims without a kernel of their own (the next power of 2 runs
        # them): the NaN padding of padded rows must not be read (a zero Q
        # column times a NaN is NaN), nor the output's written; misaligned
        # views take the scalar kernels.
        for D in (8, 40, 72, 120):
            add("lq 100 lk 150 padded q/k/v/out rows, gqa 4/2", D=D, Lq=100, Lk=150, KVH=2,
                layouts=("padded",) * 3, out_layout="padded")
            add("lq 67 lk 129 causal, misaligned q/k/v/out", D=D, Lq=67, Lk=129, causal=True,
                layouts=("offset",) * 3, out_layout="offset")
            if not quick:
                add("lq=lk=70 bool mask, empty rows, BLHD views", D=D, Lq=70, mask="bool",
                    empty_rows=(0, 69), layouts=("blhd",) * 3, out_layout="blhd")
        for L in lengths if not quick else (1, 7, 197):
            add(f"lq=lk={L}", B=1 if L == 1000 else 2, Lq=L)
            add(f"lq=lk={L} causal", B=1 if L == 1000 else 2, Lq=L, causal=True)
        for lq, lk in ((1, 1000), (1000, 7), (127, 128), (64, 197), (7, 197), (197, 7)):
            add(f"lq {lq} lk {lk}", B=1, Lq=lq, Lk=lk)
            add(f"lq {lq} lk {lk} causal", B=1, Lq=lq, Lk=lk, causal=True)
        add("gqa heads 8 kv 2", H=8, KVH=2, Lq=130)
        add("gqa heads 8 kv 1 causal", H=8, KVH=1, Lq=130, causal=True)
        add("gqa heads 8 kv 2, BLHD q only", H=8, KVH=2, Lq=96, Lk=200, layouts=("blhd", "contig", "contig"))
        add("bool mask full, empty rows", Lq=130, Lk=90, mask="bool", empty_rows=(0, 5, 129))
        add("bool mask [Lq,Lk] broadcast, empty rows, causal", Lq=77, Lk=77, mask="bool",
            mask_shape="qk", empty_rows=(3, 76), causal=True)
        add("additive mask [Lq,Lk] broadcast (-inf entries, empty rows)", Lq=100, Lk=150, mask="add",
            mask_shape="qk", empty_rows=(9,))
        add("additive mask [B,H,Lq,Lk] full, finfo.min rows", Lq=65, Lk=200, mask="add",
            min_rows=(1, 64))
        add("additive key padding [B,1,1,Lk], gqa 8/2", H=8, KVH=2, Lq=64, Lk=111, mask="add",
            mask_shape="keys")
        add("additive mask per window [B/2,2,H,Lq,Lk] (Swin), -inf entries", B=6, H=3, Lq=49,
            Lk=49, mask="add", mask_shape="window")
        add("bool mask per window [B/2,2,H,Lq,Lk], empty rows", B=4, Lq=70, Lk=90, mask="bool",
            mask_shape="window", empty_rows=(0, 33))
        # Scores of std ~10: nearly one-hot rows, large rescales (TF32 error grows
        # with the score range: x4 gave 1.2e-2 there, as any TF32 product would).
        add("peaky scores (q, k x 2), scale 0.3", Lq=150, Lk=150, magnitude=2.0, scale=0.3)
        add("misaligned q only, causal", Lq=90, Lk=90, layouts=("offset", "contig", "contig"),
            causal=True)
        add("strided out (padded rows)", Lq=90, Lk=60, out_layout="padded")
        # Masks with 16-byte aligned rows (cp.async tiles) and a ragged lk,
        # broadcasts of them, and long sequences (128-row blocks).
        add("bool mask rows of 112, lk 100, empty rows", Lq=90, Lk=100, mask="bool",
            mask_pitch=112, empty_rows=(0, 89))
        add("additive mask rows of 136, lk 130, causal, finfo.min rows", Lq=130, Lk=130,
            mask="add", mask_pitch=136, causal=True, min_rows=(2, 129), empty_rows=(7,))
        add("bool mask [Lq,Lk] broadcast, rows of 128, lq 300", Lq=300, Lk=128, mask="bool",
            mask_shape="qk", empty_rows=(5,))
        add("additive key padding [B,1,1,128]", H=3, Lq=70, Lk=128, mask="add", mask_shape="keys")
        add("lq=lk=520 causal, bool mask rows of 528", B=1, Lq=520, mask="bool", mask_pitch=528,
            causal=True, empty_rows=(3,))
        add("lq 600 lk 333, gqa 4/2", B=1, KVH=2, Lq=600, Lk=333)
        # Decoding (one query row, a long cache): the launcher splits the keys
        # over blocks and combines them (flash-decoding); whole splits past the
        # filled prefix see no key.
        add("decode lq 1 lk 2048, gqa 16/4, cache prefix mask", B=3, H=16, KVH=4, Lq=1,
            Lk=2048, mask="add", mask_shape="prefix")
        add("decode lq 1 lk 2051, gqa 16/4, BLHD views", B=2, H=16, KVH=4, Lq=1, Lk=2051,
            layouts=("blhd",) * 3, out_layout="blhd")
        add("decode lq 4 lk 1500 misaligned, bool mask", B=1, H=4, Lq=4, Lk=1500, mask="bool",
            layouts=("offset",) * 3, out_layout="offset", empty_rows=(2,))
        # Static-cache masks: the kernel scans a block's mask rows and reads only
        # the key tiles one of them must see (AttentionMaskScan.h); splits then
        # divide those tiles. Prefixes filled to 1 .. 2048 of 2048 keys, one
        # per sequence of the batch; padding of -inf, or of finfo.min, which
        # may be left out only where every row of the block has an anchor
        # (a row of only finfo.min averages every key: fill 0 below).
        fills = (1, 63, 64, 65, 513, 2047, 2048)
        spans = [(0, f) for f in fills]
        add("cache prefixes 1..2048 of 2048, -inf padding, gqa 8/2", B=7, H=8, KVH=2, Lq=1,
            Lk=2048, mask="add", mask_shape="spans", spans=spans)
        add("cache prefixes 0..2048 of 2048, finfo.min padding, gqa 8/2", B=8, H=8, KVH=2, Lq=1,
            Lk=2048, mask="add", mask_shape="spans", spans=[(0, 0)] + spans, pad="min")
        add("cache prefixes 0..2048 of 2048, bool", B=8, H=4, KVH=2, Lq=1, Lk=2048, mask="bool",
            mask_shape="spans", spans=[(0, 0)] + spans)
        bands = [(700, 900), (1000, 1001), (0, 2048), (1990, 2048), (64, 128), (0, 0)]
        add("bands inside the cache, -inf padding", B=6, H=4, Lq=1, Lk=2048, mask="add",
            mask_shape="spans", spans=bands)
        add("bands inside the cache, finfo.min padding", B=6, H=4, Lq=1, Lk=2048, mask="add",
            mask_shape="spans", spans=bands, pad="min")
        add("bands inside the cache, bool", B=6, H=4, Lq=1, Lk=2048, mask="bool",
            mask_shape="spans", spans=bands)
        # The rows of one block differ (a block holds all 5 query rows).
        rows = [(0, 64), (512, 576), (0, 0), (1000, 1024), (100, 101)]
        add("5 rows seeing different bands, -inf padding", B=2, H=4, Lq=5, Lk=1024, mask="add",
            mask_shape="spans", spans=[rows, rows[::-1]])
        add("5 rows, finfo.min padding, anchors in every row", B=2, H=4, Lq=5, Lk=1024, mask="add",
            mask_shape="spans", spans=[[(0, 64), (512, 576), (300, 301), (1000, 1024), (100, 101)]] * 2,
            pad="min")
        add("5 rows, finfo.min padding, one row of only finfo.min", B=2, H=4, Lq=5, Lk=1024,
            mask="add", mask_shape="spans", spans=[[(0, 64), "min", (512, 576), (0, 1), (9, 10)],
                                                    [(700, 710)] * 4 + ["min"]], pad="min")
        add("5 rows seeing different bands, bool", B=2, H=4, Lq=5, Lk=1024, mask="bool",
            mask_shape="spans", spans=[rows, rows[::-1]])
        # One prefix for every query row (mask [B, 1, 1, Lk] broadcast over 3 rows).
        add("3 rows, one broadcast prefix per sequence", B=3, H=4, Lq=3, Lk=1024, mask="add",
            mask_shape="spans_keys", spans=[(0, 1), (0, 200), (0, 1024)], pad="min")
        # The decode kernels (AttentionDecode.cpp: f16/bf16, d64/d128, at most
        # 8 query rows per kv head, no causal): 8 rows of one kv head (16
        # heads over 2, or 2 queries x 4 heads), a row of only finfo.min (the
        # merging block runs all keys again), a sequence with no visible key,
        # and a cache filled up to the middle of a 64-key chunk.
        for D in (64, 128):
            add(f"decode gqa 16/2 (8 rows a block), finfo.min prefixes, d{D}", D=D, B=4, H=16,
                KVH=2, Lq=1, Lk=1000, mask="add", mask_shape="spans",
                spans=[(0, 1), (0, 500), (0, 1000), (0, 999)], pad="min")
            add(f"decode 2 queries x 4 heads a block, rows of different bands, d{D}", D=D, B=2,
                H=8, KVH=2, Lq=2, Lk=700, mask="add", mask_shape="spans",
                spans=[[(0, 64), (65, 700)], [(300, 301), "min"]], pad="min")
            add(f"decode, one sequence of only finfo.min, one with no key, d{D}", D=D, B=3, H=8,
                KVH=8, Lq=1, Lk=300, mask="add", mask_shape="spans",
                spans=[(0, 130), "min", (0, 0)], pad="min")
            add(f"decode, bool prefix ending inside a chunk, no split, d{D}", D=D, B=2, H=4,
                KVH=1, Lq=1, Lk=100, mask="bool", mask_shape="spans", spans=[(0, 37), (0, 100)])
        # Ragged lk (the last 16-byte chunk of a row is partial), a mask in
        # rows of lk + 1 elements (read element by element), every head dim.
        add("lk 2051, prefix 2049", B=1, H=4, Lq=1, Lk=2051, mask="add", mask_shape="spans",
            spans=[(0, 2049)])
        add("lk 2051, band at the end, bool", B=1, H=4, Lq=1, Lk=2051, mask="bool",
            mask_shape="spans", spans=[(2050, 2051)])
        add("cache prefixes, mask rows of lk + 1", B=3, H=4, Lq=1, Lk=1024, mask="add",
            mask_shape="spans", spans=[(0, 5), (0, 700), (300, 1024)], mask_pitch=1025, pad="min")
        for D in (16, 32, 64, 80, 96, 128):
            add(f"cache prefixes 1, 333, 4096 of 4096, d{D}", D=D, B=3, H=4, KVH=2, Lq=1, Lk=4096,
                mask="add", mask_shape="spans", spans=[(0, 1), (0, 333), (0, 4096)])
        add("empty: lq 0", Lq=0, Lk=5)
        add("no keys: lk 0 gives zeros", Lq=5, Lk=0)
    return cases


# The launcher's alternatives (tcc_attention_tune), each with the cases it
# changes: name, knobs, which cases.
VARIANTS = [
    ("rows128", {TUNE_ROWS: 128}, lambda c: c.dtype in ("f16", "bf16") and c.D >= 40),
    ("rows64", {TUNE_ROWS: 64}, lambda c: c.dtype in ("f16", "bf16") and c.D >= 40),
    ("mask per element, one mask buffer", {TUNE_MASK_TILES: 1, TUNE_MASK_BUFFERS: 1},
     lambda c: c.mask is not None),
    ("one mask buffer", {TUNE_MASK_BUFFERS: 1}, lambda c: c.mask is not None),
    ("rescale every tile", {TUNE_RESCALE: 1}, lambda c: c.D in (32, 64, 128)),
    ("f32/tf32 two stages", {TUNE_STAGES: 2}, lambda c: c.dtype == "f32" and 32 < c.D <= 64),
    ("keys unsplit", {TUNE_KV_SPLITS: 1}, lambda c: not c.causal and c.Lk >= 256),
    ("keys in 3 splits", {TUNE_KV_SPLITS: 3}, lambda c: not c.causal and c.Lk > 64),
    ("keys in 16 splits", {TUNE_KV_SPLITS: 16}, lambda c: not c.causal and c.Lk >= 1024),
    # The splits merged by a second kernel (the default merges in the last
    # block of each query tile).
    ("keys in 3 splits, separate combine", {TUNE_KV_SPLITS: 3, TUNE_COMBINE: 1},
     lambda c: not c.causal and c.Lk > 64),
    ("mask scan off", {TUNE_MASK_SCAN: 1}, lambda c: c.mask is not None and not c.causal),
    # Every mask without causal scanned (the launcher's size limits aside),
    # unsplit and split.
    ("mask scan forced", {TUNE_MASK_SCAN: 2, TUNE_KV_SPLITS: 1},
     lambda c: c.mask is not None and not c.causal),
    ("mask scan forced, keys in 3 splits", {TUNE_MASK_SCAN: 2, TUNE_KV_SPLITS: 3},
     lambda c: c.mask is not None and not c.causal and c.Lk > 64),
    ("mask scan forced, mask per element", {TUNE_MASK_SCAN: 2, TUNE_MASK_TILES: 1},
     lambda c: c.mask is not None and not c.causal),
    # How splits scan (the launcher: each split its own keys where it has at
    # most 2 tiles, else every block all keys): both, each way round.
    ("mask scan forced, 3 splits, each its own keys",
     {TUNE_MASK_SCAN: 2, TUNE_KV_SPLITS: 3, TUNE_SCAN_RANGE: 2},
     lambda c: c.mask is not None and not c.causal and c.Lk > 64),
    ("mask scan, 16 splits, each its own keys", {TUNE_KV_SPLITS: 16, TUNE_SCAN_RANGE: 2},
     lambda c: c.mask is not None and not c.causal and c.Lk >= 1024),
    ("mask scan, every block all keys", {TUNE_SCAN_RANGE: 1},
     lambda c: c.mask is not None and not c.causal and c.Lk >= 256),
    # The calls the decode kernels take, on the flash kernels instead; the
    # decode kernels in 3 splits.
    ("flash kernels, not the decode path", {TUNE_DECODE: 1}, lambda c: _decode_shaped(c)),
    ("decode path, keys in 3 splits", {TUNE_DECODE: 2, TUNE_KV_SPLITS: 3},
     lambda c: _decode_shaped(c) and c.Lk > 128),
]


def _decode_shaped(c):
    """Whether the decode kernels take the case (AttentionDecode.cpp's test,
    alignment aside)."""
    return (c.dtype in ("f16", "bf16") and c.D in (64, 128) and not c.causal and c.Lk > 0
            and (c.H // c.KVH) * c.Lq <= 8)


def _check_variants(report, cases, gen):
    for name, knobs, wanted in VARIANTS:
        with Tuned(knobs):
            for c in cases:
                if not wanted(c):
                    continue
                try:
                    _run_case(report, c, gen, f" [{name}]")
                except Exception as e:
                    report.fail(f"{c.name} [{name}]", f"{type(e).__name__}: {e}")
                    torch.cuda.synchronize()


def _check_graph_replays(report, gen):
    """Split calls captured in a CUDA graph, replayed with new inputs: each
    launch must leave the merge's counters at 0 for the next (a stale count
    merges early or never: NaN or old values in out). Three calls per graph
    (the launcher's splits, 3, 16) over one workspace, grown before the
    capture."""
    dtype = torch.bfloat16
    B, H, KVH, Lk, D = 2, 8, 2, 2048, 64
    mask = _span_mask(MASK_ADD, B, H, 1, Lk, dtype, [(0, 513), (0, 2048)], "min")
    q = _tensor(B, H, 1, D, dtype, "contig", gen)
    k = _tensor(B, KVH, Lk, D, dtype, "contig", gen)
    v = _tensor(B, KVH, Lk, D, dtype, "contig", gen)
    runs = [("default", {}), ("3 splits", {TUNE_KV_SPLITS: 3}), ("16 splits", {TUNE_KV_SPLITS: 16})]
    outs = [torch.full_like(q, math.nan) for _ in runs]

    def calls():
        for o, (_, knobs) in zip(outs, runs):
            with Tuned(knobs):
                call(q, k, v, o, mask, MASK_ADD)

    try:
        common.take_error()
        calls()
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            calls()
        err = common.take_error()
        if err is not None:
            report.fail("graph replays of split calls", f"error recorded: {err}")
            return
        for replay in range(4):
            for t in (q, k, v):
                t.copy_(torch.randn(t.shape, generator=gen, device=DEVICE).to(dtype))
            for o in outs:
                o.fill_(math.nan)
            g.replay()
            torch.cuda.synchronize()
            ref = reference(q, k, v, mask, MASK_ADD)
            for o, (label, _) in zip(outs, runs):
                report.check(f"bf16 d64 graph replay {replay}, decode lk 2048 [{label}]",
                             common.rel_err(o, ref), TOL[("bf16", 0)])
    except Exception as e:
        report.fail("graph replays of split calls", f"{type(e).__name__}: {e}")
        torch.cuda.synchronize()


def _check_errors(report):
    """Invalid arguments must record an error (naming tcc_attention), not crash."""
    q = torch.randn(1, 8, 16, 64, device=DEVICE, dtype=torch.bfloat16)
    kv3 = torch.randn(1, 3, 16, 64, device=DEVICE, dtype=torch.bfloat16)
    q44 = torch.randn(1, 8, 16, 44, device=DEVICE, dtype=torch.bfloat16)
    q136 = torch.randn(1, 8, 16, 136, device=DEVICE, dtype=torch.bfloat16)
    out = torch.empty_like(q)
    out44 = torch.empty_like(q44)
    out136 = torch.empty_like(q136)
    bad = [
        ("kvHeads 3 does not divide heads 8", lambda: call(q, kv3, kv3, out)),
        ("headDim 44 (not a multiple of 8)", lambda: call(q44, q44, q44, out44)),
        ("headDim 136", lambda: call(q136, q136, q136, out136)),
        ("valueDim 128 != headDim 64", lambda: call(q, q, q, out, value_dim=128)),
        ("math code 7", lambda: call(q, q, q, out, math_mode=7)),
        ("mask kind 5 without mask", lambda: call(q, q, q, out, mask_kind=5)),
        ("bool mask kind with a null mask", lambda: call(q, q, q, out, mask_kind=MASK_BOOL)),
    ]
    for name, fn in bad:
        common.take_error()
        fn()
        err = common.take_error()
        if err is None or "tcc_attention" not in err:
            report.fail(f"invalid: {name}", f"expected a recorded error, got {err!r}")
        else:
            report.check(f"invalid: {name} -> \"{err}\"", 0.0, 0.0)
    # A pending error makes the next call return at once: nothing written,
    # and the first error is the one reported.
    common.take_error()
    call(q, kv3, kv3, out)
    untouched = torch.full_like(q, math.nan)
    call(q, q, q, untouched)
    torch.cuda.synchronize()
    err = common.take_error()
    if err is None or "divide" not in err or not torch.isnan(untouched).all().item():
        report.fail("pending error", f"a call after a failure ran or replaced the error ({err!r})")
    else:
        report.check("a call with an error pending does nothing", 0.0, 0.0)


def _per_call_us(fn, reps=20):
    """Device microseconds per call: a CUDA graph of `reps` calls, timed by
    common.time_cuda; per-call events if capture fails."""
    fn()
    torch.cuda.synchronize()
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(reps):
                fn()
        if common.take_error() is not None:
            raise RuntimeError("error during capture")
        return common.time_cuda(g.replay, iters=30, warmup=3) / reps
    except Exception:
        torch.cuda.synchronize()
        return common.time_cuda(fn)


def _timing_mask(kind, B, H, L, dtype):
    """A GPT-2/BERT-style mask for the timing rows: "causal_pad" bool [B, 1, L,
    L] (causal and the last few keys of each batch hidden), "causal_pad_odd"
    the same with rows of L + 1 (element by element), "keypad" additive [B,
    1, 1, L] (0 or -inf). Swin-T's shifted windows: "window" additive [B/64,
    64, H, L, L] expanded from one [64, H, L, L] (H heads) (rows of L elements: odd L
    loads element by element), "window_pitch8" the same in rows padded to a
    multiple of 8 elements (16 bytes: cp.async)."""
    if kind in ("window", "window_pitch8"):
        pitch = L if kind == "window" else (L + 7) // 8 * 8
        base = torch.full((64, H, L, pitch), math.nan, dtype=dtype, device=DEVICE)
        m = torch.randn(64, H, L, L, device=DEVICE).to(dtype)
        m[:, :, :, L // 2:] = m[:, :, :, L // 2:].masked_fill(
            torch.rand(64, H, L, L - L // 2, device=DEVICE) < 0.3, -100.0)
        base[..., :L] = m
        return MASK_ADD, base[..., :L][None].expand(B // 64, 64, H, L, L)
    pad = torch.zeros(B, L, dtype=torch.bool, device=DEVICE)
    for b in range(B):
        pad[b, L - (b * 7) % 23:] = True
    if kind in ("causal_pad", "causal_pad_odd"):
        m = torch.ones(L, L, dtype=torch.bool, device=DEVICE).tril()[None, None] & ~pad[:, None, None, :]
        if kind == "causal_pad_odd":
            base = torch.zeros(B, 1, L, L + 1, dtype=torch.bool, device=DEVICE)
            base[..., :L] = m
            m = base[..., :L]
        return MASK_BOOL, m
    m = torch.zeros(B, 1, 1, L, dtype=dtype, device=DEVICE).masked_fill(pad[:, None, None, :], -math.inf)
    return MASK_ADD, m


# name, dtype (tf32: f32 tensors, TF32 math), B, H, KVH, L, D, causal, mask,
# and the tcc variants to time beside the default (tcc_attention_tune knobs).
ROWS64, ROWS128 = ("rows64", {TUNE_ROWS: 64}), ("rows128", {TUNE_ROWS: 128})
STAGES2 = ("2 stages", {TUNE_STAGES: 2})
RESCALE = ("rescale every tile", {TUNE_RESCALE: 1})
ELEMENT = ("mask per element", {TUNE_MASK_TILES: 1})
ONEBUF = ("one mask buffer", {TUNE_MASK_BUFFERS: 1})
TIMINGS = [
    ("BERT b8 h12 s128 d64", "f32", 8, 12, 12, 128, 64, False, None, [STAGES2, RESCALE]),
    ("BERT b8 h12 s128 d64", "bf16", 8, 12, 12, 128, 64, False, None, [ROWS128, RESCALE]),
    ("GPT-2 b8 h12 s128 d64 causal", "f32", 8, 12, 12, 128, 64, True, None, [STAGES2]),
    ("GPT-2 b8 h12 s128 d64 causal", "bf16", 8, 12, 12, 128, 64, True, None, [ROWS128]),
    ("GPT-2 b8 h12 s128 d64 causal", "tf32", 8, 12, 12, 128, 64, True, None, [STAGES2]),
    ("ViT b8 h12 s197 d64", "f32", 8, 12, 12, 197, 64, False, None, [STAGES2, RESCALE]),
    ("ViT b8 h12 s197 d64", "bf16", 8, 12, 12, 197, 64, False, None, [ROWS128, RESCALE]),
    ("ViT b8 h12 s197 d64", "tf32", 8, 12, 12, 197, 64, False, None, [STAGES2]),
    ("LLaMA b4 h16 kv4 s256 d64 causal", "f32", 4, 16, 4, 256, 64, True, None, [STAGES2]),
    ("LLaMA b4 h16 kv4 s256 d64 causal", "bf16", 4, 16, 4, 256, 64, True, None, [ROWS128]),
    ("b2 h16 s2048 d128 causal", "bf16", 2, 16, 16, 2048, 128, True, None, [ROWS64, RESCALE]),
    ("Phi-2 b4 h32 s512 d80 causal", "bf16", 4, 32, 32, 512, 80, True, None, [ROWS64]),
    ("SD UNet b2 h8 s1024 d40 (as d64)", "f16", 2, 8, 8, 1024, 40, False, None, [ROWS128]),
    ("b2 h16 s4096 d128", "bf16", 2, 16, 16, 4096, 128, False, None, [ROWS64, RESCALE]),
    # Masks: GPT-2's bool [B, 1, L, L] (causal folded in, key padding), as
    # the only mask and beside causal; BERT's additive key padding; rows of
    # L + 1 bytes (element by element).
    ("GPT-2 b8 h12 s128 d64 mask", "bf16", 8, 12, 12, 128, 64, False, "causal_pad", [ELEMENT, ONEBUF]),
    ("GPT-2 b8 h12 s128 d64 causal+mask", "bf16", 8, 12, 12, 128, 64, True, "causal_pad", [ELEMENT]),
    ("GPT-2 b8 h12 s128 d64 mask rows 129", "bf16", 8, 12, 12, 128, 64, False, "causal_pad_odd", []),
    ("GPT-2 b8 h12 s128 d64 mask", "f32", 8, 12, 12, 128, 64, False, "causal_pad", [ELEMENT]),
    ("BERT b8 h12 s128 d64 keypad", "bf16", 8, 12, 12, 128, 64, False, "keypad", [ELEMENT]),
    ("b2 h16 s2048 d128 mask", "bf16", 2, 16, 16, 2048, 128, False, "causal_pad", [ELEMENT, ROWS128]),
    # Swin-T stage 1: 1024 windows of 49 tokens, 3 heads, the shifted
    # windows' additive mask per window, rows of 49 and padded to 56.
    ("Swin-T b1024 h3 s49 d32 window mask", "bf16", 1024, 3, 3, 49, 32, False, "window", []),
    ("Swin-T b1024 h3 s49 d32 mask rows 56", "bf16", 1024, 3, 3, 49, 32, False, "window_pitch8",
     []),
    ("Swin-T b1024 h3 s49 d32 window mask", "f32", 1024, 3, 3, 49, 32, False, "window", []),
    ("Swin-T b1024 h3 s49 d32 mask rows 56", "f32", 1024, 3, 3, 49, 32, False, "window_pitch8",
     []),
]


def _timings(report):
    gen = torch.Generator(device=DEVICE).manual_seed(7)
    rows = []
    tf32_was = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        for name, dt, B, H, KVH, L, D, causal, mask_spec, variants in TIMINGS:
            math_mode = MATH_TF32 if dt == "tf32" else MATH_F32
            dtype = DTYPES["f32" if dt == "tf32" else dt]
            q = _tensor(B, H, L, D, dtype, "contig", gen)
            k = _tensor(B, KVH, L, D, dtype, "contig", gen)
            v = _tensor(B, KVH, L, D, dtype, "contig", gen)
            out = torch.empty_like(q)
            mask, kind = None, MASK_NONE
            if mask_spec:
                kind, mask = _timing_mask(mask_spec, B, H, L, dtype)
            mask4 = mask
            if mask is not None and mask.dim() == 4:
                mask4 = mask.expand(B, H, L, L)
            elif mask is not None:  # per window: torch reads it whole
                mask = mask.reshape(B, H, L, L)
            # torch: one mask (causal folded in where both are given).
            t_mask = mask
            if mask is not None and causal:
                tri = torch.ones(L, L, dtype=torch.bool, device=DEVICE).tril()
                t_mask = (mask & tri) if kind == MASK_BOOL else mask.masked_fill(~tri, -math.inf)

            def torch_fn():
                return F.scaled_dot_product_attention(q, k, v, attn_mask=t_mask,
                                                      is_causal=causal and t_mask is None,
                                                      enable_gqa=KVH != H)

            torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
            ref = torch_fn()
            t_torch = _per_call_us(torch_fn)
            torch.backends.cuda.matmul.allow_tf32 = False
            flops = 4.0 * B * H * L * L * D * (0.5 if causal else 1.0)
            for label, knobs in [("default", {})] + variants:
                with Tuned(knobs):
                    common.take_error()
                    out.fill_(math.nan)
                    call(q, k, v, out, mask4, kind, causal, math_mode=math_mode)
                    torch.cuda.synchronize()
                    err = common.take_error()
                    if err is not None:
                        report.fail(f"timing {name} {dt} [{label}]", err)
                        continue
                    # A sanity check of the timed call (torch's own arithmetic differs;
                    # fully hidden rows: torch gives NaN or 0, tcc 0).
                    e = common.rel_err(out, ref.nan_to_num(0.0))
                    report.check(f"timing shape {name} {dt} [{label}] vs torch", e,
                                 2e-2 if dt == "bf16" else 5e-3)
                    t_tcc = _per_call_us(lambda: call(q, k, v, out, mask4, kind, causal,
                                                      math_mode=math_mode))
                rows.append((name, dt, label, t_tcc, t_torch, flops / (t_tcc * 1e-6) / 1e12))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32_was
    report.note(f"{'shape':36s} {'dtype':5s} {'tcc variant':19s} {'tcc us':>8s} {'torch us':>8s} "
                f"{'tcc/torch':>9s} {'TFLOP/s':>8s}")
    for name, dt, label, a, b, tf in rows:
        report.note(f"{name:36s} {dt:5s} {label:19s} {a:8.1f} {b:8.1f} {a / b:9.2f} {tf:8.1f}")


def run(quick=False):
    report = common.Report("attention")
    gen = torch.Generator(device=DEVICE).manual_seed(1234)
    cases = _cases(quick)
    for c in cases:
        try:
            _run_case(report, c, gen)
        except Exception as e:  # one broken case must not hide the others
            report.fail(c.name, f"{type(e).__name__}: {e}")
            torch.cuda.synchronize()
    _check_variants(report, cases, gen)
    _check_graph_replays(report, gen)
    _check_errors(report)
    if not quick:
        _timings(report)
    return report
