package cli

import (
	"os"
	"path/filepath"
	"syscall"
)

// inNewNetNamespace is nil on Windows (no network namespaces; the share
// commands that ask for one are refused before).
func inNewNetNamespace() *syscall.SysProcAttr { return nil }

// writableDir reports an error when the process cannot create files in
// dir: it creates and removes a probe file.
func writableDir(dir string) error {
	f, err := os.CreateTemp(dir, ".gfxcuda-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(filepath.Clean(name))
}
