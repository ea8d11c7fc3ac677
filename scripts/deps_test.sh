#!/usr/bin/env bash
# Tests scripts/deps.sh with stub apt-get, dpkg, dpkg-query, id and go on
# PATH: nothing real is installed, and it runs as any user in a few seconds.
# Run by `make deps-test` (part of `make test`).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
deps=$here/deps.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deps-test.XXXXXX")
holder=
cleanup() {
	if [ -n "$holder" ]; then kill "$holder" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

stubs=$tmp/bin
mkdir -p "$stubs"
calls=$tmp/calls # every stub call, one a line

# dpkg-query: every package asked for is installed but those in $STUB_MISSING.
cat >"$stubs/dpkg-query" <<'EOF'
#!/usr/bin/env bash
echo "dpkg-query $*" >>"$STUB_CALLS"
for a in "$@"; do
	case $a in -*) continue ;; esac
	if [[ " $STUB_MISSING " == *" $a "* ]]; then
		echo "dpkg-query: no packages found matching $a" >&2
	else
		echo "$a install ok installed"
	fi
done
EOF
# apt-get: update succeeds unless STUB_UPDATE_FAIL; install fails its first
# $STUB_INSTALL_FAILS times with $STUB_INSTALL_ERROR.
cat >"$stubs/apt-get" <<'EOF'
#!/usr/bin/env bash
echo "apt-get $*" >>"$STUB_CALLS"
case " $* " in
*" update "*)
	echo "Hit:1 http://deb.debian.org/debian bookworm InRelease"
	if [ -n "${STUB_UPDATE_FAIL:-}" ]; then echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease" >&2; exit 100; fi
	;;
*" install "*)
	n=$(grep -c '^apt-get install' "$STUB_CALLS")
	echo "Reading package lists..."
	echo "Unpacking the packages..."
	if ((n <= ${STUB_INSTALL_FAILS:-0})); then
		printf '%b\n' "${STUB_INSTALL_ERROR:-E: Sub-process /usr/bin/dpkg returned an error code (1)}" >&2
		exit 100
	fi
	echo "Setting up the packages..."
	;;
*) echo "apt-get stub: unexpected arguments: $*" >&2; exit 1 ;;
esac
EOF
cat >"$stubs/dpkg" <<'EOF'
#!/usr/bin/env bash
echo "dpkg $*" >>"$STUB_CALLS"
EOF
cat >"$stubs/id" <<'EOF'
#!/usr/bin/env bash
echo "${STUB_UID:-0}"
EOF
cat >"$stubs/go" <<'EOF'
#!/usr/bin/env bash
echo "go version go1.26.0 linux/amd64"
EOF
# Anything else that installs fails loudly if deps.sh ever calls it.
for c in apt aptitude sudo; do
	printf '#!/bin/sh\necho "%s stub: deps.sh must not call %s" >&2\nexit 1\n' "$c" "$c" >"$stubs/$c"
done
chmod +x "$stubs"/*

failures=0
fail() {
	echo "FAIL: $case: $*" >&2
	echo "--- deps.sh's output:" >&2
	sed 's/^/    /' "$tmp/out" >&2
	echo "--- stub calls:" >&2
	sed 's/^/    /' "$calls" >&2
	failures=$((failures + 1))
}
# deps: runs deps.sh with the stubs first on PATH; sets rc, output in $tmp/out.
deps() {
	: >"$calls"
	rc=0
	env PATH="$stubs:/usr/bin:/bin" STUB_CALLS="$calls" TMPDIR="$tmp" \
		DEPS_LOCK_FILES="$tmp/lock-frontend $tmp/lock" "$@" bash "$deps" >"$tmp/out" 2>&1 || rc=$?
}
expect_rc() { [ "$rc" = "$1" ] || fail "exit status $rc, want $1"; }
expect_out() { grep -qF -- "$1" "$tmp/out" || fail "output lacks '$1'"; }
expect_calls() { # the apt-get and dpkg calls, first words
	local got
	got=$(grep -E '^(apt-get|dpkg) ' "$calls" | awk '{print $1, $2}' | paste -sd, - || true)
	[ "$got" = "$1" ] || fail "calls: '$got', want '$1'"
}
touch "$tmp/lock-frontend" "$tmp/lock"

case="everything installed"
deps
expect_rc 0
[ ! -s "$tmp/out" ] || fail "printed something"
expect_calls ""
[ "$(grep -c '^dpkg-query' "$calls")" = 1 ] || fail "want one dpkg-query call"

case="not root"
deps STUB_UID=1000 STUB_MISSING="libvulkan-dev spirv-tools"
expect_rc 1
expect_out "sudo apt-get install -y libvulkan-dev spirv-tools"
expect_calls ""

case="installs what is missing, quietly"
deps STUB_MISSING="spirv-tools"
expect_rc 0
expect_out "deps: installing spirv-tools"
expect_calls "apt-get update,apt-get install"
grep -q 'apt-get install .*--no-install-recommends.*DPkg::Lock::Timeout=120.* spirv-tools$' "$calls" || fail "install arguments: $(grep install "$calls")"
if grep -q 'Setting up' "$tmp/out"; then fail "apt's output shown on success"; fi
if ls "$tmp"/gfxcuda-deps.* >/dev/null 2>&1; then fail "log folder left behind on success"; fi

case="install fails twice: apt's errors are shown"
deps STUB_MISSING="spirv-tools" STUB_INSTALL_FAILS=2 STUB_INSTALL_ERROR="dpkg: error processing archive /var/cache/apt/archives/spirv-tools_2023.1-2_amd64.deb (--unpack):\n cannot access archive: No such file or directory\nE: Sub-process /usr/bin/dpkg returned an error code (1)"
expect_rc 1
expect_out "cannot access archive: No such file or directory"
expect_out "E: Sub-process /usr/bin/dpkg returned an error code (1)"
expect_out "retrying once"
expect_out "/var/log/apt/term.log"
expect_out "to install by hand: sudo apt-get install -y spirv-tools"
expect_calls "apt-get update,apt-get install,dpkg --configure,apt-get install"
log=$(sed -n 's/.*all of it: \([^;]*\);.*/\1/p' "$tmp/out")
[ -n "$log" ] && grep -q "Unpacking the packages" "$log" || fail "the full log '$log' is not kept"

case="transient failure: retried once"
deps STUB_MISSING="spirv-tools" STUB_INSTALL_FAILS=1
expect_rc 0
expect_out "E: Sub-process /usr/bin/dpkg returned an error code (1)"
expect_out "the retry worked"
expect_calls "apt-get update,apt-get install,dpkg --configure,apt-get install"

case="fetch failure: apt-get update before the retry"
deps STUB_MISSING="spirv-tools" STUB_INSTALL_FAILS=1 STUB_INSTALL_ERROR="E: Failed to fetch http://deb.debian.org/debian/pool/main/s/spirv-tools/spirv-tools_2023.1-2_amd64.deb  404  Not Found\nE: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?"
expect_rc 0
expect_out "404  Not Found"
expect_calls "apt-get update,apt-get install,dpkg --configure,apt-get update,apt-get install"

case="apt-get update fails: its error is shown, the install is tried"
deps STUB_MISSING="spirv-tools" STUB_UPDATE_FAIL=1
expect_rc 0
expect_out "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease"
expect_calls "apt-get update,apt-get install"

# hold_lock SECONDS: another process holds $tmp/lock (flock(2), which
# /proc/locks lists as it does apt's fcntl locks) for SECONDS.
hold_lock() {
	flock "$tmp/lock" sleep "$1" &
	holder=$!
	local ino i
	ino=$(stat -c %i "$tmp/lock")
	for i in $(seq 100); do
		grep -q ":$ino " /proc/locks && return 0
		sleep 0.05
	done
	echo "FAIL: could not take a lock on $tmp/lock" >&2
	exit 1
}

if [ -r /proc/locks ] && command -v flock >/dev/null; then
	case="lock held 3 s: waits, then installs"
	hold_lock 3
	start=$SECONDS
	deps STUB_MISSING="spirv-tools" DEPS_LOCK_TIMEOUT=20
	expect_rc 0
	expect_out "deps: waiting for another apt/dpkg to finish"
	expect_out "process $holder (flock $tmp/lock sleep 3) on $tmp/lock"
	expect_out "the lock is free after"
	expect_calls "apt-get update,apt-get install"
	((SECONDS - start >= 2)) || fail "did not wait"
	wait "$holder" || true
	holder=

	case="lock held too long: gives up with a message"
	hold_lock 30
	deps STUB_MISSING="spirv-tools" DEPS_LOCK_TIMEOUT=2
	expect_rc 1
	expect_out "gave up after 2 s: another apt/dpkg still holds the lock: process $holder"
	expect_out "DEPS_LOCK_TIMEOUT=SECONDS waits longer"
	expect_calls ""
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	holder=
else
	echo "deps_test: no /proc/locks or flock here: the lock cases are skipped" >&2
fi

if ((failures)); then
	echo "deps_test: $failures failed" >&2
	exit 1
fi
echo "deps_test: ok"
