#!/usr/bin/env python3
"""The CPU path against PyTorch on the CPU (issue 16), on this machine.

    python3 scripts/cpu_benchmark.py --out .cpu-bench [--only bert_base_b1_s128 ...]
        [--threads 1,2] [--repeat 20]

Each model (scripts/bench_models.py: random weights from its seed) is exported with
torch.export, compiled with `tcc compile --target cpu --external-weights`, loaded
through python/tcc with its weights bound by name, and timed beside PyTorch eager in
one process per thread count on the same inputs (torch.set_num_threads(n) and
TCC_NUM_THREADS=n, which sets the threads of oneDNN and of the
runtime's pool for the generated loops and attention), calls of the two
alternating (this host's speed drifts). Per row: the median and best of --repeat
calls after two warm-up calls, and tcc's max relative error against eager.
Prints a Markdown table.

With --baseline DIR (artifacts <model>.so that another tcc compiled the same way, e.g.
the commit before a change), those run in the same process too, their calls
alternating with the others: an A/B of two compilers on the same drifting machine.

With --onnxruntime, ONNX Runtime (PyPI onnxruntime; each model exported once with
torch.onnx.export(..., dynamo=True), which needs onnxscript) runs in the same
process on the same inputs, intra-op threads = n, inter-op 1, its calls alternating
with the other two: the peer issue 16 names as the goal beyond PyTorch.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["bert_base_b1_s128", "resnet18_b1", "mobilenet_v2_b1"]


def measure(args):
    """In a fresh process (its thread count fixed before any library loads)."""
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import bench_models
    import tcc
    torch.set_num_threads(args.threads)
    module, inputs = bench_models.build_model(args.model, "fp32")
    model = tcc.load(os.path.join(args.out, args.model + ".so"))
    # Non-persistent buffers (position ids) are lifted constants of the export too.
    weights = dict(module.state_dict())
    weights.update(dict(module.named_buffers()))
    model.bind_weights(weights)

    def timed(fns):
        """Calls the functions in turn, so that both see the same machine (this host's
        speed drifts by 2x over minutes); per function, the median and best time."""
        times = [[] for _ in fns]
        outs = [None] * len(fns)
        for i in range(args.repeat + 2):
            for j, fn in enumerate(fns):
                t0 = time.perf_counter()
                outs[j] = fn()
                if i >= 2:
                    times[j].append((time.perf_counter() - t0) * 1e3)
        for t in times:
            t.sort()
        return outs, [(t[len(t) // 2], t[0]) for t in times]

    fns = [lambda: module(*inputs), lambda: model(*inputs)]
    if args.baseline:
        base = tcc.load(os.path.join(args.baseline, args.model + ".so"))
        base.bind_weights(weights)
        fns.append(lambda: base(*inputs))
    if args.onnxruntime:
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(os.path.join(args.out, args.model + ".onnx"), options,
                                       providers=["CPUExecutionProvider"])
        feeds = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs)}
        fns.append(lambda: session.run(None, feeds)[0])
    with torch.no_grad():
        outs, times = timed(fns)
    ref, got = outs[0], outs[1]
    row = dict(model=args.model, threads=args.threads, eager_ms=times[0][0],
               eager_best_ms=times[0][1], tcc_ms=times[1][0], tcc_best_ms=times[1][1],
               rel_err=float((got - ref).abs().max() / ref.abs().max()))
    if args.baseline:
        row.update(base_ms=times[2][0], base_best_ms=times[2][1],
                   base_rel_err=float((outs[2] - ref).abs().max() / ref.abs().max()))
    if args.onnxruntime:
        ort_out = torch.from_numpy(outs[-1])
        row.update(ort_ms=times[-1][0], ort_best_ms=times[-1][1],
                   ort_rel_err=float((ort_out - ref).abs().max() / ref.abs().max()))
    print(json.dumps(row))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--only", nargs="*", default=MODELS)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--tcc", default=os.path.join(ROOT, "build", "bin", "tcc"))
    p.add_argument("--onnxruntime", action="store_true",
                   help="time ONNX Runtime too (PyPI onnxruntime and onnxscript)")
    p.add_argument("--baseline", help="a directory of <model>.so from another tcc, timed too")
    p.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--model", help=argparse.SUPPRESS)
    p.add_argument("--threads-one", type=int, dest="threads_one", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.measure:
        args.threads = args.threads_one
        return measure(args)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name in args.only:
        so = os.path.join(args.out, name + ".so")
        if not os.path.exists(so):
            export_dir = os.path.join(args.out, "exports")
            subprocess.run([sys.executable, "-c",
                            "import sys; sys.path.insert(0, sys.argv[1]); import bench_models;"
                            " bench_models.export_models(sys.argv[2], only=[sys.argv[3]],"
                            " dtypes=('fp32',))", os.path.join(ROOT, "scripts"), export_dir,
                            name], check=True)
            t0 = time.time()
            subprocess.run([args.tcc, "compile", os.path.join(export_dir, name + "_fp32",
                                                             "model.pt2"),
                            "--target", "cpu", "--external-weights", "-o", so], check=True)
            print(f"compiled {name} in {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
        onnx = os.path.join(args.out, name + ".onnx")
        if args.onnxruntime and not os.path.exists(onnx):
            subprocess.run([sys.executable, "-c",
                            "import sys, torch; sys.path.insert(0, sys.argv[1]); import bench_models;"
                            " m, x = bench_models.build_model(sys.argv[2], 'fp32');"
                            " torch.onnx.export(m, tuple(x), sys.argv[3], dynamo=True)",
                            os.path.join(ROOT, "scripts"), name, onnx], check=True,
                           capture_output=True)
        for threads in [int(t) for t in args.threads.split(",")]:
            env = dict(os.environ, TCC_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--measure",
                                  "--out", args.out, "--model", name, "--threads-one",
                                  str(threads), "--repeat", str(args.repeat)] +
                                 (["--onnxruntime"] if args.onnxruntime else []) +
                                 (["--baseline", args.baseline] if args.baseline else []),
                                 env=env, capture_output=True, text=True, check=True)
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            r = rows[-1]
            print(f"{name} threads={threads}: eager {r['eager_ms']:.1f} ms, tcc "
                  f"{r['tcc_ms']:.1f} ms" +
                  (f", baseline {r['base_ms']:.1f} ms" if args.baseline else ""),
                  file=sys.stderr, flush=True)
    def verdict(ratio):
        return f"{ratio:.2f}× slower" if ratio > 1 else f"{1 / ratio:.2f}× faster"

    ort = " ONNX Runtime ms (median · best) | tcc / ONNX Runtime |" if args.onnxruntime else ""
    base = " baseline tcc ms (median · best) | tcc / baseline |" if args.baseline else ""
    print("| model | threads | PyTorch eager ms (median · best) | tcc ms (median · best) | "
          "tcc / eager |" + base + ort + " tcc max rel err |")
    print("|---|---|---|---|---|" + ("---|---|" if args.baseline else "") +
          ("---|---|" if args.onnxruntime else "") + "---|")
    for r in rows:
        cells = (f"| {r['model']} | {r['threads']} | {r['eager_ms']:.1f} · {r['eager_best_ms']:.1f} | "
                 f"{r['tcc_ms']:.1f} · {r['tcc_best_ms']:.1f} | {verdict(r['tcc_ms'] / r['eager_ms'])} |")
        if args.baseline:
            cells += (f" {r['base_ms']:.1f} · {r['base_best_ms']:.1f} | "
                      f"{verdict(r['tcc_ms'] / r['base_ms'])} |")
        if args.onnxruntime:
            cells += (f" {r['ort_ms']:.1f} · {r['ort_best_ms']:.1f} | "
                      f"{verdict(r['tcc_ms'] / r['ort_ms'])} |")
        print(cells + f" {r['rel_err']:.1e} |")


if __name__ == "__main__":
    main()
