#!/usr/bin/env python3
"""Recurrent layers on the GPU: PyTorch eager (cuDNN), torch.compile (default
and mode="reduce-overhead") and tcc (cuDNN's RNN API through tcc_cuda_rnn), in
one run on the same inputs. For the GPU machine (torch there, no tcc):

  here:  python3 scripts/gpu_rnn_bench.py --compile DIR    # export + tcc compile --target cpu,cuda
  GPU:   python3 scripts/gpu_rnn_bench.py --run DIR

Workloads: nn.LSTM and nn.GRU, 2 layers, bidirectional, batch_first, input
128, hidden 256, batch 8, sequence length 128 and 512; fp32 with TF32 off
(torch.backends.cudnn.allow_tf32 = False; tcc compiled without --precision:
CUDNN_FMA_MATH). One artifact per layer, exported with a symbolic batch and
sequence length (torch.export._patches' shapes-only trick of
make_fixtures.py), weights seeded, so the GPU run rebuilds the same module
and binds its weights (the artifacts are compiled with --external-weights).
Reported per workload and variant: the median of per-call CUDA-event times
(after warm-up) and the max relative error of the first output against eager
(max|out - eager| / max|eager|). Timings go to this table, never to tests.
"""
import argparse
import contextlib
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ["lstm", "gru"]
SEQS = [128, 512]
BATCH = 8
INPUT, HIDDEN = 128, 256


def make_module(kind, torch):
    torch.manual_seed(7 if kind == "lstm" else 8)
    cls = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
    return cls(INPUT, HIDDEN, num_layers=2, bidirectional=True, batch_first=True).eval()


def export_all(outdir, tcc, arch):
    import torch
    from torch.export import _patches
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from make_fixtures import _recurrence_shapes_only
    os.makedirs(outdir, exist_ok=True)
    batch = torch.export.Dim("batch", min=1, max=64)
    seq = torch.export.Dim("seq", min=1, max=1024)
    for kind in LAYERS:
        m = make_module(kind, torch)
        x = torch.randn(BATCH, 16, INPUT)
        with contextlib.ExitStack() as stack, torch.no_grad():
            for op in ("lstm", "gru"):
                stack.enter_context(_patches._register_rnn_while_loop_decomposition(
                    getattr(torch.ops.aten, op).input, _recurrence_shapes_only(op == "lstm")))
            ep = torch.export.export(m, (x,), dynamic_shapes=({0: batch, 1: seq},))
        pt2 = os.path.join(outdir, kind + ".pt2")
        torch.export.save(ep, pt2)
        t0 = time.time()
        subprocess.run([tcc, "compile", pt2, "-o", os.path.join(outdir, kind + ".so"),
                        "--target", "cpu,cuda", "--arch", arch, "--external-weights"], check=True)
        print(f"exported and compiled {kind} in {time.time() - t0:.2f} s")


def time_fn(fn, torch, warmup=10, iters=50):
    """Median of per-call CUDA-event times (ms) on the current stream."""
    from cuda_timing import median_us
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    return median_us(fn, iters) / 1000.0


def rel_err(got, ref):
    got, ref = got.float(), ref.float()
    return ((got - ref).abs().max() / ref.abs().max()).item()


def setup(torch):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def compiled_row(kind, t, mode):
    """One torch.compile variant, timed in this process: (ms, err, compile s)."""
    import torch
    setup(torch)
    m = make_module(kind, torch).cuda()
    gen = torch.Generator(device="cuda").manual_seed(t)
    x = torch.randn(BATCH, t, INPUT, device="cuda", generator=gen)
    with torch.no_grad():
        ref = m(x)[0]
        t0 = time.time()
        c = torch.compile(m, mode=mode, dynamic=False)
        c(x)
        c(x)
        torch.cuda.synchronize()
        compile_s = time.time() - t0
        fn = lambda: c(x)
        err = rel_err(fn()[0], ref)
        ms = time_fn(fn, torch)
    return ms, err, compile_s


def run_all(outdir, budget):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tcc
    setup(torch)
    deadline = time.time() + budget
    device = torch.cuda.get_device_name(0)
    print(device, "torch", torch.__version__, "cuDNN", torch.backends.cudnn.version(), flush=True)
    rows = []

    def report(row):
        rows.append(row)
        kind, t, name, ms, err, note = row
        print(f"  {kind} seq {t} {name}: {ms if ms is None else round(ms, 4)} ms, "
              f"err {err} {note}", flush=True)

    # Eager and tcc first, in this process.
    for kind in LAYERS:
        m = make_module(kind, torch).cuda()
        artifact = tcc.load(os.path.join(outdir, kind + ".so"))
        # Compiled with --external-weights: bound from the seeded module.
        artifact.bind_weights(make_module(kind, torch).state_dict())
        for t in SEQS:
            gen = torch.Generator(device="cuda").manual_seed(t)
            x = torch.randn(BATCH, t, INPUT, device="cuda", generator=gen)
            with torch.no_grad():
                ref = m(x)[0]
                for name, fn in [("eager (cuDNN)", lambda: m(x)),
                                 ("tcc (cuDNN RNN)", lambda: artifact(x))]:
                    try:
                        err = rel_err(fn()[0], ref)
                        report((kind, t, name, time_fn(fn, torch), err, ""))
                    except Exception as e:  # report, go on
                        report((kind, t, name, None, None, str(e)[:80]))
    # torch.compile, each variant in a child process that must end before the
    # deadline (an inductor compile of a recurrence can take minutes).
    for kind in LAYERS:
        for t in SEQS:
            for mode in ("default", "reduce-overhead"):
                name = "torch.compile " + mode
                left = deadline - time.time()
                if left < 20:
                    report((kind, t, name, None, None, "skipped: out of the time budget"))
                    continue
                try:
                    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--compiled",
                                        kind, str(t), mode], capture_output=True, text=True,
                                       timeout=left)
                    line = [l for l in p.stdout.splitlines() if l.startswith("ROW ")]
                    if not line:
                        report((kind, t, name, None, None,
                                "failed: " + (p.stderr.strip().splitlines() or ["?"])[-1][:80]))
                        continue
                    ms, err, compile_s = (float(v) for v in line[-1].split()[1:])
                    report((kind, t, name, ms, err, f"(compile {compile_s:.0f} s)"))
                except subprocess.TimeoutExpired:
                    report((kind, t, name, None, None, "stopped: out of the time budget"))
    print(f"\n{device}, batch {BATCH}, input {INPUT}, hidden {HIDDEN}, 2 layers, "
          f"bidirectional, batch_first, fp32 (TF32 off); median of 50 calls, CUDA events")
    print(f"{'layer':5} {'seq':>4} {'variant':30} {'ms':>8} {'max rel err':>12}")
    for kind, t, name, ms, err, note in sorted(rows, key=lambda r: (r[0], r[1])):
        ms_s = f"{ms:8.3f}" if ms is not None else "       -"
        err_s = f"{err:12.2e}" if err is not None else "           -"
        print(f"{kind:5} {t:4} {name:30} {ms_s} {err_s} {note}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compile", metavar="DIR")
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--tcc", default=os.path.join(ROOT, "build", "bin", "tcc"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--budget", type=float, default=300.0,
                    help="seconds for the whole run; torch.compile variants not started "
                         "or not done by then are reported as skipped")
    ap.add_argument("--compiled", nargs=3, metavar=("LAYER", "SEQ", "MODE"),
                    help=argparse.SUPPRESS)  # one torch.compile variant (a child process)
    a = ap.parse_args()
    if a.compiled:
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        kind, t, mode = a.compiled
        print("ROW %r %r %r" % compiled_row(kind, int(t), mode))
        return
    if a.compile:
        export_all(a.compile, a.tcc, a.arch)
    if a.run:
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        run_all(a.run, a.budget)


if __name__ == "__main__":
    main()
