package cli

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// inNewNetNamespace is the SysProcAttr of a child in a network namespace
// of its own (root only).
func inNewNetNamespace() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
}

// writableDir reports an error when the process cannot create files in dir.
func writableDir(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }
