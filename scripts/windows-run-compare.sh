#!/usr/bin/env bash
# Runs the README's two `gfxcuda run` examples (HLSL buffers; GLSL textures
# with a sampler) with the Linux binary and with gfxcuda.exe under Wine
# (scripts/windows-test.sh --run), on the same random inputs, and compares
# the outputs byte for byte. Exit 0 when they are equal.
#   scripts/windows-run-compare.sh LINUX_GFXCUDA WINDOWS_GFXCUDA_EXE
set -eu
lin=$(realpath "${1:?the Linux gfxcuda binary}")
exe=$(realpath "${2:?gfxcuda.exe}")
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$here/windows/readme-k.hlsl" "$dir/k.hlsl"
cp "$here/windows/readme-blur.comp" "$dir/blur.comp"
cp "$here/windows/noise.hlsl" "$dir/noise.hlsl"
cd "$dir"
# Inputs, made once, on Linux: a.npy (1024 random float32) and in.png.
head -c 16 /dev/urandom >seed.bin
seed=$(od -An -N4 -tx4 seed.bin | tr -d ' ')
"$lin" run noise.hlsl --threads 256,256 --cbv 0:seed.bin --uav 0:4096 --uav 1:tex2d:rgba8_unorm:256x256 \
	--out 0=a.npy --out 1=in.png -q
run() { # run OUTDIR ARGS...: the README's commands, from this directory
	local out=$1
	shift
	mkdir -p "$out"
	"$@" run k.hlsl --dispatch 16 --srv 0:a.npy --uav 0:4096 --out "$out/o.npy" -q
	"$@" run blur.comp --threads 256,256 --srv 0:in.png --sampler 0:linear:clamp \
		--uav 1:tex2d:rgba8_unorm:256x256 --out "1=$out/out.png" --batch 100 -q
}
run linux "$lin"
run windows "$here/windows-test.sh" --run "$exe" >/dev/null
for f in o.npy out.png; do
	if ! cmp -s "linux/$f" "windows/$f"; then
		echo "windows-run-compare: $f differs between Linux and Windows (seed $seed)" >&2
		exit 1
	fi
done
echo "windows-run-compare: the README's HLSL and GLSL examples give the same bytes on Linux and Windows (o.npy $(stat -c %s linux/o.npy) B, out.png $(stat -c %s linux/out.png) B; seed $seed)"
