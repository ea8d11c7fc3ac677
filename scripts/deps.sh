#!/usr/bin/env bash
# Installs the Debian packages gfxcuda needs to build and test, when run as
# root; otherwise prints the one apt command to run. Idempotent: does nothing
# when everything is present.
set -euo pipefail

packages=(
	gcc libc6-dev make
	libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
	libshaderc-dev glslang-tools spirv-tools
	libegl1 libegl-dev libegl-mesa0 libgl1-mesa-dri libgles-dev libgl-dev
	python3 python3-numpy python3-pytest
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if ((${#missing[@]})); then
	if [ "$(id -u)" = 0 ]; then
		echo "deps: installing ${missing[*]}" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	else
		echo "deps: missing Debian packages. Run:" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
fi

if ! command -v go >/dev/null 2>&1; then
	for d in /usr/local/go/bin /usr/lib/go/bin; do
		[ -x "$d/go" ] && { echo "deps: go is in $d but not on PATH; run: export PATH=$d:\$PATH" >&2; exit 1; }
	done
	echo "deps: Go 1.26 or later is needed: https://go.dev/dl/ (Debian's golang package is too old)" >&2
	exit 1
fi
