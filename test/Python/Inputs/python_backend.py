"""torch.compile(backend=tcc.backend) on the tutorial's examples (foo, MyModule,
a module called inside an outer function, OuterModule), dynamic=True and
mark_dynamic, a graph tcc refuses (eager with one warning; raised with
options={"strict": True}), each compared with PyTorch eager.

    python_backend.py PYTHON_DIR CACHE_DIR
"""
import os
import sys
import warnings

import torch

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcc  # noqa: E402
from tutorial_models import MyModule, OuterModule, foo, verdict  # noqa: E402

options = {"cache_dir": sys.argv[2]}
torch.manual_seed(0)


def compiled_graphs():
    return len([d for d in os.listdir(options["cache_dir"]) if len(d) == 32])


x, y = torch.randn(10, 10), torch.randn(10, 10)
opt_foo = torch.compile(foo, backend=tcc.backend, options=options)
print("foo:", verdict(opt_foo(x, y), foo(x, y)))

mod = MyModule()
opt_mod = torch.compile(mod, backend=tcc.backend, options=options)
t = torch.randn(10, 100)
print("MyModule:", verdict(opt_mod(t), mod(t)))


def outer_function(x):
    # The tutorial's "module inside a function": Dynamo inlines mod's call.
    return torch.sin(mod(x)) * 2


print("outer function:", verdict(torch.compile(outer_function, backend=tcc.backend,
                                               options=options)(t), outer_function(t)))
outer = OuterModule()
print("OuterModule:", verdict(torch.compile(outer, backend=tcc.backend,
                                            options=options)(t), outer(t)))

# dynamic=True: one graph with a symbolic batch compiled once for all sizes.
before = compiled_graphs()
dyn = torch.compile(MyModule(), backend=tcc.backend, options=options, dynamic=True)
results = [verdict(dyn(xb), dyn._orig_mod(xb)) for xb in
           (torch.randn(3, 100), torch.randn(17, 100), torch.randn(250, 100))]
print("dynamic=True, batches 3, 17, 250:", results, "artifacts compiled:",
      compiled_graphs() - before)

# mark_dynamic, then sizes beyond the symbol's compiled maximum (dynamic_max=64):
# the graph is compiled again for twice the size, once per doubling.
before = compiled_graphs()
marked = torch.compile(MyModule(), backend=tcc.backend,
                       options=dict(options, dynamic_max=64))
xm = torch.randn(8, 100)
torch._dynamo.mark_dynamic(xm, 0)
print("mark_dynamic:", verdict(marked(xm), marked._orig_mod(xm)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    results = [verdict(marked(xb), marked._orig_mod(xb)) for xb in
               (torch.randn(100, 100), torch.randn(150, 100), torch.randn(201, 100))]
print("beyond dynamic_max, batches 100, 150, 201:", results)
print("warnings:", [str(w.message) for w in caught])
print("artifacts compiled:", compiled_graphs() - before)


def adds_in_place(x):
    x.add_(1)  # tcc writes the caller's tensor, as eager does
    return x * 2


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    a = torch.randn(3)
    b = a.clone()
    out = torch.compile(adds_in_place, backend=tcc.backend, options=options)(a)
    print("input written in place:", verdict(out, adds_in_place(b)), verdict(a, b),
          "warnings:", [str(w.message) for w in caught if "tcc" in str(w.message)])


def uses_matrix_exp(x):
    return torch.linalg.matrix_exp(x).sum() + torch.cos(x)


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    opt = torch.compile(uses_matrix_exp, backend=tcc.backend, options=options)
    print("unsupported, eager fallback:", verdict(opt(x), uses_matrix_exp(x)))
    opt(x)  # a second call: no second warning
tcc_warnings = [w for w in caught if "tcc" in str(w.message)]
print("warnings:", len(tcc_warnings))
# The line of the matrix_exp call, found here so that FileCheck can name it.
matrix_exp_line = next(i for i, text in enumerate(open(__file__), 1) if "linalg.matrix_exp(x)" in text)


def shown(message):
    return message.rsplit("/", 1)[-1].replace(f":{matrix_exp_line}:", ":MATRIX_EXP_LINE:")


for line in str(tcc_warnings[0].message).splitlines():
    print("warning:", shown(line))
torch._dynamo.reset()
try:
    torch.compile(uses_matrix_exp, backend=tcc.backend, options=dict(options, strict=True))(x)
except Exception as e:  # Dynamo wraps it in BackendCompilerFailed
    cause = getattr(e, "inner_exception", e)
    print("strict:", type(e).__name__, "from", type(cause).__name__, shown(str(cause)))
