"""An --external-weights build loaded from Python: Model.load_weights() binds
everything from the weights file beside model.so (tensor constants the export
lifted too), as `tcc run` does. Prints what a lit test checks."""
import sys

import numpy as np
import torch

sys.path.insert(0, sys.argv[1])
import tcc  # noqa: E402

so, sample = sys.argv[2], sys.argv[3]
x = torch.from_numpy(np.load(f"{sample}/input_0.npy"))
expected = np.load(f"{sample}/expected_0.npy")
try:
    tcc.load(so)(x)
except tcc.TccError as e:
    print("unbound:", str(e).split(" is not embedded")[0])
out = tcc.load(so).load_weights()(x).numpy()
print("loaded matches" if np.allclose(out, expected, rtol=1e-5, atol=1e-6) else "MISMATCH")
try:
    tcc.load(so).load_weights(so + ".missing")
except tcc.TccError as e:
    print("missing:", str(e).rsplit("/", 1)[-1])
