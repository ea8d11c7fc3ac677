#!/usr/bin/env bash
# Regenerates internal/kernels/kernels.ptx from kernels.cu. Needs nvcc
# (CUDA 12 or later); run it on the GPU machine and commit the result.
# compute_75 PTX runs on Turing and every later GPU (the driver JIT-compiles it).
set -euo pipefail
cd "$(dirname "$0")/../internal/kernels"
out=${1:-kernels.ptx}
nvcc --ptx -arch=compute_75 -O3 -o "$out" kernels.cu
echo "wrote $out ($(wc -c <"$out") bytes) with $(nvcc --version | tail -1)"
