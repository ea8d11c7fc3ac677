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

// A consumer on another GPU of the host than the producer's: each frame is
// copied to the consumer's GPU on its stream, after the producer's
// semaphore, and the slot goes back to the producer once copied.
func ExampleOpenPeerConsumer() {
	var tok gfxcuda.Token   // a Producer's or slotring.Ring's token, from the producer's process
	var stream *cuda.Stream // a stream of the consumer's context
	ctx := context.Background()
	if tok == "" {
		return // (an outline)
	}
	dev, _ := cuda.LookupDevice("GPU-5c3e0102-aabb-ccdd-0001-0203040506ff") // or "1"
	cx, _ := dev.PrimaryContext()
	defer cx.Close()
	pc, _ := gfxcuda.OpenPeerConsumer(ctx, cx, tok, gfxcuda.PeerOptions{Mode: gfxcuda.PeerCopy})
	defer pc.Close()
	f, _ := pc.Next(ctx, stream) // the copy is queued on stream
	_ = pc.Ptr(f)                // the frame on cx's GPU: queue work on stream
	pc.Release(f, stream)        // its buffer takes another frame once that work is done
	// Output:
}
