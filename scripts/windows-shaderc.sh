#!/usr/bin/env bash
# Builds shaderc's static library (libshaderc_combined.a: shaderc, glslang,
# SPIRV-Tools) for windows/amd64 with Debian's mingw-w64, from Debian's
# source packages, once, into a cache outside the tree:
#
#   ${GFXCUDA_SHADERC_MINGW:-${XDG_CACHE_HOME:-$HOME/.cache}/gfxcuda/shaderc-mingw-2023.2}
#     include/{shaderc,glslang,spirv-tools}/*.h  lib/libshaderc_combined.a
#
# Prints that directory on stdout, its progress on stderr (with --check, prints nothing and
# exits 0 only when the cache is built). Idempotent: when the cache holds a
# finished build it prints the directory and returns at once; an interrupted
# build resumes where it stopped (the sources and Ninja's build directory are
# kept in <cache>.work until the end). The build takes about 13 minutes on 2
# cores (it runs under nice); it needs
# scripts/windows-deps.sh (mingw, cmake, ninja, spirv-headers, deb-src lines).
#
# Recipe: `apt-get source --download-only` fetches shaderc 2023.2, glslang
# 12.0.0 and SPIRV-Tools 2023.1 (bookworm); their upstream tarballs are
# unpacked (not Debian's patches, which make shaderc use the system's
# glslang), linked under shaderc's third_party/, and SPIR-V headers come from
# the installed spirv-headers package (its source tarball is not served) with
# a small CMakeLists.txt. CMake + Ninja cross-compile with the -posix mingw
# compilers (std::thread), tests, examples and executables off.
set -euo pipefail

version=2023.2
cache=${GFXCUDA_SHADERC_MINGW:-${XDG_CACHE_HOME:-$HOME/.cache}/gfxcuda/shaderc-mingw-$version}
jobs=${JOBS:-$(nproc)}

cached() { [ -f "$cache/.done" ] && [ -f "$cache/lib/libshaderc_combined.a" ] && [ -f "$cache/include/glslang/build_info.h" ]; }
if [ "${1:-}" = --check ]; then # exit status only: 0 when the cache is built
	cached
	exit
fi
if cached; then
	echo "$cache"
	exit 0
fi

# One build at a time: a second caller waits for the first and then finds
# the cache (two Ninjas in one build directory would corrupt it).
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
if ! flock -n 9; then
	echo "windows-shaderc: another build of the mingw shaderc is running; waiting for it…" >&2
	flock 9
fi
if cached; then
	echo "$cache"
	exit 0
fi

for tool in x86_64-w64-mingw32-gcc-posix x86_64-w64-mingw32-g++-posix cmake ninja dpkg-source; do
	command -v "$tool" >/dev/null || {
		echo "windows-shaderc: $tool is missing: run scripts/windows-deps.sh (as root) first" >&2
		exit 1
	}
done
[ -f /usr/include/spirv/unified1/spirv.core.grammar.json ] || {
	echo "windows-shaderc: /usr/include/spirv/unified1 is missing: apt-get install spirv-headers (scripts/windows-deps.sh)" >&2
	exit 1
}

start=$(date +%s)
say() { echo "windows-shaderc [$(($(date +%s) - start)) s]: $*" >&2; } # progress on stderr; stdout: the directory

work="$cache.work"
mkdir -p "$work/src"
cd "$work/src"
if [ ! -f unpacked ]; then
	rm -rf "$work/src"/* "$work/build"
	say "fetching the sources of shaderc, glslang, spirv-tools (bookworm, apt-get source)"
	apt-get source -q --download-only shaderc glslang spirv-tools >apt-source.log 2>&1 || {
		cat apt-source.log >&2
		echo "windows-shaderc: apt-get source failed: are there deb-src lines for bookworm? (scripts/windows-deps.sh adds them)" >&2
		exit 1
	}
	for t in shaderc_*.orig.tar.* glslang_*.orig.tar.* spirv-tools_*.orig.tar.*; do
		tar xf "$t"
	done
	touch unpacked
else
	say "resuming the build in $work"
fi
sh=$(echo shaderc-*/)
sh=${sh%/}
tp="$PWD/$sh/third_party"
ln -sfn "$PWD/$(echo glslang-*/)" "$tp/glslang"
ln -sfn "$PWD/$(echo SPIRV-Tools-*/)" "$tp/spirv-tools"
if [ ! -f "$tp/spirv-headers/CMakeLists.txt" ]; then # (not again when resuming: new mtimes rebuild all)
	mkdir -p "$tp/spirv-headers/include"
	cp -r /usr/include/spirv "$tp/spirv-headers/include/"
	cat >"$tp/spirv-headers/CMakeLists.txt" <<'CM'
# Stand-in for SPIRV-Headers' source tree: Debian's spirv-headers package.
cmake_minimum_required(VERSION 3.14)
project(SPIRV-Headers LANGUAGES NONE)
add_library(SPIRV-Headers INTERFACE)
add_library(SPIRV-Headers::SPIRV-Headers ALIAS SPIRV-Headers)
target_include_directories(SPIRV-Headers INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include)
CM
fi

say "configuring (cmake, mingw-w64 -posix, Ninja)"
mkdir -p "$work/build"
cd "$work/build"
cmake -G Ninja "$work/src/$sh" \
	-DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_SYSTEM_NAME=Windows \
	-DCMAKE_SYSTEM_PROCESSOR=x86_64 \
	-DCMAKE_C_COMPILER=x86_64-w64-mingw32-gcc-posix \
	-DCMAKE_CXX_COMPILER=x86_64-w64-mingw32-g++-posix \
	-DCMAKE_RC_COMPILER=x86_64-w64-mingw32-windres \
	-DCMAKE_FIND_ROOT_PATH=/usr/x86_64-w64-mingw32 \
	-DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER \
	-DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY \
	-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY \
	-DSHADERC_SKIP_TESTS=ON -DSHADERC_SKIP_EXAMPLES=ON -DSHADERC_SKIP_INSTALL=ON \
	-DSHADERC_SKIP_COPYRIGHT_CHECK=ON -DSHADERC_ENABLE_WERROR_COMPILE=OFF \
	-DSPIRV_SKIP_TESTS=ON -DSPIRV_SKIP_EXECUTABLES=ON -DSPIRV_WERROR=OFF \
	-DENABLE_GLSLANG_BINARIES=OFF -DGLSLANG_TESTS=OFF -DENABLE_CTEST=OFF \
	>cmake.log 2>&1 || {
	tail -40 cmake.log >&2
	echo "windows-shaderc: cmake failed (log: $work/build/cmake.log)" >&2
	exit 1
}

say "building libshaderc_combined.a with $jobs jobs (about 13 minutes on 2 cores); a line per 25 steps"
set +e
nice -n 10 ninja -j "$jobs" shaderc_combined_genfile 2>&1 | tee ninja.log | awk '
	/^\[[0-9]+\/[0-9]+\]/ { n++; if (n % 25 == 0) { split($1, a, "[][/]"); printf "windows-shaderc: step %s of %s\n", a[2], a[3]; fflush() }; next }
	/warning|^ninja: / { next }
	{ print; fflush() }' >&2
status=${PIPESTATUS[0]}
set -e
lib=$(find "$work/build" -name libshaderc_combined.a | head -1)
if [ "$status" != 0 ] || [ -z "$lib" ]; then
	tail -40 ninja.log >&2
	echo "windows-shaderc: the build failed (log: $work/build/ninja.log)" >&2
	exit 1
fi

bi=$(find "$work/build" -path '*/glslang/build_info.h' | head -1)
[ -n "$bi" ] || {
	echo "windows-shaderc: glslang/build_info.h was not generated in $work/build" >&2
	exit 1
}
rm -rf "$cache"
mkdir -p "$cache/lib" "$cache/include/glslang"
cp "$lib" "$cache/lib/"
cp -r "$work/src/$sh/libshaderc/include/shaderc" "$cache/include/"
cp -r "$work/src"/SPIRV-Tools-*/include/spirv-tools "$cache/include/"
cp "$bi" "$cache/include/glslang/"
touch "$cache/.done"
rm -rf "$work"
say "done: $cache/lib/libshaderc_combined.a ($(du -h "$cache/lib/libshaderc_combined.a" | cut -f1))"
echo "$cache"
