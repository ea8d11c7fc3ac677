// Package tensorconv holds the two tensor converters, which turn textures
// into the tensor a learning framework wants: the VulkanConverter, a
// Vulkan compute pass (this file), and the CUDAConverter, a CUDA kernel
// (cudaconv.go). They import the API packages (vulkan, cuda), the layout
// (tensor) and the shaders and kernels; nothing of the face (package
// gfxcuda), which runs them on its Devices' textures and buffers
// (Texture.ToTensor) and re-exports their names (gfxcuda.VulkanConverter,
// gfxcuda.NewCUDAConverter, …). Formerly packages tensorpass and
// tensorpass/cudaconv.
//
// The Vulkan tensor converter is a Vulkan compute pass that converts textures into
// the tensor a learning framework wants, writing straight into a buffer:
// NCHW or NHWC; float32, float16 or uint8; 3 or 4 channels; optional
// per-channel mean and std and a vertical flip; several views (cameras)
// into one [N, C, H, W] tensor in one dispatch. Recorded right after
// rendering, into a buffer shared with CUDA (a Device's Buffer), it makes each
// frame ready for PyTorch with no CUDA work at all. It needs no CUDA itself
// and runs on any Vulkan device.
//
// Sources are 2D textures in RGBA8, BGRA8, RGBA16F or RGBA32F with sampled
// usage (a Device's Textures have it). The layout and the Go reference the pass
// is tested against are in package tensor; for textures that
// only CUDA holds (from OpenGL or another renderer), the CUDA converter
// (NewCUDAConverter) does the same conversion with a CUDA kernel.
//
// The pass is GLSL (tensor.comp), compiled for every layout by go generate
// into vulkanconv_shaders_gen.go (gen_tensorpass.go): the package links no
// shader compiler.
package tensorconv

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/lifetime"
	"github.com/gfxcuda/gfxcuda/spirv"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// MaxViewsPerDispatch is how many views one dispatch converts; RecordViews
// records one dispatch per this many views.
const MaxViewsPerDispatch = 8

// VulkanConverter is a compiled conversion for one Layout.
type VulkanConverter struct {
	l     tensor.Layout
	vd    *vulkan.Device
	pipe  *vulkan.Pipeline // MaxViewsPerDispatch views per dispatch
	one   *vulkan.Pipeline // one view: 2 descriptors to write, not 9
	tiled *vulkan.Pipeline // the tiles of one atlas (RecordTiles), made on first use
	// tiledImgBytes converts the tiles of a UNORM8 atlas image into uint8
	// layouts with no normalization, 16 texels an invocation
	// (imageBytesTiles), made on first use.
	tiledImgBytes *vulkan.Pipeline
	// tiledImgWords does it for an RGBA8 atlas image viewable as R32_UINT
	// (imageWordsTiles), tiledImgGather the same for tiles of an even
	// height, with textureGather and gatherSampler; made on first use.
	tiledImgWords, tiledImgGather *vulkan.Pipeline
	gatherSampler                 *vulkan.Sampler
	// tiledBuf converts the tiles of an atlas in a buffer
	// (RecordTilesFromBuffer), made on first use; tiledBytes does it for
	// uint8 layouts with no normalization, 16 texels an invocation
	// (bytesTiles).
	tiledBuf, tiledBytes *vulkan.Pipeline
}

// MaxTiles is the most tiles (views) RecordTiles converts: one dispatch,
// a work group layer per view (Vulkan guarantees 65,535 along z).
const MaxTiles = 65535

// dtypeCode is the DTYPE the shader is compiled with.
func dtypeCode(d format.DType) int {
	switch d {
	case format.Float32:
		return 0
	case format.Float16:
		return 1
	}
	return 2
}

//go:generate go run gen_tensorpass.go

// variant selects a precompiled module (vulkanconv_shaders_gen.go): the shader's
// DTYPE, PLANAR, channels and views per dispatch.
type variant struct {
	dtype    int
	planar   bool
	channels int
	views    int
}

// NewVulkanConverter creates the conversion for layout l on a Vulkan device. It needs no
// CUDA and no shader compiler (the pass is GLSL, tensor.comp, compiled for
// every layout by go generate into vulkanconv_shaders_gen.go): any Vulkan device can
// run it.
func NewVulkanConverter(vd *vulkan.Device, l tensor.Layout) (*VulkanConverter, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("tensorpass: %w", err)
	}
	t := &VulkanConverter{l: l, vd: vd}
	for _, v := range []struct {
		views int
		pipe  **vulkan.Pipeline
	}{{MaxViewsPerDispatch, &t.pipe}, {1, &t.one}} {
		p, err := t.pipeline(v.views)
		if err != nil {
			t.Close()
			return nil, err
		}
		*v.pipe = p
	}
	return t, nil
}

// pipeline makes the pipeline of the layout's module for views views per
// dispatch (0: tiles of an image; -1: of a buffer; -2: the bytes pass of
// a buffer, uint8 layouts only).
func (t *VulkanConverter) pipeline(views int) (*vulkan.Pipeline, error) {
	l := t.l
	enc, ok := modules[variant{dtypeCode(l.DType), l.Planar, l.C(), views}]
	if !ok {
		return nil, fmt.Errorf("tensorpass: no module for %v: run go generate in package tensorconv", l)
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("tensorpass: module for %v: %w", l, err)
	}
	m, err := spirv.Reflect(b)
	if err != nil {
		return nil, fmt.Errorf("tensorpass: module for %v: %w", l, err)
	}
	p, err := t.vd.NewComputePipeline(m)
	if err != nil {
		return nil, fmt.Errorf("tensorpass: %w", err)
	}
	return p, nil
}

// madeOnce returns *pipe, the pipeline of the shader's views variant,
// making it on first use (the tiles passes).
func (t *VulkanConverter) madeOnce(pipe **vulkan.Pipeline, views int) (*vulkan.Pipeline, error) {
	if *pipe == nil {
		p, err := t.pipeline(views)
		if err != nil {
			return nil, err
		}
		*pipe = p
	}
	return *pipe, nil
}

// push returns the push constants of a dispatch: the views' size, the
// first element written (base), the flip, mean and scale, and the atlas's
// tile columns (0 unless tiled).
func (t *VulkanConverter) push(w, h uint32, base uint64, tilecols, nviews uint32) []byte {
	scale := t.l.Scale()
	push := make([]byte, 56)
	binary.LittleEndian.PutUint32(push[0:], w)
	binary.LittleEndian.PutUint32(push[4:], h)
	binary.LittleEndian.PutUint32(push[8:], uint32(base))
	if t.l.FlipY {
		binary.LittleEndian.PutUint32(push[12:], 1)
	}
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint32(push[16+4*i:], math.Float32bits(t.l.Mean[i]))
		binary.LittleEndian.PutUint32(push[32+4*i:], math.Float32bits(scale[i]))
	}
	binary.LittleEndian.PutUint32(push[48:], tilecols)
	binary.LittleEndian.PutUint32(push[52:], nviews)
	return push
}

// Tiles describes an atlas: Cols × Rows tiles of equal size, of which the
// first N (row by row, from the texture's first row and column) are views.
type Tiles struct {
	Cols, Rows, N int
}

// Size returns the size of one tile of a width×height atlas, or an error
// when the tiles do not divide it or N is out of range.
func (g Tiles) Size(width, height uint32) (w, h uint32, err error) {
	if g.Cols <= 0 || g.Rows <= 0 {
		return 0, 0, fmt.Errorf("%w: %d x %d tiles: want at least one column and one row", ErrSource, g.Cols, g.Rows)
	}
	if int(width)%g.Cols != 0 || int(height)%g.Rows != 0 {
		return 0, 0, fmt.Errorf("%w: a %dx%d atlas does not divide into %d x %d tiles of equal size", ErrSource, width, height, g.Cols, g.Rows)
	}
	if g.N <= 0 || g.N > g.Cols*g.Rows {
		return 0, 0, fmt.Errorf("%w: %d views from an atlas of %d x %d tiles: want 1 to %d", ErrSource, g.N, g.Cols, g.Rows, g.Cols*g.Rows)
	}
	return width / uint32(g.Cols), height / uint32(g.Rows), nil
}

// RecordTiles records the conversion of n views that are the tiles of one
// atlas image into one tensor of shape Layout().Shape(n, w, h) in dst from
// byte off (a multiple of 4), in one dispatch: the atlas (a 2D image of a
// source format, with sampled usage) is cols × rows tiles of w × h texels,
// w = width / cols and h = height / rows (both exact; w a multiple of 4),
// and view v is the tile in column v % cols and row v / cols, counted from
// the image's first row and column (a renderer's viewports; FlipY flips
// each tile). n is at most cols × rows (the last tiles may be unused) and
// MaxTiles. A uint8 layout with no mean or std from an RGBA8 or BGRA8
// atlas, tiles a multiple of 16 texels wide and off a multiple of 16 take
// a pass of fewer instructions a texel, 16 texels an invocation, which
// costs a renderer's dispatch running beside it less (imageBytesTiles);
// from an RGBA8 atlas made with R32_UINT among its ImageOptions.ViewFormats
// that pass reads each texel as one word (imageWordsTiles), a quarter of
// what the texture unit returns for a UNORM8 texel, and four texels a
// fetch (textureGather) when the tiles' height is even.
func (t *VulkanConverter) RecordTiles(c *vulkan.Commands, atlas *vulkan.Image, cols, rows, n int, dst *vulkan.Buffer, off uint64) error {
	if atlas == nil || dst == nil {
		return fmt.Errorf("%w: RecordTiles needs an atlas image and a destination buffer", ErrSource)
	}
	o := atlas.Options()
	if err := tensor.CheckSource(format.Format(o.Format)); err != nil {
		return fmt.Errorf("%w: the atlas: %v", ErrSource, err)
	}
	if o.Usage&vulkan.ImageSampled == 0 {
		return fmt.Errorf("%w: the atlas has no sampled usage (usage %v)", ErrSource, o.Usage)
	}
	if o.Dim != 0 && o.Dim != vulkan.Image2D || o.Layers > 1 {
		return fmt.Errorf("%w: the atlas is not a plain 2D image (one layer)", ErrSource)
	}
	if t.pipe == nil {
		return lifetime.ErrClosed
	}
	pipe, views := &t.tiled, 0
	tp := tilesPass{step: 4, band: 4, laneRows: 1, most: tilesMaxGroups, src: vulkan.Binding{Binding: 0, Image: atlas}}
	switch {
	case t.imageWordsTiles(o, cols, off):
		pipe, views, tp.step, tp.most = &t.tiledImgWords, -4, 16, imageBytesMaxGroups
		tp.src.ImageFormat = uint32(format.R32UInt)
		if _, h, err := (Tiles{Cols: cols, Rows: rows, N: n}).Size(o.Width, o.Height); err == nil && h%2 == 0 {
			if tp.sampler, err = t.sampler(); err != nil {
				return err
			}
			pipe, views, tp.laneRows, tp.most = &t.tiledImgGather, -5, 2, imageGatherMaxGroups
		}
	case t.imageBytesTiles(format.Format(o.Format), o.Width, cols, off):
		pipe, views, tp.step, tp.most = &t.tiledImgBytes, -3, 16, imageBytesMaxGroups
	}
	var err error
	if tp.pipe, err = t.madeOnce(pipe, views); err != nil {
		return err
	}
	return t.recordTiles(c, tp, o.Width, o.Height, cols, rows, n, dst, off)
}

// sampler returns the gather pass's sampler (nearest, clamped: a gather
// ignores the filter), made on first use.
func (t *VulkanConverter) sampler() (*vulkan.Sampler, error) {
	if t.gatherSampler == nil {
		s, err := t.vd.NewSampler(vulkan.SamplerOptions{Filter: vulkan.FilterNearest, Address: vulkan.AddressClampToEdge})
		if err != nil {
			return nil, err
		}
		t.gatherSampler = s
	}
	return t.gatherSampler, nil
}

// tilesPass is how recordTiles dispatches a tiles pipeline: an invocation
// converts step texels of laneRows rows, band invocations side by side
// (rows of a column), in at most most workgroups; src binds the atlas at
// binding 0, sampler (when not nil: the gather pass) is binding 2.
type tilesPass struct {
	pipe                       *vulkan.Pipeline
	step, band, laneRows, most uint64
	src                        vulkan.Binding
	sampler                    *vulkan.Sampler
}

// RecordTilesFromBuffer is RecordTiles for an atlas held in a buffer: width
// × height RGBA8 texels (UNORM, 4 bytes each, red first), row after row
// with no padding, read as plain memory — no texture unit, which on the
// H200 made the conversion of a 4096-view 64×64 atlas twice as fast
// (BENCHMARKS.md, "What limits the conversion"). Compute renderers can
// draw their views into such a buffer. The tiles, n, dst and off are as
// RecordTiles'; FlipY flips each tile. A uint8 layout with no mean or std,
// tiles a multiple of 16 texels wide and off a multiple of 16 take a pass
// that moves the texels' bytes as integers, 16 texels an invocation: 0.80×
// cuMemcpyDtoD's rate at 64×64 × 4096 on the H200, against 0.52×.
func (t *VulkanConverter) RecordTilesFromBuffer(c *vulkan.Commands, atlas *vulkan.Buffer, width, height uint32, cols, rows, n int, dst *vulkan.Buffer, off uint64) error {
	if atlas == nil || dst == nil {
		return fmt.Errorf("%w: RecordTilesFromBuffer needs an atlas buffer and a destination buffer", ErrSource)
	}
	if width == 0 || height == 0 {
		return fmt.Errorf("%w: a %dx%d atlas", ErrSource, width, height)
	}
	if need := 4 * uint64(width) * uint64(height); atlas.Size() < need {
		return fmt.Errorf("%w: a %dx%d atlas of RGBA8 texels needs %d bytes, the buffer has %d", ErrSource, width, height, need, atlas.Size())
	}
	if uint64(width)*uint64(height) > math.MaxUint32 {
		return fmt.Errorf("%w: a %dx%d atlas is too large for one pass", ErrSource, width, height)
	}
	if t.pipe == nil {
		return lifetime.ErrClosed
	}
	pipe, views, step, most := &t.tiledBuf, -1, uint64(4), tilesMaxGroups
	if t.bytesTiles(width, cols, off) {
		pipe, views, step, most = &t.tiledBytes, -2, 16, bytesMaxGroups
	}
	p, err := t.madeOnce(pipe, views)
	if err != nil {
		return err
	}
	tp := tilesPass{pipe: p, step: step, band: 1, laneRows: 1, most: most, src: vulkan.Binding{Binding: 0, Buffer: atlas}}
	return t.recordTiles(c, tp, width, height, cols, rows, n, dst, off)
}

// bytesTiles reports whether RecordTilesFromBuffer converts a width-wide
// atlas of cols tile columns into a tensor at byte off with the pass whose
// elements are the texels' bytes (the shader's VIEWS -2): uint8, no mean
// or std, tiles a multiple of 16 texels wide and off a multiple of 16.
// It reads and writes 16-byte vectors and rearranges bytes as integers:
// on the H200 (gfxcuda bench --only tiles) it converts a 64×64 × 4096
// atlas at 0.80× the rate cuMemcpyDtoD copies the same bytes, against
// 0.52× for the general pass (BENCHMARKS.md, "uint8 views straight from a
// buffer atlas").
func (t *VulkanConverter) bytesTiles(width uint32, cols int, off uint64) bool {
	return t.l.DType == format.Uint8 && !t.l.Normalized() && cols > 0 && int(width)%cols == 0 &&
		(int(width)/cols)%16 == 0 && off%16 == 0
}

// imageBytesTiles reports whether RecordTiles converts a width-wide atlas
// image of format f and cols tile columns into a tensor at byte off with
// the pass that makes each texel's bytes from its fetched value (the
// shader's VIEWS -3): a UNORM8 format (RGBA8 or BGRA8), and what
// bytesTiles asks of a buffer atlas. Fewer instructions a texel than the
// general pass, so that it costs a renderer's dispatch beside it less: on
// the H200 (gfxcuda bench --only tiles), step k-1's conversion beside step
// k's render through a learner ring left the render at 0.959–0.961× its
// speed alone from 1,024 views of 64×64 on, against 0.911–0.917× with
// the general pass (BENCHMARKS.md, "Reading an image atlas in columns").
func (t *VulkanConverter) imageBytesTiles(f format.Format, width uint32, cols int, off uint64) bool {
	return (f == format.RGBA8UNorm || f == format.BGRA8UNorm) && t.bytesTiles(width, cols, off)
}

// imageWordsTiles reports whether RecordTiles converts the atlas image of
// options o with the pass that fetches each texel as one word through an
// R32_UINT view (the shader's VIEWS -4, or -5 gathering 2×2 texels for
// tiles of an even height): an RGBA8 image (red in a word's
// low byte) with R32_UINT among its ViewFormats, and what bytesTiles asks.
// A UNORM8 fetch returns four 32-bit values a texel; this one, one.
func (t *VulkanConverter) imageWordsTiles(o vulkan.ImageOptions, cols int, off uint64) bool {
	return format.Format(o.Format) == format.RGBA8UNorm && slices.Contains(o.ViewFormats, uint32(format.R32UInt)) &&
		t.bytesTiles(o.Width, cols, off)
}

// recordTiles checks the tiles of a width×height atlas bound by src and
// records the dispatch of pipe: an invocation per step texels of a row,
// each tile's rows taken band at a time (the shader's BAND: a band's rows
// side by side, the last band's rows past the tile idle), in at most most
// workgroups.
func (t *VulkanConverter) recordTiles(c *vulkan.Commands, tp tilesPass, width, height uint32, cols, rows, n int,
	dst *vulkan.Buffer, off uint64) error {
	w, h, err := Tiles{Cols: cols, Rows: rows, N: n}.Size(width, height)
	if err != nil {
		return err
	}
	if n > MaxTiles {
		return fmt.Errorf("%w: %d views: one dispatch converts at most %d", ErrSource, n, MaxTiles)
	}
	if w%4 != 0 {
		return fmt.Errorf("%w: tiles %d texels wide: the width must be a multiple of 4", ErrSource, w)
	}
	if off%4 != 0 {
		return fmt.Errorf("%w: offset %d is not a multiple of 4", ErrSource, off)
	}
	per := t.l.Bytes(w, h)
	if need := off + per*uint64(n); dst.Size() < need {
		return fmt.Errorf("%w: %d views of %dx%d as %s need %d bytes from offset %d, buffer has %d", ErrSource, n, w, h, t.l, per*uint64(n), off, dst.Size())
	}
	if (off+per*uint64(n))/uint64(t.l.DType.Size()) > math.MaxUint32 {
		return fmt.Errorf("%w: tensor of %d bytes is too large for one pass", ErrSource, per*uint64(n))
	}
	b := []vulkan.Binding{tp.src, {Binding: 1, Buffer: dst}, {Binding: 2, Sampler: tp.sampler}}
	if tp.sampler == nil {
		b = b[:2]
	}
	// Each invocation steps through the rest of the work.
	bandRows := tp.band * tp.laneRows
	lanes := uint64(w) / tp.step * (uint64(h) + bandRows - 1) / bandRows * tp.band * uint64(n) // as before the gather pass: 264 groups at 64×64 × 256
	groups := min((lanes+255)/256, tp.most)
	c.Dispatch(tp.pipe, b, t.push(w, h, off/uint64(t.l.DType.Size()), uint32(cols), uint32(n)), uint32(groups), 1, 1)
	return c.Err()
}

// Layout returns the pass's layout.
func (t *VulkanConverter) Layout() tensor.Layout { return t.l }

// ErrSource is wrapped by the tensor converters' errors for sources they
// cannot read (format, size, usage, layers) and destinations too small:
// VulkanConverter.Record and RecordViews, CUDAConverter.Convert and the
// CUDASource constructors. A closed CUDAConverter returns lifetime.ErrClosed.
var ErrSource = errors.New("gfxcuda: unusable source or destination of a tensor conversion")

// Record records the conversion of src into dst from byte 0: one view,
// a tensor of Layout().Bytes(width, height) bytes. For shared resources pass
// tex.Vulkan() and buf.Vulkan().
func (t *VulkanConverter) Record(c *vulkan.Commands, src *vulkan.Image, dst *vulkan.Buffer) error {
	return t.RecordViews(c, []*vulkan.Image{src}, dst, 0)
}

// RecordViews records the conversion of len(srcs) views (2D images of one
// size and a source format, with sampled usage) into one tensor of shape
// Layout().Shape(len(srcs), width, height) in dst from byte off (a multiple
// of 4): one dispatch per MaxViewsPerDispatch views. The width must be a
// multiple of 4.
func (t *VulkanConverter) RecordViews(c *vulkan.Commands, srcs []*vulkan.Image, dst *vulkan.Buffer, off uint64) error {
	if t.pipe == nil {
		return lifetime.ErrClosed
	}
	if len(srcs) == 0 {
		return fmt.Errorf("%w: no views", ErrSource)
	}
	o := srcs[0].Options()
	for i, s := range srcs {
		so := s.Options()
		if so.Width != o.Width || so.Height != o.Height {
			return fmt.Errorf("%w: view %d is %dx%d, view 0 %dx%d", ErrSource, i, so.Width, so.Height, o.Width, o.Height)
		}
		if err := tensor.CheckSource(format.Format(so.Format)); err != nil {
			return fmt.Errorf("%w: view %d: %v", ErrSource, i, err)
		}
		if so.Usage&vulkan.ImageSampled == 0 {
			return fmt.Errorf("%w: view %d has no sampled usage (usage %v)", ErrSource, i, so.Usage)
		}
		if so.Dim != 0 && so.Dim != vulkan.Image2D || so.Layers > 1 {
			return fmt.Errorf("%w: view %d is not a plain 2D image (one layer)", ErrSource, i)
		}
	}
	if o.Width%4 != 0 {
		return fmt.Errorf("%w: width %d is not a multiple of 4", ErrSource, o.Width)
	}
	if off%4 != 0 {
		return fmt.Errorf("%w: offset %d is not a multiple of 4", ErrSource, off)
	}
	per := t.l.Bytes(o.Width, o.Height)
	if need := off + per*uint64(len(srcs)); dst.Size() < need {
		return fmt.Errorf("%w: %d views of %dx%d as %s need %d bytes from offset %d, buffer has %d", ErrSource, len(srcs), o.Width, o.Height, t.l, per*uint64(len(srcs)), off, dst.Size())
	}
	if (off+per*uint64(len(srcs)))/uint64(t.l.DType.Size()) > math.MaxUint32 {
		return fmt.Errorf("%w: tensor of %d bytes is too large for one pass", ErrSource, per*uint64(len(srcs)))
	}
	for v0 := 0; v0 < len(srcs); v0 += MaxViewsPerDispatch {
		group := srcs[v0:min(len(srcs), v0+MaxViewsPerDispatch)]
		pipe, n := t.pipe, MaxViewsPerDispatch
		if len(group) == 1 {
			pipe, n = t.one, 1
		}
		b := make([]vulkan.Binding, 0, n+1)
		for e := 0; e < n; e++ {
			img := group[0] // unused elements repeat a real view
			if e < len(group) {
				img = group[e]
			}
			b = append(b, vulkan.Binding{Binding: 0, Element: uint32(e), Image: img})
		}
		b = append(b, vulkan.Binding{Binding: 1, Buffer: dst})
		// base: the group's first element (the shader's views are relative).
		push := t.push(o.Width, o.Height, (off+per*uint64(v0))/uint64(t.l.DType.Size()), 0, 0)
		c.Dispatch(pipe, b, push, (o.Width/4+63)/64, (o.Height+3)/4, uint32(len(group)))
	}
	return c.Err()
}

// Close frees the pipelines. Idempotent; Record calls afterwards fail.
func (t *VulkanConverter) Close() error {
	var err error
	for _, p := range []*vulkan.Pipeline{t.pipe, t.one, t.tiled, t.tiledImgBytes, t.tiledImgWords, t.tiledImgGather, t.tiledBuf, t.tiledBytes} {
		if p != nil {
			err = errors.Join(err, p.Close())
		}
	}
	if t.gatherSampler != nil {
		err = errors.Join(err, t.gatherSampler.Close())
	}
	t.pipe, t.one, t.tiled, t.tiledImgBytes, t.tiledImgWords, t.tiledImgGather, t.tiledBuf, t.tiledBytes = nil, nil, nil, nil, nil, nil, nil, nil
	t.gatherSampler = nil
	return err
}

// tilesMaxGroups is the most workgroups RecordTiles dispatches: 792 of 256
// invocations, six per SM of an H100 or H200, each invocation stepping
// through the views' texels with no division. A conversion that does not
// fill the GPU runs beside a renderer's dispatch recorded after it. On the
// H200 (BENCHMARKS.md, "Reading an image atlas in columns"), at 64×64 ×
// 4096 into [N, 3, H, W] uint8, one conversion at a time ran at 2.9 TB/s
// with 792 groups (264: 1.8; 396: 2.3; 528: 2.6; uncapped: 2.5), and
// step k-1's conversion recorded before step k's render left the render
// at 0.914× its speed alone (132 to 528 groups: 0.916–0.920×). A
// variable so that tests can make the loop run many times.
var tilesMaxGroups uint64 = 792

// bytesMaxGroups is the most workgroups the bytes pass of
// RecordTilesFromBuffer dispatches: 264, two per SM of an H100 or H200,
// each invocation converting 16 texels per step. On the H200 at 64×64 ×
// 4096, one conversion at a time into one buffer ran at 0.84× the rate of
// cuMemcpyDtoD with 264 groups (132: 0.68×; 396 and uncapped: 0.85×), and
// step k-1's conversion recorded before step k's render left the render
// at 0.968× its speed alone (132: 0.974×; 396: 0.96×; uncapped: 0.91×).
// A variable so that tests can make the loop run many times.
var bytesMaxGroups uint64 = 264

// imageBytesMaxGroups is the most workgroups RecordTiles dispatches for
// the pass of imageBytesTiles, 16 texels an invocation: 264, two per SM
// of an H100 or H200. On the H200 (64×64 × 1,024 and × 4,096, 128×128 ×
// 4,096; the pass before its bytes came from 2^23, below 0.95× at every
// cap), beside the next step's render: 0.941–0.945× the render alone
// (132: 0.945–0.950×; 528: 0.894–0.936×; 792: 0.898–0.928×); one
// conversion at a time: 2.5–2.8 TB/s (132: 1.8–2.0; 528 and 792: the
// same as 264). A variable so that tests can make the loop run many
// times.
var imageBytesMaxGroups uint64 = 264

// imageGatherMaxGroups is the most workgroups RecordTiles dispatches for
// the gather pass (an RGBA8 atlas viewable as R32_UINT, tiles of an even
// height: four texels' words a textureGather, two rows an invocation):
// 198, one and a half per SM of an H100 or H200. On the H200 (BENCHMARKS.md,
// "What bounds 256 views, and the gather pass's own cap"; 64×64 × 1,024 and ×
// 4,096, 128×128 × 1,024), beside the next step's render: 0.956–0.965×
// the render alone (264: 0.947–0.957×; 132: 0.961–0.972×; 396:
// 0.933–0.941×); one conversion at a time at 64×64 × 4,096: 3.25 TB/s,
// 0.84× the copy bound (264: 3.32; 132: 3.16, 0.82×). Fewer groups leave
// more of the GPU to the render beside the conversion; 198 keeps both
// targets' margins. A variable so that tests can make the loop run many
// times.
var imageGatherMaxGroups uint64 = 198
