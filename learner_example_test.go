package gfxcuda_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// A learner-mode ring: a Vulkan producer on its own goroutine writes each
// frame into a slot, and a learner takes the newest finished batch per step
// with Next, using its tensors on its own stream. CUDA has no part in the
// hand-off: Next observes the producer's completion on the host, and the
// slots go back to the producer once the learner's stream has passed them.
func Example_learnerRing() {
	dev, err := gfxcuda.Open(gfxcuda.Options{})
	if err != nil {
		fmt.Println("no GPU shared by Vulkan and CUDA:", err)
		return
	}
	defer dev.Close()

	const words = 1 << 18 // one frame: a [512, 512] uint32 tensor
	slots := make([]gfxcuda.Resource, 8)
	for i := range slots {
		b, err := dev.NewBuffer(words * 4)
		if err != nil {
			fmt.Println(err)
			return
		}
		slots[i] = b
	}
	ring, err := dev.NewRingWith(slots, gfxcuda.RingOptions{Batch: 2, HostObserved: true,
		Shape: []int64{512, 512}, DType: format.Uint32})
	if err != nil {
		fmt.Println(err)
		return
	}
	value := func(frame uint64) uint32 { return uint32(frame)*2654435761 + 12345 }

	const batches = 200
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() { // the producer
		for k := 0; k < batches; k++ {
			err := ring.Produce(ctx, func(c *vulkan.Commands, slot int, frame uint64) error {
				c.FillBuffer(ring.Slot(slot).(*gfxcuda.Buffer).Vulkan(), 0, 0, value(frame))
				return c.Err()
			})
			if err != nil {
				cancel()
				return
			}
		}
	}()

	stream, err := dev.CUDA().NewStream(cuda.StreamNonBlocking)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	host, err := dev.CUDA().AllocHost(words * 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer host.Close()
	frames, bad := 0, 0
	for ring.Consumed() < batches {
		b, err := ring.Next(ctx, stream) // releases the previous batch
		if err != nil {
			fmt.Println(err)
			return
		}
		for i := 0; i < b.Frames(); i++ {
			// The learner's work: here, copy the frame to the host and look.
			t := b.Tensor(i)
			if err := stream.CopyDtoH(host.Bytes(), t.Ptr); err != nil {
				fmt.Println(err)
				return
			}
			if err := stream.Synchronize(); err != nil {
				fmt.Println(err)
				return
			}
			for w := 0; w < words; w++ {
				if binary.LittleEndian.Uint32(host.Bytes()[4*w:]) != value(b.Frame(i)) {
					bad++
					break
				}
			}
			frames++
		}
	}
	skipped := int(ring.Skipped()) * ring.Batch()
	if err := ring.Close(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("frames seen + skipped:", frames+skipped, "of", 2*batches)
	fmt.Println("frames with wrong contents:", bad)
}

// TestExampleLearnerRing runs the example and checks what it printed.
func TestExampleLearnerRing(t *testing.T) {
	if cuda.Init() != nil && os.Getenv("GFXCUDA_REQUIRE_CUDA") != "1" {
		t.Skip("no CUDA driver")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stdout := os.Stdout
	os.Stdout = w
	Example_learnerRing()
	os.Stdout = stdout
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "frames seen + skipped: 400 of 400\nframes with wrong contents: 0"; strings.TrimSpace(string(out)) != want {
		t.Errorf("example printed %q, want %q", out, want)
	}
}
