//go:build linux

package cli

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/nccl"
)

// testLinkToken builds a well-formed link token (as gfxcuda share
// --transport nccl prints) by hand: this machine may have no NCCL to make
// one. sender is the sender's GPU (zero: none this process has).
func testLinkToken(t *testing.T, session uint64, sender cuda.UUID) gfxcuda.LinkToken {
	t.Helper()
	le := binary.LittleEndian
	b := []byte{1, 0, 0, 0}
	b = le.AppendUint64(b, session)
	for i := 0; i < 128; i++ {
		b = append(b, byte(i*7))
	}
	const w, h = 64, 32
	b = le.AppendUint32(b, w)
	b = le.AppendUint32(b, h)
	b = le.AppendUint32(b, uint32(format.RGBA8UNorm))
	b = le.AppendUint64(b, w*h*4)
	b = le.AppendUint32(b, 4)
	b = append(b, sender[:]...)
	b = append(b, make([]byte, 16)...)
	b = le.AppendUint32(b, crc32.ChecksumIEEE(b))
	tok := gfxcuda.LinkToken("gfxlink1." + base64.RawURLEncoding.EncodeToString(b))
	if in, err := tok.Info(); err != nil || in.Shape.Width != w || in.Slots != 4 {
		t.Fatalf("the test's token: %+v, %v", in, err)
	}
	return tok
}

// TestShareNCCLUsageErrors: the NCCL transport's flags and tokens are
// checked before anything runs: usage errors (exit status 2), one line
// saying what was wrong.
func TestShareNCCLUsageErrors(t *testing.T) {
	tok := string(testLinkToken(t, 1, cuda.UUID{}))
	damaged := []byte(tok)
	damaged[len(damaged)/2] ^= 1
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"share", "--transport", "grpc"}, `--transport "grpc": want ring or nccl`},
		{[]string{"share", "--transport", "nccl", "--cpu"}, "--cpu goes with rings"},
		{[]string{"share", "--transport", "nccl", "--drop"}, "--drop goes with rings"},
		{[]string{"share", "--transport", "nccl", "--allow-uid", "1000"}, "--allow-uid goes with rings"},
		{[]string{"share", "--listen", "unix:/tmp/x.sock"}, "--listen goes with --transport nccl"},
		{[]string{"share", "--device", "1"}, "--device goes with --transport nccl"},
		{[]string{"share", "--timeout", "5s"}, "--timeout goes with --transport nccl"},
		{[]string{"share", "--transport", "nccl", "--listen", "here"}, "want unix:PATH or tcp:HOST:PORT"},
		{[]string{"share", "--transport", "nccl", "--listen", "tcp:nohost"}, "want tcp:HOST:PORT"},
		{[]string{"share", "--transport", "nccl", "--listen", "udp:h:1"}, `unknown kind "udp"`},
		{[]string{"share", "--transport", "nccl", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"share", "--transport", "nccl", "--timeout", "soon"}, "--timeout"},
		{[]string{"share", "--transport", "nccl", "--slots", "65", "--batch", "1"}, "at most 64 --slots"},
		{[]string{"share", "--transport", "nccl", "--batch", "4"}, "--batch ≤ --slots"},
		{[]string{"share", "--transport", "nccl", "--frames", "-1"}, "--frames"},
		{[]string{"share", "--loopback"}, "--loopback goes with --transport nccl"},
		{[]string{"share", "--transport", "nccl", "--loopback", "--listen", "tcp::5000"}, "--loopback has no receiver"},
		{[]string{"share", "--transport", "nccl", "--loopback", "--token-file", "/tmp/t"}, "--loopback has no receiver"},
		{[]string{"open", "--transport", "nccl"}, "no token given"},
		{[]string{"open", "--transport", "nccl", "gfxlink1.AAAA"}, "TOKEN"},
		{[]string{"open", "--transport", "nccl", string(damaged)}, "copy the whole token"},
		{[]string{"open", "--transport", "nccl", "gfxlink2.AAAA"}, "another protocol version"},
		{[]string{"open", "--transport", "nccl", "--cuda", tok}, "--cuda goes with rings"},
		{[]string{"open", "--transport", "nccl", "--rendezvous", "fs", tok}, "--rendezvous goes with rings"},
		{[]string{"open", "--connect", "unix:/tmp/x.sock", tok}, "--connect goes with --transport nccl"},
		{[]string{"open", "--transport", "nccl", "--connect", "x", tok}, "--connect \"x\""},
		{[]string{"open", tok}, "add --transport nccl"},
	} {
		checkUsageError(t, c.args[0], c.args, c.want)
	}
}

// TestLinkAddr: --listen/--connect parse; the default socket is in the
// directory, the same for the same token on both ends, another for
// another token.
func TestLinkAddr(t *testing.T) {
	for _, c := range []struct{ in, net, addr string }{
		{"unix:/run/x.sock", "unix", "/run/x.sock"},
		{"tcp:10.0.0.2:4000", "tcp", "10.0.0.2:4000"},
		{"tcp::4000", "tcp", ":4000"},
		{"tcp:[::1]:4000", "tcp", "[::1]:4000"},
	} {
		n, a, err := parseLinkAddr(c.in)
		if err != nil || n != c.net || a != c.addr {
			t.Errorf("parseLinkAddr(%q) = %q, %q, %v; want %q, %q", c.in, n, a, err, c.net, c.addr)
		}
	}
	for _, bad := range []string{"", "unix:", "tcp:", "tcp:host", "/run/x.sock", "http:x:1"} {
		if _, _, err := parseLinkAddr(bad); err == nil {
			t.Errorf("parseLinkAddr(%q) accepted", bad)
		}
	}
	t1, t2 := testLinkToken(t, 1, cuda.UUID{}), testLinkToken(t, 2, cuda.UUID{})
	a1 := defaultLinkAddr("/d", t1)
	if !strings.HasPrefix(a1, "unix:/d/link-") || !strings.HasSuffix(a1, ".sock") {
		t.Errorf("default address %q: want unix:/d/link-….sock", a1)
	}
	if defaultLinkAddr("/d", t1+"\n") != a1 {
		t.Error("the default address depends on the token's trailing newline (a token file's)")
	}
	if defaultLinkAddr("/d", t2) == a1 {
		t.Error("two tokens, one default address")
	}
}

// TestNCCLCLIChild runs gfxcuda with GFXCUDA_NCCL_CLI_ARGS (tab-separated)
// and exits with its status: for tests that need a fresh process (NCCL is
// loaded once per process).
func TestNCCLCLIChild(t *testing.T) {
	args := os.Getenv("GFXCUDA_NCCL_CLI_ARGS")
	if args == "" {
		t.Skip("helper process of the NCCL command-line tests")
	}
	os.Exit(run(strings.Split(args, "\t"), os.Stdout, os.Stderr))
}

// nclCLIChild runs gfxcuda args in a child process with env added and
// returns its exit status, stdout and stderr.
func ncclCLIChild(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNCCLCLIChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), "GFXCUDA_NCCL_CLI_ARGS="+strings.Join(args, "\t")), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	rc := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		rc = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return rc, out.String(), errb.String()
}

// TestShareNCCLMissing: with GFXCUDA_NCCL_LIBRARY naming no file, share
// and open --transport nccl fail (exit status 1) with NCCL's error, which
// names what was tried and how to fix it; share prints no token and
// leaves nothing in its directory or at --token-file.
func TestShareNCCLMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "share")
	tf := filepath.Join(t.TempDir(), "token")
	env := []string{nccl.EnvLibrary + "=/nonexistent/libnccl.so.2"}
	for _, args := range [][]string{
		{"share", "--transport", "nccl", "--dir", dir, "--token-file", tf, "--frames", "10", "--width", "64", "--height", "32"},
		{"open", "--transport", "nccl", "--dir", dir, string(testLinkToken(t, 3, cuda.UUID{}))},
	} {
		rc, stdout, stderr := ncclCLIChild(t, env, args...)
		if rc != 1 {
			t.Errorf("gfxcuda %s: exit %d, want 1\n%s%s", strings.Join(args, " "), rc, stdout, stderr)
		}
		first := firstLine(stderr)
		if !strings.HasPrefix(first, "gfxcuda "+args[0]+": nccl:") || !strings.Contains(first, "not found") ||
			!strings.Contains(first, "/nonexistent/libnccl.so.2") || !strings.Contains(first, nccl.EnvLibrary) {
			t.Errorf("gfxcuda %s: %q: want NCCL's error, naming the file tried and %s", args[0], first, nccl.EnvLibrary)
		}
		if strings.Contains(stdout, "gfxlink1.") {
			t.Errorf("gfxcuda %s printed a token without NCCL:\n%s", args[0], stdout)
		}
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		t.Errorf("left in the share directory: %v", ents)
	}
	if _, err := os.Stat(tf); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--token-file: %v, want no file", err)
	}
}

// needNCCL skips without CUDA or NCCL (fails instead under
// GFXCUDA_REQUIRE_CUDA=1: the GPU machine has both) and returns the GPUs.
func needNCCL(t *testing.T) []cuda.Device {
	t.Helper()
	req := os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" || os.Getenv("GFXCUDA_REQUIRE_NCCL") == "1"
	if err := cuda.Init(); err != nil {
		if req {
			t.Fatalf("CUDA required (GFXCUDA_REQUIRE_CUDA=1): %v", err)
		}
		t.Skipf("no CUDA: %v", err)
	}
	if err := nccl.Load(); err != nil {
		if req {
			t.Fatalf("NCCL required (GFXCUDA_REQUIRE_CUDA/NCCL=1): %v", err)
		}
		t.Skipf("no NCCL: %v", err)
	}
	ds, err := cuda.Devices()
	if err != nil || len(ds) == 0 {
		t.Fatalf("CUDA devices: %d, %v", len(ds), err)
	}
	return ds
}

// startShareNCCL runs gfxcuda share args in this process and returns the
// token it printed, and a channel with its exit status and output.
func startShareNCCL(t *testing.T, args ...string) (string, <-chan shareResult) {
	t.Helper()
	pr, pw := io.Pipe()
	var errb strings.Builder
	done := make(chan shareResult, 1)
	go func() {
		rc := runShare(args, pw, &errb)
		pw.Close()
		done <- shareResult{rc: rc, stderr: errb.String()}
	}()
	sc := bufio.NewScanner(pr)
	sc.Buffer(nil, 1<<16)
	re := regexp.MustCompile(`gfxcuda open --transport nccl (?:--connect \S+ )?(gfxlink1\.\S+)`)
	tok := ""
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			tok = m[1]
			break
		}
	}
	if tok == "" {
		r := <-done
		t.Fatalf("gfxcuda share printed no link token (exit %d):\n%s%s", r.rc, out.String(), r.stderr)
	}
	outc := make(chan shareResult, 1)
	go func() {
		rest, _ := io.ReadAll(pr)
		r := <-done
		r.stdout = out.String() + string(rest)
		outc <- r
	}()
	return tok, outc
}

type shareResult struct {
	rc             int
	stderr, stdout string
}

// TestShareNCCLRefusals (one GPU is enough; needs CUDA and NCCL): a
// sender nobody connects to gives up after --timeout (exit status 1,
// saying so) and leaves no socket or token file; a receiver on the
// sender's own GPU refuses at once (NCCL cannot put both ranks on one
// GPU); a receiver with no sender to connect to says so; a sender that
// never speaks ends the receiver's wait after --timeout.
func TestShareNCCLRefusals(t *testing.T) {
	needNCCL(t)
	dir := filepath.Join(t.TempDir(), "s")
	tf := filepath.Join(t.TempDir(), "token")
	t0 := time.Now()
	tok, done := startShareNCCL(t, "--transport", "nccl", "--device", "0", "--dir", dir, "--token-file", tf,
		"--timeout", "4s", "--width", "64", "--height", "32", "--frames", "10")
	if b, err := os.ReadFile(tf); err != nil || strings.TrimSpace(string(b)) != tok {
		t.Errorf("--token-file holds %q (%v), want the token printed", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || !strings.HasSuffix(ents[0].Name(), ".sock") {
		t.Errorf("the share directory holds %v, want the link's socket", ents)
	}
	rc, _, stderr := gfx("open", "--transport", "nccl", "--dir", dir, "--device", "0", tok)
	if rc != 1 || !strings.Contains(stderr, "cannot put both ends of a link on one GPU") {
		t.Errorf("open on the sender's GPU: exit %d, %q; want 1 and a refusal", rc, stderr)
	}
	r := <-done
	el := time.Since(t0)
	if r.rc != 1 || !strings.Contains(r.stderr, "no receiver connected within 4s") || el > 30*time.Second {
		t.Errorf("share with no receiver: exit %d after %v: %q; want 1 after about 4s, saying no receiver connected", r.rc, el, r.stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the share directory: %v", ents)
	}
	if _, err := os.Stat(tf); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--token-file after share ended: %v, want no file", err)
	}

	// No sender: a token of no GPU here (any receiver GPU will do).
	nobody := string(testLinkToken(t, 9, cuda.UUID{}))
	rc, _, stderr = gfx("open", "--transport", "nccl", "--dir", dir, nobody)
	if rc != 1 || !strings.Contains(stderr, "connecting to the sender") || !strings.Contains(stderr, "still running") {
		t.Errorf("open with no sender: exit %d, %q; want 1, saying the sender is not there", rc, stderr)
	}
	// A sender that accepts the connection and never speaks.
	sock := filepath.Join(t.TempDir(), "mute.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	t0 = time.Now()
	rc, _, stderr = gfx("open", "--transport", "nccl", "--connect", "unix:"+sock, "--timeout", "2s", nobody)
	if el := time.Since(t0); rc != 1 || !strings.Contains(stderr, "the sender did not answer or join NCCL within 2s") || !strings.Contains(stderr, "hello") || el > 20*time.Second {
		t.Errorf("open with a mute sender: exit %d after %v, %q; want 1 after about 2s, saying the sender did not answer in time", rc, el, stderr)
	}
}

// TestShareNCCLLoopback (one GPU; needs CUDA and NCCL): gfxcuda share
// --transport nccl --loopback: both ends in one process on one GPU over a
// one-rank communicator, 2,000 1080p RGBA8 frames rendered by Vulkan
// compute, every texel checked by the receiver's CUDA kernel (slots
// poisoned first; the checker shown to fail against a wrong seed, or the
// command fails). The command's own send, receive and check code, as
// share and open run it between two GPUs.
func TestShareNCCLLoopback(t *testing.T) {
	needNCCL(t)
	var out, errb strings.Builder
	rc := runShare([]string{"--transport", "nccl", "--loopback", "--device", "0", "--slots", "8", "--batch", "4", "--frames", "2000"}, &out, &errb)
	t.Logf("share --loopback:\n%s%s", out.String(), errb.String())
	if rc != 0 || !strings.Contains(out.String(), "2000 frames in") ||
		!strings.Contains(out.String(), "sent and received, every texel checked on the GPU, 0 bad texels") {
		t.Fatalf("gfxcuda share --transport nccl --loopback: exit %d, want 0 and 2000 frames checked with 0 bad texels", rc)
	}
}

// TestShareNCCLTwoGPUs (two GPUs; skips with one line below 2): gfxcuda
// share --transport nccl on GPU 0 here, gfxcuda open --transport nccl on
// GPU 1 in another process, 2,000 1080p RGBA8 frames rendered by Vulkan
// compute, every texel of every frame checked by a CUDA kernel on GPU 1
// (slots poisoned first; the checker shown to fail against a wrong seed).
func TestShareNCCLTwoGPUs(t *testing.T) {
	if ds := needNCCL(t); len(ds) < 2 {
		t.Skipf("needs 2 CUDA GPUs, %d visible (the one skip allowed under GFXCUDA_REQUIRE_CUDA=1: run it on a 2-GPU machine)", len(ds))
	}
	const frames = 2000
	dir := filepath.Join(t.TempDir(), "s")
	tok, done := startShareNCCL(t, "--transport", "nccl", "--device", "0", "--dir", dir, "--timeout", "1m",
		"--slots", "8", "--batch", "4", "--frames", strconv.Itoa(frames))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestOpenChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GFXCUDA_OPEN_CHILD="+strings.Join([]string{"--transport", "nccl", "--device", "1", "--dir", dir, tok}, " "))
	out, err := cmd.CombinedOutput()
	t.Logf("open:\n%s", out)
	r := <-done
	t.Logf("share:\n%s%s", r.stdout, r.stderr)
	if err != nil {
		t.Fatalf("gfxcuda open: %v", err)
	}
	if r.rc != 0 || !strings.Contains(r.stdout, "sent 2000 frames in") {
		t.Fatalf("gfxcuda share: exit %d", r.rc)
	}
	if !strings.Contains(string(out), "2000 frames in") || !strings.Contains(string(out), "every texel checked on the GPU, 0 bad texels") {
		t.Fatalf("gfxcuda open did not check 2000 frames with 0 bad texels")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the share directory: %v", ents)
	}
}
