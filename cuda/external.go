package cuda

import (
	"fmt"
	"sync"
	"syscall"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// ExternalMemory is memory exported by another API (a Vulkan or OpenGL
// allocation, as an OPAQUE_FD file descriptor) and imported into CUDA.
// Map it as a buffer (MapBuffer) or as a CUDA array (MapArray).
//
// Close unmaps every buffer and array mapped from it, then releases the
// import; the exporting API's allocation stays valid until it is freed there.
type ExternalMemory struct {
	ctx  *Context
	mu   sync.Mutex
	h    cu.ExternalMemory
	ok   bool
	size uint64
	kids map[interface{ closeLocked() error }]struct{}
}

// ImportMemoryFD imports an OPAQUE_FD memory handle of size bytes (the real
// size of the exporting allocation, e.g. Vulkan's VkMemoryRequirements.size).
// dedicated must be true when the exporter made a dedicated allocation
// (always for images). Ownership of fd passes to this call: on success the
// driver owns it, on failure it is closed. Either way the caller must not use
// or close it again.
func (c *Context) ImportMemoryFD(fd int, size uint64, dedicated bool) (*ExternalMemory, error) {
	if size == 0 {
		syscall.Close(fd)
		return nil, fmt.Errorf("cuda: importing external memory of size 0: %w", ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	var flags uint32
	if dedicated {
		flags = cu.ExternalMemoryDedicated
	}
	h, r := cu.ImportExternalMemoryFD(c.h, fd, size, flags)
	if err := check("cuImportExternalMemory", r); err != nil {
		syscall.Close(fd)
		c.release()
		return nil, fmt.Errorf("importing %d bytes from fd %d: %w", size, fd, err)
	}
	return &ExternalMemory{ctx: c, h: h, ok: true, size: size, kids: map[interface{ closeLocked() error }]struct{}{}}, nil
}

// Size is the imported allocation's size in bytes.
func (m *ExternalMemory) Size() uint64 { return m.size }

// Context returns the context the memory is imported into.
func (m *ExternalMemory) Context() *Context { return m.ctx }

// Close releases the import and every mapping made from it. Idempotent.
func (m *ExternalMemory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ok {
		return nil
	}
	m.ok = false
	var first error
	for k := range m.kids {
		if err := k.closeLocked(); err != nil && first == nil {
			first = err
		}
	}
	m.kids = nil
	if err := check("cuDestroyExternalMemory", cu.DestroyExternalMemory(m.ctx.h, m.h)); err != nil && first == nil {
		first = err
	}
	if err := m.ctx.release(); err != nil && first == nil {
		first = err
	}
	return first
}

// MappedBuffer is a range of external memory mapped as device memory.
type MappedBuffer struct {
	parent *ExternalMemory
	ptr    DevicePtr
	size   uint64
	ok     bool
}

// MapBuffer maps size bytes starting at offset as a device pointer. The
// pointer stays valid until the MappedBuffer or the ExternalMemory is closed.
func (m *ExternalMemory) MapBuffer(offset, size uint64) (*MappedBuffer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ok {
		return nil, ErrClosed
	}
	if size == 0 || offset+size > m.size || offset+size < offset {
		return nil, fmt.Errorf("cuda: mapping [%d, %d+%d) of external memory of %d bytes: %w", offset, offset, size, m.size, ErrorInvalidValue)
	}
	p, r := cu.ExternalMemoryGetMappedBuffer(m.ctx.h, m.h, offset, size)
	if err := check("cuExternalMemoryGetMappedBuffer", r); err != nil {
		return nil, err
	}
	b := &MappedBuffer{parent: m, ptr: DevicePtr(p), size: size, ok: true}
	m.kids[b] = struct{}{}
	return b, nil
}

// Ptr returns the device address, or 0 once closed.
func (b *MappedBuffer) Ptr() DevicePtr {
	b.parent.mu.Lock()
	defer b.parent.mu.Unlock()
	if !b.ok {
		return 0
	}
	return b.ptr
}

// Size returns the mapping's size in bytes.
func (b *MappedBuffer) Size() uint64 { return b.size }

func (b *MappedBuffer) closeLocked() error {
	if !b.ok {
		return nil
	}
	b.ok = false
	return check("cuMemFree", cu.MemFree(b.parent.ctx.h, cu.DevicePtr(b.ptr)))
}

// Close unmaps the buffer. Idempotent; also done by ExternalMemory.Close.
func (b *MappedBuffer) Close() error {
	b.parent.mu.Lock()
	defer b.parent.mu.Unlock()
	if b.parent.kids != nil {
		delete(b.parent.kids, b)
	}
	return b.closeLocked()
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
type Array struct {
	ctx    *Context
	parent *ExternalMemory // nil for arrays made with NewArray
	mu     sync.Mutex
	mip    cu.MipmappedArray
	h      cu.Array
	desc   ArrayDesc
	ok     bool
	surfs  []cu.SurfObject
	// borrowed: a graphics mapping's array (gl.go), owned by the mapping.
	borrowed bool
}

// MapArray maps an image's memory (starting at offset) as a CUDA array of
// the given shape. The description must match the exporting image: extent,
// layers, and a format with the same bytes per texel.
func (m *ExternalMemory) MapArray(offset uint64, d ArrayDesc) (*Array, error) {
	if d.Format.Size() == 0 || (d.Channels != 1 && d.Channels != 2 && d.Channels != 4) || d.Width == 0 || d.Height == 0 {
		return nil, fmt.Errorf("cuda: invalid array description %+v: %w", d, ErrorInvalidValue)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ok {
		return nil, ErrClosed
	}
	mip, r := cu.ExternalMemoryGetMappedMipmappedArray(m.ctx.h, m.h, offset, d.raw(), 1)
	if err := check("cuExternalMemoryGetMappedMipmappedArray", r); err != nil {
		return nil, fmt.Errorf("mapping a %dx%d×%d %s×%d array: %w", d.Width, d.Height, d.Layers, d.Format, d.Channels, err)
	}
	lvl, r := cu.MipmappedArrayGetLevel(m.ctx.h, mip, 0)
	if err := check("cuMipmappedArrayGetLevel", r); err != nil {
		cu.MipmappedArrayDestroy(m.ctx.h, mip)
		return nil, err
	}
	a := &Array{ctx: m.ctx, parent: m, mip: mip, h: lvl, desc: d, ok: true}
	m.kids[a] = struct{}{}
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
		c.release()
		return nil, err
	}
	return &Array{ctx: c, h: h, desc: d, ok: true}, nil
}

// Desc returns the array's description.
func (a *Array) Desc() ArrayDesc { return a.desc }

func (a *Array) lock() func() {
	if a.parent != nil {
		a.parent.mu.Lock()
		return a.parent.mu.Unlock
	}
	a.mu.Lock()
	return a.mu.Unlock
}

func (a *Array) closeLocked() error {
	if !a.ok {
		return nil
	}
	a.ok = false
	var first error
	for _, s := range a.surfs {
		if err := check("cuSurfObjectDestroy", cu.SurfObjectDestroy(a.ctx.h, s)); err != nil && first == nil {
			first = err
		}
	}
	a.surfs = nil
	if a.borrowed {
		return first
	}
	if a.parent != nil {
		first = firstErr(first, check("cuMipmappedArrayDestroy", cu.MipmappedArrayDestroy(a.ctx.h, a.mip)))
	} else {
		first = firstErr(first, check("cuArrayDestroy", cu.ArrayDestroy(a.ctx.h, a.h)))
		first = firstErr(first, a.ctx.release())
	}
	return first
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// Close destroys the array and its surface objects. Idempotent; also done
// by ExternalMemory.Close for mapped arrays.
func (a *Array) Close() error {
	unlock := a.lock()
	defer unlock()
	if a.parent != nil && a.parent.kids != nil {
		delete(a.parent.kids, a)
	}
	return a.closeLocked()
}

// SurfObject is a CUsurfObject: a handle kernels use to read and write an
// array with surf2Dread/surf2Dwrite. Pass it to Function.Launch as a uint64.
type SurfObject uint64

// Surface creates a surface object over the array (which must have been
// described with Surface: true). It is destroyed with the array.
func (a *Array) Surface() (SurfObject, error) {
	unlock := a.lock()
	defer unlock()
	if !a.ok {
		return 0, ErrClosed
	}
	s, r := cu.SurfObjectCreate(a.ctx.h, a.h)
	if err := check("cuSurfObjectCreate", r); err != nil {
		return 0, err
	}
	a.surfs = append(a.surfs, s)
	return SurfObject(s), nil
}

// handle returns the raw array or ErrClosed.
func (a *Array) handle() (cu.Array, error) {
	unlock := a.lock()
	defer unlock()
	if !a.ok {
		return cu.Array{}, ErrClosed
	}
	return a.h, nil
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

func (c ArrayCopy) raw(toArray bool) (*cu.Memcpy3D, error) {
	h, err := c.Array.handle()
	if err != nil {
		return nil, err
	}
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
	h, err := s.handle()
	if err != nil {
		return err
	}
	m, err := c.raw(false)
	if err != nil {
		return err
	}
	return check("cuMemcpy3DAsync", cu.MemcpyThreeDAsync(s.ctx.h, m, h))
}

// CopyToArray queues a copy from device memory into the array.
func (s *Stream) CopyToArray(c ArrayCopy) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	m, err := c.raw(true)
	if err != nil {
		return err
	}
	return check("cuMemcpy3DAsync", cu.MemcpyThreeDAsync(s.ctx.h, m, h))
}
