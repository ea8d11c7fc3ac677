#!/usr/bin/env bash
# Installs the Debian packages gfxcuda needs to build and test, when run as
# root; otherwise prints the one apt command to run. Idempotent: does nothing
# (one dpkg-query call) when everything is present.
#
# apt's output is kept in a log and printed only when something fails. It
# waits (DEPS_LOCK_TIMEOUT seconds, 120) for another apt or dpkg holding the
# locks, saying which process, and retries a failed install once, after
# `dpkg --configure -a` and, when the failure was fetching, `apt-get update`.
# scripts/deps_test.sh tests it with stubs (make deps-test).
set -euo pipefail

packages=(
	gcc libc6-dev libstdc++-12-dev make
	libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
	libshaderc-dev glslang-tools spirv-tools
	libegl1 libegl-dev libegl-mesa0 libgl1-mesa-dri libgles-dev libgl-dev
	python3 python3-numpy python3-pytest python3-pip python3-venv
	python3-mypy
	python3-moderngl python3-opengl libmujoco-dev xvfb
)

. "$(dirname "$0")/deb-missing.sh" # sets missing

lock_timeout=${DEPS_LOCK_TIMEOUT:-120}
read -r -a lock_files <<<"${DEPS_LOCK_FILES:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}"

# lock_holder prints "process PID (command line)" for a process holding a
# lock on one of lock_files, or nothing. apt and dpkg take fcntl locks,
# which flock(1) does not see; /proc/locks lists every kind, by inode.
lock_holder() {
	local f ino pid cmd _ kind mode rw dev
	[ -r /proc/locks ] || return 0
	for f in "${lock_files[@]}"; do
		ino=$(stat -c %i "$f" 2>/dev/null) || continue
		# "1: POSIX  ADVISORY  WRITE 1234 fe:00:9978399 0 EOF"; "1: -> ..." is a waiter
		while read -r _ kind mode rw pid dev _; do
			[ "$kind" != "->" ] && [ "${dev##*:}" = "$ino" ] || continue
			cmd=
			if [ -r "/proc/$pid/cmdline" ]; then cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80) || cmd=; fi
			if [ "$pid" = -1 ]; then echo "another process (on $f)"; else echo "process $pid (${cmd% }) on $f"; fi
			return 0
		done </proc/locks
	done
}

# wait_for_locks waits up to lock_timeout seconds for the locks to be free.
wait_for_locks() {
	local holder start=$SECONDS said=0
	while holder=$(lock_holder) && [ -n "$holder" ]; do
		if ((SECONDS - start >= lock_timeout)); then
			echo "deps: gave up after $lock_timeout s: another apt/dpkg still holds the lock: $holder" >&2
			echo "deps: let it finish (or stop it), then run make again; DEPS_LOCK_TIMEOUT=SECONDS waits longer" >&2
			return 1
		fi
		if ((SECONDS - start >= said)); then
			echo "deps: waiting for another apt/dpkg to finish (waited $((SECONDS - start)) s, at most $lock_timeout s): $holder" >&2
			said=$((said + 15))
		fi
		sleep 1
	done
	if ((said)); then echo "deps: the lock is free after $((SECONDS - start)) s" >&2; fi
}

log_dir=
# run NAME COMMAND...: waits for the locks (exits when they stay held), runs
# the command with its output in $log_dir/NAME.log and returns its status.
run() {
	local name=$1
	shift
	wait_for_locks || { rm -rf "$log_dir"; exit 1; }
	"$@" >"$log_dir/$name.log" 2>&1
}

# errors NAME prints apt's error lines from a log, indented.
errors() {
	grep -E -A1 '^(E|W): |^dpkg: |[Ee]rror' "$log_dir/$1.log" | grep -v '^--$' | head -n 12 | sed 's/^/    /' >&2 || true
}

# fail NAME: prints the end of the log and where the rest is, and exits.
fail() {
	echo "deps: apt's output (the last 40 lines of $log_dir/$1.log):" >&2
	tail -n 40 "$log_dir/$1.log" | sed 's/^/  | /' >&2
	echo "deps: all of it: $log_dir/$1.log; dpkg's own log: /var/log/apt/term.log" >&2
	echo "deps: to install by hand: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
}

if ((${#missing[@]})); then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: missing Debian packages. Run:" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	log_dir=$(mktemp -d "${TMPDIR:-/tmp}/gfxcuda-deps.XXXXXX")
	lock=(-o "DPkg::Lock::Timeout=$lock_timeout")
	install=(apt-get install -y -q --no-install-recommends "${lock[@]}"
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}")
	rc=0
	run update apt-get update -q "${lock[@]}" || rc=$?
	if ((rc)); then
		echo "deps: apt-get update failed (exit $rc); trying the install with the package lists there are:" >&2
		errors update
	fi
	rc=0
	run install "${install[@]}" || rc=$?
	if ((rc)); then
		echo "deps: apt-get install failed (exit $rc):" >&2
		errors install
		echo "deps: retrying once, after 'dpkg --configure -a'" >&2
		rc=0
		run configure dpkg --configure -a || rc=$?
		if ((rc)); then errors configure; fi
		if grep -qE 'Failed to fetch|Unable to fetch|apt-get update|Hash Sum mismatch|Unable to locate package|has no installation candidate|404 +Not Found' "$log_dir/install.log"; then
			echo "deps: ... and 'apt-get update'" >&2
			rc=0
			run update2 apt-get update -q "${lock[@]}" || rc=$?
			if ((rc)); then errors update2; fi
		fi
		rc=0
		run install2 "${install[@]}" || rc=$?
		if ((rc)); then
			echo "deps: apt-get install failed again (exit $rc)" >&2
			fail install2
		fi
		echo "deps: the retry worked" >&2
	fi
	rm -rf "$log_dir"
fi

if ! command -v go >/dev/null 2>&1; then
	for d in /usr/local/go/bin /usr/lib/go/bin; do
		[ -x "$d/go" ] && { echo "deps: go is in $d but not on PATH; run: export PATH=$d:\$PATH" >&2; exit 1; }
	done
	echo "deps: Go 1.26 or later is needed: https://go.dev/dl/ (Debian's golang package is too old)" >&2
	exit 1
fi
