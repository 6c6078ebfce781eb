"""python_generate.py PYTHON_DIR MODEL.so SAMPLE_DIR: the Python loader's
generate() on a decoder with a static key/value cache: greedy tokens against
eager PyTorch's greedy generation (SAMPLE_DIR/generate/), the on_token
callback (streaming, and stopping early), seeded sampling, an end token."""
import os
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import torch  # noqa: E402
import tcc  # noqa: E402

m = tcc.load(sys.argv[2])
g = os.path.join(sys.argv[3], "generate")
prompt = torch.from_numpy(np.load(os.path.join(g, "prompt.npy")))
ref = np.load(os.path.join(g, "tokens.npy"))
steps = []
tokens = m.generate(prompt, ref.shape[1], on_token=lambda step, t: steps.append(step))
print("greedy:", tuple(tokens.shape), "equal" if np.array_equal(tokens.numpy(), ref) else "differ",
      "callbacks:", len(steps))
stats = m.last_generate_stats
print("calls:", stats["prompt_calls"], stats["decode_calls"])
stopped = m.generate(prompt, 20, on_token=lambda step, t: step == 3)
print("stopped after:", stopped.shape[1])
a = m.generate(prompt, 8, top_k=4, temperature=0.9, seed=11)
b = m.generate(prompt, 8, top_k=4, temperature=0.9, seed=11)
print("seeded sampling repeats:", torch.equal(a, b))
# The end token: the first generated token not seen before it.
k = next(i for i in range(1, ref.shape[1]) if ref[0, i] not in ref[0, :i])
ended = m.generate(prompt, 10, eos_token=int(ref[0, k]))
print("ends at eos:", ended[0].tolist() == ref[0, :k + 1].tolist())
