#!/usr/bin/env python3
"""Where a decode step's time goes: the kernels of one step of a
decode_models.py decoder under tcc (and, with --baseline, under
torch.compile's reduce-overhead), from torch.profiler. For the GPU machine,
with artifacts compiled as for `gpu_model_benchmark.py --generate`:

  python3 scripts/gpu_decode_profile.py --artifacts DIR --only llama_1b_decode_b1

Prints per decoder: the step's time with CUDA graphs (median of CUDA
events), the kernels grouped by name (launches per step, mean and total
device µs), the device time summed over kernels against the step's time
(the rest is launch gaps), and with --sequence one layer's kernels in
launch order (CUDA graphs off, so each kernel is seen on its own).
"""
import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import cuda_timing  # noqa: E402
import decode_models  # noqa: E402
import tcc  # noqa: E402


def fill_cache(step, prompt, position):
    """Feeds the prompt one token per call up to `position` (the cache's
    filled prefix, as a generation at that point has it)."""
    for p in range(position + 1):
        step(prompt[:, p:p + 1].contiguous(), torch.tensor([p], device="cuda"))


def report(label, call, iters):
    for _ in range(10):
        call()
    torch.cuda.synchronize()
    us = cuda_timing.median_us(call, iters)
    table = cuda_timing.kernel_table(call, iters)
    device = sum(n * t for n, t in table.values())
    launches = sum(n for n, _ in table.values())
    print(f"\n### {label}: {us:.1f} µs per step, {launches:.0f} kernels, "
          f"{device:.1f} µs of device time ({100.0 * device / us:.0f}% of the step)")
    print("| kernel | per step | mean µs | µs per step | share |")
    print("|---|---|---|---|---|")
    for name, (n, t) in sorted(table.items(), key=lambda kv: -kv[1][0] * kv[1][1]):
        print(f"| {name[:90]} | {n:.0f} | {t:.2f} | {n * t:.1f} | {100.0 * n * t / us:.1f}% |")
    return us, table


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifacts", required=True, help="DIR/<name>.so, as gpu_model_benchmark")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--position", type=int, default=512)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--baseline", action="store_true", help="also torch.compile reduce-overhead")
    ap.add_argument("--sequence", action="store_true",
                    help="tcc's kernels of one step in launch order, CUDA graphs off")
    a = ap.parse_args()
    print(f"Device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    for name in a.only or list(decode_models.DECODERS):
        so = os.path.join(a.artifacts, f"{name}.so")
        if not os.path.exists(so):
            print(f"{name}: no {so}")
            continue
        wrapper, _ = decode_models.build_decoder(name, torch.bfloat16, "cuda")
        vocab, batch = decode_models.DECODERS[name][5], decode_models.DECODERS[name][6]
        torch.manual_seed(7)
        prompt = torch.randint(0, vocab, (batch, a.position + 1), device="cuda")
        token = prompt[:, a.position:a.position + 1].contiguous()
        at = torch.tensor([a.position], device="cuda")
        with torch.no_grad():
            weights = dict(wrapper.state_dict())
            weights.update(dict(wrapper.named_buffers()))
            model = tcc.load(so).bind_weights(weights)
            model.reset_state()
            fill_cache(lambda i, p: model(i, p), prompt, a.position)
            report(f"{name} tcc (CUDA graphs)", lambda: model(token, at), a.iters)
            if a.sequence:
                model.cuda_graphs = False
                seq = cuda_timing.kernel_sequence(lambda: model(token, at))
                model.cuda_graphs = True
                layers = decode_models.DECODERS[name][1]
                per_layer = max(1, len(seq) // max(layers, 1))
                print(f"\n{name}: {len(seq)} kernels launched directly; the first "
                      f"{2 * per_layer} in order (name, device µs):")
                for k, us in seq[:2 * per_layer]:
                    print(f"  {us:7.2f}  {k[:100]}")
            if a.baseline:
                torch._dynamo.reset()
                compiled = torch.compile(wrapper, mode="reduce-overhead")
                step = lambda i, p: compiled(input_ids=i, cache_position=p)  # noqa: E731
                fill_cache(step, prompt, a.position)
                report(f"{name} reduce-overhead", lambda: step(token, at), a.iters)
        del model, wrapper
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
