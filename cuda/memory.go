package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// DevicePtr is a CUDA device address (CUdeviceptr).
type DevicePtr uint64

// Add returns p advanced by n bytes.
func (p DevicePtr) Add(n uint64) DevicePtr { return p + DevicePtr(n) }

// DeviceMemory is device memory allocated with cuMemAlloc.
type DeviceMemory struct {
	ctx  *Context
	life life
	ptr  DevicePtr
	size uint64
}

// Alloc allocates n bytes of device memory (n > 0). Its contents are
// undefined. Close frees it.
func (c *Context) Alloc(n uint64) (*DeviceMemory, error) {
	if n == 0 {
		return nil, fmt.Errorf("cuda: Alloc of 0 bytes: %w", ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		return nil, err
	}
	p, r := cu.MemAlloc(c.h, n)
	if err := check("cuMemAlloc", r); err != nil {
		return nil, errors.Join(fmt.Errorf("allocating %d bytes on device %d: %w", n, c.dev.ordinal, err), c.release())
	}
	return &DeviceMemory{ctx: c, ptr: DevicePtr(p), size: n}, nil
}

// Ptr returns the device address (the CUdeviceptr), or 0 after Close. It is
// borrowed: valid until Close, which the caller must not call while work
// using the address is queued or running.
func (m *DeviceMemory) Ptr() DevicePtr {
	if m.life.closed() {
		return 0
	}
	return m.ptr
}

// Size returns the allocation's size in bytes.
func (m *DeviceMemory) Size() uint64 { return m.size }

// Context returns the context the memory belongs to.
func (m *DeviceMemory) Context() *Context { return m.ctx }

// Close frees the memory. It is idempotent. Work still queued on streams
// that uses the memory must have finished (the driver frees asynchronously
// only with stream-ordered allocation, which this is not).
func (m *DeviceMemory) Close() error {
	return m.life.shut(func() error {
		err := check("cuMemFree", cu.MemFree(m.ctx.h, cu.DevicePtr(m.ptr)))
		return errors.Join(err, m.ctx.release())
	})
}

// HostMemory is page-locked ("pinned") host memory allocated by the driver,
// usable for asynchronous copies and mapped into every context (portable).
// Bytes returns a slice over it; the slice must not be used after Close.
type HostMemory struct {
	ctx  *Context
	life life
	p    unsafe.Pointer
	size uint64
}

// cuMemHostAlloc flags.
const hostAllocPortable = 0x01

// pinned records live HostMemory ranges so that asynchronous copies can
// check that the host memory they are given is pinned.
var pinned struct {
	sync.Mutex
	ranges []pinRange // sorted by start
}

type pinRange struct{ start, end uintptr }

func pinAdd(p unsafe.Pointer, n uint64) {
	pinned.Lock()
	defer pinned.Unlock()
	s := uintptr(p)
	i := sort.Search(len(pinned.ranges), func(i int) bool { return pinned.ranges[i].start >= s })
	pinned.ranges = append(pinned.ranges, pinRange{})
	copy(pinned.ranges[i+1:], pinned.ranges[i:])
	pinned.ranges[i] = pinRange{s, s + uintptr(n)}
}

func pinRemove(p unsafe.Pointer) {
	pinned.Lock()
	defer pinned.Unlock()
	s := uintptr(p)
	i := sort.Search(len(pinned.ranges), func(i int) bool { return pinned.ranges[i].start >= s })
	if i < len(pinned.ranges) && pinned.ranges[i].start == s {
		pinned.ranges = append(pinned.ranges[:i], pinned.ranges[i+1:]...)
	}
}

// isPinned reports whether b lies entirely inside one live HostMemory.
func isPinned(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	s := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	e := s + uintptr(len(b))
	pinned.Lock()
	defer pinned.Unlock()
	i := sort.Search(len(pinned.ranges), func(i int) bool { return pinned.ranges[i].start > s })
	return i > 0 && pinned.ranges[i-1].start <= s && e <= pinned.ranges[i-1].end
}

// AllocHost allocates n bytes of pinned host memory (n > 0).
func (c *Context) AllocHost(n uint64) (*HostMemory, error) {
	if n == 0 {
		return nil, fmt.Errorf("cuda: AllocHost of 0 bytes: %w", ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		return nil, err
	}
	p, r := cu.MemHostAlloc(c.h, n, hostAllocPortable)
	if err := check("cuMemHostAlloc", r); err != nil {
		return nil, errors.Join(fmt.Errorf("allocating %d bytes of pinned host memory: %w", n, err), c.release())
	}
	pinAdd(p, n)
	return &HostMemory{ctx: c, p: p, size: n}, nil
}

// Bytes returns the memory as a slice, or nil after Close. The slice is
// borrowed: it must not be used after Close, nor Close called while a copy
// queued on it may still run.
func (h *HostMemory) Bytes() []byte {
	if h.life.closed() {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.size)
}

// Size returns the allocation's size in bytes.
func (h *HostMemory) Size() uint64 { return h.size }

// Close frees the memory. It is idempotent.
func (h *HostMemory) Close() error {
	return h.life.shut(func() error {
		pinRemove(h.p)
		err := check("cuMemFreeHost", cu.MemFreeHost(h.ctx.h, h.p))
		return errors.Join(err, h.ctx.release())
	})
}

// completed waits, after a Context-level copy or memset r, for the legacy
// default stream it ran on. The driver returns from cuMemsetD8/D32,
// cuMemcpyDtoD and pageable-to-device copies before the device is done
// (only later work on the legacy stream is ordered after them), so without
// this a caller's work on a non-blocking stream, or another API, could see
// the old bytes.
func (c *Context) completed(call string, r cu.Result) error {
	if err := check(call, r); err != nil {
		return err
	}
	return check("cuStreamSynchronize", cu.StreamSynchronizeIn(c.h, cu.Stream{}))
}

func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// CopyHtoD copies src from host memory (any Go slice) to device address dst
// and returns when the copy has completed.
func (c *Context) CopyHtoD(dst DevicePtr, src []byte) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	if len(src) == 0 {
		return nil
	}
	return c.completed("cuMemcpyHtoD", cu.MemcpyHtoD(c.h, cu.DevicePtr(dst), bytesPtr(src), uint64(len(src))))
}

// CopyDtoH copies len(dst) bytes from device address src into dst and
// returns when the copy has completed.
func (c *Context) CopyDtoH(dst []byte, src DevicePtr) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	if len(dst) == 0 {
		return nil
	}
	return check("cuMemcpyDtoH", cu.MemcpyDtoH(c.h, bytesPtr(dst), cu.DevicePtr(src), uint64(len(dst))))
}

// CopyDtoD copies n bytes between device addresses and returns when the
// copy has completed.
func (c *Context) CopyDtoD(dst, src DevicePtr, n uint64) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	return c.completed("cuMemcpyDtoD", cu.MemcpyDtoD(c.h, cu.DevicePtr(dst), cu.DevicePtr(src), n))
}

// Memset8 sets n bytes at p to v and returns when they are set.
func (c *Context) Memset8(p DevicePtr, v uint8, n uint64) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	return c.completed("cuMemsetD8", cu.MemsetD8(c.h, cu.DevicePtr(p), v, n))
}

// Memset32 sets n 32-bit words at p (4-byte aligned) to v and returns when
// they are set.
func (c *Context) Memset32(p DevicePtr, v uint32, n uint64) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	return c.completed("cuMemsetD32", cu.MemsetD32(c.h, cu.DevicePtr(p), v, n))
}

// Pitched is one side of a 2D copy: device memory (Ptr) or host memory
// (Host), starting X bytes and Y rows in, with rows Pitch bytes apart.
type Pitched struct {
	Ptr   DevicePtr // device memory, when Host is nil
	Host  []byte    // host memory; for asynchronous copies, pinned (AllocHost)
	X, Y  uint64    // start, in bytes and rows
	Pitch uint64    // bytes from one row to the next
}

// Copy2D describes a copy of Height rows of WidthBytes bytes.
type Copy2D struct {
	Src, Dst   Pitched
	WidthBytes uint64
	Height     uint64
}

func (p Pitched) check(side string, width, height uint64) error {
	if p.Pitch < width {
		return fmt.Errorf("cuda: 2D copy %s pitch %d is smaller than the row width %d: %w", side, p.Pitch, width, ErrorInvalidValue)
	}
	if p.Host != nil && height > 0 {
		need := (p.Y+height-1)*p.Pitch + p.X + width
		if need > uint64(len(p.Host)) {
			return fmt.Errorf("cuda: 2D copy %s needs %d bytes of host memory, slice has %d: %w", side, need, len(p.Host), ErrorInvalidValue)
		}
	}
	return nil
}

func (cp *Copy2D) raw(pin *runtime.Pinner) (*cu.Memcpy2D, error) {
	if err := cp.Src.check("source", cp.WidthBytes, cp.Height); err != nil {
		return nil, err
	}
	if err := cp.Dst.check("destination", cp.WidthBytes, cp.Height); err != nil {
		return nil, err
	}
	m := &cu.Memcpy2D{
		SrcXInBytes: cp.Src.X, SrcY: cp.Src.Y, SrcPitch: cp.Src.Pitch,
		DstXInBytes: cp.Dst.X, DstY: cp.Dst.Y, DstPitch: cp.Dst.Pitch,
		WidthInBytes: cp.WidthBytes, Height: cp.Height,
	}
	if cp.Src.Host != nil {
		m.SrcMemoryType, m.SrcHost = cu.MemoryTypeHost, bytesPtr(cp.Src.Host)
		if pin != nil && len(cp.Src.Host) > 0 {
			pin.Pin(unsafe.SliceData(cp.Src.Host))
		}
	} else {
		m.SrcMemoryType, m.SrcDevice = cu.MemoryTypeDev, cu.DevicePtr(cp.Src.Ptr)
	}
	if cp.Dst.Host != nil {
		m.DstMemoryType, m.DstHost = cu.MemoryTypeHost, bytesPtr(cp.Dst.Host)
		if pin != nil && len(cp.Dst.Host) > 0 {
			pin.Pin(unsafe.SliceData(cp.Dst.Host))
		}
	} else {
		m.DstMemoryType, m.DstDevice = cu.MemoryTypeDev, cu.DevicePtr(cp.Dst.Ptr)
	}
	return m, nil
}

// Copy2D performs a pitched 2D copy and returns when it has completed.
// Either side may be host memory (any Go slice) or device memory.
func (c *Context) Copy2D(cp Copy2D) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	var pin runtime.Pinner
	defer pin.Unpin()
	m, rerr := cp.raw(&pin)
	if rerr != nil {
		return rerr
	}
	return c.completed("cuMemcpy2D", cu.MemcpyTwoD(c.h, m))
}
