//go:build linux

package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
)

// How long a command may take to end after a signal, or to print a line
// it is waited for, before the test fails: generous (lavapipe on a loaded
// machine), never a figure the test measures.
const signalTimeout = 30 * time.Second

// cliProc is gfxcuda (this test binary as the command, GFXCUDA_AS_CLI=1)
// running in another process, so that signals reach it as they reach a
// command in a terminal.
type cliProc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer // stdout so far
	errb   bytes.Buffer // stderr
	more   chan struct{}
	exited chan struct{} // closed when the process has ended
	rc     int
}

// startCLI starts gfxcuda args.
func startCLI(t *testing.T, args ...string) *cliProc {
	t.Helper()
	p := &cliProc{t: t, name: "gfxcuda " + args[0], more: make(chan struct{}, 1), exited: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), "GFXCUDA_AS_CLI=1")
	p.cmd.Stderr = &lockedWriter{&p.mu, &p.errb, nil}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		io.Copy(&lockedWriter{&p.mu, &p.out, p.more}, stdout)
		err := p.cmd.Wait()
		p.rc = p.cmd.ProcessState.ExitCode() // -1: killed by a signal
		if err != nil && p.rc == 0 {
			p.rc = -2
		}
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// lockedWriter appends to b under mu and tells more.
type lockedWriter struct {
	mu   *sync.Mutex
	b    *bytes.Buffer
	more chan struct{}
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if w.more != nil {
		select {
		case w.more <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// output is what the process printed so far.
func (p *cliProc) output() (stdout, stderr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String(), p.errb.String()
}

// waitFor waits for a line of stdout that re matches and returns its
// submatches; the test fails when the process ends first or after
// signalTimeout.
func (p *cliProc) waitFor(re *regexp.Regexp) []string {
	p.t.Helper()
	deadline := time.After(signalTimeout)
	for {
		out, errs := p.output()
		if m := re.FindStringSubmatch(out); m != nil {
			return m
		}
		select {
		case <-p.more:
		case <-p.exited:
			out, errs = p.output()
			if m := re.FindStringSubmatch(out); m != nil {
				return m
			}
			p.t.Fatalf("%s ended (exit %d) before printing %v:\n%s%s", p.name, p.rc, re, out, errs)
		case <-deadline:
			p.t.Fatalf("%s printed nothing matching %v within %v:\n%s%s", p.name, re, signalTimeout, out, errs)
		}
	}
}

// midStream waits for the process to report frames (its once-a-second
// progress line): it is mid-stream.
func (p *cliProc) midStream() {
	p.t.Helper()
	p.waitFor(regexp.MustCompile(`(?m)^(produced \d+ frames,|sent \d+ frames,|frame \d+:)`))
}

// signal sends sig.
func (p *cliProc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("%s: %v", p.name, err)
	}
}

// end waits for the process to end (failing the test after signalTimeout)
// and returns its exit status and its last line of stdout.
func (p *cliProc) end() (rc int, last string) {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(signalTimeout):
		p.cmd.Process.Kill()
		<-p.exited
		out, errs := p.output()
		p.t.Fatalf("%s did not end within %v of the signal:\n%s%s", p.name, signalTimeout, out, errs)
	}
	out, errs := p.output()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if errs != "" {
		p.t.Logf("%s's stderr:\n%s", p.name, errs)
	}
	return p.rc, lines[len(lines)-1]
}

// sharedRing is a ring `gfxcuda share` made: its token and its sockets.
type sharedRing struct {
	share    *cliProc
	token    string
	dir      string // --dir
	abstract string // "@gfxcuda/…"
	fsSocket string // the filesystem socket's path
}

var (
	tokenRE     = regexp.MustCompile(`gfxcuda open (gfxcuda[12]\.\S+)`)
	reachableRE = regexp.MustCompile(`reachable through: abstract socket (@\S+), filesystem socket (\S+);`)
)

// startShare runs gfxcuda share with a socket directory of its own and
// waits for its token.
func startShare(t *testing.T, args ...string) *sharedRing {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sockets")
	p := startCLI(t, append([]string{"share", "--dir", dir}, args...)...)
	r := &sharedRing{share: p, dir: dir, token: p.waitFor(tokenRE)[1]}
	m := p.waitFor(reachableRE)
	r.abstract, r.fsSocket = m[1], m[2]
	p.waitFor(regexp.MustCompile(`waiting for a consumer`))
	return r
}

// open runs gfxcuda open on the ring.
func (r *sharedRing) open(t *testing.T) *cliProc {
	return startCLI(t, "open", r.token)
}

// checkSocketsGone checks that share, ended, left no socket: neither its
// filesystem socket nor its abstract one.
func (r *sharedRing) checkSocketsGone(t *testing.T) {
	t.Helper()
	if _, err := os.Lstat(r.fsSocket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the filesystem socket %s is still there (%v)", r.fsSocket, err)
	}
	if ents, _ := os.ReadDir(r.dir); len(ents) > 0 {
		t.Errorf("left in --dir %s: %v", r.dir, ents)
	}
	unix, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(unix), " "+r.abstract+"\n") {
		t.Errorf("the abstract socket %s is still there", r.abstract)
	}
}

// checkEnd checks how a command that a signal ended ended: promptly, with
// exit status rc and its summary line (every one of want in it).
func checkEnd(t *testing.T, p *cliProc, wantRC int, want ...string) {
	t.Helper()
	rc, last := p.end()
	if rc != wantRC {
		out, errs := p.output()
		t.Errorf("%s: exit %d, want %d\n%s%s", p.name, rc, wantRC, out, errs)
	}
	for _, w := range want {
		if !strings.Contains(last, w) {
			t.Errorf("%s's last line %q lacks %q", p.name, last, w)
		}
	}
	if _, errs := p.output(); errs != "" {
		t.Errorf("%s: stderr %q, want nothing (an interruption is no error)", p.name, errs)
	}
}

// TestShareInterrupted: `gfxcuda share --frames 0` (until interrupted)
// ends at SIGINT or SIGTERM at any moment: while waiting for a consumer,
// mid-stream with a consumer, after the consumer attached and left;
// `gfxcuda open` ends at either signal mid-stream and while it waits for
// frames. Each prints its summary line saying what ended it and exits 0;
// share removes its sockets. A share with a frame count that a signal
// ends early says so and exits 128 + the signal's number.
func TestShareInterrupted(t *testing.T) {
	needVulkan(t)
	cpu := []string{"--cpu", "--size", "4096"}
	gpu := []string{"--width", "64", "--height", "32"}

	t.Run("waiting for a consumer", func(t *testing.T) {
		r := startShare(t, append([]string{"--frames", "0"}, cpu...)...)
		r.share.signal(syscall.SIGINT)
		checkEnd(t, r.share, 0, "produced 0 frames", "(ended by SIGINT)")
		r.checkSocketsGone(t)
	})

	// The case: Ctrl-C after a consumer came and went was ignored.
	for _, c := range []struct {
		name    string
		frame   []string
		sig     syscall.Signal
		sigName string
	}{{"cpu", cpu, syscall.SIGINT, "SIGINT"}, {"gpu", gpu, syscall.SIGTERM, "SIGTERM"}} {
		t.Run("consumer attached and left/"+c.name, func(t *testing.T) {
			r := startShare(t, append([]string{"--frames", "0"}, c.frame...)...)
			o := r.open(t)
			o.midStream()
			o.signal(c.sig)
			checkEnd(t, o, 0, "frames in", "0 bad", "(ended by "+c.sigName+")")
			r.share.signal(c.sig)
			checkEnd(t, r.share, 0, "produced", "(ended by "+c.sigName+")")
			r.checkSocketsGone(t)
		})
	}

	t.Run("mid-stream with a frame count", func(t *testing.T) {
		r := startShare(t, append([]string{"--frames", "1000000000"}, cpu...)...)
		o := r.open(t)
		r.share.midStream()
		r.share.signal(syscall.SIGINT)
		checkEnd(t, r.share, 130, "interrupted by SIGINT after", "of 1000000000 frames")
		r.checkSocketsGone(t)
		// The consumer sees the ring end as after its last frame.
		checkEnd(t, o, 0, "checked byte for byte, 0 bad")
	})

	t.Run("consumer waiting for frames", func(t *testing.T) {
		r := startShare(t, append([]string{"--frames", "0"}, gpu...)...)
		o := r.open(t)
		o.midStream()
		// The producer stopped: the consumer waits for the next frame.
		r.share.signal(syscall.SIGSTOP)
		o.signal(syscall.SIGINT)
		checkEnd(t, o, 0, "every texel of", "0 bad", "(ended by SIGINT)")
		r.share.signal(syscall.SIGCONT)
		r.share.signal(syscall.SIGTERM)
		checkEnd(t, r.share, 0, "(ended by SIGTERM)")
		r.checkSocketsGone(t)
	})
}

// TestShareOutputsCheckedFirst: what share writes (--token-file, its
// socket directory --dir, --listen's socket) is checked before any work: a
// path that cannot be written is a usage error (exit status 2) naming the
// flag and the path the user gave, with nothing set up (no token printed).
func TestShareOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	writeFile(t, dir, "f", "x")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--token-file", "/nonexistent/x.tok"}, "--token-file /nonexistent/x.tok: directory /nonexistent does not exist"},
		{[]string{"--cpu", "--token-file", "/nonexistent/x.tok"}, "--token-file /nonexistent/x.tok: directory /nonexistent does not exist"},
		{[]string{"--token-file", dir}, "--token-file " + dir + ": " + dir + " is a directory"},
		{[]string{"--transport", "nccl", "--token-file", "/nonexistent/x.tok"}, "--token-file /nonexistent/x.tok: directory /nonexistent does not exist"},
		{[]string{"--dir", "/nonexistent/sockets"}, "--dir /nonexistent/sockets: directory /nonexistent does not exist"},
		{[]string{"--dir", file}, "--dir " + file + ": not a directory"},
		{[]string{"--dir", "relative/sockets"}, "--dir relative/sockets: not an absolute path"},
		{[]string{"--transport", "nccl", "--dir", "/nonexistent/sockets"}, "--dir /nonexistent/sockets: directory /nonexistent does not exist"},
		{[]string{"--transport", "nccl", "--listen", "unix:/nonexistent/s.sock"}, "--listen unix:/nonexistent/s.sock: directory /nonexistent does not exist"},
		{[]string{"--transport", "nccl", "--listen", "unix:" + file}, "--listen unix:" + file + ": " + file + " already exists"},
	} {
		args := append([]string{"share"}, c.args...)
		rc, stdout, stderr := gfx(args...)
		if rc != 2 || stdout != "" || !strings.HasPrefix(firstLine(stderr), "gfxcuda share: "+c.want) || strings.Contains(stderr, ".tmp") {
			t.Errorf("gfxcuda %s: exit %d, want 2 and %q before any work\nstdout %q\nstderr %q", strings.Join(args, " "), rc, c.want, stdout, stderr)
		}
	}
	// A directory there, or one that can be made, is accepted.
	for _, d := range []string{dir, filepath.Join(dir, "new")} {
		if err := checkSocketDir(d); err != nil {
			t.Errorf("checkSocketDir(%s): %v", d, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the checks left files: %v", ents)
	}
}

// TestWriteTokenFile: the token file is written whole, 0600 (0644 when
// other users may open), with nothing else left beside it; a failure names
// the file the user gave, never the temporary one.
func TestWriteTokenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ring.token")
	if err := writeTokenFile(path, "gfxcuda2.abc", gfxcuda.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := writeTokenFile(path, "gfxcuda2.def", gfxcuda.ExportOptions{AllowUIDs: []int{1001}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	st, _ := os.Stat(path)
	if err != nil || string(b) != "gfxcuda2.def\n" || st.Mode().Perm() != 0o644 {
		t.Errorf("token file: %q, mode %v, %v", b, st.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left beside the token file: %v", ents)
	}
	err = writeTokenFile("/nonexistent/x.tok", "gfxcuda2.abc", gfxcuda.ExportOptions{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/x.tok:") || strings.Contains(err.Error(), "tmp") {
		t.Errorf("writeTokenFile in a missing directory: %v, want an error naming /nonexistent/x.tok alone", err)
	}
}

// TestShareInterruptedGPU: the same on a GPU, for the paths lavapipe
// cannot run: `gfxcuda open --cuda` ends at SIGINT mid-stream and while
// it waits for frames (needs CUDA); `gfxcuda share --transport nccl
// --loopback --frames 0` ends at SIGINT mid-stream, exit status 0, and
// with a frame count at SIGTERM, exit status 143 (needs NCCL).
func TestShareInterruptedGPU(t *testing.T) {
	t.Run("open --cuda", func(t *testing.T) {
		if err := cuda.Init(); err != nil {
			if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
				t.Fatal(err)
			}
			t.Skipf("no CUDA driver: %v", err)
		}
		r := startShare(t, "--frames", "0", "--width", "256", "--height", "128")
		o := startCLI(t, "open", "--cuda", r.token)
		o.midStream()
		o.signal(syscall.SIGINT)
		checkEnd(t, o, 0, "every texel checked on the GPU, 0 bad texels", "(ended by SIGINT)")
		o = startCLI(t, "open", "--cuda", r.token)
		o.midStream()
		r.share.signal(syscall.SIGSTOP)
		o.signal(syscall.SIGTERM)
		checkEnd(t, o, 0, "0 bad texels", "(ended by SIGTERM)")
		r.share.signal(syscall.SIGCONT)
		r.share.signal(syscall.SIGINT)
		checkEnd(t, r.share, 0, "(ended by SIGINT)")
		r.checkSocketsGone(t)
	})
	t.Run("nccl loopback", func(t *testing.T) {
		needNCCL(t)
		for _, c := range []struct {
			frames string
			sig    syscall.Signal
			rc     int
			want   string
		}{{"0", syscall.SIGINT, 0, "(ended by SIGINT)"}, {"1000000000", syscall.SIGTERM, 143, "(interrupted by SIGTERM after"}} {
			p := startCLI(t, "share", "--transport", "nccl", "--loopback", "--frames", c.frames, "--width", "256", "--height", "128")
			p.midStream()
			p.signal(c.sig)
			checkEnd(t, p, c.rc, "sent and received, every texel checked on the GPU, 0 bad texels", c.want)
		}
	})
}
