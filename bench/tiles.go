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
	"github.com/gfxcuda/gfxcuda/shader"
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
func TilesSteps(quick bool) int { return tilesFigures * len(tilesCasesFor(quick)) }

// tilesFigures is the number of figures of one tiles case.
const tilesFigures = 13

// tilesBatch is the number of copies or conversions recorded back to back
// in one command buffer when they are measured alone, as CUDA's copies of
// the same bytes are queued back to back on one stream: what is measured
// is the GPU's work, not a submission per copy.
const tilesBatch = 16

// atlasReadGLSL reads every texel of an atlas, 4 of a row per invocation
// with a quad's invocations on 4 consecutive rows, as the tiles
// conversion does, and writes nothing (the condition never holds for
// texels of a UNORM format): what reading the atlas costs alone.
const atlasReadGLSL = `#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform texture2D atlas;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint words[]; };
void main() {
	ivec2 size = textureSize(atlas, 0);
	uint li = gl_LocalInvocationIndex;
	ivec2 p = ivec2((gl_WorkGroupID.x * 64u + (li >> 2)) * 4u, gl_WorkGroupID.y * 4u + (li & 3u));
	if (p.x >= size.x || p.y >= size.y)
		return;
	vec4 s = vec4(0);
	for (int k = 0; k < 4; k++)
		s += texelFetch(atlas, p + ivec2(k, 0), 0);
	if (s.x < -1.0)
		words[gl_GlobalInvocationID.x] = floatBitsToUint(s.y);
}
`

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
// in the producer's submission), after the render and, pipelined, beside
// the next step's render, each run alternately with the renderer alone in
// the same repetitions;
// the conversion alone against the faster of two copies of the same bytes
// (vkCmdCopyBuffer, cuMemcpyDtoD): the device's copy bandwidth.
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
		Usage: vulkan.ImageStorage | vulkan.ImageSampled | vulkan.ImageTransferDst})
	if err != nil {
		return err
	}
	defer atlas.Close()
	// A second atlas for the pipelined producer: step k renders into one
	// while step k-1's views are converted out of the other.
	atlas2, err := vd.NewImage(atlas.Options())
	if err != nil {
		return err
	}
	defer atlas2.Close()
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
	// 8 slots: the producer runs up to 6 steps ahead of the learner's
	// newest, which covers the host's wake-ups at 30 µs steps.
	const nslots = 8
	slots := make([]gfxcuda.Resource, nslots)
	for i := range slots {
		b, err := d.NewBuffer(per)
		if err != nil {
			return err
		}
		defer b.Close()
		slots[i] = b
	}
	envs := func(step uint64) scene.Envs { return tilesEnvs(tc.n, step) }
	// About 2^32 texels per measurement (≈ 70 ms on an H200): at 256
	// views of 64×64 a step takes 30 µs, and 512 steps (15 ms) measured
	// the GPU's clock ramp and the host's wake-ups more than the step
	// (ratios from 0.82 to 0.89 in three runs; 4,096 steps: ±1%).
	steps := max(64, min(4096, (1<<32)/(tc.w*tc.h*tc.n)))
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
	// Pipelined (pipelinedRecord): step k's render beside step k-1's
	// conversion, two atlases.
	pipelined := func() (float64, error) {
		return s.tilesLearner(slots, tc, steps, per, pipelinedRecord([2]*vulkan.Image{atlas, atlas2}, slotBuffer(slots),
			func(c *vulkan.Commands, a *vulkan.Image, step uint64) error {
				return r.RecordTiles(c, a, cols, rows, tc.n, envs(step))
			},
			func(c *vulkan.Commands, a *vulkan.Image, dst *vulkan.Buffer) error {
				return conv.RecordTiles(c, a, cols, rows, tc.n, dst, 0)
			}))
	}
	if err := s.figure(g, "render alone", "steps/s", renderAlone, func(f *Figure) {
		f.Note = fmt.Sprintf("%.0f env-frames/s; %s", f.Value*float64(tc.n), tilesPublished)
	}); err != nil {
		return err
	}
	if err := s.paired(g, "render + hand-off + conversion into the learner's tensor (learner mode)", "steps/s", "render alone",
		renderAlone, withLearner, 0); err != nil {
		return err
	}
	last := &s.R.Figures[len(s.R.Figures)-1]
	last.Note += fmt.Sprintf("; %.0f env-frames/s; the conversion after the render in one submission", last.Value*float64(tc.n))
	if err := s.paired(g, "the same, pipelined: step k's render beside step k-1's conversion (two atlases)", "steps/s", "render alone",
		renderAlone, pipelined, 0.95); err != nil {
		return err
	}
	last = &s.R.Figures[len(s.R.Figures)-1]
	last.Note += fmt.Sprintf("; %.0f env-frames/s; the learner sees each step one step later", last.Value*float64(tc.n))
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
	if err := s.figure(g, "vkCmdCopyBuffer of the same bytes (a bound)", "GB/s", func() (float64, error) {
		rate, err := s.submitBatched(steps, func(c *vulkan.Commands) error {
			c.CopyBuffer(cpDst, cpSrc, 0, 0, half)
			return c.Err()
		})
		return rate * float64(2*half) / 1e9, err
	}, nil); err != nil {
		return err
	}
	vkCopy := s.R.Figures[len(s.R.Figures)-1].Value
	// The device's copy bandwidth, as CUDA's copy engine reaches it: the
	// same bytes, steps copies queued back to back on one stream.
	cctx := d.CUDA()
	ca, err := cctx.Alloc(half)
	if err != nil {
		return err
	}
	defer ca.Close()
	cb, err := cctx.Alloc(half)
	if err != nil {
		return err
	}
	defer cb.Close()
	if err := randomFill(cctx, ca.Ptr(), half); err != nil {
		return err
	}
	cst, err := cctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		return err
	}
	defer cst.Close()
	const cudaCopy = "cuMemcpyDtoD of the same bytes (a bound)"
	if err := s.figure(g, cudaCopy, "GB/s", func() (float64, error) {
		dur, err := eventTimed(cctx, cst, func() error {
			for k := 0; k < steps; k++ {
				if err := cst.CopyDtoD(cb.Ptr(), ca.Ptr(), half); err != nil {
					return err
				}
			}
			return nil
		})
		return float64(steps) * float64(2*half) / dur.Seconds() / 1e9, err
	}, nil); err != nil {
		return err
	}
	// The bound is the faster of the two copies.
	bound := "vkCmdCopyBuffer of the same bytes (a bound)"
	if s.R.Figures[len(s.R.Figures)-1].Value > vkCopy {
		bound = cudaCopy
	}
	// Random texels in the atlas (Hopper compresses memory; a rendered
	// scene has large even areas).
	o := atlas.Options()
	texels := make([]byte, 4*int(o.Width)*int(o.Height))
	for i := range texels {
		texels[i] = byte(rand.Uint32())
	}
	if err := atlas.Upload(vulkan.ImageRegion{Width: o.Width, Height: o.Height}, texels); err != nil {
		return err
	}
	if err := s.conversionAlone(g, "conversion alone (RecordTiles)", tc, steps, moved, bound, func(c *vulkan.Commands) error {
		return conv.RecordTiles(c, atlas, cols, rows, tc.n, dst, 0)
	}); err != nil {
		return err
	}
	// What reading the atlas alone costs: the conversion's share that no
	// copy of a buffer pays (texels go through the texture units).
	m, err := shader.Compile([]byte(atlasReadGLSL), shader.Options{Language: shader.GLSL, Filename: "atlasread.comp", Optimize: true})
	if err != nil {
		return err
	}
	read, err := vd.NewComputePipeline(m)
	if err != nil {
		return err
	}
	defer read.Close()
	convRate := s.R.Figures[len(s.R.Figures)-1].Value
	if err := s.figure(g, "reading the atlas alone (every texel fetched, nothing written)", "GB/s", func() (float64, error) {
		rate, err := s.submitBatched(steps, func(c *vulkan.Commands) error {
			c.Dispatch(read, []vulkan.Binding{{Binding: 0, Image: atlas}, {Binding: 1, Buffer: dst}}, nil, (o.Width/4+63)/64, (o.Height+3)/4, 1)
			return c.Err()
		})
		return rate * float64(len(texels)) / 1e9, err
	}, func(f *Figure) {
		f.Note = fmt.Sprintf("atlas bytes read per second; the conversion alone takes %.2fx the time of this read", (float64(moved)/convRate)/(float64(len(texels))/f.Value))
	}); err != nil {
		return err
	}
	if err := s.tilesBufferAtlas(g, tc, cols, rows, steps, per, moved, bound, r, conv, slots, texels); err != nil {
		return err
	}
	return s.tilesWordsAtlas(g, tc, atlas.Options(), cols, rows, steps, per, moved, bound, r, conv, slots, texels)
}

// tilesWordsAtlas measures the image atlas again, made with R32_UINT among
// its view formats (ImageOptions.ViewFormats), so that RecordTiles reads
// each texel as one word rather than as four floats, four texels a fetch
// (textureGather; the tiles' heights are even): the render alone into
// it (a mutable image might render at another speed), the pipelined
// learner paired with that, and the conversion alone against the bound,
// the atlas holding random texels first.
func (s *Suite) tilesWordsAtlas(g string, tc tilesCase, o vulkan.ImageOptions, cols, rows, steps int, per, moved uint64, bound string,
	r *scene.Renderer, conv *gfxcuda.VulkanConverter, slots []gfxcuda.Resource, texels []byte) error {
	o.ViewFormats = []uint32{uint32(format.R32UInt)}
	return atlasFigures(s, g, tc, steps, per, moved, bound, slots, atlasKind[*vulkan.Image]{
		newAtlas: func() (*vulkan.Image, error) { return s.D.Vulkan().NewImage(o) },
		render: func(c *vulkan.Commands, a *vulkan.Image, e scene.Envs) error {
			return r.RecordTiles(c, a, cols, rows, tc.n, e)
		},
		convert: func(c *vulkan.Commands, a *vulkan.Image, dst *vulkan.Buffer) error {
			return conv.RecordTiles(c, a, cols, rows, tc.n, dst, 0)
		},
		upload: func(a *vulkan.Image) error {
			return a.Upload(vulkan.ImageRegion{Width: o.Width, Height: o.Height}, texels)
		},
		alone:      "render alone into an image atlas viewable as R32_UINT",
		aloneNote:  "ImageOptions.ViewFormats = R32_UINT (a mutable image)",
		pipelined:  "image atlas viewable as R32_UINT, pipelined: step k's render beside step k-1's conversion",
		pipeNote:   "RecordTiles gathering texels as words, four a fetch",
		conversion: "conversion alone from the atlas viewed as R32_UINT (RecordTiles)",
	})
}

// tilesBufferAtlas measures the same workload with the atlas in a buffer
// (the renderer's views written as RGBA8 words, RecordTilesFromBuffer
// reading them without the texture units): the render alone, the
// pipelined learner paired with it, and the conversion alone against the
// bound, the atlas holding texels (random) first.
func (s *Suite) tilesBufferAtlas(g string, tc tilesCase, cols, rows, steps int, per, moved uint64, bound string,
	r *scene.Renderer, conv *gfxcuda.VulkanConverter, slots []gfxcuda.Resource, texels []byte) error {
	W, H := uint32(cols*tc.w), uint32(rows*tc.h)
	return atlasFigures(s, g, tc, steps, per, moved, bound, slots, atlasKind[*vulkan.Buffer]{
		newAtlas: func() (*vulkan.Buffer, error) {
			return s.D.Vulkan().NewBuffer(vulkan.BufferOptions{Size: uint64(len(texels))})
		},
		render: func(c *vulkan.Commands, b *vulkan.Buffer, e scene.Envs) error {
			return r.RecordTilesToBuffer(c, b, W, H, cols, rows, tc.n, e)
		},
		convert: func(c *vulkan.Commands, b *vulkan.Buffer, dst *vulkan.Buffer) error {
			return conv.RecordTilesFromBuffer(c, b, W, H, cols, rows, tc.n, dst, 0)
		},
		upload:     func(b *vulkan.Buffer) error { return b.Upload(0, texels) },
		alone:      "render alone into a buffer atlas",
		aloneNote:  "the same scene written as RGBA8 words",
		pipelined:  "buffer atlas, pipelined: step k's render beside step k-1's conversion",
		pipeNote:   "RecordTilesFromBuffer",
		conversion: "conversion alone from the buffer atlas (RecordTilesFromBuffer)",
	})
}

// atlasKind is one way a renderer may hold its atlas (an image of another
// kind, a buffer) for atlasFigures: how to make one (atlasFigures makes
// two and closes them), how the renderer draws a step into one and the
// converter converts one into a learner slot, how one gets the random
// texels measured alone, and the figures' names.
type atlasKind[A interface{ Close() error }] struct {
	newAtlas                                          func() (A, error)
	render                                            func(c *vulkan.Commands, a A, e scene.Envs) error
	convert                                           func(c *vulkan.Commands, a A, dst *vulkan.Buffer) error
	upload                                            func(a A) error
	alone, aloneNote, pipelined, pipeNote, conversion string
}

// atlasFigures measures one atlas kind: the render alone into its two
// atlases, the pipelined learner paired with that (target 0.95×), and the
// conversion alone against the bound, the first atlas holding random
// texels.
func atlasFigures[A interface{ Close() error }](s *Suite, g string, tc tilesCase, steps int, per, moved uint64, bound string,
	slots []gfxcuda.Resource, k atlasKind[A]) error {
	var atlases [2]A
	for i := range atlases {
		a, err := k.newAtlas()
		if err != nil {
			return err
		}
		defer a.Close()
		atlases[i] = a
	}
	envs := func(step uint64) scene.Envs { return tilesEnvs(tc.n, step) }
	renderAlone := func() (float64, error) {
		return s.submitSteps(steps, func(c *vulkan.Commands, i int) error {
			return k.render(c, atlases[i%2], envs(uint64(i)))
		})
	}
	pipelined := func() (float64, error) {
		return s.tilesLearner(slots, tc, steps, per, pipelinedRecord(atlases, slotBuffer(slots),
			func(c *vulkan.Commands, a A, step uint64) error { return k.render(c, a, envs(step)) }, k.convert))
	}
	if err := s.figure(g, k.alone, "steps/s", renderAlone, func(f *Figure) {
		f.Note = fmt.Sprintf("%.0f env-frames/s; %s", f.Value*float64(tc.n), k.aloneNote)
	}); err != nil {
		return err
	}
	if err := s.paired(g, k.pipelined, "steps/s", k.alone, renderAlone, pipelined, 0.95); err != nil {
		return err
	}
	last := &s.R.Figures[len(s.R.Figures)-1]
	last.Note += fmt.Sprintf("; %.0f env-frames/s; %s", last.Value*float64(tc.n), k.pipeNote)
	if err := k.upload(atlases[0]); err != nil {
		return err
	}
	dst := slots[0].(*gfxcuda.Buffer).Vulkan()
	return s.conversionAlone(g, k.conversion, tc, steps, moved, bound, func(c *vulkan.Commands) error {
		return k.convert(c, atlases[0], dst)
	})
}

// conversionAlone is the figure of a conversion (record) measured alone,
// tilesBatch to a command buffer: bytes moved (read + written) per second,
// against the bound; at 64×64 × 4096 with the target of 0.8×.
func (s *Suite) conversionAlone(g, name string, tc tilesCase, steps int, moved uint64, bound string, record func(c *vulkan.Commands) error) error {
	return s.figure(g, name, "GB/s", func() (float64, error) {
		rate, err := s.submitBatched(steps, record)
		return rate * float64(moved) / 1e9, err
	}, func(f *Figure) {
		f.Against = bound
		if tc.w == 64 && tc.n == 4096 {
			f.Target = 0.8
		}
	})
}

// submitBatched runs steps recordings of record, tilesBatch to a command
// buffer (up to four in flight), and returns recordings per second.
func (s *Suite) submitBatched(steps int, record func(c *vulkan.Commands) error) (float64, error) {
	n := max(1, steps/tilesBatch)
	rate, err := s.submitSteps(n, func(c *vulkan.Commands, _ int) error {
		for j := 0; j < tilesBatch; j++ {
			if err := record(c); err != nil {
				return err
			}
		}
		return nil
	})
	return rate * tilesBatch, err
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

// tilesEnvs are step's n environments: each at its own scene time and
// camera angle, all moving on with the step.
func tilesEnvs(n int, step uint64) scene.Envs {
	return scene.Envs{Time: float32(step%96) * scene.Period / 96, Camera: 0.4, TimeStep: 0.37, CameraStep: 2 * math.Pi / float32(n)}
}

// pipelinedRecord is the pipelined producer's recording over two atlases
// (images or buffers), as a renderer that keeps two records it: step k
// converts step k-1's atlas into its slot and renders step k into the
// other, two dispatches with no dependency between them (the batch
// tracker puts no barrier there), which the GPU may run side by side; step
// 0 renders and converts its own. One step of latency for the learner.
func pipelinedRecord[A any](atlases [2]A, dst func(slot int) *vulkan.Buffer, render func(c *vulkan.Commands, a A, step uint64) error,
	convert func(c *vulkan.Commands, a A, dst *vulkan.Buffer) error) func(c *vulkan.Commands, slot int, step uint64) error {
	return func(c *vulkan.Commands, slot int, step uint64) error {
		cur, prev := atlases[step%2], atlases[(step+1)%2]
		if step == 0 {
			if err := render(c, cur, step); err != nil {
				return err
			}
			prev = cur
		}
		if err := convert(c, prev, dst(slot)); err != nil {
			return err
		}
		if step == 0 {
			return nil
		}
		return render(c, cur, step)
	}
}

// slotBuffer returns the Vulkan buffer of a learner ring's slot.
func slotBuffer(slots []gfxcuda.Resource) func(slot int) *vulkan.Buffer {
	return func(slot int) *vulkan.Buffer { return slots[slot].(*gfxcuda.Buffer).Vulkan() }
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
	// Overwrite: the conversion writes the whole tensor every step, so
	// the slots come back from CUDA without an acquire (BENCHMARKS.md).
	r, err := d.NewRingWith(slots, gfxcuda.RingOptions{HostObserved: true, Overwrite: true,
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
	// Every step is rendered, converted and taken: the time stops here,
	// as the renderer alone's stops when its last step is done, before
	// the ring's Close (which waits for the learner's stream and frees
	// the ring: not part of any step).
	elapsed := time.Since(t0)
	err = errors.Join(<-perr, lerr, r.Close())
	return float64(steps) / elapsed.Seconds(), errors.Join(err, stream.Close())
}
