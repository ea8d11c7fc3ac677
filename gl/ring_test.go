package gl

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestRingVulkan runs the ring's producer and consumer for real on the
// CPU: GL writes random frames (copied from random source buffers), the
// consumer reads every frame through Vulkan (the same memory) and compares
// every byte, in batches, with partial batches and a full ring.
func TestRingVulkan(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	const frameBytes = 4099
	r, err := c.NewRing(RingOptions{Vulkan: d, FrameBytes: frameBytes, Batch: 4, Slots: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Random source frames in GL.
	const sources = 5
	var src []*Buffer
	var want [][]byte
	for i := 0; i < sources; i++ {
		b, err := c.NewBuffer(frameBytes)
		if err != nil {
			t.Fatal(err)
		}
		data := randomTexels(format.R8UNorm, frameBytes, uint64(100+i))
		if err := b.Upload(0, data); err != nil {
			t.Fatal(err)
		}
		src = append(src, b)
		want = append(want, data)
	}
	produced, consumed := 0, 0
	produce := func(n int) {
		t.Helper()
		for k := 0; k < n; k++ {
			_, buf, err := r.Next()
			if err != nil {
				t.Fatalf("frame %d: %v", produced, err)
			}
			if err := buf.CopyFrom(src[produced%sources], 0, 0, frameBytes); err != nil {
				t.Fatal(err)
			}
			if err := r.Submit(); err != nil {
				t.Fatal(err)
			}
			produced++
		}
	}
	got := make([]byte, frameBytes)
	consume := func() int {
		t.Helper()
		n, err := r.Consume(nil, func(frames []Frame) error {
			for _, f := range frames {
				if f.Index != consumed {
					t.Fatalf("frame %d handed over as %d", consumed, f.Index)
				}
				poison(got)
				if err := f.Buffer.Vulkan.Readback(0, got); err != nil {
					return err
				}
				if i := firstDiff(got, want[f.Index%sources]); i >= 0 {
					t.Fatalf("frame %d (slot %d) byte %d: got %#x, want %#x", f.Index, f.Slot, i, got[i], want[f.Index%sources][i])
				}
				consumed++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := consume(); n != 0 {
		t.Fatalf("consumed %d frames of none", n)
	}
	produce(4) // one full batch
	if n := consume(); n != 4 {
		t.Fatalf("consumed %d, want 4", n)
	}
	produce(3) // a partial batch
	if n := consume(); n != 3 {
		t.Fatalf("consumed %d, want 3", n)
	}
	produce(6) // fill the ring
	if _, _, err := r.Next(); !errors.Is(err, ErrRingFull) {
		t.Fatalf("Next on a full ring: %v", err)
	}
	if n := consume(); n != 6 {
		t.Fatalf("consumed %d, want 6", n)
	}
	for i := 0; i < 25; i++ {
		produce(4)
		consume()
	}
	if consumed != produced || consumed != 113 {
		t.Fatalf("produced %d, consumed %d", produced, consumed)
	}
}

// TestRingFromTexture: frames rendered into textures are packed into ring
// slots on the GPU and read by Vulkan, every byte compared.
func TestRingFromTexture(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	const w, h = 64, 48
	var texs []*Texture
	var want [][]byte
	for i := 0; i < 3; i++ {
		tex, err := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h})
		if err != nil {
			t.Fatal(err)
		}
		data := randomTexels(format.RGBA8UNorm, tex.Bytes(), uint64(i+40))
		if err := tex.Upload(data); err != nil {
			t.Fatal(err)
		}
		texs, want = append(texs, tex), append(want, data)
	}
	r, err := c.NewRing(RingOptions{Vulkan: d, FrameBytes: w * h * 4, Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, w*h*4)
	seen := 0
	for f := 0; f < 30; f++ {
		_, b, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.CopyFromTexture(texs[f%3], 0); err != nil {
			t.Fatal(err)
		}
		r.Submit()
		if f%3 == 2 {
			_, err := r.Consume(nil, func(fs []Frame) error {
				for _, fr := range fs {
					poison(got)
					if err := fr.Buffer.Vulkan.Readback(0, got); err != nil {
						return err
					}
					if i := firstDiff(got, want[fr.Index%3]); i >= 0 {
						t.Fatalf("frame %d byte %d differs", fr.Index, i)
					}
					seen++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if seen != 30 {
		t.Fatalf("consumed %d frames of 30", seen)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRingGPUSyncUnsupported: without GL_NV_timeline_semaphore (Mesa),
// GPUSync is refused with ErrUnsupported and nothing leaks.
func TestRingGPUSyncUnsupported(t *testing.T) {
	c := open(t, Options{})
	if c.Info().TimelineSemaphore {
		t.Skipf("%s has GL_NV_timeline_semaphore", c.Info().Renderer)
	}
	d := vkDevice(t, c)
	before := fdCount(t)
	if _, err := c.NewRing(RingOptions{Vulkan: d, FrameBytes: 64, GPUSync: true}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("NewRing with GPUSync: %v, want ErrUnsupported", err)
	}
	if after := fdCount(t); after != before {
		t.Fatalf("%d fds leaked", after-before)
	}
}

// TestRingManyBatches: frames written by a GL compute shader (seeded
// pseudo-random, as the benchmark makes them) in several batches are
// consumed in one Consume (one host wait, on the last fence) and read
// through Vulkan, every byte compared; then again after the ring wraps.
func TestRingManyBatches(t *testing.T) {
	c := open(t, Options{})
	ringManyBatches(t, c, false)
}

// TestRingGPUSyncNoStream: the same with GPUSync (NVIDIA's GL) and a
// consumer without a CUDA stream (one GL fence waited on the host).
func TestRingGPUSyncNoStream(t *testing.T) {
	c, _, _ := openCUDA(t)
	if !c.Info().TimelineSemaphore {
		t.Skipf("%s lacks GL_NV_timeline_semaphore", c.Info().Renderer)
	}
	ringManyBatches(t, c, true)
}

func ringManyBatches(t *testing.T, c *Context, gpuSync bool) {
	d := vkDevice(t, c)
	const frameBytes = 64 * 1024
	r, err := c.NewRing(RingOptions{Vulkan: d, FrameBytes: frameBytes, Batch: 2, Slots: 9, GPUSync: gpuSync})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := c.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	seed := uint32(rand.Uint64())
	produced, consumed := 0, 0
	got, want := make([]byte, frameBytes), make([]byte, frameBytes)
	for round := 0; round < 4; round++ {
		n := 8 + round%2 // 4 full batches, or 4 and a partial one
		for k := 0; k < n; k++ {
			_, b, err := r.Next()
			if err != nil {
				t.Fatalf("frame %d: %v", produced, err)
			}
			fs := seed + uint32(produced)
			if err := p.Fill(b, frameBytes, fs); err != nil {
				t.Fatal(err)
			}
			if err := r.Submit(); err != nil {
				t.Fatal(err)
			}
			produced++
		}
		m, err := r.Consume(nil, func(frames []Frame) error {
			for _, f := range frames {
				if f.Index != consumed {
					t.Fatalf("frame %d handed over as %d", consumed, f.Index)
				}
				poison(got)
				if err := f.Buffer.Vulkan.Readback(0, got); err != nil {
					return err
				}
				PatternBytes(want, seed+uint32(f.Index))
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("frame %d (slot %d) byte %d: got %#x, want %#x", f.Index, f.Slot, i, got[i], want[i])
				}
				consumed++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if m != n {
			t.Fatalf("round %d: consumed %d frames, want %d", round, m, n)
		}
	}
	if consumed != produced {
		t.Fatalf("produced %d, consumed %d", produced, consumed)
	}
}
