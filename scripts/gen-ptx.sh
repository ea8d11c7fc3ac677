#!/usr/bin/env bash
# Regenerates kernels/kernels.ptx from kernels.cu. Needs nvcc
# (CUDA 12 or later); run it on the GPU machine and commit the result.
#
# Why the output is rewritten: nvcc stamps its PTX with the newest PTX ISA it
# knows (nvcc 13: `.version 9.0`) and the oldest architecture it still
# targets (nvcc 13: `sm_75`), and a driver refuses PTX whose ISA is newer
# than its own (CUDA 12.0 drivers read ISA 8.0 at most). The kernels use
# only instructions that PTX ISA 4.0 and sm_50 already have (global loads
# and stores, integer arithmetic, atom.add/min, suld/sust on 2D and layered
# surfaces), so the directives are lowered to PTX_VERSION/PTX_TARGET below:
# every driver from CUDA 11.0 on loads the result, on every GPU from Maxwell
# on. nvcc has no flag to choose an older ISA, hence the rewrite. If ptxas
# is installed, the result is assembled once to prove that no instruction
# needs a newer ISA or target (ptxas rejects those with an error naming the
# version needed); kernels' tests assert the directives.
set -euo pipefail
PTX_VERSION=7.0
PTX_TARGET=sm_50
cd "$(dirname "$0")/../kernels"
out=${1:-kernels.ptx}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# compute_75: the oldest virtual architecture nvcc 13 accepts; the target
# line is lowered afterwards.
nvcc --ptx -arch=compute_75 -O3 -o "$tmp" kernels.cu
grep -q '^\.version ' "$tmp" && grep -q '^\.target ' "$tmp" || { echo "nvcc output has no .version/.target line" >&2; exit 1; }
sed -e "s/^\.version .*/.version $PTX_VERSION/" \
    -e "s/^\.target .*/.target $PTX_TARGET/" \
    -e "s|^// Based on NVVM|// .version and .target lowered by scripts/gen-ptx.sh (see there why)\n// Based on NVVM|" \
    "$tmp" >"$out"
if command -v ptxas >/dev/null; then
	# ptxas 13 builds for sm_75 and later; any supported GPU proves the ISA.
	ptxas --gpu-name sm_75 -o /dev/null "$out"
	echo "ptxas accepted $out"
fi
echo "wrote $out ($(wc -c <"$out") bytes) with $(nvcc --version | tail -1), .version $PTX_VERSION .target $PTX_TARGET"
