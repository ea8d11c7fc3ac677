package gfxcuda

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestTiledLearnerRing: a learner-mode ring carries tiled steps. The
// producer draws each step's atlas (5 x 3 tiles of 16 x 8, 13 of them
// environments; the test pattern, whose every texel the host can compute)
// and converts its tiles into the slot's [13, 8, 16, 4] uint8 tensor in
// one dispatch (RecordTiles), in the same submission; the learner takes
// the newest step with Next and compares every element with the pattern
// of that step's frame. Needs a GPU (CUDA reads the tensors). With
// RingOptions.Overwrite (the conversion writes the whole tensor) the same,
// with no slot acquired back from CUDA.
func TestTiledLearnerRing(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("overwrite=%v", overwrite), func(t *testing.T) { tiledLearnerRing(t, overwrite) })
	}
}

func tiledLearnerRing(t *testing.T, overwrite bool) {
	d := openDevice(t)
	const cols, rows, n, tw, th, steps = 5, 3, 13, 16, 8, 40
	l := tensor.Layout{DType: format.Uint8}
	atlas, err := d.Vulkan().NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: cols * tw, Height: rows * th,
		Usage: vulkan.ImageStorage | vulkan.ImageSampled})
	noErr(t, err)
	defer atlas.Close()
	prod, err := testpattern.NewProducer(d.Vulkan())
	noErr(t, err)
	defer prod.Close()
	conv, err := NewVulkanConverter(d.Vulkan(), l)
	noErr(t, err)
	defer conv.Close()
	per := l.Bytes(tw, th) * n
	slots := make([]Resource, 4)
	for i := range slots {
		b, err := d.NewBuffer(per)
		noErr(t, err)
		slots[i] = b
	}
	ring, err := d.NewRingWith(slots, RingOptions{HostObserved: true, Shape: []int64{n, th, tw, 4}, DType: format.Uint8, Overwrite: overwrite})
	noErr(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		for k := 0; k < steps; k++ {
			err := ring.Produce(ctx, func(c *vulkan.Commands, slot int, frame uint64) error {
				prod.Record(c, atlas, frame)
				return conv.RecordTiles(c, atlas, cols, rows, n, ring.Slot(slot).(*Buffer).Vulkan(), 0)
			})
			if err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	s, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
	noErr(t, err)
	defer s.Close()
	pinned, err := d.CUDA().AllocHost(uint64(per)) // the stream's copy is asynchronous: pinned memory
	noErr(t, err)
	defer pinned.Close()
	got := pinned.Bytes()
	seen := 0
	for ring.Consumed() < steps {
		b, err := ring.Next(ctx, s)
		noErr(t, err)
		tv := b.Tensor(0)
		if fmt.Sprint(tv.Shape) != "[13 8 16 4]" {
			t.Fatalf("tensor shape %v", tv.Shape)
		}
		for i := range got {
			got[i] = 0xcd // poison: a copy that did not run cannot pass
		}
		noErr(t, s.CopyDtoH(got, tv.Ptr))
		noErr(t, s.Synchronize())
		seed := testpattern.Seed(b.Frame(0))
		for v := 0; v < n; v++ {
			for y := 0; y < th; y++ {
				for x := 0; x < tw; x++ {
					X, Y := (v%cols)*tw+x, (v/cols)*th+y
					var want [4]byte
					binary.LittleEndian.PutUint32(want[:], testpattern.Texel(uint32(Y*cols*tw+X), seed))
					i := ((v*th+y)*tw + x) * 4
					if [4]byte(got[i:i+4]) != want {
						t.Fatalf("step %d, view %d, texel (%d, %d): got %v, want %v", b.Frame(0), v, x, y, got[i:i+4], want)
					}
				}
			}
		}
		seen++
	}
	noErr(t, <-errc)
	acquires := ring.acquires
	noErr(t, ring.Close())
	if seen == 0 {
		t.Fatal("the learner saw no step")
	}
	if want := map[bool]uint64{false: steps - 4, true: 0}[overwrite]; acquires != want {
		t.Errorf("%d slot acquires over %d steps in 4 slots, want %d", acquires, steps, want)
	}
}
