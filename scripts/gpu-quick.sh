#!/usr/bin/env bash
# Runs the named packages' test binaries (bundle directory names, e.g. cmd_internal_cli cuda)
# on the GPU machine with run.sh's loader and environment set-up: bash .gpu/quick.sh PKG...
# With --pytest, runs the Python tests named after it instead (paths relative to the
# package's folder, pytest's own arguments allowed), as run.sh does:
#   bash .gpu/quick.sh --pytest tests/test_torch_pool.py tests/test_render_to_torch.py
# With --bench NAME, runs python/bench/NAME.py with the arguments after it, from the
# package's folder (the bundle's gfxcuda, PyOpenGL on PYTHONPATH):
#   bash .gpu/quick.sh --bench gl_renderer --json "$OUT/gl-renderer.json"
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$here/pkg" ] || tar xJf "$here/pkg.txz" -C "$here"
# PyOpenGL (pure Python; `make gpu-pyopengl` packs Debian's copy into
# pyopengl.txz), unpacked once and put on PYTHONPATH: python/bench/gl_renderer.py
# and its test draw with it on EGL.
if [ -f "$here/pyopengl.txz" ]; then
	[ -d "$here/pyopengl/OpenGL" ] || { mkdir -p "$here/pyopengl" && tar xJf "$here/pyopengl.txz" -C "$here/pyopengl"; }
	export PYTHONPATH="$here/pyopengl${PYTHONPATH:+:$PYTHONPATH}"
fi
if ! ldconfig -p | grep -q 'libvulkan.so.1 ' || ! ldconfig -p | grep -q 'libEGL.so.1 '; then
	for f in "$here"/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
fi
nv=/usr/local/nvidia
[ -f $nv/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=$nv/share/vulkan/icd.d/nvidia_icd.json
[ -f $nv/share/glvnd/egl_vendor.d/10_nvidia.json ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv/share/glvnd/egl_vendor.d/10_nvidia.json
[ -d $nv/lib64 ] && export LD_LIBRARY_PATH=$nv/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GFXCUDA_REQUIRE_CUDA=1 GFXCUDA_REQUIRE_VULKAN=1 GFXCUDA_REQUIRE_GL=1 GFXCUDA_REQUIRE_HARDWARE=1 GFXCUDA_VALIDATION=1
if [ "${1:-}" = --bench ]; then
	b=${2:?--bench NAME: a script in python/bench, without .py}
	shift 2
	cd "$here/pkg/python" && exec python3 "bench/$b.py" "$@"
fi
if [ "${1:-}" = --pytest ]; then
	shift
	# Against the bundle's wheel, installed as run.sh installs it (the tree
	# when the bundle has none).
	whl=$(ls "$here"/pkg/wheel/gfxcuda-*.whl 2>/dev/null | head -1)
	if [ -n "$whl" ]; then
		site=/tmp/gfxcuda-wheel-site
		rm -rf "$site"
		python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" "$whl" || python3 -m zipfile -e "$whl" "$site" || exit 1
		echo "python: the tests run against $(basename "$whl") in $site"
		export GFXCUDA_TEST_INSTALLED=1 PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" PATH="$site/bin:$PATH"
	fi
	# -P: not the current folder (the tree's copy) ahead of the wheel.
	cd "$here/pkg/python" && GFXCUDA_HEADER="$here/pkg/python/gfxcuda.h" python3 -P -m pytest -v -p no:cacheprovider "$@"
	exit $?
fi
rc=0
for p in "$@"; do
	(cd "$here/pkg/$p" && "./$p.test" -test.count=1 -test.v -test.timeout=5m) >/tmp/$p.log 2>&1; r=$?
	echo "$p rc=$r passed=$(grep -c -- '--- PASS' /tmp/$p.log) failed=$(grep -c -- '--- FAIL' /tmp/$p.log)"
	[ $r = 0 ] || { rc=1; grep -B2 -A20 -- '--- FAIL' /tmp/$p.log | head -60; }
done
grep -h "CUDA: " /tmp/cmd_internal_cli.log | head -3
exit $rc
