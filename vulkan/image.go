package vulkan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// ImageDim is the dimensionality of an image.
type ImageDim int

// Image dimensionalities.
const (
	Image1D ImageDim = 1
	Image2D ImageDim = 2
	Image3D ImageDim = 3
)

// String returns "1D", "2D" or "3D".
func (d ImageDim) String() string {
	if d >= Image1D && d <= Image3D {
		return fmt.Sprintf("%dD", int(d))
	}
	return fmt.Sprintf("ImageDim(%d)", int(d))
}

// vkType returns the VkImageType.
func (d ImageDim) vkType() uint32 {
	switch d {
	case Image1D:
		return vk.ImageType1D
	case Image3D:
		return vk.ImageType3D
	}
	return vk.ImageType2D
}

// ImageLayout is a VkImageLayout.
type ImageLayout uint32

// Image layouts (their Vulkan values).
const (
	LayoutUndefined       ImageLayout = vk.ImageLayoutUndefined
	LayoutGeneral         ImageLayout = vk.ImageLayoutGeneral
	LayoutColorAttachment ImageLayout = vk.ImageLayoutColorAttachmentOptimal
	LayoutShaderReadOnly  ImageLayout = vk.ImageLayoutShaderReadOnlyOptimal
	LayoutTransferSrc     ImageLayout = vk.ImageLayoutTransferSrcOptimal
	LayoutTransferDst     ImageLayout = vk.ImageLayoutTransferDstOptimal
)

// String returns the Vulkan name without its prefix, such as
// "TRANSFER_DST_OPTIMAL".
func (l ImageLayout) String() string {
	switch l {
	case LayoutUndefined:
		return "UNDEFINED"
	case LayoutGeneral:
		return "GENERAL"
	case LayoutColorAttachment:
		return "COLOR_ATTACHMENT_OPTIMAL"
	case LayoutShaderReadOnly:
		return "SHADER_READ_ONLY_OPTIMAL"
	case LayoutTransferSrc:
		return "TRANSFER_SRC_OPTIMAL"
	case LayoutTransferDst:
		return "TRANSFER_DST_OPTIMAL"
	case vk.ImageLayoutDepthStencilAttachmentOptimal:
		return "DEPTH_STENCIL_ATTACHMENT_OPTIMAL"
	case vk.ImageLayoutDepthStencilReadOnlyOptimal:
		return "DEPTH_STENCIL_READ_ONLY_OPTIMAL"
	case vk.ImageLayoutPreinitialized:
		return "PREINITIALIZED"
	}
	return fmt.Sprintf("ImageLayout(%d)", uint32(l))
}

// ImageOptions configures Device.NewImage. Zero sizes mean 1.
type ImageOptions struct {
	// Dim is Image1D, Image2D or Image3D; zero means Image2D.
	Dim ImageDim
	// Format is a VkFormat value (see FormatName).
	Format uint32
	// Width, Height, Depth and Layers are the extent in texels and the
	// number of array layers. 1D images have Height and Depth 1, 2D images
	// Depth 1, 3D images Layers 1.
	Width, Height, Depth, Layers uint32
	// Usage zero means sampled, storage, transfer source and destination,
	// and color (or depth/stencil) attachment, less what the format does
	// not support with optimal tiling on the device.
	Usage ImageUsage
	// Exportable makes the image a dedicated allocation that ExportFD can
	// export as an OPAQUE_FD file descriptor.
	Exportable bool
	// Import, when not nil, imports the image's memory from a file
	// descriptor, as a dedicated allocation; the other options must be the
	// exporter's. Exportable and Import exclude each other. See ImportFD
	// for who owns the descriptor.
	Import *ImportFD
	// Memory, when not nil, places the image in that memory (which must be
	// on HeapDefault) at byte Offset instead of giving it an allocation of
	// its own (errors wrap ErrPlacement). Excludes Exportable, Import and
	// Sparse.
	Memory *Memory
	Offset uint64
	// Sparse makes a sparse image: no memory at first; BindSparse binds
	// its blocks (Image.Sparse says their extent) to places in Memory
	// objects. It needs the device's sparseBinding and sparse residency
	// features for the image's type (errors wrap ErrUnsupported).
	Sparse bool
	// ViewFormats are other formats the image may be read or written as
	// (Binding.ImageFormat): colour formats of Format's texel size, each
	// with the sampled, storage and colour-attachment features Usage asks
	// for, whose views reinterpret the texels' bits — an RGBA8 image
	// viewed as R32_UINT gives each texel as one word (package
	// tensorconv's RecordTiles reads atlases so). The image is made with
	// VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT and a format list of Format and
	// these; an importer must give the exporter's list.
	ViewFormats []uint32
}

// Image is a VkImage of optimal tiling and one mip level, with its own
// memory allocation. It remembers its layout as commands recorded on it
// leave it (see Commands.TransitionImage). Its methods are safe for
// concurrent use.
type Image struct {
	resource
	d         *Device
	opts      ImageOptions
	h         vk.Image
	mem       vk.DeviceMemory
	allocSize uint64
	dedicated bool
	aspect    uint32
	layout    atomic.Uint32 // ImageLayout as of the last recorded command
	submitted atomic.Uint32 // ImageLayout after the last submitted batch

	viewMu sync.Mutex
	views  map[uint32]vk.ImageView // by format: its own and ViewFormats', each made on first use

	memory *Memory      // the Memory the image is placed in, or nil
	sparse *sparseState // nil unless Sparse
}

// NewImage creates an image and its memory: optimal tiling, one mip level,
// initial layout UNDEFINED. It first checks that the device supports the
// format with that usage, dimensionality, size and export or import
// (vkGetPhysicalDeviceImageFormatProperties2); if not, its error wraps
// ErrFormatNotSupported and names the format, the usage and the device.
func (d *Device) NewImage(o ImageOptions) (*Image, error) {
	fd := -1
	if o.Import != nil {
		fd = o.Import.FD
	}
	img, err := d.createImage(o)
	if err != nil {
		if img == nil || img.mem == 0 {
			closeFD(fd)
		}
		return nil, fmt.Errorf("vulkan: NewImage: %w", err)
	}
	return img, nil
}

// normalize fills in the defaults of o and checks its extent.
func (o *ImageOptions) normalize() error {
	if o.Dim == 0 {
		o.Dim = Image2D
	}
	for _, p := range []*uint32{&o.Width, &o.Height, &o.Depth, &o.Layers} {
		if *p == 0 {
			*p = 1
		}
	}
	switch {
	case o.Dim < Image1D || o.Dim > Image3D:
		return fmt.Errorf("unknown dimensionality %v", o.Dim)
	case o.Dim == Image1D && (o.Height != 1 || o.Depth != 1):
		return fmt.Errorf("1D image of height %d and depth %d", o.Height, o.Depth)
	case o.Dim == Image2D && o.Depth != 1:
		return fmt.Errorf("2D image of depth %d", o.Depth)
	case o.Dim == Image3D && o.Layers != 1:
		return fmt.Errorf("3D image of %d layers", o.Layers)
	case o.Exportable && o.Import != nil:
		return errors.New("both Exportable and Import")
	case o.Import != nil && o.Import.FD < 0:
		return fmt.Errorf("import of file descriptor %d: %w", o.Import.FD, ErrorInvalidExternalHandle)
	case o.Import != nil && o.Import.Size == 0:
		return errors.New("import: ImportFD.Size must be the exporter's allocation size")
	}
	return o.checkViewFormats()
}

// checkViewFormats checks o.ViewFormats: known colour formats of one
// texel a block, of Format's size, and drops Format and repeats from them.
func (o *ImageOptions) checkViewFormats() error {
	if len(o.ViewFormats) == 0 {
		o.ViewFormats = nil
		return nil
	}
	f := vkFormat(o.Format)
	size := f.blockSize()
	if w, h := f.blockExtent(); !f.known() || size == 0 || w != 1 || h != 1 || f.aspect() != vk.ImageAspectColor {
		return fmt.Errorf("ViewFormats: %v is not an uncompressed colour format: its views keep it", f)
	}
	var fs []uint32
	for _, v := range o.ViewFormats {
		vf := vkFormat(v)
		w, h := vf.blockExtent()
		switch {
		case !vf.known() || vf.aspect() != vk.ImageAspectColor || w != 1 || h != 1:
			return fmt.Errorf("ViewFormats: %v is not an uncompressed colour format", vf)
		case vf.blockSize() != size:
			return fmt.Errorf("ViewFormats: %v has %d-byte texels, %v %d-byte ones: a view keeps the texel size", vf, vf.blockSize(), f, size)
		case v == o.Format || slices.Contains(fs, v):
			continue
		}
		fs = append(fs, v)
	}
	o.ViewFormats = fs
	return nil
}

// viewable reports whether the image may be viewed as format f.
func (o *ImageOptions) viewable(f uint32) bool {
	return f == o.Format || slices.Contains(o.ViewFormats, f)
}

// createFlags are the VkImageCreateFlags of o's view formats.
func (o *ImageOptions) createFlags() uint32 {
	if len(o.ViewFormats) > 0 {
		return vk.CreateMutableFormat
	}
	return 0
}

// formatError returns an error wrapping ErrFormatNotSupported (and cause,
// if not nil) that names format, usage, what and the device.
func (d *Device) formatError(format vkFormat, usage ImageUsage, what string, cause error) error {
	msg := fmt.Sprintf("%v with usage %v %s on %s", format, usage, what, d.pd.Name)
	if cause != nil {
		return fmt.Errorf("%w: %s: %w", ErrFormatNotSupported, msg, cause)
	}
	return fmt.Errorf("%w: %s", ErrFormatNotSupported, msg)
}

// usageFeatures pairs each image usage with the format feature it needs
// (optimal tiling).
var usageFeatures = [...]struct {
	feat  uint32
	usage ImageUsage
}{
	{vk.FormatFeatureSampledImage, ImageSampled},
	{vk.FormatFeatureStorageImage, ImageStorage},
	{vk.FormatFeatureColorAttachment, ImageColorAttachment},
	{vk.FormatFeatureDepthStencilAttachment, ImageDepthStencilAttachment},
	{vk.FormatFeatureTransferSrc, ImageTransferSrc},
	{vk.FormatFeatureTransferDst, ImageTransferDst},
}

// viewUsages are the usages an image's views carry (what a view format
// of ImageOptions.ViewFormats must support).
const viewUsages = ImageSampled | ImageStorage | ImageColorAttachment

// defaultImageUsage returns what the format supports of the default usage.
func (d *Device) defaultImageUsage(format vkFormat) ImageUsage {
	f := d.inst.raw.FormatProperties(d.pd.h, uint32(format)).Optimal
	var u ImageUsage
	for _, x := range usageFeatures {
		if f&x.feat != 0 {
			u |= x.usage
		}
	}
	if f != 0 && !d.pd.effectiveAPI.AtLeast(1, 1) {
		// Vulkan 1.0 reports no transfer features: every format has them.
		u |= ImageTransferSrc | ImageTransferDst
	}
	return u
}

// checkImage checks that the device supports an image of o (normalized,
// Usage resolved).
func (d *Device) checkImage(o *ImageOptions) error {
	format := vkFormat(o.Format)
	if !format.known() {
		return d.formatError(format, o.Usage, "(unknown format)", nil)
	}
	if o.Usage == 0 {
		return d.formatError(format, o.Usage, "(no usage supported with optimal tiling)", nil)
	}
	external := o.Exportable || o.Import != nil
	var handle uint32
	what := "as a " + o.Dim.String() + " image"
	if external {
		if !d.raw.HasMemoryFD() {
			return d.fdUnsupported("OPAQUE_FD memory export and import", "VK_KHR_external_memory_fd missing")
		}
		handle = vk.ExternalMemoryHandleTypeOpaqueFD
		if o.Exportable {
			what = "as an exportable " + o.Dim.String() + " image"
		} else {
			what = "as an imported " + o.Dim.String() + " image"
		}
	}
	p, err := d.inst.raw.ImageFormatProperties(d.pd.h, vk.ImageFormatInfo{
		Format: uint32(o.Format),
		Type:   o.Dim.vkType(),
		Tiling: vk.ImageTilingOptimal,
		Usage:  uint32(o.Usage),
		Flags:  o.createFlags(),
	}, handle)
	if err != nil {
		return d.formatError(format, o.Usage, what, err)
	}
	if o.Width > p.MaxExtent[0] || o.Height > p.MaxExtent[1] || o.Depth > p.MaxExtent[2] {
		return d.formatError(format, o.Usage, fmt.Sprintf("%s of %dx%dx%d texels (maximum %dx%dx%d)", what,
			o.Width, o.Height, o.Depth, p.MaxExtent[0], p.MaxExtent[1], p.MaxExtent[2]), nil)
	}
	if o.Layers > p.MaxArrayLayers {
		return d.formatError(format, o.Usage, fmt.Sprintf("%s of %d layers (maximum %d)", what, o.Layers, p.MaxArrayLayers), nil)
	}
	// Each view format must have the features of the image's usages that
	// views carry (no VK_IMAGE_CREATE_EXTENDED_USAGE_BIT).
	for _, v := range o.ViewFormats {
		vf := d.inst.raw.FormatProperties(d.pd.h, v).Optimal
		for _, x := range usageFeatures {
			if x.usage&viewUsages != 0 && o.Usage&x.usage != 0 && vf&x.feat == 0 {
				return d.formatError(format, o.Usage, fmt.Sprintf("%s viewed as %v, which has no %v use on this device; leave %[3]v out of Usage or %[2]v out of ViewFormats",
					what, vkFormat(v), x.usage), nil)
			}
		}
	}
	switch {
	case o.Exportable && p.External.Features&vk.ExternalMemoryFeatureExportable == 0:
		return d.formatError(format, o.Usage, what+" (OPAQUE_FD export unsupported)", nil)
	case o.Import != nil && p.External.Features&vk.ExternalMemoryFeatureImportable == 0:
		return d.formatError(format, o.Usage, what+" (OPAQUE_FD import unsupported)", nil)
	}
	return nil
}

// ImageFormatSupported reports whether NewImage can make a 2D image of one
// texel of format with usage (zero: the default usage), exportable or not.
func (d *Device) ImageFormatSupported(format uint32, usage ImageUsage, exportable bool) bool {
	if d.acquire() != nil {
		return false
	}
	defer d.life.release()
	if !vkFormat(format).known() {
		return false
	}
	o := ImageOptions{Format: format, Usage: usage, Exportable: exportable}
	if o.normalize() != nil {
		return false
	}
	if o.Usage == 0 {
		o.Usage = d.defaultImageUsage(vkFormat(format))
	}
	return d.checkImage(&o) == nil
}

func (d *Device) createImage(o ImageOptions) (*Image, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	if err := o.normalize(); err != nil {
		return nil, err
	}
	if o.Usage == 0 && vkFormat(o.Format).known() {
		o.Usage = d.defaultImageUsage(vkFormat(o.Format))
	}
	if err := d.checkImage(&o); err != nil {
		return nil, err
	}
	imp, mem, off := o.Import, o.Memory, o.Offset
	o.Import, o.Memory, o.Offset = nil, nil, 0
	feats := &d.pd.features
	switch {
	case (mem != nil || o.Sparse) && (o.Exportable || imp != nil):
		return nil, errors.New("a placed or sparse image cannot be exportable or imported")
	case mem != nil && o.Sparse:
		return nil, errors.New("a sparse image is bound with BindSparse, not placed in a Memory")
	case o.Sparse && !d.SparseSupported():
		return nil, fmt.Errorf("%s: sparse images need the sparseBinding feature and a queue that binds sparse memory, which this device lacks: %w", d.pd.Name, ErrUnsupported)
	case o.Sparse && o.Dim == Image2D && !feats.SparseResidencyImage2D, o.Sparse && o.Dim == Image3D && !feats.SparseResidencyImage3D:
		return nil, fmt.Errorf("%s: sparse %v images need the sparseResidencyImage%[2]v feature, which this device lacks: %[3]w", d.pd.Name, o.Dim, ErrUnsupported)
	case o.Sparse && o.Dim == Image1D:
		return nil, fmt.Errorf("%s: sparse 1D images: Vulkan has no sparse residency for 1D images: %w", d.pd.Name, ErrUnsupported)
	}
	img := &Image{d: d, opts: o, aspect: vkFormat(o.Format).aspect()}
	external := o.Exportable || imp != nil
	info := vk.ImageCreateInfo{
		Type:        o.Dim.vkType(),
		Format:      uint32(o.Format),
		Extent:      [3]uint32{o.Width, o.Height, o.Depth},
		MipLevels:   1,
		ArrayLayers: o.Layers,
		Tiling:      vk.ImageTilingOptimal,
		Usage:       uint32(o.Usage),
	}
	if external {
		info.ExternalHandleTypes = vk.ExternalMemoryHandleTypeOpaqueFD
	}
	if len(o.ViewFormats) > 0 {
		info.Flags = o.createFlags()
		info.ViewFormats = append([]uint32{o.Format}, o.ViewFormats...)
	}
	if o.Sparse {
		info.Flags |= vk.CreateSparseBinding | vk.CreateSparseResidency
		if feats.SparseResidencyAliased {
			info.Flags |= vk.CreateSparseAliased
		}
	}
	var err error
	if img.h, err = d.raw.CreateImage(info); err != nil {
		if o.Sparse {
			return nil, d.formatError(vkFormat(o.Format), o.Usage, "as a sparse "+o.Dim.String()+" image", err)
		}
		return nil, err
	}
	req := d.raw.ImageMemoryRequirements(img.h)
	if o.Sparse || mem != nil {
		return d.placeImage(img, req, mem, off, info.Flags)
	}
	img.allocSize = req.Size
	ai := vk.MemoryAllocateInfo{Size: req.Size}
	if o.Exportable {
		ai.ExportHandleTypes = vk.ExternalMemoryHandleTypeOpaqueFD
	}
	if imp != nil {
		if imp.Size != req.Size {
			// A dedicated allocation has exactly the image's size
			// (VUID-VkMemoryDedicatedAllocateInfo-image-01433).
			d.raw.DestroyImage(img.h)
			return nil, fmt.Errorf("import: allocation size %d differs from the %d bytes the image needs: the exporter's image was not made with the same options", imp.Size, req.Size)
		}
		img.allocSize = imp.Size
		ai.Size = imp.Size
		ai.ImportHandleType = vk.ExternalMemoryHandleTypeOpaqueFD
		ai.ImportFD = imp.FD
	}
	img.dedicated = (external || req.RequiresDedicated || req.PrefersDedicated) && d.pd.effectiveAPI.AtLeast(1, 1)
	if img.dedicated {
		ai.DedicatedImage = img.h
	}
	t, err := chooseMemoryType(d.pd.MemoryTypes, req.MemoryTypeBits, HeapDefault)
	if err != nil {
		d.raw.DestroyImage(img.h)
		return nil, fmt.Errorf("%s: %w", d.pd.Name, err)
	}
	ai.TypeIndex = uint32(t)
	if img.mem, err = d.raw.AllocateMemory(ai); err != nil {
		d.raw.DestroyImage(img.h)
		return nil, fmt.Errorf("%d bytes of %v memory: %w", ai.Size, d.pd.MemoryTypes[t].Flags, err)
	}
	if err := d.raw.BindImageMemory(img.h, img.mem, 0); err != nil {
		img.free()
		return img, err
	}
	d.register(img)
	return img, nil
}

func (i *Image) acquire() error {
	if i == nil || i.d == nil || !i.life.acquire() {
		return ErrClosed
	}
	return nil
}

// Options returns the options the image was created with, defaults filled
// in (Usage resolved) and Import cleared.
func (i *Image) Options() ImageOptions {
	o := i.opts
	o.ViewFormats = slices.Clone(o.ViewFormats)
	return o
}

// AllocationSize is the size of the image's memory allocation: what an
// importer of its exported file descriptor must be told.
func (i *Image) AllocationSize() uint64 { return i.allocSize }

// Dedicated reports whether the image's memory is a dedicated allocation.
func (i *Image) Dedicated() bool { return i.dedicated }

// Layout is the layout the image is left in by the commands recorded on it
// so far (LayoutUndefined at creation).
func (i *Image) Layout() ImageLayout { return ImageLayout(i.layout.Load()) }

// Submitted is the layout the batches submitted so far leave the image in
// (the layout it will be in once they have run).
func (i *Image) Submitted() ImageLayout { return ImageLayout(i.submitted.Load()) }

// handle returns the VkImage, for code of this package; use it while the
// image is acquired.
func (i *Image) handle() vk.Image { return i.h }

// ExportFD exports the image's memory as a new OPAQUE_FD file descriptor,
// which the caller owns. The image must have been created Exportable.
func (i *Image) ExportFD() (int, error) {
	if err := i.acquire(); err != nil {
		return -1, err
	}
	defer i.life.release()
	if !i.opts.Exportable {
		return -1, errors.New("vulkan: ExportFD: the image was not created Exportable")
	}
	fd, err := i.d.raw.MemoryFD(i.mem, vk.ExternalMemoryHandleTypeOpaqueFD)
	if err != nil {
		return -1, fmt.Errorf("vulkan: ExportFD: %w", err)
	}
	return fd, nil
}

// viewHandle returns the image's default view, made on first use: the
// whole image, as 1D, 2D or 3D, or as a 1D or 2D array when the image has
// several layers. The image needs a sampled, storage or attachment usage.
// Call it while the image is acquired; the image destroys the view.
func (i *Image) viewHandle() (vk.ImageView, error) { return i.viewAs(0) }

// viewAs is viewHandle of the image viewed as format f (one of its
// ViewFormats; 0 or its own format: the default view).
func (i *Image) viewAs(f uint32) (vk.ImageView, error) {
	if f == 0 {
		f = i.opts.Format
	}
	i.viewMu.Lock()
	defer i.viewMu.Unlock()
	if v := i.views[f]; v != 0 {
		return v, nil
	}
	if !i.opts.viewable(f) {
		return 0, fmt.Errorf("vulkan: image view as %v: the image's ViewFormats (%s) lack it", vkFormat(f), i.viewFormatNames())
	}
	if i.opts.Usage&(ImageSampled|ImageStorage|ImageColorAttachment|ImageDepthStencilAttachment) == 0 {
		return 0, fmt.Errorf("vulkan: image view: usage %v has no sampled, storage or attachment bit", i.opts.Usage)
	}
	vt := uint32(vk.ImageViewType2D)
	switch {
	case i.opts.Dim == Image1D && i.opts.Layers > 1:
		vt = vk.ImageViewType1DArray
	case i.opts.Dim == Image1D:
		vt = vk.ImageViewType1D
	case i.opts.Dim == Image2D && i.opts.Layers > 1:
		vt = vk.ImageViewType2DArray
	case i.opts.Dim == Image3D:
		vt = vk.ImageViewType3D
	}
	aspect := i.aspect
	if aspect&vk.ImageAspectDepth != 0 {
		aspect = vk.ImageAspectDepth // a sampled view has one aspect
	}
	v, err := i.d.raw.CreateImageView(vk.ImageViewCreateInfo{
		Image: i.h, ViewType: vt, Format: f, Aspect: aspect,
		MipCount: 1, LayerCount: i.opts.Layers,
	})
	if err != nil {
		return 0, fmt.Errorf("vulkan: %w", err)
	}
	if i.views == nil {
		i.views = map[uint32]vk.ImageView{}
	}
	i.views[f] = v
	return v, nil
}

// viewFormatNames names the image's ViewFormats, or says it has none.
func (i *Image) viewFormatNames() string {
	if len(i.opts.ViewFormats) == 0 {
		return "none"
	}
	ns := make([]string, len(i.opts.ViewFormats))
	for k, f := range i.opts.ViewFormats {
		ns[k] = vkFormat(f).String()
	}
	return strings.Join(ns, ", ")
}

// Close waits for the batches submitted through Commands that use the
// image, then destroys it, its view and its memory. Close is idempotent
// and returns nil.
func (i *Image) Close() error {
	if i == nil || i.d == nil {
		return nil
	}
	i.d.closeChild(&i.life, i.free)
	return nil
}

func (i *Image) closeOrder() int { return orderImage }
func (i *Image) destroy()        { i.life.shut(i.free) }

func (i *Image) free() {
	i.d.waitSerial(i.used())
	i.viewMu.Lock()
	for _, v := range i.views {
		i.d.raw.DestroyImageView(v)
	}
	i.views = nil
	i.viewMu.Unlock()
	i.d.raw.DestroyImage(i.h)
	if i.memory != nil || i.sparse != nil {
		if i.memory != nil {
			i.memory.unref()
		}
		i.sparse.release()
	} else {
		i.d.raw.FreeMemory(i.mem)
	}
	i.d.unregister(i)
}

// Filter is a VkFilter: how a sampler filters texels.
type Filter int

// Filters.
const (
	FilterNearest Filter = vk.FilterNearest
	FilterLinear  Filter = vk.FilterLinear
)

// AddressMode is a VkSamplerAddressMode: what a sampler reads outside
// [0, 1).
type AddressMode int

// Address modes.
const (
	AddressRepeat         AddressMode = vk.SamplerAddressModeRepeat
	AddressMirroredRepeat AddressMode = vk.SamplerAddressModeMirroredRepeat
	AddressClampToEdge    AddressMode = vk.SamplerAddressModeClampToEdge
	// AddressClampToBorder reads transparent black.
	AddressClampToBorder AddressMode = vk.SamplerAddressModeClampToBorder
)

// SamplerOptions configures Device.NewSampler.
type SamplerOptions struct {
	Filter  Filter      // minification and magnification
	Address AddressMode // in every direction
	// PerAxis uses MinFilter, MagFilter and AddressU, V, W instead of
	// Filter and Address.
	PerAxis                      bool
	MinFilter, MagFilter         Filter
	AddressU, AddressV, AddressW AddressMode
}

// Sampler is a VkSampler with normalized coordinates.
type Sampler struct {
	resource
	d    *Device
	opts SamplerOptions
	h    vk.Sampler
}

// NewSampler creates a sampler.
func (d *Device) NewSampler(o SamplerOptions) (*Sampler, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	given := o
	if !o.PerAxis {
		o.MinFilter, o.MagFilter = o.Filter, o.Filter
		o.AddressU, o.AddressV, o.AddressW = o.Address, o.Address, o.Address
	}
	for _, f := range []Filter{o.MinFilter, o.MagFilter} {
		if f != FilterNearest && f != FilterLinear {
			return nil, fmt.Errorf("vulkan: NewSampler: unknown filter %d", f)
		}
	}
	for _, a := range []AddressMode{o.AddressU, o.AddressV, o.AddressW} {
		if a < AddressRepeat || a > AddressClampToBorder {
			return nil, fmt.Errorf("vulkan: NewSampler: unknown address mode %d", a)
		}
	}
	mip := uint32(vk.SamplerMipmapModeNearest)
	if o.MinFilter == FilterLinear {
		mip = vk.SamplerMipmapModeLinear
	}
	h, err := d.raw.CreateSampler(vk.SamplerCreateInfo{
		MagFilter: uint32(o.MagFilter), MinFilter: uint32(o.MinFilter), MipmapMode: mip,
		AddressU: uint32(o.AddressU), AddressV: uint32(o.AddressV), AddressW: uint32(o.AddressW),
		BorderColor: vk.BorderColorFloatTransparentBlack,
		MaxLod:      1000, // VK_LOD_CLAMP_NONE
	})
	if err != nil {
		return nil, fmt.Errorf("vulkan: NewSampler: %w", err)
	}
	s := &Sampler{d: d, opts: given, h: h}
	d.register(s)
	return s, nil
}

// Options returns the options the sampler was created with.
func (s *Sampler) Options() SamplerOptions { return s.opts }

// handle returns the VkSampler, for code of this package.
func (s *Sampler) handle() vk.Sampler { return s.h }

func (s *Sampler) acquire() error {
	if s == nil || s.d == nil || !s.life.acquire() {
		return ErrClosed
	}
	return nil
}

// Close waits for the batches submitted through Commands that use the
// sampler, then destroys it. Close is idempotent and returns nil.
func (s *Sampler) Close() error {
	if s == nil || s.d == nil {
		return nil
	}
	s.d.closeChild(&s.life, s.free)
	return nil
}

func (s *Sampler) closeOrder() int { return orderSampler }
func (s *Sampler) destroy()        { s.life.shut(s.free) }

func (s *Sampler) free() {
	s.d.waitSerial(s.lastUse.Load())
	s.d.raw.DestroySampler(s.h)
	s.d.unregister(s)
}
