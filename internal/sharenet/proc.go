//go:build linux

package sharenet

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations on shared (not process-private) words: the control
// block is mapped by several processes.
const (
	futexOpWait = 0 // FUTEX_WAIT
	futexOpWake = 1 // FUTEX_WAKE
)

// FutexWait sleeps while *addr holds val, at most d (or until woken): a
// word of memory that several processes map.
func FutexWait(addr *uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexOpWait, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// FutexWake wakes every process sleeping in FutexWait on addr.
func FutexWake(addr *uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexOpWake, uintptr(1<<30), 0, 0, 0)
}

// ProcWatch tells whether the process on the other side of a ring has
// exited (or, for the producer's view of a consumer, closed): a pidfd
// where the peer's pid is visible from here, and the ring's liveness
// socket, whose far end only the peer holds: it hangs up when the peer
// exits, whatever PID namespace it is in (the pid of a peer in another
// PID namespace may be invisible: 0). Its zero value is no watch; make
// one with Watch or NoWatch.
type ProcWatch struct {
	pid   int
	pidfd int
	hup   int // our end of the liveness socket pair, or -1
}

// Watch watches the process pid (0: not visible from here) and the
// liveness socket hup (-1: none), which it then owns.
func Watch(pid, hup int) ProcWatch {
	fd := -1
	if pid > 0 {
		if f, err := unix.PidfdOpen(pid, 0); err == nil {
			fd = f
		}
	}
	return ProcWatch{pid: pid, pidfd: fd, hup: hup}
}

// pidWatch watches process pid through its pidfd alone (no liveness
// socket: hup -1, so that fd 0 is never polled in its place).
func pidWatch(pid, pidfd int) ProcWatch { return ProcWatch{pid: pid, pidfd: pidfd, hup: -1} }

// NoWatch is a watch of nothing: never dead, nothing to close.
func NoWatch() ProcWatch { return ProcWatch{pidfd: -1, hup: -1} }

// PID is the watched process's pid (0: not visible from here).
func (w ProcWatch) PID() int { return w.pid }

// Dead reports whether the watched process is gone (or its liveness
// socket hung up). It does not block.
func (w ProcWatch) Dead() bool {
	var p []unix.PollFd
	if w.pidfd >= 0 {
		p = append(p, unix.PollFd{Fd: int32(w.pidfd), Events: unix.POLLIN})
	}
	if w.hup >= 0 {
		p = append(p, unix.PollFd{Fd: int32(w.hup), Events: unix.POLLRDHUP})
	}
	if len(p) == 0 {
		return w.pid > 0 && unix.Kill(w.pid, 0) == unix.ESRCH
	}
	n, err := unix.Poll(p, 0)
	if err != nil || n == 0 {
		return false
	}
	for _, x := range p {
		if x.Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLRDHUP|unix.POLLERR) != 0 {
			return true
		}
	}
	return false
}

// Close closes the watch's descriptors. Idempotent.
func (w *ProcWatch) Close() {
	for _, fd := range []*int{&w.pidfd, &w.hup} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}
