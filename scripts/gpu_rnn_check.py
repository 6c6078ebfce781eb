#!/usr/bin/env python3
"""The CUDA path's recurrent layers (tcc_cuda_rnn, cuDNN's RNN API) against
PyTorch, at several sequence lengths and batches. For the GPU machine (torch
there, no tcc):

  here:  python3 scripts/gpu_rnn_check.py --compile DIR     # tcc compile --target cpu,cuda
  GPU:   python3 scripts/gpu_rnn_check.py --run DIR

Models: samples/recurrent_lstm (a 2-layer bidirectional batch_first LSTM, then
a time-major 2-layer LSTM with proj_size from given h0/c0) and
samples/recurrent_gru_rnn (a 2-layer bidirectional GRU from h0, a batch_first
GRU without biases, tanh and ReLU RNNs), each exported with a symbolic batch
(1..32) and sequence length (1..512). The reference is the sample's module (make_fixtures.py) with
the exported program's weights, run by PyTorch: in float64 on the CPU (the
measure), and in float32 on the GPU with TF32 off (cuDNN, shown for scale). Fresh random inputs per case; tcc's outputs are fresh torch.empty
tensors, and each case first runs on another draw of inputs, so a value the
checked run left unwritten would hold that run's data and fail.

Per case (sequence length 1, 7, 64, 512 x batch 1, 8): every output's
max|tcc - ref64| / max|ref64|, PASS when at most max(rtol, 4 x PyTorch's own
float32 GPU error against the same reference). Then the committed fixtures
(samples/*/expected_*.npy) on the CUDA path, a third identical call (a
replayed CUDA graph) equal to the first, and weights bound again (another
draw): the outputs must follow them (cuDNN's packed weights are stale
otherwise).
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = ["recurrent_lstm", "recurrent_gru_rnn"]
SEQS = [1, 7, 64, 512]
BATCHES = [1, 8]


def inputs_for(sample, b, t, gen, torch):
    """The sample's inputs at batch b and sequence length t (make_fixtures.py's
    write_recurrent_cases)."""
    r = lambda *s: torch.randn(*s, generator=gen)
    if sample == "recurrent_lstm":
        return [r(b, t, 16), r(2, b, 8), r(2, b, 24)]
    return [r(t, b, 16), r(4, b, 32)]


def rel_err(got, ref):
    import torch
    got = got.detach().to("cpu", torch.float64)
    ref = ref.detach().to("cpu", torch.float64)
    if got.shape != ref.shape:
        return float("inf")
    if not torch.isfinite(got).all():
        return float("inf")
    scale = ref.abs().max().item() or 1.0
    return (got - ref).abs().max().item() / scale


def compile_all(outdir, tcc, arch):
    os.makedirs(outdir, exist_ok=True)
    for s in SAMPLES:
        t0 = time.time()
        subprocess.run([tcc, "compile", os.path.join(ROOT, "samples", s, "model.pt2"), "-o",
                        os.path.join(outdir, s + ".so"), "--target", "cpu,cuda", "--arch", arch],
                       check=True)
        print(f"compiled {s} in {time.time() - t0:.2f} s")


def fixture_cases(sample):
    d = os.path.join(ROOT, "samples", sample)
    key = lambda f: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", f)]
    out = [(sorted(glob.glob(f"{d}/input_[0-9].npy"), key=key),
            sorted(glob.glob(f"{d}/expected_[0-9].npy"), key=key))]
    for tag in sorted({os.path.basename(f).split("_")[1] for f in glob.glob(f"{d}/input_*x*_*.npy")}):
        out.append((sorted(glob.glob(f"{d}/input_{tag}_*.npy"), key=key),
                    sorted(glob.glob(f"{d}/expected_{tag}_*.npy"), key=key)))
    return out


def run_all(outdir, rtol):
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tcc
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(torch.cuda.get_device_name(0), "torch", torch.__version__,
          "cuDNN", torch.backends.cudnn.version())
    failures = 0
    rows = []
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import make_fixtures

    def reference(s, state):
        """The sample's module (make_fixtures.py) with the given weights."""
        cls = make_fixtures.LstmStack if s == "recurrent_lstm" else make_fixtures.GruRnnStack
        m = cls().eval()
        m.load_state_dict(state)
        return m

    for s in SAMPLES:
        ep = torch.export.load(os.path.join(ROOT, "samples", s, "model.pt2"))
        weights = ep.module().state_dict()
        ref64 = reference(s, weights).to(torch.float64)
        ref_gpu = reference(s, weights).to("cuda")
        model = tcc.load(os.path.join(outdir, s + ".so"))
        gen = torch.Generator().manual_seed(1234)
        for t in SEQS:
            for b in BATCHES:
                xs = inputs_for(s, b, t, gen, torch)
                other = inputs_for(s, b, t, gen, torch)
                with torch.no_grad():
                    want = ref64(*[x.double() for x in xs])
                    eager = ref_gpu(*[x.cuda() for x in xs])
                try:
                    model(*[x.cuda() for x in other])  # a first run of another draw
                    # Three calls on the same buffers (each call's outputs
                    # freed before the next, so their addresses repeat too):
                    # tcc's graph cache captures the second, replays the third.
                    xd = [x.cuda() for x in xs]
                    runs = []
                    for _ in range(3):
                        out = model(*xd)
                        runs.append([y.clone() for y in out])
                        del out
                    ys, ys2, ys3 = runs
                    torch.cuda.synchronize()
                except Exception as e:
                    print(f"{s:18} seq {t:3} batch {b}: ERROR {e}")
                    failures += 1
                    continue
                errs = [rel_err(y, w) for y, w in zip(ys, want)]
                torch_errs = [rel_err(e, w) for e, w in zip(eager, want)]
                same = all(torch.equal(a, c) for a, c in zip(ys, ys3)) and \
                    all(torch.equal(a, c) for a, c in zip(ys, ys2))
                ok = same and len(ys) == len(want) and all(
                    e <= max(rtol, 4 * te) for e, te in zip(errs, torch_errs))
                failures += not ok
                rows.append((s, t, b, max(errs), max(torch_errs), same, ok))
        # The committed fixtures (float32 PyTorch CPU outputs) on the CUDA path.
        for inputs, expected in fixture_cases(s):
            xs = [torch.from_numpy(np.load(f)).cuda() for f in inputs]
            ys = model(*xs)
            errs = [rel_err(y, torch.from_numpy(np.load(f))) for y, f in zip(ys, expected)]
            tag = os.path.basename(inputs[0])[len("input_"):-len(".npy")]
            ok = len(ys) == len(expected) and max(errs) <= 4 * rtol
            failures += not ok
            print(f"{s:18} fixture {tag:10} max err {max(errs):.2e} {'PASS' if ok else 'FAIL'}")
        # Captured by the caller (torch.cuda.graph): tcc's calls join the
        # caller's graph, whose replay computes what a direct call does.
        xs = [x.cuda() for x in inputs_for(s, 8, 64, gen, torch)]
        direct = model(*xs)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            model(*xs)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                captured = model(*xs)
            graph.replay()
            torch.cuda.synchronize()
            ok = all(torch.equal(a, c) for a, c in zip(direct, captured))
            note = ""
        except Exception as e:
            ok, note = False, str(e)[:100]
        failures += not ok
        print(f"{s:18} torch.cuda.graph capture and replay: {'PASS' if ok else 'FAIL'} {note}")
        # tcc's own graph cache: captures that failed fell back to direct
        # runs, which would mean a call broke stream capture.
        replays = model.option("cuda_graph_replays")
        capture_failures = model.option("cuda_graph_capture_failures")
        ok = replays > 0 and capture_failures == 0
        failures += not ok
        print(f"{s:18} tcc graph replays {replays}, capture failures {capture_failures}: "
              f"{'PASS' if ok else 'FAIL'}")
        # Weights bound again (another draw of every weight): the outputs follow.
        gen_w = torch.Generator().manual_seed(99)
        fresh = {k: torch.randn(v.shape, generator=gen_w) * 0.2 for k, v in weights.items()}
        model.bind_weights(fresh, strict=True)
        ref_new = reference(s, fresh).to(torch.float64)
        xs = inputs_for(s, 8, 64, gen, torch)
        ys = model(*[x.cuda() for x in xs])
        ys = model(*[x.cuda() for x in xs])
        with torch.no_grad():
            want = ref_new(*[x.double() for x in xs])
        err = max(rel_err(y, w) for y, w in zip(ys, want))
        ok = err <= 1e-4
        failures += not ok
        print(f"{s:18} weights bound again: max err {err:.2e} {'PASS' if ok else 'FAIL'}")
    print(f"\n{'sample':18} {'seq':>4} {'batch':>5} {'tcc err':>9} {'torch err':>9} "
          f"{'replay==':>8} result")
    for s, t, b, e, te, same, ok in rows:
        print(f"{s:18} {t:4} {b:5} {e:9.2e} {te:9.2e} {str(same):>8} {'PASS' if ok else 'FAIL'}")
    print(f"gpu_rnn_check: {failures} failures")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compile", metavar="DIR")
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--tcc", default=os.path.join(ROOT, "build", "bin", "tcc"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--rtol", type=float, default=1e-5)
    a = ap.parse_args()
    if a.compile:
        compile_all(a.compile, a.tcc, a.arch)
    if a.run:
        sys.exit(1 if run_all(a.run, a.rtol) else 0)


if __name__ == "__main__":
    main()
