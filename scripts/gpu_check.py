#!/usr/bin/env python3
"""Runs compiled samples on the GPU (and CPU) through the Python loader and
compares with PyTorch's outputs in samples/*/expected_*.npy.

On this machine (no GPU), compile the artifacts once:
    scripts/gpu_check.py --compile DIR            # tcc compile --target cpu,cuda
On the GPU machine (torch installed, no tcc needed):
    python3 scripts/gpu_check.py --run DIR
Error measure: max|out - ref| / max|ref| per output, reported as its ratio to
the output's tolerance (fp32 1e-5, f16/bf16 1e-2): PASS at most 1.
On the GPU each case runs twice: with torch's (256-byte aligned) tensors, and
as "cuda+1": every input a view one element into a larger buffer, so that no
input starts on a 16-byte boundary and the kernels' scalar fallback runs.
"""
import argparse
import re
import glob
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = ["foo", "mymodule", "outer_module", "mymodule_dynamic_batch", "small_cnn",
           "ops_mix", "tiny_transformer", "masks_attention", "grad_mode_region", "indexing",
           "inplace", "multi_index", "pad_roll_scatter", "shifted_window_mask", "shifted_window_attention", "relative_position_bias", "double_to_bfloat16", "conv1d", "upsample_nearest", "upsample_bilinear", "einsum", "conv_transpose", "pool1d", "more_ops", "pooling_3d_adaptive", "half_precision", "write_through_select", "kernel_layer", "kernel_layer_bf16", "window7_attention", "window7_attention_bf16", "patch_merging", "whisper_encoder_bf16", "vision_attention", "llama_tiny",
           "elu_scaled", "sdpa_masked_rows", "var_far_from_zero", "conv2d_half", "as_strided_views", "lm_head_unaligned", "swapaxes_clamp_one_side", "norms_zero_dead_draw",
           "sweep_wrong_answers", "math_ops", "reductions_more", "shapes_more", "empty_tensors", "dense_block", "dense_stem", "creation_more",
           "derived_weights", "depthwise_blocks", "convnext_blocks", "uint8_conversions", "ops_sweep_more",
           "ops_sweep_families", "uint8_arithmetic", "float64_products", "integer_ops",
           "ops_special", "pool_indices", "ops_linalg", "ops_linalg_factor",
           "convolutions_3d", "batch_norm_batch_stats",
           "unfold_diagonal_histc", "grid_sample_2d", "grid_sample_3d", "nextafter",
           "indexing_tail", "resampling_tail", "nan_epilogues", "upsample_bf16", "mixed_dtype_cat",
           "audio_front_end", "spatial_dynamic_cnn", "moe_dynamic", "pixel_shuffle_dynamic", "upsample_symbolic", "spatial_transformer", "integer_sums", "relative_position_index", "symbolic_pooling",
           "ops_special_tail", "many_weights_pointwise", "checked_item", "random_ops",
           # channels-last on the GPU (the CPU path computes f32 either way)
           "dense_stem:tf32", "depthwise_blocks:tf32", "small_cnn:tf32",
           # "NAME+SPEC": compiled with --specialize SPEC, static variants beside the
           # generic one; each case also checks which variant the C ABI ran
           "mymodule_dynamic_batch+s77=1,7", "conv1d+s77=1,2", "two_dynamic_dims",
           "two_dynamic_dims+s77=2,3;s27=16", "two_dynamic_dims+s77=2",
           "zoo/mobilenet_v2_core_aten",
           "zoo/bert_base_dynamic_seq_training", "zoo/gpt2_training",
           "zoo/t5_small_decoder_core_aten", "zoo/llama_small_dynamic_seq_core_aten"]


# Samples whose graphs compute in f16/bf16: bf16 keeps 8 bits of mantissa
# (2^-8 = 3.9e-3), and PyTorch rounds some fused steps once where tcc rounds
# each op, so they agree within 1e-2 relative (fp32 samples: --rtol).
TOLERANCE = {"half_precision": 1e-2, "kernel_layer_bf16": 1e-2, "window7_attention_bf16": 1e-2,
             # statistics of draws from another generator than PyTorch's
             # (test/e2e/random_ops.test states the finer tolerances)
             "random_ops": 1e-1}
# "NAME:tf32" is the sample compiled with --precision tf32: convolutions and
# matrix products round their inputs to 10 bits of mantissa (2^-11 = 4.9e-4),
# summed over hundreds of terms: within 5e-3 relative, as check_conv.py's TF32.
TF32_TOLERANCE = 5e-3
# Other samples: per output, by its dtype (f16 and bf16 outputs of fp32
# samples, such as var_far_from_zero's, within 1e-2 as above).
HALF_TOLERANCE = 1e-2


def artifact(outdir, sample):
    return os.path.join(outdir, re.sub(r"[/:+=,;]", "_", sample) + ".so")


def sample_dir(sample):
    """samples/NAME for "NAME", "NAME:PRECISION" and "NAME+SPEC"."""
    return os.path.join(ROOT, "samples", sample.split(":")[0].split("+")[0])


def specialize(sample):
    """The --specialize value of "NAME+SPEC", else None."""
    return sample.split("+", 1)[1] if "+" in sample else None


def expected_variant(model, xs):
    """The specialization the runtime should pick for inputs xs: the one that
    pins the most symbols among those whose ranges hold the inputs' sizes."""
    values = {}
    for spec, x in zip(model.manifest["inputs"], xs):
        for size, n in zip(spec["sizes"], x.shape):
            if isinstance(size, str) and size.isidentifier():
                values.setdefault(size, n)
    best, pinned = "generic", 0
    for s in model.manifest["specializations"][1:]:
        ranges = s["symbols"].items()
        n = sum(lo == hi for _, (lo, hi) in ranges)
        if n > pinned and all(k in values and lo <= values[k] <= hi for k, (lo, hi) in ranges):
            best, pinned = s["name"], n
    return best


def precision(sample):
    return sample.split(":")[1] if ":" in sample else "fp32"


def cases(sample):
    """(inputs, expected) file lists: the default case and any batch variants."""
    d = sample_dir(sample)
    def numbered(pattern):  # input_2 before input_10
        return sorted(glob.glob(pattern), key=lambda f: [int(t) if t.isdigit() else t for t in
                                                         re.split(r"(\d+)", os.path.basename(f))])

    out = [(numbered(f"{d}/input_[0-9]*.npy"), numbered(f"{d}/expected_[0-9]*.npy"))]
    short = numbered(f"{d}/input_[0-9]*_short.npy")
    if short:  # the zoo's dynamic models at a second sequence length
        out[0] = ([f for f in out[0][0] if f not in short],
                  [f for f in out[0][1] if not f.endswith("_short.npy")])
        out.append((short, numbered(f"{d}/expected_[0-9]*_short.npy")))
    for b in sorted(glob.glob(f"{d}/input_b*.npy")):
        tag = os.path.basename(b)[len("input_"):]
        out.append(([b], [os.path.join(d, "expected_" + tag)]))
    return out


def misaligned(x):
    """x's values in a view that starts one element into a larger buffer."""
    import torch
    buf = torch.empty(x.numel() + 1, dtype=x.dtype, device=x.device)
    view = buf[1:].view(x.shape)
    view.copy_(x)
    return view


def compile_all(outdir, tcc, arch, samples):
    os.makedirs(outdir, exist_ok=True)
    for s in samples:
        so = artifact(outdir, s)
        t0 = time.time()
        extra = ["--specialize", specialize(s)] if specialize(s) else []
        subprocess.run([tcc, "compile", os.path.join(sample_dir(s), "model.pt2"), "-o", so,
                        "--target", "cpu,cuda", "--arch", arch, "--precision", precision(s)]
                       + extra, check=True)
        print(f"compiled {s} in {time.time() - t0:.2f} s")


def run_all(outdir, rtol, samples):
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tcc
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(torch.cuda.get_device_name(0), "torch", torch.__version__)
    failures = 0
    print(f"{'sample':26} {'device':6} {'err/tol':>12} {'result':6}")
    for s in samples:
        model = tcc.load(artifact(outdir, s))
        for inputs, expected in cases(s):
            tag = s if len(inputs) == 0 or "_b" not in os.path.basename(inputs[0]) else s + "@" + os.path.basename(inputs[0])[6:-4]
            tag = tag + "@short" if inputs and inputs[0].endswith("_short.npy") else tag
            for device in ("cuda", "cuda+1", "cpu"):
                # NumPy has no bfloat16: such inputs are stored as float32.
                wanted = [getattr(torch, i["dtype"]) for i in model.manifest["inputs"]]
                xs = [torch.from_numpy(np.load(f)).to(device.split("+")[0], dtype=w)
                      for f, w in zip(inputs, wanted)]
                if device == "cuda+1":
                    xs = [misaligned(x) for x in xs]
                try:
                    ys = model(*xs)
                    if device != "cpu":
                        torch.cuda.synchronize()
                except Exception as e:  # report and go on
                    print(f"{tag:26} {device:6} {'-':>12} ERROR {e}")
                    failures += 1
                    continue
                ys = ys if isinstance(ys, tuple) else (ys,)
                if specialize(s):  # the variant that ran must be the one the sizes select
                    ran = model.manifest["specializations"][model.option("specialization")]["name"]
                    wanted_variant = expected_variant(model, xs)
                    if ran != wanted_variant:
                        print(f"{tag:26} {device:6} {'-':>12} FAIL ran {ran}, expected {wanted_variant}")
                        failures += 1
                        continue
                    tag_ran = f"{tag}[{ran}]"
                else:
                    tag_ran = tag
                worst = 0.0  # as a fraction of each output's tolerance
                for y, f in zip(ys, expected):
                    tol = TOLERANCE.get(s, HALF_TOLERANCE if y.dtype in (torch.float16, torch.bfloat16)
                                        else TF32_TOLERANCE if precision(s) == "tf32" and device != "cpu"
                                        else rtol)
                    ref = np.load(f)
                    got = y.cpu().float().numpy() if y.is_floating_point() else y.cpu().numpy()
                    if got.shape != ref.shape:
                        worst = float("inf")
                        break
                    if got.size == 0:
                        continue
                    # NaN where the reference has NaN, equal infinities, and the
                    # relative error over the finite rest (NaN would otherwise
                    # compare false and pass).
                    finite = np.isfinite(ref)
                    if not (np.array_equal(np.isnan(got), np.isnan(ref))
                            and np.array_equal(got[~finite & ~np.isnan(ref)],
                                               ref[~finite & ~np.isnan(ref)])
                            and np.isfinite(got[finite]).all()):
                        worst = float("inf")
                        break
                    if not finite.any():
                        continue
                    g, r = got[finite].astype(np.float64), ref[finite].astype(np.float64)
                    err = float(np.abs(g - r).max() / max(np.abs(r).max(), 1e-30))
                    worst = max(worst, err / tol)
                ok = worst <= 1.0
                failures += not ok
                print(f"{tag_ran:26} {device:6} {worst:12.3f} {'PASS' if ok else 'FAIL'}")
    if "derived_weights" in samples:
        failures += check_rebind(outdir, rtol, np, torch, tcc)
    # The guard refuses a batch outside the exported range, as an exception.
    if "mymodule_dynamic_batch" in samples:
        model = tcc.load(os.path.join(outdir, "mymodule_dynamic_batch.so"))
        try:
            model(torch.zeros(1025, 100, device="cuda"))
            print("guard: no error for batch 1025 FAIL")
            failures += 1
        except tcc.TccError as e:
            print(f"guard: {e}")
    print(f"{failures} failures")
    return failures


def check_rebind(outdir, rtol, np, torch, tcc):
    """derived_weights: run, bind new weights (rebound/*.npy), run again on
    one instance, on each device: the derived weights (a batch norm's scale
    and shift, scaled convolution weights) are recomputed and copied to the
    device again; the second and third runs (a CUDA graph replay) give
    PyTorch's output for the new weights."""
    d = os.path.join(ROOT, "samples", "derived_weights")
    x = torch.from_numpy(np.load(f"{d}/input_0.npy"))
    refs = [np.load(f"{d}/expected_0.npy"), np.load(f"{d}/expected_rebound_0.npy")]
    rebound = {os.path.basename(f)[:-4]: torch.from_numpy(np.load(f))
               for f in glob.glob(f"{d}/rebound/*.npy")}
    failures = 0
    for device in ("cuda", "cpu"):
        model = tcc.load(artifact(outdir, "derived_weights"))
        errs = []
        for step in range(4):
            if step == 2:
                model.bind_weights(rebound)
            y = model(x.to(device))
            if device != "cpu":
                torch.cuda.synchronize()
            ref = refs[step >= 2]
            errs.append(float(np.abs(y.cpu().numpy() - ref).max() / np.abs(ref).max()))
        ok = max(errs) <= rtol
        failures += not ok
        print(f"{'derived_weights@rebind':26} {device:6} {max(errs) / rtol:12.3f} "
              f"{'PASS' if ok else 'FAIL'}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compile", metavar="DIR")
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--tcc", default=os.path.join(ROOT, "build", "bin", "tcc"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--only", nargs="*", help="compile or run only these samples (their "
                    "artifacts alone may be there)")
    a = ap.parse_args()
    if a.compile:
        compile_all(a.compile, a.tcc, a.arch, a.only or SAMPLES)
    if a.run:
        sys.exit(1 if run_all(a.run, a.rtol, a.only or SAMPLES) else 0)


if __name__ == "__main__":
    main()
