package main

// torch.go: PyTorch's pluggable allocator over the face's Pool
// (gfxcuda_torch_alloc, gfxcuda_torch_free: the functions
// torch.cuda.memory.CUDAPluggableAllocator loads from this library), the
// shared buffer over a tensor in it (gfxcuda_torch_buffer), and ordering
// Vulkan after a CUDA stream (gfxcuda_after_cuda).

/*
#include <sys/types.h>
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
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// pools holds the torch pool of each CUDA device, made by its first
// allocation and kept for the process (PyTorch's MemPools outlive any
// handle of ours).
var pools struct {
	sync.Mutex
	m map[int]*gfxcuda.Pool
}

// poolFor returns device's pool, making it when create is set (nil when
// there is none).
func poolFor(device int, create bool) (*gfxcuda.Pool, error) {
	pools.Lock()
	defer pools.Unlock()
	if p := pools.m[device]; p != nil || !create {
		return p, nil
	}
	c, err := contextFor(device)
	if err != nil {
		return nil, err
	}
	if pools.m == nil {
		pools.m = map[int]*gfxcuda.Pool{}
	}
	p := gfxcuda.NewPool(c)
	pools.m[device] = p
	return p, nil
}

// gfxcuda_torch_alloc is PyTorch's allocation callback (void*(ssize_t,
// int, cudaStream_t)): a new segment of the device's pool, or NULL with
// the reason as the thread's last error. torch's caching allocator calls
// it once per segment, not per tensor.
//
//export gfxcuda_torch_alloc
func gfxcuda_torch_alloc(size C.ssize_t, device C.int, stream unsafe.Pointer) (p unsafe.Pointer) {
	call(func() error {
		if size <= 0 || device < 0 {
			return errorf(stInvalid, "gfxcuda_torch_alloc: %d bytes on device %d", size, device)
		}
		pool, err := poolFor(int(device), true)
		if err != nil {
			return err
		}
		ptr, err := pool.Alloc(uint64(size))
		if err != nil {
			return err
		}
		p = cptr(uintptr(ptr))
		return nil
	})
	return p
}

// gfxcuda_torch_free is PyTorch's free callback (void(void*, ssize_t, int,
// cudaStream_t)): it drops the pool's reference to the segment, which is
// unmapped now (after the context's queued work, as cudaFree) or when the
// last shared buffer over it closes. Errors become the thread's last
// error.
//
//export gfxcuda_torch_free
func gfxcuda_torch_free(ptr unsafe.Pointer, size C.ssize_t, device C.int, stream unsafe.Pointer) {
	call(func() error {
		pool, err := poolFor(int(device), false)
		if err != nil {
			return err
		}
		if pool == nil {
			return errorf(stInvalid, "gfxcuda_torch_free(%p): device %d has no gfxcuda pool", ptr, device)
		}
		return pool.Free(cuda.DevicePtr(uintptr(ptr)))
	})
}

// gfxcuda_torch_pool_stats reports device's pool: segments not freed,
// their bytes, and segments freed that shared buffers still hold (all 0
// before the first allocation).
//
//export gfxcuda_torch_pool_stats
func gfxcuda_torch_pool_stats(device C.int, segments, bytes, held *C.uint64_t) C.int {
	return call(func() error {
		if segments == nil || bytes == nil || held == nil {
			return errorf(stInvalid, "gfxcuda_torch_pool_stats: null output")
		}
		pool, err := poolFor(int(device), false)
		if err != nil {
			return err
		}
		var st gfxcuda.PoolStats
		if pool != nil {
			st = pool.Stats()
		}
		*segments, *bytes, *held = C.uint64_t(st.Segments), C.uint64_t(st.Bytes), C.uint64_t(st.Held)
		return nil
	})
}

// gfxcuda_torch_buffer makes a shared buffer over the bytes of a tensor
// in the device's torch pool (no copy: Device.PoolBuffer), and orders
// Vulkan work on it after the work queued on stream so far
// (Device.AfterCUDA). The tensor must be dense (contiguous, or a
// permutation of a contiguous tensor): Vulkan addresses one range.
//
//export gfxcuda_torch_buffer
func gfxcuda_torch_buffer(dev C.uint64_t, desc *C.gfxcuda_tensor_t, stream C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_torch_buffer: null output")
		}
		t, err := tensorOf(desc)
		if err != nil {
			return err
		}
		switch {
		case t.Device.Type != dlpack.CUDA:
			return errorf(stInvalid, "gfxcuda: the tensor is in %s memory; Vulkan sees CUDA memory of a gfxcuda pool only (move it with .cuda() under torch.cuda.use_mem_pool(gfxcuda.torch_pool()))", t.Device.Type)
		case int(t.Device.ID) != sd.ordinal:
			return errorf(stInvalid, "gfxcuda: the tensor is on CUDA device %d, the shared device on %d", t.Device.ID, sd.ordinal)
		case !t.Dense():
			return errorf(stInvalid, "gfxcuda: the tensor (shape %v, strides %v) has gaps or repeats between its elements: Vulkan sees a buffer as one range of bytes; pass a contiguous tensor (t.contiguous(), allocated in the pool) or copy=True", t.Shape, t.Strides)
		case t.Elements() == 0:
			return errorf(stInvalid, "gfxcuda: an empty tensor has no bytes for Vulkan to see")
		}
		lo, hi := t.Extent()
		ptr, n := uint64(int64(t.Data)+lo), uint64(hi-lo)
		pool, err := poolFor(sd.ordinal, false)
		if err != nil {
			return err
		}
		var b *gfxcuda.Buffer
		if pool == nil {
			err = gfxcuda.ErrNotInPool
		} else {
			b, err = sd.d.PoolBuffer(pool, cuda.DevicePtr(ptr), n)
		}
		switch {
		case errors.Is(err, gfxcuda.ErrNotInPool):
			return &statusError{stInvalid, fmt.Errorf("gfxcuda: the tensor's memory [%#x, +%d) is not in a gfxcuda torch pool: allocate it under torch.cuda.use_mem_pool(gfxcuda.torch_pool(%d)), or pass copy=True to copy it into a new shared buffer (%w)", ptr, n, sd.ordinal, err)}
		case errors.Is(err, vulkan.ErrPlacement):
			return &statusError{stInvalid, fmt.Errorf("%w; pass copy=True, or a tensor that starts aligned (t.clone() in the pool)", err)}
		case err != nil:
			return err
		}
		sb := &sharedBuffer{b: b, sd: sd, ordinal: sd.ordinal}
		if err := afterCUDA(sd, uint64(stream), b); err != nil {
			return errors.Join(err, b.Close())
		}
		return store(out, sb, sb.close, uint64(dev))
	})
}

// afterCUDA orders Vulkan work on res after the work queued on the
// caller's stream handle h so far.
func afterCUDA(sd *sharedDevice, h uint64, res ...gfxcuda.Resource) error {
	s, done, err := sd.stream(h)
	if err != nil {
		return err
	}
	defer done()
	return sd.d.AfterCUDA(s, res...)
}

// gfxcuda_after_cuda orders the Vulkan work on shared buffers and
// textures (of one device) submitted after the call after the CUDA work
// queued on stream so far, which wrote them (Device.AfterCUDA): no host
// wait.
//
//export gfxcuda_after_cuda
func gfxcuda_after_cuda(hs *C.uint64_t, n C.size_t, stream C.uint64_t) C.int {
	return call(func() error {
		if hs == nil || n == 0 || n > 1024 {
			return errorf(stInvalid, "gfxcuda_after_cuda: give 1 to 1024 resources")
		}
		sd, res, _, err := sharedResources(unsafe.Slice((*uint64)(unsafe.Pointer(hs)), n), "after_cuda",
			"cannot be ordered after CUDA (after_cuda takes shared buffers and textures)")
		if err != nil {
			return err
		}
		err = afterCUDA(sd, uint64(stream), res...)
		if errors.Is(err, gfxcuda.ErrHeldByCUDA) {
			return &statusError{stInvalid, err}
		}
		return err
	})
}
