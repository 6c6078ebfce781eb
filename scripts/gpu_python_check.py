#!/usr/bin/env python3
"""tcc.compile and torch.compile(backend="tcc") on CUDA tensors (issue 12): outputs
against PyTorch eager on the GPU, the warm-cache time of tcc.compile in a fresh
process, and the host overhead of the backend over calling the loaded model.

The GPU machine has no LLVM, so tcc does not run there: this machine compiles
every program into a cache, which the package then uses with no tcc to be found
(it keys on the version the cache recorded). The keys leave devices out, so the
programs exported here with CPU tensors are those exported there with CUDA ones.

On this machine (tcc built):
    python3 scripts/gpu_python_check.py --prepare build/gpu-python
On the GPU machine (carry build/gpu-python: cache.tar.xz, a few MB):
    python3 scripts/gpu_python_check.py --run build/gpu-python

--run prints one line per case (max_rel_err against eager on the GPU, fp32 within
1e-5 and tf32 within 2e-3, TF32 off in eager), the warm tcc.compile time, and a
table of microseconds per call (host time: back-to-back calls, one synchronize at
the end, median of repetitions) for foo and MyModule:
  model       the loaded tcc.Model the backend compiled, called directly
  backend     torch.compile(fn, backend="tcc") (Dynamo's guards, then the same model)
  floor       torch.compile with a backend returning `lambda *a: (model(a[i]),)`:
              Dynamo's own cost around the same model
  eager       PyTorch eager
and backend - model (issue 12's target: at most 2 us) and backend - floor (what the
tcc backend adds above Dynamo itself). Exit status 0 when every case matches.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Python", "Inputs"))

TOLERANCE = {"fp32": 1e-5, "tf32": 2e-3}
TARGET = "cpu,cuda"  # one artifact for both devices: what --prepare compiles


def seeded(make):
    import torch
    torch.manual_seed(0)
    return make()


def tcc_compile_cases():
    """(name, make module, make inputs, dynamic_shapes, precision)."""
    import torch
    from tutorial_models import MyModule, OuterModule, foo
    batch = {"x": {0: torch.export.Dim("batch", min=1, max=1024)}}
    return [
        ("foo", lambda: foo, lambda: (torch.randn(10, 10), torch.randn(10, 10)), None, "fp32"),
        ("MyModule", MyModule, lambda: (torch.randn(10, 100),), None, "fp32"),
        ("OuterModule", OuterModule, lambda: (torch.randn(10, 100),), None, "fp32"),
        ("MyModule tf32", MyModule, lambda: (torch.randn(10, 100),), None, "tf32"),
        ("MyModule dynamic batch", MyModule, lambda: (torch.randn(10, 100),), batch, "fp32"),
    ]


def backend_cases():
    """(name, make the function or module on a device, make inputs, torch.compile's dynamic)."""
    import torch
    from tutorial_models import MyModule, foo

    def outer_function_on(device):
        mod = MyModule().to(device)

        def outer_function(x):  # the tutorial's module called inside a function
            return torch.sin(mod(x)) * 2
        return outer_function
    return [
        ("foo", lambda device: foo, lambda: (torch.randn(10, 10), torch.randn(10, 10)), None),
        ("MyModule", lambda device: MyModule().to(device), lambda: (torch.randn(10, 100),),
         None),
        ("outer function", outer_function_on, lambda: (torch.randn(10, 100),), None),
        ("MyModule dynamic=True", lambda device: MyModule().to(device),
         lambda: (torch.randn(10, 100),), True),
    ]


def to(value, device):
    import torch
    if isinstance(value, torch.nn.Module):
        return value.to(device)
    return value  # a function: its tensors are its arguments


def prepare(outdir):
    import torch
    import tcc
    cache = os.path.join(outdir, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    for name, make, inputs, dynamic, precision in tcc_compile_cases():
        start = time.perf_counter()
        tcc.compile(seeded(make), seeded(inputs), dynamic_shapes=dynamic, target=TARGET,
                    precision=precision, cache_dir=cache)
        print(f"tcc.compile {name}: {time.perf_counter() - start:.1f} s")
    options = {"target": TARGET, "cache_dir": cache, "strict": True}
    for name, make, inputs, dynamic in backend_cases():
        torch._dynamo.reset()
        fn = torch.compile(seeded(lambda: make("cpu")), backend=tcc.backend, options=options,
                           dynamic=dynamic)
        with torch.no_grad():  # as --run calls it
            fn(*seeded(inputs))
            if dynamic:
                fn(*[torch.randn(17, *t.shape[1:]) for t in seeded(inputs)])
        print(f"torch.compile {name}: compiled")
    archive = os.path.join(outdir, "cache.tar.xz")
    with tarfile.open(archive, "w:xz") as tar:
        tar.add(cache, arcname="cache")
    shutil.rmtree(cache)
    print(f"wrote {archive} ({os.path.getsize(archive) / 1e6:.1f} MB): carry {outdir}")


def max_rel_err(out, ref):
    return ((out.float() - ref.float()).abs().max() / ref.float().abs().max().clamp_min(1e-30)).item()


def compare(name, out, ref, precision, failures):
    import torch
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    ok = type(out) is type(ref) and len(outs) == len(refs)
    errs = []
    for o, r in zip(outs, refs):
        errs.append(max_rel_err(o, r))
        ok = ok and o.device == r.device and errs[-1] <= TOLERANCE[precision]
    if not ok:
        failures.append(name)
    devices = ",".join(sorted({str(o.device) for o in outs if isinstance(o, torch.Tensor)}))
    print(f"{'PASS' if ok else 'FAIL'} {name}: max_rel_err {max(errs):.1e} "
          f"(tolerance {TOLERANCE[precision]:.0e}), outputs on {devices}")


def host_us(fn, args, sync, n=2000, repeats=7, warmup=200):
    for _ in range(warmup):
        fn(*args)
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            fn(*args)
        times.append((time.perf_counter() - start) / n)
        sync()
    return statistics.median(times) * 1e6


WARM_SCRIPT = """
import sys, time
t0 = time.perf_counter()
import torch
sys.path.insert(0, {python!r}); sys.path.insert(0, {inputs!r})
import tcc
from tutorial_models import MyModule
torch.manual_seed(0)
mod, x = MyModule().to({device!r}), torch.randn(10, 100)
x = x.to({device!r})
t1 = time.perf_counter()
compiled = tcc.compile(mod, (x,), target={target!r}, cache_dir={cache!r})
t2 = time.perf_counter()
y = compiled(x)
print(f"warm tcc.compile(MyModule) in a fresh process: {{t2 - t1:.3f}} s (import torch "
      f"{{t1 - t0:.2f}} s); exported={{compiled.exported}} compiled={{compiled.compiled}}; "
      f"output on {{y.device}}")
"""


def run(outdir, device):
    import torch
    import tcc
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cache = tempfile.mkdtemp(prefix="tcc-gpu-python-")
    with tarfile.open(os.path.join(outdir, "cache.tar.xz")) as tar:
        tar.extractall(cache)
    cache = os.path.join(cache, "cache")
    try:
        exe = tcc.find_executable()
    except tcc.TccError:
        exe = None
    on = torch.cuda.get_device_name(0) if device == "cuda" else "CPU (a dry run)"
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    print(f"{on}, torch {torch.__version__}; tcc executable: "
          f"{exe or 'none (the cache alone)'}")
    # Keys name torch's release: a cache from another one has nothing to offer.
    import glob
    import json
    for entry in glob.glob(os.path.join(cache, "*", "entry.json"))[:1]:
        with open(entry) as f:
            prepared = json.load(f)
        if prepared["torch"].split("+")[0] != torch.__version__.split("+")[0]:
            print(f"note: the cache was prepared with torch {prepared['torch']}; keys name "
                  "the release, so every case will miss (prepare with this torch release)")
    failures = []
    for name, make, inputs, dynamic, precision in tcc_compile_cases():
        try:
            module = to(seeded(make), device)
            args = [t.to(device) for t in seeded(inputs)]
            compiled = tcc.compile(module, args, dynamic_shapes=dynamic, target=TARGET,
                                   precision=precision, cache_dir=cache)
            with torch.no_grad():
                compare(f"tcc.compile {name} [exported={compiled.exported} "
                        f"compiled={compiled.compiled}]", compiled(*args), module(*args),
                        precision, failures)
                if dynamic:
                    more = [torch.randn(333, *t.shape[1:], device=device) for t in args]
                    compare(f"tcc.compile {name}, batch 333", compiled(*more),
                            module(*more), precision, failures)
        except Exception as e:  # noqa: BLE001 - reported, counted, the others go on
            failures.append(f"tcc.compile {name}")
            print(f"FAIL tcc.compile {name}: {type(e).__name__}: {e}")
    captured = {}

    def spy(name):
        def backend(gm, example_inputs, **kwargs):
            fn = tcc.backend(gm, example_inputs, **kwargs)
            captured[name] = fn
            return fn
        return backend

    options = {"target": TARGET, "cache_dir": cache, "strict": True}
    compiled_fns = {}
    for name, make, inputs, dynamic in backend_cases():
        torch._dynamo.reset()
        try:
            fn = seeded(lambda: make(device))
            args = [t.to(device) for t in seeded(inputs)]
            opt = torch.compile(fn, backend=spy(name), options=options, dynamic=dynamic)
            with torch.no_grad():
                compare(f"torch.compile {name}", opt(*args), fn(*args), "fp32", failures)
                if dynamic:
                    more = [torch.randn(17, *t.shape[1:], device=device) for t in args]
                    compare(f"torch.compile {name}, batch 17", opt(*more), fn(*more),
                            "fp32", failures)
            compiled_fns[name] = (fn, opt, args)
        except Exception as e:  # noqa: BLE001 - reported, counted, the others go on
            failures.append(f"torch.compile {name}")
            print(f"FAIL torch.compile {name}: {type(e).__name__}: {e}")

    result = subprocess.run(
        [sys.executable, "-c", WARM_SCRIPT.format(
            python=os.path.join(ROOT, "python"),
            inputs=os.path.join(ROOT, "test", "Python", "Inputs"), target=TARGET,
            cache=cache, device=device)], capture_output=True, text=True)
    print((result.stdout + result.stderr).strip())

    rows = []
    for name in ("foo", "MyModule"):
        if name not in compiled_fns or name not in captured:
            continue
        fn, opt, args = compiled_fns[name]
        graph = captured[name]
        model, positions = graph.model, graph.positions

        def floor_backend(gm, example_inputs, **kwargs):
            return lambda *a: (model(*[a[i] for i in positions]),)
        torch._dynamo.reset()
        floor = torch.compile(fn, backend=floor_backend)
        with torch.no_grad():
            floor(*args)
            t_model = host_us(model, args, sync)
            t_backend = host_us(opt, args, sync)
            t_floor = host_us(floor, args, sync)
            t_eager = host_us(fn, args, sync)
        rows.append((name, t_model, t_backend, t_floor, t_eager))
    print("| model | model (us) | backend (us) | floor (us) | eager (us) | backend - model "
          "| backend - floor |")
    print("|---|---|---|---|---|---|---|")
    for name, t_model, t_backend, t_floor, t_eager in rows:
        print(f"| {name} | {t_model:.2f} | {t_backend:.2f} | {t_floor:.2f} | {t_eager:.2f} | "
              f"{t_backend - t_model:+.2f} | {t_backend - t_floor:+.2f} |")
    shutil.rmtree(os.path.dirname(cache), ignore_errors=True)
    print(f"{len(failures)} failures" + (": " + "; ".join(failures) if failures else ""))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prepare", metavar="DIR", help="compile every case into DIR/cache.tar.xz")
    ap.add_argument("--run", metavar="DIR", help="run on the GPU from DIR/cache.tar.xz")
    ap.add_argument("--device", default="cuda",
                    help="--run on this device (cpu: a dry run of the script without a GPU)")
    args = ap.parse_args()
    if args.prepare:
        os.makedirs(args.prepare, exist_ok=True)
        prepare(args.prepare)
        return 0
    if args.run:
        return run(args.run, args.device)
    ap.error("give --prepare DIR or --run DIR")


if __name__ == "__main__":
    sys.exit(main())
