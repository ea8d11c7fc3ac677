//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// runShareOpen runs `gfxcuda share` here and `gfxcuda open` (args) in
// another process of this test binary, and returns open's output.
func runShareOpen(t *testing.T, shareArgs []string, openArgs ...string) string {
	t.Helper()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runShare(shareArgs, pw, &errb)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	sc.Buffer(nil, 1<<16)
	tok := ""
	re := regexp.MustCompile(`gfxcuda open (gfxcuda[12]\.\S+)`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			tok = m[1]
			break
		}
	}
	if tok == "" {
		t.Fatalf("gfxcuda share printed no token: %s", errb.String())
	}
	go io.Copy(io.Discard, pr)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GFXCUDA_OPEN_CHILD="+strings.Join(append(openArgs, tok), " "))
	out, err := cmd.CombinedOutput()
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("gfxcuda share: rc %d: %s", rc, errb.String())
		}
	case <-time.After(120 * time.Second):
		t.Fatal("gfxcuda share did not end")
	}
	if err != nil {
		t.Fatalf("gfxcuda open: %v\n%s", err, out)
	}
	return string(out)
}

// TestOpenChild runs `gfxcuda open` for runShareOpen.
func TestOpenChild(t *testing.T) {
	args := os.Getenv("GFXCUDA_OPEN_CHILD")
	if args == "" {
		t.Skip("helper process of TestShareOpen")
	}
	rc := run(append([]string{"open"}, strings.Fields(args)...), os.Stdout, os.Stderr)
	if rc != 0 {
		t.Fatalf("gfxcuda open: rc %d", rc)
	}
}

// TestShareOpen: `gfxcuda share` and `gfxcuda open` across two processes,
// with GPU-written textures (Vulkan consumer) and with CPU-written
// buffers; every frame is checked by open.
func TestShareOpen(t *testing.T) {
	if _, d, err := shareDevice(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	} else {
		d.Close()
	}
	out := runShareOpen(t, []string{"--frames", "60", "--width", "96", "--height", "64", "--batch", "3"})
	t.Log(out)
	if !strings.Contains(out, "60 frames in") || !strings.Contains(out, "every texel of 60 checked, 0 bad") {
		t.Errorf("open's output: %s", out)
	}
	out = runShareOpen(t, []string{"--cpu", "--frames", "50", "--size", "4096"})
	if !strings.Contains(out, "50 frames in") || !strings.Contains(out, "50 checked byte for byte, 0 bad") {
		t.Errorf("open's output: %s", out)
	}
}

// TestShareOpenCUDA: the same with `gfxcuda open --cuda` (needs CUDA).
func TestShareOpenCUDA(t *testing.T) {
	if err := cuda.Init(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	out := runShareOpen(t, []string{"--frames", "3000", "--batch", "3"}, "--cuda")
	t.Log(out)
	if !strings.Contains(out, "3000 frames in") || !strings.Contains(out, "every texel checked on the GPU, 0 bad texels") ||
		!strings.Contains(out, "GPU hand-off: true") {
		t.Errorf("open --cuda's output: %s", out)
	}
}
