#!/usr/bin/env python3
"""Which kernels one tcc call runs on the GPU, and for how long (torch.profiler,
which sees every kernel of the process: tcc's own, cuBLASLt's and cuDNN's).
For the GPU machine, with artifacts compiled as for scripts/gpu_benchmark.py:

  python3 scripts/gpu_profile.py --models B [--only mymodule foo] [--iters 200]

Prints, per workload, each kernel's name, launches per call and mean device
µs, and the device µs per call summed over kernels, with CUDA graphs on (the
default) and off.
"""
import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_models  # noqa: E402
import cuda_timing  # noqa: E402
import tcc  # noqa: E402


def kernel_table(call, iters):
    for _ in range(20):
        call()
    torch.cuda.synchronize()
    return cuda_timing.kernel_table(call, iters)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--iters", type=int, default=200)
    args = ap.parse_args()
    for name, (make_module, make_inputs) in bench_models.workloads().items():
        if args.only and name not in args.only:
            continue
        so = os.path.join(args.models, name, "model.so")
        if not os.path.exists(so):
            continue
        module = make_module().cuda().eval()
        inputs = tuple(t.cuda() for t in make_inputs())
        model = tcc.load(so).bind_weights(module.state_dict())
        iters = args.iters if inputs[0].numel() < 1 << 20 else max(5, args.iters // 20)
        for graphs in (True, False):
            model.cuda_graphs = graphs
            table = kernel_table(lambda: model(*inputs), iters)
            total = sum(per_call * us for per_call, us in table.values())
            print(f"== {name}, CUDA graphs {'on' if graphs else 'off'}: "
                  f"{total:.2f} device µs per call in {sum(p for p, _ in table.values()):.1f} kernels")
            for kname, (per_call, us) in sorted(table.items(), key=lambda kv: -kv[1][0] * kv[1][1]):
                print(f"   {per_call:5.2f} x {us:9.2f} µs  {kname[:110]}")


if __name__ == "__main__":
    main()
