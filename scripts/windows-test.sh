#!/usr/bin/env bash
# Runs packages' tests built for windows/amd64 under Wine + Xvfb, on the
# machine's Vulkan driver (lavapipe) through Wine's winevulkan:
#
#   scripts/windows-test.sh [go test flags] PKG...     e.g. ./compute ./vulkan
#   scripts/windows-test.sh --run PROGRAM.exe [ARGS]   runs one program the same way
#
# It cross-compiles each package's test binary with cgo and mingw-w64
# (scripts/windows-env.sh), builds the mingw shaderc first when a package
# needs it (scripts/windows-shaderc.sh: once, ~13 min on 2 cores, cached),
# sets up a Wine prefix (${XDG_CACHE_HOME:-~/.cache}/gfxcuda/wine) holding a
# ProcessPrng stub (scripts/windows/processprng.c: Wine 8.0 lacks
# bcryptprimitives.dll, without which Go programs die before main), starts an
# Xvfb display when DISPLAY is unset (Wine's Vulkan and DXGI need one), and
# runs `go test -exec` with wine. Test binaries only get a file that makes
# os.RemoveAll work under Wine 8.0 (scripts/windows/removeall_test.go.in,
# added with go test -overlay). Prints the test counts per package at the
# end (passed/failed/skipped); the exit status is go test's.
# GFXCUDA_REQUIRE_VULKAN=1 is set (unless set otherwise): a missing Vulkan
# driver fails the tests instead of skipping them.
# Needs scripts/windows-deps.sh (wine, mingw-w64, xvfb, cmake, ninja).
set -euo pipefail

caller=$(pwd) # --run keeps it: the program runs where it was asked to
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH=$PATH:/usr/local/go/bin
flags=() pkgs=() run=()
if [ "${1:-}" = --run ]; then
	shift
	run=("$@")
	set --
	[ ${#run[@]} -gt 0 ] || {
		echo "usage: scripts/windows-test.sh --run PROGRAM.exe [ARGS]" >&2
		exit 2
	}
fi
for a in "$@"; do
	case $a in
	-*) flags+=("$a") ;;
	./* | github.com/*) pkgs+=("$a") ;;
	*) flags+=("$a") ;; # a flag's value (-run X)
	esac
done
[ ${#pkgs[@]} -gt 0 ] || [ ${#run[@]} -gt 0 ] || {
	echo "usage: scripts/windows-test.sh [go test flags] ./PKG..." >&2
	exit 2
}
for tool in wine x86_64-w64-mingw32-gcc-posix Xvfb; do
	command -v "$tool" >/dev/null || {
		echo "windows-test: $tool is missing: run scripts/windows-deps.sh (as root) first" >&2
		exit 1
	}
done

cache=${XDG_CACHE_HOME:-$HOME/.cache}/gfxcuda
mkdir -p "$cache"
start=$(date +%s)
say() { echo "windows-test [$(($(date +%s) - start)) s]: $*"; }

# The mingw shaderc, when a package links it.
if [ ${#pkgs[@]} -gt 0 ] && go list -test -deps "${pkgs[@]}" 2>/dev/null | grep -qx 'github.com/gfxcuda/gfxcuda/internal/shaderc'; then
	if ! scripts/windows-shaderc.sh --check; then
		say "building the mingw shaderc first (once; about 13 minutes on 2 cores)"
	fi
	scripts/windows-shaderc.sh >/dev/null
fi
# shellcheck source=windows-env.sh
source scripts/windows-env.sh

# The Wine prefix, with the ProcessPrng stub in system32.
export WINEPREFIX=${GFXCUDA_WINEPREFIX:-$cache/wine} WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
stub=$cache/bcryptprimitives.dll
if [ ! -f "$stub" ] || [ scripts/windows/processprng.c -nt "$stub" ]; then
	x86_64-w64-mingw32-gcc -O2 -shared -o "$stub" scripts/windows/processprng.c -ladvapi32
fi
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	say "creating the Wine prefix $WINEPREFIX (once, ~10 s)"
	wineboot -i >/dev/null 2>&1 || true
	wineserver -w || true
fi
sys32=$WINEPREFIX/drive_c/windows/system32
[ -d "$sys32" ] || {
	echo "windows-test: the Wine prefix $WINEPREFIX has no system32; remove it and run again" >&2
	exit 1
}
cmp -s "$stub" "$sys32/bcryptprimitives.dll" || cp "$stub" "$sys32/bcryptprimitives.dll"
# No WINEPATH to mingw's DLLs: libstdc++ and winpthread are linked
# statically, and a binary needing one of them should fail here as on Windows.
export GFXCUDA_REQUIRE_VULKAN=${GFXCUDA_REQUIRE_VULKAN-1}

# An X display for Wine's Vulkan (winevulkan) and DXGI.
xvfb_pid=
tmp=$(mktemp -d)
cleanup() {
	# Let Wine's processes (wineserver, the desktop) end before their X
	# display does, or they print "X connection … broken".
	[ -z "$xvfb_pid" ] || timeout 20 wineserver -w 2>/dev/null || true
	[ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "${DISPLAY:-}" ]; then
	n=90
	while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
	Xvfb ":$n" -screen 0 640x480x24 -nolisten tcp >/dev/null 2>&1 &
	xvfb_pid=$!
	export DISPLAY=:$n
	for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
fi

if [ ${#run[@]} -gt 0 ]; then
	say "wine ${run[*]} (DISPLAY=$DISPLAY)"
	set +e
	(cd "$caller" && wine "${run[@]}")
	status=$?
	set -e
	exit "$status"
fi

# The os.RemoveAll workaround, one file per package, through -overlay.
overlay=$tmp/overlay.json
{
	printf '{"Replace":{'
	sep=
	while read -r name dir; do
		f=$tmp/$(echo "$dir" | tr / _)_wine_removeall_windows_test.go
		sed "s/^package PKG$/package $name/" scripts/windows/removeall_test.go.in >"$f"
		printf '%s"%s/zz_gfxcuda_wine_removeall_windows_test.go":"%s"' "$sep" "$dir" "$f"
		sep=,
	done < <(go list -f '{{.Name}} {{.Dir}}' "${pkgs[@]}")
	printf '}}\n'
} >"$overlay"

exec_script=$tmp/wine-exec
cat >"$exec_script" <<'SH'
#!/bin/sh
exec wine "$@"
SH
chmod +x "$exec_script"

say "go test (windows/amd64, under Wine on DISPLAY=$DISPLAY) ${flags[*]} ${pkgs[*]}"
json=$tmp/test.json
set +e
nice go test -json -overlay "$overlay" -ldflags=-checklinkname=0 -exec "$exec_script" "${flags[@]}" "${pkgs[@]}" |
	tee "$json" | /usr/bin/python3 -u -c '
# Prints what plain go test prints, plus skipped tests with their reasons:
# a failed or skipped test'"'"'s output (no === framing), package lines.
import collections, json, sys
buf = collections.defaultdict(list)
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        print(line, end="")
        continue
    a, t, p, out = e.get("Action"), e.get("Test"), e.get("Package"), e.get("Output", "")
    if a == "build-output":
        print(out, end="")
    elif a == "output" and t:
        if not out.startswith(("=== RUN", "=== PAUSE", "=== CONT", "=== NAME")):
            buf[(p, t)].append(out)
    elif a == "output" and not out.startswith(("PASS\n", "=== ")):
        print(out, end="")
    elif a in ("fail", "skip") and t:
        print("".join(buf.pop((p, t), [])), end="")
    elif a == "pass" and t:
        buf.pop((p, t), None)
'
status=${PIPESTATUS[0]}
set -e
/usr/bin/python3 - "$json" <<'PY'
import json, sys, collections
c = collections.defaultdict(lambda: collections.Counter())
for line in open(sys.argv[1]):
    try: e = json.loads(line)
    except ValueError: continue
    if e.get("Test") and e.get("Action") in ("pass", "fail", "skip"):
        c[e["Package"]][e["Action"]] += 1
for p in sorted(c):
    k = c[p]
    print(f"windows-test: {p}: {k['pass']} passed, {k['fail']} failed, {k['skip']} skipped (subtests counted)")
PY
say "done (exit status $status)"
exit "$status"
