#!/usr/bin/env bash
#===- scripts/clang_check.sh - tcc-opt built with clang, its lit tests -----===#
#
# tcc's IR must not depend on the compiler that built it: C++ leaves the order
# of a call's argument evaluation unspecified, and IR created inside call
# arguments came out in another order from a clang-built tcc than from the
# gcc-built one (issue 17). This builds tcc-opt with clang (at -O0: argument
# order is decided by the front end, not the optimizer, and -O0 compiles in
# a fraction of the time) in its own build directory and runs every lit test
# that needs only tcc-opt (test/Conversion, Dialect, Pipelines, Transforms: the
# IR of every pass) against it. scripts/check_eval_order.py (lit
# Tools/eval-order) guards the same pattern in the sources; this catches what
# its heuristic misses. The tests that need the tcc driver run on the gcc
# build only: a clang build of everything is `TCC_BUILD_DIR=build-clang-all
# CC=clang-22 CXX=clang++-22 bash scripts/build.sh && lit build-clang-all/test`.
# Ends with "clang: N passed, M failed".
#
#   TCC_CLANG_BUILD_DIR=dir bash scripts/clang_check.sh
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_CLANG_BUILD_DIR:-$root/build-clang}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
    -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
    "-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
fi
if ! ninja -C "$build" tcc-opt; then
  echo "clang: tcc-opt failed to build"
  echo "clang: 0 passed, 1 failed"
  exit 1
fi
log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" --filter "^tcc :: (Conversion|Dialect|Pipelines|Transforms)/" 2>&1 | tee "$log" |
  grep -vE "^(PASS|UNSUPPORTED|XFAIL):" | tail -n 40
passed=$(grep -oE "Passed *: *[0-9]+" "$log" | grep -oE "[0-9]+" || echo 0)
failed=$(grep -oE "Failed *: *[0-9]+" "$log" | grep -oE "[0-9]+" || echo 0)
if ! grep -q "Passed" "$log"; then failed=$((failed + 1)); fi
rm -f "$log"
echo "clang: ${passed:-0} passed, ${failed:-0} failed"
[ "${failed:-0}" -eq 0 ]
