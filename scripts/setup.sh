#!/usr/bin/env bash
#===- scripts/setup.sh - install tcc's build and test dependencies --------===#
#
# Idempotent: installs only what is missing. Debian 12 packages only (LLVM/MLIR
# 22 come from Debian's archive); Python packages from PyPI.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

# libclang-rt-22-dev: the sanitizer and libFuzzer runtimes (scripts/fuzz.sh, sanitize.sh).
# chromium: opens tcc explain's HTML report headless in test/Tools/explain-html.test.
PKGS=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  libclang-rt-22-dev
  libcli11-dev nlohmann-json3-dev catch2 libzip-dev zlib1g-dev libzstd-dev
  cmake ninja-build ccache g++ python3 python3-numpy
  libopenblas0-pthread libdnnl-dev
  chromium
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# lit drives the test suite; Debian ships it inside llvm-22-tools, but numpy for
# the python used by tests may come from pyenv rather than Debian.
PY=${PYTHON:-python3}
if ! "$PY" -c "import numpy" 2>/dev/null; then
  echo "setup: installing numpy for $PY"
  "$PY" -m pip install -q numpy
fi
# The operator sweep (scripts/opinfo_sweep.py) reads PyTorch's operator test
# database, which imports expecttest; only where PyTorch itself is installed.
if "$PY" -c "import torch" 2>/dev/null && ! "$PY" -c "import expecttest" 2>/dev/null; then
  echo "setup: installing expecttest for $PY"
  "$PY" -m pip install -q expecttest
fi
if ! "$PY" -c "import lit" 2>/dev/null && [ ! -x /usr/lib/llvm-22/build/utils/lit/lit.py ]; then
  "$PY" -m pip install -q lit
fi
echo "setup: done"
