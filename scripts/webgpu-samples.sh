#!/usr/bin/env bash
# Exports the shaders of github.com/webgpu/webgpu-samples from a git mirror
# (or clone) into a folder, for compute's TestWGSLWebGPUSamples:
#   scripts/webgpu-samples.sh MIRROR [DEST]     (DEST: .gpu/webgpu-samples)
#   GFXCUDA_WEBGPU_SAMPLES=DEST go test ./compute -run WebGPUSamples
# The samples are read where they are, never copied into this repository;
# the GPU bundle's run.sh uses .gpu/webgpu-samples when it is there.
set -eu
src=${1:?usage: scripts/webgpu-samples.sh MIRROR [DEST]}
dest=${2:-.gpu/webgpu-samples}
git_dir=$src
[ -d "$src/.git" ] && git_dir=$src/.git
rm -rf "$dest" && mkdir -p "$dest"
git --git-dir "$git_dir" archive HEAD sample | tar x -C "$dest"
echo "$dest: $(find "$dest" -name '*.wgsl' | wc -l) WGSL files from $(git --git-dir "$git_dir" rev-parse --short HEAD)"
