#!/usr/bin/env python3
"""tcc's int8 (PT2E) against tcc's fp32 on the CPU (issue 42), on this machine.

    python3 scripts/pt2e_benchmark.py --out .pt2e-bench [--only resnet18_b1 ...]
        [--threads 1,2] [--repeat 20]

Each model (random weights from a fixed seed) is exported with torch.export as
fp32, and quantized with torchao's PT2E flow (X86InductorQuantizer's default
config, calibrated on the benchmark input; make_fixtures.pt2e_quantize) and
exported again. Both are compiled with `tcc compile --target cpu` (weights
embedded) and timed with `tcc run --bench` at each thread count
(TCC_NUM_THREADS); each int8 run is also checked against the converted
model in eager (max relative error). Prints a Markdown table. Needs torch,
torchvision and torchao. Timings on a shared machine are noisy: run twice.
"""
import argparse
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def models():
    import torchvision

    import make_fixtures

    def bert_layers():
        # Two BERT-base-sized encoder layers (d 768, 12 heads, ffn 3072).
        return torch.nn.Sequential(*[make_fixtures.QuantizedBertLayer(768, 12, 3072)
                                     for _ in range(2)])

    return {
        "resnet18_b1": (torchvision.models.resnet18, (1, 3, 224, 224)),
        "resnet50_b1": (torchvision.models.resnet50, (1, 3, 224, 224)),
        "bert_layers2_b1_s128": (bert_layers, (1, 128, 768)),
    }


def export(name, make, shape, out):
    import make_fixtures
    torch.manual_seed(0)
    module = make().eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        torch.export.save(torch.export.export(module, (x,)), f"{out}/{name}_fp32.pt2")
        converted = make_fixtures.pt2e_quantize(module, [x], [[x]])
        torch.export.save(torch.export.export(converted, (x,)), f"{out}/{name}_int8.pt2")
        np.save(f"{out}/{name}_input.npy", x.numpy())
        np.save(f"{out}/{name}_int8_expected.npy", converted(x).numpy())


def tcc(*args, env=None):
    return subprocess.run([os.path.join(ROOT, "build/bin/tcc"), *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=".pt2e-bench")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name, (make, shape) in models().items():
        if args.only and name not in args.only:
            continue
        export(name, make, shape, args.out)
        for p in ("fp32", "int8"):
            tcc("compile", f"{args.out}/{name}_{p}.pt2", "--target", "cpu", "-o",
                f"{args.out}/{name}_{p}.so")
        check = tcc("run", f"{args.out}/{name}_int8.so", "-i", f"{args.out}/{name}_input.npy",
                    "--expect", f"{args.out}/{name}_int8_expected.npy", "--rtol", "1")
        err = re.findall(r"max_rel_err (\S+)", check)[-1]
        for threads in args.threads.split(","):
            env = dict(os.environ, TCC_NUM_THREADS=threads)
            ms = {}
            for p in ("fp32", "int8"):
                text = tcc("run", f"{args.out}/{name}_{p}.so", "-i",
                           f"{args.out}/{name}_input.npy", "--bench", str(args.repeat), env=env)
                median, best = re.search(r"median (\S+) us, min (\S+) us", text).groups()
                ms[p] = (float(median) / 1e3, float(best) / 1e3)
            rows.append((name, threads, ms["fp32"], ms["int8"], err))
            print(f"{name} threads={threads}: fp32 {ms['fp32']}, int8 {ms['int8']} ms",
                  file=sys.stderr, flush=True)
    print("| model | threads | tcc fp32 ms (median / best) | tcc int8 ms (median / best) "
          "| speedup (medians) | int8 max rel err vs PyTorch's converted model |")
    print("|---|---|---|---|---|---|")
    for name, threads, f, q, err in rows:
        print(f"| {name} | {threads} | {f[0]:.1f} / {f[1]:.1f} | {q[0]:.1f} / {q[1]:.1f} "
              f"| {f[0] / q[0]:.1f}x | {err} |")


if __name__ == "__main__":
    main()
