package gfxcuda

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/graphics"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// ErrGraphicsInput is wrapped by the errors GraphicsSource and
// GraphicsToTensors return for arguments that cannot work (sources of
// different sizes, a source given twice, a layout depth cannot take, a
// destination too small, another Device than the source's): fix the call.
var ErrGraphicsInput = errors.New("gfxcuda: graphics source")

// A GraphicsSource is a frame source of another graphics API taken into
// the face: the face's graphics side (package graphics), the counterpart of
// its CUDA side. For OpenGL, wrap a *gl.Source (a texture, renderbuffer or
// framebuffer attachment of the caller's own renderer). Its frames reach
// CUDA tensors through the face's CUDA converter (ToTensor, and
// GraphicsToTensors for many at once) and compute shaders as a
// compute.Texture (ComputeView).
//
// It makes its views once — one in CUDA, on the Device it is first
// converted on, and one per compute device — and keeps them, with the
// converters it used, until Close: per frame only the copy, the hand-off
// and the conversion run. Call its methods where the source's API context
// is current (for GL, the renderer's thread); they are safe for concurrent
// use otherwise.
type GraphicsSource struct {
	src graphics.Source

	mu      sync.Mutex
	closed  bool
	compute map[*compute.Device]graphicsComputeView
	cu      graphics.View // the view CUDA reads
	cuDev   *Device
	cuSrc   CUDASource  // cu's array as the converter reads it (one surface object)
	cuDone  *cuda.Event // recorded after the last work that read cu
	convs   map[tensor.Layout]*CUDAConverter
	writer  graphics.View // the view that writes tensors itself (GraphicsWriteTensors), on writeOn
	writeOn *Device
}

type graphicsComputeView struct {
	v   graphics.View
	tex *compute.Texture
}

// NewGraphicsSource takes src into the face. It makes nothing yet: views
// are made on first use.
func NewGraphicsSource(src graphics.Source) (*GraphicsSource, error) {
	if src == nil {
		return nil, fmt.Errorf("%w: a nil source", ErrGraphicsInput)
	}
	return &GraphicsSource{src: src}, nil
}

// Source is the graphics API's object.
func (g *GraphicsSource) Source() graphics.Source { return g.src }

func (g *GraphicsSource) String() string { return g.src.String() }

// TensorBytes is the size of the tensor ToTensor writes with layout l: one
// frame of l (depth: one float32 per pixel, whatever l's channels).
func (g *GraphicsSource) TensorBytes(l tensor.Layout) uint64 {
	w, h := uint64(g.src.Width()), uint64(g.src.Height())
	if g.src.Depth() {
		return w * h * 4
	}
	return l.Bytes(uint32(w), uint32(h))
}

// TilesTensorBytes is the size in bytes of the tensor of l that
// GraphicsWriteTilesTo makes of g's tiles, or an error when they do not
// divide the frame (or g.N is out of range).
func (g *GraphicsSource) TilesTensorBytes(l tensor.Layout, tiles Tiles) (uint64, error) {
	w, h, err := tiles.Size(uint32(g.src.Width()), uint32(g.src.Height()))
	if err != nil {
		return 0, fmt.Errorf("%w: %v: %w", ErrGraphicsInput, g.src, err)
	}
	return l.Bytes(w, h) * uint64(tiles.N), nil
}

// ComputeView copies the source's current frame into its view on cd and
// returns that view as a compute texture (the same texture every call;
// the source owns it: do not close it). Needs no CUDA: any Vulkan device
// whose memory the graphics API imports (lavapipe with llvmpipe too).
// Colour views hold Format()'s texels, depth views R32Float depth in
// [0, 1], rows in GL's order (bottom row first).
func (g *GraphicsSource) ComputeView(cd *compute.Device) (*compute.Texture, error) {
	if cd == nil {
		return nil, fmt.Errorf("%w: ComputeView of %v: a nil compute device", ErrGraphicsInput, g.src)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, fmt.Errorf("gfxcuda: %v: %w", g.src, ErrClosed)
	}
	cv, ok := g.compute[cd]
	if !ok {
		v, err := g.src.NewGraphicsView(cd.Vulkan(), nil)
		if err != nil {
			return nil, err
		}
		t, err := cd.WrapTexture(v.Image())
		if err != nil {
			return nil, errors.Join(err, v.Close())
		}
		cv = graphicsComputeView{v: v, tex: t}
		if g.compute == nil {
			g.compute = map[*compute.Device]graphicsComputeView{}
		}
		g.compute[cd] = cv
	}
	if err := cv.v.ToVulkan(); err != nil {
		return nil, err
	}
	return cv.tex, nil
}

// ToTensor copies the source's current frame and converts it into the
// tensor at dst (size bytes, at least TensorBytes(l)) on stream s of d
// (nil: the legacy default stream), as GraphicsToTensors of one source.
func (g *GraphicsSource) ToTensor(d *Device, s *cuda.Stream, dst cuda.DevicePtr, size uint64, l tensor.Layout) error {
	return GraphicsToTensors(d, s, dst, size, l, g)
}

// GraphicsToTensors copies the current frames of srcs (of one API context,
// one size and format) and converts them into one [N, …] tensor at dst
// (size bytes) on stream s of d's CUDA context (for the legacy default
// stream, cuda.WrapStream(d.CUDA(), cuda.LegacyDefaultStream)), with one
// synchronization between the
// graphics API and CUDA for them all: work queued on s afterwards sees the
// tensor. Colour goes through the face's CUDA converter with layout l
// (dtype, NCHW or NHWC, 3 or 4 channels, mean/std, flip). Depth sources
// give float32 depth in [0, 1], one value per pixel ([N, H, W]); l must
// then ask for float32 with no mean or std, and only its FlipY counts.
// Each source is tied to the first Device it is converted on.
func GraphicsToTensors(d *Device, s *cuda.Stream, dst cuda.DevicePtr, size uint64, l tensor.Layout, srcs ...*GraphicsSource) error {
	if d == nil || s == nil || len(srcs) == 0 {
		return fmt.Errorf("%w: GraphicsToTensors needs a Device, a stream and at least one source", ErrGraphicsInput)
	}
	if dst == 0 {
		return fmt.Errorf("%w: a null destination", ErrGraphicsInput)
	}
	if err := checkSources(srcs, nil); err != nil {
		return err
	}
	first := srcs[0]
	depth := first.src.Depth()
	if depth {
		if l.DType != format.Float32 || l.Normalized() {
			return fmt.Errorf("%w: %v is depth: its tensor is float32 depth in [0, 1], with no mean or std (asked: %v)",
				ErrGraphicsInput, first.src, l)
		}
	} else if err := l.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrGraphicsInput, err)
	}
	per := first.TensorBytes(l)
	if need := per * uint64(len(srcs)); size < need {
		return fmt.Errorf("%w: the destination has %d bytes; %d frames of %v need %d", ErrGraphicsInput, size, len(srcs), first.src, need)
	}
	defer lockSources(srcs)()
	views := make([]graphics.View, len(srcs))
	for i, g := range srcs {
		v, err := g.cudaViewLocked(d)
		if err != nil {
			return err
		}
		views[i] = v
		// CUDA has finished with the last frame (its event says so): the
		// graphics API need not wait for it on the GPU before copying.
		if g.cuDone != nil {
			if done, err := g.cuDone.Done(); err == nil && done {
				v.CUDAIdle()
			}
		}
		if depth {
			v.SetRowsTopFirst(l.FlipY)
		}
	}
	var conv *CUDAConverter
	if !depth {
		var err error
		if conv, err = first.converterLocked(d, l); err != nil {
			return err
		}
	}
	err := views[0].UseInCUDA(s, func(arrays []*cuda.Array) error {
		if len(arrays) != len(srcs) {
			return fmt.Errorf("gfxcuda: the graphics API gave %d arrays for %d sources", len(arrays), len(srcs))
		}
		if depth {
			for i, a := range arrays {
				c := cuda.ArrayCopy{Array: a, Ptr: dst + cuda.DevicePtr(uint64(i)*per)}
				if err := s.CopyFromArray(c); err != nil {
					return fmt.Errorf("gfxcuda: the depth of %v into the tensor: %w", srcs[i].src, err)
				}
			}
			return nil
		}
		cv := make([]CUDASource, len(srcs))
		for i, g := range srcs {
			if a := arrays[i]; a == g.cu.Array() && g.cuSrc.Surface != 0 {
				cv[i] = g.cuSrc // the view's own array: its surface, made once
			} else {
				// An array the API maps for this frame (CUDA reads the
				// object in place): its surface goes with the mapping.
				src, err := CUDAArraySource(a, g.src.Format(), 0)
				if err != nil {
					return fmt.Errorf("gfxcuda: %v in CUDA: %w", g.src, err)
				}
				cv[i] = src
			}
		}
		return conv.Convert(s, dst, size, cv...)
	}, views[1:]...)
	if err != nil {
		return err
	}
	for _, g := range srcs {
		g.recordDoneLocked(s)
	}
	return nil
}

// GraphicsWriteTensors has the graphics API itself convert the current
// frames of srcs (of one API context, one size and colour format) into
// one [N, …] tensor of layout l in dst from byte off, with its own compute
// shaders — GL's, for OpenGL sources — and waits on the host for it: CUDA
// runs no kernel per frame (see BENCHMARKS.md, "The floor"). acc is the
// hand-off that holds dst for CUDA (d.ToCUDA(stream, dst)): queue the
// work that reads the tensor on acc.Stream() after this call, then
// acc.Done(). Sources whose API cannot write tensors (no
// graphics.TensorWriter view) are ErrUnsupported; depth sources too, for
// now.
func GraphicsWriteTensors(acc *Access, dst *Buffer, off uint64, l tensor.Layout, srcs ...*GraphicsSource) error {
	if acc == nil || dst == nil || len(srcs) == 0 {
		return fmt.Errorf("%w: GraphicsWriteTensors needs a hand-off, a destination buffer and at least one source", ErrGraphicsInput)
	}
	d := acc.d
	if dst.s.d != d {
		return fmt.Errorf("%w: the destination is another Device's buffer", ErrGraphicsInput)
	}
	d.mu.Lock()
	held := dst.s.acc == acc && dst.s.owner == ownedByCUDA && !dst.s.closed && !acc.done
	d.mu.Unlock()
	if !held {
		return fmt.Errorf("%w: the destination is not held by this hand-off: d.ToCUDA(stream, dst) first, Done after", ErrGraphicsInput)
	}
	if err := l.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrGraphicsInput, err)
	}
	// The hand-off's release of dst on Vulkan's queue is over before the
	// graphics API writes it (it is not ordered after Vulkan's queue): a
	// host wait on the Device's Vulkan→CUDA timeline, normally short.
	if acc.value > 0 {
		if err := d.toCUDA.vk.Wait(acc.value, 30*time.Second); err != nil {
			return fmt.Errorf("gfxcuda: waiting for Vulkan to hand the destination over: %w", err)
		}
	}
	return graphicsWrite(d, dst, off, l, srcs)
}

// GraphicsWriteTensorsTo is GraphicsWriteTensors into a Buffer no hand-off
// holds (nor a ring): the graphics API writes dst and this returns when it
// has, so that CUDA may read the tensor at dst.Ptr()+off from then on with
// no wait at all — no CUDA work queued for it, not even a stream's wait.
// The caller keeps CUDA off dst while this runs (gfxcuda's C library keeps
// a pool of such buffers for the OpenGL to_tensor, each reused only once
// the events recorded on the streams that read it have passed).
func GraphicsWriteTensorsTo(d *Device, dst *Buffer, off uint64, l tensor.Layout, srcs ...*GraphicsSource) error {
	if len(srcs) == 0 {
		return fmt.Errorf("%w: GraphicsWriteTensorsTo needs at least one source", ErrGraphicsInput)
	}
	if err := writableTo("GraphicsWriteTensorsTo", d, dst, l); err != nil {
		return err
	}
	return graphicsWrite(d, dst, off, l, srcs)
}

// writableTo checks GraphicsWrite*To's Device, destination (d's, no
// hand-off holds it) and layout.
func writableTo(what string, d *Device, dst *Buffer, l tensor.Layout) error {
	if d == nil || dst == nil {
		return fmt.Errorf("%w: %s needs a Device and a destination buffer", ErrGraphicsInput, what)
	}
	if dst.s.d != d {
		return fmt.Errorf("%w: the destination is another Device's buffer", ErrGraphicsInput)
	}
	d.mu.Lock()
	free := !dst.s.closed && dst.s.acc == nil && dst.s.owner == ownedByVulkan
	d.mu.Unlock()
	if !free {
		return fmt.Errorf("%w: the destination is closed or held by a hand-off", ErrGraphicsInput)
	}
	if err := l.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrGraphicsInput, err)
	}
	return nil
}

// GraphicsWriteTilesTo is GraphicsWriteTensorsTo of one source whose
// frame is an atlas (tiles.Cols × tiles.Rows tiles of equal size, row by
// row from its first row and column, as tiled renderers draw many
// environments' views): the graphics API writes its first tiles.N tiles
// into dst from byte off, a tensor of l.Shape(tiles.N, tile width, tile
// height) (FlipY flips each tile), and this returns when it has.
func GraphicsWriteTilesTo(d *Device, dst *Buffer, off uint64, l tensor.Layout, tiles Tiles, src *GraphicsSource) error {
	if src == nil {
		return fmt.Errorf("%w: GraphicsWriteTilesTo needs a source", ErrGraphicsInput)
	}
	if err := writableTo("GraphicsWriteTilesTo", d, dst, l); err != nil {
		return err
	}
	if src.src.Depth() {
		return fmt.Errorf("%w: %v is depth: the graphics API writes colour tensors only", ErrUnsupported, src.src)
	}
	need, err := src.TilesTensorBytes(l, tiles)
	if err != nil {
		return err
	}
	if off+need > dst.Size() {
		return fmt.Errorf("%w: the destination has %d bytes; %d tiles of %v from byte %d need %d", ErrGraphicsInput, dst.Size(), tiles.N, src.src, off, off+need)
	}
	vb, err := dst.VulkanBuffer()
	if err != nil {
		return err
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	v, err := src.writerLocked(d)
	if err != nil {
		return err
	}
	w, ok := v.(graphics.TensorWriter)
	if !ok {
		return fmt.Errorf("%w: %v's graphics API does not write tensors itself", ErrUnsupported, src.src)
	}
	return w.WriteTiles(l, tiles.Cols, tiles.Rows, tiles.N, vb, off)
}

// checkSources checks the sources of one tensor: none nil, none twice,
// each as each says (when not nil), one size and format.
func checkSources(srcs []*GraphicsSource, each func(*GraphicsSource) error) error {
	for i, g := range srcs {
		if g == nil {
			return fmt.Errorf("%w: source %d is nil", ErrGraphicsInput, i)
		}
		for j := range i {
			if srcs[j] == g {
				return fmt.Errorf("%w: source %d is source %d again", ErrGraphicsInput, i, j)
			}
		}
		if each != nil {
			if err := each(g); err != nil {
				return err
			}
		}
		if f := srcs[0].src; g.src.Width() != f.Width() || g.src.Height() != f.Height() || g.src.Format() != f.Format() {
			return fmt.Errorf("%w: source %d (%v) and source 0 (%v) differ in size or format; one tensor holds frames of one size",
				ErrGraphicsInput, i, g.src, f)
		}
	}
	return nil
}

// lockSources locks every source, in order, and returns what unlocks them.
func lockSources(srcs []*GraphicsSource) (unlock func()) {
	for _, g := range srcs {
		g.mu.Lock()
	}
	return func() {
		for _, g := range srcs {
			g.mu.Unlock()
		}
	}
}

// graphicsWrite is GraphicsWriteTensors' and GraphicsWriteTensorsTo's
// work once dst may be written.
func graphicsWrite(d *Device, dst *Buffer, off uint64, l tensor.Layout, srcs []*GraphicsSource) error {
	vb, err := dst.VulkanBuffer()
	if err != nil {
		return err
	}
	err = checkSources(srcs, func(g *GraphicsSource) error {
		if g.src.Depth() {
			return fmt.Errorf("%w: %v is depth: the graphics API writes colour tensors only (use GraphicsToTensors)", ErrUnsupported, g.src)
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer lockSources(srcs)()
	views := make([]graphics.View, len(srcs))
	for i, g := range srcs {
		v, err := g.writerLocked(d)
		if err != nil {
			return err
		}
		views[i] = v
	}
	w, ok := views[0].(graphics.TensorWriter)
	if !ok {
		return fmt.Errorf("%w: %v's graphics API does not write tensors itself", ErrUnsupported, srcs[0].src)
	}
	return w.WriteTensors(l, vb, off, views[1:]...)
}

// writerLocked returns the source's view on d's Vulkan device for
// GraphicsWriteTensors (a copy view, without CUDA), made on first use.
// g.mu is held.
func (g *GraphicsSource) writerLocked(d *Device) (graphics.View, error) {
	if g.closed {
		return nil, fmt.Errorf("gfxcuda: %v: %w", g.src, ErrClosed)
	}
	if g.writer != nil {
		if g.writeOn != d {
			return nil, fmt.Errorf("%w: %v writes tensors for another Device; make a GraphicsSource per Device", ErrGraphicsInput, g.src)
		}
		return g.writer, nil
	}
	v, err := g.src.NewGraphicsView(d.Vulkan(), nil)
	if err != nil {
		return nil, err
	}
	g.writer, g.writeOn = v, d
	return v, nil
}

// cudaViewLocked returns the source's CUDA view on d, made on first use.
// g.mu is held.
func (g *GraphicsSource) cudaViewLocked(d *Device) (graphics.View, error) {
	if g.closed {
		return nil, fmt.Errorf("gfxcuda: %v: %w", g.src, ErrClosed)
	}
	if g.cu != nil {
		if g.cuDev != d {
			return nil, fmt.Errorf("%w: %v goes to another Device's CUDA already; one Device per source", ErrGraphicsInput, g.src)
		}
		return g.cu, nil
	}
	v, err := g.src.NewGraphicsView(d.Vulkan(), d.CUDA())
	if err != nil {
		return nil, err
	}
	if !g.src.Depth() && v.Array() != nil {
		src, err := CUDAArraySource(v.Array(), g.src.Format(), 0)
		if err != nil {
			return nil, errors.Join(err, v.Close())
		}
		g.cuSrc = src
	}
	g.cu, g.cuDev = v, d
	return v, nil
}

// converterLocked returns the CUDA converter of layout l, made on first
// use. g.mu is held.
func (g *GraphicsSource) converterLocked(d *Device, l tensor.Layout) (*CUDAConverter, error) {
	if c := g.convs[l]; c != nil {
		return c, nil
	}
	c, err := NewCUDAConverter(d.CUDA(), l)
	if err != nil {
		return nil, err
	}
	if g.convs == nil {
		g.convs = map[tensor.Layout]*CUDAConverter{}
	}
	g.convs[l] = c
	return c, nil
}

// recordDoneLocked records the event that says when CUDA's work on the
// frame has finished; without one, the next copy waits on the GPU. A view
// CUDA reads in place (no Array of its own) is not copied into: the API
// orders its own next use when it takes the object back, and no event is
// recorded. g.mu is held.
func (g *GraphicsSource) recordDoneLocked(s *cuda.Stream) {
	if g.cu.Array() == nil {
		return
	}
	if g.cuDone == nil {
		e, err := g.cuDev.CUDA().NewEvent(cuda.EventDisableTiming)
		if err != nil {
			return
		}
		g.cuDone = e
	}
	if err := g.cuDone.Record(s); err != nil {
		g.cuDone.Close()
		g.cuDone = nil
	}
}

// Close frees the source's views and converters (not the API's object).
// Idempotent; call it where the API context is current (elsewhere, what
// the views made in the API stays until its context is destroyed, and the
// error says so).
func (g *GraphicsSource) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	var err error
	for _, cv := range g.compute {
		err = errors.Join(err, cv.v.Close())
	}
	if g.cuDone != nil {
		err = errors.Join(err, g.cuDone.Close())
	}
	if g.cu != nil {
		err = errors.Join(err, g.cu.Close())
	}
	if g.writer != nil {
		err = errors.Join(err, g.writer.Close())
	}
	for _, c := range g.convs {
		err = errors.Join(err, c.Close())
	}
	g.compute, g.cu, g.convs, g.cuDone, g.writer, g.writeOn = nil, nil, nil, nil, nil, nil
	return err
}
