#!/usr/bin/env python3
"""Per-kernel GPU times of a tcc artifact compiled with --profile, as the JSON
`tcc inspect --html report.html --profile times.json` draws (the same format
as `tcc run --profile-json`). For the GPU machine; needs torch with CUDA and
tcc's python/ (the loader goes through the artifact's C ABI, not the tcc CLI):

  tcc compile model.pt2 --profile -o model.so          # here, any machine
  python3 scripts/gpu_kernel_times.py model.so -o times.json [--iters 100]
  tcc inspect model.so --html report.html --profile times.json

Inputs are random tensors of the manifest's shapes (each symbol at its hint,
else its lower bound; --symbol s77=8 to choose), on the GPU. Weights are the
embedded ones, or <model>.weights.bin beside model.so. The first --warmup runs
are not counted; then --iters runs are timed with an event per kernel (CUDA
graphs off while profiling). Prints the table `tcc run --profile` prints.
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tcc  # noqa: E402

DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
          "float64": "float64", "int64": "int64", "int32": "int32", "int8": "int8",
          "uint8": "uint8", "bool": "bool"}


def symbol_values(manifest, chosen):
    values = {}
    for name, s in manifest.get("symbols", {}).items():
        values[name] = chosen.get(name, s.get("hint", s.get("min", 1)))
    return values


def size_of(expr, values):
    if isinstance(expr, int):
        return expr
    return int(eval(str(expr), {"__builtins__": {}}, dict(values)))  # sizes like "s0*2"


def make_inputs(manifest, values, torch, device):
    inputs = []
    for spec in manifest["inputs"]:
        shape = [size_of(d, values) for d in spec["sizes"]]
        dtype = getattr(torch, DTYPES.get(spec["dtype"], spec["dtype"]))
        if dtype.is_floating_point:
            t = torch.randn(shape, device=device).to(dtype)
        elif dtype == torch.bool:
            t = torch.rand(shape, device=device) > 0.5
        else:
            t = torch.randint(0, 2, shape, device=device, dtype=dtype)
        inputs.append(t)
    return inputs


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="model.so compiled with tcc compile --profile")
    ap.add_argument("-o", "--output", default="times.json")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--symbol", action="append", default=[], help="NAME=VALUE")
    args = ap.parse_args()
    import torch

    model = tcc.load(args.model)
    weights = os.path.splitext(args.model)[0] + ".weights.bin"
    if os.path.exists(weights):
        model.load_weights(weights)
    if not model.manifest.get("profile"):
        sys.exit(f"{args.model}: not compiled with tcc compile --profile")
    chosen = dict(s.split("=", 1) for s in args.symbol)
    values = symbol_values(model.manifest, {k: int(v) for k, v in chosen.items()})
    inputs = make_inputs(model.manifest, values, torch, args.device)
    for _ in range(args.warmup):
        model(*inputs)
    if args.device == "cuda":
        torch.cuda.synchronize()
    model.profiling = True
    for _ in range(args.iters):
        model(*inputs)
    if args.device == "cuda":
        torch.cuda.synchronize()
        device = "cuda " + torch.cuda.get_device_name()
    else:
        device = "cpu"
    times = model.profile(device=device)
    model.profiling = False
    with open(args.output, "w") as f:
        json.dump(times, f, indent=2)
        f.write("\n")
    total = sum(k["total_ms"] for k in times["kernels"]) or 1.0
    runs = times["calls"] or 1
    print(f"profile: {times['calls']} runs on {device}, {len(times['kernels'])} kernels, "
          f"{total * 1000 / runs:.1f} us per run in kernels")
    print(f"  {'index':>5}  {'kind':<10} {'calls':>7} {'mean us':>11} {'share':>7} "
          f"{'GFLOP/s':>9} {'GB/s':>8}  detail")
    counted = model.manifest.get("kernels", [])

    def rate(k, name):
        """The kernel's rate from the compiler's count (KernelCost.h), or "-"."""
        n = counted[k["index"]].get(name) if k["index"] < len(counted) else None
        return f"{n / (k['mean_ms'] * 1e-3) / 1e9:.1f}" if n is not None and k["mean_ms"] > 0 else "-"

    for k in sorted(times["kernels"], key=lambda k: -k["total_ms"]):
        print(f"  {k['index']:>5}  {k['kind']:<10} {k['calls']:>7} {k['mean_ms'] * 1000:>11.2f} "
              f"{100 * k['total_ms'] / total:>6.1f}% {rate(k, 'flops'):>9} {rate(k, 'bytes'):>8}  "
              f"{k['detail']}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
