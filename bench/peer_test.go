package bench

import (
	"strings"
	"testing"
)

// TestPeerGroup runs the peer group (quick): both ends on the suite's GPU
// (always), and across two GPUs when this process sees two (noted, not
// measured, otherwise). Every texel of every frame is checked; each ring
// figure is measured against the bare peer copy in the same repetitions.
func TestPeerGroup(t *testing.T) {
	d := openGPU(t)
	s := &Suite{D: d, O: Options{Reps: 3, Frames: 256, Quick: true}}
	if err := s.Peer(); err != nil {
		t.Fatal(err)
	}
	if len(s.R.Figures) != PeerSteps {
		t.Fatalf("%d figures, want %d", len(s.R.Figures), PeerSteps)
	}
	var bare Figure
	for i, f := range s.R.Figures {
		t.Logf("%s / %s: %.1f %s (%.2f× %s) %s", f.Group, f.Name, f.Value, f.Unit, f.Ratio, f.Against, f.Note)
		measured := f.Value > 0
		switch {
		case !measured && i < PeerSteps/2:
			// Both ends on one GPU: every figure is measured.
			t.Errorf("the one-GPU figure %q was not measured: %s", f.Name, f.Note)
		case !measured:
			// Across two GPUs: not measured only when this process sees
			// one GPU, or for in-place reads the driver refuses.
			if !strings.Contains(f.Note, "sees one CUDA GPU") &&
				!(strings.Contains(f.Name, "access") && strings.Contains(f.Note, "not supported")) {
				t.Errorf("%q was not measured: %s", f.Name, f.Note)
			}
		case strings.HasPrefix(f.Name, "bare"):
			bare = f
		default:
			if f.Against != bare.Name || f.Ratio <= 0 {
				t.Errorf("figure %+v against %q", f, bare.Name)
			}
		}
	}
}
