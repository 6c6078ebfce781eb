#!/usr/bin/env python3
"""The operator sweep (issue 15): every OpInfo in PyTorch's operator test database
(torch.testing._internal.common_methods_invocations.op_db) with float32 samples, each
sample exported as a module calling the op, compiled by tcc, run, and compared with
PyTorch eager on the same inputs.

    python3 scripts/opinfo_sweep.py --out .sweep                  # every op, 4 samples each
    python3 scripts/opinfo_sweep.py --out .sweep --max-samples 0  # every sample (hours)
    python3 scripts/opinfo_sweep.py --out .sweep --ops add,softmax --table COVERAGE-sweep.md
    python3 scripts/opinfo_sweep.py --out .sweep --pack-device .gpu/sweep   # then on the GPU:
    python3 scripts/opinfo_sweep.py --out .sweep-cuda --run-device .gpu/sweep --device cuda
    python3 scripts/opinfo_sweep.py --out .sweep --ops-file test/Scripts/opinfo-ci-ops.txt \
        --max-samples 3 --fail-on mismatch,internal                # CI's subset
    python3 scripts/opinfo_sweep.py --out .sweep-dyn --dynamic     # symbolic sizes
    python3 scripts/opinfo_sweep.py --out .sweep-bf16 --dtype bfloat16
    python3 scripts/opinfo_sweep.py --columns float32=.sweep,dynamic=.sweep-dyn,\
        bfloat16=.sweep-bf16 --table sweep-columns.md              # the three side by side

Each sample ends in one of:
  pass         tcc's outputs match eager's (shapes, dtypes, values within tolerance)
  mismatch     tcc compiled and ran but answered differently: a silent wrong answer
  refused      `tcc compile` exit 1 (the first line of its message is kept)
  internal     `tcc compile` exit 3, another exit code, a crash, or a run-time error
  not-exported torch.export could not export the sample (not counted in the share)
Random ops (their outputs are draws) and ops returning uninitialised memory are left out.

Sign-ambiguous outputs: singular vectors and eigenvectors are unique only up to sign
(PyTorch documents this for exactly linalg.eigh, linalg.svd and svd; its CPU and CUDA
answers differ). For those ops, and only those outputs, each of tcc's vectors is first
multiplied by the sign (+-1) that makes it point the way eager's does (its dot product with
eager's vector is >= 0), then compared elementwise at the usual tolerances. For svd the
sign is taken from the left vector and given to the right one too (one sign per singular
triple, so U diag(S) Vh must still be eager's product). Everything else, eigenvalues and
singular values included, is compared as it is.

Tolerances (stated per dtype): float32 |tcc - eager| <= 1e-5 + 1e-4 |eager| elementwise,
NaN where eager has NaN, infinities equal; float64 1e-9 + 1e-7; float16 1e-3 + 1e-2;
bfloat16 1e-3 + 1.6e-2 (two of bfloat16's ulps; torch.testing's rtol for it); integer and
bool outputs exact. A bfloat16 mismatch also counts, for each side, the elements outside
that tolerance of the op computed in float64 on the same inputs (where the op runs in
float64), so a precision difference (tcc nearer the float64 answer than eager, or as near)
reads apart from a wrong answer.

--dtype bfloat16: the samples OpInfo draws in bfloat16 instead of float32 (ops without
bfloat16 support left out), compared at bfloat16's tolerances.

--dynamic: every dim of every tensor input exported as torch.export.Dim.AUTO (export
keeps it symbolic unless the op's code specializes it: sizes 0 and 1 always are), at most
max(64, twice its size) (tcc plans memory at the largest sizes an export allows, and
refuses a product of unbounded dims: that one refusal would hide everything else); where
that export fails the sample is exported with static shapes and says so (`dynamic:
"static"`). The model is run at the export's shapes and then at a second set: each
symbol of the export one larger (else two larger, else one smaller), every input dim
recomputed from its symbolic size, the inputs grown by repeating their values along
those dims (indices stay in range) with fresh float values drawn between the
tensor's min and max in the new places (no new ties). A second set counts only where
the export's own guards accept it (ExportedProgram.module()) and eager runs on it;
otherwise the record says why none was run (`second`). The sample passes when both
runs match eager.

Samples run in long-lived worker processes (`--jobs`, default 2), one op at a time; a
worker that dies takes only the sample it was running with it (reported as internal) and
a fresh one goes on from the next sample. Results are appended to OUT/results.jsonl (a
rerun with --resume skips what is there); --table writes the per-op table in Markdown.
Needs the `expecttest` package (PyTorch's test utilities import it).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Outputs that are draws from a random generator, or uninitialised memory: nothing to
# compare against.
NONDETERMINISTIC = (
    "bernoulli", "normal", "rand", "randn", "randint", "rand_like", "randn_like",
    "randint_like", "multinomial", "uniform", "cauchy", "exponential", "geometric",
    "log_normal", "dropout", "empty", "empty_like", "new_empty", "empty_strided",
    "new_empty_strided", "empty_permuted", "nn.functional.dropout", "nn.functional.dropout2d",
    "nn.functional.dropout3d", "nn.functional.alpha_dropout",
    "nn.functional.feature_alpha_dropout", "nn.functional.rrelu", "randperm",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
    "nn.functional.gumbel_softmax", "torch.ops.aten._efficientzerotensor",
)

TOLERANCES = {"float32": (1e-5, 1e-4), "float64": (1e-9, 1e-7),
              "float16": (1e-3, 1e-2), "bfloat16": (1e-3, 1.6e-2)}


def op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


# op -> (output whose vectors fix the signs, [(output, vector layout)]): "cols" when the
# vectors are the columns of the last two dims, "rows" when they are rows (Vh).
SIGN_AMBIGUOUS = {
    "linalg.eigh": (1, [(1, "cols")]),
    "linalg.svd": (0, [(0, "cols"), (2, "rows")]),
    "svd": (0, [(0, "cols"), (2, "cols")]),
}


def align_signs(key, got, want, torch):
    """tcc's outputs with each sign-ambiguous vector flipped to point eager's way."""
    spec = SIGN_AMBIGUOUS.get(key)
    if not spec:
        return got
    ref, outputs = spec
    got = list(got)
    g, w = got[ref], want[ref]
    if not isinstance(g, torch.Tensor) or g.shape != w.shape or g.dim() < 2 or g.numel() == 0:
        return got
    dots = (g.double() * w.double().to(g.device)).sum(-2)      # [..., k], one per column
    signs = torch.where(dots < 0, -1.0, 1.0).to(g.dtype)
    for n, layout in outputs:
        x = got[n]
        if not isinstance(x, torch.Tensor) or x.dim() < 2 or x.numel() == 0:
            continue
        s = signs.unsqueeze(-2) if layout == "cols" else signs.unsqueeze(-1)
        if torch.broadcast_shapes(s.shape, x.shape) != x.shape:
            continue
        got[n] = x * s.to(x.device)
    return got


def compare(got, want, torch):
    """Why tcc's output differs from eager's at the stated tolerances, or None."""
    if not isinstance(got, torch.Tensor):
        return f"tcc gave {type(got).__name__}, eager a tensor"
    if tuple(got.shape) != tuple(want.shape):
        return f"shape {tuple(got.shape)}, eager {tuple(want.shape)}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, eager {want.dtype}"
    got, want = got.cpu(), want.cpu()
    if want.numel() == 0:
        return None
    if want.dtype.is_floating_point:
        atol, rtol = TOLERANCES.get(str(want.dtype).replace("torch.", ""), (1e-5, 1e-4))
        g, w = got.double(), want.double()
        nan_w, nan_g = torch.isnan(w), torch.isnan(g)
        if not torch.equal(nan_w, nan_g):
            return (f"NaN at {int((nan_g & ~nan_w).sum())} places eager has none, "
                    f"a number at {int((nan_w & ~nan_g).sum())} places eager has NaN")
        inf_w = torch.isinf(w)
        if not torch.equal(g[inf_w], w[inf_w]) or torch.isinf(g[~inf_w]).any():
            return "infinities differ"
        fin = ~nan_w & ~inf_w
        err = (g[fin] - w[fin]).abs()
        bound = atol + rtol * w[fin].abs()
        if (err > bound).any():
            i = int((err - bound).argmax())
            return (f"max abs err {float(err.max()):.3g} "
                    f"(at eager {float(w[fin][i]):.6g}, tcc {float(g[fin][i]):.6g})")
        return None
    if want.is_complex():
        return None if torch.allclose(got, want, rtol=1e-4, atol=1e-5) else "complex differs"
    if not torch.equal(got, want):
        return f"{int((got != want).sum())} of {want.numel()} elements differ"
    return None



def sample_module(op, sample, torch, pytree):
    """A module calling the op on the sample (tensors as its inputs, everything
    else fixed) and those inputs; a factory op (arange, full, eye) takes no
    tensor, so its module gets one it does not read."""
    leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    tensor_at = [i for i, v in enumerate(leaves) if isinstance(v, torch.Tensor)]
    tensors = [leaves[i] for i in tensor_at]
    unused = [] if tensors else [torch.zeros(1)]
    fn = op.op

    class Sample(torch.nn.Module):
        def forward(self, *xs):
            filled = list(leaves)
            for i, x in zip(tensor_at, xs):
                filled[i] = x
            inp, a, kw = pytree.tree_unflatten(filled, spec)
            out = fn(inp, *a, **kw)
            # Named tuples (torch.return_types.max, sort, topk) and lists as plain
            # tuples: torch.export cannot save the former.
            return tuple(out) if isinstance(out, (tuple, list)) else out

    return Sample(), tuple(t.detach().clone() for t in tensors + unused)


# ---------------------------------------------------------------------------
# Worker side: runs in its own process, reads "op_key start" lines on stdin.

def worker_main(args):
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.utils import _pytree as pytree
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tcc

    ops = {op_key(op): op for op in op_db}
    device = args.device
    dtype = getattr(torch, args.dtype)

    def emit(**record):
        sys.stdout.write(json.dumps(record) + "\n")
        sys.stdout.flush()

    def samples_of(op):
        torch.manual_seed(0)
        return list(op.sample_inputs(device, dtype, requires_grad=False))

    for line in sys.stdin:
        key, start = line.split()
        start = int(start)
        op = ops[key]
        try:
            samples = samples_of(op)
        except Exception as e:  # the op's own sample generator fails here
            emit(op=key, sample=-1, status="not-exported", message=f"samples: {e}"[:300])
            emit(op=key, done=True)
            continue
        limit = len(samples) if args.max_samples <= 0 else min(len(samples), args.max_samples)
        for i in range(start, limit):
            emit(op=key, sample=i, begin=True)
            record = run_sample(key, i, *sample_module(op, samples[i], torch, pytree), torch,
                                pytree, tcc, args)
            emit(op=key, sample=i, **record)
        emit(op=key, done=True)


def export_sample(module, inputs, torch, args):
    """The sample's ExportedProgram; with --dynamic, every dim Dim.AUTO where export
    allows it, else static. Returns (program, how): how is None without --dynamic,
    "auto" or "static" (the dynamic export failed) with it."""
    xs = tuple(t.clone() for t in inputs)
    if not args.dynamic:
        return torch.export.export(module, xs), None
    auto = torch.export.Dim.AUTO
    spec = (tuple({d: auto(max=max(64, 2 * n)) for d, n in enumerate(t.shape)}
                  for t in inputs),)  # forward(*xs)
    try:
        return torch.export.export(module, xs, dynamic_shapes=spec), "auto"
    except Exception:
        return torch.export.export(module, tuple(t.clone() for t in inputs)), "static"


def symbolic_sizes(ep, inputs, torch):
    """Each user input's sizes as the export sees them (ints or sympy expressions) and
    each symbol's value at the export's shapes."""
    names = set(ep.graph_signature.user_inputs)
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder" and n.name in names]
    sizes, values = [], {}
    for node, t in zip(placeholders, inputs):
        val = node.meta.get("val")
        dims = []
        for j, d in enumerate(val.shape if isinstance(val, torch.Tensor) else t.shape):
            if isinstance(d, torch.SymInt):
                expr = d.node.expr
                if expr.is_Symbol:
                    values[expr] = int(t.shape[j])
                dims.append(expr)
            else:
                dims.append(int(d))
        sizes.append(dims)
    return sizes, values


def grown(t, shape, gen, torch):
    """t resized to shape: its values repeated along each dim that changed, fresh
    floats between its min and max where it had none."""
    out, new = t, torch.zeros((), dtype=torch.bool)
    for d, (n, m) in enumerate(zip(t.shape, shape)):
        if n == m:
            continue
        idx = torch.arange(m) % n
        out = out.index_select(d, idx)
        view = [1] * t.dim()
        view[d] = m
        new = new | (torch.arange(m) >= n).view(view)
    if t.dtype.is_floating_point and out.numel() and t.numel():
        fin = t[torch.isfinite(t)].double()
        lo, hi = (float(fin.min()), float(fin.max())) if fin.numel() else (0.0, 1.0)
        fresh = lo + (hi - lo) * torch.rand(tuple(shape), generator=gen, dtype=torch.float64)
        out = torch.where(new, fresh.to(t.dtype), out)
    return out.contiguous()


def range_of(r):
    """A symbol's (min, max or None) from the export's range constraints."""
    if r is None:
        return 0, None
    try:
        hi = int(r.upper)
    except (TypeError, ValueError, OverflowError):
        hi = None
    try:
        lo = int(r.lower)
    except (TypeError, ValueError, OverflowError):
        lo = 0
    return lo, hi


def second_shapes(ep, module, inputs, torch):
    """(inputs, eager outputs) at a second set of shapes the export admits and eager
    runs on, or (None, why not)."""
    sizes, values = symbolic_sizes(ep, inputs, torch)
    if not values:
        return None, "no symbolic dim"
    ranges = ep.range_constraints
    why = "no second shapes"
    for delta in (1, 2, -1):
        vals = {}
        for sym, v in values.items():
            lo, hi = range_of(ranges.get(sym))
            w = v + delta
            if w < lo or (hi is not None and w > hi):
                w = v
            vals[sym] = w
        if vals == values:
            continue
        shapes = [[d if isinstance(d, int) else int(d.xreplace(vals)) for d in dims]
                  for dims in sizes]
        if any(x < 0 for shape in shapes for x in shape):
            continue
        gen = torch.Generator().manual_seed(1)
        xs = [grown(t, shape, gen, torch) for t, shape in zip(inputs, shapes)]
        try:
            ep.module()(*[x.clone() for x in xs])
        except Exception as e:
            why = f"the export's guards refuse {shapes}: {str(e).splitlines()[0][:120]}"
            continue
        try:
            with torch.no_grad():
                want = module(*[x.clone() for x in xs])
        except Exception as e:
            why = f"eager raises at {shapes}: {str(e).splitlines()[0][:120]}"
            continue
        return (xs, want), None
    return None, why


def float64_note(module, inputs, got, want, torch, pytree):
    """For a bfloat16 mismatch: how many elements of tcc's and of eager's outputs are
    outside bfloat16's tolerance of the op run in float64 on the same inputs, or ''
    where it does not run there."""
    try:
        with torch.no_grad():
            ref = pytree.tree_leaves(module(*[t.double() if t.dtype.is_floating_point else t
                                              for t in inputs]))
    except Exception:
        return ""
    atol, rtol = TOLERANCES["bfloat16"]
    off = [0, 0]
    for g, w, r in zip(got, want, ref):
        if not (isinstance(r, torch.Tensor) and r.dtype.is_floating_point and
                isinstance(g, torch.Tensor) and g.shape == r.shape == w.shape):
            continue
        fin = torch.isfinite(r)
        for k, x in enumerate((g, w)):
            x = x.cpu().double()
            off[k] += int(((x[fin] - r[fin]).abs() > atol + rtol * r[fin].abs()).sum())
    return f"; off float64's answer: tcc {off[0]} elements, eager {off[1]}"


def check_outputs(key, got, want_leaves, inputs, module, torch, pytree, args):
    """Why tcc's outputs differ from eager's, or None."""
    got_leaves = list(got) if isinstance(got, tuple) else [got]
    if len(got_leaves) != len(want_leaves):
        return f"{len(got_leaves)} outputs, eager {len(want_leaves)}"
    got_leaves = align_signs(key, got_leaves, want_leaves, torch)
    for n, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        why = compare(g, w, torch)
        if why:
            shapes = [tuple(t.shape) for t in inputs]
            note = ""
            if args.dtype == "bfloat16":
                note = float64_note(module, inputs, got_leaves, want_leaves, torch, pytree)
            return f"output {n}: {why}; inputs {shapes}{note}"
    return None


def run_sample(key, index, module, inputs, torch, pytree, tcc, args):
    """Exports one sample's module, compiles it, runs it; returns the record's fields.
    Its .pt2 and .so are kept only for a mismatch or an internal error (to reproduce
    it), unless --keep: a whole sweep's models take gigabytes."""
    record = sample_record(key, index, module, inputs, torch, pytree, tcc, args)
    if not args.keep and record["status"] not in ("mismatch", "internal"):
        stem = os.path.join(args.out, "work", key.replace("/", "_"), str(index))
        for path in (stem + ".pt2", stem + ".so"):
            if os.path.exists(path):
                os.remove(path)
    return record


def sample_record(key, index, module, inputs, torch, pytree, tcc, args):
    """run_sample's record."""
    if any(t.layout != torch.strided for t in inputs):
        return dict(status="not-exported", message="sparse input")
    try:
        with torch.no_grad():
            want = module(*[t.clone() for t in inputs])
    except Exception as e:
        return dict(status="not-exported", message=f"eager: {e}"[:300])
    want_leaves = pytree.tree_leaves(want)
    if not want_leaves or not all(isinstance(w, torch.Tensor) for w in want_leaves):
        return dict(status="not-exported", message="an output that is not a tensor")
    # One file name per sample: dlopen hands back an already loaded library for a
    # path it has seen, so a reused name would run the previous sample's model.
    workdir = os.path.join(args.out, "work", key.replace("/", "_"))
    os.makedirs(workdir, exist_ok=True)
    pt2 = os.path.join(workdir, f"{index}.pt2")
    so = os.path.join(workdir, f"{index}.so")
    try:
        ep, how = export_sample(module, inputs, torch, args)
        torch.export.save(ep, pt2)
    except Exception as e:
        return dict(status="not-exported", message=str(e).splitlines()[0][:300] if str(e) else
                    type(e).__name__)
    extra = {}
    second = None
    if how is not None:
        extra["dynamic"] = how
        extra["symbols"] = len(ep.range_constraints)
        try:
            second, why = second_shapes(ep, module, inputs, torch)
        except Exception as e:
            second, why = None, f"second shapes: {type(e).__name__}: {e}"[:200]
        if second is None:
            extra["second"] = why
        else:
            extra["second"] = [tuple(x.shape) for x in second[0]]
    t0 = time.time()
    target = "cuda" if args.device == "cuda" else "cpu"
    try:
        proc = subprocess.run([args.tcc, "compile", pt2, "--target", target, "-o", so],
                              capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return dict(status="internal", message=f"tcc compile took over {args.timeout} s",
                    **extra)
    compile_s = round(time.time() - t0, 2)
    if proc.returncode != 0:
        first = next((l for l in proc.stderr.splitlines() if l.strip()), "")
        status = "refused" if proc.returncode == 1 else "internal"
        return dict(status=status, exit=proc.returncode, message=first[:400],
                    compile_s=compile_s, **extra)
    runs = [(inputs, want_leaves, "")]
    if second is not None:
        runs.append((second[0], pytree.tree_leaves(second[1]), "at the second shapes: "))
    try:
        model = tcc.load(so)
    except Exception as e:
        return dict(status="internal", message=f"load: {e}"[:400], compile_s=compile_s,
                    **extra)
    for xs, wants, where in runs:
        try:
            got = model(*[t.clone() for t in xs])
        except Exception as e:
            return dict(status="internal", message=f"{where}run: {e}"[:400],
                        compile_s=compile_s, **extra)
        why = check_outputs(key, got, wants, xs, module, torch, pytree, args)
        if why:
            return dict(status="mismatch", message=(where + why)[:500], compile_s=compile_s,
                        **extra)
    return dict(status="pass", compile_s=compile_s, **extra)


# ---------------------------------------------------------------------------
# Orchestrator side.

class Worker:
    def __init__(self, args):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--out", args.out,
               "--tcc", args.tcc, "--device", args.device, "--timeout", str(args.timeout),
               "--max-samples", str(args.max_samples), "--dtype", args.dtype]
        if args.dynamic:
            cmd.append("--dynamic")
        if args.keep:
            cmd.append("--keep")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def run_op(self, key, start, sink):
        """Runs one op from sample `start`; returns the sample to restart from after a
        crash, or None when the op is done."""
        self.proc.stdin.write(f"{key} {start}\n")
        self.proc.stdin.flush()
        running = None
        for line in self.proc.stdout:
            record = json.loads(line)
            if record.get("done"):
                return None
            if record.get("begin"):
                running = record["sample"]
                continue
            sink(record)
        # The worker died (a crash in tcc's runtime or in torch).
        code = self.proc.wait()
        if running is None:
            running = start
        sink(dict(op=key, sample=running, status="internal",
                  message=f"worker process died (exit {code}) running this sample"))
        return running + 1


def orchestrate(args):
    import threading
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    os.makedirs(args.out, exist_ok=True)
    results_path = os.path.join(args.out, "results.jsonl")
    done = set()
    if args.resume and os.path.exists(results_path):
        with open(results_path) as f:
            done = {json.loads(l)["op"] for l in f if l.strip()}
    elif os.path.exists(results_path):
        os.remove(results_path)

    wanted = set(args.ops.split(",")) if args.ops else None
    if args.ops_file:
        with open(args.ops_file) as f:
            names = {l.split("#")[0].strip() for l in f}
        wanted = (wanted or set()) | {n for n in names if n}
    keys = []
    for op in op_db:
        key = op_key(op)
        if wanted is not None and key not in wanted and op.name not in wanted:
            continue
        if op.name in NONDETERMINISTIC or key in NONDETERMINISTIC:
            continue
        if getattr(torch, args.dtype) not in op.supported_dtypes(args.device):
            continue
        if key not in done:
            keys.append(key)
    if wanted is not None and not keys and not done:
        sys.exit(f"opinfo_sweep: no op named {sorted(wanted)} with {args.dtype} samples")

    lock = threading.Lock()
    out = open(results_path, "a")
    counts = collections.Counter()
    queue = list(reversed(keys))
    started = time.time()

    def sink(record):
        with lock:
            out.write(json.dumps(record) + "\n")
            out.flush()
            counts[record["status"]] += 1

    def loop():
        worker = Worker(args)
        while True:
            with lock:
                if not queue:
                    break
                key = queue.pop()
            start = 0
            while start is not None:
                start = worker.run_op(key, start, sink)
                if start is not None:
                    worker = Worker(args)
            if not args.quiet:
                with lock:
                    left = len(queue)
                    print(f"[{len(keys) - left}/{len(keys)} ops, "
                          f"{time.time() - started:.0f} s] {key}: "
                          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
                          file=sys.stderr, flush=True)
        worker.proc.stdin.close()
        worker.proc.wait()

    threads = [threading.Thread(target=loop) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.close()
    records = load_results(results_path)
    summary = summarize(records)
    print(summary["line"])
    if args.table:
        write_table(records, summary, args)
    failing = [r for r in records if r["status"] in args.fail_on]
    for r in failing:
        print(f"{r['status']}: {r['op']} #{r['sample']}: {r.get('message', '')}")
    if failing:
        sys.exit(1)


# ---------------------------------------------------------------------------
# The CUDA path: the GPU machine has no tcc (nor PyTorch's test database), so
# the samples that pass on the CPU are packed here into a few models of many
# samples each (one artifact per batch: its runtime is most of its size),
# compiled for CUDA, and run there with --run-device.

def pack_device(args):
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.utils import _pytree as pytree

    ops = {op_key(op): op for op in op_db}
    passing = collections.OrderedDict()
    for r in load_results(os.path.join(args.out, "results.jsonl")):
        if r["status"] == "pass":
            passing.setdefault(r["op"], []).append(r["sample"])
    members = []  # (op, sample, module, inputs)
    for key, indices in passing.items():
        torch.manual_seed(0)
        samples = list(ops[key].sample_inputs("cpu", getattr(torch, args.dtype),
                                              requires_grad=False))
        for i in sorted(indices):
            members.append((key, i) + sample_module(ops[key], samples[i], torch, pytree))
    os.makedirs(args.pack_device, exist_ok=True)
    refused = []
    batches = [members[i:i + args.batch_size] for i in range(0, len(members), args.batch_size)]
    count = 0
    while batches:
        batch = batches.pop(0)
        why = pack_batch(batch, os.path.join(args.pack_device, f"batch_{count}"), torch,
                         pytree, args)
        if why is None:
            count += 1
        elif len(batch) == 1:  # passes alone on the CPU, refused for CUDA
            refused.append(dict(op=batch[0][0], sample=batch[0][1], status=why[0],
                                message=why[1]))
        else:  # one member spoils the batch: halve it
            batches[:0] = [batch[:len(batch) // 2], batch[len(batch) // 2:]]
        print(f"pack: {count} batches, {len(batches)} to go, {len(refused)} refused",
              file=sys.stderr, flush=True)
    with open(os.path.join(args.pack_device, "refused.jsonl"), "w") as f:
        for r in refused:
            f.write(json.dumps(r) + "\n")
    print(f"packed {len(members) - len(refused)} samples in {count} CUDA models "
          f"({len(refused)} refused for CUDA) into {args.pack_device}")


def pack_batch(batch, stem, torch, pytree, args):
    """Exports and compiles one model calling every member; saves its inputs
    and eager outputs. Returns None, or (status, message) when it fails."""
    splits, inputs, expected, layout = [0], [], [], []
    for key, index, module, xs in batch:
        with torch.no_grad():
            outs = pytree.tree_leaves(module(*[x.clone() for x in xs]))
        inputs.extend(xs)
        splits.append(len(inputs))
        expected.extend(outs)
        layout.append((key, index, len(outs)))
    modules = [m for _, _, m, _ in batch]

    class Batch(torch.nn.Module):
        def forward(self, *xs):
            outs = []
            for n, m in enumerate(modules):
                outs.extend(pytree.tree_leaves(m(*xs[splits[n]:splits[n + 1]])))
            return tuple(outs)

    try:
        ep = torch.export.export(Batch(), tuple(x.clone() for x in inputs))
        torch.export.save(ep, stem + ".pt2")
    except Exception as e:
        return ("not-exported", str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
    proc = subprocess.run([args.tcc, "compile", stem + ".pt2", "--target", "cuda", "-o",
                           stem + ".so"], capture_output=True, text=True, timeout=args.timeout * 4)
    os.remove(stem + ".pt2")
    if proc.returncode != 0:
        first = next((l for l in proc.stderr.splitlines() if l.strip()), "")
        return ("refused" if proc.returncode == 1 else "internal", first[:400])
    torch.save(dict(inputs=inputs, expected=expected, layout=layout), stem + ".pt")
    return None


def run_device(args):
    """On the GPU machine: every packed model on CUDA tensors against the CPU
    eager outputs packed with it; per-sample records in OUT/results.jsonl."""
    import glob
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tcc

    os.makedirs(args.out, exist_ok=True)
    records = []
    refused_path = os.path.join(args.run_device, "refused.jsonl")
    if os.path.exists(refused_path):
        records.extend(load_results(refused_path))
    stems = sorted(glob.glob(os.path.join(args.run_device, "batch_*.so")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    for so in stems:
        data = torch.load(so[:-3] + ".pt")
        print(f"run: {os.path.basename(so)} ({len(data['layout'])} samples)", file=sys.stderr,
              flush=True)
        try:
            got = tcc.load(so)(*[x.to(args.device) for x in data["inputs"]])
            got = list(got) if isinstance(got, tuple) else [got]
            error = None
        except Exception as e:
            error = f"run: {e}"[:400]
        at = 0
        for key, index, n in data["layout"]:
            record = dict(op=key, sample=index, status="pass")
            if error:
                record.update(status="internal", message=error)
            else:
                mine = align_signs(key, got[at:at + n], data["expected"][at:at + n], torch)
                for k in range(n):
                    why = compare(mine[k], data["expected"][at + k], torch)
                    if why:
                        record.update(status="mismatch", message=f"output {k}: {why}")
                        break
            at += n
            records.append(record)
    with open(os.path.join(args.out, "results.jsonl"), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    summary = summarize(records)
    name = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    print(f"{summary['line']} (of the samples that pass on the CPU; {name})")
    for r in records:
        if r["status"] in ("mismatch", "internal"):
            print(f"{r['status']}: {r['op']} #{r['sample']}: {r.get('message', '')}")


def load_results(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def summarize(records):
    c = collections.Counter(r["status"] for r in records)
    exported = c["pass"] + c["mismatch"] + c["refused"] + c["internal"]
    share = 100.0 * c["pass"] / exported if exported else 0.0
    line = (f"opinfo sweep: {exported} exported samples: {c['pass']} pass ({share:.1f}%), "
            f"{c['mismatch']} mismatch, {c['refused']} refused, {c['internal']} internal; "
            f"{c['not-exported']} not exported")
    statuses = ("pass", "mismatch", "refused", "internal", "not-exported")
    return dict(line=line, share=share, exported=exported, **{k: c[k] for k in statuses})


def write_table(records, summary, args):
    by_op = collections.OrderedDict()
    for r in records:
        by_op.setdefault(r["op"], []).append(r)
    lines = [f"Samples per op: {'all' if args.max_samples <= 0 else args.max_samples}; "
             f"device: {args.device}. {summary['line']}.", "",
             "| op | pass | mismatch | refused | internal | not exported | first message |",
             "|---|---|---|---|---|---|---|"]
    for key in sorted(by_op):
        rs = by_op[key]
        c = collections.Counter(r["status"] for r in rs)
        message = ""
        for status in ("mismatch", "internal", "refused", "not-exported"):
            m = next((r.get("message", "") for r in rs if r["status"] == status), None)
            if m:
                m = m.split(" error: ", 1)[-1]  # without the export's file:line
                message = m.replace("|", "\\|").replace("\n", " ")[:160]
                break
        lines.append(f"| {key} | {c['pass']} | {c['mismatch']} | {c['refused']} | "
                     f"{c['internal']} | {c['not-exported']} | {message} |")
    with open(args.table, "w") as f:
        f.write("\n".join(lines) + "\n")


def message_kind(message):
    """A refusal's message without its source location and numbers, for grouping."""
    import re
    m = message.split(" error: ", 1)[-1]
    m = re.sub(r"^\S+\.pt2: \S+: ", "", m)                    # the archive's path
    m = re.sub(r"(torch\.ops\.)?aten\.[\w.]+", "aten.X", m)   # the operator
    m = re.sub(r"'tensor<[^']*>'", "'tensor<..>'", m)
    m = re.sub(r"tensor '[^']*'", "tensor '..'", m)
    m = re.sub(r"\[[0-9, x?]*\]|\([0-9, ]*\)", "[..]", m)
    return re.sub(r"\b\d+\b", "N", m)[:200]


def nearer(record):
    """' (tcc nearer float64)' and the like for a bfloat16 mismatch, else ''."""
    import re
    m = re.search(r"off float64's answer: tcc (\d+) elements, eager (\d+)",
                  record.get("message", ""))
    if not m:
        return ""
    tcc_off, eager_off = int(m.group(1)), int(m.group(2))
    if tcc_off < eager_off:
        return " (tcc nearer float64)"
    if tcc_off == eager_off:
        return " (as near float64 as eager)"
    return " (eager nearer float64)"


def write_columns(args):
    """The columns (label=DIR, each DIR a sweep's --out) side by side: a summary row
    each, every mismatch and internal error, the refusals of each column grouped by
    message, and the ops whose columns differ."""
    import re
    columns = []
    for item in args.columns.split(","):
        label, path = item.split("=", 1)
        columns.append((label, load_results(os.path.join(path, "results.jsonl"))))
    lines = ["| column | ops | exported samples | pass | mismatch | refused | internal | "
             "not exported |", "|---|---|---|---|---|---|---|---|"]
    for label, records in columns:
        s = summarize(records)
        ops = len({r["op"] for r in records})
        lines.append(f"| {label} | {ops} | {s['exported']} | {s['pass']} ({s['share']:.1f}%) | "
                     f"{s['mismatch']} | {s['refused']} | {s['internal']} | "
                     f"{s['not-exported']} |")
    for label, records in columns:
        dyn = [r for r in records if "dynamic" in r]
        if not dyn:
            continue
        ran = [r for r in dyn if isinstance(r.get("second"), list)]
        symbolic = [r for r in dyn if r.get("symbols")]
        static = [r for r in dyn if r["dynamic"] == "static"]
        by_status = collections.Counter(r["status"] for r in ran)
        lines += ["", f"{label}: {len(dyn)} samples exported, {len(symbolic)} with at least one "
                  f"symbolic dim, {len(static)} only with static shapes (the dynamic export "
                  f"failed); {len(ran)} have second shapes that the export admits and eager runs "
                  f"on (" + ", ".join(f"{by_status[k]} {k}" for k in
                                      ("pass", "mismatch", "refused", "internal")
                                      if by_status[k]) +
                  "; a pass there matched eager at both sets of shapes)."]
        whys = collections.Counter(message_kind(r["second"]).split(":")[0].split(" [")[0]
                                   for r in dyn if isinstance(r.get("second"), str))
        if whys:
            lines.append("No second shapes: " + "; ".join(f"{w} ({n})"
                                                         for w, n in whys.most_common()) + ".")
    lines += ["", "Mismatches and internal errors (a bfloat16 mismatch says which side is "
              "nearer the op computed in float64):", ""]
    for label, records in columns:
        for r in records:
            if r["status"] in ("mismatch", "internal"):
                message = r.get("message", "").split(" error: ", 1)[-1]
                message = re.sub(r"\S*/work/", "OUT/work/", message)  # the sweep's directory
                lines.append(f"- {label}, {r['status']}{nearer(r)}: {r['op']} #{r['sample']}: "
                             f"{message}")
    for label, records in columns:
        groups = collections.OrderedDict()
        for r in records:
            if r["status"] == "refused":
                groups.setdefault(message_kind(r.get("message", "")), []).append(r["op"])
        lines += ["", f"Refused, {label} (samples, message, ops):", ""]
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        for kind, ops in ranked[:args.groups]:
            names = sorted(set(ops))
            shown = ", ".join(names[:6]) + (f", ... ({len(names)} ops)" if len(names) > 6 else "")
            lines.append(f"- {len(ops)}: {kind.replace('|', '/')} ({shown})")
        rest = ranked[args.groups:]
        if rest:
            lines.append(f"- {sum(len(ops) for _, ops in rest)} more, under {len(rest)} other "
                         f"messages (by op in the table below)")
    per_op = collections.OrderedDict()
    for n, (label, records) in enumerate(columns):
        for r in records:
            per_op.setdefault(r["op"], [collections.Counter() for _ in columns])[n][
                r["status"]] += 1

    def cell(c):
        if not c:
            return "-"
        exported = c["pass"] + c["mismatch"] + c["refused"] + c["internal"]
        marks = "".join(f" {c[s]}{s[0].upper()}" for s in ("mismatch", "internal", "refused")
                        if c[s])
        return f"{c['pass']}/{exported}{marks}" + (f" ({c['not-exported']} n/e)"
                                                   if c["not-exported"] else "")

    lines += ["", "Ops whose columns differ (pass/exported; M mismatch, I internal, R refused, "
              "n/e not exported; - no samples in that dtype):", "",
              "| op | " + " | ".join(l for l, _ in columns) + " |",
              "|---|" + "---|" * len(columns)]
    for key in sorted(per_op):
        cells = [cell(c) for c in per_op[key]]
        shares = {(c["pass"], c["pass"] + c["mismatch"] + c["refused"] + c["internal"])
                  for c in per_op[key] if c}
        if len(shares) > 1 or any(c["mismatch"] or c["internal"] for c in per_op[key]):
            lines.append(f"| {key} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="work directory (results.jsonl, models)")
    p.add_argument("--ops", help="comma-separated op names (OpInfo name or name.variant)")
    p.add_argument("--ops-file", help="op names, one per line (# comments)")
    p.add_argument("--max-samples", type=int, default=4, help="samples per op; 0 = all")
    p.add_argument("--jobs", type=int, default=2, help="worker processes")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"],
                   help="the dtype OpInfo draws the samples in")
    p.add_argument("--dynamic", action="store_true",
                   help="export every dim as Dim.AUTO; run at the export's and at second shapes")
    p.add_argument("--tcc", default=os.path.join(ROOT, "build", "bin", "tcc"))
    p.add_argument("--timeout", type=int, default=120, help="seconds per compile")
    p.add_argument("--table", help="write the per-op table (Markdown) here")
    p.add_argument("--resume", action="store_true", help="skip ops already in results.jsonl")
    p.add_argument("--keep", action="store_true",
                   help="keep every sample's .pt2 and .so (by default only a mismatch's or an "
                        "internal error's)")
    p.add_argument("--fail-on", default="", type=lambda v: [x for x in v.split(",") if x],
                   help="comma-separated statuses (mismatch, internal, refused) that make "
                        "the sweep exit 1, after listing those samples")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--pack-device", metavar="DIR",
                   help="pack the samples that passed in --out's results into CUDA models in DIR")
    p.add_argument("--batch-size", type=int, default=64, help="samples per packed model")
    p.add_argument("--run-device", metavar="DIR",
                   help="run the packed models of DIR on --device (on the GPU machine)")
    p.add_argument("--columns", metavar="LABEL=DIR,...",
                   help="write sweeps' results side by side (to --table, else stdout)")
    p.add_argument("--groups", type=int, default=25,
                   help="with --columns: the most frequent refusal messages listed per column")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.columns:
        write_columns(args)
        return
    if not args.out:
        p.error("--out is required")
    args.out = os.path.abspath(args.out)
    if args.worker:
        worker_main(args)
    elif args.pack_device:
        pack_device(args)
    elif args.run_device:
        run_device(args)
    else:
        orchestrate(args)


if __name__ == "__main__":
    main()
