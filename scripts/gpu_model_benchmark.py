#!/usr/bin/env python3
"""Real models on the GPU: PyTorch eager, torch.compile (default and
reduce-overhead) and tcc, in fp32 (TF32 off), tf32 and as bf16 modules, in one
run on one machine and on the same inputs. For the GPU machine (torch there, no
tcc); the artifacts are compiled here:

  scripts/gpu_model_artifacts.sh A [MODEL...]
  GPU: python3 scripts/gpu_model_benchmark.py --artifacts A [--only NAME...]
       [--precisions fp32,tf32,bf16] [--modes eager,default,reduce-overhead,tcc]

--generate times generation instead (decode_models.py's decoders, bf16, a
static key/value cache): scripts/decode_models.py --export E, then
`tcc compile E/<name>/model.pt2 --target cuda --external-weights -o A/<name>.so`;
GPU: python3 scripts/gpu_model_benchmark.py --generate --artifacts A. Per row:
the median device ms of one decode step (a token at position --position
after a prompt of as many tokens), kernels per step, the logits' error
against eager after the same prompt, and the step's share of the memory
bound (weights plus the whole static cache over the copy bandwidth measured
in the same run).

Per row: median device ms per call (CUDA events around each call, after
warm-up), kernels per call (torch.profiler), max relative error against eager
in the same precision and against fp32 eager, peak memory, and the share of
the roofline bound: the model's floating-point operations and bytes (summed
over its kernels by the compiler, `tcc inspect`) at the GEMM peak and copy
bandwidth measured at the start of the run. Weights are rebuilt
from bench_models.py's seeds and bound to the tcc model by name. torch.compile
reuses its compiled graph across modes (Inductor's cache), so reduce-overhead
costs little compile time after default.
"""
import argparse
import json
import os
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_models  # noqa: E402
import cuda_timing  # noqa: E402
import tcc  # noqa: E402


def median_ms(fn, iters):
    return cuda_timing.median_us(fn, iters) / 1000.0


def kernels(fn, iters=5):
    """Kernels per call and the costliest ones (name, per call, mean µs)."""
    table = cuda_timing.kernel_table(fn, iters)
    count = sum(per_call for per_call, _ in table.values())
    top = sorted(table.items(), key=lambda kv: -kv[1][0] * kv[1][1])[:12]
    return count, [(k, per_call, us) for k, (per_call, us) in top]


def rel_err(out, ref):
    out = out[0] if isinstance(out, (tuple, list)) else out
    ref = ref[0] if isinstance(ref, (tuple, list)) else ref
    o, r = out.float(), ref.float()
    if torch.isnan(o).any() and not torch.isnan(r).any():
        return float("inf")
    return ((o - r).abs().max() / r.abs().max().clamp_min(1e-30)).item()


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def model_cost(so):
    """The compiled model's floating-point operations and bytes per call,
    summed over its kernels (the compiler's counts, KernelCost.h), and how
    many kernels had no count (symbolic sizes, row kernels' flops)."""
    kernels = tcc.load(so).manifest.get("kernels", [])
    flops = sum(k.get("flops", 0) for k in kernels)
    moved = sum(k.get("bytes", 0) for k in kernels)
    uncounted = sum(1 for k in kernels if "bytes" not in k)
    return flops, moved, uncounted


def bound_ms(cost, precision, peaks):
    """The roofline's time for one call: the larger of its operations at the
    GEMM peak measured for `precision` and its bytes at the measured copy
    bandwidth (both in this run)."""
    flops, moved, _ = cost
    return max(flops / peaks[precision], moved / peaks["bandwidth"]) * 1000.0


def measure_peaks():
    """The GPU's measured limits: dense GEMM FLOP/s in fp32 (TF32 off), tf32
    and bf16 (8192^3 products, cuBLAS through torch.matmul), and the copy
    bandwidth."""
    peaks = {}
    n = 8192
    for precision, dtype in (("fp32", torch.float32), ("tf32", torch.float32),
                             ("bf16", torch.bfloat16)):
        set_tf32(precision == "tf32")
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        ms = median_ms(lambda: torch.matmul(a, b), 10)
        peaks[precision] = 2 * n ** 3 / (ms / 1000.0)
        del a, b
    set_tf32(False)
    peaks["bandwidth"] = copy_bandwidth()
    return peaks


def bench(name, precision, modes, artifacts, iters, reference, log, sequence=False, peaks=None):
    dtype_name = "bf16" if precision == "bf16" else "fp32"
    so = os.path.join(artifacts, f"{name}_{precision}.so")
    cost = model_cost(so) if peaks and os.path.exists(so) else None
    module, inputs = bench_models.build_model(name, dtype_name)
    module = module.cuda()
    inputs = tuple(t.cuda() for t in inputs)
    set_tf32(precision == "tf32")
    rows = []
    with torch.no_grad():
        eager_out = module(*inputs)
        if precision == "fp32":
            reference[name] = eager_out.float()
        for mode in modes:
            torch._dynamo.reset()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
            free_before = torch.cuda.mem_get_info()[0]
            t0 = time.perf_counter()
            try:
                if mode == "eager":
                    fn = module
                elif mode == "tcc":
                    so = os.path.join(artifacts, f"{name}_{precision}.so")
                    if not os.path.exists(so):
                        continue
                    # Non-persistent buffers (rotary inv_freq, position ids)
                    # are lifted constants of the export too.
                    weights = dict(module.state_dict())
                    weights.update(dict(module.named_buffers()))
                    model = tcc.load(so)
                    missing = set(model.weight_names) - weights.keys()
                    if missing:
                        # Lifted tensor constants (tensors a forward builds,
                        # e.g. Swin's shift masks) exist only in an export.
                        constants = torch.export.export(module, inputs).constants
                        weights.update({k: v for k, v in constants.items() if k in missing})
                    fn = model.bind_weights(weights)
                else:
                    fn = torch.compile(module, mode=None if mode == "default" else mode)
                out = fn(*inputs)
                torch.cuda.synchronize()
            except Exception as e:  # a failing variant is reported, not fatal
                log(f"| {name} | {precision} | {mode} | error: {type(e).__name__}: {str(e)[:160]} |")
                continue
            first_s = time.perf_counter() - t0
            call = lambda: fn(*inputs)  # noqa: E731
            for _ in range(10):
                call()
            torch.cuda.synchronize()
            out = call()
            err = rel_err(out, eager_out)
            err32 = rel_err(out, reference[name]) if name in reference else float("nan")
            ms = median_ms(call, iters)
            count, top = kernels(call)
            peak = torch.cuda.max_memory_allocated()
            if mode == "tcc":
                peak = max(peak, free_before - torch.cuda.mem_get_info()[0])
            rows.append(dict(model=name, precision=precision, mode=mode, ms=ms, kernels=count,
                             err=err, err_fp32=err32, peak_mib=peak / 2**20, first_s=first_s,
                             top=top))
            share = ""
            if cost:
                bound = bound_ms(cost, precision, peaks)
                rows[-1].update(bound_ms=bound, flops=cost[0], bytes=cost[1])
                # A kernel without a count makes the bound a lower one.
                share = f"{'≥' if cost[2] else ''}{100.0 * bound / ms:.0f}%"
            if sequence:
                rows[-1]["sequence"] = cuda_timing.kernel_sequence(call)
            log(f"| {name} | {precision} | {mode} | {ms:.3f} | {count:.0f} | {err:.1e} | "
                f"{err32:.1e} | {peak / 2**20:.0f} | {first_s:.1f} | {share} |")
            if mode in ("tcc", "eager"):
                for k, n, us in top[:8]:
                    print(f"      {n:5.1f} x {us:8.1f} µs  {k[:100]}", flush=True)
            del fn
    return rows


def copy_bandwidth():
    """Device-to-device copy bandwidth (bytes read + written per second)."""
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src), 20)
    return 2 * src.numel() / (ms / 1000.0)


def bench_generate(name, modes, artifacts, iters, position, bandwidth, log):
    import decode_models
    wrapper, (ids, pos) = decode_models.build_decoder(name, torch.bfloat16, "cuda")
    batch = ids.shape[0]
    vocab = decode_models.DECODERS[name][5]
    torch.manual_seed(7)
    prompt = torch.randint(0, vocab, (batch, position + 1), device="cuda")
    bytes_needed = decode_models.weight_bytes(wrapper) + decode_models.cache_bytes(name)
    bound_ms = bytes_needed / bandwidth * 1000.0
    rows = []
    with torch.no_grad():
        def feed(step_fn):
            """The prompt a token per call; the logits of its last call."""
            out = None
            for p in range(position + 1):
                out = step_fn(prompt[:, p:p + 1].contiguous(), torch.tensor([p], device="cuda"))
            return out
        eager_logits = feed(lambda i, p: wrapper(input_ids=i, cache_position=p)).float()
        for mode in modes:
            torch._dynamo.reset()
            torch.cuda.empty_cache()
            t0 = time.perf_counter()
            try:
                if mode == "eager":
                    step = lambda i, p: wrapper(input_ids=i, cache_position=p)  # noqa: E731
                elif mode == "tcc":
                    so = os.path.join(artifacts, f"{name}.so")
                    if not os.path.exists(so):
                        continue
                    weights = dict(wrapper.state_dict())
                    weights.update(dict(wrapper.named_buffers()))
                    model = tcc.load(so).bind_weights(weights)
                    model.reset_state()
                    step = lambda i, p: model(i, p)  # noqa: E731
                else:
                    compiled = torch.compile(wrapper, mode=None if mode == "default" else mode)
                    step = lambda i, p: compiled(input_ids=i, cache_position=p)  # noqa: E731
                logits = feed(step).float()
                torch.cuda.synchronize()
            except Exception as e:  # a failing variant is reported, not fatal
                log(f"| {name} | {mode} | error: {type(e).__name__}: {str(e)[:160]} |")
                continue
            first_s = time.perf_counter() - t0
            err = rel_err(logits, eager_logits)
            token = prompt[:, position:position + 1].contiguous()
            at = torch.tensor([position], device="cuda")
            call = lambda: step(token, at)  # noqa: E731
            for _ in range(10):
                call()
            ms = median_ms(call, iters)
            count, top = kernels(call)
            tokens_s = batch * 1000.0 / ms
            rows.append(dict(model=name, mode=mode, ms=ms, kernels=count, err=err,
                             bound_ms=bound_ms, tokens_s=tokens_s, first_s=first_s, top=top))
            log(f"| {name} | {mode} | {ms:.3f} | {count:.0f} | {err:.1e} | {tokens_s:.0f} | "
                f"{100.0 * bound_ms / ms:.0f}% | {first_s:.1f} |")
            if mode in ("tcc", "eager", "reduce-overhead"):
                for k, n, us in top[:8]:
                    print(f"      {n:5.1f} x {us:8.1f} µs  {k[:100]}", flush=True)
            if mode == "tcc":
                # The runtime's own loop (host argmax, logits copied back).
                tokens = model.generate(prompt[:, :position + 1].cpu(), 64, device="cuda")
                st = model.last_generate_stats
                log(f"|   tcc generate() | {st['decode_ms'] / max(st['decode_calls'], 1):.3f} "
                    f"ms per token over {st['decode_calls']} calls, {tuple(tokens.shape)} |")
            del step
    log(f"|   bound: {bytes_needed / 2**20:.0f} MiB (weights + cache) at "
        f"{bandwidth / 1e12:.2f} TB/s = {bound_ms:.3f} ms |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--precisions", default="fp32,tf32,bf16")
    ap.add_argument("--modes", default="eager,default,reduce-overhead,tcc")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--json", help="write every row (with the top kernels) here")
    ap.add_argument("--kernel-sequence", action="store_true",
                    help="with --json: each row also gets the kernels of one call in launch "
                         "order (name, device µs), to line up two variants' layers")
    ap.add_argument("--generate", action="store_true",
                    help="time decode steps of decode_models.py's decoders instead")
    ap.add_argument("--position", type=int, default=512,
                    help="with --generate: the cache position of the timed step")
    a = ap.parse_args()
    print(f"Device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
          f"date {time.strftime('%Y-%m-%d')}")
    if a.generate:
        import decode_models
        bandwidth = copy_bandwidth()
        print("| decoder | variant | ms per step (median) | kernels/step | logits rel err vs "
              "eager | tokens/s | % of memory bound | first call s |")
        print("|---|---|---|---|---|---|---|---|")
        log = lambda line: print(line, flush=True)  # noqa: E731
        rows = []
        for name in a.only or list(decode_models.DECODERS):
            rows += bench_generate(name, a.modes.split(","), a.artifacts, a.iters, a.position,
                                   bandwidth, log)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
        return
    names = a.only or list(bench_models.MODEL_WORKLOADS)
    peaks = measure_peaks()
    print(f"Measured: GEMM fp32 {peaks['fp32'] / 1e12:.1f}, tf32 {peaks['tf32'] / 1e12:.1f}, "
          f"bf16 {peaks['bf16'] / 1e12:.1f} TFLOP/s; copy {peaks['bandwidth'] / 1e12:.2f} TB/s")
    print("| model | precision | variant | ms (median) | kernels/call | rel err vs eager "
          "| vs fp32 eager | peak MiB | first call s | % of bound |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    log = lambda line: print(line, flush=True)  # noqa: E731
    rows, reference = [], {}
    for name in names:
        for precision in a.precisions.split(","):
            rows += bench(name, precision, a.modes.split(","), a.artifacts, a.iters, reference, log,
                          a.kernel_sequence, peaks)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
