package bench

import (
	"fmt"
	"os"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

func openGPU(t testing.TB) *gfxcuda.Device {
	t.Helper()
	on := os.Getenv("GFXCUDA_VALIDATION") != "0"
	d, err := gfxcuda.Open(gfxcuda.Options{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("GPU required: %v", err)
		}
		t.Skipf("no GPU shared by Vulkan and CUDA: %v", err)
	}
	inst := d.Vulkan().Instance()
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Device.Close: %v", err)
		}
		failOnValidation(t, inst)
	})
	return d
}

// failOnValidation fails the test on the validation layer's error messages
// since the last call.
func failOnValidation(t testing.TB, inst *vulkan.Instance) {
	t.Helper()
	if msgs := inst.TakeValidationErrors(); len(msgs) > 0 {
		t.Errorf("%d Vulkan validation errors, first: %s", len(msgs), msgs[0])
	}
}

// TestRingStress streams 100,000 frames through every ring mode and checks
// every texel of every frame on the GPU: a torn, stale, skipped or repeated
// frame has texels that differ from the frame's own pattern.
func TestRingStress(t *testing.T) {
	d := openGPU(t)
	h, err := NewRingHarness(d, 129, 32)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := h.Close(); err != nil {
			t.Error(err)
		}
	}()
	frames := 100000
	if testing.Short() {
		frames = 5000
	}
	cases := []struct {
		name      string
		rc        ringCase
		mode      Mode
		adaptive  bool
		overwrite bool
	}{
		{"copy, 128 slots, batch 32, adaptive consumer", ringCase{128, 32}, CopyMode, true, false},
		{"tensor layout, 128 slots, batch 32, adaptive consumer", ringCase{128, 32}, TensorMode, true, false},
		{"copy, 3 slots, batch 1", ringCase{3, 1}, CopyMode, false, false},
		{"copy, 8 slots, batch 1", ringCase{8, 1}, CopyMode, false, false},
		{"copy, 64 slots, batch 32", ringCase{64, 32}, CopyMode, false, false},
		{"tensor layout, 64 slots, batch 32", ringCase{64, 32}, TensorMode, false, false},
		{"copy, one frame at a time", ringCase{1, 1}, CopyMode, false, false},
		// RingOptions.Overwrite: buffer slots taken back with no acquire.
		{"tensor layout, 64 slots, batch 32, overwrite", ringCase{64, 32}, TensorMode, false, true},
		{"tensor layout, 8 slots, batch 1, overwrite", ringCase{8, 1}, TensorMode, false, true},
	}
	for _, c := range cases {
		n := frames
		if c.rc.batch == 1 && c.rc.slots == 1 && !testing.Short() {
			n = frames / 5 // ~380 µs per frame: 100,000 frames run in the other shapes
		}
		if err := h.ResetErrors(); err != nil {
			t.Fatal(err)
		}
		h.Overwrite = c.overwrite
		fps, err := h.RunRing(c.rc, c.mode, n, true, c.adaptive)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		bad, first, err := h.ReadErrors()
		if err != nil {
			t.Fatal(err)
		}
		failOnValidation(t, d.Vulkan().Instance())
		t.Logf("%s: %d frames verified, %.0f frames/s with verification", c.name, n, fps)
		if bad != 0 {
			t.Errorf("%s: %d wrong texels (first at word %d)", c.name, bad, first)
		}
	}
	// Learner mode (host-observed, Next per step): every frame Next
	// returns is checked on the learner's stream before its slots are
	// released; skipped frames are counted, and returned + skipped must
	// be every frame produced.
	for i, rc := range []ringCase{learnerRing, {6, 2}, {3, 1}, {6, 2}, {4, 1}} {
		h.Overwrite = i >= 3
		name := fmt.Sprintf("learner mode, %d slots, batch %d, overwrite %v", rc.slots, rc.batch, h.Overwrite)
		n := frames
		if rc.batch == 1 && !testing.Short() {
			n = frames / 5
		}
		if err := h.ResetErrors(); err != nil {
			t.Fatal(err)
		}
		res, err := h.RunLearner(rc, n, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bad, first, err := h.ReadErrors()
		if err != nil {
			t.Fatal(err)
		}
		failOnValidation(t, d.Vulkan().Instance())
		t.Logf("%s: %d frames produced, %d returned by Next and verified, %d skipped; %.0f frames/s with verification",
			name, n, res.Returned, res.Skipped, res.FPS)
		if res.Returned+res.Skipped != n || res.Returned == 0 {
			t.Errorf("%s: %d frames returned + %d skipped, want %d in all, some returned", name, res.Returned, res.Skipped, n)
		}
		if bad != 0 {
			t.Errorf("%s: %d wrong texels (first at word %d)", name, bad, first)
		}
	}
}

// TestCheckerCatchesStaleFrames makes sure the verification can fail: a
// frame checked against another frame's seed must be reported.
func TestCheckerCatchesStaleFrames(t *testing.T) {
	d := openGPU(t)
	h, err := NewRingHarness(d, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.RunRing(ringCase{1, 1}, CopyMode, 1, false); err != nil {
		t.Fatal(err)
	}
	if err := h.ResetErrors(); err != nil {
		t.Fatal(err)
	}
	// The tensor holds frame 0; check it as frame 1 (stale) and as frame 0.
	s := d.Stream()
	const n = frameW * frameH
	for _, f := range []uint64{1, 0} {
		if err := h.Checker.Check(s, h.Tensor.Ptr(), uint64(n), testpattern.Seed(f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	bad, _, err := h.ReadErrors()
	if err != nil {
		t.Fatal(err)
	}
	if bad < n-n/1000 || bad > n {
		t.Errorf("stale frame: %d of %d texels flagged", bad, n)
	}
}

// BenchmarkRing32 is the batched ring (64 slots, batch 32, CUDA copies each
// frame) as a Go benchmark; b.N frames.
func BenchmarkRing32(b *testing.B) {
	d := openGPU(b)
	h, err := NewRingHarness(d, 65, 32)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ResetTimer()
	fps, err := h.RunRing(ringCase{64, 32}, CopyMode, max(b.N, 32), false)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(fps, "frames/s")
}

// BenchmarkRingLearner is the learner-mode ring (128 slots, batch 32,
// tensor layout, host-observed hand-off, a learner with no work) as a Go
// benchmark; b.N frames.
func BenchmarkRingLearner(b *testing.B) {
	d := openGPU(b)
	h, err := NewRingHarness(d, learnerRing.slots+1, learnerRing.batch)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ResetTimer()
	res, err := h.RunLearner(learnerRing, max(b.N, 32*learnerRing.batch), false)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.FPS, "frames/s")
	b.ReportMetric(float64(res.Skipped)/float64(res.Returned+res.Skipped), "skipped/frame")
}
