//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// docBlock returns the fenced code block of the documentation file rel
// (from the repository root, or the GPU bundle's copy) whose first line
// starts with first.
func docBlock(t *testing.T, rel, first string) string {
	t.Helper()
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "README.md")); err != nil {
		root = filepath.Join(wd, "testdata", "docroot")
	}
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	var block []string
	in, found := false, false
	for sc.Scan() {
		l := sc.Text()
		if fenceRE.MatchString(l) {
			if found {
				return strings.Join(block, "\n") + "\n"
			}
			in, block = !in, nil
			continue
		}
		if in {
			if len(block) == 0 && strings.HasPrefix(l, first) {
				found = true
			}
			block = append(block, l)
		}
	}
	t.Fatalf("%s has no code block starting with %q", rel, first)
	return ""
}

// TestContainersLayout runs docs/sharing.md's two-container layout without
// Docker, the block starting with D=${D:-, word for word: `gfxcuda share`
// in its own network and PID namespaces (unshare) exporting through a
// shared directory to uid 1000, `gfxcuda open` as uid 1001 (refused, with
// the reason, logged by the exporter) and as uid 1000 (every byte of every
// frame checked), each in its own namespaces. gfxcuda is this test binary
// (TestMain, GFXCUDA_AS_CLI). Needs root, unshare and setpriv.
func TestContainersLayout(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: network and PID namespaces and other uids (the CPU machine and CI run as root)")
	}
	for _, tool := range []string{"unshare", "setpriv", "sh", "install"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here (util-linux): %v", tool, err)
		}
	}
	needVulkan(t)
	if err := exec.Command("unshare", "--net", "--pid", "--fork", "true").Run(); err != nil {
		t.Skipf("unshare cannot create namespaces here: %v", err)
	}
	block := docBlock(t, "docs/sharing.md", "D=${D:-")
	// gfxcuda, runnable by uid 1000 and 1001: a copy of this binary and a
	// wrapper in a directory everyone can enter.
	bin, err := os.MkdirTemp("", "gfxcuda-layout")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(bin)
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "gfxcuda.test")
	wrapper := "#!/bin/sh\nGFXCUDA_AS_CLI=1 exec " + exe + " \"$@\"\n"
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "gfxcuda"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", block)
	cmd.Dir = bin
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "D="+filepath.Join(bin, "demo"),
		"HOME="+bin, "MESA_SHADER_CACHE_DISABLE=true")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the documented layout: %v", err)
	}
	for _, want := range []string{
		"reachable through: abstract socket @gfxcuda/",    // share says how to reach it
		"filesystem socket " + filepath.Join(bin, "demo"), // …through the shared directory
		"uid 1001 (gid 1001) is not allowed",              // the opener's reason
		"uid 1001 refused, as it should be",               //
		"gfxcuda share: refused pid",                      // the exporter's log, with credentials
		"uid 1001 gid 1001 (via filesystem socket",        //
		"3000 checked byte for byte, 0 bad",               // uid 1000 checked every frame
		"produced 3000 frames",                            //
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}
