//go:build linux

package gfxcuda

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/vulkan"
	"golang.org/x/sys/unix"
)

// childEnv names the role of a child process started by a test; helper
// tests skip when it is not set.
const childEnv = "GFXCUDA_SHARE_CHILD"

// vkDevice opens a Vulkan device (validation on) that can export and
// import OPAQUE_FD memory: lavapipe on the CPU machine, the GPU elsewhere.
// It skips, or fails under GFXCUDA_REQUIRE_VULKAN=1.
func vkDevice(t testing.TB) *vulkan.Device {
	t.Helper()
	on := os.Getenv(childEnv) == ""
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda-share-test", Validation: &on})
	if err != nil {
		unavailable(t, "Vulkan unavailable: %v", err)
	}
	pds, err := in.PhysicalDevices()
	if err != nil || len(pds) == 0 {
		in.Close()
		unavailable(t, "no Vulkan device: %v", err)
	}
	pd := pds[0]
	if !pd.CanExportOpaqueFD() || !pd.CanImportOpaqueFD() {
		in.Close()
		unavailable(t, "%s cannot export and import OPAQUE_FD memory", pd.Name)
	}
	d, err := in.NewDevice(pd, vulkan.DeviceOptions{})
	if err != nil {
		in.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Device.Close: %v", err)
		}
		msgs := in.TakeValidationErrors()
		in.Close()
		if len(msgs) > 0 {
			t.Errorf("%d validation errors:\n%s", len(msgs), strings.Join(msgs, "\n"))
		}
	})
	return d
}

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
		t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: "+format, args...)
	}
	t.Skipf(format, args...)
}

// skipBelowTwoGPUs skips t when this process sees fewer than two CUDA
// GPUs: the one skip GFXCUDA_REQUIRE_CUDA=1 allows (a two-GPU test on a
// one-GPU machine).
func skipBelowTwoGPUs(t testing.TB, visible int) {
	t.Helper()
	if visible < 2 {
		t.Skipf("needs 2 CUDA GPUs, %d visible (the one skip allowed under GFXCUDA_REQUIRE_CUDA=1: run it on a 2-GPU machine)", visible)
	}
}

// seededRandom returns n deterministic pseudo-random bytes for seed.
func seededRandom(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

func poisonedBytes(n int) []byte { return bytes.Repeat([]byte{0xCD}, n) }

// child is a test binary re-run in a helper role.
type child struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines <-chan string // the child's stdout, closed at its end
	err   *bytes.Buffer
}

// childTimeout bounds how long a test waits for a child's next protocol
// line or its exit (GFXCUDA_CHILD_TIMEOUT, a Go duration; 5 minutes by
// default): a child that hangs fails its test with its goroutines instead
// of stalling the package until the test binary's own timeout.
func childTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("GFXCUDA_CHILD_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 5 * time.Minute
}

// startChild runs TestChild in role with extra environment variables; the
// child reads commands on stdin and answers one line at a time.
func startChild(t testing.TB, role string, env ...string) *child {
	t.Helper()
	return startChildWithConns(t, "TestChild", nil, append([]string{childEnv + "=" + role}, env...)...)
}

// startChildWithConns runs the test binary's test named test in a child
// process with conns as its descriptors 3, 4, … (closed here) and env
// added to its environment (the role its test reads).
func startChildWithConns(t testing.TB, test string, conns []net.Conn, env ...string) *child {
	t.Helper()
	var files []*os.File
	for _, c := range conns {
		f, err := c.(interface{ File() (*os.File, error) }).File()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		c.Close()
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.ExtraFiles = files
	c := startChildCmd(t, cmd)
	for _, f := range files {
		f.Close()
	}
	return c
}

// childConns is the child side of startChildWithConns: its descriptors 3,
// 4, … as connections, one per name (named in a failure).
func childConns(names ...string) []net.Conn {
	var cs []net.Conn
	for i, name := range names {
		c, err := net.FileConn(os.NewFile(uintptr(3+i), name))
		if err != nil {
			childFail("%s: %v", name, err)
		}
		cs = append(cs, c)
	}
	return cs
}

// startChildCmd starts cmd, a TestChild process set up by the caller.
func startChildCmd(t testing.TB, cmd *exec.Cmd) *child {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second // a grandchild holding stdout or stderr open does not stall Wait
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	c := &child{cmd: cmd, in: in, lines: lines, err: &stderr}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return c
}

// expect reads lines until one starts with "@" (the child's protocol) and
// returns it without the "@", failing on "@FAIL".
func (c *child) expect(t testing.TB, prefix string) string {
	t.Helper()
	var log []string
	d := childTimeout()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		var l string
		var ok bool
		select {
		case l, ok = <-c.lines:
		case <-timer.C:
			c.quit()
			c.fatal(t, "the child printed no %q within %v (GFXCUDA_CHILD_TIMEOUT); it was sent SIGQUIT, its goroutines are in its stderr below; its output so far:\n%s",
				prefix, d, strings.Join(log, "\n"))
		}
		if !ok {
			c.cmd.Wait() // stderr is complete once the child is reaped
			t.Fatalf("child ended before %q: %s\n%s", prefix, strings.Join(log, "\n"), c.err.String())
		}
		if !strings.HasPrefix(l, "@") {
			log = append(log, l)
			continue
		}
		l = l[1:]
		if strings.HasPrefix(l, "FAIL") {
			t.Fatalf("child failed: %s\n%s", l, strings.Join(log, "\n"))
		}
		if !strings.HasPrefix(l, prefix) {
			t.Fatalf("child said %q, want %q", l, prefix)
		}
		return strings.TrimSpace(strings.TrimPrefix(l, prefix))
	}
}

// quit asks a hung child for its goroutines (SIGQUIT makes a Go program
// print them and exit) and gives it a few seconds to do so.
func (c *child) quit() {
	c.cmd.Process.Signal(unix.SIGQUIT)
	for i := 0; i < 100 && !c.exited(); i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *child) send(t testing.TB, line string) {
	t.Helper()
	if _, err := fmt.Fprintln(c.in, line); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the child to exit and fails on a non-zero status.
func (c *child) wait(t testing.TB) {
	t.Helper()
	c.in.Close()
	d := childTimeout()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for open := true; open; {
		select {
		case _, open = <-c.lines:
		case <-timer.C:
			c.quit()
			c.fatal(t, "the child did not exit within %v of its last command (GFXCUDA_CHILD_TIMEOUT); it was sent SIGQUIT, its goroutines are in its stderr below", d)
		}
	}
	if err := c.cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("child exited: %v\n%s", err, c.err.String())
		}
	}
}

// exited reports whether the child has exited (without reaping it).
func (c *child) exited() bool {
	var si unix.Siginfo
	err := unix.Waitid(unix.P_PID, c.cmd.Process.Pid, &si, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && si.Signo == int32(unix.SIGCHLD)
}

// fatal ends the child (killed if still running) and fails the test with
// what it printed: its protocol lines and log on stdout, then its stderr.
func (c *child) fatal(t testing.TB, format string, args ...any) {
	t.Helper()
	c.cmd.Process.Kill()
	c.in.Close()
	var out []string
	drain := time.After(5 * time.Second) // a grandchild may hold stdout open
	for open := true; open; {
		var l string
		select {
		case l, open = <-c.lines:
			if open {
				out = append(out, l)
			}
		case <-drain:
			open = false
		}
	}
	werr := c.cmd.Wait()
	t.Fatalf("%s\nchild (%v) stdout:\n%s\nchild stderr:\n%s", fmt.Sprintf(format, args...), werr,
		strings.Join(out, "\n"), c.err.String())
}

// waitAttached waits until r has n consumers: at most d, and failing at
// once, with the child's output, when the child exits first (a consumer
// that cannot start never attaches).
func (c *child) waitAttached(t testing.TB, r *SharedRing, n int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for r.Consumers() < n {
		if c.exited() {
			c.fatal(t, "the consumer process exited before attaching to the ring")
		}
		if time.Now().After(deadline) {
			c.fatal(t, "no consumer attached to the ring within %v", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// say prints one protocol line from a child.
func say(format string, args ...any) { fmt.Printf("@"+format+"\n", args...) }

// childFail reports a child's failure on the protocol and exits.
func childFail(format string, args ...any) {
	say("FAIL "+format, args...)
	os.Exit(1)
}
