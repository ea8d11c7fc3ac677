package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestTilesGroup runs the tiles group (quick: 64×64 × 256 and × 1024) on
// the GPU: ten figures per case, the learner-mode figures (the conversion
// after the render, and pipelined beside the next render) paired with the
// renderer alone (a ratio measured in the same repetitions), the
// conversion against the faster of the two copies of the same bytes (the
// Vulkan one and CUDA's), env-frames/s in the notes; then with the atlas
// in a buffer: its render alone, pipelined paired with it, the conversion
// against the same bound.
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
		switch i % tilesFigures {
		case 1, 2:
			if !f.Paired || f.Against != "render alone" || f.Ratio <= 0 {
				t.Errorf("the learner figure is not paired with the renderer alone: %+v", f)
			}
		case 5:
			vk, cu := s.R.Figures[i-2], s.R.Figures[i-1]
			want := vk.Name
			if cu.Value > vk.Value {
				want = cu.Name
			}
			if f.Against != want || f.Ratio <= 0 {
				t.Errorf("the conversion is not against the faster copy (%s %.1f, %s %.1f): %+v", vk.Name, vk.Value, cu.Name, cu.Value, f)
			}
		case 6:
			if !strings.HasPrefix(f.Name, "reading the atlas alone") || !strings.Contains(f.Note, "the conversion alone takes") {
				t.Errorf("figure %d is not the atlas read with the conversion's share: %+v", i, f)
			}
		case 8:
			if !f.Paired || f.Against != "render alone into a buffer atlas" || f.Ratio <= 0 {
				t.Errorf("the buffer atlas's pipelined figure is not paired with its render alone: %+v", f)
			}
		case 9:
			if f.Against != s.R.Figures[i-4].Against || f.Ratio <= 0 {
				t.Errorf("the buffer atlas's conversion is not against the image's bound (%s): %+v", s.R.Figures[i-4].Against, f)
			}
		case 11:
			if !f.Paired || f.Against != "render alone into an image atlas viewable as R32_UINT" || f.Ratio <= 0 {
				t.Errorf("the R32_UINT-viewable atlas's pipelined figure is not paired with its render alone: %+v", f)
			}
		case 12:
			if !strings.Contains(f.Name, "viewed as R32_UINT") || f.Against != s.R.Figures[i-7].Against || f.Ratio <= 0 {
				t.Errorf("the R32_UINT view's conversion is not against the image's bound (%s): %+v", s.R.Figures[i-7].Against, f)
			}
		}
	}
}

// TestPipelinedRecord: the pipelined producer's order over two atlases,
// without a GPU: step 0 renders atlas 0 and converts it into its slot;
// step k converts step k-1's atlas (the other one) into slot k, then
// renders step k into atlas k % 2.
func TestPipelinedRecord(t *testing.T) {
	var log []string
	dst := func(slot int) *vulkan.Buffer { log = append(log, fmt.Sprintf("slot %d", slot)); return nil }
	rec := pipelinedRecord([2]string{"A", "B"}, dst,
		func(_ *vulkan.Commands, a string, step uint64) error {
			log = append(log, fmt.Sprintf("render %d into %s", step, a))
			return nil
		},
		func(_ *vulkan.Commands, a string, _ *vulkan.Buffer) error {
			log = append(log, "convert "+a)
			return nil
		})
	for step := uint64(0); step < 3; step++ {
		if err := rec(nil, int(step%2), step); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"render 0 into A", "slot 0", "convert A", "slot 1", "convert A", "render 1 into B", "slot 0", "convert B", "render 2 into A"}
	if !slices.Equal(log, want) {
		t.Errorf("recorded\n%q\nwant\n%q", log, want)
	}
}
