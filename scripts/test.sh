#!/usr/bin/env bash
#===- scripts/test.sh - the whole test suite ------------------------------===#
#
# Installs what is missing, builds everything, then runs the Catch2 unit tests
# and the lit suite (FileCheck tests of the importer and every pass, tool
# tests, and end-to-end numerics against PyTorch's outputs). Ends with one
# line "tests: N passed, M failed"; exits non-zero on any failure.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh" || exit 1
start=$(date +%s)
bash "$root/scripts/build.sh" || { echo "build failed"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"

passed=0
failed=0

echo "== Catch2 unit tests"
unit_log=$(mktemp)
"$build/bin/tcc-unit-tests" -r compact > "$unit_log" 2>&1
unit_rc=$?
tail -n 20 "$unit_log"
# Catch2 v2 ends with "Passed all N test cases ..." or "Failed X test cases, ..."
u_total=$("$build/bin/tcc-unit-tests" --list-test-names-only 2>/dev/null | grep -c . || true)
u_failed=$(grep -oE "Failed [0-9]+ test case" "$unit_log" | grep -oE "[0-9]+" | head -1 || true)
u_failed=${u_failed:-0}
if [ "$unit_rc" -ne 0 ] && [ "$u_failed" -eq 0 ]; then u_failed=1; fi
passed=$((passed + u_total - u_failed))
failed=$((failed + u_failed))

echo "== lit tests"
lit_log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" 2>&1 | tee "$lit_log" | grep -vE "^(PASS|UNSUPPORTED|XFAIL):" | tail -n 60
l_passed=$(grep -oE "Passed *: *[0-9]+" "$lit_log" | grep -oE "[0-9]+" || echo 0)
l_failed=$(grep -oE "Failed *: *[0-9]+" "$lit_log" | grep -oE "[0-9]+" || echo 0)
l_passed=${l_passed:-0}; l_failed=${l_failed:-0}
if ! grep -q "Passed" "$lit_log"; then l_failed=$((l_failed + 1)); fi
passed=$((passed + l_passed))
failed=$((failed + l_failed))

echo "unit: $((u_total - u_failed)) passed, $u_failed failed; lit: $l_passed passed, $l_failed failed"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
