#!/usr/bin/env bash
#===- scripts/setup_torch.sh - PyTorch for the tests that need it ---------===#
#
# The Python package's tests, the torch.compile backend, the cache, the
# operator sweep and the kernel-cost check (REQUIRES: torch in test/) run
# against PyTorch itself. This makes a virtual environment with CPU-usable
# PyTorch 2.11 from PyPI and prints its python's path (stdout, last line);
# scripts/test.sh hands it to lit as TCC_TORCH_PYTHON.
#
# Idempotent: an environment that already imports torch is kept. PyPI's Linux
# wheel brings its CUDA runtime packages (about 3 GB, a few minutes on a
# fast link; it imports without a GPU). Where PyPI cannot be reached, it says
# so and exits 1; the tests that need torch are then skipped by name
# (scripts/test.sh lists them), never passed.
#
# TCC_TORCH_VENV: where the environment lives (default: the user's cache, so
# that fresh clones on one machine share one download).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
venv=${TCC_TORCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tcc/torch-2.11-venv}
py="$venv/bin/python"
if [ -x "$py" ] && "$py" -c "import torch, numpy, expecttest" 2>/dev/null; then
  echo "setup_torch: $venv has torch $("$py" -c 'import torch; print(torch.__version__)')" >&2
  echo "$py"
  exit 0
fi
echo "setup_torch: making $venv (PyTorch 2.11 from PyPI)" >&2
rm -rf "$venv"
python3 -m venv "$venv" >&2
pip=("$py" -m pip install -q --disable-pip-version-check)
"${pip[@]}" "torch==2.11.0" numpy expecttest >&2
"$py" -c "import torch, numpy, expecttest; torch.ones(2) @ torch.ones(2)" >&2
echo "setup_torch: torch $("$py" -c 'import torch; print(torch.__version__)') in $venv" >&2
echo "$py"
