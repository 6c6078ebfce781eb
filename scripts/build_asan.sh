#!/usr/bin/env bash
#===- scripts/build_asan.sh - the ASan+UBSan (and libFuzzer) build ---------===#
#
# A second build directory, with clang: every target instrumented with
# AddressSanitizer and UndefinedBehaviorSanitizer (reports are fatal) and
# libFuzzer's coverage, the harnesses of test/fuzz added. Only the targets
# named are built (default: tcc-unit-tests and the harnesses): the MLIR-free
# libraries they need (lib/Support, lib/Frontend, lib/Runtime, the manifest
# builder), not the compiler's dialects and passes.
#
#   TCC_ASAN_BUILD_DIR=dir bash scripts/build_asan.sh [ninja targets...]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_ASAN_BUILD_DIR:-$root/build-asan}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
if [ ! -f "$build/build.ninja" ]; then
  # -O1 with line tables: readable reports at a third of -O2 -g's compile time.
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE= \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
    -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
    "-DCMAKE_C_FLAGS=-O1 -gline-tables-only" "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only" \
    -DTCC_SANITIZE=address,undefined -DTCC_BUILD_FUZZERS=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
fi
if [ $# -eq 0 ]; then
  set -- tcc-unit-tests tcc-fuzzers
fi
ninja -C "$build" "$@"
