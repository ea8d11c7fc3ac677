package cuda

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// ExternalMemory is memory exported by another API (a Vulkan or OpenGL
// allocation, as an OPAQUE_FD file descriptor) and imported into CUDA.
// Map it as a buffer (MapBuffer) or as a CUDA array (MapArray).
//
// Close unmaps every buffer and array mapped from it, then releases the
// import; the exporting API's allocation stays valid until it is freed there.
// It is safe for concurrent use; Close waits for calls in progress on it and
// on its arrays to return.
type ExternalMemory struct {
	ctx  *Context
	life life
	h    cu.ExternalMemory
	size uint64

	mu   sync.Mutex // guards kids
	kids map[interface{ Close() error }]struct{}
}

// ImportMemoryFD imports an OPAQUE_FD memory handle of size bytes (the real
// size of the exporting allocation, e.g. Vulkan's VkMemoryRequirements.size).
// dedicated must be true when the exporter made a dedicated allocation
// (always for images). Ownership of fd passes to this call: on success the
// driver owns it, on failure it is closed. Either way the caller must not use
// or close it again.
func (c *Context) ImportMemoryFD(fd int, size uint64, dedicated bool) (*ExternalMemory, error) {
	if err := fdsRefused(); err != nil {
		return nil, err
	}
	if size == 0 {
		closeFD(fd)
		return nil, fmt.Errorf("cuda: importing external memory of size 0: %w", ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		closeFD(fd)
		return nil, err
	}
	var flags uint32
	if dedicated {
		flags = cu.ExternalMemoryDedicated
	}
	h, r := cu.ImportExternalMemoryFD(c.h, fd, size, flags)
	if err := check("cuImportExternalMemory", r); err != nil {
		closeFD(fd)
		return nil, errors.Join(fmt.Errorf("importing %d bytes from fd %d: %w", size, fd, err), c.release())
	}
	return &ExternalMemory{ctx: c, h: h, size: size, kids: map[interface{ Close() error }]struct{}{}}, nil
}

// Size is the imported allocation's size in bytes.
func (m *ExternalMemory) Size() uint64 { return m.size }

// Context returns the context the memory is imported into.
func (m *ExternalMemory) Context() *Context { return m.ctx }

// Handle returns the raw CUexternalMemory. It is borrowed: valid until
// Close; never destroy it.
func (m *ExternalMemory) Handle() uintptr { return m.h.Handle() }

// adopt records a mapping so that Close closes it; it fails once Close has
// begun.
func (m *ExternalMemory) adopt(k interface{ Close() error }) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.kids == nil {
		return false
	}
	m.kids[k] = struct{}{}
	return true
}

// forget removes a closed mapping.
func (m *ExternalMemory) forget(k interface{ Close() error }) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.kids != nil {
		delete(m.kids, k)
	}
}

// Close releases the import and every mapping made from it, once calls in
// progress have returned. Work still queued on a mapping must have
// finished (Context.Synchronize waits for it, as cudaFree would): the
// exporter may free the memory next. Idempotent.
func (m *ExternalMemory) Close() error {
	return m.life.shut(func() error {
		m.mu.Lock()
		kids := m.kids
		m.kids = nil
		m.mu.Unlock()
		var first error
		for k := range kids {
			first = errors.Join(first, k.Close())
		}
		first = errors.Join(first, check("cuDestroyExternalMemory", cu.DestroyExternalMemory(m.ctx.h, m.h)))
		return errors.Join(first, m.ctx.release())
	})
}

// MappedBuffer is a range of external memory mapped as device memory.
type MappedBuffer struct {
	parent *ExternalMemory
	life   life
	ptr    DevicePtr
	size   uint64
}

// MapBuffer maps size bytes starting at offset as a device pointer. The
// pointer stays valid until the MappedBuffer or the ExternalMemory is closed.
func (m *ExternalMemory) MapBuffer(offset, size uint64) (*MappedBuffer, error) {
	if err := m.life.acquire(); err != nil {
		return nil, err
	}
	defer m.life.release()
	if size == 0 || offset+size > m.size || offset+size < offset {
		return nil, fmt.Errorf("cuda: mapping [%d, %d+%d) of external memory of %d bytes: %w", offset, offset, size, m.size, ErrorInvalidValue)
	}
	p, r := cu.ExternalMemoryGetMappedBuffer(m.ctx.h, m.h, offset, size)
	if err := check("cuExternalMemoryGetMappedBuffer", r); err != nil {
		return nil, err
	}
	b := &MappedBuffer{parent: m, ptr: DevicePtr(p), size: size}
	if !m.adopt(b) { // cannot happen while we hold a use; kept for safety
		return nil, errors.Join(check("cuMemFree", cu.MemFree(m.ctx.h, cu.DevicePtr(p))), ErrClosed)
	}
	return b, nil
}

// Ptr returns the device address (CUdeviceptr), or 0 once closed. It is
// borrowed: valid until the MappedBuffer or its ExternalMemory is closed.
func (b *MappedBuffer) Ptr() DevicePtr {
	if b.life.closed() {
		return 0
	}
	return b.ptr
}

// Size returns the mapping's size in bytes.
func (b *MappedBuffer) Size() uint64 { return b.size }

// Close unmaps the buffer. Idempotent; also done by ExternalMemory.Close.
func (b *MappedBuffer) Close() error {
	return b.life.shut(func() error {
		b.parent.forget(b)
		return check("cuMemFree", cu.MemFree(b.parent.ctx.h, cu.DevicePtr(b.ptr)))
	})
}

// ArrayFormat is a CUDA array element format (CUarray_format).
type ArrayFormat int

// Array element formats.
const (
	FormatUint8   ArrayFormat = 0x01
	FormatUint16  ArrayFormat = 0x02
	FormatUint32  ArrayFormat = 0x03
	FormatInt8    ArrayFormat = 0x08
	FormatInt16   ArrayFormat = 0x09
	FormatInt32   ArrayFormat = 0x0a
	FormatHalf    ArrayFormat = 0x10
	FormatFloat32 ArrayFormat = 0x20
)

// Size returns the bytes of one channel.
func (f ArrayFormat) Size() int {
	switch f {
	case FormatUint8, FormatInt8:
		return 1
	case FormatUint16, FormatInt16, FormatHalf:
		return 2
	case FormatUint32, FormatInt32, FormatFloat32:
		return 4
	}
	return 0
}

func (f ArrayFormat) String() string {
	switch f {
	case FormatUint8:
		return "uint8"
	case FormatUint16:
		return "uint16"
	case FormatUint32:
		return "uint32"
	case FormatInt8:
		return "int8"
	case FormatInt16:
		return "int16"
	case FormatInt32:
		return "int32"
	case FormatHalf:
		return "float16"
	case FormatFloat32:
		return "float32"
	}
	return fmt.Sprintf("ArrayFormat(%#x)", int(f))
}

// ArrayDesc describes a CUDA array: Layers > 0 makes a layered 2D array.
type ArrayDesc struct {
	Width, Height uint64
	Layers        uint64 // 0 for a plain 2D array
	Format        ArrayFormat
	Channels      uint32 // 1, 2 or 4
	Surface       bool   // usable as a surface object (CUDA_ARRAY3D_SURFACE_LDST)
	ColorTarget   bool   // the exporting image is a color attachment (CUDA_ARRAY3D_COLOR_ATTACHMENT)
}

func (d ArrayDesc) raw() cu.ArrayDesc {
	r := cu.ArrayDesc{Width: d.Width, Height: d.Height, Format: int(d.Format), Channels: d.Channels}
	if d.Layers > 0 {
		r.Depth = d.Layers
		r.Flags |= cu.Array3DLayered
	}
	if d.Surface {
		r.Flags |= cu.Array3DSurfaceLDST
	}
	if d.ColorTarget {
		r.Flags |= cu.Array3DColorAttachment
	}
	return r
}

// ElementSize is the bytes of one texel.
func (d ArrayDesc) ElementSize() uint64 { return uint64(d.Format.Size()) * uint64(d.Channels) }

// Array is a CUDA array: opaque, tiled texture memory. It is level 0 of an
// imported image (ExternalMemory.MapArray) or one created with NewArray.
// It is safe for concurrent use; Close waits for calls in progress on it to
// return.
type Array struct {
	ctx    *Context
	parent *ExternalMemory // nil for arrays made with NewArray
	life   life
	mip    cu.MipmappedArray
	h      cu.Array
	desc   ArrayDesc

	mu    sync.Mutex // guards surfs
	surfs []cu.SurfObject
	// borrowed: a graphics mapping's array (gl.go), owned by the mapping:
	// Close drops only its surface objects.
	borrowed bool
}

// MapArray maps an image's memory (starting at offset) as a CUDA array of
// the given shape. The description must match the exporting image: extent,
// layers, and a format with the same bytes per texel.
func (m *ExternalMemory) MapArray(offset uint64, d ArrayDesc) (*Array, error) {
	if d.Format.Size() == 0 || (d.Channels != 1 && d.Channels != 2 && d.Channels != 4) || d.Width == 0 || d.Height == 0 {
		return nil, fmt.Errorf("cuda: invalid array description %+v: %w", d, ErrorInvalidValue)
	}
	if err := m.life.acquire(); err != nil {
		return nil, err
	}
	defer m.life.release()
	mip, r := cu.ExternalMemoryGetMappedMipmappedArray(m.ctx.h, m.h, offset, d.raw(), 1)
	if err := check("cuExternalMemoryGetMappedMipmappedArray", r); err != nil {
		return nil, fmt.Errorf("mapping a %dx%d×%d %s×%d array: %w", d.Width, d.Height, d.Layers, d.Format, d.Channels, err)
	}
	lvl, r := cu.MipmappedArrayGetLevel(m.ctx.h, mip, 0)
	if err := check("cuMipmappedArrayGetLevel", r); err != nil {
		return nil, errors.Join(err, check("cuMipmappedArrayDestroy", cu.MipmappedArrayDestroy(m.ctx.h, mip)))
	}
	a := &Array{ctx: m.ctx, parent: m, mip: mip, h: lvl, desc: d}
	if !m.adopt(a) { // cannot happen while we hold a use; kept for safety
		return nil, errors.Join(check("cuMipmappedArrayDestroy", cu.MipmappedArrayDestroy(m.ctx.h, mip)), ErrClosed)
	}
	return a, nil
}

// NewArray allocates a CUDA array.
func (c *Context) NewArray(d ArrayDesc) (*Array, error) {
	if d.Format.Size() == 0 || (d.Channels != 1 && d.Channels != 2 && d.Channels != 4) || d.Width == 0 || d.Height == 0 {
		return nil, fmt.Errorf("cuda: invalid array description %+v: %w", d, ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		return nil, err
	}
	h, r := cu.Array3DCreate(c.h, d.raw())
	if err := check("cuArray3DCreate", r); err != nil {
		return nil, errors.Join(err, c.release())
	}
	return &Array{ctx: c, h: h, desc: d}, nil
}

// Desc returns the array's description.
func (a *Array) Desc() ArrayDesc { return a.desc }

// Handle returns the raw CUarray (level 0 of a mapped image). It is
// borrowed: valid until Close (of the array or of its ExternalMemory);
// never destroy it.
func (a *Array) Handle() uintptr { return a.h.Handle() }

// Close destroys the array and its surface objects once calls in progress
// have returned. Idempotent; also done by ExternalMemory.Close for mapped
// arrays.
func (a *Array) Close() error {
	return a.life.shut(func() error {
		if a.parent != nil {
			a.parent.forget(a)
		}
		a.mu.Lock()
		surfs := a.surfs
		a.surfs = nil
		a.mu.Unlock()
		var first error
		for _, s := range surfs {
			first = errors.Join(first, check("cuSurfObjectDestroy", cu.SurfObjectDestroy(a.ctx.h, s)))
		}
		if a.borrowed {
			return first
		}
		if a.parent != nil {
			return errors.Join(first, check("cuMipmappedArrayDestroy", cu.MipmappedArrayDestroy(a.ctx.h, a.mip)))
		}
		first = errors.Join(first, check("cuArrayDestroy", cu.ArrayDestroy(a.ctx.h, a.h)))
		return errors.Join(first, a.ctx.release())
	})
}

// SurfObject is a CUsurfObject: a handle kernels use to read and write an
// array with surf2Dread/surf2Dwrite. Pass it to Function.Launch as a uint64.
type SurfObject uint64

// Surface creates a surface object over the array (which must have been
// described with Surface: true). It is destroyed with the array.
func (a *Array) Surface() (SurfObject, error) {
	if err := a.life.acquire(); err != nil {
		return 0, err
	}
	defer a.life.release()
	s, r := cu.SurfObjectCreate(a.ctx.h, a.h)
	if err := check("cuSurfObjectCreate", r); err != nil {
		return 0, err
	}
	a.mu.Lock()
	a.surfs = append(a.surfs, s)
	a.mu.Unlock()
	return SurfObject(s), nil
}

// ArrayCopy copies between an array's layer and pitched device memory:
// Width×Height texels starting at texel (X, Y) of layer Layer.
type ArrayCopy struct {
	Array         *Array
	X, Y, Layer   uint64
	Width, Height uint64 // in texels; 0 means the whole array
	Ptr           DevicePtr
	Pitch         uint64 // bytes between rows at Ptr; 0 means tightly packed
}

// raw builds the copy; the caller holds a use of c.Array.
func (c ArrayCopy) raw(toArray bool) (*cu.Memcpy3D, error) {
	h := c.Array.h
	d := c.Array.desc
	if c.Width == 0 {
		c.Width = d.Width - c.X
	}
	if c.Height == 0 {
		c.Height = d.Height - c.Y
	}
	es := d.ElementSize()
	if c.Pitch == 0 {
		c.Pitch = c.Width * es
	}
	layers := d.Layers
	if layers == 0 {
		layers = 1
	}
	if c.X+c.Width > d.Width || c.Y+c.Height > d.Height || c.Layer >= layers {
		return nil, fmt.Errorf("cuda: copy of %dx%d at (%d,%d) layer %d outside a %dx%d array of %d layers: %w",
			c.Width, c.Height, c.X, c.Y, c.Layer, d.Width, d.Height, layers, ErrorInvalidValue)
	}
	if c.Pitch < c.Width*es {
		return nil, fmt.Errorf("cuda: pitch %d < row of %d bytes: %w", c.Pitch, c.Width*es, ErrorInvalidValue)
	}
	m := &cu.Memcpy3D{WidthInBytes: c.Width * es, Height: c.Height, Depth: 1}
	if toArray {
		m.SrcType, m.SrcDevice, m.SrcPitch, m.SrcHeight = cu.MemoryTypeDev, cu.DevicePtr(c.Ptr), c.Pitch, c.Height
		m.DstType, m.DstArray, m.DstX, m.DstY, m.DstZ = cu.MemoryTypeArr, h, c.X*es, c.Y, c.Layer
	} else {
		m.DstType, m.DstDevice, m.DstPitch, m.DstHeight = cu.MemoryTypeDev, cu.DevicePtr(c.Ptr), c.Pitch, c.Height
		m.SrcType, m.SrcArray, m.SrcX, m.SrcY, m.SrcZ = cu.MemoryTypeArr, h, c.X*es, c.Y, c.Layer
	}
	return m, nil
}

// CopyFromArray queues a copy from the array into device memory.
func (s *Stream) CopyFromArray(c ArrayCopy) error {
	return s.arrayCopy("CopyFromArray", c, false, func(m *cu.Memcpy3D, h cu.Stream) error {
		return check("cuMemcpy3DAsync", cu.MemcpyThreeDAsync(s.ctx.h, m, h))
	})
}

// CopyToArray queues a copy from device memory into the array.
func (s *Stream) CopyToArray(c ArrayCopy) error {
	return s.arrayCopy("CopyToArray", c, true, func(m *cu.Memcpy3D, h cu.Stream) error {
		return check("cuMemcpy3DAsync", cu.MemcpyThreeDAsync(s.ctx.h, m, h))
	})
}

// arrayCopy checks c (named fn in the error), holds a use of s and of
// c.Array, builds the copy's description and queues it with run.
func (s *Stream) arrayCopy(fn string, c ArrayCopy, toArray bool, run func(m *cu.Memcpy3D, h cu.Stream) error) error {
	if c.Array == nil {
		return fmt.Errorf("cuda: %s without an Array: %w", fn, ErrorInvalidValue)
	}
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	if err := c.Array.life.acquire(); err != nil {
		return err
	}
	defer c.Array.life.release()
	m, err := c.raw(toArray)
	if err != nil {
		return err
	}
	return run(m, h)
}
