package interop

import (
	"errors"
	"fmt"
	"syscall"

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
	case b.cu != nil:
		return b.cu.ExportFD()
	case b.vk.Exportable():
		return b.vk.ExportFD()
	}
	return -1, ErrNotExportable
}

// AllocationSize is the size of the allocation behind the buffer: what an
// importer of ExportFD's descriptor must be told.
func (b *Buffer) AllocationSize() uint64 {
	if b.cu != nil {
		return b.cu.Size()
	}
	return b.vk.AllocationSize()
}

// Dedicated reports whether the buffer's allocation is dedicated to it (an
// importer must say the same).
func (b *Buffer) Dedicated() bool {
	if b.cu != nil {
		return false
	}
	return b.vk.Dedicated()
}

func (b *Buffer) live() error {
	d := b.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if b.s.closed || d.closed {
		return ErrClosed
	}
	return nil
}

// ImportBuffer imports size bytes of exported memory (a descriptor from
// Buffer.ExportFD, in this process or another) into both Vulkan and CUDA,
// as a Buffer like those NewBuffer makes. It takes ownership of fd: it is
// closed when the call fails, and owned by the Buffer when it succeeds.
// The memory stays valid until the imported Buffer is closed, whatever the
// exporter does meanwhile.
func (d *Device) ImportBuffer(fd int, size uint64, o ImportOptions) (*Buffer, error) {
	if fd < 0 {
		return nil, fmt.Errorf("interop: ImportBuffer: invalid file descriptor %d", fd)
	}
	if size == 0 || o.AllocationSize < size {
		syscall.Close(fd)
		return nil, fmt.Errorf("interop: ImportBuffer: %d bytes from an allocation of %d", size, o.AllocationSize)
	}
	fd2, err := dupCloexec(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		syscall.Close(fd)
		syscall.Close(fd2)
		return nil, err
	}
	vb, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: size,
		Import: &vulkan.ImportFD{FD: fd, Size: o.AllocationSize, Dedicated: o.Dedicated}}) // takes fd
	if err != nil {
		syscall.Close(fd2)
		return nil, fmt.Errorf("interop: importing a buffer into Vulkan: %w", err)
	}
	ext, err := d.ctx.ImportMemoryFD(fd2, o.AllocationSize, o.Dedicated) // takes fd2
	if err != nil {
		vb.Close()
		return nil, fmt.Errorf("interop: importing a buffer into CUDA: %w", err)
	}
	mb, err := ext.MapBuffer(0, size)
	if err != nil {
		ext.Close()
		vb.Close()
		return nil, err
	}
	b := &Buffer{s: state{d: d}, vk: vb, ext: ext, mapped: mb, ptr: mb.Ptr(), size: size}
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
	if !t.vk.Options().Exportable {
		return -1, ErrNotExportable
	}
	return t.vk.ExportFD()
}

// AllocationSize is the size of the texture's (dedicated) allocation.
func (t *Texture) AllocationSize() uint64 { return t.vk.AllocationSize() }

// ImportTexture imports a texture's exported memory (from Texture.ExportFD,
// in this process or another) into Vulkan and CUDA. o must be the
// exporter's Options (format, size, layers and usage); io.AllocationSize
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
		syscall.Close(fd)
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
		syscall.Close(fd2)
		return fail(err)
	}
	img, err := d.vk.NewImage(vulkan.ImageOptions{Dim: vulkan.Image2D, Format: uint32(o.Format), Width: o.Width, Height: o.Height,
		Layers: o.Layers, Usage: o.Usage, Import: &vulkan.ImportFD{FD: fd, Size: io.AllocationSize, Dedicated: true}}) // takes fd
	if err != nil {
		syscall.Close(fd2)
		return nil, fmt.Errorf("interop: importing a texture into Vulkan: %w", err)
	}
	ext, err := d.ctx.ImportMemoryFD(fd2, io.AllocationSize, true) // takes fd2
	if err != nil {
		img.Close()
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
		img.Close()
		return nil, err
	}
	// The exporter left the texels in GENERAL, released to external users:
	// acquire them so that no later transition from UNDEFINED discards them.
	err = d.vk.Run(func(c *vulkan.Commands) error {
		c.AcquireImageFromExternal(img, vulkan.LayoutGeneral, vulkan.LayoutGeneral)
		return c.Err()
	})
	if err != nil {
		ext.Close()
		img.Close()
		return nil, fmt.Errorf("interop: ImportTexture: acquiring the image: %w", err)
	}
	t := &Texture{s: state{d: d}, o: o, info: in, vk: img, ext: ext, arr: arr}
	d.kids[t] = struct{}{}
	return t, nil
}

// dupCloexec duplicates fd with close-on-exec set.
func dupCloexec(fd int) (int, error) {
	n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, fmt.Errorf("interop: duplicating file descriptor %d: %w", fd, errno)
	}
	return int(n), nil
}

// Device returns the Device that made or imported the buffer.
func (b *Buffer) Device() *Device { return b.s.d }

// FromCUDA reports whether the buffer's memory is a CUDA allocation
// (NewBufferFromCUDA) rather than a Vulkan one.
func (b *Buffer) FromCUDA() bool { return b.cu != nil }

// Device returns the Device that made or imported the texture.
func (t *Texture) Device() *Device { return t.s.d }
