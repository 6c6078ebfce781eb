"""Lets a fresh virtual environment import the torch (and numpy) that the
Python running this script imports, after its own packages: a .pth file in
the environment's site-packages naming where they live. --system-site-packages
reaches only the base interpreter's packages, and the tests' torch may live in
a virtual environment of its own (scripts/setup_torch.sh)."""
import os
import sys
import sysconfig

import numpy
import torch

venv = sys.argv[1]
site = sysconfig.get_path("purelib", vars={"base": venv, "platbase": venv})
dirs = sorted({os.path.dirname(os.path.dirname(m.__file__)) for m in (torch, numpy)})
with open(os.path.join(site, "outer-torch.pth"), "w") as f:
    f.write("".join(d + "\n" for d in dirs))
