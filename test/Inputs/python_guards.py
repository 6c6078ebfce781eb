"""python_guards.py PYTHON_DIR MODEL.so: the Python loader's checks on what it
is given (issue 17): weights of the right byte count but the wrong shape or
dtype, NumPy and sparse inputs are TccErrors naming them; a negated view is
read with its sign. Prints one line per case."""
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import torch  # noqa: E402
import tcc  # noqa: E402

m = tcc.load(sys.argv[2])  # samples/mymodule: lin.weight [10, 100], lin.bias [10]
state = {"lin.weight": torch.randn(10, 100), "lin.bias": torch.randn(10)}
m.bind_weights(state)
for name, value in (("transposed", torch.randn(100, 10)), ("int32", torch.zeros(10, 100, dtype=torch.int32)),
                    ("numpy", np.zeros((10, 100), np.float32))):
    try:
        m.bind_weights({"lin.weight": value})
        print(name, "accepted")
    except tcc.TccError as e:
        print(name, "TccError:", e)
x = torch.randn(10, 100)
for name, value in (("numpy input", x.numpy()), ("sparse input", x.to_sparse())):
    try:
        m(value)
        print(name, "accepted")
    except tcc.TccError as e:
        print(name, "TccError:", e)
reference = torch.relu(torch.nn.functional.linear(-x, state["lin.weight"], state["lin.bias"]))
print("neg view", "matches" if torch.allclose(m(x._neg_view()), reference, atol=1e-5) else "differs")
