#!/usr/bin/env python3
"""GPU benchmark: PyTorch eager, torch.compile (default, reduce-overhead) and
tcc on the same inputs, in one run. For the GPU machine (torch there, no tcc):

  here:  python3 scripts/bench_models.py --export B          (on any torch machine)
         for m in B/*/; do tcc compile $m/model.json --target cuda -o $m/model.so \\
                --timing 2> $m/compile.txt; done
  GPU:   python3 scripts/gpu_benchmark.py --models B [--out bench.md]

A static specialization against the dynamic code: export with a symbolic batch,
compile with `--specialize` at the workload's batch, and the table gets a second
tcc row, "tcc generic variant": the same artifact loaded with
TCC_SPECIALIZATION=generic, so every call runs the dynamic variant; the gap is
what the static one gains:

  here:  python3 scripts/bench_models.py --export B --dynamic-batch --only mlp_4x4096_b256
         tcc explain B/mlp_4x4096_b256/model.json | grep -A1 symbols:   # the batch symbol, e.g. s77
         tcc compile B/mlp_4x4096_b256/model.json --target cuda --specialize s77=256 \\
             -o B/mlp_4x4096_b256/model.so --timing 2> B/mlp_4x4096_b256/compile.txt
  GPU:   python3 scripts/gpu_benchmark.py --models B --only mlp_4x4096_b256

Weights are rebuilt from bench_models.py's seeds and bound by name, so the
tcc artifacts carry no weight bytes. Reported per workload and variant:
median device latency (CUDA events, after warm-up), host µs per whole call from
Python (N back-to-back calls, one synchronize), peak GPU memory, compile time,
and max relative error against eager (max|out - eager| / max|eager|).
"""
import argparse
import os
import re
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_models  # noqa: E402
import cuda_timing  # noqa: E402
import tcc  # noqa: E402


def device_latency_us(fn, iters):
    return cuda_timing.median_us(fn, iters)


def host_us_per_call(fn, iters):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e6 / iters


def rel_err(out, ref):
    out = out if isinstance(out, (tuple, list)) else (out,)
    ref = ref if isinstance(ref, (tuple, list)) else (ref,)
    worst = 0.0
    for o, r in zip(out, ref):
        worst = max(worst, ((o.float() - r.float()).abs().max() / r.float().abs().max().clamp_min(1e-30)).item())
    return worst


def copy_bandwidth_tbs():
    """Device-to-device copy of 1 GiB, bytes read + written per second."""
    a = torch.empty(1 << 28, device="cuda")
    b = torch.empty_like(a)
    us = device_latency_us(lambda: b.copy_(a), 20)
    return 2 * a.numel() * 4 / (us * 1e-6) / 1e12


def tcc_compile_seconds(model_dir):
    path = os.path.join(model_dir, "compile.txt")
    if not os.path.exists(path):
        return None
    m = re.search(r"total\s+([0-9.]+) ms", open(path).read())
    return float(m.group(1)) / 1000 if m else None


def load_generic(so):
    """`so` with every call on its generic variant (TCC_SPECIALIZATION is read
    when the instance is created)."""
    os.environ["TCC_SPECIALIZATION"] = "generic"
    try:
        return tcc.load(so)
    finally:
        del os.environ["TCC_SPECIALIZATION"]


def bench(name, models_dir, iters, precision):
    make_module, make_inputs = bench_models.workloads()[name]
    module = make_module().cuda().eval()
    inputs = tuple(t.cuda() for t in make_inputs())
    big = inputs[0].numel() >= 1 << 20
    n = max(20, iters // 50) if big else iters
    rows = []
    with torch.no_grad():
        eager_out = module(*inputs)
        torch.cuda.synchronize()
        variants = [("eager", lambda: module, None)]
        variants.append(("torch.compile default", lambda: torch.compile(module), "compile"))
        variants.append(("torch.compile reduce-overhead",
                         lambda: torch.compile(module, mode="reduce-overhead"), "compile"))
        so = os.path.join(models_dir, name, "model.so")
        if os.path.exists(so):
            variants.append(("tcc", lambda: tcc.load(so).bind_weights(module.state_dict()), "tcc"))
            if len(tcc.load(so).manifest.get("specializations", [])) > 1:
                variants.append(("tcc generic variant",
                                 lambda: load_generic(so).bind_weights(module.state_dict()), "tcc"))
        for label, build, kind in variants:
            torch._dynamo.reset()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            free_before = torch.cuda.mem_get_info()[0]
            t0 = time.perf_counter()
            fn_obj = build()
            out = fn_obj(*inputs)
            torch.cuda.synchronize()
            first = time.perf_counter() - t0
            compile_s = first if kind == "compile" else (tcc_compile_seconds(os.path.dirname(so))
                                                         if kind == "tcc" else None)
            call = lambda: fn_obj(*inputs)  # noqa: E731
            for _ in range(min(50, n)):
                call()
            torch.cuda.synchronize()
            out = call()
            out = tuple(o.clone() for o in out) if isinstance(out, tuple) else out.clone()
            err = rel_err(out, eager_out)
            dev = device_latency_us(call, n)
            host = host_us_per_call(call, n)
            peak = torch.cuda.max_memory_allocated()
            if kind == "tcc":  # tcc's arena and weights come from cuMemAlloc, not torch's allocator
                peak = max(peak, free_before - torch.cuda.mem_get_info()[0])
            rows.append((label, dev, host, peak / 2**20, compile_s, err))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", required=True)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--out")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    lines = [f"Device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
             f"date {time.strftime('%Y-%m-%d')}; fp32, TF32 off.", ""]
    bw = copy_bandwidth_tbs()
    lines.append(f"Measured device-to-device copy bandwidth (read + write): {bw:.2f} TB/s")
    lines.append("")
    lines.append("| workload | variant | device µs (median) | host µs/call (Python) | peak MiB | compile s | max rel err vs eager |")
    lines.append("|---|---|---|---|---|---|---|")
    names = a.only or list(bench_models.workloads())
    for name in names:
        for label, dev, host, peak, comp, err in bench(name, a.models, a.iters, "fp32"):
            comp_s = "-" if comp is None else f"{comp:.2f}"
            lines.append(f"| {name} | {label} | {dev:.1f} | {host:.1f} | {peak:.1f} | {comp_s} | {err:.2e} |")
            print(lines[-1], flush=True)
        if name == "pointwise_64m":
            lines.append(f"| {name} | (bytes moved: 3 x 256 MiB read + written; at the copy ceiling: {3 * 2**26 * 4 / (bw * 1e12) * 1e6:.0f} µs) | | | | | |")
        if name.startswith("mlp"):
            x = torch.randn(256, 4096, device="cuda")
            ws = [torch.randn(4096, 4096, device="cuda") for _ in range(4)]
            def gemms():
                y = x
                for w in ws:
                    y = torch.mm(y, w)
                return y
            us = device_latency_us(gemms, 200)
            lines.append(f"| {name} | cuBLAS GEMMs alone (4 x torch.mm) | {us:.1f} | | | | |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
