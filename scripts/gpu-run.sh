#!/usr/bin/env bash
# Runs gfxcuda's test binaries on a GPU machine that has no Go toolchain.
# Built by `make gpu-bundle`; run as `bash .gpu/run.sh`. Brings up the Vulkan
# and EGL loaders from the bundled Debian packages where the system has none,
# points them at the NVIDIA driver, runs every package's tests with CUDA and
# Vulkan required (nothing may skip for lack of hardware), and prints one
# summary line per package and a total.
set -u
here=$(cd "$(dirname "$0")" && pwd)
logs=${GFXCUDA_GPU_LOGS:-/tmp/gpu-test-logs}
rm -rf "$logs"
mkdir -p "$logs"
# GFXCUDA_GPU_PACK=FILE: the logs as one tar.gz at FILE, refreshed every
# 30 s and at the end, so that a run cut short by a time limit still
# brings its logs back in one file (a tool that returns few files).
if [ -n "${GFXCUDA_GPU_PACK:-}" ]; then
	pack() { tar czf /tmp/gfxcuda-gpu-pack.$$ -C "$(dirname "$logs")" "$(basename "$logs")" 2>/dev/null && mv /tmp/gfxcuda-gpu-pack.$$ "$GFXCUDA_GPU_PACK"; }
	(while sleep 30; do pack; done) &
	packer=$!
	trap 'kill $packer 2>/dev/null; pack' EXIT
fi
# The bundle is compressed to fit the transfer limit; unpack it once.
[ -d "$here/pkg" ] || tar xJf "$here/pkg.txz" -C "$here"
# PyOpenGL (pure Python; `make gpu-pyopengl` packs Debian's copy into
# pyopengl.txz), unpacked once and put on PYTHONPATH: python/bench/gl_renderer.py
# and its test draw with it on EGL.
if [ -f "$here/pyopengl.txz" ]; then
	[ -d "$here/pyopengl/OpenGL" ] || { mkdir -p "$here/pyopengl" && tar xJf "$here/pyopengl.txz" -C "$here/pyopengl"; }
	export PYTHONPATH="$here/pyopengl${PYTHONPATH:+:$PYTHONPATH}"
fi

if ! ldconfig -p | grep -q 'libvulkan.so.1 ' || ! ldconfig -p | grep -q 'libEGL.so.1 '; then
	if [ "$(id -u)" != 0 ]; then echo "run.sh: the Vulkan/EGL loaders are missing and unpacking them needs root" >&2; exit 1; fi
	for f in "$here"/debs/*.deb; do dpkg -x "$f" /; done
	ldconfig
fi
nv=/usr/local/nvidia
[ -f $nv/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$nv/share/vulkan/icd.d/nvidia_icd.json}
[ -f $nv/share/glvnd/egl_vendor.d/10_nvidia.json ] && export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-$nv/share/glvnd/egl_vendor.d/10_nvidia.json}
[ -d $nv/lib64 ] && export LD_LIBRARY_PATH=$nv/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GFXCUDA_REQUIRE_CUDA=1 GFXCUDA_REQUIRE_VULKAN=1 GFXCUDA_REQUIRE_GL=1 GFXCUDA_REQUIRE_HARDWARE=1 GFXCUDA_VALIDATION=${GFXCUDA_VALIDATION:-1}
export GFXCUDA_CACHE_DIR=${GFXCUDA_CACHE_DIR:-/tmp/gfxcuda-cache}
# A test's child process that says nothing for this long is sent SIGQUIT
# (its goroutines land in the log) and fails its test, instead of stalling
# the package until GFXCUDA_GPU_TEST_TIMEOUT (default 9m).
export GFXCUDA_CHILD_TIMEOUT=${GFXCUDA_CHILD_TIMEOUT:-150s}
# The WebGPU samples' compute shaders (compute's TestWGSLWebGPUSamples), when
# a copy was carried here as .gpu/webgpu-samples (never part of the
# repository; scripts/webgpu-samples.sh makes one).
[ -d "$here/webgpu-samples" ] && export GFXCUDA_WEBGPU_SAMPLES=${GFXCUDA_WEBGPU_SAMPLES:-$here/webgpu-samples}

tp=0 tf=0 ts=0 bad=0
summary=()
# GFXCUDA_GPU_PARTS: the parts to run, "go python" by default: "go" runs
# the Go packages' tests only, "python" pytest against the wheel and the
# Python benchmarks only. A whole run can outlast one 10-minute command of
# the device tool; two calls, one part each, fit (the doctor runs in both).
parts=" ${GFXCUDA_GPU_PARTS:-go python} "
if [[ $parts == *" go "* ]]; then
# Packages run in parallel (GFXCUDA_GPU_JOBS, default 4): one GPU, many
# cores; each package's log is read afterwards in a fixed order. The
# packages in GFXCUDA_GPU_SERIAL (bundle directory names; root is package
# gfxcuda) run afterwards, one at a time with the GPU to themselves: their
# leak tests compare the device-wide free memory (cuMemGetInfo) before and
# after, which other processes' allocations would move.
serial=" ${GFXCUDA_GPU_SERIAL-cuda root} "
runpkg() {
	dir=$1
	name=$(basename "$dir")
	start=$SECONDS
	(cd "$dir" && "./$name.test" -test.v -test.count=1 -test.timeout="${GFXCUDA_GPU_TEST_TIMEOUT:-9m}") >"$logs/$name.log" 2>&1
	echo "$? $((SECONDS - start))" >"$logs/$name.rc"
}
export -f runpkg
export logs
for dir in "$here"/pkg/*/; do
	[ -f "$dir/IMPORTPATH" ] && [[ $serial != *" $(basename "$dir") "* ]] && echo "$dir"
done | xargs -P "${GFXCUDA_GPU_JOBS:-4}" -I{} bash -c 'runpkg {}'
for dir in "$here"/pkg/*/; do
	[ -f "$dir/IMPORTPATH" ] && [[ $serial == *" $(basename "$dir") "* ]] && runpkg "$dir"
done
for dir in "$here"/pkg/*/; do
	name=$(basename "$dir")
	[ -f "$dir/IMPORTPATH" ] || continue
	pkg=$(cat "$dir/IMPORTPATH")
	read -r rc secs <"$logs/$name.rc"
	p=$(grep -cE '^\s*--- PASS' "$logs/$name.log")
	f=$(grep -cE '^\s*--- FAIL' "$logs/$name.log")
	s=$(grep -cE '^\s*--- SKIP' "$logs/$name.log")
	st=ok
	if [ "$rc" != 0 ]; then st=FAIL; bad=1; [ "$f" = 0 ] && f=1; fi
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	line=$(printf '%-4s %-50s passed=%-4d failed=%-3d skipped=%-3d %ss' "$st" "$pkg" "$p" "$f" "$s" "$secs")
	summary+=("$line")
	if [ $st = FAIL ]; then grep -E -B2 -A20 '^\s*--- FAIL|^panic|^FAIL' "$logs/$name.log" | head -60; fi
	grep -E '^\s*--- SKIP' -A1 "$logs/$name.log" | head -20
done
fi

# The Python package (libgfxcuda.so inside) and its tests, on the machine's
# python3 (torch, CuPy, Numba), then the Python speed figures.
if [ -d "$here/pkg/python" ] && [[ $parts == *" python "* ]]; then
	start=$SECONDS
	# A test running longer than GFXCUDA_PYTEST_DUMP seconds (default 200)
	# gets every thread's traceback in the log; GFXCUDA_PYTEST_ARGS adds
	# pytest arguments (e.g. -k, -x).
	# shellcheck disable=SC2086
	# The tests run against the wheel the bundle carries (make python's,
	# the library of this bundle inside), installed into a folder of its
	# own: the package users install, not the tree (GFXCUDA_TEST_INSTALLED).
	pyenv=(GFXCUDA_HEADER="$here/pkg/python/gfxcuda.h")
	pypath=$here/pkg/python
	whl=$(ls "$here"/pkg/wheel/gfxcuda-*.whl 2>/dev/null | head -1)
	if [ -n "$whl" ]; then
		site=/tmp/gfxcuda-wheel-site
		rm -rf "$site"
		if python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" "$whl" >"$logs/wheel-install.log" 2>&1; then
			echo "python: the tests run against $(basename "$whl"), installed by pip into $site"
		else
			python3 -m zipfile -e "$whl" "$site" && echo "python: pip could not install $(basename "$whl") (wheel-install.log); unpacked into $site"
		fi
		pyenv+=(GFXCUDA_TEST_INSTALLED=1 PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" PATH="$site/bin:$PATH")
		pypath=$site
	fi
	# python3 -P: `-m` would put the current folder (the tree's copy of
	# the package) first on sys.path, ahead of the installed wheel.
	(cd "$here/pkg/python" && env "${pyenv[@]}" python3 -P -m pytest -v -p no:cacheprovider \
		-o faulthandler_timeout="${GFXCUDA_PYTEST_DUMP:-200}" ${GFXCUDA_PYTEST_ARGS:-} tests) >"$logs/python.log" 2>&1
	rc=$?
	p=$(grep -cE ' PASSED' "$logs/python.log"); f=$(grep -cE ' (FAILED|ERROR)' "$logs/python.log"); s=$(grep -cE ' SKIPPED' "$logs/python.log")
	st=ok
	if [ $rc != 0 ]; then st=FAIL; bad=1; [ "$f" = 0 ] && f=1; grep -E -A30 '^(FAILED|ERROR|=+ FAILURES)' "$logs/python.log" | head -120; fi
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	summary+=("$(printf '%-4s %-50s passed=%-4d failed=%-3d skipped=%-3d %ss' "$st" "python (pytest)" "$p" "$f" "$s" "$((SECONDS - start))")")
	grep -E ' SKIPPED|XFAIL' "$logs/python.log" | head -20
	# The Python benchmarks (figures, not tests), named in GFXCUDA_GPU_PYBENCH
	# (default: all of them; empty leaves them out when device time is short):
	# speed.py, dlpack_exchange.py (DLPack's C exchange API against
	# __dlpack__: torch, cuda.core, which path each took) and torch_pool.py
	# (PyTorch's own tensors in Vulkan: the torch pool's figures) and
	# gl_renderer.py (a PyOpenGL renderer's frames into torch: issue 32).
	for b in ${GFXCUDA_GPU_PYBENCH-speed dlpack_exchange torch_pool gl_renderer}; do
		case $b in
		dlpack_exchange) args=(--json "$logs/dlpack-exchange.json") ;;
		gl_renderer) args=(--json "$logs/gl-renderer.json") ;;
		*) args=() ;;
		esac
		(cd "$here/pkg/python" && python3 "bench/$b.py" "${args[@]}") 2>&1 | tee "$logs/python-$b.log"
	done
	# compushady's own test suite, when its test/ folder was carried here
	# (GFXCUDA_COMPUSHADY_TESTS, default .gpu/compushady-test; never part of
	# the repository): every test but DXC/Metal (not run) must pass.
	cst=${GFXCUDA_COMPUSHADY_TESTS:-$here/compushady-test}
	if [ -d "$cst" ]; then
		start=$SECONDS
		python3 "$here/pkg/python/compushady-suite.py" "$cst" --pythonpath "$pypath" --markdown \
			--json "$logs/compushady-suite.json" >"$logs/compushady-suite.log" 2>&1
		rc=$?
		cat "$logs/compushady-suite.log"
		st=ok; [ $rc != 0 ] && { st=FAIL; bad=1; }
		summary+=("$(printf '%-4s %-50s exit=%d %ss' "$st" "compushady's test suite" "$rc" "$((SECONDS - start))")")
	fi
fi

echo
echo "== gfxcuda devices"
"$here/gfxcuda" devices
echo
echo "== gfxcuda doctor"
"$here/gfxcuda" doctor; drc=$?
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
printf 'TOTAL passed=%d failed=%d skipped=%d doctor_exit=%d\n' "$tp" "$tf" "$ts" "$drc"
# One archive of every log (the device tool brings back few files).
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu-test-logs.tgz" -C "$(dirname "$logs")" "$(basename "$logs")"
[ $bad = 0 ] && [ "$tf" = 0 ]
