"""python_specialize.py PYTHON_DIR MODEL.so SAMPLE_DIR: the Python loader on an
artifact compiled with --specialize s77=1,7 (samples/mymodule_dynamic_batch):
the C ABI picks the variant, the loader needs nothing of its own. Prints, per
batch, the variant that ran and whether the output matches PyTorch's."""
import os
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import torch  # noqa: E402
import tcc  # noqa: E402

sample = sys.argv[3]
m = tcc.load(sys.argv[2])
names = [s["name"] for s in m.manifest["specializations"]]


def run(label, batch):
    x = torch.from_numpy(np.load(os.path.join(sample, f"input_b{batch}.npy")))
    expected = np.load(os.path.join(sample, f"expected_b{batch}.npy"))
    y = m(x)
    ok = np.allclose(y.numpy(), expected, atol=1e-5)
    print(label, names[m.option("specialization")], "matches" if ok else "differs")


for batch in (1, 7, 1024):
    run(f"b{batch}", batch)
m._check(m._lib.tcc_model_set_option(m._handle, b"specializations", 0))
run("forced b7", 7)
