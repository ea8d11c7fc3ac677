package bench

import "testing"

// TestTilesGroup runs the tiles group (quick: 64×64 × 256 and × 1024) on
// the GPU: four figures per case, the learner-mode figure paired with the
// renderer alone (a ratio measured in the same repetitions), the
// conversion against the copy of the same bytes, env-frames/s in the notes.
func TestTilesGroup(t *testing.T) {
	d := openGPU(t)
	s := &Suite{D: d, O: Options{Reps: 3, Quick: true}}
	if err := s.Tiles(); err != nil {
		t.Fatal(err)
	}
	s.R.Compare()
	if len(s.R.Figures) != TilesSteps(true) {
		t.Fatalf("%d figures, want %d", len(s.R.Figures), TilesSteps(true))
	}
	for i, f := range s.R.Figures {
		t.Logf("%s / %s: %.1f %s (%.2f× %s) %s", f.Group, f.Name, f.Value, f.Unit, f.Ratio, f.Against, f.Note)
		if f.Value <= 0 {
			t.Errorf("%q was not measured", f.Name)
		}
		switch i % 4 {
		case 1:
			if !f.Paired || f.Against != "render alone" || f.Ratio <= 0 {
				t.Errorf("the learner figure is not paired with the renderer alone: %+v", f)
			}
		case 3:
			if f.Against != "buffer copy of the same bytes (the bound)" || f.Ratio <= 0 {
				t.Errorf("the conversion is not against the copy: %+v", f)
			}
		}
	}
}
