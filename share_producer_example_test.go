package gfxcuda_test

import (
	"context"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// A Vulkan producer in one process and a CUDA consumer in another,
// synchronized on the GPU: the consumer's stream waits for each frame and
// signals the slot free again, the hosts never wait for each other's GPU
// work.
func ExampleProducer() {
	var dev *vulkan.Device  // the producer's device
	var slots []any         // exportable images or buffers of dev
	var cx *cuda.Context    // in the consumer process
	var stream *cuda.Stream // the consumer's stream
	var tok gfxcuda.Token   // passed from one process to the other
	ctx := context.Background()
	if dev == nil {
		return // (an outline)
	}

	// Producer process.
	p, _ := gfxcuda.NewProducer(dev, gfxcuda.ProducerOptions{Slots: slots, Batch: 4})
	defer p.Close()
	tok = p.Token()
	p.Produce(ctx, func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error) {
		// record the frame's commands into slot
		return nil, c.Err()
	})

	// Consumer process.
	cc, _ := gfxcuda.OpenCUDAConsumer(ctx, cx, tok)
	defer cc.Close()
	f, _ := cc.Next(ctx, stream) // stream now waits for the frame
	_ = cc.Array(f)              // or cc.Ptr(f) for buffer slots: queue work on stream
	cc.Release(f, stream)        // the slot is free once that work is done
	// Output:
}
