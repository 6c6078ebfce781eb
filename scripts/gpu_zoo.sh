#!/usr/bin/env bash
#===- scripts/gpu_zoo.sh - run packed zoo artifacts on the GPU machine -----===#
#
# The zoo's artifacts are compiled here (no MLIR on the GPU machine), packed
# without weights (scripts/zoo.py pack), and archived:
#   python3 scripts/zoo.py pack --out .zoo-tiny --dest .gpu/zoo-tiny
#   tar -C .gpu -cJf .gpu/zoo-tiny.tar.xz zoo-tiny   # xz: 60 MB of .so -> 3 MB
# On the GPU machine this unpacks each archive, rebuilds every model from the
# zoo's seed, binds its weights by name and compares the CUDA path with
# PyTorch eager (TF32 off): run_cuda.json per export, returned as one archive
# per input in $OUT (or ./gpu-results).
#
#   bash scripts/gpu_zoo.sh .gpu/zoo-tiny.tar.xz .gpu/zoo.tar.xz
#
#===----------------------------------------------------------------------===#
set -u
results=${OUT:-gpu-results}
mkdir -p "$results"
results=$(cd "$results" && pwd)
work=$(mktemp -d)
for archive in "$@"; do
  name=$(basename "$archive")
  name=${name%%.tar*}
  tar -xf "$archive" -C "$work"
  tiny=""
  [[ $name == *tiny* ]] && tiny=--tiny
  precision=fp32   # an archive named *bf16* holds --precision bf16 artifacts
  [[ $name == *bf16* ]] && precision=bf16
  PYTHONUNBUFFERED=1 python3 scripts/zoo.py run --out "$work/$name" $tiny --device cuda --precision $precision \
    2>&1 | grep -E '^run_cuda|Error|error' | cut -c1-220
  (cd "$work" && find "$name" -name 'run_cuda.json' | tar -czf "$results/$name-cuda.tar.gz" -T -)
done
