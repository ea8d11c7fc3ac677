package vulkan

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// Commands is a batch of commands recorded into one command buffer (with
// its own command pool) and submitted once to the device's queue. Record
// commands, Submit, Wait, then Reset to record the next batch.
//
// Recording methods do not return errors: the first error is kept (like
// bufio.Writer's), later commands are ignored, and Err and Submit return
// it. Reset clears it.
//
// A Commands is meant for one goroutine at a time; Close, and the device's
// Close, may come from any goroutine.
//
// Images remember their layout as commands are recorded (Image.Layout):
// TransitionImage and the ownership transfers record a barrier from the
// remembered layout and update it. The remembered layout is right as long
// as batches that use an image are submitted in the order they were
// recorded; Submit checks this, and refuses a batch that expects an image
// in another layout than the batches submitted before left it in (it stays
// recorded: submit the earlier batch first). A batch discarded without
// submission (Reset, Close) restores the layouts it changed.
type Commands struct {
	life   life
	d      *Device
	pool   vk.CommandPool
	cb     vk.CommandBuffer
	state  cmdState
	err    error
	refs   map[*resource]struct{} // what the recorded commands use
	serial uint64                 // device serial of the submission
	// layouts holds the remembered layouts of the images whose layout the
	// batch changed, as they were before: a batch discarded without being
	// submitted restores them.
	layouts map[*Image]ImageLayout
	// start holds, for every image the batch uses, the layout it expects
	// the image in when it starts; after the layout it leaves the images
	// it moves in. Submit checks start against Image.submitted.
	start, after map[*Image]ImageLayout
	from         *Pool       // the Pool it came from, if any
	held         []*resource // Submit's scratch
	// cs is the state of dispatches and of the barriers between commands
	// (dispatch.go).
	cs computeState
}

type cmdState int

const (
	cmdRecording cmdState = iota
	cmdSubmitted
	cmdExecutable // ended, not pending: Submit submits it (again)
	cmdBroken     // failed to end or to submit: only Reset helps
)

// NewCommands creates an empty batch, ready for recording. It needs
// timeline semaphores (Vulkan 1.2, or VK_KHR_timeline_semaphore), which
// track the completion of submissions.
func (d *Device) NewCommands() (*Commands, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	if err := d.needTimeline(); err != nil {
		return nil, fmt.Errorf("vulkan: NewCommands: %w", err)
	}
	pool, err := d.raw.CreateCommandPool(d.family, vk.CommandPoolCreateTransient)
	if err != nil {
		return nil, fmt.Errorf("vulkan: NewCommands: %w", err)
	}
	c := &Commands{d: d, pool: pool, refs: map[*resource]struct{}{}, layouts: map[*Image]ImageLayout{},
		start: map[*Image]ImageLayout{}, after: map[*Image]ImageLayout{}}
	if c.cb, err = d.raw.AllocateCommandBuffer(pool); err == nil {
		err = d.raw.BeginCommandBuffer(c.cb, false)
	}
	if err != nil {
		d.raw.DestroyCommandPool(pool)
		return nil, fmt.Errorf("vulkan: NewCommands: %w", err)
	}
	d.register(c)
	return c, nil
}

// Err returns the first recording error, or ErrClosed after Close.
func (c *Commands) Err() error {
	if c == nil || c.d == nil || c.life.isClosing() {
		return ErrClosed
	}
	return c.err
}

// rawBuffer returns the command buffer, for code of this package that
// records more commands (dispatches); use it between begin and end.
func (c *Commands) rawBuffer() vk.CommandBuffer { return c.cb }

// fail keeps the first error.
func (c *Commands) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// begin starts recording one command: it keeps c open until end and
// reports whether the command should be recorded.
func (c *Commands) begin(what string) bool {
	if c == nil || c.d == nil || !c.life.acquire() {
		return false
	}
	if c.err == nil && c.state != cmdRecording {
		c.err = fmt.Errorf("vulkan: %s: the batch was submitted; Wait and Reset it before recording again", what)
	}
	if c.err != nil {
		c.life.release()
		return false
	}
	return true
}

func (c *Commands) end() { c.life.release() }

// hold keeps the resources open while a command using them is recorded
// and adds them to the batch's references; release them with unhold. It
// fails (keeping the error) if one is closed.
func (c *Commands) hold(what string, rs ...*resource) bool {
	for i, r := range rs {
		if !r.life.acquire() {
			c.unhold(rs[:i]...)
			c.fail(fmt.Errorf("vulkan: %s: %w", what, ErrClosed))
			return false
		}
	}
	for _, r := range rs {
		c.refs[r] = struct{}{}
	}
	return true
}

func (c *Commands) unhold(rs ...*resource) {
	for _, r := range rs {
		r.life.release()
	}
}

// use adds r to the resources the batch uses, for code of this package
// that records commands on objects other than buffers and images (such as
// pipelines): Submit keeps them open while submitting, and their Close
// waits for the batch.
func (c *Commands) use(r *resource) { c.refs[r] = struct{}{} }

// checkBuffer checks that b belongs to the batch's device and has usage.
func (c *Commands) checkBuffer(what string, b *Buffer, usage BufferUsage) bool {
	switch {
	case b == nil || b.d == nil:
		c.fail(fmt.Errorf("vulkan: %s: nil buffer", what))
	case b.d != c.d:
		c.fail(fmt.Errorf("vulkan: %s: buffer of another device", what))
	case b.usage&usage != usage:
		c.fail(fmt.Errorf("vulkan: %s: buffer usage %v lacks %v", what, b.usage, usage))
	default:
		return true
	}
	return false
}

// checkImage checks that img belongs to the batch's device.
func (c *Commands) checkImage(what string, img *Image) bool {
	switch {
	case img == nil || img.d == nil:
		c.fail(fmt.Errorf("vulkan: %s: nil image", what))
	case img.d != c.d:
		c.fail(fmt.Errorf("vulkan: %s: image of another device", what))
	default:
		return true
	}
	return false
}

// CopyBuffer copies size bytes from src at srcOff to dst at dstOff
// (vkCmdCopyBuffer). The ranges must lie within the buffers and must not
// overlap if src and dst are the same buffer.
func (c *Commands) CopyBuffer(dst, src *Buffer, dstOff, srcOff, size uint64) {
	const what = "CopyBuffer"
	if !c.begin(what) {
		return
	}
	defer c.end()
	if !c.checkBuffer(what, dst, BufferTransferDst) || !c.checkBuffer(what, src, BufferTransferSrc) {
		return
	}
	switch {
	case size == 0:
		c.fail(errors.New("vulkan: CopyBuffer: size 0"))
		return
	case srcOff > src.size || size > src.size-srcOff:
		c.fail(fmt.Errorf("vulkan: CopyBuffer: source bytes [%d, %d) outside the %d-byte buffer", srcOff, srcOff+size, src.size))
		return
	case dstOff > dst.size || size > dst.size-dstOff:
		c.fail(fmt.Errorf("vulkan: CopyBuffer: destination bytes [%d, %d) outside the %d-byte buffer", dstOff, dstOff+size, dst.size))
		return
	case src == dst && srcOff < dstOff+size && dstOff < srcOff+size:
		c.fail(fmt.Errorf("vulkan: CopyBuffer: overlapping ranges [%d, %d) and [%d, %d) of one buffer", srcOff, srcOff+size, dstOff, dstOff+size))
		return
	}
	rs := []*resource{&dst.resource}
	if src != dst {
		rs = append(rs, &src.resource)
	}
	if !c.hold(what, rs...) {
		return
	}
	defer c.unhold(rs...)
	c.track(acc{&src.resource, accRead}, acc{&dst.resource, accWrite})
	c.d.raw.CmdCopyBuffer(c.cb, src.h, dst.h, []vk.BufferCopy{{SrcOffset: srcOff, DstOffset: dstOff, Size: size}})
}

// FillBuffer fills size bytes of dst from off with the 32-bit word v
// (vkCmdFillBuffer). off and size must be multiples of 4; size 0 fills to
// the end of the buffer (rounded down to a multiple of 4).
func (c *Commands) FillBuffer(dst *Buffer, off, size uint64, v uint32) {
	const what = "FillBuffer"
	if !c.begin(what) {
		return
	}
	defer c.end()
	if !c.checkBuffer(what, dst, BufferTransferDst) {
		return
	}
	if size == 0 && off < dst.size {
		size = (dst.size - off) &^ 3
	}
	switch {
	case off%4 != 0 || size%4 != 0:
		c.fail(fmt.Errorf("vulkan: FillBuffer: offset %d and size %d must be multiples of 4", off, size))
		return
	case size == 0 || off > dst.size || size > dst.size-off:
		c.fail(fmt.Errorf("vulkan: FillBuffer: bytes [%d, %d) outside the %d-byte buffer", off, off+size, dst.size))
		return
	}
	if !c.hold(what, &dst.resource) {
		return
	}
	defer c.unhold(&dst.resource)
	c.track(acc{&dst.resource, accWrite})
	c.d.raw.CmdFillBuffer(c.cb, dst.h, off, size, v)
}

// BufferImageCopy is a region of a copy between a buffer and an image.
type BufferImageCopy struct {
	// BufferOffset is where the region starts in the buffer; a multiple of
	// the format's BlockSize.
	BufferOffset uint64
	// RowLength and ImageHeight are the buffer's row length and rows per
	// image slice, in texels; 0 means tightly packed (Width, Height).
	RowLength, ImageHeight uint32
	// X, Y, Z is the region's first texel in the image.
	X, Y, Z int32
	// Width, Height, Depth is its extent; 0 means up to the image's edge.
	Width, Height, Depth uint32
	// BaseLayer and Layers are the array layers; Layers 0 means all from
	// BaseLayer. Each layer is ImageHeight rows after the previous in the
	// buffer, as 3D slices are.
	BaseLayer, Layers uint32
}

// region checks r against img and buf and returns the Vulkan region.
func (img *Image) region(buf *Buffer, r BufferImageCopy) (vk.BufferImageCopy, error) {
	o := img.opts
	format := vkFormat(o.Format)
	bs := uint64(format.blockSize())
	bw, bh := format.blockExtent()
	aspect := img.aspect
	switch {
	case bs == 0:
		return vk.BufferImageCopy{}, fmt.Errorf("copies of %v images are not supported", format)
	case aspect == vk.ImageAspectDepth|vk.ImageAspectStencil:
		return vk.BufferImageCopy{}, fmt.Errorf("copies of combined depth/stencil %v images are not supported", format)
	case r.X < 0 || r.Y < 0 || r.Z < 0:
		return vk.BufferImageCopy{}, fmt.Errorf("negative offset (%d, %d, %d)", r.X, r.Y, r.Z)
	}
	x, y, z := uint32(r.X), uint32(r.Y), uint32(r.Z)
	w, h, dp, layers := r.Width, r.Height, r.Depth, r.Layers
	rest := func(size, off uint32) uint32 {
		if off >= size {
			return 0
		}
		return size - off
	}
	if w == 0 {
		w = rest(o.Width, x)
	}
	if h == 0 {
		h = rest(o.Height, y)
	}
	if dp == 0 {
		dp = rest(o.Depth, z)
	}
	if layers == 0 {
		layers = rest(o.Layers, r.BaseLayer)
	}
	if w == 0 || h == 0 || dp == 0 || layers == 0 ||
		uint64(x)+uint64(w) > uint64(o.Width) || uint64(y)+uint64(h) > uint64(o.Height) ||
		uint64(z)+uint64(dp) > uint64(o.Depth) || uint64(r.BaseLayer)+uint64(layers) > uint64(o.Layers) {
		return vk.BufferImageCopy{}, fmt.Errorf("region (%d, %d, %d) %dx%dx%d, layers [%d, %d) outside the %dx%dx%d image of %d layers",
			x, y, z, w, h, dp, r.BaseLayer, r.BaseLayer+layers, o.Width, o.Height, o.Depth, o.Layers)
	}
	if bw > 1 || bh > 1 {
		if x%bw != 0 || y%bh != 0 || (w%bw != 0 && x+w != o.Width) || (h%bh != 0 && y+h != o.Height) ||
			r.RowLength%bw != 0 || r.ImageHeight%bh != 0 {
			return vk.BufferImageCopy{}, fmt.Errorf("region not aligned to the %dx%d blocks of %v", bw, bh, format)
		}
	}
	rowLen, imgH := r.RowLength, r.ImageHeight
	if rowLen == 0 {
		rowLen = w
	}
	if imgH == 0 {
		imgH = h
	}
	if rowLen < w || imgH < h {
		return vk.BufferImageCopy{}, fmt.Errorf("row length %d or image height %d below the region's %dx%d", r.RowLength, r.ImageHeight, w, h)
	}
	align := bs
	if aspect != vk.ImageAspectColor && align%4 != 0 {
		align = 4 // depth/stencil copies need 4-byte buffer offsets
	}
	if r.BufferOffset%align != 0 {
		return vk.BufferImageCopy{}, fmt.Errorf("buffer offset %d not a multiple of %d", r.BufferOffset, align)
	}
	rowBytes := uint64((rowLen+bw-1)/bw) * bs
	sliceBytes := uint64((imgH+bh-1)/bh) * rowBytes
	slices := uint64(dp) * uint64(layers)
	need := (slices-1)*sliceBytes + uint64((h+bh-1)/bh-1)*rowBytes + uint64((w+bw-1)/bw)*bs
	if r.BufferOffset > buf.size || need > buf.size-r.BufferOffset {
		return vk.BufferImageCopy{}, fmt.Errorf("buffer bytes [%d, %d) outside the %d-byte buffer", r.BufferOffset, r.BufferOffset+need, buf.size)
	}
	return vk.BufferImageCopy{
		BufferOffset: r.BufferOffset, BufferRowLength: r.RowLength, BufferImageHeight: r.ImageHeight,
		Aspect: aspect, BaseLayer: r.BaseLayer, LayerCount: layers,
		Offset: [3]int32{r.X, r.Y, r.Z}, Extent: [3]uint32{w, h, dp},
	}, nil
}

// CopyBufferToImage copies a region from src into dst
// (vkCmdCopyBufferToImage). dst must be, as recorded so far, in
// LayoutTransferDst or LayoutGeneral (see TransitionImage).
func (c *Commands) CopyBufferToImage(dst *Image, src *Buffer, r BufferImageCopy) {
	const what = "CopyBufferToImage"
	c.copyImage(what, dst, src, r, true)
}

// CopyImageToBuffer copies a region of src into dst
// (vkCmdCopyImageToBuffer). src must be, as recorded so far, in
// LayoutTransferSrc or LayoutGeneral.
func (c *Commands) CopyImageToBuffer(dst *Buffer, src *Image, r BufferImageCopy) {
	const what = "CopyImageToBuffer"
	c.copyImage(what, src, dst, r, false)
}

func (c *Commands) copyImage(what string, img *Image, buf *Buffer, r BufferImageCopy, toImage bool) {
	if !c.begin(what) {
		return
	}
	defer c.end()
	bufUsage, imgUsage, layout := BufferTransferDst, ImageTransferSrc, LayoutTransferSrc
	if toImage {
		bufUsage, imgUsage, layout = BufferTransferSrc, ImageTransferDst, LayoutTransferDst
	}
	if !c.checkImage(what, img) || !c.checkBuffer(what, buf, bufUsage) {
		return
	}
	if img.opts.Usage&imgUsage == 0 {
		c.fail(fmt.Errorf("vulkan: %s: image usage %v lacks %v", what, img.opts.Usage, imgUsage))
		return
	}
	if l := img.Layout(); l != layout && l != LayoutGeneral {
		c.fail(fmt.Errorf("vulkan: %s: the image is in layout %v; TransitionImage it to %v or %v first", what, l, layout, LayoutGeneral))
		return
	}
	region, err := img.region(buf, r)
	if err != nil {
		c.fail(fmt.Errorf("vulkan: %s: %w", what, err))
		return
	}
	if !c.hold(what, &img.resource, &buf.resource) {
		return
	}
	defer c.unhold(&img.resource, &buf.resource)
	c.expect(img)
	if toImage {
		c.track(acc{&buf.resource, accRead}, acc{&img.resource, accWrite})
		c.d.raw.CmdCopyBufferToImage(c.cb, buf.h, img.h, uint32(img.Layout()), []vk.BufferImageCopy{region})
	} else {
		c.track(acc{&img.resource, accRead}, acc{&buf.resource, accWrite})
		c.d.raw.CmdCopyImageToBuffer(c.cb, img.h, uint32(img.Layout()), buf.h, []vk.BufferImageCopy{region})
	}
}

// barrier records dep with synchronization2 where the device has it, else
// with vkCmdPipelineBarrier.
func (c *Commands) barrier(dep vk.Dependency) {
	if c.d.sync2 {
		c.d.raw.CmdPipelineBarrier2(c.cb, dep)
	} else {
		c.d.raw.CmdPipelineBarrier(c.cb, dep)
	}
}

// Stage and access masks of the barriers: everything before, everything
// after (and the host, so that results are visible to Readback and Map
// after a wait).
var (
	fullSrc = vk.MemoryBarrier{SrcStage: vk.PipelineStage2AllCommands, SrcAccess: vk.Access2MemoryWrite}
	fullDst = vk.MemoryBarrier{DstStage: vk.PipelineStage2AllCommands | vk.PipelineStage2Host,
		DstAccess: vk.Access2MemoryRead | vk.Access2MemoryWrite}
	fullBarrier = vk.MemoryBarrier{SrcStage: fullSrc.SrcStage, SrcAccess: fullSrc.SrcAccess,
		DstStage: fullDst.DstStage, DstAccess: fullDst.DstAccess}
)

// MemoryBarrier records a full memory barrier: every command recorded or
// submitted before it finishes, and its writes are visible to every
// command after it and to the host. Simple and correct; finer barriers
// cost less on GPUs that overlap work.
func (c *Commands) MemoryBarrier() {
	if !c.begin("MemoryBarrier") {
		return
	}
	defer c.end()
	c.barrier(vk.Dependency{Memory: []vk.MemoryBarrier{fullBarrier}})
	c.fullBarrierRecorded()
}

// imageBarrier records a barrier on the whole of img from its remembered
// layout (or old, unless ^0) to newLayout, with a queue family transfer
// from src to dst (QueueFamilyIgnored for none), and remembers newLayout.
func (c *Commands) imageBarrier(what string, img *Image, old, newLayout ImageLayout, m vk.MemoryBarrier, src, dst uint32) {
	c.imageBarriers(what, []*Image{img}, old, newLayout, m, src, dst)
}

// expect notes that the batch uses img in its remembered layout.
func (c *Commands) expect(img *Image) {
	if _, ok := c.start[img]; !ok {
		c.start[img] = img.Layout()
	}
}

// setLayout records that the batch leaves img in layout l.
func (c *Commands) setLayout(img *Image, l ImageLayout) {
	c.expect(img)
	if _, ok := c.layouts[img]; !ok {
		c.layouts[img] = img.Layout()
	}
	c.after[img] = l
	img.layout.Store(uint32(l))
}

// checkLayouts returns an error if an image the batch uses is not, after
// the batches submitted so far, in the layout the batch was recorded for.
func (c *Commands) checkLayouts() error {
	for img, l := range c.start {
		if now := img.Submitted(); now != l {
			return fmt.Errorf("vulkan: Submit: %w: the batch was recorded for an image in layout %v, but the batches submitted so far leave it in %v; submit batches that use an image in the order they were recorded",
				ErrLayoutOrder, l, now)
		}
	}
	return nil
}

// TransitionImage records a barrier that moves img from its remembered
// layout to newLayout, after every earlier command (full memory
// dependency).
func (c *Commands) TransitionImage(img *Image, newLayout ImageLayout) {
	c.imageBarrier("TransitionImage", img, ^ImageLayout(0), newLayout, fullBarrier, vk.QueueFamilyIgnored, vk.QueueFamilyIgnored)
}

// releaseImages records the release of distinct images from the device's
// queue family to VK_QUEUE_FAMILY_EXTERNAL (CUDA, another API or process),
// in one barrier command (GPUs may pay per barrier command, not per image),
// moving each from its remembered layout to layout, the one the external
// user will see (normally LayoutGeneral). The batch is then submitted
// signalling a semaphore the external user waits for.
//
// It and the other ownership transfers are not exported: they belong to
// the hand-off state machine of the layer sharing the images (see
// guardFunc), which takes them through package internal/vkown.
func (c *Commands) releaseImages(layout ImageLayout, imgs ...*Image) {
	c.imageBarriers("release to external", imgs, ^ImageLayout(0), layout, fullSrc, c.family(), vk.QueueFamilyExternal)
}

// acquireImages records the acquisition of distinct images from
// VK_QUEUE_FAMILY_EXTERNAL: the external user left them in layout, and
// they move to newLayout (which may equal layout). The batch is then
// submitted waiting for the semaphore the external user signals. The
// images share one barrier command where they can (an image's first
// acquisition may need two, as acquireImage says).
func (c *Commands) acquireImages(layout, newLayout ImageLayout, imgs ...*Image) {
	var rest []*Image
	for _, img := range imgs {
		if img != nil && layout == newLayout && img.Layout() == LayoutUndefined {
			c.acquireImage(img, layout, newLayout)
			continue
		}
		rest = append(rest, img)
	}
	c.imageBarriers("acquire from external", rest, layout, newLayout, fullDst, vk.QueueFamilyExternal, c.family())
}

// imageBarriers is imageBarrier for several distinct images in one barrier
// command (old: each image's remembered layout when ^0). An image listed
// twice fails the batch.
func (c *Commands) imageBarriers(what string, imgs []*Image, old, newLayout ImageLayout, m vk.MemoryBarrier, src, dst uint32) {
	if len(imgs) == 0 || !c.begin(what) {
		return
	}
	defer c.end()
	if newLayout == LayoutUndefined || newLayout == vk.ImageLayoutPreinitialized {
		c.fail(fmt.Errorf("vulkan: %s: an image cannot transition to layout %v", what, newLayout))
		return
	}
	rs := make([]*resource, len(imgs))
	barriers := make([]vk.ImageBarrier, len(imgs))
	for i, img := range imgs {
		if !c.checkImage(what, img) {
			return
		}
		for _, prev := range imgs[:i] {
			if prev == img {
				c.fail(fmt.Errorf("vulkan: %s: an image is listed twice", what))
				return
			}
		}
		from := old
		if from == ^ImageLayout(0) {
			from = img.Layout()
		}
		rs[i] = &img.resource
		barriers[i] = vk.ImageBarrier{
			MemoryBarrier: m,
			OldLayout:     uint32(from), NewLayout: uint32(newLayout),
			SrcFamily: src, DstFamily: dst,
			Image: img.h, Aspect: img.aspect,
			MipCount: vk.RemainingMipLevels, Layers: vk.RemainingArrayLayers,
		}
	}
	if !c.hold(what, rs...) {
		return
	}
	defer c.unhold(rs...)
	c.barrier(vk.Dependency{Images: barriers})
	for _, img := range imgs {
		c.setLayout(img, newLayout)
		if m == fullBarrier {
			c.synced(&img.resource)
		}
	}
}

// acquireImage is acquireImages for one image, which may need two
// barriers: the first acquisition of an image this device has not laid out
// yet (an imported one, in LayoutUndefined here) with layout equal to
// newLayout goes through a layout its usage allows and back (both
// content-preserving transitions): with synchronization2 a barrier whose
// old and new layouts are equal is no layout transition, and the
// validation layer would keep believing the image UNDEFINED and report
// every later use of it in newLayout. Taking over an imported image's
// content needs the acquire from the exporter's layout; a transition from
// UNDEFINED would discard it.
func (c *Commands) acquireImage(img *Image, layout, newLayout ImageLayout) {
	const what = "acquire from external"
	if img != nil && layout == newLayout && img.Layout() == LayoutUndefined {
		if via, ok := adoptionLayout(img.opts.Usage, layout); ok {
			c.imageBarrier(what, img, layout, via, fullDst, vk.QueueFamilyExternal, c.family())
			c.imageBarrier(what, img, via, newLayout, fullBarrier, vk.QueueFamilyIgnored, vk.QueueFamilyIgnored)
			return
		}
	}
	c.imageBarrier(what, img, layout, newLayout, fullDst, vk.QueueFamilyExternal, c.family())
}

// adoptionLayout is a layout other than l that an image of usage u may be
// in, for acquireImage's first acquisition.
func adoptionLayout(u ImageUsage, l ImageLayout) (ImageLayout, bool) {
	for _, c := range []struct {
		usage  ImageUsage
		layout ImageLayout
	}{{ImageTransferSrc, LayoutTransferSrc}, {ImageTransferDst, LayoutTransferDst}, {ImageSampled, LayoutShaderReadOnly}} {
		if u&c.usage != 0 && c.layout != l {
			return c.layout, true
		}
	}
	return 0, false
}

func (c *Commands) family() uint32 {
	if c == nil || c.d == nil {
		return 0
	}
	return c.d.family
}

// bufferBarrier records an ownership transfer of the whole of each of bs,
// all in one barrier command.
func (c *Commands) bufferBarrier(what string, bs []*Buffer, m vk.MemoryBarrier, src, dst uint32) {
	if len(bs) == 0 || !c.begin(what) {
		return
	}
	defer c.end()
	rs := make([]*resource, len(bs))
	barriers := make([]vk.BufferBarrier, len(bs))
	for i, b := range bs {
		if !c.checkBuffer(what, b, 0) {
			return
		}
		rs[i] = &b.resource
		barriers[i] = vk.BufferBarrier{MemoryBarrier: m, SrcFamily: src, DstFamily: dst, Buffer: b.h, Size: vk.WholeSize}
	}
	if !c.hold(what, rs...) {
		return
	}
	defer c.unhold(rs...)
	c.barrier(vk.Dependency{Buffers: barriers})
}

// releaseBuffers records the release of the whole of each of bs from the
// device's queue family to VK_QUEUE_FAMILY_EXTERNAL, after every earlier
// write, in one barrier command (GPUs may pay per barrier command, not per
// buffer). Not exported: see releaseImages.
func (c *Commands) releaseBuffers(bs ...*Buffer) {
	c.bufferBarrier("release to external", bs, fullSrc, c.family(), vk.QueueFamilyExternal)
}

// acquireBuffers records the acquisition of each of bs from
// VK_QUEUE_FAMILY_EXTERNAL, before every later command, in one barrier
// command. Not exported: see releaseImages.
func (c *Commands) acquireBuffers(bs ...*Buffer) {
	c.bufferBarrier("acquire from external", bs, fullDst, vk.QueueFamilyExternal, c.family())
}

// SemaphoreValue is a semaphore and, for a timeline semaphore, a value.
type SemaphoreValue struct {
	Semaphore *Semaphore
	Value     uint64 // ignored for binary semaphores
}

// SubmitOptions are the semaphores a submission waits for before its
// commands run, and signals after they finish.
type SubmitOptions struct {
	Wait   []SemaphoreValue
	Signal []SemaphoreValue
}

// Submit ends recording and submits the batch to the device's queue in
// one vkQueueSubmit2 (vkQueueSubmit without synchronization2), waiting for
// and signalling o's semaphores at their values, and returns without
// waiting for it to run: Wait does that. A batch that recorded dispatches,
// copies or fills since its last full barrier ends with one, so that its
// writes are visible to later batches and to the host.
//
// The batch's signals happen after every batch submitted to the device
// before it has finished, as Vulkan orders signals on one queue: a batch
// must not wait for a value that only a batch submitted after it on the
// same device signals (that deadlocks). Values signalled by the host, CUDA
// or other devices may come at any time. It returns the first recording
// error instead of submitting, and ErrClosed if an object the batch uses
// was closed since it was recorded. Buffers, images and semaphores the
// batch uses wait for it when closed.
func (c *Commands) Submit(o SubmitOptions) error {
	if c == nil || c.d == nil || !c.life.acquire() {
		return ErrClosed
	}
	defer c.life.release()
	switch {
	case c.err != nil:
		return c.err
	case c.state == cmdSubmitted:
		return errors.New("vulkan: Submit: the batch was submitted already; Wait and Reset (or Reuse) it first")
	case c.state != cmdRecording && c.state != cmdExecutable:
		return errors.New("vulkan: Submit: the batch failed to submit; Reset it")
	}
	d := c.d
	if err := d.acquire(); err != nil {
		return err
	}
	defer d.life.release()
	for r := range c.refs {
		if err := r.guarded("Submit", c); err != nil {
			return err
		}
	}
	if err := c.checkLayouts(); err != nil {
		return err
	}

	held := c.held[:0]
	defer func() {
		c.unhold(held...)
		clear(held)
		c.held = held[:0]
	}()
	for r := range c.refs {
		if !r.life.acquire() {
			c.fail(fmt.Errorf("vulkan: Submit: an object the batch uses: %w", ErrClosed))
			return c.err
		}
		held = append(held, r)
	}
	sems := func(list []SemaphoreValue) ([]vk.SemaphoreSubmit, error) {
		if len(list) == 0 {
			return nil, nil
		}
		out := make([]vk.SemaphoreSubmit, 0, len(list)+1)
		for _, sv := range list {
			s := sv.Semaphore
			switch {
			case s == nil || s.d == nil:
				return nil, errors.New("vulkan: Submit: nil semaphore")
			case s.d != d:
				return nil, errors.New("vulkan: Submit: semaphore of another device")
			case !s.life.acquire():
				return nil, fmt.Errorf("vulkan: Submit: semaphore: %w", ErrClosed)
			}
			held = append(held, &s.resource)
			out = append(out, vk.SemaphoreSubmit{Semaphore: s.h, Value: sv.Value, Stage: vk.PipelineStage2AllCommands})
		}
		return out, nil
	}
	wait, err := sems(o.Wait)
	if err != nil {
		return err
	}
	signal, err := sems(o.Signal)
	if err != nil {
		return err
	}
	if c.state == cmdRecording {
		c.finish()
		if err := d.raw.EndCommandBuffer(c.cb); err != nil {
			c.state = cmdBroken
			return fmt.Errorf("vulkan: Submit: %w", err)
		}
		c.state = cmdExecutable
	}

	d.mu.Lock()
	if err := c.checkLayouts(); err != nil { // again, in submission order
		d.mu.Unlock()
		return err // the batch stays executable: submit the earlier batch first
	}
	serial := d.serial + 1
	if len(wait) == 0 && len(signal) == 0 {
		err = d.raw.SubmitOne(d.queue, c.cb, d.timeline, serial, d.sync2)
	} else {
		signal = append(signal, vk.SemaphoreSubmit{Semaphore: d.timeline, Value: serial, Stage: vk.PipelineStage2AllCommands})
		info := vk.SubmitInfo{Wait: wait, CommandBuffers: []vk.CommandBuffer{c.cb}, Signal: signal}
		if d.sync2 {
			err = d.raw.QueueSubmit2(d.queue, info)
		} else {
			err = d.raw.QueueSubmit(d.queue, info, true)
		}
	}
	if err == nil {
		d.serial = serial
		for _, r := range held {
			r.lastUse.Store(serial)
			if r.alias != nil {
				r.alias.Store(serial)
			}
		}
		for img, l := range c.after {
			img.submitted.Store(uint32(l))
		}
	}
	d.mu.Unlock()
	if err != nil {
		c.state = cmdBroken
		return fmt.Errorf("vulkan: Submit: %w", err)
	}
	c.state, c.serial = cmdSubmitted, serial
	// The layouts are the submitted ones now: nothing to restore. start
	// and after stay for Reuse.
	clear(c.layouts)
	return nil
}

// Reuse makes a submitted batch that has finished ready to be submitted
// again exactly as recorded, without recording it anew: the next Submit
// submits the same command buffer, with the same descriptor sets, after
// the same checks (guards, image layouts, closed objects). Nothing can be
// recorded into a reused batch; Reset it to record another. A batch that
// leaves an image in another layout than it found it cannot be reused
// (its barriers name the layout it found), nor one still running.
func (c *Commands) Reuse() error {
	if c == nil || c.d == nil || !c.life.acquire() {
		return ErrClosed
	}
	defer c.life.release()
	switch c.state {
	case cmdExecutable:
		return nil
	case cmdSubmitted:
	default:
		return errors.New("vulkan: Reuse: the batch was not submitted")
	}
	v, err := c.d.completed()
	if err != nil {
		return err
	}
	if v < c.serial {
		return errors.New("vulkan: Reuse: the batch is still executing; Wait for it first")
	}
	for img, l := range c.after {
		if c.start[img] != l {
			return fmt.Errorf("vulkan: Reuse: the batch moves an image from layout %v to %v; Reset it and record again", c.start[img], l)
		}
	}
	c.state = cmdExecutable
	return nil
}

// restoreLayouts gives the images whose layout an unsubmitted batch changed
// their layouts from before the batch.
func (c *Commands) restoreLayouts() {
	for img, l := range c.layouts {
		img.layout.Store(uint32(l))
	}
	clear(c.layouts)
	clear(c.start)
	clear(c.after)
}

// Wait waits on the host until the submitted batch has finished. A
// negative timeout waits without limit; when the timeout passes the error
// wraps ErrTimeout. It returns ErrClosed if the batch or its device is
// closed meanwhile.
func (c *Commands) Wait(timeout time.Duration) error {
	if c == nil || c.d == nil || !c.life.acquire() {
		return ErrClosed
	}
	defer c.life.release()
	if c.state != cmdSubmitted {
		return errors.New("vulkan: Wait: the batch was not submitted")
	}
	// First poll the timeline for a moment, then block for up to one
	// slice, in one call into C: short batches end here.
	d := c.d
	spin, wait := waitSpin(), d.raw.WaitTimeline
	if d.pd.Type == DeviceTypeCPU {
		spin, wait = cpuWaitSpin(), d.raw.WaitTimelineYielding
	}
	first := waitSlice
	if timeout >= 0 {
		spin, first = min(spin, timeout), min(first, max(timeout-spin, 0))
	}
	t := time.Now()
	switch r := wait(d.timeline, c.serial, uint64(spin.Nanoseconds()), uint64(first.Nanoseconds())); r {
	case vk.Success:
		return nil
	case vk.Timeout:
	default:
		return fmt.Errorf("vulkan: vkWaitSemaphores: %w", r)
	}
	if timeout >= 0 {
		if timeout -= time.Since(t); timeout <= 0 {
			return fmt.Errorf("vulkan: waiting for value %d: %w", c.serial, ErrTimeout)
		}
	}
	return d.waitTimeline(d.timeline, c.serial, timeout, func() bool { return c.life.isClosing() || d.life.isClosing() })
}

// defaultWaitSpin is how long Wait polls a GPU's timeline before blocking
// in vkWaitSemaphores, whose wake-up costs more than a short batch takes
// to run. GFXCUDA_WAIT_SPIN_US overrides it (0: never poll), for CPU
// devices too.
const defaultWaitSpin = 200 * time.Microsecond

// defaultCPUWaitSpin is the poll of a CPU device's (lavapipe's) timeline:
// shorter, and yielding the core between polls, since the device's work
// runs on the cores the poll takes. It still saves the blocking wait's
// wake-up: a waited dispatch(1,1,1) on lavapipe (2 cores) takes about
// 50 us instead of 80 (python/bench/compushady_side.py).
const defaultCPUWaitSpin = 100 * time.Microsecond

var (
	waitSpin    = sync.OnceValue(func() time.Duration { return spinFromEnv(defaultWaitSpin) })
	cpuWaitSpin = sync.OnceValue(func() time.Duration { return spinFromEnv(defaultCPUWaitSpin) })
)

// spinFromEnv is GFXCUDA_WAIT_SPIN_US when it is set to a number of
// microseconds (0 or more), else def.
func spinFromEnv(def time.Duration) time.Duration {
	if v, err := strconv.Atoi(os.Getenv("GFXCUDA_WAIT_SPIN_US")); err == nil && v >= 0 {
		return time.Duration(v) * time.Microsecond
	}
	return def
}

// Serial returns the batch's number in its device's submission order,
// which Submit gave it (the device's first batch is 1, each later one the
// next); 0 before Submit and after Reset. Device.Completed and
// Device.WaitCompleted take it, so that code which hands the batch on (to
// a Pool, to Reset) can still tell when it has finished: take it after
// Submit, before handing the batch on.
func (c *Commands) Serial() uint64 {
	if c == nil {
		return 0
	}
	return c.serial
}

// Done reports whether the submitted batch has finished.
func (c *Commands) Done() bool {
	if c == nil || c.d == nil || !c.life.acquire() {
		return false
	}
	defer c.life.release()
	if c.state != cmdSubmitted {
		return false
	}
	v, err := c.d.completed()
	return err == nil && v >= c.serial
}

// Reset empties the batch for recording anew, clearing its error. A
// submitted batch must have finished (see Wait); a batch not submitted is
// discarded.
func (c *Commands) Reset() error {
	if c == nil || c.d == nil || !c.life.acquire() {
		return ErrClosed
	}
	defer c.life.release()
	if c.state == cmdSubmitted {
		v, err := c.d.completed()
		if err != nil {
			return err
		}
		if v < c.serial {
			return errors.New("vulkan: Reset: the batch is still executing; Wait for it first")
		}
	}
	c.restoreLayouts()
	if err := c.resetCompute(); err != nil {
		c.state = cmdBroken
		return fmt.Errorf("vulkan: Reset: %w", err)
	}
	if err := c.d.raw.ResetCommandPool(c.pool); err != nil {
		c.state = cmdBroken
		return fmt.Errorf("vulkan: Reset: %w", err)
	}
	if err := c.d.raw.BeginCommandBuffer(c.cb, false); err != nil {
		c.state = cmdBroken
		return fmt.Errorf("vulkan: Reset: %w", err)
	}
	clear(c.refs)
	c.err, c.state, c.serial = nil, cmdRecording, 0
	return nil
}

// Close waits for the submitted batch to finish, then frees the command
// buffer and its pool. Close is idempotent and returns nil.
func (c *Commands) Close() error {
	if c == nil || c.d == nil {
		return nil
	}
	c.d.closeChild(&c.life, c.free)
	return nil
}

func (c *Commands) closeOrder() int { return orderCommands }
func (c *Commands) destroy()        { c.life.shut(c.free) }

func (c *Commands) free() {
	d := c.d
	if c.state == cmdSubmitted {
		d.waitSerial(c.serial)
	}
	c.restoreLayouts()
	c.freeCompute()
	d.raw.DestroyCommandPool(c.pool)
	d.mu.Lock()
	delete(d.children, c)
	d.mu.Unlock()
}

// maxSpare bounds the idle batches a device keeps for Run.
const maxSpare = 4

// Run records a batch with record, submits it, and waits for it: the
// synchronous call for scripts and tests. If record returns an error, the
// batch is discarded and Run returns that error. The *Commands is valid
// only during the call to record. Batches come from the device's Pool.
func (d *Device) Run(record func(*Commands) error) error {
	return d.RunTimeout(-1, record)
}

// RunTimeout is Run with a limit on the host wait (negative: none); when it
// passes, the error wraps ErrTimeout and the batch may still run.
func (d *Device) RunTimeout(timeout time.Duration, record func(*Commands) error) error {
	c, err := d.pool.Get()
	if err != nil {
		return err
	}
	err = record(c)
	if err == nil {
		if err = c.Submit(SubmitOptions{}); err == nil {
			err = c.Wait(timeout)
		}
	}
	d.pool.Put(c)
	return err
}
