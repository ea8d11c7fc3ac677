package bench

import (
	"os"
	"testing"

	"github.com/gfxcuda/gfxcuda/nccl"
)

// TestNCCLGroup runs the nccl group (quick): two figures, the link's
// measured against bare ncclSend/ncclRecv in the same repetitions. It
// skips without a GPU or NCCL (fails under GFXCUDA_REQUIRE_CUDA=1: the GPU
// machine has NCCL).
func TestNCCLGroup(t *testing.T) {
	d := openGPU(t)
	if err := nccl.Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" || os.Getenv("GFXCUDA_REQUIRE_NCCL") == "1" {
			t.Fatalf("NCCL required: %v", err)
		}
		t.Skipf("no NCCL: %v", err)
	}
	s := &Suite{D: d, O: Options{Reps: 3, Frames: 512, Quick: true}}
	if err := s.NCCL(); err != nil {
		t.Fatal(err)
	}
	if len(s.R.Figures) != NCCLSteps {
		t.Fatalf("%d figures, want %d", len(s.R.Figures), NCCLSteps)
	}
	bare, link := s.R.Figures[0], s.R.Figures[1]
	if bare.Value <= 0 || link.Value <= 0 || link.Against != bare.Name || link.Ratio <= 0 {
		t.Fatalf("figures %+v, %+v", bare, link)
	}
	t.Logf("%s: %.1f GB/s; %s: %.1f GB/s (%.2f×)", bare.Name, bare.Value, link.Name, link.Value, link.Ratio)
}
