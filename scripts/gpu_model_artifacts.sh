#!/usr/bin/env bash
#===- scripts/gpu_model_artifacts.sh - model.so files for the GPU benchmark -===#
#
# Compiles bench_models.py's transformer workloads here (no GPU needed) for
# scripts/gpu_model_benchmark.py on the GPU machine:
#
#   scripts/gpu_model_artifacts.sh [OUT] [MODEL...]   # default OUT: .gpu/models
#
# Exports each model once (fp32 and bf16 modules, into $EXPORTS, default
# /tmp/tcc-model-exports), then writes OUT/<model>_{fp32,tf32,bf16}.so: the
# fp32 export at fp32 and tf32 precision, the bf16 export as is. Weights stay
# out of the .so (--external-weights); the benchmark binds them by name.
# PRECISIONS (default "fp32 tf32 bf16") picks the variants, e.g.
# PRECISIONS="fp32 tf32" for the convolutional networks of issue 11.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.gpu/models}
shift || true
models=${*:-bert_base_b8_s128 gpt2_b8_s128 vit_b16_b8 llama_h1024_b4_s256}
exports=${EXPORTS:-/tmp/tcc-model-exports}
precisions=${PRECISIONS:-fp32 tf32 bf16}
tcc=${TCC:-$root/build/bin/tcc}
mkdir -p "$out" "$exports"
for m in $models; do
  for p in $precisions; do
    export_dtype=fp32
    [ "$p" = bf16 ] && export_dtype=bf16
    if [ ! -f "$exports/${m}_${export_dtype}/model.pt2" ]; then
      python3 "$root/scripts/bench_models.py" --export-models "$exports" --only "$m" \
        --dtypes "$export_dtype"
    fi
    echo "compile $m $p"
    if [ "$p" = bf16 ]; then
      "$tcc" compile "$exports/${m}_bf16/model.pt2" --target cuda --external-weights \
        -o "$out/${m}_bf16.so"
    else
      "$tcc" compile "$exports/${m}_fp32/model.pt2" --target cuda --external-weights \
        --precision "$p" -o "$out/${m}_$p.so"
    fi
  done
done
