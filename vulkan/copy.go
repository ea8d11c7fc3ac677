package vulkan

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// ImageCopy is a region of a copy between two images.
type ImageCopy struct {
	// SrcX, SrcY, SrcZ and DstX, DstY, DstZ are the region's first texel
	// in each image.
	SrcX, SrcY, SrcZ int32
	DstX, DstY, DstZ int32
	// Width, Height, Depth is its extent; 0 means up to the source's edge.
	Width, Height, Depth uint32
	// SrcLayer and DstLayer are the first array layers, Layers their count
	// (0: all of the source's from SrcLayer).
	SrcLayer, DstLayer, Layers uint32
}

// CopyImage copies a region of src into dst (vkCmdCopyImage). The formats
// must have the same texel block size; src must be, as recorded so far, in
// LayoutTransferSrc or LayoutGeneral and dst in LayoutTransferDst or
// LayoutGeneral (see TransitionImage).
func (c *Commands) CopyImage(dst, src *Image, r ImageCopy) {
	const what = "CopyImage"
	if !c.begin(what) {
		return
	}
	defer c.end()
	if !c.checkImage(what, dst) || !c.checkImage(what, src) {
		return
	}
	failf := func(format string, a ...any) { c.fail(fmt.Errorf("vulkan: CopyImage: "+format, a...)) }
	so, do := &src.opts, &dst.opts
	sf, df := vkFormat(so.Format), vkFormat(do.Format)
	switch {
	case so.Usage&ImageTransferSrc == 0:
		failf("source usage %v lacks %v", so.Usage, ImageTransferSrc)
		return
	case do.Usage&ImageTransferDst == 0:
		failf("destination usage %v lacks %v", do.Usage, ImageTransferDst)
		return
	case sf.blockSize() == 0 || sf.blockSize() != df.blockSize() || src.aspect != dst.aspect:
		failf("%v and %v are not copy-compatible (they need the same texel size and aspects)", sf, df)
		return
	case src == dst:
		failf("source and destination are the same image")
		return
	}
	if l := src.Layout(); l != LayoutTransferSrc && l != LayoutGeneral {
		failf("the source is in layout %v; TransitionImage it to %v or %v first", l, LayoutTransferSrc, LayoutGeneral)
		return
	}
	if l := dst.Layout(); l != LayoutTransferDst && l != LayoutGeneral {
		failf("the destination is in layout %v; TransitionImage it to %v or %v first", l, LayoutTransferDst, LayoutGeneral)
		return
	}
	if r.SrcX < 0 || r.SrcY < 0 || r.SrcZ < 0 || r.DstX < 0 || r.DstY < 0 || r.DstZ < 0 {
		failf("negative offset")
		return
	}
	rest := func(size uint32, off int32) uint32 {
		if uint32(off) >= size {
			return 0
		}
		return size - uint32(off)
	}
	w, h, dp, layers := r.Width, r.Height, r.Depth, r.Layers
	if w == 0 {
		w = rest(so.Width, r.SrcX)
	}
	if h == 0 {
		h = rest(so.Height, r.SrcY)
	}
	if dp == 0 {
		dp = rest(so.Depth, r.SrcZ)
	}
	if layers == 0 {
		layers = rest(so.Layers, int32(r.SrcLayer))
	}
	inside := func(o *ImageOptions, x, y, z int32, layer uint32) bool {
		return w > 0 && h > 0 && dp > 0 && layers > 0 &&
			uint64(x)+uint64(w) <= uint64(o.Width) && uint64(y)+uint64(h) <= uint64(o.Height) &&
			uint64(z)+uint64(dp) <= uint64(o.Depth) && uint64(layer)+uint64(layers) <= uint64(o.Layers)
	}
	if !inside(so, r.SrcX, r.SrcY, r.SrcZ, r.SrcLayer) || !inside(do, r.DstX, r.DstY, r.DstZ, r.DstLayer) {
		failf("region %dx%dx%d of %d layers from (%d, %d, %d) to (%d, %d, %d) lies outside the %dx%dx%d source or the %dx%dx%d destination",
			w, h, dp, layers, r.SrcX, r.SrcY, r.SrcZ, r.DstX, r.DstY, r.DstZ, so.Width, so.Height, so.Depth, do.Width, do.Height, do.Depth)
		return
	}
	if so.Dim != do.Dim {
		failf("a %v image cannot be copied to a %v image", so.Dim, do.Dim)
		return
	}
	if !c.hold(what, &src.resource, &dst.resource) {
		return
	}
	defer c.unhold(&src.resource, &dst.resource)
	c.track(acc{&src.resource, accRead}, acc{&dst.resource, accWrite})
	c.d.raw.CmdCopyImage(c.cb, src.h, uint32(src.Layout()), dst.h, uint32(dst.Layout()), []vk.ImageCopy{{
		SrcAspect: src.aspect, DstAspect: dst.aspect,
		SrcBaseLayer: r.SrcLayer, DstBaseLayer: r.DstLayer, LayerCount: layers,
		SrcOffset: [3]int32{r.SrcX, r.SrcY, r.SrcZ}, DstOffset: [3]int32{r.DstX, r.DstY, r.DstZ},
		Extent: [3]uint32{w, h, dp},
	}})
}
