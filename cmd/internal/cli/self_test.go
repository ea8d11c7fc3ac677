package cli

import (
	"runtime"
	"strings"
	"testing"
)

// TestSelfCommand: the processes of the hidden helper commands (bench's)
// run SetCommand's command with the helper's arguments after its own
// (Python's gfxcuda sets its interpreter with -m gfxcuda: the process's
// executable, python, would not know the helper), and this program by
// default (this test binary, which TestMain runs as gfxcuda for them).
func TestSelfCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hidden helper commands are the share benchmarks' (Linux only); /bin/echo stands in for the interpreter")
	}
	t.Cleanup(func() { SetCommand(nil) })
	SetCommand([]string{"/bin/echo", "-m", "gfxcuda"})
	out, err := shareChild(false, shareOpenChildCmd, "TOKEN", "cuda")
	if err != nil || string(out) != "-m gfxcuda __share-open TOKEN cuda\n" {
		t.Errorf("SetCommand(echo -m gfxcuda): %q, %v; want the helper's arguments after the command's", out, err)
	}
	SetCommand([]string{""})
	if _, err := shareChild(false, shareOpenChildCmd, "TOKEN"); err == nil || !strings.Contains(err.Error(), "names no program") {
		t.Errorf("SetCommand(\"\"): %v, want an error saying it names no program", err)
	}
	SetCommand(nil)
	_, err = shareChild(false, shareOpenChildCmd)
	if err == nil || !strings.Contains(err.Error(), "usage: gfxcuda __share-open TOKEN") {
		t.Errorf("default (this program as gfxcuda): %v, want the helper's usage error", err)
	}
}
