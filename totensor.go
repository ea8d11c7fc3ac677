// The fused conversion on the face: a shared texture into a tensor in a
// shared buffer, with either converter, in one call that does the hand-off
// too.

package gfxcuda

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Converter picks which API converts a texture into a tensor.
type Converter int

const (
	// ConverterCUDA converts with a CUDA kernel (CUDAConverter) reading
	// the texture through its surface object, queued on the hand-off's
	// stream: the texture needs storage usage (a shared texture's default).
	ConverterCUDA Converter = iota
	// ConverterVulkan converts with a Vulkan compute pass (VulkanConverter)
	// on the Device's queue; the stream then waits for it on the GPU, as
	// after any hand-off. The texture needs sampled usage, one layer and a
	// width that is a multiple of 4.
	ConverterVulkan
)

// String returns "cuda" or "vulkan".
func (c Converter) String() string {
	switch c {
	case ConverterCUDA:
		return "cuda"
	case ConverterVulkan:
		return "vulkan"
	}
	return fmt.Sprintf("Converter(%d)", int(c))
}

// TensorOptions say how Texture.ToTensor converts.
type TensorOptions struct {
	// Layout is the tensor's layout (NCHW or NHWC, element type, channels,
	// normalization, flip): see tensor.Layout.
	Layout TensorLayout
	// Converter is the API that converts (ConverterCUDA by default).
	Converter Converter
	// Stream is the CUDA stream the tensor is written in order with (nil:
	// the Device's stream): work queued on it after ToTensor sees the
	// tensor.
	Stream *cuda.Stream
	// Layer is the layer of a 2D array texture to convert (ConverterCUDA
	// only; ConverterVulkan converts textures of one layer).
	Layer uint32
	// Offset is where the tensor starts in the destination buffer, in
	// bytes (a multiple of 4): views converted one after the other at
	// Offsets Layout.Bytes(w, h) apart make one [N, C, H, W] tensor.
	Offset uint64
	// Tiles, when N > 0, says the texture is an atlas of many views (a
	// tiled renderer's environments): the tensor is N views of the tile
	// size, shape Layout.Shape(N, width/Cols, height/Rows), converted in
	// one dispatch (ConverterVulkan; the CUDA converter does not take tiles
	// yet).
	Tiles Tiles
}

// NewTensorBuffer allocates a shared buffer for a tensor of n views of
// width×height texels in layout l (Layout.Bytes(width, height) × n bytes),
// which both converters write: CUDA sees it at Ptr, Vulkan as Vulkan().
func (d *Device) NewTensorBuffer(l TensorLayout, n int, width, height uint32) (*Buffer, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("gfxcuda: NewTensorBuffer: %w", err)
	}
	if n < 1 || width == 0 || height == 0 {
		return nil, fmt.Errorf("gfxcuda: NewTensorBuffer of %d views of %dx%d", n, width, height)
	}
	return d.NewBuffer(l.Bytes(width, height) * uint64(n))
}

// ToTensor converts the texture into a tensor of shape
// o.Layout.Shape(1, width, height) (an atlas of o.Tiles: the shape of N
// views of the tile size) in dst from byte o.Offset, with the
// converter o.Converter, and orders o.Stream after the conversion: kernels
// queued on that stream afterwards (a learner's step, a DLPack consumer
// synchronized with it) see the tensor, and the host sees it once the
// stream has finished. The hand-offs are made here: the texture and dst
// must be the Device's and not held by CUDA, and are Vulkan's again when
// ToTensor returns (Vulkan work submitted later runs after the
// conversion). It does not block the host.
//
// The converters are made on first use per layout and closed with the
// Device. Sources it cannot convert (format, usage, size, layer) and
// destinations too small fail with an error matching ErrSource.
func (t *Texture) ToTensor(dst *Buffer, o TensorOptions) error {
	d := t.s.d
	if dst == nil {
		return fmt.Errorf("%w: ToTensor: nil destination buffer", ErrSource)
	}
	if dst.s.d != d {
		return fmt.Errorf("gfxcuda: ToTensor: the buffer belongs to another Device")
	}
	if err := o.Layout.Validate(); err != nil {
		return fmt.Errorf("gfxcuda: ToTensor: %w", err)
	}
	per := o.Layout.Bytes(t.o.Width, t.o.Height)
	what := fmt.Sprintf("a %dx%d texture", t.o.Width, t.o.Height)
	if o.Tiles != (Tiles{}) {
		w, h, err := o.Tiles.Size(t.o.Width, t.o.Height)
		if err != nil {
			return fmt.Errorf("gfxcuda: ToTensor: %w", err)
		}
		if o.Converter != ConverterVulkan {
			return fmt.Errorf("%w: ToTensor: tiles are converted by ConverterVulkan (the CUDA converter does not take tiles yet)", ErrUnsupported)
		}
		per = o.Layout.Bytes(w, h) * uint64(o.Tiles.N)
		what = fmt.Sprintf("%d tiles of %dx%d", o.Tiles.N, w, h)
	}
	if o.Offset%4 != 0 {
		return fmt.Errorf("%w: ToTensor: offset %d is not a multiple of 4", ErrSource, o.Offset)
	}
	if o.Offset > dst.size || dst.size-o.Offset < per {
		return fmt.Errorf("%w: %s as %s needs %d bytes from offset %d; the buffer has %d",
			ErrSource, what, o.Layout, per, o.Offset, dst.size)
	}
	switch o.Converter {
	case ConverterCUDA:
		return t.toTensorCUDA(dst, o, per)
	case ConverterVulkan:
		return t.toTensorVulkan(dst, o)
	}
	return fmt.Errorf("gfxcuda: ToTensor: unknown converter %v", o.Converter)
}

// CheckTensor checks a tensor ToTensor wrote into src with options o
// against the Go reference conversion of the texture's texels
// (tensor.Check): it waits for o.Stream, reads the tensor and the texels
// (layer 0) to the host, and returns how many elements differ and the
// first one described. It is for tests and examples, not for every frame.
func (t *Texture) CheckTensor(src *Buffer, o TensorOptions) (bad int, first string, err error) {
	d := t.s.d
	if d.ctx == nil {
		return 0, "", fmt.Errorf("%w: CheckTensor reads through CUDA", ErrUnsupported)
	}
	if src == nil || o.Offset > src.size || src.size-o.Offset < o.Layout.Bytes(t.o.Width, t.o.Height) {
		return 0, "", fmt.Errorf("%w: CheckTensor: no tensor of %s at offset %d of the buffer", ErrSource, o.Layout, o.Offset)
	}
	got := make([]byte, o.Layout.Bytes(t.o.Width, t.o.Height))
	err = src.Map(o.Stream, func(p cuda.DevicePtr, s *cuda.Stream) error {
		if err := s.Synchronize(); err != nil {
			return err
		}
		return d.ctx.CopyDtoH(got, p.Add(o.Offset))
	})
	if err != nil {
		return 0, "", err
	}
	pix := make([]byte, t.RowBytes()*uint64(t.o.Height))
	scratch, err := d.ctx.Alloc(uint64(len(pix)))
	if err != nil {
		return 0, "", err
	}
	defer scratch.Close()
	if err := t.CopyToSync(o.Stream, scratch.Ptr(), 0); err != nil {
		return 0, "", err
	}
	if err := d.ctx.CopyDtoH(pix, scratch.Ptr()); err != nil {
		return 0, "", err
	}
	im := tensor.Image{Format: t.info.Format, Width: t.o.Width, Height: t.o.Height, Pix: pix}
	return tensor.Check(o.Layout, []tensor.Image{im}, got)
}

// toTensorCUDA hands the texture and dst to CUDA on o.Stream, queues the
// CUDA converter there and hands them back.
func (t *Texture) toTensorCUDA(dst *Buffer, o TensorOptions, per uint64) error {
	d := t.s.d
	conv, err := d.convs.cuda(d, o.Layout)
	if err != nil {
		return err
	}
	acc, err := d.ToCUDA(o.Stream, t, dst) // fails on closed resources
	if err != nil {
		return err
	}
	src, err := CUDATextureSource(t, o.Layer)
	if err == nil {
		err = conv.Convert(acc.Stream(), dst.ptr.Add(o.Offset), per, src)
	}
	return errors.Join(err, acc.Done())
}

// toTensorVulkan submits the Vulkan converter on the Device's queue (after
// what CUDA handed back), then hands dst to CUDA on o.Stream and back, so
// that the stream waits for the conversion on the GPU.
func (t *Texture) toTensorVulkan(dst *Buffer, o TensorOptions) error {
	d := t.s.d
	if o.Layer != 0 {
		return fmt.Errorf("%w: the Vulkan converter converts textures of one layer (Layer %d asked); use ConverterCUDA", ErrSource, o.Layer)
	}
	img, err := t.VulkanImage()
	if err != nil {
		return err
	}
	vb, err := dst.VulkanBuffer()
	if err != nil {
		return err
	}
	conv, err := d.convs.vulkan(d, o.Layout)
	if err != nil {
		return err
	}
	record := func(c *vulkan.Commands) error { return conv.RecordViews(c, []*vulkan.Image{img}, vb, o.Offset) }
	if o.Tiles.N > 0 {
		g := o.Tiles
		record = func(c *vulkan.Commands) error { return conv.RecordTiles(c, img, g.Cols, g.Rows, g.N, vb, o.Offset) }
	}
	if err := d.submitConversion(record, &t.s, &dst.s); err != nil {
		return err
	}
	acc, err := d.ToCUDA(o.Stream, dst)
	if err != nil {
		return err
	}
	return acc.Done()
}

// submitConversion records a conversion (record) after the acquire of what
// CUDA handed back, and submits it without waiting; the resources of states
// ss must be Vulkan's.
func (d *Device) submitConversion(record func(c *vulkan.Commands) error, ss ...*state) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return err
	}
	for _, s := range ss {
		switch {
		case s.closed:
			return ErrClosed
		case s.holder != nil:
			return fmt.Errorf("gfxcuda: ToTensor: a ring's slot: %w", ErrHeldByCUDA)
		case s.owner == ownedByCUDA:
			return fmt.Errorf("gfxcuda: ToTensor: %w", ErrHeldByCUDA)
		}
	}
	c, err := d.cmds.Get()
	if err != nil {
		return err
	}
	wait := d.recordPending(c)
	if err := record(c); err != nil {
		d.cmds.Put(c) // discarded: nothing was submitted
		return err
	}
	if _, err := d.submitPooled(c, vulkan.SubmitOptions{Wait: wait}); err != nil {
		return fmt.Errorf("gfxcuda: ToTensor: submitting the conversion: %w", err)
	}
	d.commitPending(wait)
	return nil
}

// tensorConverters are a Device's converters, one per converter and
// layout, made on first use and closed with the Device.
type tensorConverters struct {
	mu     sync.Mutex
	closed bool
	cu     map[TensorLayout]*CUDAConverter
	vk     map[TensorLayout]*VulkanConverter
}

// cuda returns the CUDA converter of l, making it on first use.
func (tc *tensorConverters) cuda(d *Device, l TensorLayout) (*CUDAConverter, error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.closed {
		return nil, ErrClosed
	}
	if c, ok := tc.cu[l]; ok {
		return c, nil
	}
	if d.ctx == nil {
		return nil, fmt.Errorf("%w: the CUDA converter needs a CUDA context", ErrUnsupported)
	}
	c, err := NewCUDAConverter(d.ctx, l)
	if err != nil {
		return nil, err
	}
	if tc.cu == nil {
		tc.cu = map[TensorLayout]*CUDAConverter{}
	}
	tc.cu[l] = c
	return c, nil
}

// vulkan returns the Vulkan converter of l, making it on first use.
func (tc *tensorConverters) vulkan(d *Device, l TensorLayout) (*VulkanConverter, error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.closed {
		return nil, ErrClosed
	}
	if c, ok := tc.vk[l]; ok {
		return c, nil
	}
	c, err := NewVulkanConverter(d.vk, l)
	if err != nil {
		return nil, err
	}
	if tc.vk == nil {
		tc.vk = map[TensorLayout]*VulkanConverter{}
	}
	tc.vk[l] = c
	return c, nil
}

// close closes every converter; later uses fail with ErrClosed. Called by
// Device.Close once the GPU is idle.
func (tc *tensorConverters) close() error {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.closed = true
	var err error
	for _, c := range tc.cu {
		err = errors.Join(err, c.Close())
	}
	for _, c := range tc.vk {
		err = errors.Join(err, c.Close())
	}
	tc.cu, tc.vk = nil, nil
	return err
}
