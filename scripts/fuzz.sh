#!/usr/bin/env bash
#===- scripts/fuzz.sh - run the libFuzzer harnesses of test/fuzz ----------===#
#
# Builds the harnesses (scripts/build_asan.sh: clang, ASan+UBSan, libFuzzer),
# then for each one:
#   1. replays its regression inputs, test/fuzz/regressions/<name>/ (every
#      input that ever crashed it; each must now be read or refused cleanly);
#   2. fuzzes for TCC_FUZZ_SECONDS (default 60) from a seed corpus made of
#      the committed samples (model.pt2, model.json, .npy, TorchScript dumps
#      and archives) and test/fuzz/seeds/<name>/.
# A crash, hang (10 s on one input), leak, out-of-memory (2 GiB) or sanitizer
# report fails the harness; libFuzzer's reproducer is copied into
# test/fuzz/regressions/<name>/ to be committed with the fix, so every later
# run replays it (and printed in base64, for a CI log). Ends with
# "fuzz: N passed, M failed".
#
#   bash scripts/fuzz.sh                        # all harnesses, 60 s each
#   TCC_FUZZ_SECONDS=3600 bash scripts/fuzz.sh npy   # one harness, an hour
#   bash scripts/fuzz.sh --replay-only          # regression inputs only
#
# Harnesses: exported-program (.pt2 / model.json / weights), npy,
# guard-manifest, torchscript-graph (dump text), torchscript-archive
# (torch.jit.save zip). The corpus each run grows is kept in
# $TCC_ASAN_BUILD_DIR/fuzz/corpus/<name> for the next local run.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TCC_ASAN_BUILD_DIR:-$root/build-asan}
seconds=${TCC_FUZZ_SECONDS:-60}
# A fixed seed by default: a CI run mutates the same inputs in the same order
# every time (a slower machine stops earlier on the same path), so a test run
# cannot turn red by luck. TCC_FUZZ_SEED=0 lets libFuzzer pick one; any other
# value explores elsewhere.
fuzz_seed=${TCC_FUZZ_SEED:-1}
jobs=${TCC_FUZZ_JOBS:-$(nproc)}
replay_only=0
all=(exported-program npy guard-manifest torchscript-graph torchscript-archive kernel-profile)
names=()
for a in "$@"; do
  case "$a" in
    --replay-only) replay_only=1 ;;
    -h|--help) sed -n '2,/^#===-*===#$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) names+=("$a") ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")

if ! bash "$root/scripts/build_asan.sh" $(printf 'tcc-fuzz-%s ' "${names[@]}"); then
  echo "fuzz: harnesses failed to build"
  echo "fuzz: 0 passed, ${#names[@]} failed"
  exit 1
fi

work=$build/fuzz
rm -rf "$work/seeds" "$work/artifacts" "$work/logs"
mkdir -p "$work/seeds" "$work/artifacts" "$work/logs"

# Seeds: the samples' files of each kind, at most 64 KiB each (larger ones
# only slow every mutation down), and the committed test/fuzz/seeds/<name>/.
seed_files() {
  local name=$1
  case "$name" in
    exported-program)
      find "$root/samples" "$root/test/Inputs" \( -name '*.pt2' -o -name 'model.json' \) -size -64k ;;
    npy)
      find "$root/samples" -name '*.npy' -size -8k ;;
    torchscript-archive)
      find "$root/samples/torchscript" -name '*.pt' -size -256k ;;
  esac
  [ -d "$root/test/fuzz/seeds/$name" ] && find "$root/test/fuzz/seeds/$name" -type f
}
for name in "${names[@]}"; do
  mkdir -p "$work/seeds/$name" "$work/corpus/$name" "$work/artifacts/$name"
  seed_files "$name" | while read -r f; do
    cp "$f" "$work/seeds/$name/$(echo "$f" | sed "s|^$root/||; s|/|_|g")"
  done
done
# TorchScript dumps carry a first byte choosing the weights archive the
# harness converts them with: 1 + the sample's index in FuzzTorchScriptGraph.cpp.
i=1
for m in mymodule outer_module small_cnn tiny_transformer; do
  for f in "$root/samples/torchscript/$m"/*.txt; do
    [ -f "$f" ] || continue
    { printf "\\x$(printf %02x $i)"; cat "$f"; } > "$work/seeds/torchscript-graph/${m}_$(basename "$f")"
  done
  i=$((i + 1))
done

run_one() {
  local name=$1 bin=$build/bin/tcc-fuzz-$1 log=$work/logs/$1.log
  local regress=$root/test/fuzz/regressions/$name
  : > "$log"
  if [ -d "$regress" ] && [ -n "$(ls -A "$regress")" ]; then
    echo "== $name: replaying $(ls "$regress" | wc -l) regression input(s)" >> "$log"
    if ! "$bin" -timeout=10 -rss_limit_mb=2048 "$regress"/* >> "$log" 2>&1; then
      echo "FAIL replay" >> "$log"
      return 1
    fi
  fi
  [ "$replay_only" -eq 1 ] && return 0
  echo "== $name: fuzzing for $seconds s" >> "$log"
  # -max_len: the largest seed (a .pt2 of 64 KiB), so archives can grow.
  "$bin" -max_total_time="$seconds" -seed="$fuzz_seed" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$name/" \
    "$work/corpus/$name" "$work/seeds/$name" >> "$log" 2>&1
}

# The harnesses run side by side, TCC_FUZZ_JOBS at a time (default: one per core).
running=0
for name in "${names[@]}"; do
  ( run_one "$name"; echo $? > "$work/logs/$name.rc" ) &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

passed=0
failed=0
for name in "${names[@]}"; do
  rc=$(cat "$work/logs/$name.rc" 2>/dev/null || echo 1)
  log=$work/logs/$name.log
  stats=$(grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    echo "PASS fuzz/$name: $stats"
  else
    failed=$((failed + 1))
    echo "FAIL fuzz/$name (exit $rc): $log"
    grep -E "^==[0-9]+==ERROR|runtime error:|SUMMARY:|uncaught exception|deadly signal|ALARM|out-of-memory" "$log" | head -5
    mkdir -p "$root/test/fuzz/regressions/$name"
    for f in "$work/artifacts/$name"/*; do
      [ -f "$f" ] || continue
      cp "$f" "$root/test/fuzz/regressions/$name/"
      echo "  reproducer kept: test/fuzz/regressions/$name/$(basename "$f")" \
           "(run: $build/bin/tcc-fuzz-$name $root/test/fuzz/regressions/$name/$(basename "$f"))"
      # A CI checkout is thrown away: the log carries the input itself.
      if [ "$(stat -c %s "$f")" -le 65536 ]; then
        echo "  to recreate it: base64 -d > test/fuzz/regressions/$name/$(basename "$f") <<'EOF'"
        base64 "$f"
        echo "EOF"
      fi
    done
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
