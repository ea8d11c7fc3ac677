package cuda

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// ShareableMemory is device memory allocated with cuMemCreate so that it can
// be exported as a POSIX file descriptor and imported by Vulkan (as
// VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) or by another process.
//
// It is safe for concurrent use; Close waits for calls in progress on it to
// return.
type ShareableMemory struct {
	ctx  *Context
	life life
	h    cu.MemHandle
	ptr  DevicePtr
	size uint64
	// exported is the descriptor of the first ExportFD (-1: none yet),
	// kept until Close: later exports duplicate it.
	expMu    sync.Mutex
	exported int
}

// Granularity returns the allocation granularity for shareable memory:
// sizes are rounded up to a multiple of it.
func (c *Context) Granularity() (_ uint64, err error) {
	if err := c.acquire(); err != nil {
		return 0, err
	}
	defer c.leave(&err)
	g, r := cu.MemGetAllocationGranularity(c.h, c.dev.h, true, false)
	return g, check("cuMemGetAllocationGranularity", r)
}

// AllocShareable allocates at least n bytes (rounded up to the allocation
// granularity; Size tells how much) of exportable device memory, mapped
// read-write at Ptr for this device.
func (c *Context) AllocShareable(n uint64) (*ShareableMemory, error) {
	if n == 0 {
		return nil, fmt.Errorf("cuda: AllocShareable of 0 bytes: %w", ErrorInvalidValue)
	}
	g, err := c.Granularity()
	if err != nil {
		return nil, err
	}
	size := (n + g - 1) / g * g
	if err := c.acquire(); err != nil {
		return nil, err
	}
	m := &ShareableMemory{ctx: c, size: size, exported: -1}
	if err := m.setup(); err != nil {
		return nil, errors.Join(fmt.Errorf("allocating %d shareable bytes: %w", size, err), c.release())
	}
	return m, nil
}

// setup creates, reserves, maps and grants access; on error it undoes what
// it did.
func (m *ShareableMemory) setup() error {
	c := m.ctx
	h, r := cu.MemCreate(c.h, m.size, c.dev.h, true)
	if err := check("cuMemCreate", r); err != nil {
		return err
	}
	return m.mapHandle(h)
}

// Ptr returns the device address, or 0 after Close.
// It is borrowed: valid until Close.
func (m *ShareableMemory) Ptr() DevicePtr {
	if m.life.closed() {
		return 0
	}
	return m.ptr
}

// Size returns the allocation's size (a multiple of the granularity).
func (m *ShareableMemory) Size() uint64 { return m.size }

// ExportFD returns a new file descriptor for the allocation. The caller owns
// it: pass it to an importer (which takes ownership) or close it. The
// allocation stays alive while any importer holds it, even after Close.
//
// The allocation is exported once: cuMemExportToShareableHandle makes a
// new driver object each time (tens of microseconds, and as much again
// when the importer closes the last descriptor of it), on the path of
// every open in another process. Later calls duplicate that descriptor,
// as NVIDIA's samples hand one exported handle to every importing
// process. Close closes it.
func (m *ShareableMemory) ExportFD() (int, error) {
	if err := fdsRefused(); err != nil {
		return -1, err
	}
	if err := m.life.acquire(); err != nil {
		return -1, err
	}
	defer m.life.release()
	m.expMu.Lock()
	defer m.expMu.Unlock()
	if m.exported < 0 {
		fd, r := cu.MemExportToFD(m.ctx.h, m.h)
		if err := check("cuMemExportToShareableHandle", r); err != nil {
			return -1, err
		}
		m.exported = fd
	}
	fd, err := dupFD(m.exported)
	if err != nil {
		return -1, fmt.Errorf("cuda: duplicating the exported descriptor: %w", err)
	}
	return fd, nil
}

// AllowDevice grants dev, another GPU of this process with a peer path to
// the memory's GPU (Device.CanAccessPeer), read and write access to the
// mapping at Ptr (cuMemSetAccess), so that its kernels and copy engines
// reach the memory over that path, with no staging through host memory and
// no peer access enabled between contexts. The memory's own GPU keeps its
// access. Granting a device that has access already changes nothing.
func (m *ShareableMemory) AllowDevice(dev Device) error {
	if err := m.life.acquire(); err != nil {
		return err
	}
	defer m.life.release()
	if dev.h == m.ctx.dev.h {
		return nil
	}
	if err := check("cuMemSetAccess", cu.MemSetAccessRW(m.ctx.h, cu.DevicePtr(m.ptr), m.size, dev.h)); err != nil {
		return fmt.Errorf("cuda: giving GPU %d access to %d bytes of GPU %d's memory: %w", dev.Ordinal(), m.size, m.ctx.dev.Ordinal(), err)
	}
	return nil
}

// Close unmaps and releases the allocation once calls in progress have
// returned. Unlike cudaFree it does not wait for the GPU: cuMemUnmap does
// not, and a kernel still queued on the range would fault
// (CUDA_ERROR_ILLEGAL_ADDRESS, sticky for the context); wait for that work
// first (Context.Synchronize, as cudaFree would). Importers elsewhere keep
// the memory itself. Idempotent.
func (m *ShareableMemory) Close() error {
	return m.life.shut(func() error {
		c := m.ctx
		m.expMu.Lock()
		if m.exported >= 0 {
			closeFD(m.exported)
			m.exported = -1
		}
		m.expMu.Unlock()
		err := check("cuMemUnmap", cu.MemUnmap(c.h, cu.DevicePtr(m.ptr), m.size))
		err = errors.Join(err, check("cuMemAddressFree", cu.MemAddressFree(c.h, cu.DevicePtr(m.ptr), m.size)))
		err = errors.Join(err, check("cuMemRelease", cu.MemRelease(c.h, m.h)))
		return errors.Join(err, c.release())
	})
}

// ImportShareableFD maps, in this context, an allocation another process
// exported with ShareableMemory.ExportFD (cuMemImportFromShareableHandle,
// cuMemMap, cuMemSetAccess: NVIDIA's documented path for cuMemCreate
// memory, which cuImportExternalMemory is not documented to accept). size
// is the exporter's Size. The caller keeps fd (close it after the call).
// The result is a ShareableMemory like the exporter's: Ptr, Size, ExportFD
// and Close work on it, and the memory lives while either side holds it.
func (c *Context) ImportShareableFD(fd int, size uint64) (*ShareableMemory, error) {
	if err := fdsRefused(); err != nil {
		return nil, err
	}
	g, err := c.Granularity()
	if err != nil {
		return nil, err
	}
	if size == 0 || size%g != 0 {
		return nil, fmt.Errorf("cuda: ImportShareableFD of %d bytes: not a multiple of the granularity %d: %w", size, g, ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		return nil, err
	}
	m := &ShareableMemory{ctx: c, size: size, exported: -1}
	h, r := cu.MemImportFromFD(c.h, fd)
	if err := check("cuMemImportFromShareableHandle", r); err != nil {
		return nil, errors.Join(fmt.Errorf("importing a shareable allocation from fd %d: %w", fd, err), c.release())
	}
	if err := m.mapHandle(h); err != nil {
		return nil, errors.Join(fmt.Errorf("mapping an imported shareable allocation: %w", err), c.release())
	}
	return m, nil
}

// mapHandle reserves, maps and grants access to h; on error it releases h
// and undoes what it did.
func (m *ShareableMemory) mapHandle(h cu.MemHandle) error {
	c := m.ctx
	p, r := cu.MemAddressReserve(c.h, m.size, 0)
	if err := check("cuMemAddressReserve", r); err != nil {
		cu.MemRelease(c.h, h)
		return err
	}
	if err := check("cuMemMap", cu.MemMap(c.h, p, m.size, 0, h)); err != nil {
		cu.MemAddressFree(c.h, p, m.size)
		cu.MemRelease(c.h, h)
		return err
	}
	if err := check("cuMemSetAccess", cu.MemSetAccessRW(c.h, p, m.size, c.dev.h)); err != nil {
		cu.MemUnmap(c.h, p, m.size)
		cu.MemAddressFree(c.h, p, m.size)
		cu.MemRelease(c.h, h)
		return err
	}
	m.h, m.ptr = h, DevicePtr(p)
	return nil
}
