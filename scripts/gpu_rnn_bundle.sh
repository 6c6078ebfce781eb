#!/usr/bin/env bash
#===- scripts/gpu_rnn_bundle.sh - the recurrent layers' GPU run, packed ---===#
#
# Builds here (no GPU needed) what a GPU machine without tcc needs to check
# and time the CUDA path's recurrent layers, in one folder DIR (default
# .gpu/rnn under the repository, which git does not track):
#   DIR/arts.tar.xz   the artifacts (tcc compile --target cpu,cuda): the
#                     recurrent samples, nn.LSTM / nn.GRU of gpu_rnn_bench.py,
#                     and two convolution samples (small_cnn, dense_stem:tf32)
#                     for the cuDNN loader the two share
#   DIR/scripts/      gpu_rnn_check.py, gpu_rnn_bench.py
#   DIR/go.sh         run from the repository root there: unpacks, checks,
#                     times; logs under $OUT when it is set
# Usage: scripts/gpu_rnn_bundle.sh [DIR]   (TCC=path/to/tcc, PYTHON with torch)
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/.gpu/rnn}
tcc=${TCC:-$root/build/bin/tcc}
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir/scripts"
"$python" "$root/scripts/gpu_rnn_check.py" --tcc "$tcc" --compile "$work/hrnn-art"
"$python" "$root/scripts/gpu_rnn_bench.py" --tcc "$tcc" --compile "$work/hrnn-bench"
"$python" "$root/scripts/gpu_check.py" --tcc "$tcc" --compile "$work/hrnn-conv" \
  --only small_cnn dense_stem:tf32
tar cJf "$dir/arts.tar.xz" -C "$work" hrnn-art/recurrent_lstm.so hrnn-art/recurrent_gru_rnn.so \
  hrnn-bench/lstm.so hrnn-bench/gru.so hrnn-conv/small_cnn.so hrnn-conv/dense_stem_tf32.so
cp "$root/scripts/gpu_rnn_check.py" "$root/scripts/gpu_rnn_bench.py" "$dir/scripts/"
rel=$(realpath --relative-to="$root" "$dir")
cat > "$dir/go.sh" <<EOF
#!/usr/bin/env bash
# From the repository root on the GPU machine: bash $rel/go.sh
set -o pipefail
out=\${OUT:-/tmp/hrnn-out}; mkdir -p "\$out"
tar xJf $rel/arts.tar.xz -C /tmp
cp $rel/scripts/*.py scripts/
export PYTHONUNBUFFERED=1
nvidia-smi -L
echo "== convolutions through the shared cuDNN loader"
python3 scripts/gpu_check.py --run /tmp/hrnn-conv --only small_cnn dense_stem:tf32 2>&1 | tee "\$out/conv.log" | tail -8
echo "== recurrent samples, CUDA path against PyTorch"
python3 scripts/gpu_rnn_check.py --run /tmp/hrnn-art 2>&1 | tee "\$out/check.log"
echo "== timings"
python3 scripts/gpu_rnn_bench.py --run /tmp/hrnn-bench --budget \${BUDGET:-150} 2>&1 | tee "\$out/bench.log"
EOF
chmod +x "$dir/go.sh"
du -sh "$dir"
