package compute

import (
	"fmt"
	"math/bits"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Heap says where a buffer's memory lives.
type Heap = vulkan.Heap

// Heaps.
const (
	// HeapDefault is device-local memory, the fastest for shaders; Upload
	// and Readback copy through a staging buffer.
	HeapDefault = vulkan.HeapDefault
	// HeapUpload is host-visible memory for data the host writes and the
	// GPU reads.
	HeapUpload = vulkan.HeapUpload
	// HeapReadback is host-visible memory for data the GPU writes and the
	// host reads.
	HeapReadback = vulkan.HeapReadback
)

// Resource is what a kernel binds or a batch copies: a *Buffer, a
// *Texture or a *Sampler of this package, or a resource of another package
// that has a view on the device, such as the shared buffers and textures of
// package gfxcuda (the face), which a dispatch binds without wrapping them
// by hand.
type Resource interface {
	// ComputeResource returns what d binds for the resource: a *Buffer,
	// *Texture or *Sampler of d. This package's resources return
	// themselves; a resource of another package returns its view on d,
	// made on first use and kept (and closed) by the resource. Dispatches
	// and batches call it when they resolve their arguments and return its
	// error.
	ComputeResource(d *Device) (Resource, error)
}

// resolve returns the *Buffer, *Texture or *Sampler that d binds or copies
// for r (nil for a nil r); its errors are for the caller to prefix.
func (d *Device) resolve(r Resource) (Resource, error) {
	switch r.(type) {
	case nil, *Buffer, *Texture, *Sampler:
		return r, nil
	}
	v, err := r.ComputeResource(d)
	if err != nil {
		return nil, fmt.Errorf("%T: %w", r, err)
	}
	switch v.(type) {
	case *Buffer, *Texture, *Sampler:
		return v, nil
	}
	return nil, fmt.Errorf("%T: its compute view is a %T, not a *compute.Buffer, *compute.Texture or *compute.Sampler", r, v)
}

// Buffer is linear memory: raw, structured (elements of Stride bytes) or
// typed (texels of Format, bound as a texel buffer).
type Buffer struct {
	d      *Device
	vk     *vulkan.Buffer
	stride uint32
	format format.Format
	own    bool
}

// ComputeResource returns b: a Resource of package compute binds itself.
func (b *Buffer) ComputeResource(*Device) (Resource, error) { return b, nil }

// Buffer creates a buffer of size bytes on heap. It is usable as a
// constant, storage, texel and indirect-argument buffer and copy source
// and destination.
func (d *Device) Buffer(size uint64, heap Heap) (*Buffer, error) {
	b, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: size, Heap: heap})
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Buffer{d: d, vk: b, own: true}, nil
}

// StructuredBuffer creates a buffer of count elements of stride bytes,
// for StructuredBuffer and RWStructuredBuffer: binding it to a shader
// whose element stride differs is an error.
func (d *Device) StructuredBuffer(stride uint32, count uint64, heap Heap) (*Buffer, error) {
	if stride == 0 || count == 0 {
		return nil, fmt.Errorf("compute: StructuredBuffer of %d elements of %d bytes", count, stride)
	}
	b, err := d.Buffer(uint64(stride)*count, heap)
	if err != nil {
		return nil, err
	}
	b.stride = stride
	return b, nil
}

// TypedBuffer creates a buffer of count texels of format f, for Buffer<T>
// and RWBuffer<T> (GLSL textureBuffer and imageBuffer): it binds as a
// texel buffer viewed as f.
func (d *Device) TypedBuffer(f format.Format, count uint64, heap Heap) (*Buffer, error) {
	in, ok := format.Lookup(f)
	if !ok {
		return nil, fmt.Errorf("compute: TypedBuffer: unknown format %v", f)
	}
	if count == 0 {
		return nil, fmt.Errorf("compute: TypedBuffer of 0 texels")
	}
	b, err := d.Buffer(uint64(in.BytesPerTexel)*count, heap)
	if err != nil {
		return nil, err
	}
	b.format = f
	return b, nil
}

// WrapBuffer makes a Buffer of a Vulkan buffer of the device, such as a
// shared interop.Buffer's Vulkan(); Close leaves b open.
func (d *Device) WrapBuffer(b *vulkan.Buffer) *Buffer { return &Buffer{d: d, vk: b} }

// WithStride returns b as a structured buffer of elements of stride bytes
// (same memory).
func (b *Buffer) WithStride(stride uint32) *Buffer {
	c := *b
	c.stride, c.format, c.own = stride, 0, false
	return &c
}

// WithFormat returns b as a typed buffer of texels of f (same memory).
func (b *Buffer) WithFormat(f format.Format) *Buffer {
	c := *b
	c.format, c.stride, c.own = f, 0, false
	return &c
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.vk.Size() }

// Stride is the element size of a structured buffer, or 0.
func (b *Buffer) Stride() uint32 { return b.stride }

// Format is the texel format of a typed buffer, or 0.
func (b *Buffer) Format() format.Format { return b.format }

// Heap is the heap the buffer lives on.
func (b *Buffer) Heap() Heap { return b.vk.Heap() }

// Vulkan returns the Vulkan buffer.
func (b *Buffer) Vulkan() *vulkan.Buffer { return b.vk }

// Upload writes data at the start of the buffer; see UploadAt.
func (b *Buffer) Upload(data []byte) error { return b.UploadAt(0, data) }

// UploadAt writes data into the buffer from byte off and returns when it
// is there, after the work submitted before that uses the buffer. Bytes
// past the buffer's end are an error wrapping ErrRange. Buffers
// on the upload and readback heaps are written through their mapping,
// default-heap ones through a staging buffer and a copy.
func (b *Buffer) UploadAt(off uint64, data []byte) error {
	if off > b.Size() || uint64(len(data)) > b.Size()-off {
		return rangef("compute: Upload of bytes [%d, %d) into a %d-byte buffer", off, off+uint64(len(data)), b.Size())
	}
	if len(data) == 0 {
		return nil
	}
	if b.Heap() != HeapDefault || b.d.sub == nil {
		// Mapped memory, or the device's reused, pipelined staging.
		return b.vk.Upload(off, data)
	}
	return b.d.staged(b, off, data, nil)
}

// Readback returns the buffer's bytes in a new slice, once the work
// submitted before that uses it has finished.
func (b *Buffer) Readback() ([]byte, error) {
	out := make([]byte, b.Size())
	return out, b.ReadbackAt(0, out)
}

// ReadbackInto copies the first len(dst) bytes of the buffer into dst, a
// slice the caller keeps and reuses (no allocation), once the work
// submitted before that uses the buffer has finished.
func (b *Buffer) ReadbackInto(dst []byte) error { return b.ReadbackAt(0, dst) }

// ReadbackAt copies the buffer's bytes from off into dst, once the work
// submitted before that uses it has finished. Bytes past the buffer's end
// are an error wrapping ErrRange.
func (b *Buffer) ReadbackAt(off uint64, dst []byte) error {
	if off > b.Size() || uint64(len(dst)) > b.Size()-off {
		return rangef("compute: Readback of bytes [%d, %d) from a %d-byte buffer", off, off+uint64(len(dst)), b.Size())
	}
	if len(dst) == 0 {
		return nil
	}
	if b.Heap() != HeapDefault || b.d.sub == nil {
		return b.vk.Readback(off, dst)
	}
	return b.d.staged(b, off, nil, dst)
}

// Upload2D writes data into rows of the buffer that are pitch bytes apart
// (how a texture's rows are laid out in a buffer with a row pitch), by
// compushady's upload2d rule (its Resource.upload2d with rowBytes = width
// * bytes_per_pixel):
//
//   - data is taken in order, at most rowBytes bytes per row: row y, for
//     y from 0 while y < height, gets the next min(rowBytes, bytes of data
//     left) bytes at byte pitch*y of the buffer. Data shorter than
//     height*rowBytes fills the first rows and the start of a partial last
//     row; the rest of that row and the rows after it are left as they
//     were, as are the bytes between rows (pitch > rowBytes). Data longer
//     than height*rowBytes is cut: the rest is ignored. Empty data, a
//     height of 0 or a rowBytes of 0 write nothing.
//   - The rows are written one after the other, so rows that overlap
//     (pitch < rowBytes) leave the later row's bytes, and at most Size()
//     bytes are taken from data in all (compushady's budget of the
//     resource's size, which only overlapping rows can reach).
//   - A row whose bytes would end past the end of the buffer is an error
//     and nothing is written (compushady writes out of bounds there).
//
// Each row costs a copy into mapped memory for buffers on the upload and
// readback heaps; a default-heap buffer is read and written once, over the
// span of bytes the rows cover (one upload when they are contiguous).
func (b *Buffer) Upload2D(data []byte, pitch, rowBytes uint64, height int) error {
	if height < 0 {
		return fmt.Errorf("compute: Upload2D of %d rows", height)
	}
	size := b.Size()
	type run struct{ dst, src, n uint64 }
	var runs []run
	left, budget, src := uint64(len(data)), size, uint64(0)
	for y := range uint64(height) {
		n := min(rowBytes, left, budget)
		if n == 0 {
			break // nothing more to write: data or budget spent, or empty rows
		}
		hi, dst := bits.Mul64(pitch, y)
		if hi != 0 || dst > size || n > size-dst {
			return fmt.Errorf("compute: Upload2D: row %d (%d bytes at byte pitch %d × %d) would end past the end of the %d-byte buffer", y, n, pitch, y, size)
		}
		if k := len(runs) - 1; k >= 0 && runs[k].dst+runs[k].n == dst {
			runs[k].n += n // contiguous rows (pitch == rowBytes): one copy
		} else {
			runs = append(runs, run{dst, src, n})
		}
		left -= n
		budget -= n
		src += n
	}
	switch {
	case len(runs) == 0:
		return nil
	case len(runs) == 1:
		r := runs[0]
		return b.UploadAt(r.dst, data[r.src:r.src+r.n])
	case b.Heap() != HeapDefault || b.d.sub == nil:
		for _, r := range runs {
			if err := b.UploadAt(r.dst, data[r.src:r.src+r.n]); err != nil {
				return err
			}
		}
		return nil
	}
	// Default heap: read the span the rows cover (keeping the bytes
	// between and after them), write the rows into it in order, upload it.
	lo, end := runs[0].dst, uint64(0)
	for _, r := range runs {
		lo, end = min(lo, r.dst), max(end, r.dst+r.n)
	}
	span := make([]byte, end-lo)
	if err := b.ReadbackAt(lo, span); err != nil {
		return err
	}
	for _, r := range runs {
		copy(span[r.dst-lo:], data[r.src:r.src+r.n])
	}
	return b.UploadAt(lo, span)
}

// UploadChunked writes data in chunks of stride bytes, each followed by
// the bytes of filler, from the start of the buffer, by compushady's
// upload_chunked rule: how tightly packed float3s become float4s with a
// filler of one float. The len(data)/stride whole chunks are written; a
// partial chunk at the end of data is not written. It is an error (and
// nothing is written) when len(data) plus a filler per whole chunk
// exceeds the buffer's size — the partial chunk counts there too, as in
// compushady — or when stride is not positive. Bytes past the last filler
// are left as they were. The chunks and fillers are assembled in one host
// slice and written with one UploadAt.
func (b *Buffer) UploadChunked(data []byte, stride int, filler []byte) error {
	if stride <= 0 {
		return fmt.Errorf("compute: UploadChunked: a stride of %d bytes; it must be at least 1", stride)
	}
	n := uint64(len(data) / stride)
	if need := uint64(len(data)) + n*uint64(len(filler)); need > b.Size() {
		return fmt.Errorf("compute: UploadChunked: %d bytes with a %d-byte filler after each of %d chunks of %d need %d bytes; the buffer has %d",
			len(data), len(filler), n, stride, need, b.Size())
	}
	if n == 0 {
		return nil
	}
	if len(filler) == 0 {
		return b.UploadAt(0, data[:n*uint64(stride)])
	}
	step := uint64(stride + len(filler))
	out := make([]byte, n*step)
	for i := range n {
		o := out[i*step:]
		copy(o[copy(o, data[i*uint64(stride):(i+1)*uint64(stride)]):], filler)
	}
	return b.UploadAt(0, out)
}

// Readback2D reads height rows of rowBytes bytes, pitch bytes apart in
// the buffer, and returns them tightly packed, by compushady's readback2d
// rule: the buffer must hold pitch*(height-1)+rowBytes bytes, and at least
// pitch bytes when height is 0 or 1 (compushady's size by pitch); rows may
// overlap (pitch < rowBytes). A height or rowBytes of 0 returns no bytes.
func (b *Buffer) Readback2D(pitch, rowBytes uint64, height int) ([]byte, error) {
	if height < 0 {
		return nil, fmt.Errorf("compute: Readback2D of %d rows", height)
	}
	need, ok := pitch, true
	if height > 0 {
		hi, last := bits.Mul64(pitch, uint64(height-1))
		end, carry := bits.Add64(last, rowBytes, 0)
		ok = hi == 0 && carry == 0
		if height > 1 || end > need {
			need = end
		}
	}
	if !ok || need > b.Size() {
		return nil, fmt.Errorf("compute: Readback2D: %d rows of %d bytes, %d bytes apart, need more than the buffer's %d bytes", height, rowBytes, pitch, b.Size())
	}
	if height == 0 || rowBytes == 0 {
		return []byte{}, nil
	}
	out := make([]byte, rowBytes*uint64(height))
	if pitch == rowBytes {
		return out, b.ReadbackAt(0, out)
	}
	full := make([]byte, pitch*uint64(height-1)+rowBytes)
	if err := b.ReadbackAt(0, full); err != nil {
		return nil, err
	}
	for y := range uint64(height) {
		copy(out[y*rowBytes:(y+1)*rowBytes], full[y*pitch:])
	}
	return out, nil
}

// Readback2DInto is Readback2D into dst, which must hold exactly the
// height rows of rowBytes bytes (an error wrapping ErrRange otherwise).
func (b *Buffer) Readback2DInto(dst []byte, pitch, rowBytes uint64, height int) error {
	if height < 0 {
		return fmt.Errorf("compute: Readback2DInto of %d rows", height)
	}
	if hi, n := bits.Mul64(rowBytes, uint64(height)); hi != 0 || uint64(len(dst)) != n {
		return rangef("compute: Readback2DInto: %d rows of %d bytes into %d bytes", height, rowBytes, len(dst))
	}
	data, err := b.Readback2D(pitch, rowBytes, height)
	if err != nil {
		return err
	}
	copy(dst, data)
	return nil
}

// Close frees the buffer (a wrapped one stays open). Idempotent.
func (b *Buffer) Close() error {
	if b == nil || !b.own {
		return nil
	}
	return b.vk.Close()
}

// staged uploads up into b at off, or reads down from it, through a
// staging buffer and copies submitted through the device's Submitter (so
// that CUDA's hand-backs are acquired first).
func (d *Device) staged(b *Buffer, off uint64, up, down []byte) error {
	const chunk = 32 << 20
	n, heap := len(up), HeapUpload
	if up == nil {
		n, heap = len(down), HeapReadback
	}
	st, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: uint64(min(n, chunk)), Heap: heap})
	if err != nil {
		return fmt.Errorf("compute: staging buffer: %w", err)
	}
	defer st.Close()
	for done := 0; done < n; done += chunk {
		k := min(chunk, n-done)
		if up != nil {
			if err := st.Upload(0, up[done:done+k]); err != nil {
				return err
			}
		}
		err := d.run(func(c *vulkan.Commands) error {
			if up != nil {
				c.CopyBuffer(b.vk, st, off+uint64(done), 0, uint64(k))
			} else {
				c.CopyBuffer(st, b.vk, 0, off+uint64(done), uint64(k))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("compute: %w", err)
		}
		if down != nil {
			if err := st.Readback(0, down[done:done+k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Texture is an image of one, two or three dimensions, usable as a storage
// image (RWTexture*, image*), a sampled image (Texture*, texture*, sampler*)
// and a copy source and destination where its format allows.
type Texture struct {
	d    *Device
	vk   *vulkan.Image
	f    format.Format
	info format.Info
	own  bool
}

// ComputeResource returns t: a Resource of package compute binds itself.
func (t *Texture) ComputeResource(*Device) (Resource, error) { return t, nil }

func (d *Device) texture(dim vulkan.ImageDim, w, h, depth, layers uint32, f format.Format) (*Texture, error) {
	in, ok := format.Lookup(f)
	if !ok {
		return nil, fmt.Errorf("compute: unknown format %v", f)
	}
	if w == 0 || h == 0 || depth == 0 || layers == 0 {
		return nil, fmt.Errorf("compute: texture of %dx%dx%d texels and %d slices", w, h, depth, layers)
	}
	img, err := d.vk.NewImage(vulkan.ImageOptions{Dim: dim, Format: uint32(f), Width: w, Height: h, Depth: depth, Layers: layers})
	if err != nil {
		return nil, fmt.Errorf("compute: %s texture of %s: %w", dim, f, err)
	}
	return &Texture{d: d, vk: img, f: f, info: in, own: true}, nil
}

// Texture1D creates a 1D texture of width texels.
func (d *Device) Texture1D(width uint32, f format.Format) (*Texture, error) {
	return d.texture(vulkan.Image1D, width, 1, 1, 1, f)
}

// Texture1DArray creates an array of slices 1D textures (Texture1DArray,
// RWTexture1DArray; compushady's Texture1D with slices).
func (d *Device) Texture1DArray(width, slices uint32, f format.Format) (*Texture, error) {
	return d.texture(vulkan.Image1D, width, 1, 1, slices, f)
}

// Texture2D creates a 2D texture.
func (d *Device) Texture2D(width, height uint32, f format.Format) (*Texture, error) {
	return d.texture(vulkan.Image2D, width, height, 1, 1, f)
}

// Texture2DArray creates an array of slices 2D textures (Texture2DArray,
// RWTexture2DArray; compushady's Texture2D with slices).
func (d *Device) Texture2DArray(width, height, slices uint32, f format.Format) (*Texture, error) {
	return d.texture(vulkan.Image2D, width, height, 1, slices, f)
}

// Texture3D creates a 3D texture.
func (d *Device) Texture3D(width, height, depth uint32, f format.Format) (*Texture, error) {
	return d.texture(vulkan.Image3D, width, height, depth, 1, f)
}

// WrapTexture makes a Texture of a Vulkan image of the device, such as a
// shared interop.Texture's Vulkan(); Close leaves img open. Its format must
// be in the format table.
func (d *Device) WrapTexture(img *vulkan.Image) (*Texture, error) {
	f := format.Format(img.Options().Format)
	in, ok := format.Lookup(f)
	if !ok {
		return nil, fmt.Errorf("compute: WrapTexture: format %s is not in the format table", vulkan.FormatName(uint32(f)))
	}
	return &Texture{d: d, vk: img, f: f, info: in}, nil
}

// Width, Height and Depth are the texture's extent in texels (1 for the
// dimensions it does not have).
func (t *Texture) Width() uint32 { return t.vk.Options().Width }

// Height is the texture's height in texels.
func (t *Texture) Height() uint32 { return t.vk.Options().Height }

// Depth is the texture's depth in texels.
func (t *Texture) Depth() uint32 { return t.vk.Options().Depth }

// Slices is the number of array slices (1 for a texture that is not an
// array).
func (t *Texture) Slices() uint32 { return t.vk.Options().Layers }

// Dim is the texture's dimensionality.
func (t *Texture) Dim() vulkan.ImageDim { return t.vk.Options().Dim }

// Format is the texture's texel format.
func (t *Texture) Format() format.Format { return t.f }

// RowPitch is the size of a row of texels as Upload and Readback lay it
// out: width × bytes per texel, tightly packed.
func (t *Texture) RowPitch() uint64 { return uint64(t.Width()) * uint64(t.info.BytesPerTexel) }

// Size is the texture's size tightly packed: RowPitch × Height × Depth ×
// layers.
func (t *Texture) Size() uint64 {
	o := t.vk.Options()
	return t.RowPitch() * uint64(o.Height) * uint64(o.Depth) * uint64(o.Layers)
}

// Vulkan returns the Vulkan image.
func (t *Texture) Vulkan() *vulkan.Image { return t.vk }

// TextureRegion is a box of texels in some slices of a texture: zero
// sizes mean up to the texture's edge, Slices 0 all from Slice.
type TextureRegion = vulkan.ImageRegion

// Upload writes the whole texture from data, tightly packed rows of
// texels, slice after slice (Size bytes).
func (t *Texture) Upload(data []byte) error {
	if uint64(len(data)) != t.Size() {
		return fmt.Errorf("compute: Upload of %d bytes into a %dx%dx%d %s texture of %d slices, %d bytes", len(data), t.Width(), t.Height(), t.Depth(), t.f, t.Slices(), t.Size())
	}
	return t.UploadRegion(TextureRegion{}, data)
}

// UploadRegion writes a region of the texture from data, tightly packed
// rows of the region's texels, slice after slice (RegionSize bytes), and
// returns when they are there, after the work submitted before that uses
// the texture.
func (t *Texture) UploadRegion(r TextureRegion, data []byte) error {
	if t.d.sub == nil {
		if err := t.vk.Upload(r, data); err != nil {
			return fmt.Errorf("compute: %w", err)
		}
		return nil
	}
	n, err := t.RegionSize(r)
	if err != nil {
		return err
	}
	if uint64(len(data)) != n {
		return fmt.Errorf("compute: UploadRegion of %d bytes into a region of %d", len(data), n)
	}
	st, err := t.d.vk.NewBuffer(vulkan.BufferOptions{Size: n, Heap: HeapUpload})
	if err != nil {
		return fmt.Errorf("compute: staging buffer: %w", err)
	}
	defer st.Close()
	if err := st.Upload(0, data); err != nil {
		return err
	}
	return t.d.run(func(c *vulkan.Commands) error {
		copyBufferTexture(c, t, st, regionOf(r), true)
		return nil
	})
}

// RegionSize is the size of a region of the texture, tightly packed.
func (t *Texture) RegionSize(r TextureRegion) (uint64, error) {
	n, err := t.vk.RegionSize(r)
	if err != nil {
		return 0, fmt.Errorf("compute: %w", err)
	}
	return n, nil
}

// regionOf is the buffer-texture copy of a tightly packed region.
func regionOf(r TextureRegion) Region {
	return Region{X: r.X, Y: r.Y, Z: r.Z, Width: r.Width, Height: r.Height, Depth: r.Depth, Slice: r.Layer, Slices: r.Layers}
}

// Readback returns the whole texture in new bytes, tightly packed rows of
// texels, slice after slice, once the work submitted before that uses it
// has finished.
func (t *Texture) Readback() ([]byte, error) {
	out := make([]byte, t.Size())
	return out, t.ReadbackInto(out)
}

// ReadbackInto reads the whole texture into dst (Size bytes), a slice the
// caller keeps and reuses.
func (t *Texture) ReadbackInto(dst []byte) error {
	if uint64(len(dst)) != t.Size() {
		return fmt.Errorf("compute: ReadbackInto %d bytes from a texture of %d", len(dst), t.Size())
	}
	return t.ReadbackRegion(TextureRegion{}, dst)
}

// ReadbackRegion reads a region of the texture into dst (RegionSize
// bytes, laid out as UploadRegion takes them).
func (t *Texture) ReadbackRegion(r TextureRegion, dst []byte) error {
	if t.d.sub == nil {
		if err := t.vk.Readback(r, dst); err != nil {
			return fmt.Errorf("compute: %w", err)
		}
		return nil
	}
	n, err := t.RegionSize(r)
	if err != nil {
		return err
	}
	if uint64(len(dst)) != n {
		return fmt.Errorf("compute: ReadbackRegion of a region of %d bytes into %d", n, len(dst))
	}
	st, err := t.d.vk.NewBuffer(vulkan.BufferOptions{Size: n, Heap: HeapReadback})
	if err != nil {
		return fmt.Errorf("compute: staging buffer: %w", err)
	}
	defer st.Close()
	err = t.d.run(func(c *vulkan.Commands) error {
		copyBufferTexture(c, t, st, regionOf(r), false)
		return nil
	})
	if err != nil {
		return err
	}
	return st.Readback(0, dst)
}

// Close frees the texture (a wrapped one stays open). Idempotent.
func (t *Texture) Close() error {
	if t == nil || !t.own {
		return nil
	}
	return t.vk.Close()
}

// Filter says how a sampler filters texels.
type Filter = vulkan.Filter

// Filters.
const (
	FilterPoint  = vulkan.FilterNearest // the nearest texel
	FilterLinear = vulkan.FilterLinear  // bilinear (trilinear in 3D)
)

// AddressMode says what a sampler reads outside [0, 1).
type AddressMode = vulkan.AddressMode

// Address modes.
const (
	AddressWrap   = vulkan.AddressRepeat         // repeat the texture
	AddressMirror = vulkan.AddressMirroredRepeat // repeat it mirrored every other time
	AddressClamp  = vulkan.AddressClampToEdge    // the edge texels
	AddressBorder = vulkan.AddressClampToBorder  // transparent black
)

// Sampler filters and addresses texture reads.
type Sampler struct {
	vk  *vulkan.Sampler
	own bool
}

// ComputeResource returns s: a Resource of package compute binds itself.
func (s *Sampler) ComputeResource(*Device) (Resource, error) { return s, nil }

// Sampler creates a sampler with normalized coordinates, filter for
// magnification and minification and address in every direction.
func (d *Device) Sampler(filter Filter, address AddressMode) (*Sampler, error) {
	s, err := d.vk.NewSampler(vulkan.SamplerOptions{Filter: filter, Address: address})
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Sampler{vk: s, own: true}, nil
}

// SamplerWith creates a sampler with its own minification and
// magnification filters and an address mode per axis, as compushady's
// Sampler(address_mode_u, address_mode_v, address_mode_w, filter_min,
// filter_mag).
func (d *Device) SamplerWith(sp SamplerSpec) (*Sampler, error) {
	s, err := d.vk.NewSampler(vulkan.SamplerOptions{PerAxis: true, MinFilter: sp.MinFilter, MagFilter: sp.MagFilter,
		AddressU: sp.AddressU, AddressV: sp.AddressV, AddressW: sp.AddressW})
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Sampler{vk: s, own: true}, nil
}

// Vulkan returns the Vulkan sampler.
func (s *Sampler) Vulkan() *vulkan.Sampler { return s.vk }

// Close frees the sampler. Idempotent.
func (s *Sampler) Close() error {
	if s == nil || !s.own {
		return nil
	}
	return s.vk.Close()
}

// Region is the part of a copy between a buffer and a texture.
type Region struct {
	// BufferOffset is where the texels start in the buffer.
	BufferOffset uint64
	// RowPitch and SlicePitch are the bytes between rows and between
	// slices in the buffer; 0 means tightly packed. RowPitch must be a
	// multiple of the texel size, SlicePitch of RowPitch.
	RowPitch, SlicePitch uint64
	// X, Y, Z is the region's first texel in the texture.
	X, Y, Z uint32
	// Width, Height, Depth is its extent; 0 means up to the texture's edge.
	Width, Height, Depth uint32
	// Slice and Slices are the array slices (Slices 0: all from Slice),
	// one after the other in the buffer, SlicePitch apart as 3D slices are.
	Slice, Slices uint32
}

// copyBufferTexture records a copy between buf and t (into t if toTexture),
// moving t to a layout copies can use first.
func copyBufferTexture(c *vulkan.Commands, t *Texture, buf *vulkan.Buffer, r Region, toTexture bool) {
	bpp := uint64(t.info.BytesPerTexel)
	bc := vulkan.BufferImageCopy{BufferOffset: r.BufferOffset, X: int32(r.X), Y: int32(r.Y), Z: int32(r.Z),
		Width: r.Width, Height: r.Height, Depth: r.Depth, BaseLayer: r.Slice, Layers: r.Slices}
	if r.RowPitch > 0 {
		if r.RowPitch%bpp != 0 {
			c.Fail(fmt.Errorf("compute: row pitch %d is not a multiple of the %d-byte texels of %s", r.RowPitch, bpp, t.f))
			return
		}
		bc.RowLength = uint32(r.RowPitch / bpp)
	}
	if r.SlicePitch > 0 {
		rp := r.RowPitch
		if rp == 0 {
			w := r.Width
			if w == 0 {
				w = t.Width() - r.X
			}
			rp = uint64(w) * bpp
		}
		if r.SlicePitch%rp != 0 {
			c.Fail(fmt.Errorf("compute: slice pitch %d is not a multiple of the row pitch %d", r.SlicePitch, rp))
			return
		}
		bc.ImageHeight = uint32(r.SlicePitch / rp)
	}
	img := t.vk
	want := vulkan.LayoutTransferSrc
	if toTexture {
		want = vulkan.LayoutTransferDst
	}
	if l := img.Layout(); l != want && l != vulkan.LayoutGeneral {
		c.TransitionImage(img, vulkan.LayoutGeneral)
	}
	if toTexture {
		c.CopyBufferToImage(img, buf, bc)
	} else {
		c.CopyImageToBuffer(buf, img, bc)
	}
}
