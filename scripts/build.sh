#!/usr/bin/env bash
#===- scripts/build.sh - configure and build tcc (Release, Ninja, ccache) -===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_BUILD_DIR:-$root/build}
# Lets clones in other directories share ccache hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
fi
ninja -C "$build" "$@"
