"""Timing on the GPU machine, shared by the benchmark and check scripts.

median_us: CUDA events around each call (after the caller's warm-up), the
median. kernel_table: every kernel torch.profiler sees over `iters` calls
(tcc's own, cuBLASLt's, cuDNN's), as name -> (launches per call, mean µs).
"""
import collections
import statistics

import torch
from torch.profiler import ProfilerActivity, profile


def median_us(fn, iters):
    """Median microseconds per call of fn(), by CUDA events around each call."""
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def kernel_table(fn, iters):
    """name -> (launches per call, mean device µs per launch) over `iters` calls."""
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    stats = collections.defaultdict(lambda: [0, 0.0])
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            stats[e.name][0] += 1
            stats[e.name][1] += e.device_time
    return {name: (n / iters, total / n) for name, (n, total) in stats.items()}


def kernel_sequence(fn):
    """The kernels of one call of `fn`, in launch order: [(name, device µs)].
    Lines up the same layers' kernels of two implementations (e.g. a model's
    GEMMs under tcc and under torch.compile) position by position."""
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    events.sort(key=lambda e: e.time_range.start)
    return [(e.name, e.device_time) for e in events]
