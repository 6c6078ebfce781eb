#!/usr/bin/env bash
#===- scripts/sanitize.sh - the unit tests under ASan and UBSan ------------===#
#
# Builds tcc-unit-tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/build_asan.sh: the frontend, the TorchScript reader, the runtime,
# the manifest builder and lib/Support; no MLIR) and runs it. Any report
# (out-of-bounds access, use after free, leak, signed overflow, misaligned
# load, ...) aborts the run and fails it. Ends with
# "sanitize: N passed, M failed" (Catch2 test cases; a run that a report
# stops counts as 0 passed, 1 failed).
#
#   bash scripts/sanitize.sh [catch2 test spec]
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_ASAN_BUILD_DIR:-$root/build-asan}
if ! bash "$root/scripts/build_asan.sh" tcc-unit-tests; then
  echo "sanitize: tcc-unit-tests failed to build"
  echo "sanitize: 0 passed, 1 failed"
  exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log=$(mktemp)
"$build/bin/tcc-unit-tests" -r compact "$@" > "$log" 2>&1
rc=$?
total=$("$build/bin/tcc-unit-tests" --list-test-names-only "$@" 2>/dev/null | grep -c . || true)
failed=$(grep -oE "Failed [0-9]+ test case" "$log" | grep -oE "[0-9]+" | head -1 || true)
failed=${failed:-0}
reports=$(grep -cE "^==[0-9]+==ERROR|runtime error:" "$log" || true)
tail -n 5 "$log"
if [ "$reports" -gt 0 ]; then
  echo "sanitizer reports:"
  grep -E -A12 "^==[0-9]+==ERROR|runtime error:" "$log" | head -60
fi
# A report aborts the binary before Catch2's summary: the run counts as one
# failure, the cases it did not reach as nothing.
if ! grep -qE "^(Passed all|Failed [0-9]+ test case)" "$log"; then
  total=1
  failed=1
  echo "sanitize: tcc-unit-tests stopped (exit $rc) before its summary"
elif [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # a leak reported at exit, after the summary
fi
rm -f "$log"
echo "sanitize: $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
