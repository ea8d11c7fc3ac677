package gfxcuda

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ErrNotExportable is returned by ExportFD for memory this process imported:
// only the allocation's owner exports it (share the exporter's handle
// instead).
var ErrNotExportable = errors.New("interop: imported memory cannot be exported again; export the original")

// ImportOptions describe the exporter's allocation to ImportBuffer and
// ImportTexture. Take them from the exporter: Buffer.AllocationSize and
// Buffer.Dedicated, Texture.AllocationSize.
type ImportOptions struct {
	// AllocationSize is the size of the exporter's allocation, which may
	// exceed the buffer's size.
	AllocationSize uint64
	// Dedicated says the exporter's allocation is dedicated to one buffer
	// (Vulkan-allocated buffers); CUDA allocations are not. Textures are
	// always dedicated.
	Dedicated bool
	// FromCUDA says the memory is a CUDA allocation (cuMemCreate with a
	// POSIX descriptor: Buffer.FromCUDA of the exporter): CUDA maps it
	// with cuMemImportFromShareableHandle, cuMemMap and cuMemSetAccess,
	// NVIDIA's path for such memory, rather than as external memory.
	// Buffers only.
	FromCUDA bool
	// Offset is where the buffer starts in the allocation (Buffer.Offset
	// of the exporter: a buffer over part of a Pool's segment). Only CUDA
	// allocations (FromCUDA) have one.
	Offset uint64
	// LazyVulkan imports the memory into CUDA now and into Vulkan when
	// Vulkan first asks for it (Buffer.Vulkan, Texture.Vulkan): a consumer
	// that only touches it from CUDA never pays for the Vulkan import.
	// Hand-offs (ToCUDA, Done) leave the Vulkan side alone until it
	// exists. The descriptor is kept open until then.
	LazyVulkan bool
}

// ExportFD exports the buffer's memory as a new OPAQUE_FD file descriptor
// that the caller owns: the Vulkan allocation of NewBuffer, or the CUDA
// allocation of NewBufferFromCUDA. An importer needs AllocationSize and
// Dedicated too. Buffers made by ImportBuffer return ErrNotExportable.
func (b *Buffer) ExportFD() (int, error) {
	if err := b.live(); err != nil {
		return -1, err
	}
	switch {
	case b.imported:
		return -1, ErrNotExportable
	case b.cu != nil:
		return b.cu.ExportFD()
	case b.seg != nil:
		return b.seg.ExportFD()
	case b.vk.Exportable():
		return b.vk.ExportFD()
	}
	return -1, ErrNotExportable
}

// AllocationSize is the size of the allocation behind the buffer: what an
// importer of ExportFD's descriptor must be told.
func (b *Buffer) AllocationSize() uint64 {
	switch {
	case b.cu != nil:
		return b.cu.Size()
	case b.seg != nil:
		return b.seg.Size()
	case b.lazy != nil:
		return b.lazy.alloc
	}
	return b.vk.AllocationSize()
}

// Dedicated reports whether the buffer's allocation is dedicated to it (an
// importer must say the same).
func (b *Buffer) Dedicated() bool {
	switch {
	case b.cu != nil || b.seg != nil:
		return false
	case b.lazy != nil:
		return b.lazy.dedicated
	}
	return b.vk.Dedicated()
}

// ImportBuffer imports size bytes of exported memory (a descriptor from
// Buffer.ExportFD, in this process or another) into both Vulkan and CUDA,
// as a Buffer like those NewBuffer makes (with o.LazyVulkan, into Vulkan
// on first use). It takes ownership of fd: it is closed when the call
// fails, and owned by the Buffer when it succeeds. The memory stays valid
// until the imported Buffer is closed, whatever the exporter does
// meanwhile.
func (d *Device) ImportBuffer(fd int, size uint64, o ImportOptions) (*Buffer, error) {
	if fd < 0 {
		return nil, fmt.Errorf("interop: ImportBuffer: invalid file descriptor %d", fd)
	}
	if size == 0 || o.Offset > o.AllocationSize || o.AllocationSize-o.Offset < size {
		closeFD(fd)
		return nil, fmt.Errorf("interop: ImportBuffer: %d bytes at offset %d of an allocation of %d", size, o.Offset, o.AllocationSize)
	}
	if o.Offset != 0 && !o.FromCUDA {
		closeFD(fd)
		return nil, errors.New("interop: ImportBuffer: only CUDA allocations (ImportOptions.FromCUDA) hold buffers at an offset")
	}
	fd2, err := dupCloexec(fd)
	if err != nil {
		closeFD(fd)
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		closeFD(fd)
		closeFD(fd2)
		return nil, err
	}
	b := &Buffer{s: state{d: d}, size: size, imported: true, segOff: o.Offset}
	if o.LazyVulkan {
		b.lazy = &lazyVulkan{fd: fd, alloc: o.AllocationSize, dedicated: o.Dedicated}
	} else {
		vb, err := importVulkanBuffer(d.vk, fd, size, o.AllocationSize, o.Dedicated, o.Offset) // takes fd
		if err != nil {
			closeFD(fd2)
			return nil, fmt.Errorf("interop: importing a buffer into Vulkan: %w", err)
		}
		b.vk = vb
	}
	fail := func(err error) (*Buffer, error) {
		if b.vk != nil {
			b.vk.Close()
		}
		b.lazy.close()
		return nil, err
	}
	if o.FromCUDA {
		sm, err := d.ctx.ImportShareableFD(fd2, o.AllocationSize)
		closeFD(fd2)
		if err != nil {
			return fail(fmt.Errorf("interop: importing a CUDA allocation into CUDA: %w", err))
		}
		b.cu, b.ptr = sm, sm.Ptr()+cuda.DevicePtr(o.Offset)
	} else {
		ext, err := d.ctx.ImportMemoryFD(fd2, o.AllocationSize, o.Dedicated) // takes fd2
		if err != nil {
			return fail(fmt.Errorf("interop: importing a buffer into CUDA: %w", err))
		}
		mb, err := ext.MapBuffer(0, size)
		if err != nil {
			ext.Close()
			return fail(err)
		}
		b.ext, b.mapped, b.ptr = ext, mb, mb.Ptr()
	}
	d.kids[b] = struct{}{}
	return b, nil
}

// ExportFD exports the texture's memory as a new OPAQUE_FD file descriptor
// the caller owns. An importer needs the texture's Options (Usage
// included) and AllocationSize.
func (t *Texture) ExportFD() (int, error) {
	d := t.s.d
	d.mu.Lock()
	closed := t.s.closed || d.closed
	d.mu.Unlock()
	if closed {
		return -1, ErrClosed
	}
	if t.imported || !t.vk.Options().Exportable {
		return -1, ErrNotExportable
	}
	return t.vk.ExportFD()
}

// AllocationSize is the size of the texture's (dedicated) allocation.
func (t *Texture) AllocationSize() uint64 {
	if t.lazy != nil {
		return t.lazy.alloc
	}
	return t.vk.AllocationSize()
}

// ImportTexture imports a texture's exported memory (from Texture.ExportFD,
// in this process or another) into Vulkan and CUDA (with io.LazyVulkan,
// into Vulkan on first use). o must be the
// exporter's Options (format, size, layers, usage and view formats); io.AllocationSize
// the exporter's AllocationSize (textures are dedicated allocations:
// io.Dedicated is ignored). The exporter must leave the texels in the
// GENERAL layout (as hand-offs to CUDA do); the import acquires them in it.
// It takes ownership of fd, as ImportBuffer does.
func (d *Device) ImportTexture(fd int, o TextureOptions, io ImportOptions) (*Texture, error) {
	if fd < 0 {
		return nil, fmt.Errorf("interop: ImportTexture: invalid file descriptor %d", fd)
	}
	in, ok := format.Lookup(o.Format)
	fail := func(err error) (*Texture, error) {
		closeFD(fd)
		return nil, err
	}
	switch {
	case !ok:
		return fail(fmt.Errorf("interop: ImportTexture: unknown format %v", o.Format))
	case !in.CUDAArrayCapable():
		return fail(fmt.Errorf("%w: ImportTexture: format %s has no CUDA array equivalent", ErrUnsupported, o.Format))
	case o.Width == 0 || o.Height == 0:
		return fail(fmt.Errorf("interop: ImportTexture: texture of %dx%d texels", o.Width, o.Height))
	case o.Usage == 0:
		return fail(errors.New("interop: ImportTexture: TextureOptions.Usage must be the exporter's (Texture.Options().Usage)"))
	case io.AllocationSize == 0:
		return fail(errors.New("interop: ImportTexture: ImportOptions.AllocationSize must be the exporter's"))
	}
	if o.Layers == 0 {
		o.Layers = 1
	}
	fd2, err := dupCloexec(fd)
	if err != nil {
		return fail(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		closeFD(fd2)
		return fail(err)
	}
	o.ViewFormats = slices.Clone(o.ViewFormats) // the caller's slice stays theirs
	t := &Texture{s: state{d: d}, o: o, info: in, imported: true}
	if io.LazyVulkan {
		t.lazy = &lazyVulkan{fd: fd, alloc: io.AllocationSize, dedicated: true}
	} else if _, err := t.importVulkan(fd, io.AllocationSize); err != nil {
		closeFD(fd2)
		return nil, err
	}
	ext, err := d.ctx.ImportMemoryFD(fd2, io.AllocationSize, true) // takes fd2
	if err != nil {
		t.lazy.close()
		if t.vk != nil {
			t.vk.Close()
		}
		return nil, fmt.Errorf("interop: importing a texture into CUDA: %w", err)
	}
	desc := cuda.ArrayDesc{Width: uint64(o.Width), Height: uint64(o.Height), Format: cuda.ArrayFormat(in.CUDAFormat),
		Channels: uint32(in.CUDAChannels), Surface: o.Usage&vulkan.ImageStorage != 0,
		ColorTarget: o.Usage&vulkan.ImageColorAttachment != 0}
	if o.Layers > 1 {
		desc.Layers = uint64(o.Layers)
	}
	arr, err := ext.MapArray(0, desc)
	if err != nil {
		ext.Close()
		t.lazy.close()
		if t.vk != nil {
			t.vk.Close()
		}
		return nil, err
	}
	t.ext, t.arr = ext, arr
	d.kids[t] = struct{}{}
	return t, nil
}
