#!/usr/bin/env python3
"""Host latency of one whole model call on the GPU, from Python and from C,
with CUDA graphs on and off (issue 3's targets: foo and MyModule <= 10 us
from Python, <= 5 us from C).

On this machine (no GPU), compile the artifacts once:
    python3 scripts/gpu_latency.py --compile DIR [--tcc build/bin/tcc] [--arch sm_90]
On the GPU machine (torch and a C compiler there, tcc not needed):
    python3 scripts/gpu_latency.py --run DIR [--iters 10000]

For each model it reports, in microseconds:
  call      median time of one `y = model(x)` (output allocation, guards,
            launch or graph replay; the call does not wait for the GPU),
  call+sync median time of one call followed by torch.cuda.synchronize(),
  loop      wall time of ITERS back-to-back calls plus one synchronize, / ITERS,
and the same three from C (samples/c_api/bench.c, built with cc here), with
the graph counters that show which path ran. Outputs are checked against the
sample's expected_*.npy first (max relative error).
"""
import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["foo", "mymodule"]


def compile_all(outdir, tcc, arch):
    os.makedirs(outdir, exist_ok=True)
    for name in MODELS:
        so = os.path.join(outdir, name + ".so")
        t0 = time.time()
        subprocess.run([tcc, "compile", os.path.join(ROOT, "samples", name, "model.pt2"),
                        "-o", so, "--target", "cpu,cuda", "--arch", arch], check=True)
        print(f"compiled {name} in {time.time() - t0:.2f} s -> {so}")


def python_latency(model, xs, iters, warmup, torch):
    for _ in range(warmup):
        model(*xs)
    torch.cuda.synchronize()
    clock = time.perf_counter_ns
    call = []
    for _ in range(iters):
        t0 = clock()
        model(*xs)
        call.append(clock() - t0)
    torch.cuda.synchronize()
    t0 = clock()
    for _ in range(iters):
        model(*xs)
    torch.cuda.synchronize()
    loop = (clock() - t0) / iters
    sync = []
    for _ in range(iters):
        t0 = clock()
        model(*xs)
        torch.cuda.synchronize()
        sync.append(clock() - t0)
    return statistics.median(call) / 1e3, statistics.median(sync) / 1e3, loop / 1e3


def build_c_bench():
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    exe = os.path.join(tempfile.mkdtemp(prefix="tcc-bench-"), "tcc-bench")
    subprocess.run([cc, "-std=c99", "-O2", "-I", os.path.join(ROOT, "include"),
                    os.path.join(ROOT, "samples", "c_api", "bench.c"), "-o", exe, "-ldl"],
                   check=True)
    return exe


def c_latency(exe, so, iters, graphs):
    cmd = [exe, so, "-n", str(iters)] + ([] if graphs else ["--no-graphs"])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
    m = re.search(r"host_us=([\d.]+) sync_us=([\d.]+) total_us=([\d.]+)", out)
    return (float(m.group(1)), float(m.group(2)), float(m.group(3)), out) if m else (None,) * 3 + (out,)


def run_all(outdir, iters, warmup, with_c):
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tcc
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
          f"{time.strftime('%Y-%m-%d')}, {iters} calls after {warmup} warm-up")
    exe = build_c_bench() if with_c else None
    rows = []
    for name in MODELS:
        so = os.path.join(outdir, name + ".so")
        d = os.path.join(ROOT, "samples", name)
        xs = [torch.from_numpy(np.load(f)).cuda() for f in sorted(glob.glob(f"{d}/input_[0-9]*.npy"))]
        refs = [np.load(f) for f in sorted(glob.glob(f"{d}/expected_[0-9]*.npy"))]
        for graphs in (True, False):
            model = tcc.load(so)
            model.cuda_graphs = graphs
            ys = model(*xs)
            ys = ys if isinstance(ys, tuple) else (ys,)
            torch.cuda.synchronize()
            err = max(float(np.abs(y.cpu().numpy() - r).max() / max(np.abs(r).max(), 1e-30))
                      for y, r in zip(ys, refs))
            call, sync, loop = python_latency(model, xs, iters, warmup, torch)
            counters = (model.option("cuda_graph_replays"), model.option("cuda_direct_runs"),
                        model.option("cuda_graph_capture_failures"))
            row = [name, "on" if graphs else "off", f"{err:.1e}", f"{call:.2f}", f"{sync:.2f}",
                   f"{loop:.2f}"]
            if exe:
                c_call, c_sync, c_loop, text = c_latency(exe, so, iters, graphs)
                row += [f"{c_call:.2f}" if c_call else "-", f"{c_sync:.2f}" if c_sync else "-",
                        f"{c_loop:.2f}" if c_loop else "-"]
                if c_call is None:
                    print(text)
            else:
                row += ["-", "-", "-"]
            row.append("replays %d, direct %d, capture failures %d" % counters)
            rows.append(row)
            del model
    header = ["model", "graphs", "max_rel_err", "py call", "py call+sync", "py loop",
              "C call", "C call+sync", "C loop", "runtime counters (Python run)"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print("(microseconds per call; medians except 'loop')")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compile", metavar="DIR")
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--tcc", default=os.path.join(ROOT, "build", "bin", "tcc"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--iters", type=int, default=10000)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--no-c", action="store_true", help="skip the C benchmark")
    a = ap.parse_args()
    if a.compile:
        compile_all(a.compile, a.tcc, a.arch)
    if a.run:
        run_all(a.run, a.iters, a.warmup, not a.no_c)


if __name__ == "__main__":
    main()
