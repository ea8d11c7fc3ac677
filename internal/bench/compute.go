package bench

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/binary"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ComputeGroup is the group of the compute figures: the work compushady's
// users do, as issue 9's table lists it.
const ComputeGroup = "compute: compushady's work"

// ComputeBoundsGroup holds the bounds measured in the same run.
const ComputeBoundsGroup = "compute: bounds (same run)"

// ComputeRefGroup holds compushady's figures, read from data/compushady-h100.tsv.
const ComputeRefGroup = "compute: compushady on the H100 (reference, not measured here)"

//go:embed data/compushady-h100.tsv
var compushadyTSV string

// Reference is one of compushady's figures.
type Reference struct {
	Key, Unit, Line string
	Value           float64
}

// CompushadyReference parses the embedded reference figures
// (data/compushady-h100.tsv, whose header says where they come from).
func CompushadyReference() (map[string]Reference, error) {
	out := map[string]Reference{}
	sc := bufio.NewScanner(strings.NewReader(compushadyTSV))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("compushady-h100.tsv:%d: want 4 tab-separated fields", n)
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, fmt.Errorf("compushady-h100.tsv:%d: %w", n, err)
		}
		out[f[0]] = Reference{Key: f[0], Value: v, Unit: f[2], Line: f[3]}
	}
	return out, nil
}

// ComputeSteps is the number of progress steps of Compute.
const ComputeSteps = 18

const (
	computeBytes   = 64 << 20
	computeTexW    = 1920
	computeTexH    = 1080
	dispatchInARow = 1000
)

// counterShader adds 1 per thread to a counter: 8 per dispatch(1,1,1), as
// in compushady's benchmark.
const counterShader = `RWStructuredBuffer<uint> counter : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { InterlockedAdd(counter[0], 1); }`

// Compute measures issue 9's table on a compute.Device (the best device,
// or GFXCUDA_DEVICE): waited and batched dispatches, 64 MiB uploads and
// readbacks, a 1080p RGBA8 texture round trip and HLSL compiles, on random
// data with every result compared, next to compushady's figures and the
// bounds measured in the same run (host memcpy, the device's DMA rate, an
// empty submit + wait).
func (s *Suite) Compute() error {
	refs, err := CompushadyReference()
	if err != nil {
		return err
	}
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	if s.R.Device == "" {
		s.R.Device = dev.Info().Name
	}
	c := &computeBench{s: s, d: dev, refs: refs, seed: uint64(time.Now().UnixNano())}
	return c.run()
}

type computeBench struct {
	s    *Suite
	d    *compute.Device
	refs map[string]Reference
	seed uint64
	figs map[string]float64 // measured values by name
}

func (c *computeBench) next() uint64 { c.seed++; return c.seed }

// fig measures one figure and remembers its value.
func (c *computeBench) fig(group, name, unit string, fn func() (float64, error), mod func(*Figure)) error {
	if err := c.s.figure(group, name, unit, fn, mod); err != nil {
		return err
	}
	c.figs[name] = c.s.R.Figures[len(c.s.R.Figures)-1].Value
	return nil
}

// gbps is bytes per second in GB/s.
func gbps(n int, d time.Duration) float64 { return float64(n) / d.Seconds() / 1e9 }

func (c *computeBench) run() error {
	c.figs = map[string]float64{}
	d, s := c.d, c.s
	// Reference column.
	for _, k := range []struct{ key, name string }{
		{"dispatch-waited", "compushady: dispatch(1,1,1) waited"},
		{"upload-64MiB", "compushady: upload 64 MiB"},
		{"readback-new-64MiB", "compushady: readback 64 MiB into new bytes"},
		{"readback-into-64MiB", "compushady: readback 64 MiB into a preallocated slice"},
		{"texture-1080p", "compushady: 1080p RGBA8 texture upload + readback"},
		{"hlsl-compile", "compushady: HLSL compile (glslangValidator process)"},
	} {
		r, ok := c.refs[k.key]
		if !ok {
			return fmt.Errorf("compushady-h100.tsv lacks %s", k.key)
		}
		s.add(Figure{Group: ComputeRefGroup, Name: k.name, Value: r.Value, Unit: r.Unit, Reps: 1,
			Note: "from /work/shared/peers/compushady-h100.txt: " + r.Line})
	}

	// Bounds first: they explain the figures after them.
	src := randomBytes(computeBytes, c.next())
	dst := make([]byte, computeBytes)
	if err := c.fig(ComputeBoundsGroup, "host memcpy 64 MiB, one goroutine", "GB/s", func() (float64, error) {
		t := time.Now()
		copy(dst, src)
		return gbps(computeBytes, time.Since(t)), nil
	}, nil); err != nil {
		return err
	}
	if err := c.fig(ComputeBoundsGroup, "host memcpy 64 MiB, parallel", "GB/s", func() (float64, error) {
		t := time.Now()
		vulkan.ParallelCopy(dst, src)
		return gbps(computeBytes, time.Since(t)), nil
	}, func(f *Figure) {
		f.Note = fmt.Sprintf("up to %d goroutines, as staged transfers copy", min(runtime.GOMAXPROCS(0), 8))
	}); err != nil {
		return err
	}
	if err := c.fig(ComputeBoundsGroup, "host memcpy 64 MiB into new bytes, parallel", "GB/s", func() (float64, error) {
		t := time.Now()
		out := make([]byte, computeBytes)
		vulkan.ParallelCopy(out, src)
		el := time.Since(t)
		if out[computeBytes-1] != src[computeBytes-1] {
			return 0, fmt.Errorf("copy differs")
		}
		return gbps(computeBytes, el), nil
	}, func(f *Figure) { f.Note = "fresh memory: page faults on first touch" }); err != nil {
		return err
	}
	// The device's DMA rate: upload-heap → device-local and back.
	stUp, err := d.Buffer(computeBytes, compute.HeapUpload)
	if err != nil {
		return err
	}
	defer stUp.Close()
	stDown, err := d.Buffer(computeBytes, compute.HeapReadback)
	if err != nil {
		return err
	}
	defer stDown.Close()
	local, err := d.Buffer(computeBytes, compute.HeapDefault)
	if err != nil {
		return err
	}
	defer local.Close()
	if err := stUp.Upload(src); err != nil {
		return err
	}
	batch, err := d.NewBatch()
	if err != nil {
		return err
	}
	defer batch.Close()
	copyRate := func(dstB, srcB *compute.Buffer) func() (float64, error) {
		return func() (float64, error) {
			if err := batch.Reset(); err != nil {
				return 0, err
			}
			batch.CopyBuffer(dstB, srcB, 0, 0, computeBytes)
			t := time.Now()
			if err := batch.Run(); err != nil {
				return 0, err
			}
			return gbps(computeBytes, time.Since(t)), nil
		}
	}
	if err := c.fig(ComputeBoundsGroup, "DMA upload heap → device-local, 64 MiB", "GB/s", copyRate(local, stUp), nil); err != nil {
		return err
	}
	if err := c.fig(ComputeBoundsGroup, "DMA device-local → readback heap, 64 MiB", "GB/s", copyRate(stDown, local), nil); err != nil {
		return err
	}
	if err := stDown.ReadbackInto(dst); err != nil || !bytes.Equal(dst, src) {
		return fmt.Errorf("DMA copies: bytes differ (%v)", err)
	}
	if err := c.fig(ComputeBoundsGroup, "empty submit + wait", "µs", func() (float64, error) {
		if err := batch.Reset(); err != nil {
			return 0, err
		}
		t := time.Now()
		if err := batch.Run(); err != nil {
			return 0, err
		}
		return float64(time.Since(t).Nanoseconds()) / 1e3, nil
	}, nil); err != nil {
		return err
	}

	// Dispatches.
	k, err := d.Compile([]byte(counterShader), shader.Options{Filename: "counter.hlsl"})
	if err != nil {
		return err
	}
	defer k.Close()
	counter, err := d.Buffer(4, compute.HeapDefault)
	if err != nil {
		return err
	}
	defer counter.Close()
	word := make([]byte, 4)
	checkCounter := func(start uint32, n int) error {
		if err := counter.ReadbackInto(word); err != nil {
			return err
		}
		if got, want := binary.LittleEndian.Uint32(word), start+uint32(8*n); got != want {
			return fmt.Errorf("counter %d after %d dispatches from %d, want %d", got, n, start, want)
		}
		return nil
	}
	setCounter := func() (uint32, error) {
		v := uint32(c.next())
		binary.LittleEndian.PutUint32(word, v)
		return v, counter.Upload(word)
	}
	uav := compute.UAV(0, counter)
	if err := c.fig(ComputeGroup, "dispatch(1,1,1) waited, 1000 in a row", "µs", func() (float64, error) {
		start, err := setCounter()
		if err != nil {
			return 0, err
		}
		t := time.Now()
		for range dispatchInARow {
			if err := k.Dispatch(1, 1, 1, uav); err != nil {
				return 0, err
			}
		}
		el := time.Since(t)
		return float64(el.Nanoseconds()) / 1e3 / dispatchInARow, checkCounter(start, dispatchInARow)
	}, func(f *Figure) {
		f.Against, f.Target = "compushady: dispatch(1,1,1) waited", 50.8/40
	}); err != nil {
		return err
	}
	if err := c.fig(ComputeGroup, "1000 dispatches in one batch", "µs", func() (float64, error) {
		start, err := setCounter()
		if err != nil {
			return 0, err
		}
		if err := batch.Reset(); err != nil {
			return 0, err
		}
		t := time.Now()
		for range dispatchInARow {
			batch.Dispatch(k, 1, 1, 1, uav)
		}
		if err := batch.Run(); err != nil {
			return 0, err
		}
		el := time.Since(t)
		return float64(el.Nanoseconds()) / 1e3 / dispatchInARow, checkCounter(start, dispatchInARow)
	}, func(f *Figure) { f.Note = "each; recorded and run" }); err != nil {
		return err
	}
	// The batch's two parts, as bounds: recording on the host, and running
	// the recorded batch again as it is (one submit + wait, then the
	// device's own time for the dispatches and the barriers between them:
	// each writes the counter).
	if err := c.fig(ComputeBoundsGroup, "1000 dispatches in one batch: host recording", "µs", func() (float64, error) {
		start, err := setCounter()
		if err != nil {
			return 0, err
		}
		if err := batch.Reset(); err != nil {
			return 0, err
		}
		t := time.Now()
		for range dispatchInARow {
			batch.Dispatch(k, 1, 1, 1, uav)
		}
		if err := batch.Err(); err != nil {
			return 0, err
		}
		el := time.Since(t)
		if err := batch.Run(); err != nil {
			return 0, err
		}
		return float64(el.Nanoseconds()) / 1e3 / dispatchInARow, checkCounter(start, dispatchInARow)
	}, func(f *Figure) { f.Note = "each" }); err != nil {
		return err
	}
	if err := c.fig(ComputeBoundsGroup, "1000 dispatches in one batch: run again as recorded", "µs", func() (float64, error) {
		start, err := setCounter()
		if err != nil {
			return 0, err
		}
		if err := batch.Reset(); err != nil {
			return 0, err
		}
		for range dispatchInARow {
			batch.Dispatch(k, 1, 1, 1, uav)
		}
		if err := batch.Run(); err != nil {
			return 0, err
		}
		if err := batch.Commands().Reuse(); err != nil {
			return 0, err
		}
		t := time.Now()
		if err := batch.Run(); err != nil {
			return 0, err
		}
		el := time.Since(t)
		return float64(el.Nanoseconds()) / 1e3 / dispatchInARow, checkCounter(start, 2*dispatchInARow)
	}, func(f *Figure) {
		f.Note = "each; the device's time (with a barrier between dispatches) plus one submit + wait"
	}); err != nil {
		return err
	}

	// 64 MiB transfers through Upload and Readback (random data each time),
	// first as they run by default (the caller's page-aligned memory
	// imported), then through the staging rings alone.
	data := [2][]byte{src, randomBytes(computeBytes, c.next())}
	round := 0
	if err := c.fig(ComputeGroup, "upload 64 MiB to device memory", "GB/s", func() (float64, error) {
		round++
		t := time.Now()
		if err := local.Upload(data[round%2]); err != nil {
			return 0, err
		}
		el := time.Since(t)
		if err := local.ReadbackInto(dst); err != nil {
			return 0, err
		}
		if !bytes.Equal(dst, data[round%2]) {
			return 0, fmt.Errorf("upload: bytes differ")
		}
		return gbps(computeBytes, el), nil
	}, func(f *Figure) { f.Against, f.Target = "compushady: upload 64 MiB", 2 }); err != nil {
		return err
	}
	if err := c.fig(ComputeGroup, "readback 64 MiB into new bytes", "GB/s", func() (float64, error) {
		round++
		if err := local.Upload(data[round%2]); err != nil {
			return 0, err
		}
		t := time.Now()
		out, err := local.Readback()
		el := time.Since(t)
		if err != nil {
			return 0, err
		}
		if !bytes.Equal(out, data[round%2]) {
			return 0, fmt.Errorf("readback: bytes differ")
		}
		return gbps(computeBytes, el), nil
	}, func(f *Figure) { f.Against, f.Target = "compushady: readback 64 MiB into new bytes", 2 }); err != nil {
		return err
	}
	if err := c.fig(ComputeGroup, "readback 64 MiB into a preallocated slice", "GB/s", func() (float64, error) {
		round++
		if err := local.Upload(data[round%2]); err != nil {
			return 0, err
		}
		t := time.Now()
		err := local.ReadbackInto(dst)
		el := time.Since(t)
		if err != nil {
			return 0, err
		}
		if !bytes.Equal(dst, data[round%2]) {
			return 0, fmt.Errorf("readback: bytes differ")
		}
		return gbps(computeBytes, el), nil
	}, func(f *Figure) { f.Against, f.Target = "compushady: readback 64 MiB into a preallocated slice", 2 }); err != nil {
		return err
	}

	// 1080p RGBA8 texture upload + readback.
	tex, err := d.Texture2D(computeTexW, computeTexH, format.RGBA8UNorm)
	if err != nil {
		return err
	}
	defer tex.Close()
	frames := [2][]byte{randomBytes(int(tex.Size()), c.next()), randomBytes(int(tex.Size()), c.next())}
	back := make([]byte, tex.Size())
	if err := c.fig(ComputeGroup, "1080p RGBA8 texture upload + readback", "ms", func() (float64, error) {
		round++
		t := time.Now()
		if err := tex.Upload(frames[round%2]); err != nil {
			return 0, err
		}
		if err := tex.ReadbackInto(back); err != nil {
			return 0, err
		}
		el := time.Since(t)
		if !bytes.Equal(back, frames[round%2]) {
			return 0, fmt.Errorf("texture round trip: bytes differ")
		}
		return float64(el.Nanoseconds()) / 1e6, nil
	}, func(f *Figure) {
		f.Against, f.Target = "compushady: 1080p RGBA8 texture upload + readback", 2.002/0.5
		f.Note = "per frame"
	}); err != nil {
		return err
	}

	// The same through the staging rings only (pipelined, parallel copies).
	d.Vulkan().SetTransferMode(vulkan.TransferStaged)
	staged := func(name string, fn func() error, n int) error {
		return c.fig(ComputeGroup, name, "GB/s", func() (float64, error) {
			round++
			t := time.Now()
			if err := fn(); err != nil {
				return 0, err
			}
			return gbps(n, time.Since(t)), nil
		}, func(f *Figure) { f.Note = "TransferStaged: no host import" })
	}
	if err := staged("upload 64 MiB, staged", func() error { return local.Upload(data[round%2]) }, computeBytes); err != nil {
		return err
	}
	want := data[round%2] // what the last staged upload wrote
	if err := local.ReadbackInto(dst); err != nil || !bytes.Equal(dst, want) {
		return fmt.Errorf("staged upload: bytes differ (%v)", err)
	}
	if err := staged("readback 64 MiB into a preallocated slice, staged", func() error {
		clear(dst)
		if err := local.ReadbackInto(dst); err != nil {
			return err
		}
		if !bytes.Equal(dst, want) {
			return fmt.Errorf("staged readback: bytes differ")
		}
		return nil
	}, computeBytes); err != nil {
		return err
	}
	d.Vulkan().SetTransferMode(vulkan.TransferAuto)

	// HLSL compile: in process (cache off) and cached.
	n := 0
	compileSrc := func() []byte {
		n++
		return []byte(fmt.Sprintf("// variant %d %d\n%s", c.seed, n, counterShader))
	}
	if err := c.fig(ComputeGroup, "HLSL compile, in process", "ms", func() (float64, error) {
		t := time.Now()
		m, err := shader.Compile(compileSrc(), shader.Options{Filename: "counter.hlsl", NoCache: true})
		el := time.Since(t)
		if err == nil && len(m.Resources) != 1 {
			err = fmt.Errorf("compiled module has %d resources", len(m.Resources))
		}
		return float64(el.Nanoseconds()) / 1e6, err
	}, func(f *Figure) { f.Against = "compushady: HLSL compile (glslangValidator process)" }); err != nil {
		return err
	}
	cached := []byte(counterShader)
	if _, err := shader.Compile(cached, shader.Options{Filename: "counter.hlsl"}); err != nil {
		return err
	}
	if err := c.fig(ComputeGroup, "HLSL compile, cached", "ms", func() (float64, error) {
		t := time.Now()
		m, err := shader.Compile(cached, shader.Options{Filename: "counter.hlsl"})
		el := time.Since(t)
		if err == nil && !m.Cached {
			err = fmt.Errorf("the second compile was not cached (is GFXCUDA_SHADER_CACHE=off?)")
		}
		return float64(el.Nanoseconds()) / 1e6, err
	}, func(f *Figure) { f.Against = "compushady: HLSL compile (glslangValidator process)" }); err != nil {
		return err
	}
	c.targets()
	return nil
}

// targets writes issue 9's absolute targets into the notes, met or not,
// with the measured bound that stops a target not met.
func (c *computeBench) targets() {
	f := c.figs
	memcpy := f["host memcpy 64 MiB, parallel"]
	fresh := f["host memcpy 64 MiB into new bytes, parallel"]
	dmaUp, dmaDown := f["DMA upload heap → device-local, 64 MiB"], f["DMA device-local → readback heap, 64 MiB"]
	empty := f["empty submit + wait"]
	rec, rerun := f["1000 dispatches in one batch: host recording"], f["1000 dispatches in one batch: run again as recorded"]
	type tgt struct {
		name  string
		goal  float64
		lower bool // a time: lower is better
		bound string
	}
	for _, t := range []tgt{
		{"dispatch(1,1,1) waited, 1000 in a row", 40, true, fmt.Sprintf("bound: an empty submit + wait takes %s µs", fmtNum(empty))},
		{"1000 dispatches in one batch", 3, true, fmt.Sprintf("bounds: host recording %s µs and running the recorded batch again %s µs per dispatch", fmtNum(rec), fmtNum(rerun))},
		{"upload 64 MiB to device memory", 13, false, fmt.Sprintf("bounds: parallel memcpy %s GB/s, DMA %s GB/s", fmtNum(memcpy), fmtNum(dmaUp))},
		{"readback 64 MiB into new bytes", 3.2, false, fmt.Sprintf("bounds: memcpy into new bytes %s GB/s, DMA %s GB/s", fmtNum(fresh), fmtNum(dmaDown))},
		{"readback 64 MiB into a preallocated slice", 13, false, fmt.Sprintf("bounds: parallel memcpy %s GB/s, DMA %s GB/s", fmtNum(memcpy), fmtNum(dmaDown))},
		{"1080p RGBA8 texture upload + readback", 0.5, true, fmt.Sprintf("bounds: 2 × 8.3 MB at memcpy %s GB/s and DMA %s/%s GB/s, plus 2 submit + wait of %s µs", fmtNum(memcpy), fmtNum(dmaUp), fmtNum(dmaDown), fmtNum(empty))},
	} {
		for i := range c.s.R.Figures {
			fg := &c.s.R.Figures[i]
			if fg.Group != ComputeGroup || fg.Name != t.name {
				continue
			}
			met := fg.Value >= t.goal
			cmp := "≥"
			if t.lower {
				met, cmp = fg.Value <= t.goal, "≤"
			}
			note := fmt.Sprintf("target %s %s %s: ", cmp, fmtNum(t.goal), fg.Unit)
			if met {
				note += "met"
			} else {
				note += "NOT met"
				if t.bound != "" {
					note += "; " + t.bound
				}
			}
			fg.Note = strings.TrimSpace(note + "; " + fg.Note)
			fg.Note = strings.TrimSuffix(fg.Note, "; ")
		}
	}
}
