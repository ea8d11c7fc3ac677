package vulkan

import (
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// Host import: the caller's memory imported (VK_EXT_external_memory_host)
// and copied by the GPU, with no host copy (staging.go says when).

// hostImportMin is the smallest aligned run an import covers.
const hostImportMin = 1 << 20

// importing reports whether transfers of device-local memory try to import
// the caller's memory: the transfer mode imports on this device
// (importsFor), the device can import host memory, and no import has
// failed before.
func (d *Device) importing() bool {
	d.stage.mu.Lock()
	defer d.stage.mu.Unlock()
	return d.importsFor(d.stage.mode) && !d.stage.noImport && d.raw.HasHostPointer()
}

// tryImport imports p for one transfer (timedImport) and counts it in
// HostImports; the caller releases it with timedRelease. When the import
// fails it returns nil, and the device stages from then on: importing is
// only faster, so its failure is said once, by falling back, not as an
// error.
func (d *Device) tryImport(p []byte) *importedHost {
	h, err := d.timedImport(p)
	if err != nil {
		d.stage.mu.Lock()
		d.stage.noImport = true
		d.stage.mu.Unlock()
		return nil
	}
	d.stage.imported.Add(1)
	return h
}

// importedHost is host memory imported as a transfer buffer.
type importedHost struct {
	b   *Buffer
	pin runtime.Pinner
}

// importHost imports p (page-aligned, a whole number of pages) as a
// buffer the GPU copies from or into; close releases it.
func (d *Device) importHost(p []byte) (*importedHost, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	ptr := unsafe.Pointer(unsafe.SliceData(p))
	h := &importedHost{}
	h.pin.Pin(ptr) // the driver keeps the pointer until the memory is freed
	fail := func(err error) (*importedHost, error) {
		h.pin.Unpin()
		return nil, err
	}
	bits, err := d.raw.HostPointerTypeBits(ptr)
	if err != nil {
		return fail(err)
	}
	b := &Buffer{d: d, size: uint64(len(p)), usage: bufferTransfer, heap: HeapUpload, allocSize: uint64(len(p))}
	b.h, err = d.raw.CreateBuffer(vk.BufferCreateInfo{Size: b.size, Usage: uint32(bufferTransfer),
		ExternalHandleTypes: vk.ExternalMemoryHandleTypeHostAllocation})
	if err != nil {
		return fail(err)
	}
	req := d.raw.BufferMemoryRequirements(b.h)
	bits &= req.MemoryTypeBits
	t := -1
	for i := range d.pd.MemoryTypes {
		if bits&(1<<i) != 0 && (t < 0 || d.pd.MemoryTypes[i].Flags&MemoryHostCoherent != 0 && d.pd.MemoryTypes[t].Flags&MemoryHostCoherent == 0) {
			t = i
		}
	}
	if t < 0 || req.Size > b.size {
		d.raw.DestroyBuffer(b.h)
		return fail(fmt.Errorf("no memory type to import host memory as a %d-byte buffer (types 0x%x, %d bytes needed)", b.size, bits, req.Size))
	}
	b.memFlags = d.pd.MemoryTypes[t].Flags
	b.mem, err = d.raw.AllocateMemory(vk.MemoryAllocateInfo{Size: b.size, TypeIndex: uint32(t), HostPointer: ptr})
	if err != nil {
		d.raw.DestroyBuffer(b.h)
		return fail(err)
	}
	if err := d.raw.BindBufferMemory(b.h, b.mem, 0); err != nil {
		d.raw.DestroyBuffer(b.h)
		d.raw.FreeMemory(b.mem)
		return fail(err)
	}
	d.register(b)
	h.b = b
	return h, nil
}

// close frees the imported buffer (after the work that uses it) and
// unpins the memory.
func (h *importedHost) close() {
	h.b.Close()
	h.pin.Unpin()
}

// timedImport is importHost, counted in the transfer stats.
func (d *Device) timedImport(p []byte) (*importedHost, error) {
	t := time.Now()
	h, err := d.importHost(p)
	since(&d.stage.stats.importNs, t)
	if err == nil {
		d.stage.stats.transfers.Add(1)
		d.stage.stats.imported.Add(int64(len(p)))
	}
	return h, err
}

// timedRelease is h.close, counted in the transfer stats.
func (d *Device) timedRelease(h *importedHost) {
	t := time.Now()
	h.close()
	since(&d.stage.stats.releaseNs, t)
}

// timedRun is Run, its submit and wait counted as a piece's in the
// transfer stats.
func (d *Device) timedRun(record func(*Commands) error) error {
	t := time.Now()
	err := d.Run(record)
	since(&d.stage.stats.wait, t)
	d.stage.stats.pieces.Add(1)
	return err
}

// alignedRun returns the page-aligned run [lo, hi) of host, with hi-lo a
// whole number of pages, or lo == hi when there is none worth importing.
func alignedRun(host []byte) (lo, hi int) {
	if len(host) < hostImportMin {
		return 0, 0
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(host)))
	lo = int((page - start%page) % page)
	hi = lo + (len(host)-lo)/int(page)*int(page)
	if hi-lo < hostImportMin {
		return 0, 0
	}
	return lo, hi
}

// viaImport moves [off, off+len(host)) of b by importing the aligned run of
// host and copying it on the GPU in one batch; the unaligned head and tail
// go through the staging rings. It reports false, with nothing done, when
// the transfer should be staged instead: the device does not import
// (Device.importing), or host has no aligned run of hostImportMin bytes,
// or the import failed.
func (b *Buffer) viaImport(off uint64, host []byte, up bool) (bool, error) {
	d := b.d
	if !d.importing() {
		return false, nil
	}
	lo, hi := alignedRun(host)
	if lo == hi {
		return false, nil
	}
	h := d.tryImport(host[lo:hi])
	if h == nil {
		return false, nil
	}
	defer d.timedRelease(h)
	n := uint64(hi - lo)
	// The middle by DMA straight from or into the caller's memory, the
	// ends through the rings meanwhile.
	err := d.timedRun(func(c *Commands) error {
		c.MemoryBarrier()
		if up {
			c.CopyBuffer(b, h.b, off+uint64(lo), 0, n)
		} else {
			c.CopyBuffer(h.b, b, 0, off+uint64(lo), n)
		}
		c.MemoryBarrier()
		return nil
	})
	if err != nil {
		return true, err
	}
	var ends []piece
	if lo > 0 {
		ends = append(ends, bufferPieces(b, off, host[:lo], up)...)
	}
	if hi < len(host) {
		ends = append(ends, bufferPieces(b, off+uint64(hi), host[hi:], up)...)
	}
	if len(ends) == 0 {
		return true, nil
	}
	if up {
		return true, d.stageUp(ends)
	}
	return true, d.stageDown(ends)
}

// viaImport copies a region between the image and host, imported, in one
// batch when the device imports (Device.importing) and host is
// page-aligned and a whole number of pages (a 1080p RGBA8 frame is 2,025
// pages). It reports false, with nothing done, otherwise, or when the
// import failed.
func (i *Image) viaImport(r ImageRegion, host []byte, up bool) (bool, error) {
	d := i.d
	if !d.importing() {
		return false, nil
	}
	if lo, hi := alignedRun(host); lo != 0 || hi != len(host) {
		return false, nil
	}
	h := d.tryImport(host)
	if h == nil {
		return false, nil
	}
	defer d.timedRelease(h)
	bc := BufferImageCopy{X: int32(r.X), Y: int32(r.Y), Z: int32(r.Z), Width: r.Width, Height: r.Height, Depth: r.Depth,
		BaseLayer: r.Layer, Layers: r.Layers}
	return true, d.timedRun(func(c *Commands) error {
		want := LayoutTransferSrc
		if up {
			want = LayoutTransferDst
		}
		c.MemoryBarrier()
		if l := i.Layout(); l != want && l != LayoutGeneral {
			c.TransitionImage(i, LayoutGeneral)
		}
		if up {
			c.CopyBufferToImage(i, h.b, bc)
		} else {
			c.CopyImageToBuffer(h.b, i, bc)
		}
		c.MemoryBarrier()
		return nil
	})
}
