package vulkan

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// SparseSupported reports whether the device makes sparse buffers and
// images: the sparseBinding feature, and a queue of gfxcuda's family that
// binds sparse memory.
func (d *Device) SparseSupported() bool {
	if !d.pd.features.SparseBinding {
		return false
	}
	for _, f := range d.pd.QueueFamilies {
		if f.Index == d.family {
			return f.SparseBinding
		}
	}
	return false
}

// BindlessSupported reports whether pipelines can have runtime-sized,
// partially bound arrays of descriptors (PipelineOptions.Bindless): the
// runtimeDescriptorArray and descriptorBindingPartiallyBound features.
func (d *Device) BindlessSupported() bool {
	f := &d.pd.features
	return f.RuntimeDescriptorArray && f.DescriptorBindingPartiallyBound
}

// SparseLayout describes the blocks of a sparse resource: each block is
// Block texels (bytes for a buffer: Block[0]) and Size bytes of memory,
// and the resource has Blocks of them along x, y and z.
type SparseLayout struct {
	Block  [3]uint32
	Blocks [3]uint32
	Size   uint64
	// Aliased says that several blocks may be bound to the same memory
	// (the device's sparseResidencyAliased feature).
	Aliased bool
}

// SparseBind binds one block of a sparse resource, the block at Block
// (block coordinates, not texels) of array layer Layer, to Memory at byte
// Offset, a multiple of SparseLayout.Size. A nil Memory unbinds the block.
type SparseBind struct {
	Block  [3]uint32
	Layer  uint32
	Memory *Memory
	Offset uint64
}

// sparseState is what a sparse resource knows of its blocks.
type sparseState struct {
	layout SparseLayout
	heap   Heap
	// block is what binding one block takes of a memory: the block size,
	// as size and alignment, and the resource's memory types.
	block vk.MemoryRequirements
	mu    sync.Mutex
	bound map[[4]uint32]*Memory // block (x, y, z, layer) → memory
}

// release drops the references to the memory the blocks were bound to.
func (s *sparseState) release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, m := range s.bound {
		m.unref()
		delete(s.bound, k)
	}
}

// createPlacedBuffer makes a buffer placed in o.Memory, or a sparse one.
func (d *Device) createPlacedBuffer(o BufferOptions) (*Buffer, error) {
	usage := o.Usage | bufferTransfer
	if o.Usage == 0 {
		usage = defaultBufferBits | bufferTexel
	}
	info := vk.BufferCreateInfo{Size: o.Size, Usage: uint32(usage)}
	if o.Memory != nil && o.Memory.external != 0 {
		// A buffer bound to imported memory names the handle type.
		info.ExternalHandleTypes = o.Memory.external
		if o.Usage == 0 && !d.importable(usage) {
			usage = defaultBufferBits // texel buffers of imported memory: not on this driver
			info.Usage = uint32(usage)
		}
	}
	f := &d.pd.features
	if o.Sparse {
		info.Flags = vk.CreateSparseBinding
		if f.SparseResidencyBuffer {
			info.Flags |= vk.CreateSparseResidency
			if f.SparseResidencyAliased {
				info.Flags |= vk.CreateSparseAliased
			}
		}
	}
	b := &Buffer{d: d, size: o.Size, usage: usage, heap: o.Heap}
	var err error
	if b.h, err = d.raw.CreateBuffer(info); err != nil {
		return nil, err
	}
	req := d.raw.BufferMemoryRequirements(b.h)
	b.allocSize = req.Size
	if o.Sparse {
		blocks := (req.Size + req.Alignment - 1) / req.Alignment
		b.sparse = &sparseState{heap: o.Heap, block: blockRequirements(req), bound: map[[4]uint32]*Memory{}, layout: SparseLayout{
			Block:   [3]uint32{uint32(req.Alignment), 1, 1},
			Blocks:  [3]uint32{uint32(blocks), 1, 1},
			Size:    req.Alignment,
			Aliased: info.Flags&vk.CreateSparseAliased != 0,
		}}
		d.register(b)
		return b, nil
	}
	m := o.Memory
	if err := m.place(d, "a buffer", o.Heap, req, o.Offset); err != nil {
		d.raw.DestroyBuffer(b.h)
		return nil, err
	}
	if err := d.raw.BindBufferMemory(b.h, m.h, o.Offset); err != nil {
		d.raw.DestroyBuffer(b.h)
		m.unref()
		return nil, err
	}
	b.memory, b.mem, b.memOff, b.memSize, b.memFlags = m, m.h, o.Offset, m.size, m.flags
	b.alias = &m.lastUse
	if m.mapped != nil {
		b.mapped = unsafe.Add(m.mapped, o.Offset)
	}
	d.register(b)
	return b, nil
}

// importable reports whether buffers of usage may be bound to imported
// OPAQUE_FD memory.
func (d *Device) importable(usage BufferUsage) bool {
	p, err := d.inst.raw.ExternalBufferProperties(d.pd.h, 0, uint32(usage), vk.ExternalMemoryHandleTypeOpaqueFD)
	return err == nil && p.Features&vk.ExternalMemoryFeatureImportable != 0
}

// Memory returns the Memory the buffer is placed in and its offset there,
// or nil.
func (b *Buffer) Memory() (*Memory, uint64) { return b.memory, b.memOff }

// Sparse returns the layout of a sparse buffer's blocks; ok is false for
// a buffer that is not sparse.
func (b *Buffer) Sparse() (l SparseLayout, ok bool) {
	if b.sparse == nil {
		return l, false
	}
	return b.sparse.layout, true
}

// BindSparse binds blocks of a sparse buffer (Block[0] is the block's
// index) to memory, after the work submitted before that uses the buffer
// or the memory, and returns when the binding is done.
func (b *Buffer) BindSparse(binds ...SparseBind) error {
	if err := b.acquire(); err != nil {
		return err
	}
	defer b.life.release()
	if b.sparse == nil {
		return errors.New("vulkan: BindSparse: the buffer is not sparse")
	}
	return b.d.bindSparse(b.sparse, binds, func(sb SparseBind, mem vk.DeviceMemory) vk.BindSparseInfo {
		l := b.sparse.layout
		off := uint64(sb.Block[0]) * l.Size
		return vk.BindSparseInfo{Buffers: []vk.SparseBufferBind{{Buffer: b.h, ResourceOffset: off,
			Size: min(l.Size, b.allocSize-off), Memory: mem, MemoryOffset: sb.Offset}}}
	})
}

// bindSparse checks binds against s, takes references to their memory and
// binds them on the device's queue, ordered after every batch submitted so
// far, and waits until they are bound.
func (d *Device) bindSparse(s *sparseState, binds []SparseBind, info func(SparseBind, vk.DeviceMemory) vk.BindSparseInfo) error {
	if err := d.acquire(); err != nil {
		return err
	}
	defer d.life.release()
	l := s.layout
	var all vk.BindSparseInfo
	for _, sb := range binds {
		if sb.Block[0] >= l.Blocks[0] || sb.Block[1] >= l.Blocks[1] || sb.Block[2] >= l.Blocks[2] {
			return fmt.Errorf("vulkan: BindSparse: block (%d, %d, %d) is out of bounds: the resource has %dx%dx%d blocks",
				sb.Block[0], sb.Block[1], sb.Block[2], l.Blocks[0], l.Blocks[1], l.Blocks[2])
		}
		var mem vk.DeviceMemory
		if m := sb.Memory; m != nil {
			if err := m.fits(d, "a sparse block", s.heap, s.block, sb.Offset); err != nil {
				return fmt.Errorf("vulkan: BindSparse: %w", err)
			}
			mem = m.h
		}
		one := info(sb, mem)
		all.Buffers = append(all.Buffers, one.Buffers...)
		all.Images = append(all.Images, one.Images...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// References: taken for the new bindings before the old ones drop.
	for i, sb := range binds {
		if sb.Memory != nil && !sb.Memory.ref() {
			unrefAll(binds[:i])
			return ErrClosed
		}
	}
	d.mu.Lock()
	serial := d.serial + 1
	if d.timeline != 0 {
		all.Semaphore, all.Wait, all.Signal = d.timeline, d.serial, serial
	} else if err := d.raw.QueueWaitIdle(d.queue); err != nil {
		d.mu.Unlock()
		return fmt.Errorf("vulkan: BindSparse: %w", err)
	}
	err := d.raw.QueueBindSparse(d.queue, all)
	if err == nil && d.timeline != 0 {
		d.serial = serial
	}
	d.mu.Unlock()
	if err == nil {
		if d.timeline != 0 {
			err = d.waitSerial(serial)
		} else {
			err = d.raw.QueueWaitIdle(d.queue)
		}
	}
	if err != nil {
		unrefAll(binds)
		return fmt.Errorf("vulkan: BindSparse: %w", err)
	}
	for _, sb := range binds {
		k := [4]uint32{sb.Block[0], sb.Block[1], sb.Block[2], sb.Layer}
		if old := s.bound[k]; old != nil {
			old.unref()
		}
		if sb.Memory != nil {
			s.bound[k] = sb.Memory
		} else {
			delete(s.bound, k)
		}
	}
	return nil
}

// unrefAll drops the references bindSparse took for binds.
func unrefAll(binds []SparseBind) {
	for _, sb := range binds {
		if sb.Memory != nil {
			sb.Memory.unref()
		}
	}
}

// blockRequirements is what one block of a sparse resource of
// requirements req takes of a memory: req.Alignment bytes, so aligned, of
// one of its memory types.
func blockRequirements(req vk.MemoryRequirements) vk.MemoryRequirements {
	return vk.MemoryRequirements{Size: req.Alignment, Alignment: req.Alignment, MemoryTypeBits: req.MemoryTypeBits}
}

// placeImage finishes createImage for an image placed in mem at off, or a
// sparse one (flags has the sparse bits).
func (d *Device) placeImage(img *Image, req vk.MemoryRequirements, mem *Memory, off uint64, flags uint32) (*Image, error) {
	img.allocSize = req.Size
	if flags&vk.CreateSparseBinding != 0 {
		g, ok := d.raw.SparseImageGranularity(img.h)
		if !ok || g[0] == 0 || g[1] == 0 || g[2] == 0 {
			d.raw.DestroyImage(img.h)
			return nil, fmt.Errorf("%s reports no sparse block shape for %v images of this format: %w", d.pd.Name, img.opts.Dim, ErrUnsupported)
		}
		o := img.opts
		img.sparse = &sparseState{heap: HeapDefault, block: blockRequirements(req), bound: map[[4]uint32]*Memory{}, layout: SparseLayout{
			Block:   g,
			Blocks:  [3]uint32{(o.Width + g[0] - 1) / g[0], (o.Height + g[1] - 1) / g[1], (o.Depth + g[2] - 1) / g[2]},
			Size:    req.Alignment,
			Aliased: flags&vk.CreateSparseAliased != 0,
		}}
		d.register(img)
		return img, nil
	}
	if mem.external != 0 {
		d.raw.DestroyImage(img.h)
		return nil, fmt.Errorf("an image placed in imported memory: only buffers are: %w", ErrPlacement)
	}
	if err := mem.place(d, "an image", HeapDefault, req, off); err != nil {
		d.raw.DestroyImage(img.h)
		return nil, err
	}
	if err := d.raw.BindImageMemory(img.h, mem.h, off); err != nil {
		d.raw.DestroyImage(img.h)
		mem.unref()
		return nil, err
	}
	img.memory, img.mem = mem, mem.h
	img.alias = &mem.lastUse
	d.register(img)
	return img, nil
}

// Memory returns the Memory the image is placed in, or nil.
func (i *Image) Memory() *Memory { return i.memory }

// Sparse returns the layout of a sparse image's blocks; ok is false for
// an image that is not sparse.
func (i *Image) Sparse() (l SparseLayout, ok bool) {
	if i.sparse == nil {
		return l, false
	}
	return i.sparse.layout, true
}

// BindSparse binds blocks of a sparse image (mip level 0) to memory,
// after the work submitted before, and returns when the binding is done.
func (i *Image) BindSparse(binds ...SparseBind) error {
	if err := i.acquire(); err != nil {
		return err
	}
	defer i.life.release()
	if i.sparse == nil {
		return errors.New("vulkan: BindSparse: the image is not sparse")
	}
	for _, sb := range binds {
		if sb.Layer >= i.opts.Layers {
			return fmt.Errorf("vulkan: BindSparse: layer %d of an image of %d layers", sb.Layer, i.opts.Layers)
		}
	}
	return i.d.bindSparse(i.sparse, binds, func(sb SparseBind, mem vk.DeviceMemory) vk.BindSparseInfo {
		l := i.sparse.layout
		o := i.opts
		var off [3]int32
		var ext [3]uint32
		full := [3]uint32{o.Width, o.Height, o.Depth}
		for k := range 3 {
			start := sb.Block[k] * l.Block[k]
			off[k] = int32(start)
			ext[k] = min(l.Block[k], full[k]-start) // the last block may be partial
		}
		return vk.BindSparseInfo{Images: []vk.SparseImageBind{{Image: i.h, Layer: sb.Layer, Offset: off, Extent: ext,
			Memory: mem, MemoryOffset: sb.Offset}}}
	})
}
