"""Compares the states `tcc run --state-out DIR` wrote with PyTorch's buffers
after the same calls (make_stateful_fixtures.py's state_after/): one line per
state, 'NAME: max_rel_err E PASS|FAIL'; exit 1 on a failure or a state that
has no reference.

    python3 compare_states.py TCC_DIR REFERENCE_DIR RTOL
"""
import os
import sys

import numpy as np


def main():
    got_dir, ref_dir, rtol = sys.argv[1], sys.argv[2], float(sys.argv[3])
    names = sorted(f for f in os.listdir(got_dir) if f.endswith(".npy"))
    if not names:
        print("no states in", got_dir)
        return 1
    failed = 0
    for f in names:
        ref_path = os.path.join(ref_dir, f)
        if not os.path.exists(ref_path):
            print(f"{f[:-4]}: FAIL no reference")
            failed += 1
            continue
        got = np.load(os.path.join(got_dir, f)).astype(np.float64)
        ref = np.load(ref_path).astype(np.float64)
        if got.shape != ref.shape:
            print(f"{f[:-4]}: FAIL shape {got.shape}, expected {ref.shape}")
            failed += 1
            continue
        scale = np.abs(ref).max() if ref.size else 0.0
        err = np.abs(got - ref).max() if ref.size else 0.0
        rel = err / scale if scale > 0 else err
        ok = rel <= rtol
        failed += 0 if ok else 1
        print(f"{f[:-4]}: max_rel_err {rel:.3g} {'PASS' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
