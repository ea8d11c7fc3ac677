package vulkan

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/shader"
)

// computeDevice returns a device with validation, synchronization checks
// included: a missing barrier fails the test.
func computeDevice(t *testing.T) *Device {
	t.Helper()
	if os.Getenv("VK_LAYER_ENABLES") == "" {
		t.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	}
	return testDevice(t, newTestInstance(t))
}

func compileModule(t *testing.T, name, src string) *shader.Module {
	t.Helper()
	m, err := shader.Compile([]byte(src), shader.Options{Filename: name})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func words(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func hostBuffer(t *testing.T, d *Device, data []byte) *Buffer {
	t.Helper()
	b, err := d.NewBuffer(BufferOptions{Size: uint64(len(data)), Heap: HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Upload(0, data); err != nil {
		t.Fatal(err)
	}
	return b
}

func contents(t *testing.T, b *Buffer) []uint32 {
	t.Helper()
	out := make([]byte, b.Size())
	if err := b.Readback(0, out); err != nil {
		t.Fatal(err)
	}
	return words(out)
}

const addShader = `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer V { uint v[]; };
layout(push_constant) uniform PC { uint add; } pc;
void main() { v[gl_GlobalInvocationID.x] += pc.add; }`

func push32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// TestDispatchChain records dispatches, copies and fills that depend on
// each other in one batch, with synchronization2 barriers and with the
// Vulkan 1.0 ones; the validation layer's synchronization checks find any
// missing barrier.
func TestDispatchChain(t *testing.T) {
	d := computeDevice(t)
	p, err := d.NewComputePipeline(compileModule(t, "add.comp", addShader))
	if err != nil {
		t.Fatal(err)
	}
	if p.LocalSize() != [3]uint32{64, 1, 1} || p.PushConstantSize() != 4 || len(p.Resources()) != 1 || p.EntryPoint() != "main" {
		t.Errorf("pipeline: local %v, push %d, %d resources", p.LocalSize(), p.PushConstantSize(), len(p.Resources()))
	}
	barrierModes(t, d, func(t *testing.T) {
		a := hostBuffer(t, d, make([]byte, 1024))
		b, err := d.NewBuffer(BufferOptions{Size: 1024})
		if err != nil {
			t.Fatal(err)
		}
		err = d.Run(func(c *Commands) error {
			c.Dispatch(p, []Binding{{Buffer: a}}, push32(1), 4, 1, 1)            // a = 1
			c.CopyBuffer(b, a, 0, 0, 1024)                                       // b = 1
			c.Dispatch(p, []Binding{{Name: "v", Buffer: b}}, push32(2), 4, 1, 1) // b = 3
			c.FillBuffer(a, 0, 512, 10)                                          // a = 10 | 1
			c.Dispatch(p, []Binding{{Name: "V", Buffer: a}}, push32(5), 4, 1, 1) // a = 15 | 6
			c.CopyBuffer(a, b, 512, 512, 512)                                    // a = 15 | 3
			c.Dispatch(p, []Binding{{Buffer: a, Offset: 512}}, push32(100), 2, 1, 1)
			return c.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range contents(t, a) {
			want := uint32(15)
			if i >= 128 {
				want = 103
			}
			if v != want {
				t.Fatalf("a[%d] = %d, want %d", i, v, want)
			}
		}
		b.Close()
		a.Close()
	})
}

// TestDispatchManySets dispatches with hundreds of distinct bindings in
// one batch, so that descriptor pools fill up and more are made, and
// reuses the batch after Reset.
func TestDispatchManySets(t *testing.T) {
	d := computeDevice(t)
	p, err := d.NewComputePipeline(compileModule(t, "add.comp", addShader))
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	buf := hostBuffer(t, d, make([]byte, 256*n))
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for round := range 2 {
		for i := range n {
			c.Dispatch(p, []Binding{{Buffer: buf, Offset: uint64(256 * i), Range: 256}}, push32(uint32(i)), 1, 1, 1)
		}
		if err := c.Submit(SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(-1); err != nil {
			t.Fatal(err)
		}
		if err := c.Reset(); err != nil {
			t.Fatal(err)
		}
		for i, v := range contents(t, buf) {
			if want := uint32(i/64) * uint32(round+1); v != want {
				t.Fatalf("round %d: v[%d] = %d, want %d", round, i, v, want)
			}
		}
	}
	if len(c.cs.pools) < 2 {
		t.Errorf("%d descriptor pools for %d sets", len(c.cs.pools), n)
	}
}

// TestDispatchArraysAndSets binds arrays of descriptors element by element
// and resources in a second set.
func TestDispatchArraysAndSets(t *testing.T) {
	d := computeDevice(t)
	p, err := d.NewComputePipeline(compileModule(t, "arrays.comp", `#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer In { uint x[]; } ins[3];
layout(set = 1, binding = 2) writeonly buffer Out { uint y[]; } outp;
void main() {
	uint i = gl_GlobalInvocationID.x;
	outp.y[i] = ins[0].x[i] + 10u * ins[1].x[i] + 100u * ins[2].x[i];
}`))
	if err != nil {
		t.Fatal(err)
	}
	var ins [3]*Buffer
	for k := range ins {
		data := make([]byte, 64)
		for i := range 16 {
			binary.LittleEndian.PutUint32(data[4*i:], uint32(i+k))
		}
		ins[k] = hostBuffer(t, d, data)
	}
	out := hostBuffer(t, d, make([]byte, 64))
	bind := []Binding{{Buffer: ins[0]}, {Element: 1, Buffer: ins[1]}, {Element: 2, Buffer: ins[2]}, {Set: 1, Binding: 2, Buffer: out}}
	if err := d.Run(func(c *Commands) error { c.Dispatch(p, bind, nil, 1, 1, 1); return c.Err() }); err != nil {
		t.Fatal(err)
	}
	for i, v := range contents(t, out) {
		if want := uint32(i + 10*(i+1) + 100*(i+2)); v != want {
			t.Fatalf("y[%d] = %d, want %d", i, v, want)
		}
	}
	err = d.Run(func(c *Commands) error { c.Dispatch(p, bind[1:], nil, 1, 1, 1); return c.Err() })
	if err == nil || !strings.Contains(err.Error(), "element 0") {
		t.Errorf("missing element: %v", err)
	}
	err = d.Run(func(c *Commands) error {
		c.Dispatch(p, append([]Binding{{Element: 3, Buffer: ins[0]}}, bind...), nil, 1, 1, 1)
		return c.Err()
	})
	if err == nil || !strings.Contains(err.Error(), "element 3") {
		t.Errorf("element out of range: %v", err)
	}
}

// TestPipelineErrors covers what NewComputePipeline refuses.
func TestPipelineErrors(t *testing.T) {
	d := computeDevice(t)
	frag := compileModule(t, "f.frag", "#version 450\nlayout(location=0) out vec4 c;\nvoid main() { c = vec4(1); }")
	if _, err := d.NewComputePipeline(frag); err == nil || !strings.Contains(err.Error(), "has no compute entry point (it has: main (Fragment))") {
		t.Errorf("fragment shader: %v", err)
	}
	m := compileModule(t, "add.comp", addShader)
	if _, err := d.NewComputePipeline(m, PipelineOptions{EntryPoint: "other"}); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("unknown entry point: %v", err)
	}
	if _, err := d.NewComputePipeline(nil); err == nil {
		t.Error("nil module accepted")
	}
	// Reading a storage image without a format needs a feature lavapipe
	// lacks; where the device has it, the pipeline builds.
	ro := compileModule(t, "ro.comp", `#version 450
#extension GL_EXT_shader_image_load_formatted : require
layout(local_size_x = 1) in;
layout(binding = 0) uniform image2D img;
layout(std430, binding = 1) buffer O { vec4 o; };
void main() { o = imageLoad(img, ivec2(0)); }`)
	p, err := d.NewComputePipeline(ro)
	if d.pd.features.StorageImageReadWithoutFormat {
		if err != nil {
			t.Errorf("format-less storage image read on %s: %v", d.pd.Name, err)
		}
		p.Close()
	} else if err == nil || !strings.Contains(err.Error(), "shaderStorageImageReadWithoutFormat") {
		t.Errorf("format-less storage image read without the feature: %v", err)
	}
}

// TestPipelineLifetime: a pipeline closed while a batch that uses it runs
// waits for it; a closed pipeline or buffer fails the batch with ErrClosed;
// the device's Close closes pipelines.
func TestPipelineLifetime(t *testing.T) {
	d := computeDevice(t)
	m := compileModule(t, "add.comp", addShader)
	p, err := d.NewComputePipeline(m)
	if err != nil {
		t.Fatal(err)
	}
	buf := hostBuffer(t, d, make([]byte, 256))
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		c.Dispatch(p, []Binding{{Buffer: buf}}, push32(1), 1, 1, 1)
	}
	if err := c.Submit(SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	p.Close() // waits for the batch
	if !c.Done() {
		t.Error("Pipeline.Close returned before the batch that uses it finished")
	}
	c.Reset()
	c.Dispatch(p, []Binding{{Buffer: buf}}, push32(1), 1, 1, 1)
	if err := c.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("dispatch of a closed pipeline: %v", err)
	}
	c.Reset()
	p2, err := d.NewComputePipeline(m)
	if err != nil {
		t.Fatal(err)
	}
	buf2 := hostBuffer(t, d, make([]byte, 256))
	c.Dispatch(p2, []Binding{{Buffer: buf2}}, push32(1), 1, 1, 1)
	buf2.Close()
	if err := c.Submit(SubmitOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("submission with a closed buffer: %v", err)
	}
	c.Close()
	if got := contents(t, buf); got[0] != 50 {
		t.Errorf("v[0] = %d after 50 dispatches", got[0])
	}
	// p2 is left for the device's Close.
}
