#!/usr/bin/env bash
#===- scripts/demo.sh - the main job on a shipped sample ------------------===#
#
# Installs what is missing, builds tcc, compiles samples/small_cnn (a CNN with
# conv, batch norm, relu, pooling, cat and linear, exported by torch.export)
# into model.so, runs it on the CPU and compares with PyTorch's own output.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sample=${1:-small_cnn}
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" tcc tcc_runtime
build=${TCC_BUILD_DIR:-$root/build}
out="$build/demo/$sample"
mkdir -p "$out"
inputs=()
for f in "$root/samples/$sample"/input_[0-9]*.npy; do inputs+=(-i "$f"); done
expects=()
for f in "$root/samples/$sample"/expected_[0-9]*.npy; do expects+=(--expect "$f"); done
echo "== tcc compile samples/$sample/model.pt2 -o $out/model.so"
"$build/bin/tcc" compile "$root/samples/$sample/model.pt2" -o "$out/model.so" --timing
echo "== tcc inspect"
"$build/bin/tcc" inspect "$out/model.so"
echo "== tcc run (CPU) against PyTorch's output"
"$build/bin/tcc" run "$out/model.so" "${inputs[@]}" "${expects[@]}" --out "$out"
