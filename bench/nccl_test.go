package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/nccl"
)

// needNCCL loads NCCL, skipping t without it (failing under
// GFXCUDA_REQUIRE_CUDA=1 or GFXCUDA_REQUIRE_NCCL=1: the GPU machine has it).
func needNCCL(t *testing.T) {
	t.Helper()
	if err := nccl.Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" || os.Getenv("GFXCUDA_REQUIRE_NCCL") == "1" {
			t.Fatalf("NCCL required: %v", err)
		}
		t.Skipf("no NCCL: %v", err)
	}
}

// TestNCCLGroup runs the nccl group (quick): two figures, the link's
// measured against bare ncclSend/ncclRecv in the same repetitions. It
// skips without a GPU or NCCL (fails under GFXCUDA_REQUIRE_CUDA=1: the GPU
// machine has NCCL).
func TestNCCLGroup(t *testing.T) {
	d := openGPU(t)
	needNCCL(t)
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

// ncclPeerEnv carries TestNCCLPeerChild's arguments: GPU UUID (cuda.UUID.String),
// frames, repetitions.
const ncclPeerEnv = "GFXCUDA_BENCH_NCCL_PEER"

// TestNCCLTwoRanksGroup runs the two-rank figure of the NCCL group (the
// receiver on a second GPU in a child process: this test binary as
// TestNCCLPeerChild) and checks that it measured the link beside the bare
// transfers. With fewer than two CUDA GPUs the figure is recorded as not
// measured and the test skips with one line (the one skip allowed under
// GFXCUDA_REQUIRE_CUDA=1).
func TestNCCLTwoRanksGroup(t *testing.T) {
	d := openGPU(t)
	needNCCL(t)
	s := &Suite{D: d, O: Options{Reps: 3, Frames: 512, Quick: true}}
	start := func(ctrl, bare *os.File, gpu cuda.UUID, frames, reps int) (func() error, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNCCLPeerChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", ncclPeerEnv, gpu.String(), frames, reps))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		cmd.ExtraFiles = []*os.File{ctrl, bare}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return cmd.Wait, nil
	}
	if err := s.NCCLTwoRanks(start); err != nil {
		t.Fatal(err)
	}
	if len(s.R.Figures) != NCCLTwoRanksSteps {
		t.Fatalf("%d figures, want %d", len(s.R.Figures), NCCLTwoRanksSteps)
	}
	f := s.R.Figures[0]
	if strings.HasPrefix(f.Note, "not measured") {
		t.Skipf("%s (the one skip allowed under GFXCUDA_REQUIRE_CUDA=1: run it on a 2-GPU machine)", f.Note)
	}
	if f.Value <= 0 || f.Ratio <= 0 || f.Against == "" {
		t.Fatalf("figure %+v", f)
	}
	t.Logf("%s: %.1f GB/s, %.2f× %s (target %.1f)", f.Name, f.Value, f.Ratio, f.Against, f.Target)
}

// TestNCCLPeerChild is TestNCCLTwoRanksGroup's receiving process.
func TestNCCLPeerChild(t *testing.T) {
	arg := os.Getenv(ncclPeerEnv)
	if arg == "" {
		t.Skip("helper process for TestNCCLTwoRanksGroup (set by it)")
	}
	var uuid string
	var frames, reps int
	parts := strings.Split(arg, ",")
	if len(parts) == 3 {
		uuid = parts[0]
		frames, _ = strconv.Atoi(parts[1])
		reps, _ = strconv.Atoi(parts[2])
	}
	u, err := cuda.ParseUUID(uuid)
	if err != nil || frames <= 0 || reps <= 0 {
		t.Fatalf("bad %s=%q", ncclPeerEnv, arg)
	}
	if err := NCCLPeer(os.NewFile(3, "ctrl"), os.NewFile(4, "bare"), u, frames, reps); err != nil {
		t.Fatal(err)
	}
}
