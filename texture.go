package gfxcuda

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/kernels"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TextureOptions describe a shared 2D texture (or 2D array).
type TextureOptions struct {
	Format        format.Format
	Width, Height uint32
	Layers        uint32            // more than 1 makes a 2D array (a layered CUDA array)
	Usage         vulkan.ImageUsage // 0: sampled, storage, color attachment and copies, as far as the format allows
	// ViewFormats are other formats Vulkan may read or write the texels
	// as (vulkan.ImageOptions.ViewFormats: colour formats of Format's
	// texel size). An RGBA8 atlas with format.R32UInt among them is
	// converted by ToTensor's tiles (uint8, no mean or std) from texel
	// words, four texels a fetch: on an H200 0.83× the copy bandwidth
	// against 0.69× from a plain image (BENCHMARKS.md). ImportTexture must
	// be given the exporter's; such a texture is not shared with other
	// processes (ExportVulkan refuses its image).
	ViewFormats []format.Format
}

// vulkanViewFormats is fs as vulkan.ImageOptions.ViewFormats.
func vulkanViewFormats(fs []format.Format) []uint32 {
	var out []uint32
	for _, f := range fs {
		out = append(out, uint32(f))
	}
	return out
}

// Texture is an optimal-tiling Vulkan image whose memory CUDA sees as a
// CUDA array (and surface object): usable in Vulkan as a sampled or storage
// image, color attachment and copy source or destination, and in CUDA by
// kernels (through Surface) and copies (CopyTo, CopyFrom).
type Texture struct {
	s    state
	o    TextureOptions
	info format.Info
	vk   *vulkan.Image // nil until imported when lazy (guarded by the Device's lock)
	ext  *cuda.ExternalMemory
	arr  *cuda.Array

	imported bool        // made by ImportTexture: not exportable again
	lazy     *lazyVulkan // ImportOptions.LazyVulkan: the Vulkan import still to make
	view     computeView // its compute view (ComputeResource, cudacompute.go), guarded by the Device's lock

	surfMu sync.Mutex
	surf   cuda.SurfObject // made on first use
}

// shareable reports whether f can be shared as a texture on this device.
func (d *Device) shareable(f format.Format, usage vulkan.ImageUsage) bool {
	in, ok := format.Lookup(f)
	return ok && in.CUDAArrayCapable() && d.vk.ImageFormatSupported(uint32(f), usage, true)
}

// formatError explains why f cannot be shared and suggests the nearest
// format that can.
func (d *Device) formatError(f format.Format, usage vulkan.ImageUsage, why string) error {
	near := format.Nearest(f, func(g format.Format) bool { return d.shareable(g, usage) })
	hint := "no shareable format is available"
	if len(near) > 0 {
		var names []string
		for i, g := range near {
			if i == 3 {
				break
			}
			names = append(names, g.String())
		}
		hint = "nearest supported: " + strings.Join(names, ", ")
	}
	return fmt.Errorf("%w: format %s (%s) cannot be shared as a texture on %s: %s; %s",
		ErrUnsupported, f, f.Info().VkName, d.vk.Physical().Name, why, hint)
}

// defaultUsage is every usage the format supports, out of sampled, storage,
// color attachment and transfers.
func (d *Device) defaultUsage(f format.Format) vulkan.ImageUsage {
	u := vulkan.ImageUsage(vulkan.ImageTransferSrc | vulkan.ImageTransferDst)
	for _, extra := range []vulkan.ImageUsage{vulkan.ImageSampled, vulkan.ImageStorage, vulkan.ImageColorAttachment} {
		if d.vk.ImageFormatSupported(uint32(f), u|extra, true) {
			u |= extra
		}
	}
	return u
}

// NewTexture creates a shared texture. A format the device cannot share
// fails with an error (matching ErrUnsupported) naming the format, the
// device, and the nearest formats that can be shared.
func (d *Device) NewTexture(o TextureOptions) (*Texture, error) {
	in, ok := format.Lookup(o.Format)
	if !ok {
		return nil, fmt.Errorf("interop: unknown format %v", o.Format)
	}
	if o.Width == 0 || o.Height == 0 {
		return nil, fmt.Errorf("interop: texture of %dx%d texels", o.Width, o.Height)
	}
	if o.Layers == 0 {
		o.Layers = 1
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	if !in.CUDAArrayCapable() {
		return nil, d.formatError(o.Format, vulkan.ImageTransferSrc|vulkan.ImageTransferDst, fmt.Sprintf("CUDA arrays cannot hold %d-channel texels", in.Channels))
	}
	if o.Usage == 0 {
		o.Usage = d.defaultUsage(o.Format)
	}
	if !d.vk.ImageFormatSupported(uint32(o.Format), o.Usage, true) {
		return nil, d.formatError(o.Format, o.Usage, "the Vulkan driver cannot export it with this usage")
	}
	img, err := d.vk.NewImage(vulkan.ImageOptions{Dim: vulkan.Image2D, Format: uint32(o.Format), Width: o.Width, Height: o.Height,
		Layers: o.Layers, Usage: o.Usage, Exportable: true, ViewFormats: vulkanViewFormats(o.ViewFormats)})
	if err != nil {
		return nil, err
	}
	fd, err := img.ExportFD()
	if err != nil {
		img.Close()
		return nil, err
	}
	ext, err := d.ctx.ImportMemoryFD(fd, img.AllocationSize(), true) // takes fd
	if err != nil {
		img.Close()
		return nil, err
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
	o.ViewFormats = slices.Clone(o.ViewFormats) // the caller's slice stays theirs
	t := &Texture{s: state{d: d}, o: o, info: in, vk: img, ext: ext, arr: arr}
	d.adopt(t, &t.s, guardImage(img))
	return t, nil
}

// NewTextureFromCUDA is Gfx2Cuda's texture(tensor): it creates a texture
// shaped like a CUDA image of width×height texels of channels elements of
// dtype (rows pitch bytes apart at ptr; 0 = tightly packed) and copies the
// image into it, reading it in order with stream s as CopyFromSync does
// (nil: the legacy default stream). 8-bit integers become UNORM formats
// (SNORM when signed), 16/32-bit integers UINT/SINT, floats FLOAT.
func (d *Device) NewTextureFromCUDA(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64, width, height, channels uint32, dtype format.DType) (*Texture, error) {
	f, err := format.ForDType(dtype, int(channels))
	if err != nil {
		return nil, err
	}
	t, err := d.NewTexture(TextureOptions{Format: f, Width: width, Height: height})
	if err != nil {
		return nil, err
	}
	if err := t.CopyFromSync(s, ptr, pitch); err != nil {
		return nil, errors.Join(err, t.Close())
	}
	return t, nil
}

// ErrEarlierCUDAWork is wrapped by the error of
// NewTextureFromCUDAAfterSync when synchronizing the CUDA context fails:
// a failure of CUDA work queued before the call, which CUDA reports to the
// calls after it.
var ErrEarlierCUDAWork = errors.New("gfxcuda: CUDA work queued earlier failed")

// NewTextureFromCUDAAfterSync is NewTextureFromCUDA for a caller that
// does not know which stream wrote the image at ptr (Python's
// texture(tensor), the C library's gfxcuda_shared_texture_from_cuda): it
// first synchronizes the Device's CUDA context, waiting on the host for
// the work queued on every stream of it, then makes the texture as
// NewTextureFromCUDA does with the legacy default stream. A failing
// synchronize gives an error wrapping ErrEarlierCUDAWork and makes
// nothing.
func (d *Device) NewTextureFromCUDAAfterSync(ptr cuda.DevicePtr, pitch uint64, width, height, channels uint32, dtype format.DType) (*Texture, error) {
	ctx := d.CUDA()
	if ctx == nil {
		return nil, fmt.Errorf("gfxcuda: NewTextureFromCUDAAfterSync: the Device has no CUDA context: %w", ErrUnsupported)
	}
	if err := ctx.Synchronize(); err != nil {
		return nil, fmt.Errorf("gfxcuda: NewTextureFromCUDAAfterSync: %w: %w", ErrEarlierCUDAWork, err)
	}
	return d.NewTextureFromCUDA(nil, ptr, pitch, width, height, channels, dtype)
}

func (t *Texture) st() *state { return &t.s }

// Options returns the texture's description (with defaults filled in).
func (t *Texture) Options() TextureOptions { return t.o }

// Format returns the texture's format description.
func (t *Texture) Format() format.Info { return t.info }

// Array returns the CUDA array over the texture's memory (level 0).
func (t *Texture) Array() *cuda.Array { return t.arr }

// Surface returns a CUDA surface object for kernels (surf2Dread/write; the
// x coordinate is in bytes). The texture needs storage usage.
func (t *Texture) Surface() (cuda.SurfObject, error) {
	t.surfMu.Lock()
	defer t.surfMu.Unlock()
	if t.surf != 0 {
		return t.surf, nil
	}
	if t.o.Usage&vulkan.ImageStorage == 0 {
		return 0, fmt.Errorf("%w: surface objects need a texture with storage usage", ErrUnsupported)
	}
	s, err := t.arr.Surface()
	if err != nil {
		return 0, err
	}
	t.surf = s
	return s, nil
}

// RowBytes is the size of one tightly packed row.
func (t *Texture) RowBytes() uint64 { return uint64(t.o.Width) * uint64(t.info.BytesPerTexel) }

func (t *Texture) copy(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64, to bool) error {
	t.s.d.mu.Lock()
	own, closed := t.s.owner, t.s.closed
	t.s.d.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if own != ownedByCUDA {
		return fmt.Errorf("interop: texture copy: %w", ErrNotHeld)
	}
	if pitch == 0 {
		pitch = t.RowBytes()
	}
	if pitch < t.RowBytes() {
		return fmt.Errorf("interop: texture copy: pitch %d < row of %d bytes", pitch, t.RowBytes())
	}
	if t.o.Usage&vulkan.ImageStorage != 0 {
		// The kernel, unless this driver cannot load it (interop/kernels.go).
		if use, err := t.s.d.useCopyKernel(); err != nil {
			return err
		} else if use {
			return t.kernelCopy(s, ptr, pitch, to)
		}
	}
	for l := uint32(0); l < t.o.Layers; l++ {
		c := cuda.ArrayCopy{Array: t.arr, Layer: uint64(l), Ptr: ptr.Add(uint64(l) * pitch * uint64(t.o.Height)), Pitch: pitch}
		var err error
		if to {
			err = s.CopyFromArray(c)
		} else {
			err = s.CopyToArray(c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// kernelCopy copies through a surface object with gfxcuda's own kernel,
// which reaches memory bandwidth where the copy engine's array copies do
// not (textures with storage usage have one).
func (t *Texture) kernelCopy(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64, to bool) error {
	f, err := t.s.d.kernel(kernels.SurfLinear)
	if err != nil {
		return err
	}
	surf, err := t.Surface()
	if err != nil {
		return err
	}
	layered, toSurf := uint32(0), uint32(1)
	if t.o.Layers > 1 {
		layered = 1
	}
	if to {
		toSurf = 0
	}
	grid := cuda.Dim3{X: (t.o.Width + 31) / 32, Y: (t.o.Height + 7) / 8}
	for l := uint32(0); l < t.o.Layers; l++ {
		p := ptr.Add(uint64(l) * pitch * uint64(t.o.Height))
		if err := f.Launch(s, grid, cuda.Dim3{X: 32, Y: 8}, 0, surf, t.o.Width, t.o.Height, l, layered,
			uint32(t.info.BytesPerTexel), p, pitch, toSurf); err != nil {
			return err
		}
	}
	return nil
}

// CopyTo queues, on stream s, a copy of every layer into CUDA memory at ptr:
// rows pitch bytes apart (0: tightly packed), layer l starting at
// ptr + l·pitch·height. The texture must be held by CUDA (ToCUDA).
func (t *Texture) CopyTo(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return t.copy(s, ptr, pitch, true)
}

// CopyFrom queues the reverse of CopyTo: CUDA memory into the texture.
func (t *Texture) CopyFrom(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return t.copy(s, ptr, pitch, false)
}

// CopyToStream queues, on stream s, a copy of every layer into CUDA memory
// at ptr (rows pitch bytes apart, 0: tightly packed, as CopyTo), ordered
// after the work queued on s before and before the work queued on s after,
// without a host wait, whether or not the texture is handed to CUDA:
//   - inside an explicit hand-off (ToCUDA until Access.Done), the copy
//     stays inside it: when s is not the hand-off's stream, s first waits
//     for the hand-off's stream and the hand-off's stream then waits for
//     s, so work queued on either after the call comes after the copy;
//   - otherwise the texture is handed to CUDA on s for the copy and back
//     after it (Map).
//
// nil s is the hand-off's stream, or the Device's stream. Access.Done of
// the hand-off must not run during the call.
func (t *Texture) CopyToStream(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return t.streamCopy(s, ptr, pitch, true)
}

// CopyFromStream is CopyToStream's reverse: CUDA memory at ptr into the
// texture, on stream s, inside an explicit hand-off or through Map.
func (t *Texture) CopyFromStream(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return t.streamCopy(s, ptr, pitch, false)
}

func (t *Texture) streamCopy(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64, to bool) error {
	t.s.d.mu.Lock()
	acc := t.s.acc
	t.s.d.mu.Unlock()
	cp := func(s *cuda.Stream) error { return t.copy(s, ptr, pitch, to) }
	if acc == nil {
		return t.Map(s, func(_ *cuda.Array, s *cuda.Stream) error { return cp(s) })
	}
	held := acc.Stream()
	if s == nil || s.Handle() == held.Handle() {
		return cp(held)
	}
	if err := s.After(held); err != nil {
		return err
	}
	return errors.Join(cp(s), held.After(s))
}

// CopyToSync hands the texture to CUDA, copies it to ptr, hands it back and
// waits for the copy to finish. The copy runs on stream s, after the work
// queued on s before the call (so that it sees what that work wrote at
// ptr); nil means the legacy default stream (CUDA's stream 0, what
// cudaMemcpy and kernels launched without a stream use): the copy then runs
// on the Device's stream, after an event recorded on the legacy default
// stream. A caller that wrote ptr on another stream passes that stream.
func (t *Texture) CopyToSync(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return t.syncCopy(s, ptr, pitch, true)
}

// CopyFromSync is CopyToSync's reverse: the texture's texels from CUDA
// memory at ptr, read in order with stream s (nil: the legacy default
// stream).
func (t *Texture) CopyFromSync(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64) error {
	return t.syncCopy(s, ptr, pitch, false)
}

func (t *Texture) syncCopy(s *cuda.Stream, ptr cuda.DevicePtr, pitch uint64, to bool) error {
	d := t.s.d
	on := s
	if s == nil {
		// Order the Device's stream after the legacy default stream's work.
		on = d.stream
		if err := order(d.cs, nil, on); err != nil {
			return err
		}
	}
	err := t.Map(on, func(_ *cuda.Array, s *cuda.Stream) error { return t.copy(s, ptr, pitch, to) })
	if err != nil {
		return err
	}
	return hostWait(d.cs, on)
}

// Map hands the texture to CUDA on stream s (nil: the Device's stream),
// calls f with its CUDA array and the stream to queue work on, and hands it
// back to Vulkan, whatever f returns.
func (t *Texture) Map(s *cuda.Stream, f func(arr *cuda.Array, s *cuda.Stream) error) error {
	acc, err := t.s.d.ToCUDA(s, t)
	if err != nil {
		return err
	}
	ferr := f(t.arr, acc.Stream())
	return errors.Join(ferr, acc.Done())
}

func (t *Texture) closeLocked() error {
	if t.s.closed {
		return nil
	}
	t.s.closed = true
	return t.free()
}

// free destroys the texture in both APIs.
func (t *Texture) free() error {
	var err error
	if t.ext != nil {
		err = t.ext.Close() // destroys the array and its surfaces
	}
	if t.vk != nil {
		err = errors.Join(err, t.vk.Close())
	}
	t.lazy.close()
	return err
}

// Close frees the texture in both APIs, after the CUDA work queued in the
// context so far (on any stream, as cudaFree waits) and the Vulkan queue
// have finished. Idempotent; Device.Close closes textures still open.
func (t *Texture) Close() error {
	d := t.s.d
	d.mu.Lock()
	if t.s.closed || d.closed {
		d.mu.Unlock()
		return nil
	}
	if t.s.holder != nil {
		d.mu.Unlock()
		return fmt.Errorf("interop: Close: %w: close the ring or producer that holds it first", ErrHeldByCUDA)
	}
	delete(d.kids, t)
	t.s.closed = true // no new hand-offs
	d.mu.Unlock()
	// Without the Device's lock, so that other hand-offs go on: wait, as
	// cudaFree does, for the CUDA work queued in the context so far, on
	// any stream (PyTorch's too: work still queued on the memory would
	// fault once it is freed, slangpy #929); the Vulkan objects wait for
	// their own last use when closed.
	err := d.cs.syncContext()
	return errors.Join(err, t.free())
}

// importVulkan imports the texture's memory (fd, which it takes) into
// Vulkan and acquires its texels in the GENERAL layout the exporter left
// them in, so that no later transition from UNDEFINED discards them.
// Called with the Device's lock held.
func (t *Texture) importVulkan(fd int, alloc uint64) (*vulkan.Image, error) {
	d, o := t.s.d, t.o
	img, err := d.vk.NewImage(vulkan.ImageOptions{Dim: vulkan.Image2D, Format: uint32(o.Format), Width: o.Width, Height: o.Height,
		Layers: o.Layers, Usage: o.Usage, ViewFormats: vulkanViewFormats(o.ViewFormats),
		Import: &vulkan.ImportFD{FD: fd, Size: alloc, Dedicated: true}}) // takes fd
	if err != nil {
		return nil, fmt.Errorf("interop: importing a texture into Vulkan: %w", err)
	}
	err = d.vk.Run(func(c *vulkan.Commands) error {
		own.AcquireImages(c, vulkan.LayoutGeneral, vulkan.LayoutGeneral, img)
		return c.Err()
	})
	if err != nil {
		img.Close()
		return nil, fmt.Errorf("interop: ImportTexture: acquiring the image: %w", err)
	}
	t.vk = img
	return img, nil
}

// Vulkan returns the Vulkan image. A texture imported with
// ImportOptions.LazyVulkan is imported into Vulkan by the first call
// (hand-offs leave a resource Vulkan has not used alone); nil when that
// import failed (VulkanImage returns
// why).
func (t *Texture) Vulkan() *vulkan.Image {
	img, _ := t.VulkanImage()
	return img
}

// VulkanImage is Vulkan with the error of a lazy import.
func (t *Texture) VulkanImage() (*vulkan.Image, error) {
	if t.lazy == nil {
		return t.vk, nil
	}
	d := t.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return t.vulkanLocked()
}

// VulkanImported reports whether the texture exists in Vulkan yet:
// always, except for a lazily imported texture Vulkan has not used.
func (t *Texture) VulkanImported() bool {
	if t.lazy == nil {
		return true
	}
	d := t.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return t.vk != nil
}

// vulkanLocked makes the lazy Vulkan import if it is due. Called with the
// Device's lock held.
func (t *Texture) vulkanLocked() (*vulkan.Image, error) {
	if t.vk != nil || t.lazy == nil {
		return t.vk, nil
	}
	if t.lazy.err != nil {
		return nil, t.lazy.err
	}
	d := t.s.d
	if t.s.closed || d.closed {
		return nil, ErrClosed
	}
	fd := t.lazy.fd
	t.lazy.fd = -1
	img, err := t.importVulkan(fd, t.lazy.alloc)
	if err != nil {
		t.lazy.err = err
	}
	return img, err
}

// Device returns the Device that made or imported the texture.
func (t *Texture) Device() *Device { return t.s.d }
