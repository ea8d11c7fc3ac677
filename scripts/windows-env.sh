#!/usr/bin/env bash
# Prints (eval "$(scripts/windows-env.sh)") or, sourced, sets the
# environment that builds gfxcuda for windows/amd64 with cgo: Debian's
# mingw-w64 compilers (the -posix ones: the mingw shaderc uses std::thread),
# Vulkan's headers from /usr/include/vulkan (through a directory of links, so
# that mingw does not see glibc's headers), and the mingw shaderc built by
# scripts/windows-shaderc.sh. It builds nothing itself.
_gfx_cache=${XDG_CACHE_HOME:-$HOME/.cache}/gfxcuda
_gfx_inc=$_gfx_cache/mingw-include
_gfx_shaderc=${GFXCUDA_SHADERC_MINGW:-$_gfx_cache/shaderc-mingw-2023.2}
mkdir -p "$_gfx_inc"
for _gfx_d in vulkan vk_video EGL KHR; do
	[ -d "/usr/include/$_gfx_d" ] && ln -sfn "/usr/include/$_gfx_d" "$_gfx_inc/$_gfx_d"
done
_gfx_env="export GOOS=windows GOARCH=amd64 CGO_ENABLED=1
export CC=x86_64-w64-mingw32-gcc-posix CXX=x86_64-w64-mingw32-g++-posix
export CGO_CFLAGS='-O2 -g -I$_gfx_inc -I$_gfx_shaderc/include'
export CGO_LDFLAGS='-O2 -g -L$_gfx_shaderc/lib'"
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	eval "$_gfx_env"
else
	echo "$_gfx_env"
fi
unset _gfx_cache _gfx_inc _gfx_shaderc _gfx_d _gfx_env
