"""python_compile_state.py PYTHON_DIR CACHE: tcc.compile on modules whose
forward writes their buffers (a running sum; a small static key/value
cache): calls match eager PyTorch call after call, and the module's own
buffers hold what eager's hold (tcc writes them in place); a second compile
(found in the cache) keeps doing so."""
import os
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Python",
                                "Inputs"))
import torch  # noqa: E402
import tcc  # noqa: E402
from stateful_modules import Cache, RunningSum  # noqa: E402

cache = sys.argv[2]


torch.manual_seed(0)
for name, make, args in [
        ("running_sum", RunningSum, lambda i: (torch.randn(4),)),
        ("cache", Cache, lambda i: (torch.randn(1, 1, 8), torch.tensor([i]))),
        ("cache again", Cache, lambda i: (torch.randn(1, 1, 8), torch.tensor([i])))]:
    torch.manual_seed(1)
    ours, eager = make(), make()
    eager.load_state_dict(ours.state_dict())
    compiled = tcc.compile(ours, args(0), target="cpu", cache_dir=cache)
    ok = True
    with torch.no_grad():
        for i in range(8):
            a = args(i)
            ok &= torch.allclose(compiled(*a), eager(*a), atol=1e-5)
            ok &= all(torch.allclose(b1, b2, atol=1e-5)
                      for b1, b2 in zip(ours.buffers(), eager.buffers()))
    print(name, "matches" if ok else "differs",
          "compiled" if compiled.compiled else "from the cache")
