//go:build linux

package sharenet

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPidWatchIgnoresStdin: the door watches a peer through its pidfd
// alone. With fd 0 a pipe whose writer has gone (a program run at the end
// of a finished pipeline), a live peer must not look dead: a watch whose
// liveness-socket descriptor was left at 0 polls stdin and sees its hang-up
// (the mistake pidWatch ends), and a peer that exited must look dead.
func TestPidWatchIgnoresStdin(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	unix.Close(p[1]) // the writer is gone: the read end reports POLLHUP
	saved, err := unix.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(p[0], 0); err != nil {
		t.Fatal(err)
	}
	defer func() {
		unix.Dup2(saved, 0)
		unix.Close(saved)
		unix.Close(p[0])
	}()
	self := os.Getpid()
	pfd, err := unix.PidfdOpen(self, 0)
	if err != nil {
		t.Skipf("no pidfd_open: %v", err)
	}
	defer unix.Close(pfd)
	if (ProcWatch{pid: self, pidfd: pfd}).Dead() != true {
		t.Fatal("the setting is not the one that fooled the door: a watch with hup 0 should see stdin's hang-up here")
	}
	if pidWatch(self, pfd).Dead() {
		t.Error("pidWatch: this live process looks dead when stdin is a hung-up pipe")
	}
	// A peer that exited looks dead.
	pr, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skipf("cannot start /bin/true: %v", err)
	}
	cfd, err := unix.PidfdOpen(pr.Pid, 0)
	if err != nil {
		pr.Wait()
		t.Skipf("pidfd_open of a child: %v", err)
	}
	defer unix.Close(cfd)
	if _, err := pr.Wait(); err != nil {
		t.Fatal(err)
	}
	if !pidWatch(pr.Pid, cfd).Dead() {
		t.Error("pidWatch: a process that exited does not look dead")
	}
}
