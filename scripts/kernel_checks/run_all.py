#!/usr/bin/env python3
"""Runs every kernel check on the GPU machine; exits 1 on any failure.

    python3 scripts/kernel_checks/run_all.py [--lib PATH] [--only attention,rows,gemm]
"""
import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402  (before the library, so its CUDA libraries resolve)

import common  # noqa: E402

CHECKS = ["attention", "rows", "gemm", "conv"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", default=None)
    p.add_argument("--only", default=",".join(CHECKS))
    p.add_argument("--quick", action="store_true", help="fewer shapes, no timing")
    args = p.parse_args()
    common.lib(args.lib)
    print("device:", torch.cuda.get_device_name(), flush=True)
    failed = 0
    for name in args.only.split(","):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"check_{name}.py")
        if not os.path.exists(path):
            print(f"(no check_{name}.py)")
            continue
        module = importlib.import_module(f"check_{name}")
        try:
            report = module.run(quick=args.quick)
            failed += report.failed
        except Exception as e:  # a crash in one family must not hide the others
            import traceback
            traceback.print_exc()
            print(f"FAIL {name}: {type(e).__name__}: {e}")
            failed += 1
    print(f"kernel checks: {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
