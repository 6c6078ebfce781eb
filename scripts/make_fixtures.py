#!/usr/bin/env python3
#===- scripts/make_fixtures.py - reference outputs from PyTorch ----------===#
#
# Every expected output tcc is tested against comes from this script, run with
# PyTorch 2.11 (the GPU machine has it; `pip install torch` works too). It never
# uses tcc. Usage:
#
#   python3 scripts/make_fixtures.py --out samples [--only NAME]
#
# For each model it writes samples/<name>/: model.pt2 (torch.export.save),
# input_<i>.npy, expected_<i>.npy (eager fp32 on CPU), and for some models the
# weights as weights/<param-name>.npy so a bare model.json can be bound at run
# time. The PT2E cases (pt2e_*) need torchao (pip install torchao); without it
# they are skipped with a message. Seed samples (foo, mymodule, outer_module,
# mymodule_dynamic_batch) come from ../shared/seed-samples; this script only
# adds extra batches for them.
#
#===----------------------------------------------------------------------===#
import argparse
import contextlib
import os
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_paths import relative_text, relative_torchscript_archive, relative_traces

torch.manual_seed(0)
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False

# --only NAME: write just that case, leaving every other sample untouched.
ONLY = None


class SmallCNN(nn.Module):
    """conv / batch_norm / relu / pooling / cat / linear: a small image classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.branch_a = nn.Conv2d(8, 8, 1)
        self.branch_b = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.conv3 = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = torch.cat([self.branch_a(x), self.branch_b(x)], dim=1)
        x = F.relu(self.bn2(x))
        x = F.avg_pool2d(x, 2)
        x = F.relu(self.conv3(x))
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return self.fc(x)


class OpsMix(nn.Module):
    """The remaining foundation operators: views, scalar/broadcast arithmetic,
    matmul variants, softmax and reductions."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(12, 6))
        self.b = nn.Parameter(torch.randn(6))
        self.register_buffer("scale", torch.rand(1, 6) + 0.5)

    def forward(self, x, y):
        # x: [4, 3, 4], y: [4, 12]
        h = x.reshape(4, 12)                        # view/reshape
        a = torch.addmm(self.b, h, self.w)          # addmm
        m = torch.mm(y, self.w)                     # mm
        t = self.w.t()                              # t
        z = torch.matmul(a, t)                      # matmul -> [4, 12]
        p = x.permute(2, 0, 1).transpose(1, 2)      # permute, transpose -> [4, 3, 4]
        q = p.flatten(1)                            # flatten -> [4, 12]
        r = (z - 1.5) * 0.25 + q / 2.0 - y * self.scale.sum()  # scalars, broadcast
        s = torch.softmax(r, dim=-1)
        u = torch.cat([s, torch.sin(m) * torch.cos(a) / (a * a + 1.0)], dim=1)  # [4, 18]
        v = u.sum(dim=1, keepdim=True) + u.mean(dim=0) - self.scale.mean()
        return torch.relu(v.view(4, 3, 6)), s.sum(-1)


def save_npy(path, t):
    # A Python number (a constant or .item() output): NumPy's type for it,
    # int64, float64 or bool, as tcc returns it.
    if not isinstance(t, torch.Tensor):
        np.save(path, np.asarray(t))
        return
    # NumPy has no bfloat16: such tensors are saved as float32 (exactly), and
    # `tcc run` rounds float32 inputs back for bf16 model inputs.
    if t.dtype == torch.bfloat16:
        t = t.float()
    # A lazily conjugated complex tensor (torch.fft.ihfft's result) has no
    # NumPy form until the conjugation is applied.
    np.save(path, t.detach().cpu().resolve_conj().contiguous().numpy())


def save_io(d, inputs, expected):
    """input_<i>.npy and expected_<i>.npy (eager outputs) in d."""
    if not isinstance(expected, (tuple, list)):
        expected = (expected,)
    for i, t in enumerate(inputs):
        save_npy(os.path.join(d, f"input_{i}.npy"), t)
    for i, t in enumerate(expected):
        save_npy(os.path.join(d, f"expected_{i}.npy"), t)


def write_case(out, name, model, inputs, dynamic_shapes=None, weights_npy=False,
               export_with_grad=False, reference=None):
    """export_with_grad: export outside torch.no_grad(), as users often do
    (grad-mode regions then stay in the graph as higher-order ops).
    reference: a module that computes the expected outputs instead of
    `model` (the same operator in PyTorch by another path, where eager's own
    kernel rounds differently from what the fixture pins down)."""
    if ONLY and name != ONLY:
        return
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    model.eval()
    with torch.set_grad_enabled(export_with_grad):
        ep = torch.export.export(model, tuple(inputs), dynamic_shapes=dynamic_shapes)
    relative_traces(ep)
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    with torch.no_grad():
        # On copies: a model may mutate its inputs in place.
        expected = (reference or model)(*[t.clone() for t in inputs])
    save_io(d, inputs, expected)
    if weights_npy:
        wd = os.path.join(d, "weights")
        os.makedirs(wd, exist_ok=True)
        for k, v in model.state_dict().items():
            save_npy(os.path.join(wd, f"{k}.npy"), v)
    with zipfile.ZipFile(os.path.join(d, "model.pt2")) as z:
        j = [n for n in z.namelist() if n.endswith("models/model.json")][0]
        with open(os.path.join(d, "model.json"), "wb") as f:
            f.write(z.read(j))
    print(f"wrote {d}")


def rejected_inputs(out, name, tag, inputs):
    """Inputs on which the case's exported program raises (a torch._check
    that fails): saved as rejected_<tag>_<i>.npy with PyTorch's message in
    rejected_<tag>.txt, for a test that the compiled model fails the call
    where PyTorch raises. Fails if PyTorch does not raise."""
    if ONLY and name != ONLY:
        return
    d = os.path.join(out, name)
    ep = torch.export.load(os.path.join(d, "model.pt2"))
    try:
        ep.module()(*[t.clone() for t in inputs])
    except RuntimeError as e:
        message = str(e).splitlines()[0]
    else:
        raise SystemExit(f"{name}: the exported program accepted the rejected inputs {tag}")
    for i, t in enumerate(inputs):
        save_npy(os.path.join(d, f"rejected_{tag}_{i}.npy"), t)
    with open(os.path.join(d, f"rejected_{tag}.txt"), "w") as f:
        f.write(message + "\n")
    print(f"wrote {d} rejected_{tag}: {message}")


def extra_batches(out, seed_dir, name, batches):
    """Runs a seed export (with its own weights) at more batch sizes."""
    if ONLY and name != ONLY:
        return
    ep = torch.export.load(os.path.join(seed_dir, name, "model.pt2"))
    mod = ep.module()
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for b in batches:
        x = torch.randn(b, 100)
        with torch.no_grad():
            y = mod(x)
        save_npy(os.path.join(d, f"input_b{b}.npy"), x)
        save_npy(os.path.join(d, f"expected_b{b}.npy"), y)
        print(f"wrote {d} batch {b}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="samples")
    ap.add_argument("--seed-dir", default="samples")
    ap.add_argument("--only", help="write only the case of this name")
    args = ap.parse_args()
    global ONLY
    ONLY = args.only

    cnn = SmallCNN()
    # Non-trivial running statistics so batch_norm is really tested.
    for bn in (cnn.bn1, cnn.bn2):
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.data.uniform_(0.5, 1.5)
        bn.bias.data.uniform_(-0.2, 0.2)
    write_case(args.out, "small_cnn", cnn, [torch.randn(2, 3, 16, 16)])
    write_case(args.out, "ops_mix", OpsMix(), [torch.randn(4, 3, 4), torch.randn(4, 12)])
    write_case(args.out, "mymodule_bare", MyModuleForBare(), [torch.randn(10, 100)],
               weights_npy=True)
    extra_batches(args.out, args.seed_dir, "mymodule_dynamic_batch", [1, 7, 1024])

    block = TinyTransformerBlock()
    write_case(args.out, "tiny_transformer", block, [torch.randn(2, 5, 16)])

    ts = os.path.join(args.out, "torchscript")
    write_torchscript_case(ts, "mymodule", MyModuleForBare(), [torch.randn(10, 100)])
    write_torchscript_case(ts, "outer_module", OuterModule(), [torch.randn(10, 100)])
    write_torchscript_case(ts, "small_cnn", cnn, [torch.randn(2, 3, 16, 16)])
    write_torchscript_case(ts, "tiny_transformer", block, [torch.randn(2, 5, 16)])

    # New cases go last so earlier fixtures keep their random streams.
    # Wide range, with large magnitudes where the stable formulas matter.
    act_in = torch.cat([torch.linspace(-30, 30, 61), torch.randn(64) * 4])
    write_case(args.out, "activations", Activations(), [act_in.reshape(5, 25)])
    write_masks_attention_case(args.out)
    write_grad_mode_case(args.out)
    torch.manual_seed(43)
    write_case(args.out, "write_through_view", WriteThroughView(), [torch.randn(4, 4)])
    torch.manual_seed(44)
    write_case(args.out, "write_through_select", WriteThroughSelect(), [torch.randn(4, 4)])

    torch.manual_seed(54)
    write_case(args.out, "write_through_reshape", WriteThroughReshape(), [torch.randn(4, 4)])

    torch.manual_seed(41)
    write_case(args.out, "inplace", InPlace(), [torch.randn(3, 8), torch.randn(8)])

    torch.manual_seed(45)
    write_case(args.out, "write_through_diagonal", WriteThroughDiagonal(), [torch.randn(4, 4)])
    write_case(args.out, "write_through_split", WriteThroughSplit(), [torch.randn(3, 5)])
    write_case(args.out, "write_through_unfold", WriteThroughUnfold(), [torch.randn(3, 4)])
    write_case(args.out, "views_see_writes", ViewsSeeWrites(), [torch.randn(3, 5)])

    torch.manual_seed(46)
    x = torch.randn(5, 8)
    x[1, 2], x[3, 0], x[4, 7] = float("nan"), float("inf"), float("-inf")
    img = torch.randn(2, 3, 6, 6)
    img[0, 1, 2, 3], img[1, 0, 0, 0], img[1, 2, 5, 5] = float("nan"), float("inf"), float("-inf")
    write_case(args.out, "nan_epilogues", NanEpilogues(), [x, img])

    torch.manual_seed(47)
    write_case(args.out, "mixed_dtype_cat", MixedDtypeCat(),
               [torch.arange(6, dtype=torch.int64).reshape(2, 3), torch.randn(2, 3),
                torch.ones(2, 3, dtype=torch.int32)])

    torch.manual_seed(49)
    write_case(args.out, "upsample_bf16", UpsampleHalf().to(torch.bfloat16),
               [torch.randn(2, 4, 5, 6).to(torch.bfloat16)])

    torch.manual_seed(42)
    write_case(args.out, "indexing", Indexing(),
               [torch.randn(2, 6, 5), torch.tensor([[1, 9, 0], [4, 4, 7]]),
                torch.tensor([4, 0, 2, 2])])

    torch.manual_seed(43)
    write_case(args.out, "multi_index", MultiIndex(),
               [torch.randn(3, 4, 5, 6), torch.tensor([[0, -1, 2]]),
                torch.tensor([[1], [-4], [3], [0]], dtype=torch.int32)])

    torch.manual_seed(147)
    write_case(args.out, "shifted_window_mask", ShiftedWindowMask(),
               [torch.randn(2 * 4, 2, 16, 16)])

    torch.manual_seed(148)
    write_relative_position_bias_case(args.out)

    torch.manual_seed(150)
    write_case(args.out, "shifted_window_attention", ShiftedWindowBlock(),
               [torch.randn(2, 8, 8, 32)])

    torch.manual_seed(149)
    # Values whose f64 -> bf16 and f64 -> f32 -> bf16 roundings differ too.
    x = torch.randn(64)
    x[:4] = torch.tensor([1.0 + 2.0 ** -8 + 2.0 ** -40, -1.0 - 2.0 ** -8 - 2.0 ** -30,
                          1e30, -0.0])
    write_case(args.out, "double_to_bfloat16", DoubleToBFloat16(), [x])

    torch.manual_seed(44)
    write_case(args.out, "pad_roll_scatter", PadRollScatter(),
               [torch.randn(2, 3, 4, 5), torch.randint(-9, 10, (2, 5)),
                torch.randint(1, 5, (5,)) * torch.tensor([1, -1, 1, -1, 1])])

    torch.manual_seed(45)
    x = torch.randn(2, 8, 4, 6)
    x[0, 1, 2, 3] = x[0, 1, 2, 1]  # ties: argmax/argmin take the first
    x[1, 0, :, 0] = x[1, 0, :, 4]
    write_case(args.out, "more_ops", MoreOps(),
               [x, torch.randn(3, 4, 5), torch.randn(3, 5, 6), torch.randn(3, 4, 6)])

    torch.manual_seed(46)
    write_case(args.out, "conv1d", Conv1dStack(), [torch.randn(2, 4, 37)],
               dynamic_shapes=({0: torch.export.Dim("batch", min=1, max=64)},))

    torch.manual_seed(47)
    write_case(args.out, "upsample_nearest", UpsampleNearest(), [torch.randn(2, 3, 4, 5)])

    torch.manual_seed(48)
    write_case(args.out, "einsum", Einsums(), [torch.randn(2, 3, 4), torch.randn(2, 4, 5),
                                               torch.randn(2, 3, 6, 8), torch.randn(2, 3, 7, 8)])

    torch.manual_seed(49)
    write_case(args.out, "upsample_bilinear", UpsampleBilinear(), [torch.randn(2, 3, 4, 5)])

    torch.manual_seed(50)
    write_case(args.out, "conv_transpose", ConvTransposeStack(), [torch.randn(2, 4, 5, 6)])

    torch.manual_seed(51)
    write_case(args.out, "pool1d", Pool1d(), [torch.randn(2, 3, 17)])

    torch.manual_seed(53)
    write_case(args.out, "half_precision", HalfPrecision(), [torch.randn(4, 64), torch.randn(4, 1024)])

    torch.manual_seed(55)
    write_kernel_layer_cases(args.out)

    torch.manual_seed(56)
    write_case(args.out, "vision_attention", VisionAttention(),
               [torch.randn(2, 3, 32, 32), torch.randn(12, 2, 128)])

    torch.manual_seed(57)
    write_llama_tiny_case(args.out)

    torch.manual_seed(52)
    write_case(args.out, "pooling_3d_adaptive", Pooling3dAdaptive(),
               [torch.randn(2, 3, 10), torch.randn(2, 3, 7, 9), torch.randn(2, 3, 6, 7, 8)])

    write_wrong_answer_cases(args.out)
    write_derived_weights_case(args.out)
    write_indexing_tail_cases(args.out)
    write_window7_attention_cases(args.out)
    write_patch_merging_case(args.out)
    write_sweep_columns_cases(args.out)
    write_quantization_cases(args.out)


class MoreOps(nn.Module):
    """amin, argmax/argmin (ties, keepdim, flattened), var/std/var_mean
    (correction, unbiased, keepdim), unbind, baddbmm, rms_norm, group_norm,
    pixel_shuffle."""

    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(4, 8)
        self.gn.weight.data.uniform_(0.5, 1.5)
        self.gn.bias.data.uniform_(-0.5, 0.5)
        self.rms_w = nn.Parameter(torch.rand(6) + 0.5)

    def forward(self, x, a, b1, b2):
        mins = x.amin(dim=(1, 3)) + x.amin(dim=-1).sum(1) + x.amin(dim=1, keepdim=True)[:, 0, :, 0]
        am = torch.argmax(x, dim=3)
        an = torch.argmin(x, dim=1, keepdim=True)
        aflat = torch.argmax(x) + torch.argmin(x[1])
        var = (torch.var(x, dim=(2, 3)) + torch.var(x, dim=1, unbiased=False, keepdim=True).sum()
               + torch.var(x, dim=(1, 2), correction=0).sum(-1, keepdim=True))
        std = torch.std(x, dim=-1, correction=2) + torch.std(x)
        v, m = torch.var_mean(x, dim=2, keepdim=True, correction=1)
        v2, m2 = torch.var_mean(x, dim=(0, 3))
        parts = torch.unbind(a, dim=1)
        un = parts[0] * 2 + parts[3] - parts[1] * parts[2]
        bb = torch.baddbmm(b2, a, b1, beta=0.5, alpha=-1.5)
        rms = F.rms_norm(x, (6,), self.rms_w, eps=1e-6) + F.rms_norm(x, (4, 6))
        gn = self.gn(x)
        ps = F.pixel_shuffle(x, 2)
        return (mins, am, an, aflat, var, std, v + m, v2 * m2, un, bb, rms, gn, ps)


class MasksAttention(nn.Module):
    """What transformers build masks and positions from: comparisons, where,
    masked_fill, logical ops, casts, arange/full/ones, cumsum, diff, any,
    pow, min/max; and attention (bool mask, float mask, causal, grouped
    query heads) with log_softmax."""

    def forward(self, q, k, ids):
        seq = ids.shape[1]
        pad = ids.eq(0)
        pos = torch.cumsum(ids.ne(0).to(torch.int64), dim=1) * (~pad).long()
        keep = torch.logical_and(pos.unsqueeze(1) <= pos.unsqueeze(2), ~pad.unsqueeze(1))
        steps = torch.diff(pos, dim=-1, prepend=torch.zeros_like(pos[:, :1]))
        r = torch.arange(seq)
        band = torch.where((r[None, :] - r[:, None]).abs() < 3, 0.0, -1e4)
        a = F.scaled_dot_product_attention(q, k, k, attn_mask=keep.unsqueeze(1))
        b = F.scaled_dot_product_attention(q, k, k, attn_mask=band, scale=0.3)
        c = F.scaled_dot_product_attention(q, k, k, is_causal=True)
        kv = k[:, :1]
        d = F.scaled_dot_product_attention(q, kv, kv, is_causal=True, enable_gqa=True)
        feats = (a + b + c + d).masked_fill(pad[:, None, :, None], 0.5)
        rms = feats * torch.rsqrt(feats.pow(2).mean(-1, keepdim=True) + 1e-6)
        mixed = torch.max(torch.min(rms, torch.ones_like(rms)), torch.full_like(rms, -0.8))
        any_pad = pad.any(dim=1).to(torch.float32)
        ints = (steps * 3 - pos).to(torch.float32) / 7
        extra = (ints.sum(-1) + any_pad)[:, None, None, None]
        return torch.log_softmax(mixed + extra, dim=-1) + ints[:, None, :, None].pow(3) * 0.01


class NoGradRotary(nn.Module):
    """A @torch.no_grad() forward, as transformers' rotary embeddings have."""

    def __init__(self):
        super().__init__()
        self.register_buffer("freq", torch.randn(5), persistent=False)

    @torch.no_grad()
    def forward(self, x):
        return torch.sin(x * self.freq) + 1.0


class GradModeRegion(nn.Module):
    """The export wraps the no-grad call in a higher-order op with a
    subgraph (wrap_with_set_grad_enabled); tcc inlines it."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(5))
        self.rotary = NoGradRotary()

    def forward(self, x):
        y = x * self.scale
        return self.rotary(y) * y + x


class WriteThroughView(nn.Module):
    """An in-place write into a slice (swin_t's attention mask): the training
    IR keeps slice + fill_, which tcc carries back with slice_scatter."""

    def forward(self, x):
        m = x.new_zeros(4, 4)
        m[1:3, :2] = 5.0
        return x + m


class WriteThroughSelect(nn.Module):
    """Writes into a select (m[1] = 5) and into a slice of a select
    (m[2, 1:3] = -1), carried back to m."""

    def forward(self, x):
        m = x.new_zeros(4, 4)
        m[1] = 5.0
        m[2, 1:3] = -1.0
        return x + m


class WriteThroughReshape(nn.Module):
    """A write into a slice of a reshaped view (m.view(16)[2:5] = 1), carried
    back through the slice and the reshape."""

    def forward(self, x):
        m = x.new_zeros(4, 4)
        m.view(16)[2:5] = 1.0
        return x + m


class WriteThroughDiagonal(nn.Module):
    """Writes into diagonal views (m.diagonal().fill_(1), an offset diagonal
    of a transpose scaled in place): carried back to m by diagonal_scatter."""

    def forward(self, x):
        m = x.new_zeros(4, 4)
        m.diagonal().fill_(1.0)
        y = x.clone()
        y.t().diagonal(1).mul_(3.0)
        return x + m, y


class WriteThroughSplit(nn.Module):
    """Writes into the pieces of views with several results: a split's first
    piece and its shorter last one, split_with_sizes, an unbind's row; each
    carried back to the split tensor (slice_scatter / select_scatter)."""

    def forward(self, x):
        y = x.clone()
        first, _, last = y.split(2, dim=1)  # widths 2, 2, 1
        first.mul_(2.0)
        last.add_(10.0)
        a, b = y.split_with_sizes([1, 2], dim=0)
        b.sub_(1.0)
        rows = y.unbind(0)
        rows[0].fill_(7.0)
        return y, x * 1


class ViewsSeeWrites(nn.Module):
    """Views taken before their base is written in place see the write, as
    in PyTorch: two slices of one tensor written one after the other, a
    transpose read after both, a row of a slice written after its slice
    was."""

    def forward(self, x):
        y = x.clone()
        a, b, t = y[:, :2], y[:, 2:], y.t()
        r = b[1]
        a.mul_(2.0)
        b.add_(1.0)
        seen = t * 1
        r.sub_(5.0)
        return y, b * 1, seen, r * 1


class WriteThroughUnfold(nn.Module):
    """A write into an unfold's windows, which tcc does not carry back yet:
    refused with the source line."""

    def forward(self, x):
        y = x.clone()
        y.unfold(1, 2, 2).mul_(2.0)
        return y


class NanEpilogues(nn.Module):
    """Fused epilogues on inputs with NaN and Inf: Linear + ReLU (with and
    without a residual), Conv + ReLU, Conv + ReLU6, Conv + residual + ReLU.
    PyTorch keeps NaN through ReLU and ReLU6 (oneDNN's post-ops would not)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x, img):
        a = F.relu(self.lin(x))
        b = F.relu(self.lin(x)) + x
        c = F.relu(self.conv(img))
        d = F.relu6(self.conv(img))
        e = F.relu(self.conv2(c) + c)
        return a, b, c, d, e


class MixedDtypeCat(nn.Module):
    """cat and stack of tensors of different dtypes: PyTorch promotes them to
    one (int64 with float32 gives float32; int64 with int32, int64)."""

    def forward(self, a, b, c):
        return torch.cat([a, b], dim=0), torch.stack([a, c], dim=1)


class UpsampleHalf(nn.Module):
    """A UNet decoder's upsampling as a bf16 model: nearest x2 (exact copies),
    nearest to a size, bilinear with and without align_corners (computed in
    f32, rounded once), each after a 1x1 conv so that the values are not
    all representable on a coarse grid."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        h = self.conv(x)
        return (F.interpolate(h, scale_factor=2, mode="nearest"),
                F.interpolate(h, size=(7, 9), mode="nearest"),
                F.interpolate(h, scale_factor=2, mode="bilinear"),
                F.interpolate(h, size=(9, 11), mode="bilinear", align_corners=True))


class Conv1dStack(nn.Module):
    """conv1d: plain, strided + padded, dilated, grouped (depthwise)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv1d(4, 8, 3)
        self.b = nn.Conv1d(8, 8, 5, stride=2, padding=2)
        self.c = nn.Conv1d(8, 8, 3, dilation=2, padding=2, groups=8, bias=False)

    def forward(self, x):
        return self.c(F.relu(self.b(F.relu(self.a(x)))))


class Einsums(nn.Module):
    """Einsums: batched matmul, attention scores, a permuted output, batch
    dims that are not leading; one operand (transpose, sums, implicit output);
    three operands; a letter only one operand has."""

    def forward(self, a, b, q, k):
        return (torch.einsum("bij,bjk->bik", a, b), torch.einsum("bhqd,bhkd->bhqk", q, k),
                torch.einsum("bij,bjk->kbi", a, b), torch.einsum("qbhd,kbhd->bhqk",
                                                                   q.permute(2, 0, 1, 3),
                                                                   k.permute(2, 0, 1, 3)),
                torch.einsum("bij->bji", a), torch.einsum("bij->b", a), torch.einsum("jbi", a),
                torch.einsum("bij,bjk,bkl->bil", a, b, b.transpose(1, 2)),
                torch.einsum("bij,bjk->bi", a, b))


class UpsampleBilinear(nn.Module):
    """interpolate(mode="bilinear"): scale factor, sizes, align_corners, downsampling."""

    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
                F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False),
                F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True),
                F.interpolate(x, size=(3, 2), mode="bilinear", align_corners=False))


class ConvTransposeStack(nn.Module):
    """conv_transpose2d: strided with output_padding, dilated, grouped, no bias."""

    def __init__(self):
        super().__init__()
        self.a = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.b = nn.ConvTranspose2d(6, 4, 3, dilation=2, padding=2, groups=2, bias=False)
        self.c = nn.ConvTranspose2d(4, 3, (2, 3), stride=(2, 1))

    def forward(self, x):
        return self.c(F.relu(self.b(F.relu(self.a(x)))))


class Pool1d(nn.Module):
    """max_pool1d and avg_pool1d: strides, padding, dilation, ceil_mode, count_include_pad."""

    def forward(self, x):
        return (F.max_pool1d(x, 3, 2, 1), F.max_pool1d(x, 2, dilation=2, ceil_mode=True),
                F.avg_pool1d(x, 4, 2, 1, count_include_pad=False), F.avg_pool1d(x, 3))


class KernelLayer(nn.Module):
    """What kernel formation makes kernels of, with head size 64: a pre-norm
    block whose SDPA reads per-head views of one qkv linear (bshd) under a
    bool padding mask that hides every key of one sequence; GEMM epilogues
    (bias + residual, bias + tanh-GELU, relu); layer_norm whose input is read
    again; the hand-written RMSNorm; grouped-query attention through
    transformers' repeat_kv (causal) and through enable_gqa with an additive
    mask; attention written by hand (matmul, scale, masked_fill, softmax,
    matmul); softmax and log_softmax rows."""

    def __init__(self, d=128, head=64):
        super().__init__()
        self.d, self.head, self.heads = d, head, d // head
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)
        self.rms_weight = nn.Parameter(torch.rand(d) + 0.5)
        self.q2 = nn.Linear(d, d, bias=False)
        self.kv2 = nn.Linear(d, 2 * head, bias=False)  # one key/value head
        self.out = nn.Linear(d, d)

    def forward(self, x, keep, bias):
        b, l, d = x.shape
        hd, nh = self.head, self.heads
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(d, dim=-1)
        q, k, v = (t.view(b, l, nh, hd).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
        x = x + self.proj(a.transpose(1, 2).reshape(b, l, d))
        h = self.ln2(x)
        x = x + self.fc2(F.gelu(self.fc1(h), approximate="tanh"))
        hf = x.float()
        hf = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + 1e-6)
        x2 = self.rms_weight * hf.to(x.dtype)
        q2 = self.q2(x2).view(b, l, nh, hd).transpose(1, 2)
        k2, v2 = self.kv2(x2).view(b, l, 1, 2 * hd).transpose(1, 2).split(hd, dim=-1)
        rep = lambda t: t[:, :, None].expand(b, 1, nh, l, hd).reshape(b, nh, l, hd)
        a2 = F.scaled_dot_product_attention(q2, rep(k2), rep(v2), is_causal=True)
        a3 = F.scaled_dot_product_attention(q2, k2, v2, attn_mask=bias, enable_gqa=True)
        causal = torch.ones(l, l, dtype=torch.bool).tril()
        s = (q2 @ rep(k2).transpose(-1, -2)) * hd ** -0.5
        a4 = s.masked_fill(~causal, float("-inf")).softmax(-1) @ rep(v2)
        y = (a2 + a3 + a4).transpose(1, 2).reshape(b, l, d)
        y = F.relu(self.out(y)) + x2
        return y.softmax(-1), y.log_softmax(-1)


class HalfPrecision(nn.Module):
    """f16 and bf16 tensors inside an fp32 model: a linear layer in f16 (the
    product accumulates in f32, as PyTorch's), GELU and a softmax in bf16,
    sums and means over 1024 halves (accumulated in f32), casts between them."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 32)

    def forward(self, x, big):
        h = F.linear(x.half(), self.lin.weight.half(), self.lin.bias.half())
        g = F.gelu(h.to(torch.bfloat16))
        s = torch.softmax(g, dim=-1)
        total = big.half().sum(-1, keepdim=True)
        mean = big.to(torch.bfloat16).mean(-1, keepdim=True)
        return h.float(), g.float(), s.float(), total.float(), mean.float() * 3 + x[:, :1]


class Pooling3dAdaptive(nn.Module):
    """Adaptive avg/max pooling over 1, 2 and 3 spatial dims, with windows that
    divide evenly and windows that do not; max_pool3d and avg_pool3d with
    stride, padding, dilation, ceil_mode and count_include_pad."""

    def forward(self, x1, x2, x3):
        return (F.adaptive_avg_pool1d(x1, 4), F.adaptive_max_pool1d(x1, 5),
                F.adaptive_avg_pool2d(x2, (3, 4)), F.adaptive_max_pool2d(x2, (7, 3)),
                F.adaptive_avg_pool3d(x3, (4, 7, 3)), F.adaptive_max_pool3d(x3, 1),
                F.max_pool3d(x3, 3, 2, 1), F.max_pool3d(x3, 2, dilation=2, ceil_mode=True),
                F.avg_pool3d(x3, 3, 2, 1, count_include_pad=False),
                F.avg_pool3d(x3, (2, 3, 2), ceil_mode=True))


class UpsampleNearest(nn.Module):
    """interpolate(mode="nearest"): by a scale factor, and to sizes that do not divide."""

    def forward(self, x):
        up = F.interpolate(x, scale_factor=2, mode="nearest")
        return up, F.interpolate(x, size=(5, 7), mode="nearest"), F.interpolate(
            up, size=(11, 13), mode="nearest")


class VisionAttention(nn.Module):
    """torchvision's ViT path at small size: a patch convolution (stride =
    kernel, a GEMM) flattened to tokens, a class token, nn.MultiheadAttention
    with batch_first (it transposes to [L, B, E] inside and back), exact-GELU
    MLP; and a sequence-first nn.MultiheadAttention on its own [L, B, E]
    input."""

    def __init__(self, d=128, heads=2):
        super().__init__()
        self.patch = nn.Conv2d(3, d, kernel_size=8, stride=8)
        self.cls = nn.Parameter(torch.randn(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, 17, d) * 0.1)
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.seq_first = nn.MultiheadAttention(d, heads)

    def forward(self, image, seq):
        x = self.patch(image).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        x = x + self.mlp(self.ln2(x))
        s = self.seq_first(seq, seq, seq, need_weights=False)[0]
        return x, s


class Logits(nn.Module):
    """A transformers causal LM as a function of token ids to logits."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(ids, use_cache=False).logits


def write_llama_tiny_case(out):
    """transformers' LlamaForCausalLM at toy size (2 layers, head size 64,
    grouped-query attention with 1 key/value head, SiLU MLP): rotary
    embeddings (rotate_half), the causal mask it builds, RMSNorm."""
    if ONLY and ONLY != "llama_tiny":
        return  # (transformers is needed for this case alone)
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=1, vocab_size=256,
                      max_position_embeddings=64, attn_implementation="sdpa")
    ids = torch.randint(0, 256, (2, 16), dtype=torch.int64)
    write_case(out, "llama_tiny", Logits(LlamaForCausalLM(cfg)), [ids])


def write_kernel_layer_cases(out):
    """KernelLayer in fp32, and the same module in bf16 (what transformers are
    deployed in) with bf16 inputs."""
    model = KernelLayer()
    b, l = 2, 8
    keep = torch.ones(b, l, dtype=torch.bool)
    keep[0, 5:] = False
    keep[1, :] = False  # a sequence with every key hidden: its rows are 0
    bias = torch.randn(b, 1, l, l)
    bias[:, :, 0, 3] = float("-inf")
    x = torch.randn(b, l, 128)
    write_case(out, "kernel_layer", model, [x, keep, bias])
    half = KernelLayer()
    half.load_state_dict(model.state_dict())
    write_case(out, "kernel_layer_bf16", half.to(torch.bfloat16),
               [x.to(torch.bfloat16), keep, bias.to(torch.bfloat16)])


def write_grad_mode_case(out):
    torch.manual_seed(11)
    write_case(out, "grad_mode_region", GradModeRegion(), [torch.randn(3, 5)],
               export_with_grad=True)


def write_masks_attention_case(out):
    torch.manual_seed(7)
    ids = torch.randint(1, 50, (2, 6))
    ids[0, 4:] = 0  # padding at the end of the first sequence
    write_case(out, "masks_attention", MasksAttention(),
               [torch.randn(2, 4, 6, 8), torch.randn(2, 4, 6, 8), ids])


class Indexing(nn.Module):
    """embedding, index_select, index.Tensor (leading None entries, negative
    indices), gather, expand, as_strided, and an in-place op on a tensor read
    again afterwards."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.table = nn.Parameter(torch.randn(7, 4))
        self.register_buffer("rel", torch.tensor([[0, 3, -1], [6, -7, 2]]))
        self.register_buffer("back", torch.tensor([-1, -5, 2, -2]))
        self.register_buffer("order", torch.tensor([[[4, 0, 1, 1, 3]] * 3] * 2))
        self.cls = nn.Parameter(torch.randn(1, 1, 6))

    def forward(self, x, ids, pick):
        # x: [2, 6, 5], ids: [2, 3], pick: [4]
        e = self.emb(ids)                                    # [2, 3, 6]
        s = torch.index_select(x, 2, pick)                   # [2, 6, 4]
        t = self.table[self.rel]                             # [2, 3, 4]
        u = x[:, :, self.back]                               # [2, 6, 4]
        g = torch.gather(x, 2, self.order)                   # [2, 3, 5]
        c = self.cls.expand(2, -1, -1)                       # [2, 1, 6]
        a = torch.as_strided(x, (3, 4), (5, 2), 1)           # overlapping windows
        h = e + c
        h.mul_(2.0)
        return h + e, s * u, t, g, a, x.expand_as(x[None]).sum(0)


class MultiIndex(nn.Module):
    """index.Tensor with several broadcasting index tensors: leading and
    adjacent (results in place), separated by a full slice (results first),
    negative and int32 indices, and the mask-building form of GPT-2/LLaMA
    (a cumsum indexed by two unsqueezed aranges)."""

    def forward(self, x, i, j):
        # x: [3, 4, 5, 6], i: [1, 3] (i64), j: [4, 1] (i32)
        a = x[i, j]                       # [4, 3, 5, 6]
        b = x[:, j, i]                    # [3, 4, 3, 6]
        c = x[i, :, j]                    # [4, 3, 4, 6]
        d = x[:, :, i, j.long()]          # [3, 4, 4, 3]
        m = torch.cumsum(torch.ones(5, 5, dtype=torch.int64), dim=0)
        r = torch.arange(5)
        e = m[r.unsqueeze(0), r.unsqueeze(1)] * 2  # [5, 5]
        return a, b, c, d, e


class RelativePositionBias(nn.Module):
    """swin_t's relative-position bias: a learned table read through a
    registered index buffer, viewed per head and added to attention scores.
    tcc computes the bias once per binding (a derived weight with `take`)."""

    def __init__(self, window=3, heads=2):
        super().__init__()
        self.window, self.heads = window, heads
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window),
                                            indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window - 1)
        self.register_buffer("index", (rel[..., 0] * (2 * window - 1) + rel[..., 1]).flatten())

    def forward(self, scores):
        n = self.window * self.window
        bias = self.table[self.index].view(n, n, -1).permute(2, 0, 1).unsqueeze(0)
        return F.softmax(scores + bias, dim=-1)


def write_relative_position_bias_case(out):
    """RelativePositionBias, plus what a test binds at run time: a new table
    (rebound/table.npy; PyTorch's output with it is expected_rebound_0.npy)
    and an index buffer with one entry past the table (rebound/index_out_of_range.npy),
    which PyTorch refuses."""
    if ONLY and ONLY != "relative_position_bias":
        return
    model = RelativePositionBias()
    x = torch.randn(4, 2, 9, 9)
    write_case(out, "relative_position_bias", model, [x], weights_npy=True)
    d = os.path.join(out, "relative_position_bias", "rebound")
    os.makedirs(d, exist_ok=True)
    table = torch.randn_like(model.table)
    save_npy(os.path.join(d, "table.npy"), table)
    bad = model.index.clone()
    bad[3] = model.table.shape[0]
    save_npy(os.path.join(d, "index_out_of_range.npy"), bad)
    with torch.no_grad():
        model.table.copy_(table)
        save_npy(os.path.join(out, "relative_position_bias", "expected_rebound_0.npy"), model(x))
        model.index.copy_(bad)
        try:
            model(x)
            raise SystemExit("PyTorch accepted an index out of range")
        except (IndexError, RuntimeError):
            pass


class ShiftedWindowBlock(nn.Module):
    """torchvision's own ShiftedWindowAttention (Swin-T's attention) at small
    size, shifted: the query scaled by a constant, the relative-position bias
    and the per-window mask added to the scores (the mask through a 5-D
    view), softmax, the product with the values; one fused attention kernel
    in tcc (head size 16; by default windows of 4x4, 4 windows per image)."""

    def __init__(self, window=(4, 4), shift=(2, 2)):
        super().__init__()
        from torchvision.models.swin_transformer import ShiftedWindowAttention
        self.attn = ShiftedWindowAttention(32, list(window), list(shift), num_heads=2)
        with torch.no_grad():  # a bias table that is not all zeros
            self.attn.relative_position_bias_table.normal_(0, 0.5)

    def forward(self, x):
        return self.attn(x)


def write_window7_attention_cases(out):
    """ShiftedWindowAttention as Swin-T runs it: windows of 7x7, so the
    relative-position bias and the window mask (one derived weight) have
    rows of 49 keys, which tcc pads to 16 bytes for the GPU's attention
    (tcc-pad-attention-masks); 4 windows of a 14x14 image, 2 heads of 16.
    In fp32 and as a bf16 model (the same weights)."""
    torch.manual_seed(163)
    model = ShiftedWindowBlock([7, 7], [3, 3])
    x = torch.randn(2, 14, 14, 32)
    write_case(out, "window7_attention", model, [x])
    half = ShiftedWindowBlock([7, 7], [3, 3])
    half.load_state_dict(model.state_dict())
    write_case(out, "window7_attention_bf16", half.to(torch.bfloat16), [x.to(torch.bfloat16)])


class PatchMergingPair(nn.Module):
    """torchvision's Swin PatchMerging (four strided slices of the image
    concatenated along channels, layer norm, linear reduction) on an image of
    even size and on one of odd size (padded first)."""

    def __init__(self, dim=32):
        super().__init__()
        from torchvision.models.swin_transformer import PatchMerging
        self.even = PatchMerging(dim)
        self.odd = PatchMerging(dim)

    def forward(self, x, y):
        return self.even(x), self.odd(y)


def write_patch_merging_case(out):
    """Swin's patch merging, whose concatenation of strided slices tcc reads
    as one generic (ConcatGather.cpp): 8x8 and 7x7 images of 32 channels."""
    torch.manual_seed(167)
    write_case(out, "patch_merging", PatchMergingPair(), [torch.randn(2, 8, 8, 32),
                                                          torch.randn(2, 7, 7, 32)])


class DoubleToBFloat16(nn.Module):
    """float64 to bfloat16 (PyTorch rounds through float32): a model.so
    computing it must load (libgcc 12 has no __truncdfbf2) and round twice."""

    def forward(self, x):
        d = x.double() * 3.0 + 1e-3
        return d.bfloat16(), (d / 7).to(torch.bfloat16) * 2


class ShiftedWindowMask(nn.Module):
    """swin_t's shifted-window attention mask, written as torchvision writes it
    (a zero tensor, slices filled with a count that torch.export lifts to
    scalar tensor constants, a difference compared with 0, masked_fill),
    added to attention scores through a 5-D view, then softmax. Input-free:
    tcc computes the mask once as a derived weight."""

    def __init__(self, size=8, window=4, shift=2, heads=2):
        super().__init__()
        self.size, self.window, self.shift, self.heads = size, window, shift, heads

    def forward(self, scores):
        # scores: [B * windows, heads, window², window²]
        size, window, shift = self.size, self.window, self.shift
        windows = (size // window) ** 2
        attn_mask = scores.new_zeros((size, size))
        slices = ((0, -window), (-window, -shift), (-shift, None))
        count = 0
        for h in slices:
            for w in slices:
                attn_mask[h[0]:h[1], w[0]:w[1]] = count
                count += 1
        attn_mask = attn_mask.view(size // window, window, size // window, window)
        attn_mask = attn_mask.permute(0, 2, 1, 3).reshape(windows, window * window)
        attn_mask = attn_mask.unsqueeze(1) - attn_mask.unsqueeze(2)
        attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(
            attn_mask == 0, float(0.0))
        n = window * window
        attn = scores.view(scores.size(0) // windows, windows, self.heads, n, n)
        attn = attn + attn_mask.unsqueeze(1).unsqueeze(0)
        attn = attn.view(-1, self.heads, n, n)
        return F.softmax(attn, dim=-1)


class PadRollScatter(nn.Module):
    """swin_t's data movement: pad (constant, negative crops), roll, fill,
    copy, fmod/remainder on floats and ints, slice_scatter (step 1 and 2),
    unflatten."""

    def forward(self, x, n, m):
        # x: [2, 3, 4, 5] f32, n: [2, 5] i64, m: [5] i64 (nonzero)
        p = F.pad(x, (1, 2, 0, 3), value=0.5)                         # [2, 3, 7, 8]
        q = torch.constant_pad_nd(x, [-1, 2, 1, -1])                  # [2, 3, 4, 6]
        r = torch.roll(x, shifts=(1, -3), dims=(2, 3)) + torch.roll(x, 7)
        f = torch.ops.aten.fill.Scalar(x, 2.5) + torch.ops.aten.fill.Tensor(x, x[0, 0, 0, 0])
        c = torch.ops.aten.copy.default(x, n[0].to(torch.float32))   # broadcast, dtype
        fm = torch.fmod(x * 7, 3.0) + torch.fmod(x * 5, x[:, :, :1] + 2)
        im = torch.fmod(n, 4) + torch.fmod(n, m) * 10
        rem = torch.remainder(x * 7, -3.0) + torch.remainder(n, m).float().sum()
        s1 = torch.slice_scatter(x, x[:, :, 1:3] * 10, dim=2, start=1, end=3)
        s2 = torch.slice_scatter(x, x[..., ::2] + 100, dim=-1, start=0, step=2)
        u = x.flatten(1).unflatten(1, (3, 20))                       # [2, 3, 20]
        return p, q, r, f + c, fm, im, rem, s1 * s2, u


class InPlace(nn.Module):
    """In-place ops whose mutated operand is read again afterwards: an
    intermediate, and the graph input itself."""

    def forward(self, x, y):
        h = x * 2.0
        F.silu(h, inplace=True)      # later reads of h see silu(h)
        g = h + 1.0
        h.add_(y)                    # aten.add_.Tensor on the same value
        y.relu_()                    # mutates a graph input: written through
        F.hardtanh(g, -1.0, 1.0, inplace=True)
        return h * g + y


class Activations(nn.Module):
    """Pointwise activations, each on its own slice of the input."""

    def forward(self, x):
        return torch.stack([
            torch.sigmoid(x), torch.tanh(x), F.gelu(x), F.gelu(x, approximate="tanh"),
            F.silu(x), F.hardswish(x), F.hardsigmoid(x), F.elu(x, alpha=0.7),
            F.leaky_relu(x, 0.05), F.softplus(x), torch.clamp(x, -0.5, 0.75),
            F.hardtanh(x, -2.0, 2.0), F.relu6(x), torch.abs(x), torch.log1p(torch.abs(x)),
            torch.exp(-x * x), torch.erf(x),
        ])


class OuterModule(nn.Module):
    """The seed's OuterModule: MyModule then relu(Linear(10 -> 2))."""

    def __init__(self):
        super().__init__()
        self.inner = MyModuleForBare()
        self.lin = nn.Linear(10, 2)

    def forward(self, x):
        return F.relu(self.lin(self.inner(x)))


class TinyTransformerBlock(nn.Module):
    """Pre-norm attention + ReLU MLP, written out so tracing keeps plain ATen ops."""

    def __init__(self, d=16, heads=2, hidden=32):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        q = q.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / (d // self.heads) ** 0.5, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.relu(self.fc1(self.ln2(x))))


def write_torchscript_case(out, name, model, inputs):
    """torch.jit.trace archive, its inlined graph, a frozen scripted graph
    where scripting works, inputs and eager outputs."""
    if ONLY and name != ONLY:
        return
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    model.eval()
    with torch.no_grad():
        traced = torch.jit.trace(model, tuple(inputs))
        torch.jit.save(traced, os.path.join(d, "model.pt"))
        relative_torchscript_archive(os.path.join(d, "model.pt"))
        with open(os.path.join(d, "graph.txt"), "w") as f:
            f.write(relative_text(str(traced.inlined_graph)))
        frozen = torch.jit.freeze(traced)
        with open(os.path.join(d, "frozen_graph.txt"), "w") as f:
            f.write(relative_text(str(frozen.graph)))
        # Freezing folds (e.g. batch norm into conv) into new weights that only
        # the frozen module's own archive holds.
        torch.jit.save(frozen, os.path.join(d, "frozen.pt"))
        relative_torchscript_archive(os.path.join(d, "frozen.pt"))
        try:
            scripted = torch.jit.freeze(torch.jit.script(model))
            with open(os.path.join(d, "scripted_frozen_graph.txt"), "w") as f:
                f.write(relative_text(str(scripted.graph)))
        except Exception as e:  # scripting is best effort
            print(f"{name}: torch.jit.script failed: {e}")
        expected = model(*inputs)
    save_io(d, inputs, expected)
    print(f"wrote {d}")


class MyModuleForBare(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(100, 10)

    def forward(self, x):
        return F.relu(self.lin(x))


# Cases where tcc once gave a wrong answer silently (issue 15): each checks
# one formula against PyTorch eager on inputs where the mistake shows.


class EluScaled(nn.Module):
    """aten.elu with its scale and input_scale arguments (selu's form), and
    the plain nn.ELU form."""

    def forward(self, x):
        return (torch.ops.aten.elu(x, 1.0, 1.5, 3.0), torch.ops.aten.elu(x, 0.5, 2.0, 0.25),
                F.elu(x, alpha=0.7))


class SweepWrongAnswers(nn.Module):
    """The silent wrong answers scripts/opinfo_sweep.py found: fill with a bool
    value (gave -1), softplus with a small threshold (ignored), softmax and
    log_softmax asked for float64 (computed in f32), argmax of a 0-d tensor
    along dim 0 (crashed the compiler), argmax / argmin of rows holding NaN
    (PyTorch ranks NaN first; tcc gave the row's length)."""

    def forward(self, x, s, n):
        return (torch.fill(x, True), F.softplus(x, beta=3, threshold=0.2),
                torch.softmax(x, -1, dtype=torch.float64),
                torch.log_softmax(x, 0, dtype=torch.float64),
                torch.argmax(s, 0, keepdim=True), torch.argmin(s, -1),
                torch.argmax(n, 1), torch.argmin(n, 1))


class MathOps(nn.Module):
    """Rounding (half to even, decimals, floor division), inverse and
    hyperbolic trigonometry, exp2/expm1/log2/log10/erfc, atan2, copysign,
    logaddexp(2), rsub, addcmul/addcdiv, clamp with tensor bounds, log_sigmoid,
    sign, reciprocal, frac: operators the sweep found refused."""

    def forward(self, x, y, u):
        return (torch.round(x * 2), torch.round(x * 100, decimals=-1), torch.floor(x),
                torch.ceil(x), torch.trunc(x), torch.div(x, y, rounding_mode="floor"),
                torch.div(x, y, rounding_mode="trunc"), torch.tan(u), torch.asin(u),
                torch.acos(u), torch.atan(x), torch.sinh(u), torch.cosh(u), torch.asinh(x),
                torch.acosh(x.abs() + 1), torch.atanh(u * 0.9), torch.exp2(u), torch.expm1(u),
                torch.log2(x.abs() + 0.1), torch.log10(x.abs() + 0.1), torch.special.erfc(x),
                torch.atan2(x, y), torch.copysign(x, y), torch.logaddexp(x, y),
                torch.logaddexp2(x, y), torch.rsub(x, 1.5, alpha=2),
                torch.addcmul(x, y, u, value=0.5), torch.addcdiv(x, y, u + 2, value=-2),
                torch.clamp(x, min=y, max=u + 1), F.logsigmoid(x * 10), torch.sign(x),
                torch.reciprocal(y), torch.frac(x))


class ReductionsMore(nn.Module):
    """max/min with a dim (values and first index, NaN first), prod, all/any
    (also over an empty dim), sum and mean with a dtype."""

    def forward(self, x, n, m, e):
        mx = torch.max(x, 1)
        mn = torch.min(n, -1, keepdim=True)
        return (mx.values, mx.indices, mn.values, mn.indices, torch.prod(x, 0),
                torch.prod(x * 0.5), torch.all(m, 1), torch.any(m), torch.all(e, 1),
                torch.any(e, 1), torch.sum(x, 1, dtype=torch.float64),
                torch.mean(x, dtype=torch.float64))


class ShapesMore(nn.Module):
    """mT, broadcast_tensors, broadcast_to, expand_copy, repeat, atleast_3d
    and logsumexp (rows of -inf and with an inf included)."""

    def forward(self, x, y, z):
        bx, by = torch.broadcast_tensors(x, y)
        return (x.mT, bx, by, torch.broadcast_to(y, (4, 2, 3)),
                torch.ops.aten.expand_copy(y, [2, 2, 3]), y.repeat(2, 1, 2), torch.atleast_3d(y),
                torch.logsumexp(z, 1), torch.logsumexp(z, (0, 1), keepdim=True))



class OpsSweepFamilies(nn.Module):
    """Operator families the OpInfo sweep found refused (issue 15), added by
    family: scatter (src, value, add/multiply), scatter_add, scatter_reduce
    (sum, prod, mean, amax, amin; with and without self; repeated indices),
    index_add (alpha), index_copy, index_fill, index_reduce, put (with
    accumulate), max_unpool1d/2d; reflect/replicate/circular padding (negative
    amounts too); matrix products with rank-1 operands (matmul, mv, dot,
    inner, outer, addmv, addr, addbmm, linear, vecdot, trace), addmm with
    beta 0 (self's NaN ignored); aminmax, square, celu, selu, narrow, view_as,
    linalg.diagonal, var/std without dims; meshgrid (ij, xy), channel_shuffle,
    pixel_unshuffle, diag_embed, take, take_along_dim, isclose, float_power;
    cumprod, cummax/cummin (values and last index of the extremum, NaN),
    logcumsumexp (-inf, inf), sort/argsort (stable: ties in index order; NaN
    last, first when descending), msort, topk, kthvalue, median and
    nanmedian (whole and along a dim, NaN); vector norms with a negative ord
    or a dtype, matrix norms (fro, +-1, +-inf, other dims, keepdim, an empty
    matrix), linalg.norm; sums of bools to int64; torch.masked's mean;
    interpolate nearest/nearest-exact/linear/trilinear (1-D, 2-D with a
    factor giving twice the size, which PyTorch's 2-D kernel reads as i / 2,
    3-D); linspace and logspace from 0-d tensors; bucketize and
    searchsorted (right/side, sorter, rows, NaN), diff with n = 0, 2, 3,
    cdist (direct and its matrix-product form), pdist; cumulative_trapezoid
    (sample points, spacing), bilinear; i0 and special.i0e on both sides
    of 8; avg_pool2d/3d with divisor_override (padding too); tensor_split,
    repeat_interleave, renorm, atleast_2d of a list, multi_margin_loss;
    conv_transpose1d (batched, unbatched, groups, dilation), conv_transpose2d
    of an unbatched image."""

    def forward(self, x, idx, src, rows, ridx, v, pooled, pidx, pooled1, pidx1, m, vec, img, nanself):
        aten = torch.ops.aten
        outs = [torch.scatter(x, 0, idx, src), torch.scatter(x, 1, idx[:, :2], 2.5),
                torch.scatter(x, 0, idx, src, reduce="multiply"), torch.scatter_add(x, 1, idx, src)]
        for how in ("sum", "prod", "mean", "amax", "amin"):
            outs.append(torch.scatter_reduce(x, 0, idx, src, how))
            outs.append(torch.scatter_reduce(x, 1, idx[:2], src, how, include_self=False))
        outs += [torch.index_add(rows, 1, ridx, v, alpha=-2.0), torch.index_copy(rows, 1, ridx[1:4], v[:, :3]),
                 torch.index_fill(rows, 1, ridx, -7.0)]
        for how in ("prod", "mean", "amax", "amin"):
            outs.append(aten.index_reduce(rows, 1, ridx, v, how, include_self=False))
        outs += [torch.put(x, idx[0], src[0]), torch.put(x, idx[1], src[1], accumulate=True),
                 F.max_unpool2d(pooled, pidx, 2, output_size=(5, 6)), F.max_unpool1d(pooled1, pidx1, 3)]
        outs += [F.pad(img, (1, 2, 2, 1), mode="reflect"), F.pad(img, (2, 3, 1, 0), mode="replicate"),
                 F.pad(img, (-2, 3, 0, -1), mode="replicate"), F.pad(img, (1, 4, 3, 0), mode="circular"),
                 F.pad(img, (-1, 2, 1, -2), mode="circular"), F.pad(img[0], (2, 1), mode="reflect")]
        outs += [m @ vec, vec[:3] @ m, torch.mv(m, vec), torch.dot(vec, vec * 2), torch.inner(m, m),
                 torch.outer(vec, vec[:3]), torch.addmv(vec[:3], m, vec, beta=0.5, alpha=2.0),
                 torch.addr(m, vec[:3], vec, alpha=0.5), torch.addbmm(m, img[:, 0, :3], img[:, 1].transpose(1, 2)),
                 F.linear(vec, m), F.linear(vec, m[0]), torch.linalg.vecdot(m, vec), torch.trace(m),
                 torch.addmm(nanself, m, m.T, beta=0.0), torch.addmv(nanself[0], m, vec, beta=0.0)]
        outs += list(torch.aminmax(m, dim=1)) + [torch.aminmax(img).min, torch.square(m), F.celu(m, 0.5), F.selu(m),
                 torch.narrow(img, 2, -3, 2), m.view_as(vec.expand(3, 4).T.contiguous()),
                 torch.linalg.diagonal(img, offset=1), torch.var(m), torch.std(m, unbiased=False)]
        outs += list(torch.meshgrid(vec, m[0, :3], indexing="xy")) + list(torch.meshgrid(vec, m[:, 0], indexing="ij"))
        near = m + torch.tensor([0.0, 1e-6, 1e-3, float("nan")])
        outs += [F.channel_shuffle(img.transpose(0, 1).reshape(1, 6, 4, 5), 3), F.pixel_unshuffle(img[:, :, :4, :4], 2),
                 torch.diag_embed(m, offset=-1, dim1=0, dim2=2), torch.diag_embed(m, 2), torch.take(m, idx),
                 torch.take_along_dim(m, idx[:1, :2] - 1, dim=1), torch.take_along_dim(m, idx[0]),
                 torch.isclose(m, near), torch.isclose(m, near, rtol=1e-2, equal_nan=True),
                 torch.float_power(m.abs(), vec), torch.float_power(m, 2)]
        ties = torch.cat([m[:, :3].round(), nanself], 0)  # repeated values, NaN and infinities
        outs += [torch.cumprod(m, 1), torch.cumprod(nanself, 0)] + list(torch.cummax(ties, 1)) + list(torch.cummin(ties, 0))
        outs += [torch.logcumsumexp(m * 30, 1), torch.logcumsumexp(nanself, 1)]
        outs += list(torch.sort(ties, 1)) + list(torch.sort(ties, dim=0, descending=True, stable=True))
        outs += [torch.argsort(ties, 1, descending=True), torch.msort(ties), torch.topk(m, 2).values,
                 torch.topk(m, 3, dim=0, largest=False).indices, torch.kthvalue(m, 2, 1).values,
                 torch.kthvalue(m, 3, 1).indices, torch.median(m), torch.median(nanself), torch.nanmedian(nanself),
                 torch.median(m, 0).values, torch.median(m, 0).indices, torch.nanmedian(nanself, 1).values]
        la = torch.linalg
        outs += [la.vector_norm(m, -1, dim=1), la.vector_norm(m, -2.5), la.vector_norm(m, 3, dtype=torch.float64),
                 la.matrix_norm(m), la.matrix_norm(m, 1), la.matrix_norm(m, -1, keepdim=True),
                 la.matrix_norm(img, float("inf"), dim=(3, 1)), la.matrix_norm(img, -float("inf")),
                 la.matrix_norm(m[:, :0], 1), la.norm(vec, 0.5), la.norm(m, "fro", dim=(1, 0)), la.norm(m, float("inf")),
                 (m > 0).sum(1), (img > 0).sum(dtype=torch.int32),
                 torch.masked.mean(m, 1, mask=m > -0.5)]
        line, vol = img[0], img.reshape(1, 2, 3, 4, 5)
        for f in (1.1, 1.7, 2.1):
            outs += [F.interpolate(x, scale_factor=f, mode=mode) for x in (line, img, vol)
                     for mode in ("nearest", "nearest-exact")]
        outs += [F.interpolate(line, size=7, mode="linear"), F.interpolate(line, scale_factor=1.6, mode="linear", align_corners=True),
                 F.interpolate(vol, size=(4, 3, 7), mode="trilinear"), F.interpolate(img, scale_factor=2.1, mode="bilinear")]
        outs += [torch.linspace(m[0, 0], m[1, 1], 7), torch.linspace(-2.0, vec[0], 6),
                 torch.logspace(m[0, 0], 2.5, 5, base=2.0)]
        bounds = torch.sort(vec).values
        outs += [torch.bucketize(nanself, bounds), torch.bucketize(m.round(), m[0].round().sort().values, right=True, out_int32=True),
                 torch.searchsorted(bounds, m), torch.searchsorted(m.sort(1).values, m[:, :2] * 2, side="right"),
                 torch.searchsorted(vec, m[0], sorter=vec.argsort()),
                 torch.diff(vec, n=0), torch.diff(m, n=2, dim=1), torch.diff(vec, n=3, prepend=m[0, :1])]
        outs += [torch.cdist(m, img[0, 0, :, :4]), torch.cdist(img[0, :2, :2, :3], img[1, :1, :, :3], p=1.0),
                 torch.cdist(m, img[0, 0, :, :4], p=float("inf")), torch.cdist(img[0], img[1], p=0.0),
                 torch.cdist(img[0, :, :3], img[1, :, :4], compute_mode="use_mm_for_euclid_dist"),
                 F.pdist(m), F.pdist(img[0, 0], p=1.5)]
        outs += [torch.cumulative_trapezoid(m, vec), torch.cumulative_trapezoid(img, dx=0.5, dim=2),
                 torch.cumulative_trapezoid(m, m.cumsum(0), dim=0),
                 F.bilinear(m, img[0, 0, :3], img[0, :2, :, :], vec[:2])]
        wide = m * 6  # |x| on both sides of 8
        outs += [torch.i0(wide), torch.special.i0e(wide), torch.special.i0(nanself)]
        outs += [F.avg_pool2d(img, 2, divisor_override=3), F.avg_pool2d(img, 3, 1, 1, count_include_pad=False, divisor_override=5),
                 F.avg_pool3d(vol, 2, divisor_override=7)]
        outs += list(torch.tensor_split(img, 3, dim=3)) + list(torch.tensor_split(m, [1, -1, 9], dim=1))
        outs += [torch.repeat_interleave(m, 2, dim=1), torch.repeat_interleave(vec, 3),
                 torch.renorm(img, 2, 1, 2.0), torch.renorm(m, 1, 0, 1.5)]
        outs += list(torch.atleast_2d((vec, m[0, 0])))
        outs += [F.multi_margin_loss(m, torch.tensor([0, 3, 1])), F.multi_margin_loss(m, torch.tensor([2, 2, 0]), p=2, margin=0.5,
                 weight=vec.abs(), reduction="sum"), F.multi_margin_loss(m, torch.tensor([1, 0, 3]), reduction="none")]
        k1 = img[0, :, :2].reshape(3, 2, 5)[:, :, :3]  # [Cin=3, Cout/g=2, K=3]
        outs += [F.conv_transpose1d(img[0, :, 0], k1, stride=2, padding=1, output_padding=1),
                 F.conv_transpose1d(img[:, :, 0], k1, vec[:2], stride=3, dilation=2),
                 F.conv_transpose1d(img[:, :, 0].repeat(1, 2, 1), k1.repeat(2, 1, 1), groups=2),
                 F.conv_transpose2d(img[0], img[1, :, :2, :2].unsqueeze(1).repeat(1, 2, 1, 1), stride=2)]
        return tuple(outs)

class OpsSpecial(nn.Module):
    """The gamma family and the special polynomials (issue 15, branch
    ops-special): lgamma, digamma and polygamma n = 1..4 (poles at 0, -0 and
    the negative integers, NaN, infinities), their special.* aliases,
    mvlgamma p = 1, 3, 5, the Hurwitz zeta (x < 1, x = 1, q at and between
    the non-positive integers; Python numbers for either); the Chebyshev
    polynomials T, U, V, W and their shifted forms, Hermite H and He,
    Laguerre and Legendre at the ends of their intervals, for negative and
    non-integer degrees, and degrees where ATen switches to its closed forms,
    also with a number for x or n; special.i1, i1e (both sides of 8),
    spherical_bessel_j0 (both sides of 1/2, infinities) and
    scaled_modified_bessel_k0/k1 (both sides of 2, 0, negative x), airy_ai
    (each of its ranges, beyond 103.892, infinities)."""

    def forward(self, x, xpos, xz, q, xp, n):
        sp = torch.special
        outs = [torch.lgamma(x), torch.digamma(x), sp.gammaln(x), sp.psi(x), sp.digamma(x)]
        outs += [torch.polygamma(k, x) for k in (1, 2, 3, 4)]
        outs += [sp.polygamma(0, x), torch.mvlgamma(xpos, 1), torch.mvlgamma(xpos, 3),
                 sp.multigammaln(xpos, 5)]
        outs += [sp.zeta(xz, q), sp.zeta(xz, 2.5), sp.zeta(3.0, q)]
        for name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                     "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                     "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                     "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                     "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"):
            outs.append(getattr(sp, name)(xp, n))
        outs += [sp.chebyshev_polynomial_t(xp, 11), sp.legendre_polynomial_p(0.3, n),
                 sp.hermite_polynomial_h(xp, 4.0)]
        outs += [sp.i1(x * 2), sp.i1e(x * 2), sp.spherical_bessel_j0(x / 8),
                 sp.scaled_modified_bessel_k0(x / 2), sp.scaled_modified_bessel_k1(x / 2),
                 sp.airy_ai(x / 2), sp.airy_ai(x * 15)]
        return tuple(outs)


class OpsSpecialTail(nn.Module):
    """The long tail of special functions (issue 15, branch tailA): Bessel
    J0, J1, Y0, Y1 (both sides of 5, 0, negative x, large x), modified
    Bessel I0, I1, K0, K1 (both sides of 8 and 2), ndtri (each of its three
    ranges, 0, 1, outside [0, 1]), erfinv (both sides of 0.7, +-1, beyond),
    erfcx and log_ndtr (far into either tail), and igamma / igammac with
    their special.gammainc/gammaincc aliases over (a, x) pairs reaching each
    of ATen's branches: the edges of the domain (0, inf, negative, NaN), the
    power series, Q's series, the continued fraction and Temme's asymptotic
    expansion for large a near x. Also frexp (0, -0, subnormals, powers of
    two, infinities, NaN), isin (a tensor of test elements, with invert,
    a Python number, none), mode (repeated values: the smallest of the most
    frequent; a 0-d tensor) and gradient (scalar steps, a list of them,
    coordinate tensors, edge_order 1 and 2, a dim of edge_order + 1)."""

    def forward(self, x, p, e, z, a, g, m, gx, c0, c1):
        sp = torch.special
        outs = []
        for v in (x, x * 6):
            outs += [sp.bessel_j0(v), sp.bessel_j1(v), sp.bessel_y0(v), sp.bessel_y1(v)]
        outs += [sp.modified_bessel_i0(x), sp.modified_bessel_i1(x), sp.modified_bessel_k0(x),
                 sp.modified_bessel_k1(x), sp.modified_bessel_k0(x / 4), sp.modified_bessel_k1(x / 4)]
        outs += [sp.ndtri(p), torch.erfinv(e), sp.erfinv(e), sp.erfcx(z), sp.log_ndtr(z)]
        outs += [torch.igamma(a, g), torch.igammac(a, g), sp.gammainc(a[:5], g[5:10]),
                 sp.gammaincc(a, g)]
        mantissa, exponent = torch.frexp(torch.cat([x, p, z]))
        outs += [mantissa, exponent]
        r = x.round()
        outs += [torch.isin(r, p * 10), torch.isin(r, e.round(), invert=True),
                 torch.isin(r, 3.0), torch.isin(r, p[:0])]
        outs += list(torch.mode(m)) + list(torch.mode(m, 0, keepdim=True)) + list(torch.mode(m[0, 0]))
        outs += list(torch.gradient(gx)) + list(torch.gradient(gx, spacing=2.0, edge_order=2))
        outs += list(torch.gradient(gx, spacing=[2.0, 0.5], dim=(0, -1)))
        outs += list(torch.gradient(gx, spacing=[c0, c1], dim=(0, 1), edge_order=2))
        outs += list(torch.gradient(gx, spacing=[c1], dim=1))
        outs += list(torch.gradient(gx[:2], dim=0))
        return tuple(outs)


class Convolutions3d(nn.Module):
    """3-D convolutions (issue 15, branch opsmore): conv3d with stride,
    padding, dilation and groups; padding='same' with an even kernel (the odd
    zero after) and 'valid'; an unbatched input; conv_transpose3d with
    output_padding, groups and dilation; conv1d/conv2d with 'same'/'valid'
    padding and unbatched inputs (refused before)."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(6, 2, 3, 2, 3) * 0.3)
        self.b1 = nn.Parameter(torch.randn(6))
        self.w2 = nn.Parameter(torch.randn(3, 4, 2, 4, 1) * 0.3)
        self.wt = nn.Parameter(torch.randn(4, 3, 3, 2, 3) * 0.3)
        self.bt = nn.Parameter(torch.randn(6))
        self.w1d = nn.Parameter(torch.randn(2, 2, 4) * 0.3)
        self.w2d = nn.Parameter(torch.randn(3, 4, 2, 3) * 0.3)

    def forward(self, x, v):
        return (F.conv3d(x, self.w1, self.b1, stride=(2, 1, 2), padding=(1, 0, 2),
                         dilation=(1, 2, 1), groups=2),
                F.conv3d(x, self.w2, padding="same", dilation=(2, 1, 3)),
                F.conv3d(x[0], self.w2, padding="valid"),
                F.conv_transpose3d(x, self.wt, self.bt, stride=(2, 1, 3), padding=(1, 0, 1),
                                   output_padding=(1, 0, 2), groups=2, dilation=(1, 2, 1)),
                F.conv_transpose3d(x[1], self.wt[:, :, :1], stride=2),
                F.conv1d(v, self.w1d, padding="same", dilation=3, groups=2),
                F.conv1d(v[0], self.w1d, padding="valid", stride=2, groups=2),
                F.conv2d(x[:, :, 0], self.w2d, padding="same", dilation=(2, 1)),
                F.conv2d(x[1, :, 1], self.w2d, stride=2, padding=1))


class BatchNormBatchStats(nn.Module):
    """Batch norm on the batch's statistics (issue 15, branch opsmore): a
    BatchNorm2d without running statistics (track_running_stats=False: batch
    statistics in eval mode too), native_batch_norm and
    _native_batch_norm_legit.no_stats in training mode with their save_mean
    and save_invstd, native_batch_norm in eval mode (empty save_mean and
    save_invstd); rank 2, 3 and 5 inputs, a constant channel (variance 0)."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3, track_running_stats=False)
        with torch.no_grad():
            self.bn.weight.copy_(torch.randn(3))
            self.bn.bias.copy_(torch.randn(3))
        self.w = nn.Parameter(torch.randn(4))
        self.b = nn.Parameter(torch.randn(4))
        self.register_buffer("mean", torch.randn(4))
        self.register_buffer("var", torch.rand(4) + 0.5)

    def forward(self, x, y, z):
        outs = [self.bn(x)]
        outs += torch.ops.aten.native_batch_norm(y, self.w, self.b, None, None, True, 0.1, 1e-5)
        outs += torch.ops.aten._native_batch_norm_legit.no_stats(y, None, self.b, True, 0.1, 0.5)
        outs += torch.ops.aten.native_batch_norm(z, self.w, None, None, None, True, 0.1, 1e-3)
        outs += torch.ops.aten.native_batch_norm(y, self.w, self.b, self.mean, self.var, False,
                                                 0.1, 1e-5)
        return tuple(outs)


class UnfoldDiagonalHistc(nn.Module):
    """nn.functional.unfold (im2col: padding, dilation, stride, an unbatched
    input), diagonal_scatter (both offset signs, dims given in reverse, a 3-D
    input) and histc (the data's range, a fixed range with values on bin
    edges, at max, outside it, NaN and infinities); issue 15, branch opsmore."""

    def forward(self, x, m, s1, s2, s3, h):
        return (F.unfold(x, (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)),
                F.unfold(x[0], 2, padding=1, stride=2),
                torch.diagonal_scatter(m, s1, 1),
                torch.diagonal_scatter(m, s2, -2, 1, 0),
                torch.diagonal_scatter(m.reshape(2, 3, 5), s3, 0, 2, 0),
                torch.histc(h[2:], bins=7),
                torch.histc(h, bins=4, min=-1, max=1),
                torch.histc(h[:1, :1], bins=3))


def grid_samples(x, g):
    """grid_sample of x at g in every mode (but bicubic), padding mode and
    align_corners."""
    return [F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
            for mode in ("bilinear", "nearest") for pad in ("zeros", "border", "reflection")
            for ac in (False, True)]


class GridSample2d(nn.Module):
    """grid_sample on 2-D images (issue 15, branch opsmore): bilinear and
    nearest, each with zeros, border and reflection padding, with and
    without align_corners; the grid reaches past [-1, 1] (reflected several
    times) and holds the corners and centers exactly."""

    def forward(self, x, g):
        outs = grid_samples(x, g)
        outs.append(torch.ops.aten.grid_sampler_2d(x[:1], g[1:], 0, 2, False))
        return tuple(outs)


class GridSample3d(nn.Module):
    """grid_sample on volumes (issue 15, branch opsmore): trilinear
    ('bilinear') and nearest, each with zeros, border and reflection padding,
    with and without align_corners; grid_sampler_3d called directly."""

    def forward(self, x, g):
        outs = grid_samples(x, g)
        outs.append(torch.ops.aten.grid_sampler_3d(x[1:], g[:1], 0, 2, True))
        return tuple(outs)


class NextAfter(nn.Module):
    """nextafter (issue 15, branch opsmore) in float32 and bfloat16: powers of
    two both ways, zeros of both signs, denormals, the largest finite value
    toward infinity, infinities, NaN, x == y; broadcast operands."""

    def forward(self, x, y):
        return (torch.nextafter(x, y), torch.nextafter(x.bfloat16(), y.bfloat16()).float(),
                torch.nextafter(x[:6, None], y[None, :5]))


class PoolIndices(nn.Module):
    """Max pooling's indices (issue 15, branch ops-special): max_pool1d/2d/3d
    with return_indices (padding, dilation, ceil_mode, an unbatched input)
    and adaptive_max_pool1d/2d/3d (uneven windows), on inputs with ties
    (the first maximum wins), NaN (the last NaN of a window wins) and -inf
    (an all -inf window gives its first position); max_pool2d_with_indices_backward
    (overlapping windows, NaN gradients)."""

    def forward(self, x1, x2, x3):
        outs = []
        outs += F.max_pool1d(x1, 3, stride=2, padding=1, return_indices=True)
        outs += F.max_pool1d(x1[0], 2, ceil_mode=True, return_indices=True)
        outs += F.max_pool2d(x2, 3, stride=2, padding=1, return_indices=True)
        outs += F.max_pool2d(x2, (2, 3), stride=(2, 1), dilation=(1, 2), ceil_mode=True,
                             return_indices=True)
        outs += F.max_pool3d(x3, 2, stride=2, padding=1, return_indices=True)
        outs += F.adaptive_max_pool1d(x1, 3, return_indices=True)
        outs += F.adaptive_max_pool2d(x2, (3, 4), return_indices=True)
        outs += F.adaptive_max_pool3d(x3, (2, 3, 2), return_indices=True)
        # The gradient of the first 2-D pooling (overlapping windows add up).
        outs.append(torch.ops.aten.max_pool2d_with_indices_backward(
            outs[4] * 0.5 + 1.0, x2, [3, 3], [2, 2], [1, 1], [1, 1], False, outs[5]))
        return tuple(outs)


class OpsSweepMore(nn.Module):
    """Operators the OpInfo sweep found refused (issue 15): xlogy/xlog1py,
    prelu, glu, nan_to_num, the _copy views, tile, unfold, rot90, the
    v/h/d/column stacks and splits, sum_to_size, the losses under each
    reduction, nansum/nanmean, trapezoid, cosine_similarity, _safe_softmax,
    native_layer_norm's statistics, instance_norm; lerp, heaviside, hypot,
    ldexp, logit, logical_xor, hard/softshrink, threshold, mish, sinc,
    entr, ndtr, isfinite, signbit, movedim, count_nonzero, dist, max/min,
    deg2rad, ravel; nll_loss (weight, ignore_index) and cross_entropy
    (class indices and probabilities), pairwise_distance, triplet_margin_loss,
    diagonal, diag, diagflat; floor division as PyTorch's (1 // 0.1 is 9 in
    float32, not floor(1 / 0.1) = 10)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([0.25, -0.5, 1.5, 0.0, 0.1, 2.0]))

    def forward(self, x, y, p, t, s, img, rows, cls):
        aten = torch.ops.aten
        zx = x * (x.abs() > 0.5)  # exact zeros for xlogy's rule
        ny = y.masked_fill(y > 1.2, float("nan"))
        vs = torch.vsplit(x, 2)
        hs = torch.hsplit(x, [1, 4])
        ln = aten.native_layer_norm(x, [6], self.w, y[0], 1e-5)
        return (torch.xlogy(zx, p), torch.xlogy(zx, ny), torch.special.xlog1py(zx, p - 0.5),
                F.prelu(x, self.w), F.glu(x, -1), torch.nan_to_num(x / y.round()),
                torch.nan_to_num(x / y.round(), nan=1.5, posinf=9.0, neginf=-9.0),
                aten.unsqueeze_copy(x, 1), aten.transpose_copy(x, 0, 1),
                aten.squeeze_copy(x[:1], 0), x.tile(2), torch.tile(x, (2, 1, 1)),
                x.unfold(1, 3, 2), img.unfold(2, 2, 1), torch.rot90(x), torch.rot90(img, -1, [1, 3]),
                torch.rot90(x, 2), torch.fliplr(x), torch.flipud(x), torch.vstack((x, y)),
                torch.hstack((x, y[:, :2])), torch.dstack((x, y)), torch.column_stack((x[:, 0], y)),
                vs[0], vs[1], hs[0], hs[1], hs[2], x.sum_to_size(1, 6),
                F.l1_loss(x, y), F.mse_loss(x, y, reduction="sum"),
                F.smooth_l1_loss(x, y, beta=0.5, reduction="none"), F.huber_loss(x, y, delta=0.7),
                F.soft_margin_loss(x, s), F.hinge_embedding_loss(x, s, margin=0.5, reduction="sum"),
                F.margin_ranking_loss(x[:, 0], y[:, 0], s[:, 0], margin=0.1),
                F.cosine_embedding_loss(x, y, s[:, 0], margin=0.2, reduction="none"),
                F.kl_div(F.log_softmax(x, 1), p, reduction="batchmean"),
                F.kl_div(x, y, reduction="sum", log_target=True),
                F.poisson_nll_loss(x, p * 3, log_input=True, full=True),
                F.poisson_nll_loss(p, t * 2, log_input=False, reduction="none"),
                F.binary_cross_entropy(p, t, weight=self.w.abs()),
                F.binary_cross_entropy_with_logits(x, t, pos_weight=self.w.abs(), reduction="sum"),
                torch.nansum(ny), torch.nanmean(ny, 1), torch.trapezoid(y, x.cumsum(1), dim=1),
                torch.trapz(y, dx=0.5, dim=0), F.cosine_similarity(x, y, dim=1),
                aten._safe_softmax(rows, 1), ln[0], ln[1], ln[2], F.instance_norm(img),
                F.instance_norm(img, weight=self.w[:3], bias=self.w[3:], eps=1e-3),
                torch.lerp(x, y, 0.3), torch.lerp(x, y, p), torch.heaviside(x.round(), y),
                torch.hypot(x, y), torch.ldexp(x, y.round()), torch.logit(p, eps=0.05),
                torch.logical_xor(x > 0, y > 0), F.hardshrink(x), F.softshrink(x, 0.3),
                F.threshold(x, 0.1, -2.0), F.mish(x), torch.sinc(x.round()),
                torch.special.entr(x), torch.special.ndtr(x * 3),
                torch.isfinite(x / y.round()), torch.signbit(x - zx), torch.movedim(img, 1, -1),
                torch.count_nonzero(x.round(), 1), torch.dist(x, y, 3), x.max(), x.min(),
                torch.deg2rad(x), torch.ravel(x),
                F.nll_loss(F.log_softmax(x, 1), cls, weight=self.w.abs(), ignore_index=2),
                F.cross_entropy(x, cls, reduction="sum"), F.cross_entropy(x, p.softmax(1)),
                F.pairwise_distance(x, y, p=3), F.triplet_margin_loss(x, y, p, swap=True),
                torch.diagonal(img, -1, 0, 2), torch.diagonal(img, 2, 3, 1), torch.diag(x, -1),
                torch.diag(x[0], 2), torch.diagflat(y[:2, :2], -1),
                torch.div(t, 0.1, rounding_mode="floor"), torch.floor_divide(x, y))


class EmptyTensors(nn.Module):
    """Tensors with no elements: cat with empty inputs (also PyTorch's legacy
    1-D empty one), a padded empty tensor, pointwise ops and reductions over
    an empty dim (sum 0, mean NaN, any False, all True), a size-0 split,
    matrix products with an empty reduction (zeros, then bias / ReLU)."""

    def forward(self, x, z):
        a, b, c = torch.split(x, [2, 0, 1], dim=0)
        return (torch.cat([z, x, z], 0), torch.cat([torch.zeros(0), x], 1),
                F.pad(z, (1, 1)), torch.exp(z), z.sum(0), z.mean(0), (z > 0).any(0),
                (z > 0).all(0), a, b, c, z.T @ z + x[0], F.relu(torch.bmm(z.T[None], z[None])))


def randomize_batch_norms(module):
    """Non-trivial statistics and affine parameters for every BatchNorm2d in
    `module` (in module order), so that folding them is really tested."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)


class DenseBlock(nn.Module):
    """DenseNet's dense block (each layer reads the concatenation of all
    features so far: BN, ReLU, 1x1 and 3x3 convolutions), a transition, and a
    second block: the concatenations share one buffer per block and the
    convolutions write into their slices (tcc-share-concat-buffers)."""

    def __init__(self, c0=8, growth=4, layers=4):
        super().__init__()

        def block(c):
            return nn.ModuleList(
                nn.Sequential(nn.BatchNorm2d(c + i * growth), nn.ReLU(),
                              nn.Conv2d(c + i * growth, 2 * growth, 1, bias=False),
                              nn.BatchNorm2d(2 * growth), nn.ReLU(),
                              nn.Conv2d(2 * growth, growth, 3, padding=1, bias=False))
                for i in range(layers))
        self.block1 = block(c0)
        c1 = c0 + layers * growth
        self.transition = nn.Sequential(nn.BatchNorm2d(c1), nn.ReLU(), nn.Conv2d(c1, c0, 1),
                                        nn.AvgPool2d(2))
        self.block2 = block(c0)
        randomize_batch_norms(self)

    def forward(self, x):
        for blk in (self.block1, None, self.block2):
            if blk is None:
                x = self.transition(x)
                continue
            features = [x]
            for layer in blk:
                features.append(layer(torch.cat(features, 1)))
            x = torch.cat(features, 1)
        return x


class DenseStem(nn.Module):
    """DenseNet's stem and a dense block, for producers writing in place: a
    convolution (batch norm folded, ReLU) whose output is padded for a 3x3/2
    max pooling (channels-last, it writes the padded buffer's interior), then
    layers each appending to the concatenation of all features so far; every
    other one a plain 3x3 convolution reading the concatenation itself (it
    reads the buffer's leading channels while it writes the next ones). The
    output is the last concatenation."""

    def __init__(self, c0=8, growth=4, layers=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c0, 3, padding=1, bias=False), nn.BatchNorm2d(c0),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.layers = nn.ModuleList(
            nn.Sequential(nn.BatchNorm2d(c0 + i * growth), nn.ReLU(),
                          nn.Conv2d(c0 + i * growth, 2 * growth, 1, bias=False),
                          nn.BatchNorm2d(2 * growth), nn.ReLU(),
                          nn.Conv2d(2 * growth, growth, 3, padding=1, bias=False))
            if i % 2 == 0 else nn.Conv2d(c0 + i * growth, growth, 3, padding=1)
            for i in range(layers))
        randomize_batch_norms(self)

    def forward(self, x):
        features = [self.stem(x)]
        for layer in self.layers:
            features.append(layer(torch.cat(features, 1)))
        return torch.cat(features, 1)


class DepthwiseBlocks(nn.Module):
    """The blocks of MobileNetV2 (inverted residual: 1x1 expansion, 3x3
    depthwise, ReLU6, projection, residual), EfficientNet (MBConv: a strided
    5x5 depthwise, SiLU, squeeze-and-excitation), a 7x7 depthwise with a
    residual, then a MobileNetV3-style one with hardswish whose activated
    input is read twice (it stays a kernel of its own), with batch norms
    folded and random statistics. Odd channel counts (not multiples of a
    warp) on purpose. (ConvNeXt's block, which permutes to channels-last
    itself: ConvNeXtBlocks.)"""

    def __init__(self, c=12):
        super().__init__()
        e = 4 * c
        self.inverted = nn.Sequential(
            nn.Conv2d(c, e, 1, bias=False), nn.BatchNorm2d(e), nn.ReLU6(),
            nn.Conv2d(e, e, 3, padding=1, groups=e, bias=False), nn.BatchNorm2d(e), nn.ReLU6(),
            nn.Conv2d(e, c, 1, bias=False), nn.BatchNorm2d(c))
        self.expand = nn.Sequential(nn.Conv2d(c, e, 1, bias=False), nn.BatchNorm2d(e), nn.SiLU())
        self.depthwise = nn.Sequential(
            nn.Conv2d(e, e, 5, stride=2, padding=2, groups=e, bias=False), nn.BatchNorm2d(e),
            nn.SiLU())
        self.squeeze = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(e, 6, 1), nn.SiLU(),
                                     nn.Conv2d(6, e, 1), nn.Sigmoid())
        self.project = nn.Sequential(nn.Conv2d(e, 20, 1, bias=False), nn.BatchNorm2d(20))
        self.dw7 = nn.Conv2d(20, 20, 7, padding=3, groups=20)
        self.hs_expand = nn.Sequential(nn.Conv2d(20, 40, 1, bias=False), nn.BatchNorm2d(40),
                                       nn.Hardswish())
        self.hs_dw = nn.Sequential(nn.Conv2d(40, 40, 3, padding=1, groups=40, bias=False),
                                   nn.BatchNorm2d(40), nn.Hardswish())
        self.hs_project = nn.Conv2d(40, 20, 1)
        randomize_batch_norms(self)

    def forward(self, x):
        x = x + self.inverted(x)
        h = self.depthwise(self.expand(x))
        x = self.project(h * self.squeeze(h))
        x = x + self.dw7(x)
        a = self.hs_expand(x)
        return x + self.hs_project(self.hs_dw(a) + a)


class ConvNeXtBlocks(nn.Module):
    """ConvNeXt at toy size: a 4x4/4 patchify stem and a LayerNorm over the
    channels (permuted to channels-last and back), a block (7x7 depthwise,
    then LayerNorm and the MLP channels-last between permutes, layer scale,
    residual), a downsampling LayerNorm and 2x2/2 convolution, another block.
    The model permutes between layouts itself, so tcc runs it channels-last
    even in fp32."""

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
            self.norm = nn.LayerNorm(c, eps=1e-6)
            self.mlp = nn.Sequential(nn.Linear(c, 4 * c), nn.GELU(), nn.Linear(4 * c, c))
            self.gamma = nn.Parameter(torch.rand(c))

        def forward(self, x):
            y = self.dw(x).permute(0, 2, 3, 1)
            y = self.gamma * self.mlp(self.norm(y))
            return x + y.permute(0, 3, 1, 2)

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 12, 4, stride=4)
        self.stem_norm = nn.LayerNorm(12, eps=1e-6)
        self.block1 = self.Block(12)
        self.down_norm = nn.LayerNorm(12, eps=1e-6)
        self.down = nn.Conv2d(12, 20, 2, stride=2)
        self.block2 = self.Block(20)

    def forward(self, x):
        x = self.stem_norm(self.stem(x).permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        x = self.block1(x)
        x = self.down(self.down_norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2))
        return self.block2(x)


class Uint8Conversions(nn.Module):
    """torch.uint8 in and out: an image normalized to float (what vision
    preprocessing does), floats to uint8 with values out of range on both
    sides (they wrap around modulo 256, as PyTorch's CPU conversion does),
    uint8 to int64 and to bool, a bool mask to uint8. It once failed to
    compile: tcc built arith conversions of the unsigned element type."""

    def forward(self, image, x):
        normalized = image.float() / 255.0
        return (normalized, x.byte(), image.long() * 3, image.bool(), (x > 0).to(torch.uint8),
                image.to(torch.int8))


class Uint8Arithmetic(nn.Module):
    """torch.uint8 arithmetic as image code writes it: sums and differences
    that wrap around modulo 256, a product, negation, bitwise and/or,
    comparisons past 127 (where a signed reading of the bits would answer
    wrongly), a select, and an affine map to float. It once stopped with an
    internal error (arith ops built on the unsigned element type)."""

    def forward(self, a, b):
        return (a + b, a - b, a * 3, -a, a & 0x0F, a | b, a > 100, a <= b, a == 255,
                torch.where(a > b, a, b), a.float() / 127.5 - 1.0)


class TwoDynamicDims(nn.Module):
    """A symbolic batch and sequence length (tcc compile --specialize): a
    concatenation along the sequence (sizes 2*seq, which binding the batch
    alone leaves symbolic) and a softmax over it."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        h = torch.cat([self.lin(x), x], dim=1)
        return self.norm(torch.softmax(h, dim=1))


def write_two_dynamic_dims(out):
    """two_dynamic_dims at [2, 16, 8], and at more sizes as input_b<B>x<S>.npy
    (with their expected_b<B>x<S>.npy), each run by PyTorch."""
    name = "two_dynamic_dims"
    if ONLY and name != ONLY:
        return
    torch.manual_seed(81)
    model = TwoDynamicDims()
    batch = torch.export.Dim("batch", min=1, max=16)
    seq = torch.export.Dim("seq", min=2, max=64)
    write_case(out, name, model, [torch.randn(2, 16, 8)],
               dynamic_shapes=({0: batch, 1: seq},))
    d = os.path.join(out, name)
    for b, n in ((2, 5), (3, 16), (3, 5)):
        x = torch.randn(b, n, 8)
        with torch.no_grad():
            y = model(x)
        save_npy(os.path.join(d, f"input_b{b}x{n}.npy"), x)
        save_npy(os.path.join(d, f"expected_b{b}x{n}.npy"), y)
        print(f"wrote {d} {b}x{n}")


class AudioFrontEnd(nn.Module):
    """A speech model's Conv1d front end over a symbolic time dim (issue 39):
    a stride-2 stem with GLU, a depthwise k7 and a k15 convolution with
    BatchNorm1d and SiLU, a pointwise one and a residual."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv1d(8, 32, 3, stride=2, padding=1)
        self.dw7 = nn.Conv1d(16, 16, 7, padding=3, groups=16)
        self.dw15 = nn.Conv1d(16, 16, 15, padding=7, groups=16)
        self.bn = nn.BatchNorm1d(16)
        self.pw = nn.Conv1d(16, 16, 1)

    def forward(self, x):
        h = F.glu(self.stem(x), dim=1)
        h = F.silu(self.bn(self.dw15(self.dw7(h))))
        return self.pw(h) + h


class SpatialDynamicCnn(nn.Module):
    """Convolutions and pooling over symbolic heights and widths: a stride-2
    stem, BatchNorm and ReLU, 2x2 and ceil_mode 3x3 max pooling, a grouped
    dilated convolution, an asymmetric kernel and stride, average pooling
    (padding not counted) and a global average."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=4)
        self.c3 = nn.Conv2d(16, 8, (3, 5), stride=(1, 2), padding=(1, 0))

    def forward(self, x):
        h = F.relu(self.bn(self.c1(x)))
        h = F.max_pool2d(h, 2)
        h = h + F.relu(self.c2(h))
        return (self.c3(h), F.adaptive_avg_pool2d(h, 1),
                F.max_pool2d(h, 3, stride=2, padding=1, ceil_mode=True),
                F.avg_pool2d(h, 3, stride=2, padding=1, count_include_pad=False))


def write_more_shapes(d, model, shapes, first_dim):
    """The one-input `model` run by PyTorch at more input shapes, beside its
    case in `d`: input_<tag>.npy and expected_<tag>_<i>.npy, the tag the
    shape's dims from `first_dim` on joined by "x"."""
    for shape in shapes:
        xi = torch.randn(*shape)
        with torch.no_grad():
            ys = model(xi)
        ys = ys if isinstance(ys, tuple) else (ys,)
        tag = "x".join(str(v) for v in shape[first_dim:])
        save_npy(os.path.join(d, f"input_{tag}.npy"), xi)
        for i, y in enumerate(ys):
            save_npy(os.path.join(d, f"expected_{tag}_{i}.npy"), y)
        print(f"wrote {d} {tag}")


def write_spatial_dynamic(out):
    """audio_front_end (time 4..4096) and spatial_dynamic_cnn (H 16..512,
    W 24..512), each at its export size and at more sizes as
    input_<size>.npy / expected_<size>_<i>.npy, each run by PyTorch."""
    cases = [
        ("audio_front_end", AudioFrontEnd, torch.randn(2, 8, 50),
         {2: torch.export.Dim("time", min=4, max=4096)}, [(2, 8, 77), (2, 8, 4), (2, 8, 301)]),
        ("spatial_dynamic_cnn", SpatialDynamicCnn, torch.randn(2, 3, 40, 52),
         {2: torch.export.Dim.AUTO(min=16, max=512), 3: torch.export.Dim.AUTO(min=24, max=512)},
         [(2, 3, 33, 61), (2, 3, 17, 25), (2, 3, 64, 100)]),
    ]
    for name, cls, x, dims, sizes in cases:
        if ONLY and name != ONLY:
            continue
        torch.manual_seed(83)
        model = cls().eval()
        with torch.no_grad():
            for mod in model.modules():
                if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d)):
                    mod.running_mean.normal_()
                    mod.running_var.uniform_(0.5, 2.0)
        write_case(out, name, model, [x], dynamic_shapes=(dims,))
        write_more_shapes(os.path.join(out, name), model, sizes, first_dim=2)


class SymbolicPooling(nn.Module):
    """Pooling over a symbolic height and width that failed to legalize (issue
    39): average pooling with ceil_mode (padding counted; not counted, with a
    stride of 3 whose ceil_mode window is dropped where it would start in the
    trailing padding) and max pooling over windows of more than 64 elements
    (9x9; 9x8 with ceil_mode)."""

    def forward(self, x):
        return (F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                F.avg_pool2d(x, 3, stride=3, padding=1, ceil_mode=True,
                             count_include_pad=False),
                F.max_pool2d(x, 9, stride=3, padding=2),
                F.max_pool2d(x, (9, 8), stride=3, padding=(2, 4), ceil_mode=True))


def write_symbolic_pooling(out):
    """symbolic_pooling (H and W 12..512) at its export size and at more sizes
    as input_<H>x<W>.npy / expected_<H>x<W>_<i>.npy, each run by PyTorch."""
    name = "symbolic_pooling"
    if ONLY and name != ONLY:
        return
    torch.manual_seed(84)
    model = SymbolicPooling()
    dims = {2: torch.export.Dim.AUTO(min=12, max=512), 3: torch.export.Dim.AUTO(min=12, max=512)}
    write_case(out, name, model, [torch.randn(2, 3, 20, 26)], dynamic_shapes=(dims,))
    d = os.path.join(out, name)
    # torch.export keeps ceil_mode's choices at the export size (the last
    # window dropped or not) as guards on the sizes: here each size is 2
    # modulo 6. Sizes that pass them, checked by running the exported program
    # (it raises where they do not).
    write_image_sizes(d, model, [(14, 14, True), (32, 50, True), (62, 98, True), (38, 104, True)])


def write_image_sizes(d, model, sizes):
    """For each (H, W, admitted): a [2, 3, H, W] input and PyTorch's outputs
    as input_<tag>.npy / expected_<tag>_<i>.npy, tag <H>x<W>, or
    broken_<H>x<W> for a size the export's guards refuse; `admitted` is
    checked by running the exported program in d (it raises where they do
    not hold)."""
    exported = torch.export.load(os.path.join(d, "model.pt2")).module()
    for h, w, admitted in sizes:
        x = torch.randn(2, 3, h, w)
        with torch.no_grad():
            try:
                exported(x)
                passes = True
            except Exception:
                passes = False
            assert passes == admitted, (d, h, w, passes)
            ys = model(x)
        tag = f"{h}x{w}" if admitted else f"broken_{h}x{w}"
        save_npy(os.path.join(d, f"input_{tag}.npy"), x)
        for i, y in enumerate(ys):
            save_npy(os.path.join(d, f"expected_{tag}_{i}.npy"), y)
        print(f"wrote {d} {tag}")


class SymbolicWindowGuards(nn.Module):
    """A stride-2 convolution, then max pooling with ceil_mode, and average
    pooling with ceil_mode on the input, over a height and width exported
    with Dim.AUTO (issue 39): torch.export records guards on the sizes under
    which its expressions for the ceil_mode results hold. At sizes that
    break them tcc sized the results by the export's expressions while the
    kernels counted PyTorch's windows: a silent wrong answer, and a kernel
    writing more rows than its result has. The manifest's size checks refuse
    such a call."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return (F.max_pool2d(y, 2, stride=3, padding=1, ceil_mode=True),
                F.avg_pool2d(x, 3, stride=3, padding=1, ceil_mode=True))


def write_symbolic_window_guards(out):
    """symbolic_window_guards (H and W 8..256) at its export size and at
    more sizes its guards admit, as input_<H>x<W>.npy /
    expected_<H>x<W>_<i>.npy, and at a size that breaks them
    (input_broken_<H>x<W>.npy, expected_broken_<H>x<W>_<i>.npy: PyTorch's
    eager outputs, which the exported program refuses to compute)."""
    if ONLY and ONLY != "symbolic_window_guards":
        return
    torch.manual_seed(85)
    auto = torch.export.Dim.AUTO(min=8, max=256)
    model = SymbolicWindowGuards()
    write_case(out, "symbolic_window_guards", model, [torch.randn(2, 3, 20, 28)],
               dynamic_shapes=({2: auto, 3: auto},))
    write_image_sizes(os.path.join(out, "symbolic_window_guards"), model,
                      [(14, 22, True), (44, 51, True), (12, 28, False)])


class MoeDynamic(nn.Module):
    """A Mixtral-style mixture-of-experts block over a symbolic batch and
    sequence (issue 39: topk needed a static shape, einsum and unbind a
    result with one symbolic dim): a softmax router's top 2 of 4 experts,
    every expert's MLP by einsum, the chosen ones gathered and unbound."""

    def __init__(self, d=32, experts=4, hidden=48, k=2):
        super().__init__()
        self.gate = nn.Linear(d, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, d, hidden) * 0.2)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, d) * 0.2)
        self.k = k

    def forward(self, x):
        b, t, d = x.shape
        weights, chosen = torch.topk(self.gate(x).softmax(-1), self.k, dim=-1)
        h = torch.einsum("btd,edf->btef", x, self.w1).relu()
        y = torch.einsum("btef,efd->bted", h, self.w2)
        picked = torch.gather(y, 2, chosen[..., None].expand(b, t, self.k, d))
        out = sum(p * weights[..., i:i + 1] for i, p in enumerate(torch.unbind(picked, 2)))
        return out, chosen


class PixelShuffleDynamic(nn.Module):
    """ESPCN-style super-resolution over a symbolic batch, height and width
    (issue 39: pixel_shuffle needed static C, H and W): convolutions, a x2
    pixel shuffle, and the pixel unshuffle of the result."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 5, padding=2)
        self.c2 = nn.Conv2d(16, 3 * 4, 3, padding=1)

    def forward(self, x):
        y = F.pixel_shuffle(self.c2(torch.tanh(self.c1(x))), 2)
        return y, F.pixel_unshuffle(y, 2) - x.repeat(1, 4, 1, 1)


class UpsampleSymbolic(nn.Module):
    """Resampling over a symbolic batch, height and width (issue 39: "'output_size'
    depends on an input's size", "symbolic spatial sizes are not supported
    yet"): sizes from the input's (2h, 2w; h + 3, 3w; h // 2, w) and scale
    factors (1.5: an output size of floor(1.5 h), 2.0), nearest,
    nearest-exact, bilinear and bicubic with and without align_corners."""

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        return (F.interpolate(x, size=(h * 2, w * 2), mode="nearest"),
                F.interpolate(x, scale_factor=1.5, mode="nearest"),
                F.interpolate(x, size=(h + 3, w * 3), mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False),
                F.interpolate(x, size=(h // 2, w), mode="nearest-exact"),
                F.interpolate(x, size=(h * 2, w * 2), mode="bicubic", align_corners=False),
                F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True))


class SpatialTransformer(nn.Module):
    """A spatial transformer (issue 39: aten.affine_grid_generator was
    unsupported; as core ATen, sub.Tensor(27, arange) was refused with
    "expected a tensor operand 'self'"): a localization net's theta, its
    affine grid and grid_sample, an align_corners grid to another size, and
    a 3-d affine grid sampling a volume."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 4, 7), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(),
                                 nn.Linear(4 * 9 * 9, 6))
        with torch.no_grad():
            self.loc[-1].weight.mul_(0.05)
            self.loc[-1].bias.copy_(torch.tensor([0.9, 0.2, 0.05, -0.1, 1.1, -0.05]))
        self.theta3 = nn.Parameter(torch.tensor([[[0.9, 0.1, 0.0, 0.05], [-0.1, 1.0, 0.1, 0.0],
                                                  [0.05, 0.0, 0.8, -0.1]]]))

    def forward(self, x, v):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(x.size()), align_corners=False)
        wide = F.affine_grid(theta, [x.shape[0], 1, 20, 24], align_corners=True)
        grid3 = F.affine_grid(self.theta3.expand(v.shape[0], 3, 4), list(v.size()),
                              align_corners=False)
        return (F.grid_sample(x, grid, align_corners=False), wide,
                F.grid_sample(x, wide, align_corners=True),
                F.grid_sample(v, grid3, align_corners=False))


def write_integer_sums(out):
    """integer_sums: int64 inputs near 2^60 (sums wrap), and a symbolic batch."""
    torch.manual_seed(87)
    x = torch.randint(-(2 ** 60), 2 ** 60, (5, 9), dtype=torch.int64)
    x[0, :] = 2 ** 62  # 9 of them wrap past 2^63
    write_case(out, "integer_sums", IntegerSums(), [x],
               dynamic_shapes=({0: torch.export.Dim("rows", min=2, max=64)},))


def write_relative_position_index(out):
    torch.manual_seed(88)
    write_case(out, "relative_position_index", RelativePositionIndex(),
               [torch.randn(3, 2, 16, 16)])


def write_spatial_transformer(out):
    """spatial_transformer: model.pt2 as exported, model_core.pt2 its core
    ATen form (run_decompositions), the same inputs and outputs."""
    name = "spatial_transformer"
    if ONLY and name != ONLY:
        return
    torch.manual_seed(86)
    model = SpatialTransformer().eval()
    inputs = [torch.randn(2, 1, 24, 24), torch.randn(2, 2, 5, 6, 7)]
    write_case(out, name, model, inputs)
    d = os.path.join(out, name)
    with torch.no_grad():
        core = torch.export.export(model, tuple(inputs)).run_decompositions()
    relative_traces(core)
    torch.export.save(core, os.path.join(d, "model_core.pt2"))
    print(f"wrote {d}/model_core.pt2")


class IntegerSums(nn.Module):
    """Sums of int64 values that f64 cannot hold exactly (issue 39: BEiT's
    relative-position index as core ATen, aten.sum.dim_IntList "a sum of
    'i64' values that f64 may not hold exactly is not supported"): along a
    dim, with keepdim, over all elements, with terms near 2^60 whose sums
    wrap around as PyTorch's int64 sums do."""

    def forward(self, x):
        return x.sum(-1), x.sum(0, keepdim=True), x.sum(), (x * 3).sum(1)


class RelativePositionIndex(nn.Module):
    """BEiT's relative-position bias built in forward, as exported (issue 39:
    "in-place aten.add_.Tensor into a select view not supported"): the
    index is a contiguous() copy of a permuted difference, written in place
    through selects. contiguous() of a tensor that is not row-major copies
    it, so the writes stay in the copy (the permuted view keeps the old
    values); of a row-major tensor it is the tensor itself, so writes into it
    reach the original."""

    def __init__(self, window=(4, 4), heads=2):
        super().__init__()
        self.window = window
        count = (2 * window[0] - 1) * (2 * window[1] - 1)
        self.table = nn.Parameter(torch.randn(count, heads))

    def forward(self, x):
        wh, ww = self.window
        coords = torch.stack(torch.meshgrid(torch.arange(wh), torch.arange(ww),
                                            indexing="ij")).flatten(1)
        diff = coords[:, :, None] - coords[:, None, :]
        permuted = diff.permute(1, 2, 0)
        rel = permuted.contiguous()
        rel[:, :, 0] += wh - 1
        rel[:, :, 1] += ww - 1
        rel[:, :, 0] *= 2 * ww - 1
        index = rel.sum(-1)
        n = wh * ww
        bias = self.table[index.view(-1)].view(n, n, -1).permute(2, 0, 1)
        same = x.clone()
        alias = same.contiguous()  # row-major: the tensor itself
        alias[:, 0] += 1.0
        return x + bias, permuted * 1, same


class AdaptivePoolSymbolic(nn.Module):
    """Adaptive pooling to more than one entry over symbolic H and W (issue
    39: "adaptive pooling to 3 entries over a symbolic size is not supported
    yet"): average and max over 2-D windows whose bounds follow the input's
    size, and a 1-D average over the width."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return (nn.functional.adaptive_avg_pool2d(y, (3, 5)),
                nn.functional.adaptive_max_pool2d(y, (2, 7)),
                nn.functional.adaptive_avg_pool1d(y.mean(1), 4))


class PadSymbolic(nn.Module):
    """Padding and rolls over symbolic sizes (issue 39: "dimension N is
    symbolic; only static sizes are supported"): constant padding with a
    crop, reflect, replicate and circular padding along symbolic H and W,
    fftshift/ifftshift and rolls (one flattened) along them."""

    def forward(self, x):
        return (F.pad(x, (1, 2, -1, 1), value=0.5),
                F.pad(x, (2, 1, 1, 2), mode="reflect"),
                F.pad(x, (1, 3, 2, 0), mode="replicate"),
                F.pad(x, (2, 1, -1, 2), mode="circular"),
                torch.fft.fftshift(x, dim=(-2, -1)),
                torch.fft.ifftshift(x, dim=(0, 2)),
                torch.roll(x, (3, -5), (2, 3)) + torch.roll(x, 7))


class VarSymbolic(nn.Module):
    """var/std over symbolic dims (issue 39: "var/std over a symbolic
    dimension is not supported yet"): the count of reduced elements read
    at run time, with corrections 1, 0 and 2."""

    def forward(self, x):
        v, m = torch.var_mean(x, dim=2, keepdim=True)
        s, n = torch.std_mean(x, dim=(0, 3), correction=0)
        return x.var(dim=(2, 3)), x.std(dim=3, correction=2), v, m, s, n, x.var()


class SplitSymbolic(nn.Module):
    """Slicing and splitting along symbolic dims (issue 39: "slicing along a
    symbolic dimension is not supported yet"): chunk, tensor_split by
    sections and by indices, narrow from the start and from the end,
    hsplit, each piece as long as the sizes say at run time."""

    def forward(self, x):
        a, b = x.chunk(2, dim=2)
        c, d = torch.tensor_split(x, 2, dim=3)
        e, f, g = torch.tensor_split(x, (1, 3), dim=2)
        h = x.narrow(3, 1, 2) + x.narrow(3, -2, 2)
        i, j = torch.hsplit(x.transpose(1, 2), [2])
        return a * 2, b - 1, c, d, e, f, g, h, i, j


class FlipStackSymbolic(nn.Module):
    """flip, rot90, broadcast_tensors, the losses built on it and the
    stackings over symbolic sizes (issue 39: "flip of dim N ... not
    supported", "broadcast_tensors to a symbolic shape", "of tensors with
    symbolic sizes is not supported yet")."""

    def forward(self, x):
        y = torch.sin(x)
        p, q = torch.broadcast_tensors(x, x[:, :1, :, :1])
        return (torch.flip(x, (0, 2, 3)), torch.rot90(x, 1, (2, 3)), torch.fliplr(x),
                p + q, F.mse_loss(x, y), F.smooth_l1_loss(x, y, reduction="none"),
                torch.hstack((x, y)), torch.vstack((x, y)), torch.dstack((x, y)),
                torch.column_stack((x[0, 0], y[0, 0])), torch.stack((x, y), dim=2))


class OrderingSymbolic(nn.Module):
    """Scans and sorts along symbolic dims (issue 39: "needs a static size
    along dim N, not a symbolic one"): cumprod, cummax/cummin with their
    indices, logcumsumexp, sort, argsort, msort (along the batch), topk,
    kthvalue, median and mode."""

    def forward(self, x):
        mx, imx = torch.cummax(x, 3)
        mn, imn = torch.cummin(x, 2)
        sv, si = torch.sort(x, dim=3)
        tv, ti = torch.topk(x, 2, dim=3)
        kv, ki = torch.kthvalue(x, 2, dim=2)
        md, mi = torch.median(x, dim=3)
        mo, moi = torch.mode(x, dim=2)
        return (torch.cumprod(x, 2), mx, imx, mn, imn, torch.logcumsumexp(x, 3), sv, si,
                torch.argsort(x, dim=2, descending=True), torch.msort(x), tv, ti, kv, ki,
                md, mi, mo, moi)


class TrapezoidSymbolic(nn.Module):
    """trapezoid/trapz and cumulative_trapezoid along symbolic dims (issue
    39: "along a symbolic dimension is not supported yet"), with a spacing
    and with sample points of the same symbolic length."""

    def forward(self, y):
        x = torch.cumsum(y[0, 0, :, 0].abs() + 0.1, 0)
        return (torch.trapezoid(y, dx=0.5, dim=3), torch.trapz(y, x, dim=2),
                torch.cumulative_trapezoid(y, dim=3), torch.cumulative_trapezoid(y, x, dim=2))


class ScatterGluSymbolic(nn.Module):
    """slice_scatter / select_scatter along a symbolic dim ("dimension N is
    symbolic; only static sizes are supported") and glu halving one (issue
    39: "does not halve (static, even)")."""

    def forward(self, x):
        return (torch.slice_scatter(x, torch.tanh(x[:, :, 2:]), dim=2, start=2),
                torch.slice_scatter(x, -x[:, :, 1:3], dim=2, start=1, end=3),
                torch.select_scatter(x, x[..., 0] * 2, dim=3, index=2),
                F.glu(x, dim=2))


class ScatterSymbolic(nn.Module):
    """The scatter family over symbolic sizes (issue 39: "only static shapes
    are supported"): scatter, scatter_add (pairs of positions hit one, an
    index narrower than self), scatter_reduce amax/mean, index_add,
    index_fill, put (accumulating), max_unpool2d, masked_scatter, index_put
    with a boolean mask and with integer indices (adjacent, accumulating;
    apart), the indices drawn from x by argsort (distinct floats: no
    ties)."""

    def forward(self, x):
        order = torch.argsort(x, dim=2)
        half = order // 2
        cols = torch.argsort(x, dim=3) // 3
        rows = torch.argsort(x[0, 0, :, 0])
        flat = x.flatten()
        plane = torch.argsort(x.flatten(2), dim=2).view_as(x)
        bs, hs, ws = (torch.argsort(x[:, 0, 0, 0]), torch.argsort(x[0, 0, :, 0]),
                      torch.argsort(x[0, 0, 0, :]))
        return (torch.scatter(x, 2, order, x * 2),
                torch.scatter_add(torch.zeros_like(x), 2, half, x),
                torch.scatter_add(x, 2, half[..., :2], x[..., :2]),
                torch.scatter_reduce(x, 3, cols, x.exp(), "amax", include_self=False),
                torch.scatter_reduce(x, 2, half, x, "mean"),
                x.index_add(2, rows, x * 0.5),
                x.index_fill(3, cols[0, 0, 0, :2], -1.0),
                flat.put(torch.argsort(flat) // 3, flat * 3, accumulate=True).view_as(x),
                F.max_unpool2d(x, plane, kernel_size=1),
                torch.masked_scatter(x, x > 0, x.flip(3) * 3),
                torch.index_put(x, (x[:, 0, 0, 0] > 0,), x[0] * 2),
                torch.ops.aten.index_put(x, [None, None, hs[:, None], ws[None, :]], x * 3, True),
                torch.ops.aten.index_put(x, [bs[:, None], None, hs[None, :]],
                                         x.permute(0, 2, 1, 3) * 5))


class TakeSymbolic(nn.Module):
    """take, take_along_dim without dim and _unsafe_masked_index (indices
    clamped, one -1 and one past the end) over symbolic sizes (issue 39:
    "only static shapes are supported"), beside gathers (take_along_dim with
    a dim exports with every size specialized)."""

    def forward(self, x):
        order = torch.argsort(x.flatten())
        plane = x[0, 0]
        rows = torch.argsort(plane[:, :1], dim=0) - 1
        cols = torch.argsort(plane[:1, :], dim=1) + 1
        return (torch.take(x, order[:7]),
                torch.take_along_dim(x, order),
                torch.gather(x, 2, torch.argsort(x, dim=2)),
                torch.gather(x, 3, torch.argsort(x, dim=3)[..., :2]),
                torch.ops.aten._unsafe_masked_index(plane, plane > 0, [rows, cols], 0.5))


class UnfoldSymbolic(nn.Module):
    """Tensor.unfold along symbolic dims and nn.functional.unfold (im2col)
    over symbolic batch, H and W (issue 39: "along a symbolic dimension is
    not supported yet", "needs a static (N, C, H, W) or (C, H, W) input")."""

    def forward(self, x):
        return (x.unfold(2, 3, 2),
                x.unfold(3, 2, 1),
                F.unfold(x, (2, 3), stride=(1, 2), padding=1),
                F.unfold(x, 3, dilation=2, padding=1))


class PoolIndicesSymbolic(nn.Module):
    """max_pool2d/1d and adaptive_max_pool2d with return_indices over
    symbolic sizes (issue 39: "indices over symbolic sizes are not supported
    yet"), and the 2-D indices unpooled again (SegNet's decoder) to the
    input's sizes."""

    def forward(self, x):
        y, i = F.max_pool2d(x, 2, return_indices=True)
        z, j = F.max_pool1d(x.flatten(2), 3, stride=2, padding=1, return_indices=True)
        a, k = F.adaptive_max_pool2d(x, (3, 2), return_indices=True)
        return y, i, z, j, F.max_unpool2d(y, i, 2), a, k


class GridSampleSymbolic(nn.Module):
    """grid_sample over symbolic batch, H and W (issue 39: "needs a static
    float [N, C, (D,) H, W] input and [N, (Do,) Ho, Wo, 2 or 3] grid"): the
    grid drawn from x (tanh, a little past [-1, 1] for the padding modes),
    bilinear with zeros, nearest with border, bilinear with reflection with
    and without align_corners."""

    def forward(self, x):
        grid = torch.tanh(x[:, :2].permute(0, 2, 3, 1)) * 1.2
        return (F.grid_sample(x, grid, align_corners=False),
                F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=False),
                F.grid_sample(x, grid, padding_mode="reflection", align_corners=True),
                F.grid_sample(x, grid, padding_mode="reflection", align_corners=False))


class TriangleSymbolic(nn.Module):
    """tril/triu of matrices of symbolic sizes (issue 39: "of a
    symbolic-size matrix is not supported yet")."""

    def forward(self, x):
        return torch.tril(x, 1), torch.triu(x, -2)


class FFTSymbolic(nn.Module):
    """The torch.fft family over symbolic lengths (issue 39: "transforms of
    tensors of symbolic shape are not supported"): fft, ifft2 (ortho), rfft
    along H, irfft of the default length 2*(W - 1), hfft to a static n over a
    symbolic H, fftn trimming/padding H to 5 (forward norm), ihfftn, and an
    rfft/irfft round trip along H (a complex input of symbolic length)."""

    def forward(self, x):
        f = torch.fft
        return (f.fft(x), f.ifft2(x, norm="ortho"), f.rfft(x, dim=2), f.irfft(x),
                f.hfft(x, n=9, dim=2), f.fftn(x, s=(5, -1), dim=(2, 3), norm="forward"),
                f.ihfftn(x, dim=(2, 3)), f.irfft(f.rfft(x, dim=2), dim=2))


class DiagonalSymbolic(nn.Module):
    """The diagonal family over symbolic sizes (issue 39: "needs two distinct
    dims of a static tensor"; torch.export states the lengths with Min and
    Max): diagonal above and below the main one (lengths min(H, W - 1) and
    min(W - 2, H), the result's size read by the runtime), diag_embed,
    diagonal_scatter, trace, diag of a vector and linalg.diagonal."""

    def forward(self, x):
        d = torch.diagonal(x, 1, 2, 3)
        return (d, torch.diagonal(x, -2, -1, -2), torch.diag_embed(x[:, 0], offset=-1),
                torch.diagonal_scatter(x, d * 2.0, 1, 2, 3), torch.trace(x[0, 0]),
                torch.diag(x[0, 0, 0]), torch.linalg.diagonal(x))


class CrossTensordotSymbolic(nn.Module):
    """cross, linalg.cross and tensordot over symbolic sizes (issue 39:
    "needs operands of static shape and a float result"): crosses along the
    static 3 channels (one operand broadcast over the batch), tensordot
    contracting W and contracting C and H."""

    def forward(self, x):
        y = torch.flip(x, [-1])
        return (torch.linalg.cross(x, y, dim=1), torch.cross(x, y[:1], dim=1),
                torch.tensordot(x, y, dims=([3], [3])),
                torch.tensordot(x, y, dims=([1, 2], [1, 2])))


class MiscSymbolic(nn.Module):
    """isin, cosine_similarity, isreal, inner, complex, polar, nll_loss,
    cross_entropy and stft over symbolic sizes (issue 39: "needs tensors of
    static shape", "only static shapes are supported", "complex tensors of
    symbolic shape", "(static, one dim fewer)", "a 1-D or 2-D signal of
    static shape"): stft of a flattened plane of symbolic length H*W."""

    def forward(self, x):
        y = torch.flip(x, [-1])
        target = (x[:, 0].abs() * 2).long().clamp(max=2)
        return (torch.isin(x.round(), x[0, 0, 0].round()), F.cosine_similarity(x, y, dim=1),
                torch.isreal(x), torch.inner(x, y), torch.complex(x, y * 0.5),
                torch.polar(x.abs(), y), F.nll_loss(F.log_softmax(x, 1), target),
                F.cross_entropy(x, target, reduction="none"),
                torch.stft(x[0, 0].flatten(), 8, hop_length=3, return_complex=True))


class NormRepeatSymbolic(nn.Module):
    """group_norm, instance_norm, repeat_interleave and diff(n=0) over
    symbolic sizes (issue 39: "of symbolic channel/spatial sizes is not
    supported yet", "needs a static tensor and a number of repeats"): group
    norm in 1 and 3 groups with an affine, instance norm, repeats along W and
    of the flattened tensor, and diff with n = 0 (its input; the export may
    keep no diff op)."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.linspace(0.5, 1.5, 3))
        self.bias = nn.Parameter(torch.linspace(-0.2, 0.2, 3))

    def forward(self, x):
        return (F.group_norm(x, 1), F.group_norm(x, 3, self.weight, self.bias),
                F.instance_norm(x), torch.repeat_interleave(x, 2, dim=3),
                torch.repeat_interleave(x[0, 0], 3), torch.diff(x, n=0, dim=2) * 1.0)


def write_dynamic_tail(out):
    """moe_dynamic (batch 1..16, sequence 2..128), pixel_shuffle_dynamic,
    upsample_symbolic and adaptive_pool_symbolic (batch 1..8, H and W 4..128),
    pad_symbolic, var_symbolic, split_symbolic, flip_stack_symbolic,
    ordering_symbolic, trapezoid_symbolic and scatter_glu_symbolic (Dim.AUTO:
    batch 2..16, H and W 4..64), scatter_symbolic (batch 2..8, H and W 4..16)
    take_symbolic, unfold_symbolic, grid_sample_symbolic, triangle_symbolic,
    fft_symbolic, diagonal_symbolic, cross_tensordot_symbolic, misc_symbolic,
    norm_repeat_symbolic (batch 2..16, H and W 4..64) and
    pool_indices_symbolic (H and W 4..32) at their export sizes and at more shapes as
    input_<shape>.npy / expected_<shape>_<i>.npy, each run by PyTorch."""
    dim = torch.export.Dim
    cases = [
        ("moe_dynamic", MoeDynamic, torch.randn(2, 8, 32),
         {0: dim("batch", min=1, max=16), 1: dim("seq", min=2, max=128)},
         [(1, 2, 32), (3, 17, 32), (16, 128, 32)]),
        ("pixel_shuffle_dynamic", PixelShuffleDynamic, torch.randn(2, 3, 16, 20),
         {0: dim("batch", min=1, max=8), 2: dim("h", min=4, max=128), 3: dim("w", min=4, max=128)},
         [(1, 3, 4, 4), (3, 3, 17, 9), (2, 3, 64, 128)]),
        ("upsample_symbolic", UpsampleSymbolic, torch.randn(2, 3, 16, 20),
         {0: dim("batch", min=1, max=8), 2: dim("h", min=4, max=128), 3: dim("w", min=4, max=128)},
         [(1, 3, 4, 4), (3, 3, 17, 9), (2, 3, 61, 128)]),
        ("adaptive_pool_symbolic", AdaptivePoolSymbolic, torch.randn(2, 3, 16, 20),
         {0: dim("batch", min=1, max=8), 2: dim("h", min=4, max=128), 3: dim("w", min=4, max=128)},
         [(1, 3, 4, 4), (3, 3, 17, 9), (2, 3, 61, 128)]),
        ("pad_symbolic", PadSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("var_symbolic", VarSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        # The export holds for an odd W (tensor_split's pieces of 7) and H != 4.
        ("split_symbolic", SplitSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 5, 5), (2, 3, 9, 15), (4, 3, 33, 9)]),
        ("flip_stack_symbolic", FlipStackSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("ordering_symbolic", OrderingSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("trapezoid_symbolic", TrapezoidSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        # glu halves H: the export holds for an even H.
        ("scatter_glu_symbolic", ScatterGluSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 10, 16), (4, 3, 32, 8)]),
        # The dense scatter's temporaries grow as index elements x targets,
        # sized by the export's maxima: H and W up to 16.
        ("scatter_symbolic", ScatterSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=8), 2: dim.AUTO(min=4, max=16), 3: dim.AUTO(min=4, max=16)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 16, 8)]),
        ("take_symbolic", TakeSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        # Pooling by 2 holds the export for even H and W.
        ("pool_indices_symbolic", PoolIndicesSymbolic, torch.randn(2, 3, 6, 8),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=32), 3: dim.AUTO(min=4, max=32)},
         [(3, 3, 4, 6), (2, 3, 10, 16), (4, 3, 32, 8)]),
        ("grid_sample_symbolic", GridSampleSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("triangle_symbolic", TriangleSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("unfold_symbolic", UnfoldSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        # fftn trims H to 5: the export holds for H of 6 or more.
        ("fft_symbolic", FFTSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 7, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("diagonal_symbolic", DiagonalSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("cross_tensordot_symbolic", CrossTensordotSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("misc_symbolic", MiscSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
        ("norm_repeat_symbolic", NormRepeatSymbolic, torch.randn(2, 3, 6, 7),
         {0: dim.AUTO(max=16), 2: dim.AUTO(min=4, max=64), 3: dim.AUTO(min=4, max=64)},
         [(3, 3, 4, 5), (2, 3, 9, 16), (4, 3, 33, 8)]),
    ]
    for name, cls, x, dims, shapes in cases:
        if ONLY and name != ONLY:
            continue
        torch.manual_seed(85)
        model = cls().eval()
        write_case(out, name, model, [x], dynamic_shapes=(dims,))
        write_more_shapes(os.path.join(out, name), model, shapes, first_dim=0)


class LstmStack(nn.Module):
    """Recurrent layers as speech and tagging models use them (issue 39):
    a 2-layer bidirectional batch_first LSTM from zero states, then a
    time-major 2-layer LSTM with projections (proj_size) from given h0/c0,
    every output returned (output, h_n, c_n of each)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.LSTM(16, 32, num_layers=2, bidirectional=True, batch_first=True)
        self.projected = nn.LSTM(64, 24, num_layers=2, proj_size=8)

    def forward(self, x, h0, c0):
        y, (h, c) = self.encoder(x)
        z, (hp, cp) = self.projected(y.transpose(0, 1), (h0, c0))
        return y, h, c, z, hp, cp


class RecurrentBf16(nn.Module):
    """A bf16 LSTM and GRU (issue 39): 2-layer bidirectional batch_first
    LSTM from zero states, then a GRU from a given h0. tcc computes them in
    f32 and rounds once; PyTorch rounds between steps, so the fixtures
    differ from tcc by a few bf16 ulps (e2e/recurrent.test's rtol)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(64, 24, batch_first=True)

    def forward(self, x, h0):
        y, (h, c) = self.lstm(x)
        z, hz = self.gru(y, h0)
        return y, h, c, z, hz


class GruRnnStack(nn.Module):
    """A 2-layer bidirectional time-major GRU from a given h0, a batch_first
    GRU without biases, and plain tanh and ReLU RNNs (issue 39)."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(16, 32, num_layers=2, bidirectional=True)
        self.plain_gru = nn.GRU(64, 16, bias=False, batch_first=True)
        self.tanh_rnn = nn.RNN(16, 24, num_layers=2)
        self.relu_rnn = nn.RNN(16, 12, nonlinearity="relu", bidirectional=True)

    def forward(self, x, h0):
        y, h = self.gru(x, h0)
        z, hz = self.plain_gru(y.transpose(0, 1))
        t, ht = self.tanh_rnn(x)
        r, hr = self.relu_rnn(x)
        return y, h, z, hz, t, ht, r, hr


def _recurrence_shapes_only(lstm):
    """aten.lstm/gru/rnn_tanh/rnn_relu.input's result shapes without a loop
    over time, for export only: PyTorch's own decomposition unrolls the time
    steps (specializing a symbolic length), and the while-loop forms of
    torch.export._patches (LSTM and GRU alone) record h_n as [L·D, 1, B, H]
    where the operator returns [L·D, B, H]. The exported graph still records
    the operator itself; eager PyTorch computes the fixtures."""
    def shapes(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
               batch_first):
        h0 = hx[0] if lstm else hx
        dirs = 2 if bidirectional else 1
        out = input.new_zeros((input.size(0), input.size(1), dirs * h0.size(2)))
        if lstm:
            return out, torch.zeros_like(hx[0]), torch.zeros_like(hx[1])
        return out, torch.zeros_like(hx)
    return shapes


def write_recurrent_cases(out):
    """recurrent_lstm and recurrent_gru_rnn (issue 39), exported with a
    symbolic batch and sequence length, at the export size and more
    (sequence 1 with batch 1 among them) as input_<B>x<T>_<i>.npy /
    expected_<B>x<T>_<i>.npy, each run by PyTorch."""
    from torch.export import _patches
    batch = torch.export.Dim("batch", min=1, max=32)
    seq = torch.export.Dim("seq", min=1, max=512)
    sizes = [(1, 1), (3, 20), (2, 64)]
    cases = [
        ("recurrent_lstm", LstmStack,
         lambda b, t: [torch.randn(b, t, 16), torch.randn(2, b, 8), torch.randn(2, b, 24)],
         ({0: batch, 1: seq}, {1: batch}, {1: batch})),
        ("recurrent_gru_rnn", GruRnnStack,
         lambda b, t: [torch.randn(t, b, 16), torch.randn(4, b, 32)],
         ({0: seq, 1: batch}, {1: batch})),
        ("recurrent_bf16", lambda: RecurrentBf16().bfloat16(),
         lambda b, t: [torch.randn(b, t, 16).bfloat16(), torch.randn(1, b, 24).bfloat16()],
         ({0: batch, 1: seq}, {1: batch})),
    ]
    for name, cls, make_inputs, dims in cases:
        if ONLY and name != ONLY:
            continue
        torch.manual_seed(89)
        model = cls().eval()
        with contextlib.ExitStack() as stack:
            for op in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
                stack.enter_context(_patches._register_rnn_while_loop_decomposition(
                    getattr(torch.ops.aten, op).input, _recurrence_shapes_only(op == "lstm")))
            write_case(out, name, model, make_inputs(2, 7), dynamic_shapes=dims)
        d = os.path.join(out, name)
        for b, t in sizes:
            inputs = make_inputs(b, t)
            with torch.no_grad():
                ys = model(*inputs)
            tag = f"{b}x{t}"
            for i, x in enumerate(inputs):
                save_npy(os.path.join(d, f"input_{tag}_{i}.npy"), x)
            for i, y in enumerate(ys):
                save_npy(os.path.join(d, f"expected_{tag}_{i}.npy"), y)
            print(f"wrote {d} {tag}")


class Float64Products(nn.Module):
    """Matrix products in float64 (a linear layer, a batched matmul): they
    once stopped with an internal error (the GEMM kernels' f32 loops
    extended f64 operands)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 5).double()

    def forward(self, x, y):
        return self.lin(x), torch.bmm(y, y.transpose(1, 2))


class LinalgDeterminants(nn.Module):
    """Determinants, inverses and solves (issue 15, branch linalg): batches
    with a singular matrix (det 0, slogdet's sign 0 and -inf, logdet -inf), a
    negative determinant (logdet NaN), 0 x 0 matrices (det 1) and an empty
    batch; solves of vectors and matrices, from the left and the right, with
    broadcast batch dims. A singular matrix given to inv or solve is a run
    error (test/e2e/ops_linalg.test), as PyTorch raises."""

    def forward(self, a, s, b, v):
        return (torch.det(s), torch.linalg.det(a), *torch.slogdet(s), *torch.linalg.slogdet(a),
                torch.logdet(s), torch.linalg.det(s[:, :0, :0]), torch.linalg.det(s[:0]),
                torch.inverse(a), torch.linalg.inv(a[0]), *torch.linalg.inv_ex(a),
                torch.linalg.solve(a, b), torch.linalg.solve(a, v), torch.linalg.solve(a, b[0, :1].mT, left=False),
                torch.linalg.solve(a[0], b), *torch.linalg.solve_ex(a, b))


class LinalgFactorizations(nn.Module):
    """Cholesky, triangular solves, LU and matrix powers (issue 15, branch
    linalg): lower and upper Cholesky factors and solves, the _ex variants'
    info (0 here; a matrix that is not positive-definite is a run error for
    cholesky, test/e2e/ops_linalg_factor.test), solve_triangular from both
    sides with a unit diagonal, triangular_solve transposed, lu_factor of
    wide and tall matrices, lu, lu_unpack, lu_solve (adjoint and from the
    right), matrix_power of negative, zero and large powers."""

    def forward(self, a, spd, t, b, w):
        lu, piv = torch.linalg.lu_factor(a)
        return (torch.linalg.cholesky(spd), torch.cholesky(spd, upper=True),
                *torch.linalg.cholesky_ex(spd), torch.cholesky_solve(b, torch.linalg.cholesky(spd)),
                torch.cholesky_inverse(torch.linalg.cholesky(spd, upper=True), upper=True),
                torch.linalg.solve_triangular(t, b, upper=True),
                torch.linalg.solve_triangular(t, b.mT, upper=False, left=False, unitriangular=True),
                *torch.triangular_solve(b, t, upper=False, transpose=True),
                lu, piv, *torch.linalg.lu_factor_ex(w), *torch.linalg.lu_factor(w.mT),
                *torch.linalg.lu(a), *torch.linalg.lu(w), *torch.lu_unpack(lu, piv),
                torch.linalg.lu_solve(lu, piv, b), torch.linalg.lu_solve(lu, piv, b, adjoint=True),
                torch.linalg.lu_solve(lu, piv, b.mT, left=False), torch.lu_solve(b, lu, piv),
                torch.linalg.matrix_power(a, -3), torch.linalg.matrix_power(a, 0),
                torch.linalg.matrix_power(a, 6), torch.linalg.matrix_power(a, 1))


class LinalgSpectra(nn.Module):
    """Symmetric eigenvalues and singular values (issue 15, branch linalg):
    eigvalsh from either triangle (the other one holds noise) with a repeated
    eigenvalue, svdvals of square, wide and tall matrices and of a rank-1
    matrix (zeros at PyTorch's rounding)."""

    def forward(self, a, w, r):
        return (torch.linalg.eigvalsh(a), torch.linalg.eigvalsh(a.mT, UPLO="U"),
                torch.linalg.svdvals(a), torch.linalg.svdvals(w), torch.linalg.svdvals(w.mT),
                torch.linalg.svdvals(r))


class FFTRealResults(nn.Module):
    """The torch.fft operators whose results are real, on real inputs (issue
    15, branch complex): irfft/hfft with the default length, an odd one and a
    longer one (the input zero-padded), each norm; irfft2/hfft2 and the n-D
    forms with s (trimming and padding) and dims; fftshift/ifftshift over odd
    and even sizes; angle of a real tensor with zeros, negatives and NaN."""

    def forward(self, x, y, z, w):
        f = torch.fft
        return (f.irfft(x), f.irfft(x, n=7, norm="ortho"), f.irfft(x, n=12, dim=0, norm="forward"),
                f.hfft(x), f.hfft(x, n=5, norm="forward"), f.hfft(x, n=9, dim=0, norm="ortho"),
                f.irfft2(y), f.hfft2(y, s=(3, 6), norm="ortho"),
                f.irfftn(z, s=(4, -1), dim=(0, 2)), f.hfftn(z, norm="forward"),
                f.fftshift(y), f.ifftshift(y, dim=(0,)), f.fftshift(z, dim=-1),
                torch.angle(w))


class FFTComplexResults(nn.Module):
    """The torch.fft operators with complex results, and complex tensors in
    and out (issue 15, branch complex): fft/ifft/rfft/ihfft in their 1-D, 2-D
    and n-D forms with n/s (trimming and zero-padding), dims and each norm;
    complex(), polar(), a conversion to complex64; on a complex input: fft,
    irfft and hfft, real/imag, conj_physical, abs, angle, +, -, * and
    view_as_real/view_as_complex; stft with a window shorter than n_fft and
    centred (reflect padding), and a 2-D one, normalized, two-sided."""

    def forward(self, x, y, z, c, win):
        f = torch.fft
        return (f.fft(x), f.ifft(x, n=7, norm="ortho"), f.rfft(x, dim=0),
                f.ihfft(x, n=4, norm="forward"),
                f.fft2(y), f.ifft2(y, s=(3, 6)), f.rfft2(y, norm="ortho"), f.ihfft2(y),
                f.fftn(z, dim=(0, 2)), f.ifftn(z, s=(2, -1, 6)), f.rfftn(z),
                f.ihfftn(z, norm="ortho"),
                torch.complex(x, 2 * x), torch.polar(y.abs(), y), x.to(torch.complex64),
                f.fft(c), f.irfft(c), f.hfft(c, n=6, norm="ortho"),
                c.real * 1.0, c.imag * 1.0, torch.conj_physical(c), c.abs(), c.angle(),
                c * c, c + c, c - torch.view_as_complex(torch.view_as_real(c) * 0.5),
                torch.stft(x.flatten(), 8, hop_length=3, win_length=6, window=win,
                           return_complex=True),
                torch.stft(y, 4, hop_length=1, normalized=True, onesided=False, center=False,
                           return_complex=True))
class LinalgQr(nn.Module):
    """Householder QR (issue 15, branch linalg2): linalg.qr reduced and
    complete of tall, wide and batched matrices, torch.qr, geqrf, and the
    reflectors used again by householder_product and ormqr from the left and
    the right, plain and transposed. One column has nothing below its
    diagonal (LAPACK's tau = 0 there, a negative diagonal kept)."""

    def forward(self, a, t, w, c, d):
        q, r = torch.linalg.qr(a)
        qc, rc = torch.linalg.qr(t, mode="complete")
        qw, rw = torch.linalg.qr(w)
        q2, r2 = torch.qr(t)
        packed, tau = torch.geqrf(t)
        h = torch.linalg.householder_product(packed, tau)
        left = torch.ormqr(packed, tau, c, left=True, transpose=False)
        left_t = torch.ormqr(packed, tau, c, left=True, transpose=True)
        right = torch.ormqr(packed, tau, d, left=False, transpose=False)
        right_t = torch.ormqr(packed, tau, d, left=False, transpose=True)
        return (q, r, qc, rc, qw, rw, q2, r2, packed, tau, h, left, left_t, right, right_t)


class LinalgSvd(nn.Module):
    """Singular value and symmetric eigen-decompositions (issue 15, branch
    linalg2). Vectors are unique only up to sign, so the outputs that hold
    them are sign-free: each vector squared elementwise, the outer product of
    the first left and right singular vectors (one sign for both), and the
    reconstructions U diag(S) Vh and V diag(L) V^T. Then what uses them:
    pinv (plain, with rtol, hermitian), pinverse, matrix_rank (of a rank-2
    matrix too, and hermitian), cond, and the matrix norms 2, -2 and nuc."""

    def forward(self, a, w, s, low):
        u, sv, vh = torch.linalg.svd(a, full_matrices=False)
        uw, sw, vhw = torch.linalg.svd(w, full_matrices=False)
        u2, s2, v2 = torch.svd(a)
        vals, vecs = torch.linalg.eigh(s)
        vals_u, vecs_u = torch.linalg.eigh(s, UPLO="U")
        return (u * u, sv, vh * vh, u[..., :, :1] * vh[..., :1, :],
                uw @ torch.diag_embed(sw) @ vhw, uw[..., :, :1] * vhw[..., :1, :], sw,
                u2[..., :, :1] * v2[..., :, :1].mT, s2,
                vals, vecs * vecs, vecs @ torch.diag_embed(vals) @ vecs.mT, vals_u,
                vecs_u * vecs_u,
                torch.linalg.pinv(a), torch.linalg.pinv(w), torch.linalg.pinv(a, rtol=0.3),
                torch.linalg.pinv(s, hermitian=True), torch.pinverse(w.mT),
                torch.linalg.pinv(low),
                torch.linalg.matrix_rank(a), torch.linalg.matrix_rank(low),
                torch.linalg.matrix_rank(s, hermitian=True),
                torch.linalg.cond(a), torch.linalg.cond(w, -2),
                torch.linalg.matrix_norm(a, 2), torch.linalg.matrix_norm(w, -2),
                torch.linalg.matrix_norm(a, "nuc"), torch.linalg.norm(w, "nuc"))


class LinalgProducts(nn.Module):
    """Linear algebra without factorizations (issue 15, branch linalg2):
    kron, tensordot, linalg.multi_dot with vector ends, cross (its first
    dim of size 3) and linalg.cross broadcast, linalg.vander, block_diag
    of a scalar, a vector and matrices, and .H."""

    def forward(self, a, b, v, x, y):
        return (torch.kron(a, b), torch.tensordot(x, y, dims=([1, 0], [0, 2])),
                torch.tensordot(a, b, dims=1),
                torch.linalg.multi_dot([v, a, b, b.mT, a.mT, v]),
                torch.linalg.multi_dot([a, b, b.mT]),
                torch.cross(x[:, :, :1].expand(2, 3, 4), x), torch.linalg.cross(y.permute(1, 2, 0), y.permute(1, 2, 0)[:1]),
                torch.linalg.vander(v), torch.linalg.vander(x[0], N=5),
                torch.block_diag(v[0], v, a, b), a.H)


class IntegerOps(nn.Module):
    """Integer clamps (they were refused: "activation on a non-floating-point
    tensor"), integer remainders and floor/trunc divisions (refused before)
    with a divisor of -1 and the most negative dividend (x86's division traps
    there, and by zero: tcc's remainder once killed the process with SIGFPE;
    a zero divisor is now a run error, test/e2e/integer_ops.test)."""

    def forward(self, x, y):
        # (PyTorch's own trunc division of the most negative int64 by -1
        # dies of SIGFPE, hence |y| + 1 there.)
        return (x.clamp(-5, 7), x.clamp_min(-3), torch.nn.functional.hardtanh(x.int(), -2, 2),
                torch.remainder(x, y), torch.fmod(x, y), x % 3, x // y,
                torch.div(x, y.abs() + 1, rounding_mode="trunc"),
                torch.div(x.int(), -3, rounding_mode="floor"))


class MixedDtypeConcat(nn.Module):
    """cat, stack, hstack and column_stack of tensors of different dtypes
    (the forms of a peer project's suite, issue 39): PyTorch promotes them
    to one dtype (torch.result_type), bool/int32/int64 to int64, uint8 with
    int8 to int16, float64/float32/float16 to float64."""

    def forward(self, b, i32, i64, u8, i8, f32, f64, f16):
        return (torch.cat([b, i32, i64], dim=-2), torch.stack([b, i32, i64], dim=-2),
                torch.hstack([i32, f64]), torch.column_stack([b, i32, i64]),
                torch.cat([u8, i8]), torch.cat([f64, f32, f16], 1), torch.stack([f16, i64]),
                torch.cat([b, f32], -1))


class IntegerScatterActivations(nn.Module):
    """Integer element types where tcc took floats only (issue 39):
    scatter_reduce of every reduction (an integer mean floors), index_put
    with accumulate, index_add, and activations of integer tensors (relu6
    and threshold keep the type; sigmoid, tanh, exp and sqrt of integers are
    float32, as is a clamp with float bounds)."""

    def forward(self, s, idx, src, put_idx, put_v, x):
        return (s.scatter_reduce(0, idx, src, "sum"), s.scatter_reduce(0, idx, src, "prod"),
                s.scatter_reduce(0, idx, src, "amax", include_self=False),
                s.scatter_reduce(0, idx, src, "amin"),
                s.scatter_reduce(0, idx, src, "mean"),
                s.scatter_reduce(0, idx, src, "mean", include_self=False),
                torch.index_put(s, (put_idx,), put_v, accumulate=True),
                s.int().index_add(0, put_idx, put_v.int()),
                F.relu(x), F.relu6(x), F.threshold(x.int(), 1, 5), torch.sigmoid(x),
                F.hardtanh(x, -2, 3), torch.tanh(x.int()), torch.exp(x), torch.sqrt(x.abs()),
                x.clamp(-1.5, 2.5))


class ConstantOutputs(nn.Module):
    """Outputs that are constants of the export (issue 39): a tensor built in
    forward, a buffer returned as it is, and Python numbers (int, float and
    bool; tcc returns them as rank-0 int64, float64 and bool tensors)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.arange(6.0).reshape(2, 3))

    def forward(self, x):
        return x + 1, torch.tensor([1.0, 2.0, 3.0]), self.table, 7, 2.5, True, -(2**62) - 3


class ItemScalars(nn.Module):
    """.item() values flowing into the graph and out of it (issue 39): a
    float from a sum scales a tensor, an int from a tensor shifts one, Python
    arithmetic on them, and the numbers themselves as outputs."""

    def forward(self, x, y, n):
        s = y.sum().item()
        k = n.item()
        return x * s, x + k, x * (k + 1), k, s * 2.0, (k - 7) // 2, s / 4


class CheckedItem(nn.Module):
    """torch._check on an .item() value (issue 39): the export records each
    check as aten._assert_scalar, which its program evaluates on every call;
    so must tcc's compiled code (the call fails where PyTorch raises)."""

    def forward(self, x, n):
        k = n.item()
        torch._check(k > 0)
        torch._check(k <= 100)
        return x * k


class CheckedItemSized(nn.Module):
    """torch._check comparing an .item() value with an input's symbolic
    size (issue 39): with the size itself, evaluated on every call (the size
    read as a tensor); with an expression of sizes (x.shape[0] // 4), not
    evaluated: the compile warns and the manifest lists it as not enforced."""

    def forward(self, x, n):
        k = n.item()
        torch._check(k <= x.shape[0])
        torch._check(k >= x.shape[0] // 4)
        return x * k


class RandomOps(nn.Module):
    """rand, randn_like, randint, bernoulli (issue 39's long tail): tcc's
    numbers differ from PyTorch's generator, so the model returns statistics
    of 65536 draws each, which the test compares with PyTorch's within their
    sampling error. Outputs: uniform [mean, 6 var, min, max]; normal [mean,
    var, mean |z|]; randint(3, 10) [mean, min, max]; bernoulli [mean(b - p),
    mean of bernoulli(x, 0.25)]."""

    def forward(self, x, p):
        x = x.expand(256, 256)
        u = torch.rand(256, 256)
        n = torch.randn_like(x)
        r = torch.randint(3, 10, (256, 256))
        b = torch.bernoulli(p.expand(256, 256))
        q = x.bernoulli(0.25)
        uniform = torch.stack([u.mean(), 6 * u.var(), u.min(), u.max()])
        normal = torch.stack([n.mean(), n.var(), n.abs().mean()])
        # min/max of the floats: tcc's max/min reductions take floats only.
        rf = r.float()
        integers = torch.stack([rf.mean(), rf.min(), rf.max()])
        coins = torch.stack([(b - p).mean(), q.mean()])
        return uniform, normal, integers, coins


class AtenInternalOps(nn.Module):
    """Operators the eager dispatcher and TorchScript name (issue 39):
    _convolution (both overloads, plain and transposed), nll_loss_forward
    (loss and total weight), tril_indices/triu_indices, _index_put_impl_ and
    prims.collapse."""

    def forward(self, x, w, bias, wt, logp, target, cls_w, s, i, v, y):
        conv = torch.ops.aten._convolution(x, w, bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                           False, False, False, False)
        conv_old = torch.ops.aten._convolution.deprecated(x, w, None, [2, 2], [0, 0], [1, 1],
                                                          False, [0, 0], 1, False, False, False)
        conv_t = torch.ops.aten._convolution(x, wt, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1,
                                             False, False, False, False)
        loss, total = torch.ops.aten.nll_loss_forward(logp, target, cls_w, 1, 2)
        loss_none, total_none = torch.ops.aten.nll_loss_forward(logp, target, None, 0, -100)
        loss_sum, total_sum = torch.ops.aten.nll_loss_forward(logp, target, cls_w, 2, 1)
        tril = torch.tril_indices(4, 3, 1)
        triu = torch.triu_indices(3, 4, -1, dtype=torch.int32)
        put = s.clone()
        torch.ops.aten._index_put_impl_(put, (i,), v, True, False)
        return (conv, conv_old, conv_t, loss, total, loss_none, total_none, loss_sum, total_sum,
                tril + y[0, 0, 0, 0].long(), triu, put, torch.ops.prims.collapse(y, 1, 3))


class CreationMore(nn.Module):
    """linspace (one step too) and logspace, eye, flip, fmax/fmin with NaN."""

    def forward(self, x, y):
        return (torch.linspace(-2.0, 3.0, 7) + x[0, 0], torch.linspace(-2.0, 3.0, 1) + x[0, 0],
                torch.logspace(-1.0, 2.0, 5, base=2.0) + x[0, 0], torch.eye(3, 5) + x[0, 0],
                torch.flip(x, [0, 1]), torch.fmax(x, y), torch.fmin(x, y))


class SdpaMaskedRows(nn.Module):
    """scaled_dot_product_attention with bool masks that block every key for
    some query rows (PyTorch gives those rows 0): a per-head mask, a 2-D mask
    broadcast over batch and heads with a scale, grouped-query heads."""

    def forward(self, q, k, v, m4, m2, k2, v2):
        return (F.scaled_dot_product_attention(q, k, v, attn_mask=m4),
                F.scaled_dot_product_attention(q, k, v, attn_mask=m2, scale=0.3),
                F.scaled_dot_product_attention(q, k2, v2, attn_mask=m4, enable_gqa=True))


class VarFarFromZero(nn.Module):
    """var/std with corrections on values in [100, 101]: a million values
    (the outer sum of two inputs, so the fixture stays small) whole, by rows
    and by columns, their sum and mean; and rows of c in f16 and bf16
    (PyTorch computes those in f32)."""

    def forward(self, a, b, c):
        big = a[:, None] + b[None, :]                      # [1000, 1000] in [100, 101]
        return (torch.var(big, correction=1), torch.std(big, dim=1, correction=2),
                torch.var_mean(big, dim=0, correction=0)[0], big.sum(), big.mean(dim=(0, 1)),
                torch.var(c.half(), dim=1, correction=1),
                torch.std_mean(c.bfloat16(), dim=-1)[0].float())


class ConvHalf(nn.Module):
    """conv2d in f16 (bias, padding, 64 input channels: 576 products per
    output; strided and grouped without bias) and in bf16, which PyTorch
    accumulates in f32 and rounds once."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(64, 32, 3, padding=1).half()
        self.c2 = nn.Conv2d(64, 32, 3, stride=2, groups=4, bias=False).half()
        self.c3 = nn.Conv2d(64, 16, 3).bfloat16()

    def forward(self, x):
        return self.c1(x), self.c2(x), self.c3(x.bfloat16()).float()


class AsStridedViews(nn.Module):
    """as_strided addresses the storage under its input: on a permute, a
    transpose, a slice with a storage offset (offset given and inherited), a
    nested as_strided with an explicit offset, a channels_last input, and a
    transposed parameter. tcc once read the view's elements in row-major
    order instead."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 6))

    def forward(self, x, y, z):
        a = torch.as_strided(x.permute(0, 2, 1), (3, 4), (1, 3))
        b = torch.as_strided(y.t(), (2, 5), (5, 1), 2)
        c = torch.as_strided(y[1:], (2, 3), (4, 1))
        d = torch.as_strided(torch.as_strided(y, (4, 4), (4, 1), 1), (2, 3), (2, 1), 3)
        e = torch.as_strided(z, (2, 3, 8), (48, 1, 3))
        f = torch.as_strided(self.w.t(), (3, 3), (2, 5)) * 2
        g = torch.as_strided(x.transpose(1, 2)[:, 1:], (2, 5), (12, 2), 3)
        return a, b, c, d, e, f, g


class AsStridedPastView(nn.Module):
    """as_strided on an input that is itself a view with holes (every other
    column): it reads storage no tensor of the graph holds, which tcc
    refuses with a message rather than guess."""

    def forward(self, x):
        return torch.as_strided(x, (4,), (1,)) + 1


class LmHeadUnaligned(nn.Module):
    """A tied LM head over a vocabulary whose rows are not a multiple of 16
    bytes (4101 logits: 8202 bytes in bf16), after a layer norm: on the GPU
    the product is written into padded rows and copied out."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(64)
        self.head = nn.Linear(64, 4101, bias=False)

    def forward(self, x):
        return self.head(self.norm(x))


class DerivedWeights(nn.Module):
    """Arithmetic on weights alone, which tcc computes once per binding of
    the weights (derived weights, tcc-hoist-weight-expressions): a batch
    norm's scale and shift, and convolution weights scaled per output
    channel in forward (batch norm folded into them, W * gain[F, 1, 1, 1])."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.w2 = nn.Parameter(torch.randn(6, 8, 3, 3) * 0.2)
        self.gain = nn.Parameter(torch.rand(6) + 0.5)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return F.conv2d(h, self.w2 * self.gain.reshape(-1, 1, 1, 1), padding=1)


def write_derived_weights_case(out):
    """derived_weights: the export with its own weights (expected_0.npy), and
    new values for the batch norm's weight and running variance and for the
    gain (rebound/<name>.npy), which a test binds at run time: PyTorch's
    output with them is expected_rebound_0.npy."""
    name = "derived_weights"
    if ONLY and name != ONLY:
        return
    torch.manual_seed(67)
    model = DerivedWeights()
    model.bn.running_mean.uniform_(-0.5, 0.5)
    model.bn.running_var.uniform_(0.5, 2.0)
    model.bn.weight.data.uniform_(0.5, 1.5)
    model.bn.bias.data.uniform_(-0.2, 0.2)
    x = torch.randn(2, 3, 8, 8)
    write_case(out, name, model, [x])
    d = os.path.join(out, name)
    rebound = {"bn.weight": torch.rand(8) * 2 - 1, "bn.running_var": torch.rand(8) * 3 + 0.1,
               "gain": torch.rand(6) * 2 - 1}
    os.makedirs(os.path.join(d, "rebound"), exist_ok=True)
    state = model.state_dict()
    for k, v in rebound.items():
        state[k] = v
        save_npy(os.path.join(d, "rebound", f"{k}.npy"), v)
    model.load_state_dict(state)
    with torch.no_grad():
        save_npy(os.path.join(d, "expected_rebound_0.npy"), model(x))
    print(f"wrote {d} rebound weights")


class SwapaxesClampOneSide(nn.Module):
    """Operators real architectures stopped at (issue 15): swapaxes
    (MaxViT), swapdims, clamp_min (Swin V2's logit scale) and clamp_max."""

    def forward(self, x):
        return (torch.swapaxes(x, 1, -1) * 2, torch.swapdims(x, 0, 2) + 1,
                x.clamp_min(0.1), x.clamp_max(-0.2))


class NormsZeroDeadDraw(nn.Module):
    """What Swin V2 and wav2vec2 stopped at (issue 15): F.normalize and
    vector norms (aten.linalg_vector_norm, ord 2, 1, inf, 3), a weight-normed
    convolution (aten._weight_norm), zero_ on a clone (aten.zero), and a
    random draw nobody reads (wav2vec2's LayerDrop in eval mode)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(4, 6, 3, padding=1), dim=2)

    def forward(self, x, s):
        unused = torch.rand(1)  # noqa: F841 (dropped, not refused)
        z = s.clone()
        z.zero_()
        return (nn.functional.normalize(x, dim=-1),
                torch.linalg.vector_norm(x, ord=1, dim=(0, 2)),
                torch.linalg.vector_norm(x, ord=float("inf"), dim=1, keepdim=True),
                torch.linalg.vector_norm(x, ord=3),
                self.conv(x.transpose(1, 2)),
                z + s)


def write_whisper_bf16_case(out):
    """A bf16 Whisper encoder (two conv1d with GELU, attention layers): it
    once compiled to a model.so that could not load (a generated CPU kernel
    called __truncsfbf2, which libgcc 12 lacks; issue 15)."""
    if ONLY and ONLY != "whisper_encoder_bf16":
        return  # (transformers is needed for this case alone)
    from transformers import WhisperConfig, WhisperModel
    cfg = WhisperConfig(d_model=64, encoder_layers=2, decoder_layers=1, encoder_attention_heads=4,
                        decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                        num_mel_bins=16, max_source_positions=50)
    torch.manual_seed(68)
    encoder = WhisperModel(cfg).encoder.eval().to(torch.bfloat16)

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = encoder

        def forward(self, features):
            return self.encoder(features).last_hidden_state

    write_case(out, "whisper_encoder_bf16", Encoder(), [torch.randn(1, 16, 100).bfloat16()])


def write_wrong_answer_cases(out):
    torch.manual_seed(60)
    x = torch.cat([torch.linspace(-4, 4, 33), torch.randn(31) * 2]).reshape(4, 16)
    write_case(out, "elu_scaled", EluScaled(), [x])

    torch.manual_seed(61)
    m4 = torch.rand(2, 4, 5, 6) > 0.4
    m4[0, :, 1] = False   # query 1 of every head keeps no key
    m4[1, 2] = False      # a whole head keeps nothing
    m4[1, 3, 4] = False
    m2 = torch.rand(5, 6) > 0.5
    m2[2] = False
    write_case(out, "sdpa_masked_rows", SdpaMaskedRows(),
               [torch.randn(2, 4, 5, 8), torch.randn(2, 4, 6, 8), torch.randn(2, 4, 6, 8), m4, m2,
                torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8)])

    torch.manual_seed(62)
    write_case(out, "var_far_from_zero", VarFarFromZero(),
               [torch.rand(1000) * 0.99 + 100, torch.rand(1000) * 0.01,
                torch.rand(64, 256) + 100])

    torch.manual_seed(63)
    write_case(out, "conv2d_half", ConvHalf(), [torch.randn(2, 64, 12, 12).half()])

    torch.manual_seed(64)
    write_case(out, "as_strided_views", AsStridedViews(),
               [torch.randn(2, 3, 4), torch.randn(5, 4),
                torch.randn(2, 3, 4, 4).to(memory_format=torch.channels_last)])
    write_case(out, "as_strided_past_view", AsStridedPastView(), [torch.randn(4, 8)[:, ::2]])

    torch.manual_seed(66)
    write_case(out, "swapaxes_clamp_one_side", SwapaxesClampOneSide(), [torch.randn(2, 3, 4)])

    torch.manual_seed(67)
    write_case(out, "norms_zero_dead_draw", NormsZeroDeadDraw(),
               [torch.randn(2, 5, 4), torch.randn(3, 2)])

    write_whisper_bf16_case(out)

    torch.manual_seed(69)
    x = torch.randn(6, 8) * 4
    x[0, :4] = torch.tensor([0.5, 1.5, 2.5, -2.5])  # halves round to even
    write_case(out, "math_ops", MathOps(),
               [x, torch.randn(6, 8) + 0.1, torch.rand(6, 8) * 1.8 - 0.9])

    torch.manual_seed(70)
    x = torch.randn(4, 6) + 1
    x[2, 3] = x[2].max()  # a tie: the first position wins
    write_case(out, "reductions_more", ReductionsMore(),
               [x, torch.tensor([[1.0, float("nan"), -3.0], [2.0, -5.0, -5.0]]),
                torch.rand(3, 5) > 0.3, torch.zeros(2, 0, dtype=torch.bool)])

    torch.manual_seed(71)
    z = torch.randn(4, 5) * 10
    z[1] = float("-inf")
    z[2, 3] = float("inf")
    write_case(out, "shapes_more", ShapesMore(), [torch.randn(2, 3), torch.randn(3), z])

    torch.manual_seed(151)
    x, y = torch.randn(4, 6), torch.randn(4, 6)
    y[0, 0] = 0.2  # x / y.round() divides by zero: inf, -inf and (with x 0) NaN
    x[1, 1], y[1, 1] = 0.0, -0.3
    rows = torch.randn(3, 5)
    rows[1] = float("-inf")  # a row that _safe_softmax sets to 0
    write_case(out, "ops_sweep_more", OpsSweepMore(),
               [x, y, torch.rand(4, 6) * 0.98 + 0.01, (torch.rand(4, 6) > 0.5).float(),
                torch.randint(0, 2, (4, 6)).float() * 2 - 1, torch.randn(2, 3, 4, 5), rows,
                torch.tensor([0, 2, 5, 3])])

    torch.manual_seed(152)
    pooled, pidx = F.max_pool2d(torch.randn(2, 3, 5, 6), 2, return_indices=True)
    pooled1, pidx1 = F.max_pool1d(torch.randn(2, 7), 3, return_indices=True)
    write_case(out, "ops_sweep_families", OpsSweepFamilies(),
               [torch.randn(4, 5), torch.tensor([[0, 3, 1, 3, 2], [2, 0, 0, 1, 3], [1, 3, 2, 0, 0]]),
                torch.randn(3, 5), torch.randn(3, 6), torch.tensor([4, 0, 2, 4, 1]), torch.randn(3, 5),
                pooled, pidx, pooled1, pidx1, torch.randn(3, 4), torch.randn(4), torch.randn(2, 3, 4, 5),
                torch.tensor([[float("nan"), 1.0, float("inf")], [2.0, float("-inf"), 3.0], [0.0, 1.0, 2.0]])])

    torch.manual_seed(153)
    x = torch.linspace(-8.5, 8.5, 24).reshape(4, 6)
    x[0, :5] = torch.tensor([0.0, -0.0, -3.0, float("nan"), float("inf")])
    x[3, 5] = float("-inf")
    write_case(out, "ops_special", OpsSpecial(),
               [x, torch.rand(3, 4) * 6 + 2.1,
                torch.tensor([[0.5], [1.0], [2.0], [3.0], [4.5]]),
                torch.tensor([[-2.0, -1.5, 0.3, 1.0, 2.5, 8.0]]),
                torch.tensor([[-1.0], [-0.7], [0.0], [0.3], [1.0], [2.5]]),
                torch.tensor([[-1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 7.6, 9.0, 12.0]])])

    torch.manual_seed(154)
    x1 = torch.randn(2, 3, 9).round()  # rounding makes ties
    x1[0, 0, 2] = x1[0, 0, 5] = float("nan")
    x1[1, 1] = float("-inf")
    x2 = torch.randn(2, 2, 7, 8).round()
    x2[0, 0, 1, 1] = x2[0, 0, 2, 2] = float("nan")
    x2[1, 1] = float("-inf")
    x3 = torch.randn(1, 2, 5, 6, 5).round()
    x3[0, 1, 2, 3, 1] = float("nan")
    write_case(out, "pool_indices", PoolIndices(), [x1, x2, x3])

    torch.manual_seed(158)
    g = torch.rand(2, 4, 6, 2) * 7 - 3.5
    g[0, 0, :5] = torch.tensor([[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0], [-1.0, 1.0], [1.0, -1.0]])
    write_case(out, "grid_sample_2d", GridSample2d(), [torch.randn(2, 3, 5, 7), g])

    torch.manual_seed(159)
    g = torch.rand(2, 3, 4, 5, 3) * 7 - 3.5
    g[0, 0, 0, :3] = torch.tensor([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    write_case(out, "grid_sample_3d", GridSample3d(), [torch.randn(2, 3, 4, 5, 6), g])

    torch.manual_seed(160)
    tiny = float(torch.finfo(torch.float32).tiny)
    big = float(torch.finfo(torch.float32).max)
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([1.0, 1.0, 2.0, -4.0, 0.0, -0.0, 0.0, tiny, tiny, tiny / 8, -tiny / 8, big,
                      big, inf, -inf, nan, 1.5, 3.0, 0.1, -7.25])
    y = torch.tensor([2.0, 0.0, -1.0, 0.0, 1.0, -1.0, -0.0, 0.0, 1.0, 0.0, 1.0, inf, 0.0, 0.0,
                      0.0, 1.0, nan, 3.0, -5.0, 9.0])
    x = torch.cat([x, torch.randn(12) * 100])
    y = torch.cat([y, torch.randn(12) * 100])
    write_case(out, "nextafter", NextAfter(), [x, y])

    torch.manual_seed(160)
    x = torch.linspace(-9.5, 9.5, 40)
    x[:12] = torch.tensor([0.0, -0.0, 1e-6, -1e-6, 5.0, -5.0, 2.0, 8.0, float("nan"),
                           float("inf"), float("-inf"), 4.99])
    p = torch.tensor([0.0, 1.0, 0.5, 1e-30, 1e-10, 0.1353, 0.1354, 0.8646, 0.8647, 0.99999,
                      -0.1, 1.1, float("nan"), 0.02, 0.3, 0.7, 0.97, 3e-14, 1e-14, 0.999])
    p[3] = 1e-40  # a float32 subnormal (for frexp)
    e = torch.cat([torch.tensor([0.0, 1.0, -1.0, 0.7, -0.7, 0.71, 0.999, -0.9999, 1.5, -2.0,
                                 float("nan"), 1e-8]), torch.rand(20) * 2 - 1])
    z = torch.cat([torch.tensor([-30.0, -26.0, -10.0, -6.2, -6.0, -1.0, -1.01, -0.99, 0.0,
                                 1e-7, 3.0, 25.9, 26.1, 49.0, 51.0, 6e7, float("inf"),
                                 float("-inf"), float("nan")]), torch.randn(13) * 4])
    pairs = [(0.0, 1.0), (0.0, 0.0), (1.0, 0.0), (-1.0, 2.0), (2.0, -1.0), (float("inf"), 3.0),
             (float("inf"), float("inf")), (3.0, float("inf")), (float("nan"), 1.0),
             (0.5, 0.3), (2.0, 0.3), (0.2, 0.8), (3.0, 0.8), (0.5, 1.05), (4.0, 1.05),
             (1.5, 1.05), (0.7, 1.2), (5.0, 3.0), (2.0, 7.0), (9.0, 8.5), (25.0, 24.0),
             (25.0, 30.0), (60.0, 59.0), (150.0, 140.0), (150.0, 60.0), (250.0, 255.0),
             (1000.0, 1010.0), (1e4, 1e4 + 30.0), (1e6, 1e6 - 500.0), (30.0, 5.0),
             (5.0, 40.0), (1e-3, 1e-3), (1e-3, 5.0), (300.0, 100.0), (100.0, 300.0)]
    a = torch.tensor([q[0] for q in pairs])
    g = torch.tensor([q[1] for q in pairs])
    m = (torch.randn(3, 4, 9) * 1.5).round()
    m[0, 0] = torch.tensor([2.0, -1.0, 2.0, -1.0, 5.0, 0.0, 3.0, 3.0, 7.0])
    gx = torch.randn(4, 6)
    c0 = torch.rand(4).cumsum(0) + 0.1
    c1 = torch.rand(6).cumsum(0) + 0.1
    write_case(out, "ops_special_tail", OpsSpecialTail(), [x, p, e, z, a, g, m, gx, c0, c1])

    torch.manual_seed(157)
    h = torch.randn(4, 6)
    h[0, :6] = torch.tensor([-1.0, -0.5, 0.5, 1.0, float("nan"), float("inf")])
    h[1, 0] = float("-inf")
    write_case(out, "unfold_diagonal_histc", UnfoldDiagonalHistc(),
               [torch.randn(2, 3, 5, 6), torch.randn(6, 5), torch.randn(4), torch.randn(3),
                torch.randn(3, 2), h])

    torch.manual_seed(156)
    x = torch.randn(4, 3, 5, 6) * 3 + 1
    x[:, 1] = 2.5  # one value in a channel: variance 0, invstd 1 / sqrt(eps)
    write_case(out, "batch_norm_batch_stats", BatchNormBatchStats(),
               [x, torch.randn(5, 4, 7), torch.randn(2, 4, 3, 2, 3)])

    torch.manual_seed(155)
    write_case(out, "convolutions_3d", Convolutions3d(),
               [torch.randn(2, 4, 5, 6, 7), torch.randn(3, 4, 9)])

    torch.manual_seed(72)
    write_case(out, "empty_tensors", EmptyTensors(), [torch.randn(3, 4), torch.zeros(0, 4)])

    torch.manual_seed(73)
    write_case(out, "dense_block", DenseBlock(), [torch.randn(2, 8, 12, 12)])

    torch.manual_seed(74)
    x = torch.randn(3, 4)
    y = torch.randn(3, 4)
    x[0, 1] = y[1, 2] = float("nan")
    x[2, 3] = y[2, 3] = float("nan")
    write_case(out, "creation_more", CreationMore(), [x, y])

    torch.manual_seed(68)
    write_case(out, "sweep_wrong_answers", SweepWrongAnswers(),
               [torch.randn(4, 6) * 3, torch.randn(()),
                torch.tensor([[1.0, float("nan"), 3.0, float("nan")], [2.0, 5.0, -1.0, 0.5],
                              [float("nan")] * 4])])

    torch.manual_seed(65)
    write_case(out, "lm_head_unaligned", LmHeadUnaligned().to(torch.bfloat16),
               [torch.randn(2, 8, 64).bfloat16()])

    torch.manual_seed(75)
    write_case(out, "dense_stem", DenseStem(), [torch.randn(2, 3, 16, 16)])

    torch.manual_seed(76)
    write_case(out, "depthwise_blocks", DepthwiseBlocks(), [torch.randn(2, 12, 28, 28)])

    torch.manual_seed(77)
    write_case(out, "convnext_blocks", ConvNeXtBlocks(), [torch.randn(2, 3, 32, 32)])

    torch.manual_seed(78)
    image = torch.randint(0, 256, (2, 3, 4, 5), dtype=torch.uint8)
    image[0, 0, 0, :3] = torch.tensor([0, 128, 255], dtype=torch.uint8)
    x = torch.randn(4, 6) * 200
    x[0, :4] = torch.tensor([-1.5, 255.9, 256.0, -300.0])
    write_case(out, "uint8_conversions", Uint8Conversions(), [image, x])

    torch.manual_seed(79)
    a = torch.randint(0, 256, (3, 8), dtype=torch.uint8)
    b = torch.randint(0, 256, (3, 8), dtype=torch.uint8)
    a[0, :4] = torch.tensor([0, 127, 128, 255], dtype=torch.uint8)
    b[0, :4] = torch.tensor([1, 128, 127, 255], dtype=torch.uint8)
    write_case(out, "uint8_arithmetic", Uint8Arithmetic(), [a, b])

    x = torch.tensor([[-(2**63), -7, -1, 0, 5, 9, 2**62, 100]])
    y = torch.tensor([[-1, 3, -4, 7, -1, 4, 5, -3]])
    write_case(out, "integer_ops", IntegerOps(), [x, y])

    torch.manual_seed(80)
    write_case(out, "float64_products", Float64Products(),
               [torch.randn(4, 8, dtype=torch.float64), torch.randn(2, 3, 6, dtype=torch.float64)])

    write_two_dynamic_dims(out)
    write_spatial_dynamic(out)
    write_symbolic_pooling(out)
    write_dynamic_tail(out)
    write_spatial_transformer(out)
    write_integer_sums(out)
    write_relative_position_index(out)
    write_symbolic_window_guards(out)
    write_recurrent_cases(out)

    torch.manual_seed(81)
    a = torch.randn(2, 3, 4, 4) + 3 * torch.eye(4)
    s = torch.randn(4, 3, 3)
    s[0, :, 1] = 0.0  # singular: a zero column
    s[1] = torch.tensor([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [0.0, 0.0, 0.0]])  # a zero row
    s[2] = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])  # det -2
    write_case(out, "ops_linalg", LinalgDeterminants(),
               [a, s, torch.randn(2, 3, 4, 2), torch.randn(2, 3, 4)])

    torch.manual_seed(82)
    a = torch.randn(2, 4, 4) + 2 * torch.eye(4)
    a[1, 0] = torch.tensor([0.5, -2.0, 1.0, 0.25])  # the first pivot swaps rows
    m = torch.randn(2, 4, 4)
    spd = m @ m.mT + 0.5 * torch.eye(4)
    t = torch.randn(2, 4, 4) + 4 * torch.eye(4)
    write_case(out, "ops_linalg_factor", LinalgFactorizations(),
               [a, spd, t, torch.randn(2, 4, 3), torch.randn(3, 5)])

    torch.manual_seed(83)
    a = torch.randn(3, 4, 4)
    a[2] = torch.diag(torch.tensor([2.0, -1.0, 2.0, 0.5]))  # a repeated eigenvalue
    a[2, 1, 0] = 0.25
    v = torch.randn(2, 4, 1)
    write_case(out, "ops_linalg_spectra", LinalgSpectra(),
               [a, torch.randn(2, 3, 5), v @ v.mT])

    torch.manual_seed(84)
    w = torch.randn(2, 5)
    w[0, :4] = torch.tensor([0.0, -0.0, -2.0, float("nan")])
    write_case(out, "ops_fft_real", FFTRealResults(),
               [torch.randn(6, 5), torch.randn(4, 5), torch.randn(3, 4, 5), w])

    torch.manual_seed(85)
    write_case(out, "ops_fft_complex", FFTComplexResults(),
               [torch.randn(6, 5), torch.randn(4, 5), torch.randn(3, 4, 5),
                torch.randn(3, 4, dtype=torch.complex64), torch.hann_window(6)])

    torch.manual_seed(84)
    a = torch.randn(2, 5, 3)
    t = torch.randn(6, 4)
    t[2:, 1] = 0.0  # nothing below the diagonal in column 1: tau = 0
    t[1, 1] = -0.5
    write_case(out, "ops_linalg_qr", LinalgQr(),
               [a, t, torch.randn(3, 5), torch.randn(6, 3), torch.randn(2, 6)])

    torch.manual_seed(85)
    m = torch.randn(2, 5, 5)
    sym = m + m.mT
    sym[1].triu_(1).add_(torch.randn(5, 5).tril())  # the upper triangle differs
    r = torch.randn(2, 2, 4)
    low = torch.cat([r, 2 * r, r[:, :1]], dim=1)  # rank 2 exactly: repeated rows
    write_case(out, "ops_linalg_svd", LinalgSvd(),
               [torch.randn(2, 5, 4), torch.randn(3, 6), sym, low])

    torch.manual_seed(86)
    write_case(out, "ops_linalg_products", LinalgProducts(),
               [torch.randn(3, 4), torch.randn(4, 2), torch.randn(3), torch.randn(2, 3, 4),
                torch.randn(3, 4, 2)])


class IndexingTail(nn.Module):
    """Data movement whose positions are data or known when compiling:
    index_put (set, accumulate, a boolean mask, two indices apart), _unsafe_masked_index and
    its accumulating put, masked_scatter, nonzero_static (padded with
    fill_value), as_strided_scatter / as_strided_copy, gather and
    index_select on a 0-d tensor, cartesian_prod, _chunk_cat and
    segment_reduce by lengths and by offsets, embedding_bag (mean with a
    padding row, sum with per_sample_weights and include_last_offset).
    (combinations exports with an
    unbacked result size, which no input binds: its lit test covers it.)"""

    def forward(self, x, idx, rows, mask, src, lengths, offsets, scalar):
        a = torch.ops.aten
        put = a.index_put(x, [idx], src[: idx.numel(), : x.shape[1]], False)
        acc = a.index_put(x, [idx], src[: idx.numel(), : x.shape[1]], True)
        mask_put = a.index_put(x, [mask[:, 0]], src[0, : x.shape[1]], True)
        apart = a.index_put(x.unsqueeze(1).expand(4, 3, 6).contiguous(), [rows, None, idx[:2]],
                            torch.ones(2, 3), True)
        masked_read = a._unsafe_masked_index(x, mask[:, None, :], [idx.clamp(-1, 7).unsqueeze(1), None], 0.5)
        masked_put = a._unsafe_masked_index_put_accumulate(
            x, mask[:3], [idx[:3] + 2], src[:3, : x.shape[1]])
        scattered = x.masked_scatter(mask, src * 10)
        nz = torch.nonzero_static(x > 0.3, size=12, fill_value=-7)
        strided = a.as_strided_scatter(x, src[:2, :3] * 100, (2, 3), (6, 2), 1)
        copied = a.as_strided_copy(x, (3, 2), (1, 6), 2)
        g0 = torch.gather(scalar, 0, torch.tensor([0, 0]))
        s0 = torch.index_select(scalar, 0, torch.tensor([0]))
        prod = torch.cartesian_prod(x[0, :3], x[1, :2], x[2, :2])
        chunked = a._chunk_cat([x, src[:4, :5]], 1, 3)
        seg_max = torch.segment_reduce(x[:, 0].repeat(2), "max", lengths=lengths, initial=0.25)
        seg_mean = torch.segment_reduce(x.repeat(2, 1), "mean", lengths=lengths)
        seg_sum = torch.segment_reduce(x[:, 1].repeat(2), "sum", offsets=offsets)
        seg_min = torch.segment_reduce(x[:, 2].repeat(2), "min", offsets=offsets)
        bag_ids = (idx.repeat(2) + 2) % 4
        bag_mean = F.embedding_bag(bag_ids, x, offsets[:3], mode="mean", padding_idx=-1)
        bag_sum = F.embedding_bag(bag_ids, x, offsets[:4], mode="sum",
                                  per_sample_weights=src[:2].flatten()[:8], include_last_offset=True,
                                  padding_idx=1)
        return (put, acc, mask_put, apart, masked_read, masked_put, scattered, nz, strided, copied, g0, s0,
                prod, chunked, seg_max, seg_mean, seg_sum, seg_min, bag_mean, bag_sum)


class ResamplingTail(nn.Module):
    """Bicubic interpolation (align_corners both ways, up and down),
    antialiased bilinear (.vec with scale factors and a size), avg_pool2d
    and avg_pool3d with divisor_override and ceil_mode, the softmax,
    log_softmax and dropout backward operators, and multilabel_margin_loss
    (targets ending at the first negative one; each reduction)."""

    def forward(self, x, v, g, keep, labels):
        a = torch.ops.aten
        up = F.interpolate(x, size=(7, 9), mode="bicubic", align_corners=False)
        down = F.interpolate(x, size=(3, 4), mode="bicubic", align_corners=True)
        factor = F.interpolate(x, scale_factor=1.7, mode="bicubic", align_corners=False)
        aa_down = a._upsample_bilinear2d_aa(x, (3, 2), False, None, None)
        aa_vec = a._upsample_bilinear2d_aa.vec(x, None, True, [1.7, 0.6])
        aa_up = a._upsample_bilinear2d_aa(x, (6, 5), False, None, None)
        pool2 = F.avg_pool2d(x, 2, stride=2, ceil_mode=True, divisor_override=3)
        pool2p = F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, divisor_override=5)
        pool3 = F.avg_pool3d(v, 2, stride=2, ceil_mode=True, divisor_override=7)
        y = torch.softmax(x, dim=-1)
        soft = a._softmax_backward_data(g, y, -1, torch.float32)
        logy = torch.log_softmax(x, dim=1)
        logsoft = a._log_softmax_backward_data(g, logy, 1, torch.float32)
        drop = a.native_dropout_backward(g, keep, 2.0)
        scores = x[0, 0]
        margin = F.multilabel_margin_loss(scores, labels, reduction="none")
        margin_mean = F.multilabel_margin_loss(scores, labels)
        margin_sum = F.multilabel_margin_loss(scores[0], labels[0], reduction="sum")
        return (up, down, factor, aa_down, aa_vec, aa_up, pool2, pool2p, pool3, soft, logsoft,
                drop, margin, margin_mean, margin_sum)


class ManyWeightsPointwise(nn.Module):
    """One pointwise chain over 120 weights (each its own buffer): fused into
    one kernel that reads 122 buffers. Passed as whole memref descriptors
    (40 bytes each) its parameters exceeded PTX's 4352 bytes and the CUDA
    model failed to load; each is one pointer now."""

    def __init__(self):
        super().__init__()
        self.weights = nn.ParameterList(nn.Parameter(torch.randn(4, 64)) for _ in range(120))

    def forward(self, x):
        acc = x
        for w in self.weights:
            acc = acc * 0.5 + w * x
        return acc


def write_indexing_tail_cases(out):
    torch.manual_seed(160)
    x = torch.randn(4, 6)
    write_case(out, "indexing_tail", IndexingTail(),
               [x, torch.tensor([2, 0, -1, 2]), torch.tensor([3, 1]), torch.rand(4, 6) > 0.4,
                torch.randn(5, 7), torch.tensor([0, 3, 1, 4]), torch.tensor([0, 2, 2, 5, 8]),
                torch.tensor(1.25)])
    torch.manual_seed(161)
    write_case(out, "resampling_tail", ResamplingTail(),
               [torch.randn(2, 3, 5, 7), torch.randn(1, 2, 5, 4, 3), torch.randn(2, 3, 5, 7),
                torch.rand(2, 3, 5, 7) > 0.5,
                torch.tensor([[3, 0, -1, 1, 2, 4, 5], [6, 6, 2, -1, 0, 0, 0], [-1, 1, 2, 3, 4, 5, 6],
                              [0, 1, 2, 3, 4, 5, 6], [5, 5, 1, 0, -1, 3, 3]])])
    torch.manual_seed(162)
    write_case(out, "many_weights_pointwise", ManyWeightsPointwise(), [torch.randn(4, 64)])


class CumsumBFloat16(nn.Module):
    """cumsum of a bf16 tensor along both dims: PyTorch accumulates in f32 and
    rounds each output once; a running sum rounded to bf16 at every step is
    several ulps off after a few dozen terms (the sweep's bf16 column)."""

    def forward(self, x):
        return torch.cumsum(x, 1), torch.cumsum(x, 0)


class AvgPoolBFloat16(nn.Module):
    """Average pools of a bf16 image, 3x3 windows (with and without padding
    counted) and adaptive to 3x3: PyTorch sums and divides in f32 and rounds
    once (the sweep's bf16 column found bf16 running sums)."""

    def forward(self, x):
        return (F.avg_pool2d(x, 3, stride=2), F.avg_pool2d(x, 3, stride=2, padding=1,
                                                          count_include_pad=False),
                F.adaptive_avg_pool2d(x, 3))


class Conv3dBFloat16(nn.Module):
    """A bf16 conv3d (kernel depth 3, padding 1) and conv_transpose3d (stride
    2): PyTorch accumulates each output's whole window in f32 and rounds once
    (the sweep's bf16 column found tcc's per-depth partial sums rounded to
    bf16, 12 ulps off)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 4, 3, padding=1).to(torch.bfloat16)
        self.up = nn.ConvTranspose3d(3, 3, 3, stride=2).to(torch.bfloat16)

    def forward(self, x):
        return self.conv(x), self.up(x)


class LerpBFloat16(nn.Module):
    """lerp of bf16 tensors with a tensor weight (both of its formulas) and a
    Python-number one: PyTorch computes in f32 and rounds once (the sweep's
    bf16 column found each step rounded)."""

    def forward(self, x, end, w):
        return torch.lerp(x, end, w), torch.lerp(x, end, 0.3)


class BicubicBFloat16(nn.Module):
    """Bicubic interpolation of a bf16 image (up, down with align_corners,
    by a factor). tcc computes it in f32 and rounds once; PyTorch's CPU
    kernel rounds its steps to bf16, up to a few ulps further from the exact
    answer (the sweep's bf16 column: eager off float64's in 1-8 elements,
    tcc in none). The fixture's expected outputs are PyTorch's bicubic of
    the same bf16 input in f32, rounded once (in_f32=True)."""

    def __init__(self, in_f32=False):
        super().__init__()
        self.in_f32 = in_f32

    def forward(self, x):
        src = x.float() if self.in_f32 else x
        outs = (F.interpolate(src, size=(7, 9), mode="bicubic", align_corners=False),
                F.interpolate(src, size=(3, 4), mode="bicubic", align_corners=True),
                F.interpolate(src, scale_factor=1.7, mode="bicubic", align_corners=False))
        return tuple(o.to(x.dtype) for o in outs)


class SplitWithEmptyPiece(nn.Module):
    """split_with_sizes [1, 4, 0] along a static dim of 5 beside symbolic
    ones: the empty last piece starts at 5 (an internal error once, the
    sweep's dynamic column)."""

    def forward(self, x):
        a, b, c = torch.split_with_sizes(x, [1, 4, 0])
        return a * 2, b + 1, c


class MaskedIndexPut(nn.Module):
    """x[mask] = v (index_put with a boolean mask), exported with symbolic
    sizes: tcc returned x unwritten once (the sweep's dynamic column), then
    refused it; now it writes x[mask] (issue 39)."""

    def forward(self, x, mask, v):
        return torch.ops.aten.index_put(x, [mask], v)


class AdaptivePoolEmptyBatch(nn.Module):
    """adaptive_avg_pool1d to 5 entries of an empty batch with symbolic
    channels and length (the sweep's dynamic column: an internal error, the
    concat of the windows inserting into a dim of 0)."""

    def forward(self, x):
        return F.adaptive_avg_pool1d(x, 5)


def write_sweep_columns_cases(out):
    torch.manual_seed(170)
    write_case(out, "cumsum_bf16", CumsumBFloat16(),
               [(torch.rand(8, 64) * 4 - 1).to(torch.bfloat16)])
    torch.manual_seed(171)
    write_case(out, "bicubic_bf16", BicubicBFloat16(), [torch.randn(2, 3, 5, 7).to(torch.bfloat16)],
               reference=BicubicBFloat16(in_f32=True))
    torch.manual_seed(172)
    write_case(out, "avg_pool_bf16", AvgPoolBFloat16(),
               [(torch.randn(2, 3, 9, 9) * 4).to(torch.bfloat16)])
    torch.manual_seed(174)
    write_case(out, "lerp_bf16", LerpBFloat16(),
               [(torch.randn(8, 64) * 4).to(torch.bfloat16),
                (torch.randn(8, 64) * 4).to(torch.bfloat16),
                (torch.rand(8, 64) * 1.4 - 0.2).to(torch.bfloat16)])
    torch.manual_seed(176)
    write_case(out, "conv3d_bf16", Conv3dBFloat16(),
               [(torch.randn(1, 3, 5, 6, 6) * 2).to(torch.bfloat16)])
    torch.manual_seed(173)
    auto = torch.export.Dim.AUTO
    write_case(out, "split_empty_piece_dynamic", SplitWithEmptyPiece(), [torch.randn(5, 3, 4)],
               dynamic_shapes=({1: auto(max=64), 2: auto(max=64)},))
    torch.manual_seed(171)
    write_case(out, "index_put_mask_dynamic", MaskedIndexPut(),
               [torch.randn(5, 4), torch.tensor([True, True, False, True, False]),
                torch.randn(4)],
               dynamic_shapes=({0: auto(max=64), 1: auto(max=64)}, {0: auto(max=64)},
                               {0: auto(max=64)}))
    torch.manual_seed(175)
    write_case(out, "adaptive_pool_empty_batch", AdaptivePoolEmptyBatch(), [torch.randn(0, 4, 9)],
               dynamic_shapes=({1: auto(max=64), 2: auto(max=64)},))
    torch.manual_seed(180)
    ri = lambda *shape, low=0, high=100: torch.randint(low, high, shape)
    write_case(out, "mixed_dtype_concat", MixedDtypeConcat(),
               [ri(2, 3, 4, high=2).bool(), ri(2, 3, 4).int(), ri(2, 3, 4),
                ri(2, 3, 4, high=256).to(torch.uint8), ri(2, 3, 4, low=-128, high=128).to(torch.int8),
                torch.randn(2, 3, 4), torch.randn(2, 3, 4).double(), torch.randn(2, 3, 4).half()])
    torch.manual_seed(181)
    s = ri(6, 3, low=-9, high=10)
    s[0, 0] = -(2**62)
    write_case(out, "integer_scatter_activations", IntegerScatterActivations(),
               [s, ri(5, 3, high=6), ri(5, 3, low=-9, high=10), torch.tensor([0, 2, 2, 5]),
                ri(4, 3, low=-9, high=10), ri(3, 4, low=-9, high=10)])
    write_case(out, "constant_outputs", ConstantOutputs(), [torch.randn(2, 3)])
    torch.manual_seed(182)
    write_case(out, "item_scalars", ItemScalars(),
               [torch.randn(2, 3), torch.randn(4), torch.tensor(3)])
    torch.manual_seed(184)
    write_case(out, "checked_item", CheckedItem(), [torch.randn(2, 3), torch.tensor(4)])
    rejected_inputs(out, "checked_item", "zero", [torch.randn(2, 3), torch.tensor(0)])
    rejected_inputs(out, "checked_item", "over", [torch.randn(2, 3), torch.tensor(101)])
    torch.manual_seed(186)
    write_case(out, "random_ops", RandomOps(), [torch.randn(1, 256), torch.rand(1, 256)])
    torch.manual_seed(185)
    write_case(out, "checked_item_sized", CheckedItemSized(), [torch.randn(6, 3), torch.tensor(4)],
               dynamic_shapes=({0: torch.export.Dim("rows", min=2, max=64)}, None))
    rejected_inputs(out, "checked_item_sized", "over", [torch.randn(6, 3), torch.tensor(7)])
    torch.manual_seed(183)
    write_case(out, "aten_internal_ops", AtenInternalOps(),
               [torch.randn(1, 2, 6, 6), torch.randn(4, 2, 3, 3), torch.randn(4),
                torch.randn(2, 4, 3, 3), torch.randn(5, 4).log_softmax(1),
                torch.tensor([0, 2, 1, 3, 2]), torch.rand(4) + 0.5, torch.zeros(5, 3),
                torch.tensor([0, 2, 2, 4]), torch.randn(4, 3), torch.randn(2, 3, 4, 5)])
    if not ONLY or ONLY == "index_put_mask_dynamic":
        # A second shape: input_9x6_<i>.npy and expected_9x6_0.npy.
        d = os.path.join(out, "index_put_mask_dynamic")
        xs = [torch.randn(9, 6), torch.rand(9) < 0.5, torch.randn(6)]
        with torch.no_grad():
            y = MaskedIndexPut()(*[t.clone() for t in xs])
        for i, t in enumerate(xs):
            save_npy(os.path.join(d, f"input_9x6_{i}.npy"), t)
        save_npy(os.path.join(d, "expected_9x6_0.npy"), y)


class QuantizeOps(nn.Module):
    """PT2E's quantize/dequantize operators called directly (issue 42):
    per tensor as Python numbers (.default) and as tensors (.tensor), per
    channel along a middle axis with f32 and f64 scales and without zero
    points; u8 and s8, affine and symmetric, full and reduced ranges. The
    power-of-two scale puts x * (1 / scale) on exact halves (round half to
    even) and past the range (clamp). Integer results compare exactly."""

    def forward(self, x, w, s_ch, zp_ch, s64, s_t, zp_t):
        qd = torch.ops.quantized_decomposed
        a = qd.quantize_per_tensor.default(x, 0.5, 3, 0, 255, torch.uint8)
        b = qd.quantize_per_tensor.default(x, 0.0123, 0, -128, 127, torch.int8)
        c = qd.quantize_per_tensor.default(x, 0.037, 64, 0, 127, torch.uint8)
        d = qd.quantize_per_tensor.tensor(x, s_t, zp_t, -127, 127, torch.int8)
        e = qd.quantize_per_channel.default(w, s_ch, zp_ch, 1, -128, 127, torch.int8)
        f = qd.quantize_per_channel.default(w, s64, zp_ch, 1, 0, 255, torch.uint8)
        ra = qd.dequantize_per_tensor.default(a, 0.5, 3, 0, 255, torch.uint8)
        rb = qd.dequantize_per_tensor.default(b, 0.0123, 0, -128, 127, torch.int8)
        rd = qd.dequantize_per_tensor.tensor(d, s_t, zp_t, -127, 127, torch.int8)
        re = qd.dequantize_per_channel.default(e, s_ch, zp_ch, 1, -128, 127, torch.int8)
        rf = qd.dequantize_per_channel.default(f, s64, zp_ch, 1, 0, 255, torch.uint8)
        rn = qd.dequantize_per_channel.default(e, s_ch, None, 1, -128, 127, torch.int8)
        return a, b, c, d, e, f, ra, rb, rd, re, rf, rn


class QuantizedConvLinear(nn.Module):
    """A small CNN and MLP head to quantize with X86InductorQuantizer:
    conv + ReLU, conv, max pool, linear + ReLU, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.fc1 = nn.Linear(16 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = F.max_pool2d(self.conv2(y), 2)
        y = torch.relu(self.fc1(y.flatten(1)))
        return self.fc2(y)


def pt2e_quantize(model, inputs, calibration, xnnpack_per_tensor=False, dynamic_shapes=None):
    """model quantized as PT2E does it for x86 CPUs (torchao's
    prepare_pt2e/convert_pt2e with X86InductorQuantizer's default config),
    or with `xnnpack_per_tensor` as torchao's XNNPACKQuantizer does it with
    per-tensor weights (s8 activations, symmetric), calibrated on
    `calibration`; None when torchao is missing. Its eager run is PyTorch's
    reference quantized execution."""
    try:
        from torchao.quantization.pt2e import allow_exported_model_train_eval
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
        import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as xiq
        from torchao.testing.pt2e import _xnnpack_quantizer as xnn
    except ImportError:
        print("skipped the PT2E cases: torchao is not installed (pip install torchao)")
        return None
    model.eval()
    # Strict export: the quantizer finds convolutions and linears by the
    # source_fn_stack that only strict tracing records.
    gm = torch.export.export(model, tuple(inputs), dynamic_shapes=dynamic_shapes,
                             strict=True).module()
    if xnnpack_per_tensor:
        quantizer = xnn.XNNPACKQuantizer()
        quantizer.set_global(xnn.get_symmetric_quantization_config(is_per_channel=False))
    else:
        quantizer = xiq.X86InductorQuantizer()
        quantizer.set_global(xiq.get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(gm, quantizer)
    with torch.no_grad():
        for batch in calibration:
            prepared(*batch)
    converted = convert_pt2e(prepared)
    # write_case calls .eval(), which an exported module refuses otherwise.
    allow_exported_model_train_eval(converted)
    return converted


class QuantizedResNetBlocks(nn.Module):
    """A ResNet-18-like network at small width for PT2E: conv/BN/ReLU stem,
    max pool, BasicBlocks (one with a strided 1x1 downsample), adaptive
    average pool, linear head."""

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    def __init__(self, width=16, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 7, 2, 3, bias=False)
        self.bn = nn.BatchNorm2d(width)
        self.layer1 = self.Block(width, width, 1)
        self.layer2 = self.Block(width, 2 * width, 2)
        self.fc = nn.Linear(2 * width, classes)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.bn(self.stem(x))), 3, 2, 1)
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class QuantizedBertLayer(nn.Module):
    """A BERT-like encoder layer for PT2E: query/key/value/output linears,
    scaled softmax attention, residual + LayerNorm, GELU feed-forward,
    residual + LayerNorm (post-norm, as BERT)."""

    def __init__(self, d=64, heads=4, ffn=256):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads

        def split(y):
            return y.reshape(b, t, h, d // h).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / (d // h) ** 0.5, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, t, d)
        x = self.ln1(x + self.o(y))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


def write_quantization_cases(out):
    import torch.ao.quantization.fx._decomposed  # noqa: F401 (registers the operators)

    torch.manual_seed(190)
    x = torch.randn(4, 40) * 3
    x[0, :8] = torch.tensor([0.25, 0.75, -0.25, -0.75, 1.25, 200.0, -200.0, 126.25])
    w = torch.randn(3, 5, 4)
    s_ch = torch.rand(5) * 0.05 + 0.005
    zp_ch = torch.randint(-20, 20, (5,))
    write_case(out, "quantize_ops", QuantizeOps(),
               [x, w, s_ch, zp_ch, s_ch.double() * 1.7, torch.tensor(0.021, dtype=torch.float64),
                torch.tensor(-5)])

    if not ONLY or ONLY == "pt2e_conv_linear":
        torch.manual_seed(191)
        model = QuantizedConvLinear()
        inputs = [torch.randn(2, 3, 16, 16)]
        converted = pt2e_quantize(model, inputs, [[torch.randn(2, 3, 16, 16)] for _ in range(4)])
        if converted is not None:
            write_case(out, "pt2e_conv_linear", converted, inputs)
            # Weights a test binds at run time (rebound/<name>.npy): new int8
            # filters and scales for conv1; PyTorch's output with them is
            # expected_rebound_0.npy.
            d = os.path.join(out, "pt2e_conv_linear")
            os.makedirs(os.path.join(d, "rebound"), exist_ok=True)
            rebound = {"_frozen_param0": torch.randint(-127, 128, (16, 3, 3, 3), dtype=torch.int8),
                       "_scale_0": converted._scale_0 * 1.5}
            for k, v in rebound.items():
                setattr(converted, k, v)
                save_npy(os.path.join(d, "rebound", f"{k}.npy"), v)
            with torch.no_grad():
                save_npy(os.path.join(d, "expected_rebound_0.npy"), converted(*inputs))

    if not ONLY or ONLY == "pt2e_resnet_blocks":
        torch.manual_seed(192)
        model = QuantizedResNetBlocks()
        for m in model.modules():  # running statistics that are not the identity
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.3, 0.3)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.data.uniform_(0.5, 1.5)
                m.bias.data.uniform_(-0.2, 0.2)
        inputs = [torch.randn(2, 3, 32, 32)]
        converted = pt2e_quantize(model, inputs, [[torch.randn(2, 3, 32, 32)] for _ in range(4)])
        if converted is not None:
            write_case(out, "pt2e_resnet_blocks", converted, inputs)

    if not ONLY or ONLY == "pt2e_dynamic_batch":
        # A symbolic batch (1..16): exported at 2, run at 1 and 7 too.
        torch.manual_seed(196)
        model = QuantizedConvLinear()
        inputs = [torch.randn(2, 3, 16, 16)]
        dynamic = ({0: torch.export.Dim("batch", min=1, max=16)},)
        converted = pt2e_quantize(model, inputs, [[torch.randn(2, 3, 16, 16)] for _ in range(4)],
                                  dynamic_shapes=dynamic)
        if converted is not None:
            write_case(out, "pt2e_dynamic_batch", converted, inputs, dynamic_shapes=dynamic)
            d = os.path.join(out, "pt2e_dynamic_batch")
            for b in (1, 7):
                x = torch.randn(b, 3, 16, 16)
                with torch.no_grad():
                    y = converted(x)
                save_npy(os.path.join(d, f"input_b{b}.npy"), x)
                save_npy(os.path.join(d, f"expected_b{b}.npy"), y)

    if not ONLY or ONLY == "pt2e_resnet_xnnpack":
        # An XNNPACK-style config: s8 activations, per-tensor symmetric weights.
        torch.manual_seed(195)
        model = QuantizedResNetBlocks()
        inputs = [torch.randn(2, 3, 32, 32)]
        converted = pt2e_quantize(model, inputs, [[torch.randn(2, 3, 32, 32)] for _ in range(4)],
                                  xnnpack_per_tensor=True)
        if converted is not None:
            write_case(out, "pt2e_resnet_xnnpack", converted, inputs)

    if not ONLY or ONLY == "pt2e_linear_b1":
        # One row: oneDNN's int8 kernels take no single pixel, tcc gives it two.
        torch.manual_seed(194)
        model = nn.Sequential(nn.Linear(64, 40), nn.ReLU(), nn.Linear(40, 10))
        inputs = [torch.randn(1, 64)]
        converted = pt2e_quantize(model, inputs, [[torch.randn(1, 64)] for _ in range(4)])
        if converted is not None:
            write_case(out, "pt2e_linear_b1", converted, inputs)

    if not ONLY or ONLY == "pt2e_bert_layer":
        torch.manual_seed(193)
        model = QuantizedBertLayer()
        inputs = [torch.randn(2, 16, 64)]
        converted = pt2e_quantize(model, inputs, [[torch.randn(2, 16, 64)] for _ in range(4)])
        if converted is not None:
            write_case(out, "pt2e_bert_layer", converted, inputs)


if __name__ == "__main__":
    main()
