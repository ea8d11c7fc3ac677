package compute

import (
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Batch records many dispatches and copies, with the barriers they need
// between them, and submits them at once. Recording methods return
// nothing: the first error is kept, later commands are ignored, and Err,
// Submit and Run return it. A Batch is meant for one goroutine at a time.
//
//	b, _ := dev.NewBatch()
//	for i := 0; i < 1000; i++ {
//		b.Dispatch(k, 16, 1, 1, compute.At(0, buf))
//	}
//	err := b.Run() // one submission, one wait
type Batch struct {
	d *Device
	c *vulkan.Commands
	n int
}

// NewBatch returns an empty batch.
func (d *Device) NewBatch() (*Batch, error) {
	c, err := d.vk.NewCommands()
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Batch{d: d, c: c}, nil
}

// Commands returns the Vulkan batch, to record Vulkan commands directly.
func (b *Batch) Commands() *vulkan.Commands { return b.c }

// Len is the number of commands recorded since the batch was made or
// reset.
func (b *Batch) Len() int { return b.n }

// Err returns the first recording error.
func (b *Batch) Err() error { return b.c.Err() }

// Dispatch records x×y×z workgroups of k with args.
func (b *Batch) Dispatch(k *Kernel, x, y, z uint32, args ...Arg) {
	if b.check(k) {
		k.record(b.c, x, y, z, nil, 0, args)
	}
}

// DispatchIndirect records a dispatch of k whose workgroup counts are
// read from argsBuf at byte off when it runs (three little-endian uint32).
func (b *Batch) DispatchIndirect(k *Kernel, argsBuf *Buffer, off uint64, args ...Arg) {
	if argsBuf == nil {
		b.c.Fail(errors.New("compute: DispatchIndirect: nil argument buffer"))
		return
	}
	if b.check(k) {
		k.record(b.c, 0, 0, 0, argsBuf, off, args)
	}
}

func (b *Batch) check(k *Kernel) bool {
	b.n++
	if k == nil {
		b.c.Fail(errors.New("compute: Dispatch: nil kernel"))
		return false
	}
	if k.d.vk != b.d.vk {
		b.c.Fail(errors.New("compute: Dispatch: kernel of another device"))
		return false
	}
	return true
}

// CopyBuffer records a copy of size bytes from src at srcOff to dst at
// dstOff.
func (b *Batch) CopyBuffer(dst, src *Buffer, dstOff, srcOff, size uint64) {
	b.n++
	if dst == nil || src == nil {
		b.c.Fail(errors.New("compute: CopyBuffer: nil buffer"))
		return
	}
	b.c.CopyBuffer(dst.vk, src.vk, dstOff, srcOff, size)
}

// CopyBufferToTexture records a copy of a region from src into dst.
func (b *Batch) CopyBufferToTexture(dst *Texture, src *Buffer, r Region) {
	b.n++
	if dst == nil || src == nil {
		b.c.Fail(errors.New("compute: CopyBufferToTexture: nil resource"))
		return
	}
	copyBufferTexture(b.c, dst, src.vk, r, true)
}

// CopyTextureToBuffer records a copy of a region of src into dst.
func (b *Batch) CopyTextureToBuffer(dst *Buffer, src *Texture, r Region) {
	b.n++
	if dst == nil || src == nil {
		b.c.Fail(errors.New("compute: CopyTextureToBuffer: nil resource"))
		return
	}
	copyBufferTexture(b.c, src, dst.vk, r, false)
}

// Copy records a copy of all of src into dst: buffer to buffer (src's
// size, which dst must have room for), buffer to texture and texture to
// buffer (tightly packed texels), texture to texture (same extent and
// texel size).
func (b *Batch) Copy(dst, src Resource) {
	var err error
	if src, err = b.d.resolve(src); err == nil {
		dst, err = b.d.resolve(dst)
	}
	if err != nil {
		b.n++
		b.c.Fail(fmt.Errorf("compute: Copy: %w", err))
		return
	}
	switch s := src.(type) {
	case *Buffer:
		switch d := dst.(type) {
		case *Buffer:
			if s != nil {
				b.CopyBuffer(d, s, 0, 0, s.Size())
				return
			}
		case *Texture:
			b.CopyBufferToTexture(d, s, Region{})
			return
		}
	case *Texture:
		switch d := dst.(type) {
		case *Buffer:
			b.CopyTextureToBuffer(d, s, Region{})
			return
		case *Texture:
			b.copyTexture(d, s)
			return
		}
	}
	b.n++
	b.c.Fail(fmt.Errorf("compute: Copy: cannot copy %T into %T", src, dst))
}

// TextureCopy is the region of a copy between two textures, as
// compushady's copy_to takes it: the first texel and slice in each, and
// the extent (0: up to the source's edge; Slices 0: all from SrcSlice).
type TextureCopy struct {
	SrcX, SrcY, SrcZ, DstX, DstY, DstZ uint32
	Width, Height, Depth               uint32
	SrcSlice, DstSlice, Slices         uint32
}

// CopyTexture records a copy of a region of src into dst; the formats need
// the same texel size.
func (b *Batch) CopyTexture(dst, src *Texture, r TextureCopy) {
	b.n++
	if dst == nil || src == nil {
		b.c.Fail(errors.New("compute: CopyTexture: nil texture"))
		return
	}
	if l := src.vk.Layout(); l != vulkan.LayoutGeneral && l != vulkan.LayoutTransferSrc {
		b.c.TransitionImage(src.vk, vulkan.LayoutGeneral)
	}
	if l := dst.vk.Layout(); l != vulkan.LayoutGeneral && l != vulkan.LayoutTransferDst {
		b.c.TransitionImage(dst.vk, vulkan.LayoutGeneral)
	}
	b.c.CopyImage(dst.vk, src.vk, vulkan.ImageCopy{
		SrcX: int32(r.SrcX), SrcY: int32(r.SrcY), SrcZ: int32(r.SrcZ),
		DstX: int32(r.DstX), DstY: int32(r.DstY), DstZ: int32(r.DstZ),
		Width: r.Width, Height: r.Height, Depth: r.Depth,
		SrcLayer: r.SrcSlice, DstLayer: r.DstSlice, Layers: r.Slices,
	})
}

// copyTexture records a copy of all of s into d.
func (b *Batch) copyTexture(d, s *Texture) {
	b.n++
	switch {
	case s == nil || d == nil:
		b.c.Fail(errors.New("compute: Copy: nil texture"))
		return
	case s.Width() != d.Width() || s.Height() != d.Height() || s.Depth() != d.Depth():
		b.c.Fail(fmt.Errorf("compute: Copy: a %dx%dx%d texture into a %dx%dx%d one", s.Width(), s.Height(), s.Depth(), d.Width(), d.Height(), d.Depth()))
		return
	}
	if l := s.vk.Layout(); l != vulkan.LayoutGeneral && l != vulkan.LayoutTransferSrc {
		b.c.TransitionImage(s.vk, vulkan.LayoutGeneral)
	}
	if l := d.vk.Layout(); l != vulkan.LayoutGeneral && l != vulkan.LayoutTransferDst {
		b.c.TransitionImage(d.vk, vulkan.LayoutGeneral)
	}
	b.c.CopyImage(d.vk, s.vk, vulkan.ImageCopy{})
}

// Barrier records a full memory barrier. Batches insert the barriers
// dispatches and copies need by themselves; this is for work they cannot
// see, such as writes through another API to memory the batch reads.
func (b *Batch) Barrier() { b.c.MemoryBarrier() }

// Submit submits the batch in one submission and returns without waiting:
// Wait or Done tell when it has run. On a Device made by NewSubmitting (such
// as gfxcuda.Device.Compute's) it goes through the Submitter, after CUDA's hand-backs.
func (b *Batch) Submit() error { return b.SubmitWith(vulkan.SubmitOptions{}) }

// SubmitWith is Submit, waiting for and signalling timeline semaphores (or
// binary ones) at the given values: Signal gives a timeline value other
// work, or the host, waits on.
func (b *Batch) SubmitWith(o vulkan.SubmitOptions) error {
	if err := b.c.Err(); err != nil {
		return err
	}
	return b.d.submit(b.c, o)
}

// Wait waits until the submitted batch has run.
func (b *Batch) Wait() error { return b.c.Wait(-1) }

// WaitTimeout waits at most timeout; the error wraps vulkan.ErrTimeout
// when it passes.
func (b *Batch) WaitTimeout(timeout time.Duration) error { return b.c.Wait(timeout) }

// Done reports whether the submitted batch has run.
func (b *Batch) Done() bool { return b.c.Done() }

// Run submits the batch and waits for it.
func (b *Batch) Run() error {
	if err := b.Submit(); err != nil {
		return err
	}
	return b.Wait()
}

// Reset empties the batch for recording anew, clearing its error; a
// submitted batch must have run (Wait).
func (b *Batch) Reset() error {
	b.n = 0
	return b.c.Reset()
}

// Close waits for the submitted batch, then frees it. Idempotent.
func (b *Batch) Close() error { return b.c.Close() }
