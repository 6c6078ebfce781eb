#!/usr/bin/env python3
"""The GPU benchmark's workloads, built the same way wherever torch runs.

    python3 scripts/bench_models.py --export DIR   # DIR/<name>/model.json (+ .pt2 when small)

Weights come from a fixed seed, so the benchmark (scripts/gpu_benchmark.py)
rebuilds the same modules on the GPU machine and binds their state_dict to the
tcc model by name; large weights never travel.
"""
import argparse
import json
import os
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class Foo(nn.Module):
    def forward(self, x, y):
        return torch.sin(x) + torch.cos(y)


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(100, 10)

    def forward(self, x):
        return F.relu(self.lin(x))


class MLP(nn.Module):
    """4 x (Linear 4096 -> 4096 + GELU)."""

    def __init__(self, width=4096, depth=4):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = F.gelu(layer(x))
        return x


class Softmax(nn.Module):
    """Row softmax: a max and a sum reduction per row, then pointwise."""

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def workloads():
    """name -> (module factory, input factory), each seeded."""
    def seeded(fn, seed):
        def make():
            torch.manual_seed(seed)
            return fn()
        return make
    return {
        "foo": (seeded(Foo, 1), seeded(lambda: (torch.randn(10, 10), torch.randn(10, 10)), 2)),
        "mymodule": (seeded(MyModule, 3), seeded(lambda: (torch.randn(10, 100),), 4)),
        "pointwise_64m": (seeded(Foo, 5),
                          seeded(lambda: (torch.randn(8192, 8192), torch.randn(8192, 8192)), 6)),
        "mlp_4x4096_b256": (seeded(MLP, 7), seeded(lambda: (torch.randn(256, 4096),), 8)),
        "softmax_4096x4096": (seeded(Softmax, 9), seeded(lambda: (torch.randn(4096, 4096),), 10)),
        "layer_norm_4096x4096": (seeded(lambda: nn.LayerNorm(4096), 11),
                                 seeded(lambda: (torch.randn(4096, 4096),), 12)),
    }


def export(outdir, only=None):
    for name, (make_module, make_inputs) in workloads().items():
        if only and name not in only:
            continue
        d = os.path.join(outdir, name)
        os.makedirs(d, exist_ok=True)
        module = make_module().eval()
        with torch.no_grad():
            ep = torch.export.export(module, make_inputs())
        pt2 = os.path.join(d, "model.pt2")
        torch.export.save(ep, pt2)
        with zipfile.ZipFile(pt2) as z:
            entry = [n for n in z.namelist() if n.endswith("models/model.json")][0]
            with open(os.path.join(d, "model.json"), "wb") as f:
                f.write(z.read(entry))
        if os.path.getsize(pt2) > 8 << 20:  # weights are rebuilt from the seed instead
            os.remove(pt2)
        print("exported", name)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--export", metavar="DIR", required=True)
    ap.add_argument("--only", nargs="*", help="export only these workloads")
    args = ap.parse_args()
    export(args.export, args.only)
