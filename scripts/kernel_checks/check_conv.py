"""tcc_conv2d (cuDNN, and tcc's depthwise kernel or, for 1x1 channels-last
convolutions, one cuBLASLt GEMM, or for 3x3 fp32 ones Winograd F(4x4, 3x3),
where they are faster; with TCC_CUDNN_ALGO=own, =gemm, =im2col or =winograd,
always, for their own checks) against PyTorch: NCHW and NHWC, padding, stride,
dilation, grouped and depthwise, bias / residual / ReLU epilogues (fused and
not, a residual in the output's own buffer), channel slices of larger
buffers (NCHW: a batch stride; NHWC: a pixel stride too) and, channels-last,
the interiors of padded buffers (strided rows): each tensor passed by its
four strides (channels-last views with strided pixels or rows are refused,
with an error, except for depthwise convolutions on tcc's kernel). f32 with and without TF32, f16 and bf16. The
reference is PyTorch's conv2d in float64. See common.py for the harness.
"""
import ctypes

import torch
import torch.nn.functional as F

import common

# include/tcc/Runtime/CudnnConv.h
F32, TF32 = 0, 1
NONE, RELU, RELU6, SILU, HARDSWISH = 0, 1, 2, 3, 4
ACTIVATIONS = {"relu": (RELU, F.relu), "relu6": (RELU6, F.relu6), "silu": (SILU, F.silu),
               "hardswish": (HARDSWISH, F.hardswish)}
NCHW, NHWC = 0, 1
TOL = {(torch.float32, F32): 2e-5, (torch.float32, TF32): 5e-3, (torch.float16, F32): 5e-3,
       (torch.bfloat16, F32): 2e-2}


def setup():
    fn = common.lib().tcc_conv2d
    i32, i64, p = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    fn.argtypes = [i64] * 28 + [p] * 5 + [i32] * 4 + [p]
    fn.restype = None
    return fn


def run_case(fn, report, name, dtype, compute, n, c, h, w, k, r, s, pad=0, stride=1, dilation=1,
             groups=1, bias=False, residual=False, relu=False, layout=NCHW, slices=False,
             interior=False, in_place=False, act=None, input_act=None):
    """slices: x, y and z are channel slices of buffers 3 channels wider;
    interior (NHWC): the interiors of buffers padded by 1 pixel on each side."""
    dev = "cuda"
    torch.manual_seed(len(name))
    oh = (h + 2 * pad - dilation * (r - 1) - 1) // stride + 1
    ow = (w + 2 * pad - dilation * (s - 1) - 1) // stride + 1
    x = torch.randn(n, c, h, w, device=dev).to(dtype)
    wt = (torch.randn(k, c // groups, r, s, device=dev) / (c // groups * r * s) ** 0.5).to(dtype)
    b = torch.randn(k, device=dev).to(dtype) if bias else None
    z = torch.randn(n, k, oh, ow, device=dev).to(dtype) if residual else None
    act = "relu" if relu else act
    xin = ACTIVATIONS[input_act][1](x.double()) if input_act else x.double()
    ref = F.conv2d(xin, wt.double(), b.double() if b is not None else None, stride, pad,
                   dilation, groups)
    if z is not None:
        ref = ref + z.double()
    if act:
        ref = ACTIVATIONS[act][1](ref)

    def place(t, channels):
        """t in the layout: packed, a channel slice of a wider buffer, or
        the interior of a padded one (a view in the layout's dim order)."""
        if layout == NHWC:
            t = t.permute(0, 2, 3, 1)
            n, hh, ww, _ = t.shape
            if slices:
                big = torch.full((n, hh, ww, channels + 3), float("nan"), device=dev,
                                 dtype=t.dtype)
                view = big[..., 1:1 + channels]
            elif interior:
                big = torch.full((n, hh + 2, ww + 2, channels), float("nan"), device=dev,
                                 dtype=t.dtype)
                view = big[:, 1:1 + hh, 1:1 + ww]
            else:
                return t.contiguous()
            view.copy_(t)
            return view
        if not slices:
            return t.contiguous()
        big = torch.full((t.shape[0], channels + 3) + tuple(t.shape[2:]), float("nan"),
                         device=dev, dtype=t.dtype)
        big[:, 1:1 + channels] = t
        return big[:, 1:1 + channels]

    def strides(t):
        """t's strides in batch, channel, row, column order (tcc_conv2d's)."""
        if t is None:
            return [0, 0, 0, 0]
        sn, s1, s2, s3 = t.stride()
        return [sn, s3, s1, s2] if layout == NHWC else [sn, s1, s2, s3]

    xs = place(x, c)
    ws = wt.permute(0, 2, 3, 1).contiguous() if layout == NHWC else wt.contiguous()
    zs = place(z, k) if z is not None else None
    if in_place:
        ys = zs
    else:
        ys = place(torch.full((n, k, oh, ow), float("nan"), device=dev, dtype=dtype), k)
    args = [n, c, h, w, k, r, s, oh, ow, pad, pad, stride, stride, dilation, dilation, groups,
            *strides(xs), *strides(ys), *strides(zs),
            common.ptr(xs), common.ptr(ws), common.ptr(b), common.ptr(zs), common.ptr(ys),
            common.DTYPE_CODE[dtype], compute,
            (ACTIVATIONS[act][0] if act else NONE) | (ACTIVATIONS[input_act][0] if input_act else NONE) << 8,
            layout, common.stream()]
    before = ys.clone()
    fn(*args)
    torch.cuda.synchronize()
    err = common.take_error()
    own = groups == c == k and r <= 7 and s <= 7 and stride <= 4 and dilation <= 4
    if layout == NHWC and (slices or interior) and not own:
        # cuDNN takes packed channels-last images only: a clear error, y untouched.
        untouched = torch.equal(torch.nan_to_num(ys), torch.nan_to_num(before))
        report.check(name + " (refused)", 0.0 if err and "strided pixels or rows" in err and
                     untouched else 1.0, 0.5)
        return None
    if err:
        report.fail(name, err)
        return None
    out = ys.permute(0, 3, 1, 2) if layout == NHWC else ys
    report.check(name, common.rel_err(out, ref), TOL[(dtype, compute)])
    if ys._base is not None:
        # The rest of y's buffer (NaN: other slices, the padding) untouched.
        outside = ys._base.numel() - ys.numel()
        kept = int(torch.isnan(ys._base).sum() - torch.isnan(ys).sum())
        report.check(name + " (no write outside y)", 0.0 if kept == outside else 1.0, 0.5)
    # The call keeps its tensors alive (args holds raw pointers only) and
    # runs on the stream current when it is called (a graph capture's).
    return lambda keep=(xs, ws, b, zs, ys): fn(*args[:-1], common.stream())


ALL_PRECISIONS = ((torch.float32, F32), (torch.float32, TF32), (torch.float16, F32),
                  (torch.bfloat16, F32))


def run_forced(fn, report, mode, cases, precisions=ALL_PRECISIONS, layouts=(NHWC,)):
    """Each case (channels-last unless `layouts` says) with TCC_CUDNN_ALGO=mode:
    that way forced where it applies (a plan is kept per shape: cases of their own)."""
    import os
    saved = os.environ.get("TCC_CUDNN_ALGO")
    os.environ["TCC_CUDNN_ALGO"] = mode
    try:
        for layout in layouts:
            for dtype, compute in precisions:
                for name, kw in cases:
                    tag = (f"{'nhwc' if layout else 'nchw'} {str(dtype)[6:]}"
                           f"{' tf32' if compute else ''} {name}")
                    run_case(fn, report, tag, dtype, compute, layout=layout, **kw)
    finally:
        if saved is None:
            del os.environ["TCC_CUDNN_ALGO"]
        else:
            os.environ["TCC_CUDNN_ALGO"] = saved


def run(quick=False):
    fn = setup()
    report = common.Report("conv")
    cases = [
        ("resnet 3x3 bias relu", dict(n=4, c=64, h=28, w=28, k=64, r=3, s=3, pad=1, bias=True, relu=True)),
        ("resnet 1x1 bias residual relu", dict(n=4, c=64, h=28, w=28, k=256, r=1, s=1, bias=True, residual=True, relu=True)),
        ("residual in place", dict(n=4, c=64, h=14, w=14, k=64, r=3, s=3, pad=1, bias=True, residual=True, relu=True, in_place=True)),
        ("downsample 1x1 s2 bias", dict(n=4, c=64, h=28, w=28, k=128, r=1, s=1, stride=2, bias=True)),
        ("stem 7x7 s2 p3", dict(n=2, c=3, h=64, w=64, k=64, r=7, s=7, pad=3, stride=2, bias=True, relu=True)),
        ("dilated 3x3 d2", dict(n=2, c=32, h=20, w=20, k=32, r=3, s=3, pad=2, dilation=2)),
        ("depthwise 3x3", dict(n=4, c=96, h=28, w=28, k=96, r=3, s=3, pad=1, groups=96, bias=True)),
        ("depthwise 5x5 s2", dict(n=4, c=96, h=28, w=28, k=96, r=5, s=5, pad=2, stride=2, groups=96)),
        ("depthwise 7x7 bias residual relu", dict(n=3, c=40, h=30, w=37, k=40, r=7, s=7, pad=3, groups=40, bias=True, residual=True, relu=True)),
        ("depthwise 3x3 dilated s2 slices", dict(n=2, c=24, h=33, w=17, k=24, r=3, s=3, pad=2, dilation=2, stride=2, groups=24, bias=True, slices=True)),
        ("depthwise 3x5", dict(n=2, c=16, h=20, w=21, k=16, r=3, s=5, pad=1, groups=16)),
        ("depthwise 3x3 s3 odd channels", dict(n=2, c=37, h=19, w=23, k=37, r=3, s=3, pad=1, stride=3, groups=37, bias=True)),
        ("depthwise 5x5 s2 wide", dict(n=1, c=72, h=9, w=70, k=72, r=5, s=5, pad=2, stride=2, groups=72, bias=True, relu=True)),
        ("depthwise 3x3 residual in place", dict(n=2, c=64, h=14, w=14, k=64, r=3, s=3, pad=1, groups=64, bias=True, residual=True, in_place=True)),
        ("depthwise 3x3 into padded interior", dict(n=2, c=48, h=12, w=13, k=48, r=3, s=3, pad=1, groups=48, bias=True, relu=True, interior=True)),
        # tcc's depthwise kernel alone: activations cuDNN's epilogue lacks, and
        # on the input (MobileNet's and EfficientNet's, fused).
        ("depthwise 3x3 relu6 in and out", dict(n=2, c=48, h=14, w=15, k=48, r=3, s=3, pad=1, groups=48, bias=True, act="relu6", input_act="relu6")),
        ("depthwise 5x5 s2 silu in and out", dict(n=2, c=40, h=17, w=16, k=40, r=5, s=5, pad=2, stride=2, groups=40, bias=True, act="silu", input_act="silu")),
        ("depthwise 3x3 hardswish residual", dict(n=2, c=24, h=9, w=11, k=24, r=3, s=3, pad=1, groups=24, bias=True, residual=True, act="hardswish")),
        ("depthwise 7x7 silu input odd channels", dict(n=1, c=13, h=10, w=10, k=13, r=7, s=7, pad=3, groups=13, input_act="silu")),
        ("depthwise 3x3 dilated relu6 into padded interior", dict(n=2, c=32, h=12, w=12, k=32, r=3, s=3, pad=2, dilation=2, groups=32, act="relu6", input_act="hardswish", interior=True)),
        # MobileNetV2 b1's: cuDNN's FFT and non-fused Winograd run it one group
        # at a time (thousands of kernels a call); timing them stalled its
        # first call for minutes until slow ways were cut after one call.
        ("depthwise 3x3 b1 576 channels", dict(n=1, c=576, h=14, w=14, k=576, r=3, s=3, pad=1, groups=576, bias=True)),
        ("grouped 3x3 g4", dict(n=2, c=64, h=16, w=16, k=128, r=3, s=3, pad=1, groups=4, bias=True, relu=True)),
        ("identity residual, no bias", dict(n=2, c=32, h=16, w=16, k=32, r=3, s=3, pad=1, residual=True)),
        ("channel slices", dict(n=3, c=32, h=16, w=16, k=48, r=3, s=3, pad=1, bias=True, residual=True, relu=True, slices=True)),
        ("plain", dict(n=2, c=16, h=9, w=11, k=8, r=3, s=2)),
        # DenseNet's: a layer's 3x3 convolution into its slice of the block's
        # buffer; its stem convolution into the padded input of a max pooling.
        ("dense layer into slice", dict(n=4, c=128, h=16, w=16, k=32, r=3, s=3, pad=1, slices=True)),
        ("stem into padded interior", dict(n=2, c=3, h=32, w=32, k=64, r=7, s=7, pad=3, stride=2, bias=True, relu=True, interior=True)),
        ("interior residual in place", dict(n=2, c=32, h=12, w=12, k=32, r=3, s=3, pad=1, bias=True, residual=True, relu=True, interior=True, in_place=True)),
    ]
    for layout in (NCHW, NHWC):
        for dtype, compute in ((torch.float32, F32), (torch.float32, TF32), (torch.float16, F32),
                               (torch.bfloat16, F32)):
            if layout == NCHW and dtype != torch.float32:
                continue  # half models are formed channels-last
            for name, kw in cases:
                if layout == NCHW and kw.get("interior"):
                    continue  # tcc leaves NCHW images packed
                tag = f"{'nhwc' if layout else 'nchw'} {str(dtype)[6:]}{' tf32' if compute else ''} {name}"
                run_case(fn, report, tag, dtype, compute, layout=layout, **kw)
    # 1x1 channels-last convolutions as one cuBLASLt GEMM (forced:
    # TCC_CUDNN_ALGO=gemm; shapes of their own, as a plan is kept per shape).
    gemm_cases = [
        ("1x1 as gemm, bias", dict(n=3, c=40, h=14, w=14, k=240, r=1, s=1, bias=True)),
        ("1x1 as gemm, bias relu", dict(n=2, c=24, h=9, w=11, k=56, r=1, s=1, bias=True, relu=True)),
        ("1x1 as gemm, bias residual", dict(n=2, c=72, h=7, w=7, k=40, r=1, s=1, bias=True, residual=True)),
        ("1x1 as gemm, residual in place", dict(n=2, c=88, h=5, w=6, k=48, r=1, s=1, residual=True, in_place=True)),
        ("1x1 as gemm, plain", dict(n=1, c=16, h=3, w=5, k=8, r=1, s=1)),
    ]
    run_forced(fn, report, "gemm", gemm_cases)
    # A small window over few channels as the product of its windows
    # (TCC_CUDNN_ALGO=im2col; shapes of their own): network stems, a
    # patchify, dilation with a residual, a residual in place, and images
    # over the im2col workspace (one chunk each).
    im2col_cases = [
        ("im2col stem 7x7 s2 p3 bias relu", dict(n=2, c=3, h=32, w=30, k=16, r=7, s=7, pad=3, stride=2, bias=True, relu=True)),
        ("im2col 3x3 s2 p1 bias", dict(n=3, c=3, h=17, w=19, k=8, r=3, s=3, pad=1, stride=2, bias=True)),
        ("im2col 4x4 s4 patchify", dict(n=2, c=3, h=16, w=16, k=24, r=4, s=4, stride=4, bias=True)),
        ("im2col 3x3 d2 c5 residual", dict(n=2, c=5, h=11, w=12, k=12, r=3, s=3, pad=2, dilation=2, residual=True)),
        ("im2col 3x3 residual in place", dict(n=2, c=4, h=9, w=9, k=4, r=3, s=3, pad=1, bias=True, residual=True, in_place=True)),
        ("im2col 5x3 c7 plain", dict(n=1, c=7, h=10, w=13, k=5, r=5, s=3, pad=1)),
        ("im2col 7x7 s1 chunked", dict(n=3, c=3, h=200, w=210, k=8, r=7, s=7, pad=3, bias=True, relu=True)),
    ]
    run_forced(fn, report, "im2col", im2col_cases)
    # tcc's depthwise kernel forced (TCC_CUDNN_ALGO=own) channels-last, on
    # shapes of its own: every window and stride the tiled kernel takes
    # (edges that cut its tiles, channels not a multiple of its 32 and fewer
    # than 32, activations on both sides, a residual in place, a padded
    # interior). The strips kernel takes the same shapes with
    # TCC_DEPTHWISE_TILED=0 (read once per process: a run of its own).
    own_cases = [
        ("own 3x3 s1 c144 silu in and out", dict(n=2, c=144, h=19, w=21, k=144, r=3, s=3, pad=1, groups=144, bias=True, act="silu", input_act="silu")),
        ("own 3x3 s2 c96 relu6", dict(n=3, c=96, h=23, w=37, k=96, r=3, s=3, pad=1, stride=2, groups=96, bias=True, act="relu6", input_act="relu6")),
        ("own 5x5 s1 c40 residual", dict(n=2, c=40, h=13, w=18, k=40, r=5, s=5, pad=2, groups=40, bias=True, residual=True, act="silu")),
        ("own 5x5 s2 c144 silu in", dict(n=2, c=144, h=29, w=30, k=144, r=5, s=5, pad=2, stride=2, groups=144, bias=True, input_act="silu")),
        ("own 7x7 s1 c16 no padding", dict(n=2, c=16, h=20, w=23, k=16, r=7, s=7, groups=16, bias=True)),
        ("own 7x7 s2 c8 hardswish", dict(n=1, c=8, h=31, w=17, k=8, r=7, s=7, pad=3, stride=2, groups=8, act="hardswish", input_act="hardswish")),
        ("own 3x3 s1 c4 one group", dict(n=2, c=4, h=40, w=9, k=4, r=3, s=3, pad=1, groups=4, bias=True)),
        ("own 3x3 s1 residual in place", dict(n=2, c=64, h=15, w=17, k=64, r=3, s=3, pad=1, groups=64, bias=True, residual=True, in_place=True)),
        ("own 5x5 s1 padded interior", dict(n=2, c=48, h=11, w=19, k=48, r=5, s=5, pad=2, groups=48, bias=True, relu=True, interior=True)),
        ("own 3x3 s1 padding 0 s2 asymmetric", dict(n=1, c=36, h=8, w=70, k=36, r=3, s=3, stride=2, groups=36)),
    ]
    run_forced(fn, report, "own", own_cases,
               ((torch.float32, F32), (torch.float16, F32), (torch.bfloat16, F32)))
    # tcc's Winograd F(4x4, 3x3) forced (TCC_CUDNN_ALGO=winograd), fp32 in both
    # layouts, on shapes of its own: outputs that cut the 4x4 tiles, padding
    # 0 and 2, channels not a multiple of 4, every epilogue, a residual in
    # place, NCHW rows read and written 4 at a time (widths a multiple of 4,
    # channel slices: refused channels-last), ResNet's deepest stage (7x7
    # images, 512 channels).
    winograd_cases = [
        ("winograd 3x3 bias relu", dict(n=2, c=64, h=16, w=16, k=32, r=3, s=3, pad=1, bias=True, relu=True)),
        ("winograd 3x3 edges cut tiles", dict(n=3, c=13, h=11, w=17, k=21, r=3, s=3, pad=1, bias=True)),
        ("winograd 3x3 no padding", dict(n=2, c=8, h=9, w=10, k=8, r=3, s=3)),
        ("winograd 3x3 padding 2 residual relu", dict(n=1, c=24, h=6, w=5, k=40, r=3, s=3, pad=2, bias=True, residual=True, relu=True)),
        ("winograd 3x3 residual in place", dict(n=2, c=32, h=14, w=14, k=32, r=3, s=3, pad=1, bias=True, residual=True, relu=True, in_place=True)),
        ("winograd 3x3 identity residual", dict(n=2, c=16, h=8, w=12, k=16, r=3, s=3, pad=1, residual=True)),
        ("winograd 3x3 one pixel", dict(n=2, c=7, h=1, w=1, k=5, r=3, s=3, pad=1, bias=True)),
        ("winograd rows of 4, residual relu", dict(n=2, c=24, h=10, w=12, k=16, r=3, s=3, pad=1, bias=True, residual=True, relu=True)),
        ("winograd rows of 4, residual in place", dict(n=1, c=8, h=8, w=8, k=8, r=3, s=3, pad=1, residual=True, in_place=True)),
        ("winograd rows of 4, channel slices", dict(n=2, c=12, h=6, w=8, k=12, r=3, s=3, pad=1, bias=True, slices=True)),
        ("winograd resnet stage 4", dict(n=4, c=512, h=7, w=7, k=512, r=3, s=3, pad=1, bias=True, residual=True, relu=True)),
    ]
    run_forced(fn, report, "winograd", winograd_cases, ((torch.float32, F32),), (NCHW, NHWC))
    winograd_ran(fn, report)
    # A bad shape is a recorded error, not a crash.
    fn(2, 3, 8, 8, 4, 3, 3, 9, 9, 0, 0, 1, 1, 1, 1, 2, 192, 64, 8, 1, 324, 81, 9, 1, 0, 0, 0, 0,
       None, None, None, None, None, 0, 0, 0, 0, common.stream())
    err = common.take_error()
    report.check("groups not dividing channels recorded", 0.0 if err else 1.0, 0.5)
    # An activation cuDNN lacks on a convolution tcc's kernel does not take,
    # and an unknown activation code: recorded errors that say so.
    for code, expect in ((SILU, "activations only tcc's depthwise kernel"), (9, "unknown activation")):
        x = torch.randn(2, 8, 8, 8, device="cuda")
        wt = torch.randn(4, 8, 3, 3, device="cuda")
        y = torch.empty(2, 4, 8, 8, device="cuda")
        fn(2, 8, 8, 8, 4, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1, 512, 64, 8, 1, 256, 64, 8, 1, 0, 0, 0, 0,
           common.ptr(x), common.ptr(wt), None, None, common.ptr(y), 0, 0, code, NCHW,
           common.stream())
        torch.cuda.synchronize()
        err = common.take_error() or ""
        report.check(f"activation code {code} refused", 0.0 if expect in err else 1.0, 0.5)
    if not quick:
        # Timing on ResNet-50 b32 shapes: the fused call against torch's
        # conv + bias + add + relu (each as PyTorch eager runs them).
        for dtype, compute, layout in ((torch.float32, F32, NCHW), (torch.float32, TF32, NHWC),
                                       (torch.bfloat16, F32, NHWC)):
            torch.backends.cudnn.allow_tf32 = compute == TF32
            for (c, hw, k, r, pad, stride) in ((64, 56, 64, 3, 1, 1), (256, 56, 64, 1, 0, 1),
                                               (128, 28, 128, 3, 1, 1), (512, 7, 2048, 1, 0, 1)):
                kw = dict(n=32, c=c, h=hw, w=hw, k=k, r=r, s=r, pad=pad, stride=stride, bias=True,
                          relu=True, layout=layout)
                call = run_case(fn, report, f"timed {str(dtype)[6:]} c{c} {hw}x{hw} k{k} r{r}",
                                dtype, compute, **kw)
                if call is None:
                    continue
                x = torch.randn(32, c, hw, hw, device="cuda").to(dtype)
                wt = torch.randn(k, c, r, r, device="cuda").to(dtype)
                b = torch.randn(k, device="cuda").to(dtype)
                if layout == NHWC:
                    x = x.to(memory_format=torch.channels_last)
                    wt = wt.to(memory_format=torch.channels_last)
                ours = common.time_cuda(call, iters=50)
                theirs = common.time_cuda(lambda: F.conv2d(x, wt, b, stride, pad).relu_(), iters=50)
                report.note(f"time {str(dtype)[6:]}{' tf32' if compute else ''} {'nhwc' if layout else 'nchw'} "
                            f"c{c} {hw}x{hw} k{k} r{r}: tcc {ours:.1f} µs, torch {theirs:.1f} µs")
        torch.backends.cudnn.allow_tf32 = True
        time_winograd(fn, report)
        time_stems(fn, report)
        time_depthwise(fn, report)
    return report


def back_to_back_us(fn, calls=40):
    """Device µs per call of fn() enqueued back to back (the median of 5 runs):
    the host's time per call (tens of µs through ctypes) overlaps the GPU's,
    which events around each call would count for kernels this short."""
    for _ in range(5):
        fn()
    runs = []
    for _ in range(5):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        runs.append(start.elapsed_time(stop) * 1000.0 / calls)
    return sorted(runs)[2]


def time_depthwise(fn, report):
    """tcc's depthwise kernel (forced: TCC_CUDNN_ALGO=own) against PyTorch's
    cuDNN convolution in both layouts, on MobileNetV2, EfficientNet-B0 and
    ConvNeXt-T layers (f32; what a TF32 model's channels-last layers run)."""
    import os
    saved = os.environ.get("TCC_CUDNN_ALGO")
    os.environ["TCC_CUDNN_ALGO"] = "own"
    try:
        for (name, n, c, hw, r, stride) in (("mobilenet_v2 b32", 32, 96, 112, 3, 2),
                                            ("mobilenet_v2 b32", 32, 144, 56, 3, 1),
                                            ("mobilenet_v2 b32", 32, 960, 7, 3, 1),
                                            ("efficientnet_b0 b32", 32, 240, 28, 5, 1),
                                            ("efficientnet_b0 b32", 32, 672, 14, 5, 2),
                                            ("convnext_tiny b16", 16, 96, 56, 7, 1),
                                            ("convnext_tiny b16", 16, 768, 7, 7, 1)):
            pad = r // 2
            x = torch.randn(n, c, hw, hw, device="cuda")
            wt = torch.randn(c, 1, r, r, device="cuda")
            b = torch.randn(c, device="cuda")
            row = []
            for layout in (NCHW, NHWC):
                kw = dict(n=n, c=c, h=hw, w=hw, k=c, r=r, s=r, pad=pad, stride=stride, groups=c,
                          bias=True, layout=layout)
                tag = f"timed depthwise {'nhwc' if layout else 'nchw'} {name} c{c} {hw}x{hw} r{r} s{stride}"
                call = run_case(fn, report, tag, torch.float32, F32, **kw)
                xl, wl = (x, wt) if layout == NCHW else (x.to(memory_format=torch.channels_last),
                                                         wt.to(memory_format=torch.channels_last))
                theirs = back_to_back_us(lambda: F.conv2d(xl, wl, b, stride, pad, 1, c))
                ours = back_to_back_us(call) if call else float("nan")
                row.append(f"{'nhwc' if layout else 'nchw'} tcc {ours:.1f} µs, torch {theirs:.1f} µs")
            report.note(f"time depthwise {name} c{c} {hw}x{hw} {r}x{r} s{stride}: " + "; ".join(row))
        time_depthwise_bf16(fn, report)
    finally:
        if saved is None:
            del os.environ["TCC_CUDNN_ALGO"]
        else:
            os.environ["TCC_CUDNN_ALGO"] = saved


# EfficientNet-B0's depthwise layers at b32 224² (channels, input size, window,
# stride, layers of that shape) and MobileNetV2's (relu6 instead of SiLU).
EFFICIENTNET_B0_DEPTHWISE = ((32, 112, 3, 1, 1), (96, 112, 3, 2, 1), (144, 56, 3, 1, 1),
                             (144, 56, 5, 2, 1), (240, 28, 5, 1, 1), (240, 28, 3, 2, 1),
                             (480, 14, 3, 1, 2), (480, 14, 5, 1, 1), (672, 14, 5, 1, 2),
                             (672, 14, 5, 2, 1), (1152, 7, 5, 1, 3), (1152, 7, 3, 1, 1))
MOBILENET_V2_DEPTHWISE = ((32, 112, 3, 1, 1), (96, 112, 3, 2, 1), (144, 56, 3, 1, 1),
                          (144, 56, 3, 2, 1), (192, 28, 3, 1, 2), (192, 28, 3, 2, 1),
                          (384, 14, 3, 1, 4), (576, 14, 3, 1, 2), (576, 14, 3, 2, 1),
                          (960, 7, 3, 1, 3))
# ConvNeXt-T's at b16 (7x7, no activation around them).
CONVNEXT_TINY_DEPTHWISE = ((96, 56, 7, 1, 3), (192, 28, 7, 1, 3), (384, 14, 7, 1, 9),
                           (768, 7, 7, 1, 3))


def time_depthwise_bf16(fn, report):
    """The bf16 channels-last layers of EfficientNet-B0 and MobileNetV2 at b32
    as tcc runs them (the activation before the layer on its input, bias, the
    activation after), and ConvNeXt-T's at b16 (bias only), against PyTorch's
    cuDNN convolution alone and with its activation kernels; the sums weigh
    each shape by its layers."""
    for model, layers, act, n in (
            ("efficientnet_b0 b32", EFFICIENTNET_B0_DEPTHWISE, "silu", 32),
            ("mobilenet_v2 b32", MOBILENET_V2_DEPTHWISE, "relu6", 32),
            ("convnext_tiny b16", CONVNEXT_TINY_DEPTHWISE, None, 16)):
        totals = [0.0, 0.0, 0.0]
        for (c, hw, r, stride, count) in layers:
            pad = r // 2
            kw = dict(n=n, c=c, h=hw, w=hw, k=c, r=r, s=r, pad=pad, stride=stride, groups=c,
                      bias=True, layout=NHWC, act=act, input_act=act)
            tag = f"timed depthwise nhwc bf16 {model} c{c} {hw}x{hw} r{r} s{stride}"
            call = run_case(fn, report, tag, torch.bfloat16, F32, **kw)
            x = torch.randn(n, c, hw, hw, device="cuda", dtype=torch.bfloat16).to(
                memory_format=torch.channels_last)
            wt = torch.randn(c, 1, r, r, device="cuda", dtype=torch.bfloat16).to(
                memory_format=torch.channels_last)
            b = torch.randn(c, device="cuda", dtype=torch.bfloat16)
            f = ACTIVATIONS[act][1] if act else (lambda t: t)
            conv = back_to_back_us(lambda: F.conv2d(x, wt, b, stride, pad, 1, c))
            whole = back_to_back_us(lambda: f(F.conv2d(f(x), wt, b, stride, pad, 1, c)))
            ours = back_to_back_us(call) if call else float("nan")
            for i, t in enumerate((ours, conv, whole)):
                totals[i] += count * t
            report.note(f"time depthwise bf16 {model} c{c} {hw}x{hw} {r}x{r} s{stride}: tcc "
                        f"{ours:.1f} µs, torch conv {conv:.1f} µs, torch {act}+conv+{act} "
                        f"{whole:.1f} µs")
        report.note(f"time depthwise bf16 {model}, all layers: tcc {totals[0]:.0f} µs, torch "
                    f"conv {totals[1]:.0f} µs, torch {act}+conv+{act} {totals[2]:.0f} µs")


def winograd_ran(fn, report):
    """The forced Winograd way runs tcc's two kernels (a forced way that does
    not apply falls back to cuDNN silently: its numbers alone cannot tell)."""
    import os
    os.environ["TCC_CUDNN_ALGO"] = "winograd"
    try:
        call = run_case(fn, report, "nhwc float32 winograd (profiled)", torch.float32, F32,
                        n=1, c=16, h=12, w=12, k=16, r=3, s=3, pad=1, bias=True, relu=True,
                        layout=NHWC)
    finally:
        del os.environ["TCC_CUDNN_ALGO"]
    if call is None:
        return
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    names = {e.name for e in prof.events()}
    ran = all(any(k in n for n in names)
              for k in ("tcc_winograd_transform_f32", "tcc_winograd_output_f32"))
    report.check("winograd kernels ran when forced", 0.0 if ran else 1.0, 0.5)


def time_winograd(fn, report):
    """ResNet's 3x3 convolutions at b32, fp32 NCHW (the layout fp32 models run
    in), as tcc runs them (its timed choice; TCC_CONV_TIMINGS=1 prints every
    candidate), tcc's Winograd forced (without a bias: a plan of its own), and
    PyTorch's."""
    import os
    torch.backends.cudnn.allow_tf32 = False
    for c, hw in ((64, 56), (128, 28), (256, 14), (512, 7)):
        kw = dict(n=32, c=c, h=hw, w=hw, k=c, r=3, s=3, pad=1, bias=True, relu=True,
                  layout=NCHW)
        tag = f"timed winograd fp32 c{c} {hw}x{hw}"
        call = run_case(fn, report, tag, torch.float32, F32, **kw)
        os.environ["TCC_CUDNN_ALGO"] = "winograd"
        try:
            forced = run_case(fn, report, tag + " forced", torch.float32, F32,
                              **dict(kw, bias=False))
        finally:
            del os.environ["TCC_CUDNN_ALGO"]
        x = torch.randn(32, c, hw, hw, device="cuda")
        wt = torch.randn(c, c, 3, 3, device="cuda")
        b = torch.randn(c, device="cuda")
        theirs = back_to_back_us(lambda: F.conv2d(x, wt, b, 1, 1).relu_())
        ours = back_to_back_us(call) if call else float("nan")
        wino = back_to_back_us(forced) if forced else float("nan")
        report.note(f"time {tag[6:]}: tcc {ours:.1f} µs (Winograd forced {wino:.1f}), "
                    f"torch conv+relu {theirs:.1f} µs")
    torch.backends.cudnn.allow_tf32 = True


def time_stems(fn, report):
    """Networks' first layers (3 input channels) at b32 224², channels-last,
    as tcc runs them (its timed choice among cuDNN's algorithms and the
    windows' GEMM) against PyTorch's cuDNN convolution."""
    import os
    for dtype, compute in ((torch.bfloat16, F32), (torch.float32, TF32)):
        torch.backends.cudnn.allow_tf32 = compute == TF32
        for (name, k, r, stride, pad) in (("resnet", 64, 7, 2, 3), ("efficientnet", 32, 3, 2, 1),
                                          ("convnext", 96, 4, 4, 0)):
            kw = dict(n=32, c=3, h=224, w=224, k=k, r=r, s=r, pad=pad, stride=stride, bias=True,
                      layout=NHWC)
            tag = f"timed stem {str(dtype)[6:]}{' tf32' if compute else ''} {name} {r}x{r} s{stride}"
            call = run_case(fn, report, tag, dtype, compute, **kw)
            x = torch.randn(32, 3, 224, 224, device="cuda", dtype=dtype).to(
                memory_format=torch.channels_last)
            wt = torch.randn(k, 3, r, r, device="cuda", dtype=dtype).to(
                memory_format=torch.channels_last)
            b = torch.randn(k, device="cuda", dtype=dtype)
            theirs = back_to_back_us(lambda: F.conv2d(x, wt, b, stride, pad))
            ours = back_to_back_us(call) if call else float("nan")
            # The windows' GEMM alone (forced; without a bias: a plan of its own).
            os.environ["TCC_CUDNN_ALGO"] = "im2col"
            try:
                forced = run_case(fn, report, tag + " im2col", dtype, compute,
                                  **dict(kw, bias=False))
            finally:
                del os.environ["TCC_CUDNN_ALGO"]
            windows = back_to_back_us(forced) if forced else float("nan")
            report.note(f"time {tag[6:]}: tcc {ours:.1f} µs (windows' GEMM {windows:.1f}), "
                        f"torch {theirs:.1f} µs")
    torch.backends.cudnn.allow_tf32 = True
