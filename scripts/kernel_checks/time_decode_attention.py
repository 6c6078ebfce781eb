#!/usr/bin/env python3
"""Decoding attention (one query row per sequence, a long static KV cache
with an additive mask hiding the keys past the filled prefix, by -inf or by
PyTorch's finfo.min as transformers pads): tcc_attention as the launcher
chooses; with the mask scan off (every key tile read under the mask; the
kernel before it scanned the mask, AttentionMaskScan.h); with every split
block scanning all keys of its rows, or only its split's (the launcher
picks one by the split length); unsplit; with its keys in 16 splits over
blocks (flash-decoding; tcc_attention_tune); with the splits merged by a
second kernel (the design before the merge moved into the split kernel);
on the flash kernels rather than the decode kernels (AttentionDecode.cpp:
f16/bf16 with head dims 64 and 128 take the decode kernels by default);
and torch's scaled_dot_product_attention on the same inputs. Device
microseconds per call from CUDA graphs of 20 calls; the error of each
against a float64 reference. On the GPU machine:

    python3 scripts/kernel_checks/time_decode_attention.py [--lib PATH] [--label NAME]

A library ignores the knobs it predates (a library built before the scan
existed times the same thing in its first two columns; one built before
the merge moved into the split kernel, in "default" and "separate
combine").
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402  (before the library, so its CUDA libraries resolve)
import torch.nn.functional as F  # noqa: E402

import check_attention as ca  # noqa: E402
import common  # noqa: E402

# name, B, H, KVH, Lk (cache length), filled prefix, D, dtype, padding
# ("inf": -inf past the prefix; "min": finfo.min)
SHAPES = [
    ("LLaMA h1024 decode b1", 1, 16, 4, 2048, 513, 64, torch.bfloat16, "inf"),
    ("LLaMA h1024 decode b1, finfo.min", 1, 16, 4, 2048, 513, 64, torch.bfloat16, "min"),
    ("LLaMA h1024 decode b8", 8, 16, 4, 2048, 513, 64, torch.bfloat16, "inf"),
    ("LLaMA h1024 decode b8, finfo.min", 8, 16, 4, 2048, 513, 64, torch.bfloat16, "min"),
    ("LLaMA 1B decode b1", 1, 32, 8, 2048, 513, 64, torch.bfloat16, "inf"),
    ("LLaMA 1B decode b1, finfo.min", 1, 32, 8, 2048, 513, 64, torch.bfloat16, "min"),
    ("LLaMA 1B decode b1, 64 filled", 1, 32, 8, 2048, 64, 64, torch.bfloat16, "min"),
    ("LLaMA 1B decode b1, all 2048 visible", 1, 32, 8, 2048, 2048, 64, torch.bfloat16, "min"),
    ("LLaMA 1B decode b8, finfo.min", 8, 32, 8, 2048, 513, 64, torch.bfloat16, "min"),
    ("d128 decode b1, 8k cache", 1, 32, 8, 8192, 4000, 128, torch.bfloat16, "inf"),
    ("d128 decode b4 f16", 4, 32, 8, 4096, 4096, 128, torch.float16, "inf"),
    ("f32 decode b1", 1, 16, 4, 2048, 1500, 64, torch.float32, "inf"),
    ("f32 decode b1, 64 filled, finfo.min", 1, 16, 4, 2048, 64, 64, torch.float32, "min"),
]

# The tcc columns: label, tcc_attention_tune knobs.
COLUMNS = [
    ("default", {}),
    ("scan off", {ca.TUNE_MASK_SCAN: 1}),
    ("scan all keys", {ca.TUNE_SCAN_RANGE: 1}),
    ("scan split's keys", {ca.TUNE_SCAN_RANGE: 2}),
    ("unsplit", {ca.TUNE_KV_SPLITS: 1}),
    ("16 splits", {ca.TUNE_KV_SPLITS: 16}),
    ("separate combine", {ca.TUNE_COMBINE: 1}),
    ("flash kernels", {ca.TUNE_DECODE: 1}),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default=None)
    ap.add_argument("--label", default="", help="printed beside the device (which library)")
    args = ap.parse_args()
    common.lib(args.lib)
    torch.backends.cuda.matmul.allow_tf32 = False
    print("device:", torch.cuda.get_device_name(), args.label)
    print("| shape | " + " | ".join(f"tcc {label} us" for label, _ in COLUMNS) + " | sdpa us | "
          + " | ".join(f"err {label}" for label, _ in COLUMNS) + " |")
    print("|---" * (2 * len(COLUMNS) + 2) + "|")
    gen = torch.Generator(device="cuda").manual_seed(3)
    for name, B, H, KVH, Lk, filled, D, dtype, pad in SHAPES:
        q = torch.randn(B, H, 1, D, generator=gen, device="cuda").to(dtype)
        k = torch.randn(B, KVH, Lk, D, generator=gen, device="cuda").to(dtype)
        v = torch.randn(B, KVH, Lk, D, generator=gen, device="cuda").to(dtype)
        fill = -math.inf if pad == "inf" else torch.finfo(dtype).min
        mask = torch.full((B, 1, 1, Lk), fill, dtype=dtype, device="cuda")
        mask[..., :filled] = 0.0
        mask4 = mask.expand(B, H, 1, Lk)
        ref = ca.reference(q, k, v, mask4, ca.MASK_ADD)
        row = [name]
        errs = []
        for _, knobs in COLUMNS:
            out = torch.full_like(q, math.nan)
            with ca.Tuned(knobs):
                fn = lambda: ca.call(q, k, v, out, mask4, ca.MASK_ADD)  # noqa: E731
                fn()
                torch.cuda.synchronize()
                err = common.take_error()
                if err:
                    raise SystemExit(f"{name}: {err}")
                errs.append(common.rel_err(out, ref))
                row.append(f"{ca._per_call_us(fn):.1f}")
        sdpa = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)  # noqa: E731
        row.append(f"{ca._per_call_us(sdpa):.1f}")
        row += [f"{e:.1e}" for e in errs]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
