#!/usr/bin/env python3
"""Models with state on the GPU: each call of a sample's steps/ (written by
scripts/make_stateful_fixtures.py from eager PyTorch) run in order on one
instance through the Python loader, every output compared with PyTorch's,
then the states with PyTorch's buffers after the same calls.

On this machine (no GPU), compile the artifacts once:
    scripts/gpu_state_check.py --compile DIR        # tcc compile --target cpu,cuda
On the GPU machine (torch installed, no tcc needed):
    python3 scripts/gpu_state_check.py --run DIR
Each sample runs three ways on a fresh state: CUDA with CUDA graphs (the
default), CUDA launching directly, and alternating CPU and CUDA calls (the
state moves between the paths). fp32 tolerance: max|out - ref| / max|ref|
<= 1e-5 (--precision tf32: 2e-3, bf16: 2e-2).
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = ["running_sum", "running_sum_core", "kv_cache_decoder_b1", "kv_cache_decoder_b8",
           "llama_static_cache"]
TOLERANCE = {"fp32": 1e-5, "tf32": 2e-3, "bf16": 2e-2}


def compile_all(out, tcc, precisions):
    os.makedirs(out, exist_ok=True)
    for precision in precisions:
        for s in SAMPLES:
            so = os.path.join(out, f"{s}.{precision}.so")
            cmd = [tcc, "compile", os.path.join(ROOT, "samples", s, "model.pt2"),
                   "--target", "cpu,cuda", "--precision", precision, "-o", so]
            r = subprocess.run(cmd, capture_output=True, text=True)
            print(f"compiled {os.path.basename(so)}" if r.returncode == 0
                  else f"FAILED {' '.join(cmd)}\n{r.stderr}")


def relative_error(out, ref):
    import numpy as np
    out = out.astype(np.float64)
    ref = ref.astype(np.float64)
    scale = np.abs(ref).max()
    err = np.abs(out - ref).max()
    return err / scale if scale > 0 else err


def run_sample(path, sample, mode, tol):
    import numpy as np
    import torch
    import tcc
    m = tcc.load(path)
    m.cuda_graphs = mode != "direct"
    m.reset_state()
    d = os.path.join(ROOT, "samples", sample, "steps")
    worst, first_fail = 0.0, None
    steps = sorted(os.listdir(d))
    for k, step in enumerate(steps):
        sd = os.path.join(d, step)
        inputs = [torch.from_numpy(np.load(os.path.join(sd, f"input_{i}.npy")))
                  for i in range(len(m.manifest["inputs"]))]
        device = "cpu" if mode == "alternate" and k % 3 == 1 else "cuda"
        outs = m.run_flat([t.to(device) for t in inputs])
        for i, o in enumerate(outs):
            ref = np.load(os.path.join(sd, f"expected_{i}.npy"))
            e = relative_error(o.float().cpu().numpy(), ref)
            worst = max(worst, e)
            if e > tol and first_fail is None:
                first_fail = f"step {step} output {i}: {e:.3g}"
    state = m.state("cuda")
    for name, t in state.items():
        ref = np.load(os.path.join(ROOT, "samples", sample, "state_after", name + ".npy"))
        e = relative_error(t.float().cpu().numpy(), ref)
        worst = max(worst, e)
        if e > tol and first_fail is None:
            first_fail = f"state {name}: {e:.3g}"
    replays = m.option("cuda_graph_replays")
    return len(steps), worst, first_fail, replays


def generate_sample(path, sample):
    """Greedy generation on the CUDA path against PyTorch's greedy tokens
    (SAMPLE/generate/), token for token; with the decode calls' time."""
    import numpy as np
    import tcc
    g = os.path.join(ROOT, "samples", sample, "generate")
    if not os.path.isdir(g):
        return None
    m = tcc.load(path)
    ref = np.load(os.path.join(g, "tokens.npy"))
    tokens = m.generate(np.load(os.path.join(g, "prompt.npy")), ref.shape[1], device="cuda")
    stats = m.last_generate_stats
    equal = tokens.shape == ref.shape and bool((tokens.numpy() == ref).all())
    return equal, stats["decode_ms"] / max(stats["decode_calls"], 1)


def run_all(out, precisions):
    import torch
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
    failed = 0
    print(f"{'sample':24} {'precision':9} {'mode':10} {'calls':>5} {'worst rel':>10} "
          f"{'graph replays':>13}  result")
    for precision in precisions:
        for s in SAMPLES:
            path = os.path.join(out, f"{s}.{precision}.so")
            if not os.path.exists(path):
                print(f"{s:24} {precision:9} missing {path}")
                failed += 1
                continue
            for mode in ("graphs", "direct", "alternate"):
                try:
                    n, worst, fail, replays = run_sample(path, s, mode, TOLERANCE[precision])
                except Exception as e:  # noqa: BLE001 - reported as a failure
                    print(f"{s:24} {precision:9} {mode:10} error: {e}")
                    failed += 1
                    continue
                failed += fail is not None
                print(f"{s:24} {precision:9} {mode:10} {n:5} {worst:10.3g} {replays:13}  "
                      f"{'PASS' if fail is None else 'FAIL ' + fail}")
            if precision == "fp32":
                try:
                    result = generate_sample(path, s)
                except Exception as e:  # noqa: BLE001 - reported as a failure
                    result = (False, 0.0)
                    print(f"{s:24} {precision:9} generate   error: {e}")
                if result is not None:
                    equal, ms = result
                    failed += not equal
                    print(f"{s:24} {precision:9} generate   greedy tokens "
                          f"{'equal PyTorch' if equal else 'DIFFER'}, {ms:.3f} ms per token "
                          f"(host loop, logits copied back)")
    print(f"gpu state check: {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compile", metavar="DIR")
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--tcc", default=os.path.join(ROOT, "build", "bin", "tcc"))
    ap.add_argument("--precisions", default="fp32", help="comma-separated: fp32,tf32,bf16")
    args = ap.parse_args()
    precisions = args.precisions.split(",")
    if args.compile:
        compile_all(args.compile, args.tcc, precisions)
        return 0
    if args.run:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        return run_all(args.run, precisions)
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
