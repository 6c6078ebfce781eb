"""The torch.compile tutorial's examples (samples/foo, samples/mymodule,
samples/outer_module were exported from them), shared by the Python tests."""
import torch
import torch.nn.functional as F


def foo(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(100, 10)

    def forward(self, x):
        return F.relu(self.lin(x))


class OuterModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = MyModule()
        self.lin = torch.nn.Linear(10, 2)

    def forward(self, x):
        return F.relu(self.lin(self.inner(x)))


def max_rel_err(out, ref):
    """max|out - ref| / max|ref|, as scripts/demo.sh reports it."""
    return ((out.detach().float().cpu() - ref.detach().float().cpu()).abs().max()
            / ref.detach().float().abs().max().clamp_min(1e-30)).item()


# Per precision, against PyTorch eager (README "Tests and fixtures").
TOLERANCE = {"fp32": 1e-5, "tf32": 2e-3, "bf16": 2e-2}


def verdict(out, ref, precision="fp32"):
    err = max_rel_err(out, ref)
    return "matches" if err <= TOLERANCE[precision] else f"MISMATCH (max_rel_err {err:.3g})"
