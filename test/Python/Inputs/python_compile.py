"""tcc.compile on the tutorial's examples and on modules with buffers,
tensor attributes, constants made in forward, several outputs and a dynamic
batch, each compared with PyTorch eager; an unsupported operator raises
CompileError with tcc's message. Run twice with one cache directory: the
second run ("warm") reports what it exported and compiled; a third
("notcc", no tcc executable to be found) runs from the cache alone.

    python_compile.py PYTHON_DIR CACHE_DIR cold|warm|notcc
"""
import sys
import time

import torch

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, __file__.rsplit("/", 1)[0])
import tcc  # noqa: E402
from tutorial_models import MyModule, OuterModule, foo, verdict  # noqa: E402

cache, phase = sys.argv[2], sys.argv[3]


class Stateful(torch.nn.Module):
    """A buffer, a plain tensor attribute, a constant made in forward, a tuple out."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.register_buffer("shift", torch.linspace(-1, 1, 4).reshape(1, 4, 1, 1))
        self.scale = torch.tensor([0.5, 2.0, -1.0, 3.0]).reshape(1, 4, 1, 1)

    def forward(self, x):
        y = self.conv(x) * self.scale + self.shift
        return y.relu(), y.sum(dim=(2, 3)) + torch.tensor([1.0, 2.0, 3.0, 4.0])


class Unsupported(torch.nn.Module):
    def forward(self, x):
        return torch.linalg.matrix_exp(x)


torch.manual_seed(0)
x10 = torch.randn(10, 10)
y10 = torch.randn(10, 10)
x100 = torch.randn(10, 100)
image = torch.randn(2, 3, 8, 8)
rows = torch.export.Dim("rows", max=64)
cases = [("foo", foo, (x10, y10), None), ("mymodule", MyModule(), (x100,), None),
         ("outer_module", OuterModule(), (x100,), None),
         ("stateful", Stateful().eval(), (image,), None),
         ("dynamic_batch", MyModule(),
          (x100,), {"x": {0: torch.export.Dim("batch", min=1, max=64)}}),
         # A function's dynamic_shapes name its parameters.
         ("foo_dynamic", foo, (x10, y10), {"x": {0: rows}, "y": {0: rows}})]
for name, module, args, dynamic in cases:
    start = time.perf_counter()
    compiled = tcc.compile(module, args, dynamic_shapes=dynamic, target="cpu",
                           cache_dir=cache)
    seconds = time.perf_counter() - start
    out, ref = compiled(*args), module(*args)
    if isinstance(ref, tuple):
        ok = type(out) is tuple and len(out) == len(ref) and all(
            verdict(o, r) == "matches" for o, r in zip(out, ref))
        result = "matches" if ok else f"MISMATCH {type(out)}"
    else:
        result = verdict(out, ref)
    print(f"{phase} {name}: {result}; exported={compiled.exported} "
          f"compiled={compiled.compiled}", file=sys.stdout)
    print(f"{phase} {name}: tcc.compile took {seconds:.3f} s", file=sys.stderr)



class Encoder(torch.nn.Module):
    """nn.TransformerEncoderLayer: a leaf module fx does not trace into, whose
    activation function is an attribute. Each activation has its own trace
    key (once both took the first one's artifact: silu's outputs for tanh)."""

    def __init__(self, activation):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                                      activation=activation,
                                                      batch_first=True)

    def forward(self, x):
        return self.layer(x) * 2


sequence = torch.randn(2, 5, 8)
for activation in (torch.nn.functional.silu, torch.tanh):
    torch.manual_seed(1)
    encoder = Encoder(activation).eval()
    compiled = tcc.compile(encoder, (sequence,), target="cpu", cache_dir=cache)
    with torch.no_grad():
        print(f"{phase} encoder {activation.__name__}: "
              f"{verdict(compiled(sequence), encoder(sequence))}; "
              f"exported={compiled.exported} compiled={compiled.compiled}")

mod = MyModule()
compiled = tcc.compile(mod, (x100,), target="cpu", cache_dir=cache)
# The module's own tensors are bound, not copies.
print("bound in place:", compiled.model._bound["lin.weight"].data_ptr() == mod.lin.weight.data_ptr())
with torch.no_grad():
    mod.lin.weight.mul_(-1.0)
print("after an in-place change and rebind():", verdict(compiled.rebind()(x100), mod(x100)))

mod = MyModule()
dyn = tcc.compile(mod, (x100,), target="cpu", cache_dir=cache,
                  dynamic_shapes={"x": {0: torch.export.Dim("batch", min=1, max=64)}})
for batch in (1, 37, 64):
    xb = torch.randn(batch, 100)
    out = dyn(xb)
    print(f"batch {batch}: {tuple(out.shape)} {verdict(out, mod(xb))}")
try:
    dyn(torch.randn(65, 100))
except tcc.GuardError as e:
    print("batch 65: GuardError:", e)

# One Dim name with two minima: two artifacts, each with its own range (the
# trace key writes each Dim's range out).
xb = torch.randn(3, 100)
for low in (8, 1):
    ranged = tcc.compile(mod, (x100,), target="cpu", cache_dir=cache, dynamic_shapes={
        "x": {0: torch.export.Dim("batch", min=low, max=64)}})
    try:
        print(f"min {low}, batch 3:", verdict(ranged(xb), mod(xb)))
    except tcc.GuardError as e:
        print(f"min {low}, batch 3: GuardError:", e)

for bad in ({"target": "gpu"}, {"target": "cpu,tpu"}, {"target": "cpu,cpu"}, {"target": ""},
            {"precision": "fp16"}):
    try:
        tcc.compile(MyModule(), (x100,), cache_dir=cache, **bad)
    except ValueError as e:
        print("ValueError:", e)

train_bn = torch.nn.Sequential(torch.nn.Linear(100, 10), torch.nn.BatchNorm1d(10))
try:  # training mode: batch norm writes its running statistics
    tcc.compile(train_bn, (x100,), target="cpu", cache_dir=cache)
except tcc.TccError as e:  # refused by tcc compile (or no tcc to ask)
    print(f"train mode: {type(e).__name__}:", e)

try:
    tcc.compile(Unsupported(), (x10,), target="cpu", cache_dir=cache)
except tcc.CompileError as e:
    # The line of the matrix_exp call, found here so that FileCheck can name it.
    line = next(i for i, text in enumerate(open(__file__), 1) if "linalg.matrix_exp(x)" in text)
    print(f"CompileError (exit {e.returncode}):",
          str(e).rsplit("/", 1)[-1].replace(f":{line}:", ":MATRIX_EXP_LINE:"))
except tcc.TccError as e:  # phase notcc: no tcc executable to compile it
    print("TccError:", e)
