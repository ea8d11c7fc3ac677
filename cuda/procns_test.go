//go:build linux

package cuda

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestInitWithForeignProc: a process started in a new PID namespace that
// sees its parent's /proc (no /proc of its own, unlike a container's) is
// told why cuInit fails there (CUDA_ERROR_OPERATING_SYSTEM) and what to
// mount. Needs root (a new PID namespace).
func TestInitWithForeignProc(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("a new PID namespace needs root")
	}
	if foreignProc() != "" {
		t.Fatalf("this process's own /proc taken for another namespace's: %s", foreignProc())
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitWithForeignProcChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "GFXCUDA_CHILD=foreignproc")
	if Init() == nil {
		cmd.Env = append(cmd.Env, "GFXCUDA_PARENT_HAS_CUDA=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestInitWithForeignProcChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestInitWithForeignProcChild(t *testing.T) {
	if os.Getenv("GFXCUDA_CHILD") != "foreignproc" {
		t.Skip("only meaningful in the child process TestInitWithForeignProc starts")
	}
	why := foreignProc()
	if !strings.Contains(why, "--mount-proc") {
		t.Fatalf("pid %d in a new PID namespace, foreignProc: %q", os.Getpid(), why)
	}
	if os.Getenv("GFXCUDA_PARENT_HAS_CUDA") != "1" {
		return
	}
	err := Init()
	if err == nil {
		t.Log("cuInit works with another PID namespace's /proc on this driver")
		return
	}
	var nd *NoDriverError
	if !errors.As(err, &nd) || !strings.Contains(nd.Reason, "another PID namespace") || nd.Fix != why {
		t.Fatalf("Init: %v (fix: %v)", err, nd)
	}
	t.Logf("Init: %v; fix: %s", err, nd.Fix)
}
