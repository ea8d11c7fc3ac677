package vulkan

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Upload and Readback move bytes between Go memory and a resource by one
// of four mechanisms, each in its own place:
//
//   - Mapped copy (Buffer.uploadMapped, Buffer.readbackMapped, in
//     buffer.go): a host copy through the buffer's mapping, with a flush or
//     an invalidate. Chosen for every HeapUpload and HeapReadback buffer,
//     which the host maps; the other mechanisms serve device-local memory
//     (HeapDefault buffers, and images).
//   - Staging rings (stagingRing, Device.stageUp, Device.stageDown, in
//     staging_ring.go): the bytes copied through reused host-visible
//     memory, in pieces pipelined with the GPU's copies. Chosen for
//     device-local memory in TransferStaged, in TransferAuto on GPUs, and
//     wherever an import is not possible or does not cover the transfer
//     (see the next item).
//   - Host import (Buffer.viaImport, Image.viaImport, in
//     staging_import.go): the caller's memory imported
//     (VK_EXT_external_memory_host) and copied by the GPU in one batch, no
//     host copy. Chosen for device-local memory in TransferImport and in
//     TransferAuto on CPU devices (Device.importing), where the device has
//     the extension and no import has failed before, and where the memory
//     is page-aligned enough (alignedRun): for a buffer, an aligned run of
//     at least hostImportMin bytes (its unaligned ends go through the
//     rings); for an image, the whole of it.
//   - Parallel host copy (copier, parallelCopy, mappedCopy, in
//     staging_copy.go): the host side of the first two, spread over
//     goroutines: a ring's pieces over the copier's workers (one per
//     copyChunkMin bytes of the largest piece, up to GOMAXPROCS and 8), a
//     mapped copy of mappedCopyMin bytes or more with parallelCopy.
//     ParallelCopy exports it for the benchmarks.
//
// Why staging is the default on GPUs (TransferAuto) rather than importing
// the caller's memory per call (TransferImport): on the H100 with NVIDIA's
// driver the direct path (VK_EXT_external_memory_host pins every page and
// maps it for the GPU) read 64 MiB back in 8.1 ms, of which the DMA at the
// 49 GB/s the same run measured is 1.4 ms: about 6.5 ms went to importing
// and releasing, more than copying the same bytes on 8 cores (2.5 ms at the
// 26.8 GB/s measured). Uploads: direct 8.8 GB/s, staged (then through the
// upload heap, 4 MiB pieces) 10.1; a 1080p frame's round trip took 2.8 ms
// direct, almost all of it two imports of 8.3 MB. An import pays only where
// the host copy costs more than the pinning, which on lavapipe (whose
// "DMA" is itself a host copy) is always, and on NVIDIA was never at the
// sizes measured; so TransferAuto imports on CPU devices only.
// Device.TransferStats splits the time of each path into host copy,
// submit, wait, import and release, so the choice can be checked on each
// machine (`gfxcuda bench --only compute` prints it per row).

// stagingState is a device's rings, one per direction; mu serializes the
// transfers that use them.
type stagingState struct {
	mu       sync.Mutex
	up, down *stagingRing
	mode     TransferMode
	noImport bool // a host import failed once: staging only from then on
	imported atomic.Int64
	stats    transferCounters
}

// TransferMode says how Upload and Readback of device-local memory move
// bytes.
type TransferMode int

// Transfer modes.
const (
	// TransferAuto chooses by device, by what each path measured: on GPUs
	// it stages every transfer through the reused rings (on the H100 the
	// per-call import cost more than the host copy it saves, in both
	// directions and for textures: see TransferImport); on CPU devices
	// (lavapipe), whose "DMA" is itself a host copy, it imports as
	// TransferImport does, saving one of the two copies.
	TransferAuto TransferMode = iota
	// TransferStaged always copies through the staging rings.
	TransferStaged
	// TransferImport imports the caller's memory (VK_EXT_external_memory_host)
	// per call where it is page-aligned and large enough, so that the GPU
	// copies from or into it with no host copy; the unaligned head and
	// tail, small transfers and devices without the extension go through
	// the rings. The import (pinning every page) costs more than the copy
	// it saves on NVIDIA's driver; it wins where the host copy is the
	// expensive part (lavapipe).
	TransferImport
)

// String names the mode.
func (m TransferMode) String() string {
	switch m {
	case TransferAuto:
		return "auto"
	case TransferStaged:
		return "staged"
	case TransferImport:
		return "import"
	}
	return fmt.Sprintf("TransferMode(%d)", int(m))
}

// importsFor reports whether a transfer mode imports the caller's memory
// on this device: TransferImport always, TransferAuto on CPU devices only.
func (d *Device) importsFor(m TransferMode) bool {
	return m == TransferImport || m == TransferAuto && d.pd.IsSoftware()
}

// ImportsHostMemory reports whether Upload and Readback import the
// caller's page-aligned memory instead of staging it, in the device's
// current transfer mode (where the device has VK_EXT_external_memory_host
// and no import failed).
func (d *Device) ImportsHostMemory() bool {
	d.stage.mu.Lock()
	defer d.stage.mu.Unlock()
	return d.importsFor(d.stage.mode) && !d.stage.noImport && d.raw.HasHostPointer()
}

// SetTransferMode chooses how Upload and Readback move bytes (TransferAuto
// by default).
func (d *Device) SetTransferMode(m TransferMode) {
	d.stage.mu.Lock()
	d.stage.mode = m
	d.stage.mu.Unlock()
}

// HostImports counts the transfers that imported the caller's memory
// instead of copying it, for tests and benchmarks.
func (d *Device) HostImports() int64 { return d.stage.imported.Load() }

// TransferStats is where the time of Upload and Readback of device-local
// memory went, summed over the transfers since the device was opened
// (subtract two snapshots to time some of them). Times are host time spent
// in each step: HostCopy copying into or out of the staging rings, Submit
// recording and submitting pieces, Wait blocked on the GPU, Import and
// Release importing and freeing the caller's memory (TransferImport).
//
// Reused counts the staged pieces submitted as recorded by an earlier
// transfer (the same copy of the same resource through the same slot), with
// no command recording.
type TransferStats struct {
	Transfers, Pieces, Reused, StagedBytes, ImportedBytes int64
	HostCopy, Submit, Wait, Import, Release               time.Duration
}

// Sub returns s minus an earlier snapshot.
func (s TransferStats) Sub(o TransferStats) TransferStats {
	return TransferStats{
		Transfers: s.Transfers - o.Transfers, Pieces: s.Pieces - o.Pieces, Reused: s.Reused - o.Reused,
		StagedBytes: s.StagedBytes - o.StagedBytes, ImportedBytes: s.ImportedBytes - o.ImportedBytes,
		HostCopy: s.HostCopy - o.HostCopy, Submit: s.Submit - o.Submit, Wait: s.Wait - o.Wait,
		Import: s.Import - o.Import, Release: s.Release - o.Release,
	}
}

// String is the stats in one line.
func (s TransferStats) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3g ms", float64(d.Nanoseconds())/1e6) }
	out := fmt.Sprintf("%d transfers, %d pieces: host copy %s, submit %s, wait %s", s.Transfers, s.Pieces,
		ms(s.HostCopy), ms(s.Submit), ms(s.Wait))
	if s.ImportedBytes > 0 || s.Import > 0 {
		out += fmt.Sprintf(", import %s, release %s", ms(s.Import), ms(s.Release))
	}
	return out
}

// transferCounters accumulates TransferStats.
type transferCounters struct {
	transfers, pieces, reused, staged, imported atomic.Int64
	hostCopy, submit, wait, importNs, releaseNs atomic.Int64
}

// since adds the time since t to c and returns now.
func since(c *atomic.Int64, t time.Time) time.Time {
	now := time.Now()
	c.Add(int64(now.Sub(t)))
	return now
}

// TransferStats returns where the time of the device's Upload and Readback
// of device-local memory went so far.
func (d *Device) TransferStats() TransferStats {
	c := &d.stage.stats
	return TransferStats{
		Transfers: c.transfers.Load(), Pieces: c.pieces.Load(), Reused: c.reused.Load(), StagedBytes: c.staged.Load(), ImportedBytes: c.imported.Load(),
		HostCopy: time.Duration(c.hostCopy.Load()), Submit: time.Duration(c.submit.Load()), Wait: time.Duration(c.wait.Load()),
		Import: time.Duration(c.importNs.Load()), Release: time.Duration(c.releaseNs.Load()),
	}
}

// ImageRegion is a box of texels in some array layers of an image, for
// Image.Upload and Readback; zero sizes mean up to the image's edge, Layers
// 0 means all from Layer.
type ImageRegion struct {
	X, Y, Z              uint32
	Width, Height, Depth uint32
	Layer, Layers        uint32
}

// resolve fills in the region's defaults and checks it against the image;
// it returns the bytes per row of the region, tightly packed.
func (i *Image) resolve(r *ImageRegion) (rowBytes uint64, err error) {
	o := i.opts
	f := vkFormat(o.Format)
	bs := uint64(f.blockSize())
	bw, bh := f.blockExtent()
	if bs == 0 || bw != 1 || bh != 1 {
		return 0, fmt.Errorf("Upload and Readback of %v images are not supported", f)
	}
	rest := func(size, off uint32) uint32 {
		if off >= size {
			return 0
		}
		return size - off
	}
	if r.Width == 0 {
		r.Width = rest(o.Width, r.X)
	}
	if r.Height == 0 {
		r.Height = rest(o.Height, r.Y)
	}
	if r.Depth == 0 {
		r.Depth = rest(o.Depth, r.Z)
	}
	if r.Layers == 0 {
		r.Layers = rest(o.Layers, r.Layer)
	}
	if r.Width == 0 || r.Height == 0 || r.Depth == 0 || r.Layers == 0 ||
		uint64(r.X)+uint64(r.Width) > uint64(o.Width) || uint64(r.Y)+uint64(r.Height) > uint64(o.Height) ||
		uint64(r.Z)+uint64(r.Depth) > uint64(o.Depth) || uint64(r.Layer)+uint64(r.Layers) > uint64(o.Layers) {
		return 0, fmt.Errorf("region (%d, %d, %d) %dx%dx%d, layers [%d, %d) outside the %dx%dx%d image of %d layers",
			r.X, r.Y, r.Z, r.Width, r.Height, r.Depth, r.Layer, r.Layer+r.Layers, o.Width, o.Height, o.Depth, o.Layers)
	}
	rowBytes = uint64(r.Width) * bs
	if rowBytes > stageSlot {
		return 0, fmt.Errorf("rows of %d bytes exceed the %d-byte staging slots", rowBytes, stageSlot)
	}
	return rowBytes, nil
}

// RegionSize is the size of a region of the image, tightly packed: rows
// of Width texels, Height rows per slice, Depth slices per layer.
func (i *Image) RegionSize(r ImageRegion) (uint64, error) {
	rb, err := i.resolve(&r)
	if err != nil {
		return 0, fmt.Errorf("vulkan: %w", err)
	}
	return rb * uint64(r.Height) * uint64(r.Depth) * uint64(r.Layers), nil
}

// Upload writes a region of the image from data: tightly packed rows of
// texels, slice after slice, layer after layer (RegionSize bytes). It
// returns when the texels are there, after the batches submitted before it
// that use the image, through reused staging memory, pipelined in bands of
// rows. An image in a layout copies cannot use is moved to LayoutGeneral.
func (i *Image) Upload(r ImageRegion, data []byte) error {
	if err := i.acquire(); err != nil {
		return err
	}
	defer i.life.release()
	rb, err := i.resolve(&r)
	if err != nil {
		return fmt.Errorf("vulkan: Upload: %w", err)
	}
	if need := rb * uint64(r.Height) * uint64(r.Depth) * uint64(r.Layers); uint64(len(data)) != need {
		return fmt.Errorf("vulkan: Upload: %d bytes for a %dx%dx%d region of %d layers, which has %d", len(data), r.Width, r.Height, r.Depth, r.Layers, need)
	}
	if ok, err := i.viaImport(r, data, true); ok {
		return err
	}
	return i.d.stageUp(imagePieces(i, r, rb, data, true))
}

// Readback reads a region of the image into dst, laid out as Upload takes
// it, once the batches submitted before it that use the image have run.
func (i *Image) Readback(r ImageRegion, dst []byte) error {
	if err := i.acquire(); err != nil {
		return err
	}
	defer i.life.release()
	rb, err := i.resolve(&r)
	if err != nil {
		return fmt.Errorf("vulkan: Readback: %w", err)
	}
	if need := rb * uint64(r.Height) * uint64(r.Depth) * uint64(r.Layers); uint64(len(dst)) != need {
		return fmt.Errorf("vulkan: Readback: %d bytes for a %dx%dx%d region of %d layers, which has %d", len(dst), r.Width, r.Height, r.Depth, r.Layers, need)
	}
	if ok, err := i.viaImport(r, dst, false); ok {
		return err
	}
	return i.d.stageDown(imagePieces(i, r, rb, dst, false))
}
