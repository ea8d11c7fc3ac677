package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench"
	"github.com/gfxcuda/gfxcuda/nccl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

const benchAbout = `Measures copies and hand-offs between Vulkan and CUDA on this GPU (copy
bandwidth, texture to tensor, latency, OpenGL, frame rings, one-time costs,
the NCCL link when NCCL is installed, rings across two GPUs of the host)
and compushady's compute work, each figure next to the bounds and baselines
measured in the same run, and prints a table (or JSON, or a PNG chart).
Every group but compute needs Vulkan and CUDA on one GPU; --only compute
runs on any Vulkan device, lavapipe included. Reference figures measured on
other hardware are shown as references, never as targets met or not.`

// The ranges of --reps and --frames: a repetition at least (the median of
// one), frames enough for the paths that time batches of 8, and no more
// than a run could end in.
const (
	minReps, maxReps     = 1, 1000
	minFrames, maxFrames = 8, 1 << 20
)

// benchGroups are the groups --only takes, in the order they run.
var benchGroups = []string{"copy", "texture", "latency", "gl", "ring", "onetime", "nccl", "peer", "tiles", "compute"}

func runBench(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("bench", benchAbout, stdout, stderr)
	fs := cl.fs
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	pngPath := fs.String("png", "", "also draw a chart to this PNG `FILE`")
	jsonPath := fs.String("json-out", "", "also write the JSON report to this `FILE`")
	quick := fs.Bool("quick", false, "fewer cases and repetitions (a smoke test, not for publishing)")
	reps := fs.Int("reps", 15, fmt.Sprintf("repetitions per figure, %d to %d (the median is reported; --quick: 3)", minReps, maxReps))
	frames := fs.Int("frames", 4096, fmt.Sprintf("frames per throughput repetition, %d to %d (--quick: 512)", minFrames, maxFrames))
	only := fs.String("only", "", "comma-separated `GROUPS` to run: "+strings.Join(benchGroups, ",")+" (default all; compute needs Vulkan only)")
	if _, code, ok := cl.parse(args); !ok {
		return code
	}
	if *reps < minReps || *reps > maxReps {
		return cl.fail("--reps %d: give %d to %d repetitions per figure", *reps, minReps, maxReps)
	}
	if *frames < minFrames || *frames > maxFrames {
		return cl.fail("--frames %d: give %d to %d frames per repetition (the GPU paths time batches of 8)", *frames, minFrames, maxFrames)
	}
	if *quick {
		// --quick's counts, unless given.
		if !flagGiven(fs, "reps") {
			*reps = 3
		}
		if !flagGiven(fs, "frames") {
			*frames = 512
		}
	}
	want := map[string]bool{}
	for _, k := range strings.Split(*only, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		if !slices.Contains(benchGroups, k) {
			return cl.fail("--only: unknown group %q; groups are %s%s", k, strings.Join(benchGroups, ", "), didYouMean(k, benchGroups, ""))
		}
		want[k] = true
	}
	for _, o := range []struct{ flag, path string }{{"--png", *pngPath}, {"--json-out", *jsonPath}} {
		if o.path == "" {
			continue
		}
		if ext := filepath.Ext(o.path); o.flag == "--png" && !strings.EqualFold(ext, ".png") {
			return cl.fail("--png %s: the chart is a PNG; give a file name ending in .png, such as %s", o.path, strings.TrimSuffix(o.path, ext)+".png")
		}
		if err := checkOutput(o.path); err != nil {
			return cl.fail("%s %s: %v", o.flag, o.path, err)
		}
	}
	s := &bench.Suite{O: bench.Options{Reps: *reps, Frames: *frames, Quick: *quick}}
	if len(want) != 1 || !want["compute"] {
		// Every group but compute needs Vulkan and CUDA on one GPU.
		dev, err := gfxcuda.Open(gfxcuda.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "gfxcuda bench: %v\n", err)
			if len(want) == 0 {
				fmt.Fprintln(stderr, "gfxcuda bench: (--only compute runs on Vulkan alone)")
			}
			return 1
		}
		defer dev.Close()
		s.D = dev
		s.R.Device = dev.Vulkan().Physical().Name
		if m := validationWarning(dev.Vulkan().Instance()); m != "" {
			s.R.Warnings = append(s.R.Warnings, m)
			fmt.Fprintf(stderr, "gfxcuda bench: warning: %s\n", m)
		}
	}
	s.R.Date = time.Now()
	s.R.Command = "gfxcuda bench " + strings.Join(args, " ")
	steps := []struct {
		key string
		n   int
		run func() error
	}{
		{"copy", 3, s.CopyBandwidth},
		{"texture", 12, s.TextureToTensor},
		{"latency", 2, s.Latency},
		{"gl", 3, s.GLBaseline},
		{"gl", bench.GLFrameSteps, s.GLFrames},
		{"ring", bench.RingSteps(*quick), s.Rings},
		{"onetime", 1, s.OneTime},
		{"onetime", 1, func() error { return s.IPCOpen(ipcChild) }},
		{"onetime", bench.ShareOpenSteps, func() error { return s.ShareOpen(shareOpenChild) }},
		{"ring", bench.ShareRingSteps, func() error { return s.ShareRing(shareRingChild) }},
		{"nccl", bench.NCCLSteps, s.NCCL},
		{"nccl", bench.NCCLTwoRanksSteps, func() error { return s.NCCLTwoRanks(ncclPeer) }},
		{"peer", bench.PeerSteps, s.Peer},
		{"tiles", bench.TilesSteps(*quick), s.Tiles},
		{"compute", bench.ComputeSteps, s.Compute},
	}
	total := 0
	for _, st := range steps {
		if len(want) == 0 || want[st.key] {
			total += st.n
		}
	}
	s.Progress = bench.NewProgress(stderr, total)
	failed := false
	for _, st := range steps {
		if len(want) > 0 && !want[st.key] {
			continue
		}
		if err := st.run(); err != nil {
			if st.key == "nccl" && !want["nccl"] && errors.Is(err, nccl.ErrNotFound) {
				// NCCL is optional: measured when installed or asked for.
				fmt.Fprintf(stderr, "\ngfxcuda bench: nccl: skipped: %v\n", err)
				continue
			}
			fmt.Fprintf(stderr, "\ngfxcuda bench: %s: %v\n", st.key, err)
			failed = true
		}
	}
	s.Progress.Finish()
	s.R.Compare()
	if *asJSON {
		s.R.WriteJSON(stdout)
	} else {
		s.R.WriteTable(stdout)
	}
	if *jsonPath != "" {
		f, err := os.Create(*jsonPath)
		if err == nil {
			err = s.R.WriteJSON(f)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			fmt.Fprintf(stderr, "gfxcuda bench: %v\n", err)
			failed = true
		}
	}
	if *pngPath != "" {
		f, err := os.Create(*pngPath)
		if err == nil {
			err = s.R.WritePNG(f)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			fmt.Fprintf(stderr, "gfxcuda bench: chart: %v\n", err)
			failed = true
		}
	}
	if failed {
		return 1
	}
	return 0
}

// validationWarning is the bench's warning when it runs with the Vulkan
// validation layer on (GFXCUDA_VALIDATION): the layer checks every Vulkan
// call on the host, which small steps pay in full (on the H200 the tiles
// group's 256-view ratios fell to 0.67–0.84 with it, from 0.89).
func validationWarning(in *vulkan.Instance) string {
	if in == nil || !in.ValidationEnabled() {
		return ""
	}
	return "the Vulkan validation layer is on (" + vulkan.ValidationEnv + "): it checks every Vulkan call on the host, " +
		"so the figures measure it too (most of all small steps); unset " + vulkan.ValidationEnv + " to measure gfxcuda"
}
