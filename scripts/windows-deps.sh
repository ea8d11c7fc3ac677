#!/usr/bin/env bash
# Installs what the Windows build and its tests under Wine need on Debian 12
# (bookworm): Wine 8.0, the mingw-w64 cross compilers, Xvfb, CMake and Ninja
# (for the mingw shaderc build, scripts/windows-shaderc.sh), and deb-src lines
# so that `apt-get source` can fetch shaderc, glslang and SPIRV-Tools.
# Idempotent: one dpkg-query when everything is present. Run as root, or it
# prints the commands to run.
set -euo pipefail

packages=(
	wine wine64 gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64
	xvfb cmake ninja-build spirv-headers dpkg-dev
	mesa-vulkan-drivers
)
src_list=/etc/apt/sources.list.d/gfxcuda-bookworm-src.sources
# deb822, with the same Signed-By as Debian's own debian.sources (apt refuses
# two values for one source).
src_text='Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
'

. "$(dirname "$0")/deb-missing.sh" # sets missing

need_src=0
if ! grep -rqs '^deb-src .*bookworm' /etc/apt/sources.list /etc/apt/sources.list.d/ &&
	! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/; then
	need_src=1
fi

if [ ${#missing[@]} -eq 0 ] && [ $need_src -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "windows-deps: as root, run:" >&2
	[ $need_src -eq 1 ] && printf '  cat > %s <<EOF\n%sEOF\n' "$src_list" "$src_text" >&2
	echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
	exit 1
fi

if [ $need_src -eq 1 ]; then
	echo "windows-deps: adding deb-src lines for bookworm ($src_list)"
	printf '%s' "$src_text" >"$src_list"
fi
echo "windows-deps: apt-get update"
apt-get update -q >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
	echo "windows-deps: installing ${missing[*]} (a minute or two)"
	start=$(date +%s)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/gfxcuda-windows-deps.log 2>&1 || {
		tail -30 /tmp/gfxcuda-windows-deps.log >&2
		echo "windows-deps: apt-get install failed (full log: /tmp/gfxcuda-windows-deps.log)" >&2
		exit 1
	}
	echo "windows-deps: installed in $(($(date +%s) - start)) s"
fi
