package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/scene"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// tilesCase is one tiled workload: n environments' w×h views per step.
type tilesCase struct{ w, h, n int }

var tilesCases = []tilesCase{{64, 64, 256}, {64, 64, 1024}, {64, 64, 4096}, {64, 64, 8192}, {128, 128, 1024}, {128, 128, 4096}}

// tilesLayout is what the learner reads: [N, 3, H, W] uint8 (the
// observation layout of pixel-based reinforcement learning).
var tilesLayout = tensor.Layout{Planar: true, DType: format.Uint8, Channels: 3}

// tilesPublished are published figures of tiled renderers, printed beside
// ours (they measure whole simulator steps on other GPUs: the claim here
// is only that gfxcuda does not slow a renderer down).
const tilesPublished = "published, whole simulator steps: Isaac Lab 3 ≈ 84k env-frames/s at 64×64 × 4096 (RTX 5090, IsaacLab#7941); " +
	"MuJoCo Warp 49,940 renders/s at 64×64 × 8192 (mujoco_warp#1353); ManiSkill3 30k+ (RTX 4090); Madrona 100k+ on simple scenes"

// TilesSteps is the number of progress steps of Tiles.
func TilesSteps(quick bool) int { return 4 * len(tilesCasesFor(quick)) }

func tilesCasesFor(quick bool) []tilesCase {
	if quick {
		return tilesCases[:2]
	}
	return tilesCases
}

// Tiles measures the tiled workload (bench/scene's renderer drawing n
// environments into one atlas per step) for each case: the renderer
// alone; the renderer with the hand-off and the conversion of every step
// into the learner's [N, 3, H, W] tensor (a learner-mode ring, RecordTiles
// in the producer's submission), run alternately in the same repetitions;
// the conversion alone against a buffer copy of the same bytes.
func (s *Suite) Tiles() error {
	for _, tc := range tilesCasesFor(s.O.Quick) {
		if err := s.tilesCase(tc); err != nil {
			return fmt.Errorf("tiles %dx%d × %d: %w", tc.w, tc.h, tc.n, err)
		}
	}
	return nil
}

func (s *Suite) tilesCase(tc tilesCase) error {
	d := s.D
	vd := d.Vulkan()
	cols := min(tc.n, 16384/tc.w)
	rows := (tc.n + cols - 1) / cols
	atlas, err := vd.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: uint32(cols * tc.w), Height: uint32(rows * tc.h),
		Usage: vulkan.ImageStorage | vulkan.ImageSampled})
	if err != nil {
		return err
	}
	defer atlas.Close()
	r, err := scene.New(vd)
	if err != nil {
		return err
	}
	defer r.Close()
	conv, err := gfxcuda.NewVulkanConverter(vd, tilesLayout)
	if err != nil {
		return err
	}
	defer conv.Close()
	per := tilesLayout.Bytes(uint32(tc.w), uint32(tc.h)) * uint64(tc.n)
	const nslots = 4
	slots := make([]gfxcuda.Resource, nslots)
	for i := range slots {
		b, err := d.NewBuffer(per)
		if err != nil {
			return err
		}
		defer b.Close()
		slots[i] = b
	}
	envs := func(step uint64) scene.Envs {
		return scene.Envs{Time: float32(step%96) * scene.Period / 96, Camera: 0.4, TimeStep: 0.37, CameraStep: 2 * math.Pi / float32(tc.n)}
	}
	steps := max(32, min(512, (1<<24)/(tc.w*tc.h*tc.n)*64))
	if s.O.Quick {
		steps = max(16, steps/4)
	}
	g := fmt.Sprintf("tiles: %d environments × %dx%d per step, one atlas, [N, 3, H, W] uint8 for the learner", tc.n, tc.w, tc.h)
	renderAlone := func() (float64, error) {
		return s.submitSteps(steps, func(c *vulkan.Commands, k int) error {
			return r.RecordTiles(c, atlas, cols, rows, tc.n, envs(uint64(k)))
		})
	}
	withLearner := func() (float64, error) {
		return s.tilesLearner(slots, tc, steps, per, func(c *vulkan.Commands, slot int, step uint64) error {
			if err := r.RecordTiles(c, atlas, cols, rows, tc.n, envs(step)); err != nil {
				return err
			}
			return conv.RecordTiles(c, atlas, cols, rows, tc.n, slots[slot].(*gfxcuda.Buffer).Vulkan(), 0)
		})
	}
	if err := s.figure(g, "render alone", "steps/s", renderAlone, func(f *Figure) {
		f.Note = fmt.Sprintf("%.0f env-frames/s; %s", f.Value*float64(tc.n), tilesPublished)
	}); err != nil {
		return err
	}
	if err := s.paired(g, "render + hand-off + conversion into the learner's tensor (learner mode)", "steps/s", "render alone",
		renderAlone, withLearner, 0.95); err != nil {
		return err
	}
	last := &s.R.Figures[len(s.R.Figures)-1]
	last.Note += fmt.Sprintf("; %.0f env-frames/s", last.Value*float64(tc.n))
	// The conversion alone against a copy of the same bytes (read the
	// atlas's texels, write the tensor).
	moved := uint64(cols*tc.w*rows*tc.h*4) + per // bytes read + written per step
	dst := slots[0].(*gfxcuda.Buffer).Vulkan()
	half := (moved / 2) &^ 3
	cpSrc, err := vd.NewBuffer(vulkan.BufferOptions{Size: half})
	if err != nil {
		return err
	}
	defer cpSrc.Close()
	cpDst, err := vd.NewBuffer(vulkan.BufferOptions{Size: half})
	if err != nil {
		return err
	}
	defer cpDst.Close()
	noise := make([]byte, half) // random bytes: Hopper compresses constant data
	for i := range noise {
		noise[i] = byte(rand.Uint32())
	}
	if err := cpSrc.Upload(0, noise); err != nil {
		return err
	}
	if err := s.figure(g, "buffer copy of the same bytes (the bound)", "GB/s", func() (float64, error) {
		rate, err := s.submitSteps(steps, func(c *vulkan.Commands, _ int) error {
			c.CopyBuffer(cpDst, cpSrc, 0, 0, half)
			return c.Err()
		})
		return rate * float64(2*half) / 1e9, err
	}, nil); err != nil {
		return err
	}
	return s.figure(g, "conversion alone (RecordTiles)", "GB/s", func() (float64, error) {
		rate, err := s.submitSteps(steps, func(c *vulkan.Commands, _ int) error {
			return conv.RecordTiles(c, atlas, cols, rows, tc.n, dst, 0)
		})
		return rate * float64(moved) / 1e9, err
	}, func(f *Figure) {
		f.Against = "buffer copy of the same bytes (the bound)"
		if tc.w == 64 && tc.n == 4096 {
			f.Target = 0.8
		}
	})
}

// submitSteps records steps steps, one per command buffer, up to four in
// flight, and returns steps per second.
func (s *Suite) submitSteps(steps int, record func(c *vulkan.Commands, k int) error) (float64, error) {
	d, err := submitInFlight(s.D.Vulkan(), steps, record)
	if err != nil {
		return 0, err
	}
	return float64(steps) / d.Seconds(), nil
}

// submitInFlight records and submits n command buffers, up to four in
// flight (record fills the k-th), waits for them all, and returns the time
// from the first recording to the last completion.
func submitInFlight(vd *vulkan.Device, n int, record func(c *vulkan.Commands, k int) error) (time.Duration, error) {
	var cmds []*vulkan.Commands
	defer func() {
		for _, c := range cmds {
			c.Close()
		}
	}()
	t0 := time.Now()
	for k := 0; k < n; k++ {
		var c *vulkan.Commands
		if len(cmds) >= 4 {
			c = cmds[k%4]
			if err := c.Wait(-1); err != nil {
				return 0, err
			}
			if err := c.Reset(); err != nil {
				return 0, err
			}
		} else {
			var err error
			if c, err = vd.NewCommands(); err != nil {
				return 0, err
			}
			cmds = append(cmds, c)
		}
		if err := record(c, k); err != nil {
			return 0, err
		}
		if err := c.Submit(vulkan.SubmitOptions{}); err != nil {
			return 0, err
		}
	}
	for _, c := range cmds {
		if err := c.Wait(-1); err != nil {
			return 0, err
		}
	}
	return time.Since(t0), nil
}

// tilesLearner streams steps through a learner-mode ring over slots: the
// producer (record: render + conversion into the slot) on its own
// goroutine, the learner taking the newest step with Next on its own
// stream (no work of its own); steps per second.
func (s *Suite) tilesLearner(slots []gfxcuda.Resource, tc tilesCase, steps int, per uint64,
	record func(c *vulkan.Commands, slot int, step uint64) error) (float64, error) {
	d := s.D
	stream, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return 0, err
	}
	r, err := d.NewRingWith(slots, gfxcuda.RingOptions{HostObserved: true,
		Shape: []int64{int64(tc.n), 3, int64(tc.h), int64(tc.w)}, DType: format.Uint8})
	if err != nil {
		return 0, errors.Join(err, stream.Close())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	t0 := time.Now()
	perr := make(chan error, 1)
	go func() {
		var err error
		for k := 0; k < steps && err == nil; k++ {
			err = r.Produce(ctx, record)
		}
		if err != nil {
			cancel()
		}
		perr <- err
	}()
	var lerr error
	for r.Consumed() < uint64(steps) && lerr == nil {
		if _, lerr = r.Next(ctx, stream); lerr != nil {
			cancel()
		}
	}
	err = errors.Join(<-perr, lerr, r.Close())
	rate := float64(steps) / time.Since(t0).Seconds()
	return rate, errors.Join(err, stream.Close())
}
