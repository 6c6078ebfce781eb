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
# IR of every pass) against it; then runs each of those tests' tcc-opt
# commands with the gcc-built tcc-opt ($TCC_BUILD_DIR, scripts/build.sh) and
# the clang-built one and requires identical output (scripts/
# compare_ir_builds.py), since FileCheck patterns do not pin every op's
# order. RUN lines known to differ are listed, with what differs, in
# test/Inputs/compiler-dependent-ir.txt (reported, not counted, until fixed).
# scripts/check_eval_order.py (lit Tools/eval-order) guards the pattern in
# the sources; this catches what its heuristic misses.
#
# Why tcc-opt alone: a cold clang build of tcc-opt at -O0 costs about 10
# CPU-minutes (5 on the 2-core CI machine), half of a second full build at
# -O3, and the IR is where the compiler showed through. The tcc driver's tests
# (end to end, tools) run on the gcc build only; a clang build of everything,
# on demand: `TCC_BUILD_DIR=build-clang-all CC=clang-22 CXX=clang++-22 bash
# scripts/build.sh && /usr/lib/llvm-22/bin/lit build-clang-all/test`.
# Ends with "clang: N passed, M failed" (lit tests + compared RUN lines).
#
#   TCC_CLANG_BUILD_DIR=dir TCC_BUILD_DIR=gcc-build bash scripts/clang_check.sh
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_CLANG_BUILD_DIR:-$root/build-clang}
gcc_build=${TCC_BUILD_DIR:-$root/build}
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
passed=${passed:-0}; failed=${failed:-0}
if ! grep -q "Passed" "$log"; then failed=$((failed + 1)); fi

echo "== the same tests' tcc-opt output, gcc build vs clang build"
if [ -x "$gcc_build/bin/tcc-opt" ]; then
  python3 "$root/scripts/compare_ir_builds.py" \
    --expected "$root/test/Inputs/compiler-dependent-ir.txt" \
    "$gcc_build/bin/tcc-opt" "$build/bin/tcc-opt" \
    "$root/test/Conversion" "$root/test/Dialect" "$root/test/Pipelines" "$root/test/Transforms" \
    > "$log" 2>&1
  grep -vE "^XDIFFERS" "$log" | tail -n 40
  line=$(grep -E "^compare: [0-9]+ passed, [0-9]+ failed" "$log" | tail -1)
  c_passed=$(echo "$line" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+" || true)
  c_failed=$(echo "$line" | grep -oE "[0-9]+ failed" | grep -oE "[0-9]+" || true)
  [ -n "$line" ] || { c_passed=0; c_failed=1; }
  passed=$((passed + c_passed))
  failed=$((failed + c_failed))
else
  echo "compare: no gcc-built tcc-opt at $gcc_build/bin/tcc-opt (scripts/build.sh builds it)"
  failed=$((failed + 1))
fi
rm -f "$log"
echo "clang: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
