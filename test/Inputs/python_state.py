"""python_state.py PYTHON_DIR MODEL.so SAMPLE_DIR INPLACE.so: the Python loader on a
model with state (samples/running_sum): the calls of steps/ in order, each
against PyTorch's output; then state() against state_after/, reset_state()
and set_state(); then an input the forward writes in place, passed as a
non-contiguous view, written through as PyTorch would."""
import os
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import torch  # noqa: E402
import tcc  # noqa: E402

sample = sys.argv[3]
m = tcc.load(sys.argv[2])
print("states:", ", ".join(m.state_names))
steps = sorted(os.listdir(os.path.join(sample, "steps")))
ok = True
for k in steps:
    d = os.path.join(sample, "steps", k)
    x = torch.from_numpy(np.load(os.path.join(d, "input_0.npy")))
    ok &= np.allclose(m(x).numpy(), np.load(os.path.join(d, "expected_0.npy")), atol=1e-6)
print("calls:", len(steps), "match" if ok else "differ")
state = m.state()
for name in m.state_names:
    ref = np.load(os.path.join(sample, "state_after", name + ".npy"))
    print(name, "matches" if np.allclose(state[name].numpy(), ref, atol=1e-6) else "differs")
m.reset_state()
print("reset total:", m.state()["total"].tolist())
m.set_state({"total": torch.full((4,), 2.0)})
first = torch.from_numpy(np.load(os.path.join(sample, "steps", steps[0], "input_0.npy")))
print("after set_state:", np.allclose(m(first).numpy(), (2.0 + first) * 2.0 + 1.0, atol=1e-6))
try:
    m.set_state({"total": torch.zeros(3)})
except tcc.TccError as e:
    print("refused:", e)

# samples/inplace: y.relu_() on input #1. Its view y[::2] is written through.
inplace = tcc.load(sys.argv[4])
x = torch.randn(3, 8)
y = torch.randn(16)
view = y[::2]
expected, between = view.clamp(min=0), y[1::2].clone()
inplace(x, view)
print("input written through:", torch.equal(y[::2], expected), "untouched between:",
      torch.equal(y[1::2], between))
