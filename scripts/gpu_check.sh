#!/usr/bin/env bash
# Runs every sample on the GPU through the CUDA path and compares with
# PyTorch's outputs (samples/*/expected_*.npy). For the GPU machine:
#
#   scripts/gpu_check.sh [BUILD_DIR] [ARCH]      # defaults: build, sm_90
#
# Each sample is compiled with `--target cpu,cuda` (one artifact, both paths),
# its PTX is validated with ptxas, and it is run twice: `tcc run --device cuda`
# (inputs copied to the GPU, CUDA entry, outputs copied back) and on the CPU
# (same model.so). Exit status: 0 if every sample passes on the GPU.
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
ARCH="${2:-sm_90}"
TCC="$BUILD/bin/tcc"
PTXAS="${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/tcc-gpu-check.XXXXXX")"
SAMPLES="foo mymodule outer_module mymodule_dynamic_batch small_cnn ops_mix tiny_transformer"
RTOL="${RTOL:-1e-5}"

[ -x "$TCC" ] || { echo "no tcc at $TCC (build first: scripts/build.sh)" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

fail=0
printf '%-24s %-8s %-8s %-8s %s\n' sample ptxas cuda cpu note
for s in $SAMPLES; do
  dir="$ROOT/samples/$s"
  so="$OUT/$s.so"
  note=""
  ptx=skip
  if ! "$TCC" compile "$dir/model.pt2" --target cpu,cuda --arch "$ARCH" -o "$so" 2>"$OUT/$s.compile.log"; then
    printf '%-24s %-8s %-8s %-8s %s\n' "$s" - - - "compile failed: $(head -1 "$OUT/$s.compile.log")"
    fail=1; continue
  fi
  if "$TCC" compile "$dir/model.pt2" --target cuda --arch "$ARCH" --emit ptx -o "$OUT/$s.ptx" 2>/dev/null &&
     "$PTXAS" -arch="$ARCH" "$OUT/$s.ptx" -o "$OUT/$s.cubin" 2>"$OUT/$s.ptxas.log"; then
    ptx=ok
  else
    ptx=FAIL; note="ptxas: $(head -1 "$OUT/$s.ptxas.log")"
  fi
  # Cases: input_<digits>.npy with expected_<digits>.npy, and each
  # input_<tag>.npy with expected_<tag>.npy (e.g. batch sizes b1, b7, b1024).
  cases=("")
  for f in "$dir"/input_b*.npy; do [ -e "$f" ] && cases+=("$(basename "$f" .npy | sed 's/^input_//')"); done
  cuda=PASS cpu=PASS
  for c in "${cases[@]}"; do
    args=()
    if [ -z "$c" ]; then
      for f in "$dir"/input_[0-9]*.npy; do [ -e "$f" ] && args+=(--input "$f"); done
      n=0
      for f in "$dir"/expected_[0-9]*.npy; do [ -e "$f" ] && args+=(--expect "$n=$f") && n=$((n+1)); done
    else
      args=(--input "$dir/input_$c.npy" --expect "$dir/expected_$c.npy")
    fi
    log="$OUT/$s${c:+.$c}"
    if ! "$TCC" run "$so" --device cuda "${args[@]}" --rtol "$RTOL" >"$log.cuda.log" 2>&1; then
      cuda=FAIL; fail=1
      note="${note:+$note; }cuda${c:+ $c}: $(grep -m1 -E 'error|FAIL' "$log.cuda.log")"
    fi
    "$TCC" run "$so" "${args[@]}" --rtol "$RTOL" >"$log.cpu.log" 2>&1 || cpu=FAIL
  done
  printf '%-24s %-8s %-8s %-8s %s\n' "$s" "$ptx" "$cuda" "$cpu" "$note"
done
echo "logs: $OUT"
[ "${BENCH:-0}" != 0 ] && for s in foo mymodule; do
  echo "--- $s, $BENCH runs on the GPU (host-synchronous, includes copies)"
  "$TCC" run "$OUT/$s.so" --device cuda --input "$ROOT/samples/$s/input_0.npy" --bench "$BENCH" | tail -1
done
exit $fail
