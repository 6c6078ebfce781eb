#!/usr/bin/env bash
#===- scripts/test.sh - the whole test suite ------------------------------===#
#
# Installs what is missing, builds everything, then runs the Catch2 unit tests
# and the lit suite (FileCheck tests of the importer and every pass, tool
# tests, and end-to-end numerics against PyTorch's outputs), then the
# hardening checks, each in a build directory of its own:
#   fuzz      scripts/fuzz.sh: the libFuzzer harnesses of test/fuzz, their
#             regression inputs replayed, then 60 s of fuzzing each
#             (TCC_FUZZ_SECONDS), ASan+UBSan (build-asan)
#   sanitize  scripts/sanitize.sh: tcc-unit-tests under ASan+UBSan (build-asan)
#   clang     scripts/clang_check.sh: tcc-opt built with clang and the lit
#             tests of the passes run against it (build-clang), so IR that
#             depends on the C++ compiler fails here
# Each counts in the totals (a crash or a sanitizer report is a failure).
# Skipping one takes an explicit option: --skip fuzz,sanitize,clang (or
# TCC_TEST_SKIP=fuzz,...); --skip torch does not install PyTorch
# (scripts/setup_torch.sh), so the tests that need it are skipped. Ends with
# one line "tests: N passed, M failed"; exits non-zero on any failure.
# Times: README "Tests and fixtures".
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_BUILD_DIR:-$root/build}
skip=",${TCC_TEST_SKIP:-},"
while [ $# -gt 0 ]; do
  case "$1" in
    --skip) skip="$skip$2,"; shift 2 ;;
    --skip=*) skip="$skip${1#--skip=},"; shift ;;
    *) echo "usage: scripts/test.sh [--skip fuzz,sanitize,clang,torch]" >&2; exit 2 ;;
  esac
done
bash "$root/scripts/setup.sh" || exit 1
# PyTorch for the tests that need it (the Python package, the backend, the
# cache, the sweep): lit runs them with TCC_TORCH_PYTHON. --skip torch leaves
# it out, and those tests are skipped by name.
case "$skip" in
  *",torch,"*) echo "== torch: skipped (--skip); the tests that need it are listed as skipped" ;;
  *) if torch_python=$(bash "$root/scripts/setup_torch.sh" | tail -n 1) && [ -x "$torch_python" ]; then
       export TCC_TORCH_PYTHON=$torch_python
     else
       echo "setup_torch failed: the tests that need torch are skipped (listed below)"
     fi ;;
esac
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
/usr/lib/llvm-22/bin/lit -sv --show-unsupported "$build/test" 2>&1 | tee "$lit_log" | grep -vE "^(PASS|UNSUPPORTED|XFAIL):" | tail -n 60
l_passed=$(grep -oE "Passed *: *[0-9]+" "$lit_log" | grep -oE "[0-9]+" || echo 0)
l_failed=$(grep -oE "Failed *: *[0-9]+" "$lit_log" | grep -oE "[0-9]+" || echo 0)
l_skipped=$(grep -oE "Unsupported *: *[0-9]+" "$lit_log" | grep -oE "[0-9]+" || echo 0)
l_passed=${l_passed:-0}; l_failed=${l_failed:-0}; l_skipped=${l_skipped:-0}
if ! grep -q "Passed" "$lit_log"; then l_failed=$((l_failed + 1)); fi
passed=$((passed + l_passed))
failed=$((failed + l_failed))
# A skipped test checks nothing: name each (their REQUIRES, e.g. torch, is
# not met on this machine) rather than let the count hide them.
if [ "$l_skipped" -gt 0 ]; then
  echo "lit: $l_skipped skipped (REQUIRES not met here):"
  awk '/^Unsupported Tests/ {on = 1; next} on && /^  / {sub(/^  tcc :: /, "  "); print; next} {on = 0}' "$lit_log"
fi

summary="unit: $((u_total - u_failed)) passed, $u_failed failed; lit: $l_passed passed, $l_failed failed, $l_skipped skipped"

# The hardening checks: each script ends with "<name>: N passed, M failed".
for extra in sanitize fuzz clang; do
  case "$skip" in
    *",$extra,"*) echo "== $extra: skipped (--skip)"; summary="$summary; $extra: skipped"; continue ;;
  esac
  case "$extra" in
    sanitize) script=sanitize.sh ;;
    fuzz) script=fuzz.sh ;;
    clang) script=clang_check.sh ;;
  esac
  echo "== $extra (scripts/$script)"
  extra_log=$(mktemp)
  t0=$(date +%s)
  bash "$root/scripts/$script" 2>&1 | tee "$extra_log" | tail -n 25
  line=$(grep -E "^$extra: [0-9]+ passed, [0-9]+ failed" "$extra_log" | tail -1)
  e_passed=$(echo "$line" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+" || true)
  e_failed=$(echo "$line" | grep -oE "[0-9]+ failed" | grep -oE "[0-9]+" || true)
  if [ -z "$line" ]; then e_passed=0; e_failed=1; fi
  echo "$extra: $(( $(date +%s) - t0 )) s"
  passed=$((passed + e_passed))
  failed=$((failed + e_failed))
  summary="$summary; $extra: $e_passed passed, $e_failed failed"
  rm -f "$extra_log"
done

echo "$summary"
echo "tests: $passed passed, $failed failed, $l_skipped skipped"
[ "$failed" -eq 0 ]
