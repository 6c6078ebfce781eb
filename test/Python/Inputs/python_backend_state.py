"""torch.compile(backend=tcc.backend) on graphs that write in place (issue
37): a running sum, key/value caches written with index_copy_, an indexed
assignment and slice assignments, a user input, two instances of one module
sharing a graph, a dynamic batch. Over 24 calls each, the outputs, the
module's buffers and the written inputs match eager PyTorch's; no graph falls
back to eager. Then the writes tcc cannot honour: a non-contiguous buffer and
an input sharing memory with another, refused by name (eager with a warning,
or raised with strict).

    python_backend_state.py PYTHON_DIR CACHE_DIR
"""
import os
import sys
import warnings

import torch

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcc  # noqa: E402
from stateful_modules import AssignedCache, Cache, RunningSum  # noqa: E402

options = {"cache_dir": sys.argv[2]}
CALLS = 24


def IndexCopyCache():
    return Cache(CALLS)


def IndexAssignedCache():
    return AssignedCache(CALLS)


class ShiftedWindow(torch.nn.Module):
    """Slice assignments: the window moves by one row per call."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.zeros(1, 6, 8))

    def forward(self, x):
        self.window[:, 1:] = self.window[:, :-1].clone()
        self.window[:, :1] = x
        return self.window.mean(dim=1)


class BatchSum(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(8))

    def forward(self, x):
        self.total.add_(x.sum(dim=0))
        return x + self.total


def scales_in_place(x, y):
    x.mul_(0.5).add_(y)
    return x  # the input itself, as in eager


def check(name, make, inputs, dynamic=None):
    """Calls a compiled instance and an eager one CALLS times each on the same
    inputs: outputs, buffers and inputs after each call."""
    torch.manual_seed(0)
    ours, eager = make(), make()
    eager.load_state_dict(ours.state_dict())
    compiled = torch.compile(ours, backend=tcc.backend, options=options, dynamic=dynamic)
    ok = True
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(CALLS):
            args = inputs(i)
            copies = [a.clone() for a in args]
            ok &= torch.allclose(compiled(*args), eager(*copies), atol=1e-5)
            ok &= all(torch.allclose(a, b) for a, b in zip(args, copies))
            ok &= all(torch.allclose(a, b, atol=1e-5)
                      for a, b in zip(ours.buffers(), eager.buffers()))
    fell_back = [str(w.message) for w in caught if "tcc" in str(w.message)]
    print(f"{name}:", "matches" if ok else "differs", "over", CALLS, "calls",
          "fallbacks:", fell_back)


torch.manual_seed(1)
check("running sum", RunningSum, lambda i: (torch.randn(4),))
check("index_copy_ cache", IndexCopyCache, lambda i: (torch.randn(1, 1, 8), torch.tensor([i])))
check("indexed assignment cache", IndexAssignedCache,
      lambda i: (torch.randn(1, 1, 8), torch.tensor([i])))
check("slice assignment", ShiftedWindow, lambda i: (torch.randn(1, 1, 8),))
check("dynamic batch", BatchSum, lambda i: (torch.randn(2 + i % 5, 8),), dynamic=True)


class Scales(torch.nn.Module):
    def forward(self, x, y):
        return scales_in_place(x, y)


check("user input", Scales, lambda i: (torch.randn(5), torch.randn(5)))
x = torch.randn(5)
print("output is the input:", torch.compile(scales_in_place, backend=tcc.backend,
                                            options=options)(x, torch.ones(5)) is x)

# Two instances of one module run the same Dynamo graph: each call binds the
# caller's buffers as the compiled model's states.
torch._dynamo.reset()
first, second, eager_first, eager_second = (RunningSum() for _ in range(4))
compiled = [torch.compile(m, backend=tcc.backend, options=options) for m in (first, second)]
ok = True
with torch.no_grad():
    for i in range(CALLS):
        x = torch.randn(4)
        which = i % 3 == 0
        ok &= torch.allclose(compiled[which](x), (eager_second if which else eager_first)(x))
ok &= torch.allclose(first.total, eager_first.total)
ok &= torch.allclose(second.total, eager_second.total)
print("two instances:", "match" if ok else "differ")


class Transposed(RunningSum):
    def __init__(self):
        super().__init__()
        self.total = torch.zeros(4, 4).t()


def shares_memory(x, y):
    x.add_(1)
    return y * 2


for name, fn, make in [("non-contiguous buffer", Transposed(), lambda: (torch.randn(4),)),
                       ("input sharing memory", shares_memory,
                        lambda: (lambda t: (t, t[:3]))(torch.randn(6)))]:
    torch._dynamo.reset()
    args = make()
    copies = [a.clone() for a in args]
    if isinstance(fn, torch.nn.Module):
        eager = Transposed()
        expected = eager(*copies)
    else:
        copies = (lambda t: (t, t[:3]))(copies[0])
        expected = fn(*copies)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(fn, backend=tcc.backend, options=options)(*args)
    print(f"{name}:", "matches" if torch.allclose(got, expected) else "differs", "eagerly")
    for w in caught:
        if "tcc" in str(w.message):
            print("warning:", str(w.message).replace("\n", " "))
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend=tcc.backend, options=dict(options, strict=True))(*make())
        print("strict: ran")
    except Exception as e:  # Dynamo wraps it in BackendCompilerFailed
        cause = getattr(e, "inner_exception", e)
        print("strict:", type(cause).__name__)
