package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/dlpack"
	"github.com/gfxcuda/gfxcuda/format"
)

// contexts holds the primary context of each CUDA device used, retained
// for the life of the process (the context PyTorch, CuPy and Numba use).
var contexts = struct {
	sync.Mutex
	m map[int]*cuda.Context
}{m: map[int]*cuda.Context{}}

func contextFor(ordinal int) (*cuda.Context, error) {
	contexts.Lock()
	defer contexts.Unlock()
	if c, ok := contexts.m[ordinal]; ok {
		return c, nil
	}
	if err := cuda.Init(); err != nil {
		return nil, &statusError{stNoCUDA, err}
	}
	d, err := cuda.GetDevice(ordinal)
	if err != nil {
		return nil, &statusError{stNoDevice, err}
	}
	c, err := d.PrimaryContext()
	if err != nil {
		return nil, err
	}
	contexts.m[ordinal] = c
	return c, nil
}

type cudaMem struct {
	m       *cuda.DeviceMemory
	ordinal int
	// cache, for memory from gfxcuda_cuda_alloc_cached: released, it goes
	// back to the cache, reused once the streams named (the one it was
	// written on, DLPack consumers') and the legacy default stream pass.
	cache   *cuda.Cache
	mu      sync.Mutex
	streams []uintptr
}

// release frees the memory or gives it back to its cache.
func (c *cudaMem) release() error {
	c.mu.Lock()
	k, streams := c.cache, c.streams
	c.mu.Unlock()
	if k == nil {
		return c.m.Close()
	}
	return k.Put(c.m, streams...)
}

// caches holds each device's cache of tensor-sized memory
// (gfxcuda_cuda_alloc_cached), made on first use and kept for the life of
// the process.
var caches = struct {
	sync.Mutex
	m map[int]*cuda.Cache
}{m: map[int]*cuda.Cache{}}

func cacheFor(ordinal int) (*cuda.Cache, error) {
	c, err := contextFor(ordinal)
	if err != nil {
		return nil, err
	}
	caches.Lock()
	defer caches.Unlock()
	if k := caches.m[ordinal]; k != nil {
		return k, nil
	}
	k, err := c.NewCache(cacheLimit)
	if err != nil {
		return nil, err
	}
	caches.m[ordinal] = k
	return k, nil
}

// cacheLimit is the idle memory a device's cache keeps at most.
const cacheLimit = 512 << 20

// wrappedMem is CUDA memory gfxcuda does not own (CudaBuffer.from_cuda):
// its owner keeps it alive.
type wrappedMem struct {
	ptr, size uint64
	ordinal   int
}

type sharedDevice struct {
	d       *gfxcuda.Device
	ordinal int

	legacyOnce sync.Once
	legacy     *cuda.Stream // the legacy default stream, wrapped once
	legacyErr  error

	glOnce sync.Once
	gl     *glOutPool // GL-written tensors' buffers (gfxcuda_gl_write_tensors), made on first use
}

// glPool returns the device's pool of GL-written tensors' buffers.
func (sd *sharedDevice) glPool() *glOutPool {
	sd.glOnce.Do(func() { sd.gl = &glOutPool{sd: sd} })
	return sd.gl
}

type sharedBuffer struct {
	b       *gfxcuda.Buffer
	sd      *sharedDevice
	ordinal int

	mu   sync.Mutex
	ex   *gfxcuda.Shared
	opts *gfxcuda.ExportOptions // gfxcuda_share_options, before ex is made
	held *gfxcuda.Access
}

func (b *sharedBuffer) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	if b.ex != nil {
		errs = append(errs, b.ex.Close())
	}
	if b.held != nil {
		errs = append(errs, b.held.Done())
	}
	errs = append(errs, b.b.Close())
	return errors.Join(errs...)
}

type sharedTexture struct {
	t       *gfxcuda.Texture
	sd      *sharedDevice
	ordinal int

	mu   sync.Mutex
	ex   *gfxcuda.Shared        // the cross-process export, made on first ipc_handle
	opts *gfxcuda.ExportOptions // gfxcuda_share_options, before ex is made
	held *gfxcuda.Access        // an explicit hand-off to CUDA (gfxcuda_to_cuda)
}

// close withdraws the texture's export, ends a hand-off and frees it.
func (t *sharedTexture) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	if t.ex != nil {
		errs = append(errs, t.ex.Close())
	}
	if t.held != nil {
		errs = append(errs, t.held.Done())
	}
	errs = append(errs, t.t.Close())
	return errors.Join(errs...)
}

type imported struct {
	m     *dlpack.Managed
	shape unsafe.Pointer // C copies of shape and strides handed out
}

//export gfxcuda_cuda_device_count
func gfxcuda_cuda_device_count(n *C.int) C.int {
	return call(func() error {
		if n == nil {
			return errorf(stInvalid, "gfxcuda_cuda_device_count: null output")
		}
		*n = 0
		if err := cuda.Init(); err != nil {
			return &statusError{stNoCUDA, err}
		}
		c, err := cuda.DeviceCount()
		if err != nil {
			return err
		}
		*n = C.int(c)
		return nil
	})
}

//export gfxcuda_cuda_alloc
func gfxcuda_cuda_alloc(device C.int, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_cuda_alloc: null output")
		}
		if size == 0 {
			return errorf(stInvalid, "gfxcuda: a CUDA allocation of 0 bytes")
		}
		c, err := contextFor(int(device))
		if err != nil {
			return err
		}
		m, err := c.Alloc(uint64(size))
		if err != nil {
			return err
		}
		return store(out, &cudaMem{m: m, ordinal: int(device)}, m.Close)
	})
}

//export gfxcuda_cuda_alloc_cached
func gfxcuda_cuda_alloc_cached(device C.int, size C.uint64_t, stream C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_cuda_alloc_cached: null output")
		}
		if size == 0 {
			return errorf(stInvalid, "gfxcuda: a CUDA allocation of 0 bytes")
		}
		k, err := cacheFor(int(device))
		if err != nil {
			return err
		}
		m, err := k.Get(uint64(size))
		if err != nil {
			return err
		}
		cm := &cudaMem{m: m, ordinal: int(device), cache: k}
		if stream != 0 {
			cm.streams = []uintptr{uintptr(stream)}
		}
		return store(out, cm, cm.release)
	})
}

//export gfxcuda_cuda_cache_stats
func gfxcuda_cuda_cache_stats(device C.int, stats *C.uint64_t) C.int {
	return call(func() error {
		if stats == nil {
			return errorf(stInvalid, "gfxcuda_cuda_cache_stats: null output")
		}
		if device < 0 {
			return errorf(stInvalid, "gfxcuda: CUDA device %d: devices are numbered from 0", int(device))
		}
		caches.Lock()
		k := caches.m[int(device)]
		caches.Unlock()
		var s cuda.CacheStats
		if k != nil { // none made yet: all zero, and no CUDA context made to say so
			s = k.Stats()
		}
		out := unsafe.Slice(stats, 6)
		for i, v := range []uint64{s.Hits, s.Misses, s.Busy, s.Freed, s.Evicted, s.IdleBytes} {
			out[i] = C.uint64_t(v)
		}
		return nil
	})
}

//export gfxcuda_cuda_note_stream
func gfxcuda_cuda_note_stream(h, stream C.uint64_t) C.int {
	return call(func() error {
		if o, err := get[*glOut](uint64(h), "CUDA memory"); err == nil {
			o.note(uintptr(stream))
			return nil
		}
		m, err := get[*cudaMem](uint64(h), "CUDA memory")
		if err != nil {
			return err
		}
		if stream == 0 || uintptr(stream) == cuda.LegacyDefaultStream || uintptr(stream) == cuda.PerThreadDefaultStream {
			return nil // covered by the legacy default stream
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.cache == nil {
			return nil // freed with cuMemFree, which waits for the device
		}
		for _, s := range m.streams {
			if s == uintptr(stream) {
				return nil
			}
		}
		if len(m.streams) >= 16 {
			// Used on many streams: freed, not kept (cuMemFree waits).
			m.cache, m.streams = nil, nil
			return nil
		}
		m.streams = append(m.streams, uintptr(stream))
		return nil
	})
}

//export gfxcuda_cuda_wrap
func gfxcuda_cuda_wrap(device C.int, ptr, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil || ptr == 0 {
			return errorf(stInvalid, "gfxcuda_cuda_wrap: null pointer")
		}
		if device < 0 {
			return errorf(stInvalid, "gfxcuda_cuda_wrap: device %d", device)
		}
		return store(out, &wrappedMem{uint64(ptr), uint64(size), int(device)}, nil)
	})
}

// Copy directions of gfxcuda_cuda_memcpy.
const (
	copyHtoD = 0
	copyDtoH = 1
	copyDtoD = 2
)

//export gfxcuda_cuda_memcpy
func gfxcuda_cuda_memcpy(device C.int, dst, src C.uint64_t, n C.uint64_t, kind C.int) C.int {
	return call(func() error {
		c, err := contextFor(int(device))
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if dst == 0 || src == 0 {
			return errorf(stInvalid, "gfxcuda_cuda_memcpy: null pointer")
		}
		switch kind {
		case copyHtoD:
			return c.CopyHtoD(cuda.DevicePtr(dst), unsafe.Slice((*byte)(cptr(uintptr(src))), n))
		case copyDtoH:
			return c.CopyDtoH(unsafe.Slice((*byte)(cptr(uintptr(dst))), n), cuda.DevicePtr(src))
		case copyDtoD:
			return c.CopyDtoD(cuda.DevicePtr(dst), cuda.DevicePtr(src), uint64(n))
		}
		return errorf(stInvalid, "gfxcuda_cuda_memcpy: direction %d (0: host to device, 1: device to host, 2: device to device)", kind)
	})
}

//export gfxcuda_shared_open
func gfxcuda_shared_open(device C.int, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_open: null output")
		}
		d, err := gfxcuda.OpenOrdinal(int(device), gfxcuda.Options{})
		if err != nil {
			if errors.Is(err, cuda.ErrNoDriver) {
				return &statusError{stNoCUDA, err}
			}
			return &statusError{stNoDevice, err}
		}
		sd := &sharedDevice{d: d, ordinal: int(device)}
		return store(out, sd, sd.close)
	})
}

//export gfxcuda_shared_buffer_new
func gfxcuda_shared_buffer_new(dev C.uint64_t, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_buffer_new: null output")
		}
		if size == 0 {
			return errorf(stInvalid, "gfxcuda: a shared buffer of 0 bytes")
		}
		b, err := sd.d.NewBuffer(uint64(size))
		if err != nil {
			return err
		}
		sb := &sharedBuffer{b: b, sd: sd, ordinal: sd.ordinal}
		return store(out, sb, sb.close, uint64(dev))
	})
}

//export gfxcuda_shared_texture_new
func gfxcuda_shared_texture_new(dev C.uint64_t, f C.uint32_t, w, h, layers C.uint32_t, out *C.uint64_t) C.int {
	return gfxcuda_shared_texture_new_views(dev, f, w, h, layers, nil, 0, out)
}

// maxViewFormats is the most view formats a texture of the C ABI takes.
const maxViewFormats = 16

// viewFormats copies a C array of n VkFormats (view formats), checking
// each is a format gfxcuda knows.
func viewFormats(where string, p *C.uint32_t, n C.uint32_t) ([]format.Format, error) {
	if n == 0 {
		return nil, nil
	}
	if p == nil || n > maxViewFormats {
		return nil, errorf(stInvalid, "%s: %d view formats at %p: give at most %d, non-null", where, n, p, maxViewFormats)
	}
	var fs []format.Format
	for _, v := range unsafe.Slice((*uint32)(unsafe.Pointer(p)), int(n)) {
		if _, ok := format.Lookup(format.Format(v)); !ok {
			return nil, errorf(stInvalid, "%s: unknown view format %d", where, v)
		}
		fs = append(fs, format.Format(v))
	}
	return fs, nil
}

//export gfxcuda_shared_texture_new_views
func gfxcuda_shared_texture_new_views(dev C.uint64_t, f C.uint32_t, w, h, layers C.uint32_t, views *C.uint32_t, nviews C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_texture_new: null output")
		}
		if _, ok := format.Lookup(format.Format(f)); !ok {
			return errorf(stInvalid, "gfxcuda: unknown texture format %d", f)
		}
		vf, err := viewFormats("gfxcuda_shared_texture_new_views", views, nviews)
		if err != nil {
			return err
		}
		t, err := sd.d.NewTexture(gfxcuda.TextureOptions{Format: format.Format(f), Width: uint32(w), Height: uint32(h), Layers: max(uint32(layers), 1),
			ViewFormats: vf})
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		st := &sharedTexture{t: t, sd: sd, ordinal: sd.ordinal}
		return store(out, st, st.close, uint64(dev))
	})
}

//export gfxcuda_shared_texture_copy
func gfxcuda_shared_texture_copy(tex C.uint64_t, ptr C.uint64_t, pitch C.uint64_t, toCUDA C.int, stream C.uint64_t) C.int {
	return call(func() error {
		t, err := get[*sharedTexture](uint64(tex), "shared texture")
		if err != nil {
			return err
		}
		if ptr == 0 {
			return errorf(stInvalid, "gfxcuda: copy to or from a null device pointer")
		}
		s, done, err := t.sd.stream(uint64(stream))
		if err != nil {
			return err
		}
		defer done()
		return t.copy(s, cuda.DevicePtr(ptr), uint64(pitch), toCUDA != 0)
	})
}

// copy queues a copy between the texture and CUDA memory on s
// (gfxcuda.Texture.CopyToStream, CopyFromStream). t.mu keeps
// gfxcuda_to_vulkan from ending the texture's hand-off during the copy.
func (t *sharedTexture) copy(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64, to bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if to {
		return t.t.CopyToStream(s, ptr, pitch)
	}
	return t.t.CopyFromStream(s, ptr, pitch)
}

// close stops using the wrapped legacy stream and closes the device.
func (sd *sharedDevice) close() error {
	sd.glOnce.Do(func() {}) // orders the read after a make
	var err error
	if sd.gl != nil {
		err = sd.gl.close()
	}
	sd.legacyOnce.Do(func() {}) // orders the read after a wrap
	if sd.legacy != nil {
		sd.legacy.Close()
	}
	return errors.Join(err, sd.d.Close())
}

// stream returns the CUDA stream of a caller's handle: 0 or 1 the legacy
// default stream (wrapped once per device), 2 the per-thread default
// stream, any other value a CUstream of the device's primary context
// (torch.cuda.current_stream().cuda_stream, CuPy's stream.ptr). done stops
// using it.
func (sd *sharedDevice) stream(h uint64) (s *cuda.Stream, done func(), err error) {
	if h == 0 || h == uint64(cuda.LegacyDefaultStream) {
		sd.legacyOnce.Do(func() {
			sd.legacy, sd.legacyErr = cuda.WrapStream(sd.d.CUDA(), cuda.LegacyDefaultStream)
		})
		return sd.legacy, func() {}, sd.legacyErr
	}
	s, err = cuda.WrapStream(sd.d.CUDA(), uintptr(h))
	if err != nil {
		return nil, nil, &statusError{stInvalid, fmt.Errorf("gfxcuda: stream %#x: %w", h, err)}
	}
	return s, func() { s.Close() }, nil
}

//export gfxcuda_shared_texture_from_cuda
func gfxcuda_shared_texture_from_cuda(dev C.uint64_t, ptr, pitch C.uint64_t, w, h, channels C.uint32_t, code, bits C.int, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil || ptr == 0 {
			return errorf(stInvalid, "gfxcuda_shared_texture_from_cuda: null pointer")
		}
		t, err := sd.d.NewTextureFromCUDAAfterSync(cuda.DevicePtr(ptr), uint64(pitch), uint32(w), uint32(h), uint32(channels),
			format.DType{Code: uint8(code), Bits: uint8(bits), Lanes: 1})
		if err != nil {
			if errors.Is(err, gfxcuda.ErrEarlierCUDAWork) {
				return err
			}
			return &statusError{stUnsupported, err}
		}
		st := &sharedTexture{t: t, sd: sd, ordinal: sd.ordinal}
		return store(out, st, st.close, uint64(dev))
	})
}

// cudaInfo fills the resource info of CUDA-side objects.
func cudaInfo(o any, out *C.gfxcuda_resource_info_t) error {
	switch o := o.(type) {
	case *cudaMem:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindCUDAMemory, C.uint64_t(o.m.Size()), C.uint64_t(o.m.Ptr()), C.int32_t(o.ordinal)
	case *sharedDevice:
		out.kind, out.cuda_device = kindSharedDevice, C.int32_t(o.ordinal)
	case *sharedBuffer:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindSharedBuffer, C.uint64_t(o.b.Size()), C.uint64_t(o.b.Ptr()), C.int32_t(o.ordinal)
	case *sharedTexture:
		tO := o.t.Options()
		out.kind, out.cuda_device = kindSharedTexture, C.int32_t(o.ordinal)
		out.format, out.width, out.height, out.depth, out.slices = C.uint32_t(tO.Format), C.uint32_t(tO.Width), C.uint32_t(tO.Height), 1, C.uint32_t(max(tO.Layers, 1))
		out.row_pitch, out.bytes_per_texel = C.uint64_t(o.t.RowBytes()), C.uint32_t(o.t.Format().BytesPerTexel)
		out.size = out.row_pitch * C.uint64_t(tO.Height) * C.uint64_t(out.slices)
	case *wrappedMem:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindCUDAMemory, C.uint64_t(o.size), C.uint64_t(o.ptr), C.int32_t(o.ordinal)
	case *glOut:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindCUDAMemory, C.uint64_t(o.n), C.uint64_t(o.b.Ptr()), C.int32_t(o.pool.sd.ordinal)
	case *imported:
		out.kind = kindImported
	case *hostSlot:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindHostMemory, C.uint64_t(len(o.mem)), C.uint64_t(o.ptr()), -1
	case *ring:
		out.kind, out.slices, out.size, out.cuda_device = kindRing, C.uint32_t(len(o.objs)), C.uint64_t(sizeOf(o.objs[0])), -1
		if o.sd != nil {
			out.cuda_device = C.int32_t(o.sd.ordinal)
		}
	case *ringReader:
		out.kind, out.slices, out.size, out.cuda_device = kindRingReader, C.uint32_t(len(o.objs)), C.uint64_t(sizeOf(o.objs[0])), -1
		if o.sd != nil {
			out.cuda_device = C.int32_t(o.sd.ordinal)
		}
		if o.peer != nil {
			out.cuda_device = C.int32_t(o.cx.Device().Ordinal())
		}
	case *access:
		out.kind, out.cuda_device = kindAccess, C.int32_t(o.sd.ordinal)
	case *cudaSemaphore:
		out.kind, out.cuda_device = kindSemaphore, C.int32_t(o.sd.ordinal)
	case *vkSemaphore:
		out.kind, out.cuda_device = kindSemaphore, -1
	default:
		return errorf(stInvalid, "gfxcuda: no resource info for a %T", o)
	}
	return nil
}

// memoryOf returns the memory range of a handle DLPack can export: CUDA
// memory (device type CUDA), a host-visible ring slot (CPU, ordinal 0) or
// an imported tensor (its device).
func memoryOf(h uint64) (ptr, size uint64, dev dlpack.DeviceType, ordinal int, err error) {
	handles.Lock()
	e, ok := handles.m[h]
	handles.Unlock()
	if !ok {
		return 0, 0, 0, 0, errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
	}
	switch o := e.obj.(type) {
	case *cudaMem:
		return uint64(o.m.Ptr()), o.m.Size(), dlpack.CUDA, o.ordinal, nil
	case *sharedBuffer:
		return uint64(o.b.Ptr()), o.b.Size(), dlpack.CUDA, o.ordinal, nil
	case *wrappedMem:
		return o.ptr, o.size, dlpack.CUDA, o.ordinal, nil
	case *glOut:
		return uint64(o.b.Ptr()), o.n, dlpack.CUDA, o.pool.sd.ordinal, nil
	case *hostSlot:
		return o.ptr(), uint64(len(o.mem)), dlpack.CPU, 0, nil
	case *imported:
		// Another library's tensor: the memory its elements span.
		t := o.m.Tensor()
		lo, hi := t.Extent()
		return uint64(int64(t.Data) + lo), uint64(hi - lo), t.Device.Type, int(t.Device.ID), nil
	}
	return 0, 0, 0, 0, errorf(stUnsupported, "gfxcuda: a %s has no linear memory to export", kindName(e.obj))
}

func sizeOf(o any) uint64 {
	switch o := o.(type) {
	case *hostSlot:
		return uint64(len(o.mem))
	case *sharedBuffer:
		return o.b.Size()
	case *wrappedMem:
		return o.size
	}
	return 0
}

// tensorOf converts the C description.
func tensorOf(t *C.gfxcuda_tensor_t) (dlpack.Tensor, error) {
	if t == nil {
		return dlpack.Tensor{}, errorf(stInvalid, "null tensor description")
	}
	nd := int(t.ndim)
	if nd < 0 || nd > 32 || (nd > 0 && t.shape == nil) {
		return dlpack.Tensor{}, errorf(stInvalid, "gfxcuda: tensor of %d dimensions", nd)
	}
	out := dlpack.Tensor{Data: uintptr(t.data), ByteOffset: uint64(t.byte_offset),
		Device:   dlpack.Device{Type: dlpack.DeviceType(t.device_type), ID: int32(t.device_id)},
		DType:    format.DType{Code: uint8(t.code), Bits: uint8(t.bits), Lanes: uint16(max(t.lanes, 1))},
		ReadOnly: uint64(t.flags)&dlpack.FlagReadOnly != 0, IsCopied: uint64(t.flags)&dlpack.FlagIsCopied != 0}
	if nd > 0 {
		out.Shape = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(t.shape)), nd)...)
		if t.strides != nil {
			out.Strides = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(t.strides)), nd)...)
		}
	}
	return out, out.Validate()
}

//export gfxcuda_dlpack_export
func gfxcuda_dlpack_export(owner C.uint64_t, desc *C.gfxcuda_tensor_t, versioned C.int, out *unsafe.Pointer) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_dlpack_export: null output")
		}
		t, err := tensorIn(uint64(owner), desc)
		if err != nil {
			return err
		}
		if err := retain(uint64(owner)); err != nil {
			return err
		}
		p, err := dlpack.Export(t, versioned != 0, func() { release(uint64(owner)) })
		if err != nil {
			release(uint64(owner))
			return &statusError{stInvalid, err}
		}
		*out = p
		return nil
	})
}

//export gfxcuda_dlpack_import
func gfxcuda_dlpack_import(managed unsafe.Pointer, versioned C.int, out *C.uint64_t, desc *C.gfxcuda_tensor_t) C.int {
	return call(func() error {
		if out == nil || desc == nil {
			return errorf(stInvalid, "gfxcuda_dlpack_import: null output")
		}
		m, err := dlpack.Import(managed, versioned != 0)
		if err != nil {
			return &statusError{stInvalid, err}
		}
		t := m.Tensor()
		nd := len(t.Shape)
		dims := C.calloc(C.size_t(max(2*nd, 1)), 8)
		if dims == nil {
			m.Close()
			return errorf(stFailed, "out of host memory")
		}
		ds := unsafe.Slice((*int64)(dims), 2*nd)
		copy(ds, t.Shape)
		*desc = C.gfxcuda_tensor_t{data: C.uint64_t(t.Data), byte_offset: C.uint64_t(t.ByteOffset),
			device_type: C.int32_t(t.Device.Type), device_id: C.int32_t(t.Device.ID),
			code: C.uint8_t(t.DType.Code), bits: C.uint8_t(t.DType.Bits), lanes: C.uint16_t(t.DType.Lanes), ndim: C.int32_t(nd)}
		if nd > 0 {
			desc.shape = (*C.int64_t)(dims)
			if t.Strides != nil {
				copy(ds[nd:], t.Strides)
				desc.strides = (*C.int64_t)(unsafe.Add(dims, nd*8))
			}
		}
		if t.ReadOnly {
			desc.flags |= C.uint64_t(dlpack.FlagReadOnly)
		}
		im := &imported{m: m, shape: dims}
		return store(out, im, func() error {
			err := m.Close()
			C.free(dims)
			return err
		})
	})
}

//export gfxcuda_dlpack_live
func gfxcuda_dlpack_live(n *C.uint64_t) C.int {
	return call(func() error {
		if n == nil {
			return errorf(stInvalid, "null output")
		}
		*n = C.uint64_t(dlpack.Live()) + C.uint64_t(C.gfx_exported_count())
		return nil
	})
}

//export gfxcuda_dlpack_exporter_new
func gfxcuda_dlpack_exporter_new(owner C.uint64_t, out *unsafe.Pointer) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_dlpack_exporter_new: null output")
		}
		if _, _, _, _, err := memoryOf(uint64(owner)); err != nil {
			return err
		}
		if err := retain(uint64(owner)); err != nil {
			return err
		}
		e := C.gfx_exporter_new(owner)
		if e == nil {
			release(uint64(owner))
			return errorf(stFailed, "gfxcuda: out of host memory for a DLPack exporter")
		}
		*out = e
		return nil
	})
}

// gfxExporterRelease drops an exporter's reference on its owner (capi.c
// calls it when the exporter and all its tensors are gone).
//
//export gfxExporterRelease
func gfxExporterRelease(owner C.uint64_t) {
	defer func() { _ = recover() }() // a deleter's thread is not ours to crash
	_ = release(uint64(owner))
}

// cptr turns an address the caller passed as an integer into a pointer.
func cptr(p uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), p) }

var _ = fmt.Sprint
