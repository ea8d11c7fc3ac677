package sharenet

import (
	"context"
	"fmt"
	"time"
)

// Sharing between processes rests on Unix sockets, SCM_RIGHTS, pidfds,
// memfds and futexes: none of it exists on Windows yet (NT handles
// duplicated over a named pipe are the plan, docs/windows.md). Every way in
// below refuses with errWindows; what only observes (a probe, a process
// watch) says so or does nothing.

// errWindows is the refusal of every export and open on Windows.
var errWindows = fmt.Errorf("share: sharing between processes is not supported on Windows yet (docs/windows.md): %w", ErrUnreachable)

func register(*entry, *exportPlan) (registered, error) { return registered{}, errWindows }

func unregister(uint64, [16]byte) {}

func fetch(context.Context, *token, OpenOptions) (*reply, error) { return nil, errWindows }

func prepareDir(string, bool) (dirInfo, error) { return dirInfo{}, errWindows }

func dirUsable(string) bool { return false }

func nsInode(string) uint64 { return 0 }

// CloseAll does nothing on Windows: no descriptor is ever received there.
func CloseAll([]int) {}

// FutexWait sleeps for d on Windows (no shared control block exists there
// to wait on).
func FutexWait(_ *uint32, _ uint32, d time.Duration) { time.Sleep(d) }

// FutexWake does nothing on Windows.
func FutexWake(*uint32) {}

// ProcWatch watches another process; on Windows there is none to watch
// (no peer can attach), so it never reports one dead.
type ProcWatch struct{ pid int }

// Watch returns a watch of pid (hup is ignored on Windows).
func Watch(pid, _ int) ProcWatch { return ProcWatch{pid: pid} }

// NoWatch is a watch of no process.
func NoWatch() ProcWatch { return ProcWatch{} }

// PID is the watched process's pid.
func (w ProcWatch) PID() int { return w.pid }

// Dead reports false on Windows.
func (w ProcWatch) Dead() bool { return false }

// Close does nothing on Windows.
func (w *ProcWatch) Close() {}

// ProbeRendezvous reports, on Windows, that no way works yet.
func ProbeRendezvous() []RendezvousCheck {
	var out []RendezvousCheck
	for _, n := range rendezvousNames {
		out = append(out, RendezvousCheck{Rendezvous: n.r, Detail: "not supported on Windows yet",
			Fix: "share between processes on Linux for now (docs/windows.md)"})
	}
	return out
}
