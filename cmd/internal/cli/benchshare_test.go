//go:build linux

package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench"
	"github.com/gfxcuda/gfxcuda/cuda"
)

// TestMain lets `gfxcuda bench`'s hidden child commands run this test
// binary (os.Executable) as gfxcuda, so that the benchmarks that open
// handles in another process run under go test; and the shell commands of
// the documentation run it as gfxcuda.

// TestBenchShareGroups runs the benchmarks of sharing between processes
// (needs CUDA): CUDA IPC's open, the share handles' opens (for CUDA use,
// again with the import reused, as interop resources) and the cross-process
// rings (one in another network namespace when root), quickly; every
// figure is measured and compared with its baseline. The targets (≤ 2×
// CUDA IPC's open for a 256 MiB cuMemCreate buffer, ≤ 1 ms for a 1080p
// texture, ≥ 0.9× the in-process ring) are reported, not enforced: a quick
// run is noisy; `gfxcuda bench --only onetime,ring` measures them.
func TestBenchShareGroups(t *testing.T) {
	if err := cuda.Init(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	dev, err := gfxcuda.Open(gfxcuda.Options{})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no GPU shared by Vulkan and CUDA: %v", err)
	}
	defer dev.Close()
	s := &bench.Suite{D: dev, O: bench.Options{Reps: 3, Frames: 512, Quick: true}}
	for _, f := range []func() error{
		func() error { return s.IPCOpen(ipcChild) },
		func() error { return s.ShareOpen(shareOpenChild) },
		func() error { return s.ShareRing(shareRingChild) },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	s.R.Compare()
	var tab bytes.Buffer
	s.R.WriteTable(&tab)
	t.Log("\n" + tab.String())
	if n := len(s.R.Figures); n != 1+bench.ShareOpenSteps+bench.ShareRingSteps {
		t.Errorf("%d figures, want %d", n, 1+bench.ShareOpenSteps+bench.ShareRingSteps)
	}
	for _, f := range s.R.Figures {
		switch {
		case strings.HasPrefix(f.Note, "not measured"):
			t.Logf("%s: %s", f.Name, f.Note)
		case f.Value <= 0:
			t.Errorf("%s: %v %s", f.Name, f.Value, f.Unit)
		case f.Against != "" && f.Ratio <= 0:
			t.Errorf("%s: not compared with %s", f.Name, f.Against)
		}
		if f.Met != nil && !*f.Met {
			t.Logf("target not met in this quick run: %s: %.3g %s, %.2f× %s (target %.2g×)", f.Name, f.Value, f.Unit, f.Ratio, f.Against, f.Target)
		}
	}
}
