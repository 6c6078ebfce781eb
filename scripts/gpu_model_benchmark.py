#!/usr/bin/env python3
"""Real models on the GPU: PyTorch eager, torch.compile (default and
reduce-overhead) and tcc, in fp32 (TF32 off), tf32 and as bf16 modules, in one
run on one machine and on the same inputs. For the GPU machine (torch there, no
tcc); the artifacts are compiled here:

  scripts/gpu_model_artifacts.sh A [MODEL...]
  GPU: python3 scripts/gpu_model_benchmark.py --artifacts A [--only NAME...]
       [--precisions fp32,tf32,bf16] [--modes eager,default,reduce-overhead,tcc]

Per row: median device ms per call (CUDA events around each call, after
warm-up), kernels per call (torch.profiler), max relative error against eager
in the same precision and against fp32 eager, peak memory. Weights are rebuilt
from bench_models.py's seeds and bound to the tcc model by name. torch.compile
reuses its compiled graph across modes (Inductor's cache), so reduce-overhead
costs little compile time after default.
"""
import argparse
import json
import os
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_models  # noqa: E402
import cuda_timing  # noqa: E402
import tcc  # noqa: E402


def median_ms(fn, iters):
    return cuda_timing.median_us(fn, iters) / 1000.0


def kernels(fn, iters=5):
    """Kernels per call and the costliest ones (name, per call, mean µs)."""
    table = cuda_timing.kernel_table(fn, iters)
    count = sum(per_call for per_call, _ in table.values())
    top = sorted(table.items(), key=lambda kv: -kv[1][0] * kv[1][1])[:12]
    return count, [(k, per_call, us) for k, (per_call, us) in top]


def rel_err(out, ref):
    out = out[0] if isinstance(out, (tuple, list)) else out
    ref = ref[0] if isinstance(ref, (tuple, list)) else ref
    o, r = out.float(), ref.float()
    if torch.isnan(o).any() and not torch.isnan(r).any():
        return float("inf")
    return ((o - r).abs().max() / r.abs().max().clamp_min(1e-30)).item()


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def bench(name, precision, modes, artifacts, iters, reference, log, sequence=False):
    dtype_name = "bf16" if precision == "bf16" else "fp32"
    module, inputs = bench_models.build_model(name, dtype_name)
    module = module.cuda()
    inputs = tuple(t.cuda() for t in inputs)
    set_tf32(precision == "tf32")
    rows = []
    with torch.no_grad():
        eager_out = module(*inputs)
        if precision == "fp32":
            reference[name] = eager_out.float()
        for mode in modes:
            torch._dynamo.reset()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            free_before = torch.cuda.mem_get_info()[0]
            t0 = time.perf_counter()
            try:
                if mode == "eager":
                    fn = module
                elif mode == "tcc":
                    so = os.path.join(artifacts, f"{name}_{precision}.so")
                    if not os.path.exists(so):
                        continue
                    # Non-persistent buffers (rotary inv_freq, position ids)
                    # are lifted constants of the export too.
                    weights = dict(module.state_dict())
                    weights.update(dict(module.named_buffers()))
                    model = tcc.load(so)
                    missing = set(model.weight_names) - weights.keys()
                    if missing:
                        # Lifted tensor constants (tensors a forward builds,
                        # e.g. Swin's shift masks) exist only in an export.
                        constants = torch.export.export(module, inputs).constants
                        weights.update({k: v for k, v in constants.items() if k in missing})
                    fn = model.bind_weights(weights)
                else:
                    fn = torch.compile(module, mode=None if mode == "default" else mode)
                out = fn(*inputs)
                torch.cuda.synchronize()
            except Exception as e:  # a failing variant is reported, not fatal
                log(f"| {name} | {precision} | {mode} | error: {type(e).__name__}: {str(e)[:160]} |")
                continue
            first_s = time.perf_counter() - t0
            call = lambda: fn(*inputs)  # noqa: E731
            for _ in range(10):
                call()
            torch.cuda.synchronize()
            out = call()
            err = rel_err(out, eager_out)
            err32 = rel_err(out, reference[name]) if name in reference else float("nan")
            ms = median_ms(call, iters)
            count, top = kernels(call)
            peak = torch.cuda.max_memory_allocated()
            if mode == "tcc":
                peak = max(peak, free_before - torch.cuda.mem_get_info()[0])
            rows.append(dict(model=name, precision=precision, mode=mode, ms=ms, kernels=count,
                             err=err, err_fp32=err32, peak_mib=peak / 2**20, first_s=first_s,
                             top=top))
            if sequence:
                rows[-1]["sequence"] = cuda_timing.kernel_sequence(call)
            log(f"| {name} | {precision} | {mode} | {ms:.3f} | {count:.0f} | {err:.1e} | "
                f"{err32:.1e} | {peak / 2**20:.0f} | {first_s:.1f} |")
            if mode in ("tcc", "eager"):
                for k, n, us in top[:8]:
                    print(f"      {n:5.1f} x {us:8.1f} µs  {k[:100]}", flush=True)
            del fn
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--precisions", default="fp32,tf32,bf16")
    ap.add_argument("--modes", default="eager,default,reduce-overhead,tcc")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--json", help="write every row (with the top kernels) here")
    ap.add_argument("--kernel-sequence", action="store_true",
                    help="with --json: each row also gets the kernels of one call in launch "
                         "order (name, device µs), to line up two variants' layers")
    a = ap.parse_args()
    names = a.only or list(bench_models.MODEL_WORKLOADS)
    print(f"Device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
          f"date {time.strftime('%Y-%m-%d')}")
    print("| model | precision | variant | ms (median) | kernels/call | rel err vs eager "
          "| vs fp32 eager | peak MiB | first call s |")
    print("|---|---|---|---|---|---|---|---|---|")
    log = lambda line: print(line, flush=True)  # noqa: E731
    rows, reference = [], {}
    for name in names:
        for precision in a.precisions.split(","):
            rows += bench(name, precision, a.modes.split(","), a.artifacts, a.iters, reference, log,
                          a.kernel_sequence)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
