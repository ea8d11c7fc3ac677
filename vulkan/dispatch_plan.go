package vulkan

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/vk"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// plan checks bindings against p's shader, makes (or finds) their
// descriptor sets, records the image layout transitions they need, and
// makes the result the batch's memo (dispatchPlan). It reports whether
// it succeeded; otherwise the batch has failed.
//
// Its steps, in order: resolve the bindings to the shader's descriptors
// (planner.resolve); check each against its descriptor and collect what
// the dispatch holds, reads and writes, the image layouts and the format
// patches (planner.check); hold those resources while the rest runs;
// settle the final layouts and the pipeline variant; write or reuse the
// descriptor sets (planner.descriptorSets); record the layout transitions
// (Commands.transitionLayouts); store the memo (planner.memo).
func (c *Commands) plan(what string, p *Pipeline, bindings []Binding) bool {
	pl := &planner{c: c, what: what, p: p,
		layouts: map[*Image]ImageLayout{}, patch: map[uint32]uint32{}, patchBy: map[uint32]string{}}
	if !pl.resolve(bindings) || !pl.check() {
		return false
	}
	if !c.hold(what, pl.held...) {
		return false
	}
	defer c.unhold(pl.held...)

	// Final layouts: images already GENERAL stay so for sampling.
	for img, l := range pl.layouts {
		if l == LayoutShaderReadOnly && img.Layout() == LayoutGeneral {
			pl.layouts[img] = LayoutGeneral
		}
	}
	pipe, err := p.variant(pl.patch, pl.caps...)
	if err != nil {
		pl.failf("%v", err)
		return false
	}
	sets, ok := pl.descriptorSets()
	if !ok {
		return false
	}
	c.transitionLayouts(pl.layouts)
	pl.memo(bindings, pipe, sets)
	return true
}

// slotKey names one descriptor of a pipeline: a resource (an index into
// Pipeline.res) and an element of its array.
type slotKey struct {
	res  int
	elem uint32
}

// planner is the working state of one Commands.plan: the bindings
// resolved to descriptors and, once checked, what the dispatch holds,
// reads and writes, the layouts its images need and the format patches
// its pipeline variant needs.
type planner struct {
	c    *Commands
	what string
	p    *Pipeline

	slots map[slotKey]*bound // resolve: the descriptor each binding fills

	held     []*resource            // check: resources the dispatch holds
	accesses []acc                  // check: how it reads and writes them
	layouts  map[*Image]ImageLayout // check: the layout each image needs
	patch    map[uint32]uint32      // check: format patches of the shader
	patchBy  map[uint32]string      // check: which binding asked for each patch
	caps     []uint32               // check: capabilities the patches need
}

// failf fails the batch with an error about the dispatch.
func (pl *planner) failf(format string, a ...any) {
	pl.c.fail(fmt.Errorf("vulkan: %s: "+format, append([]any{pl.what}, a...)...))
}

// resolve finds the descriptor each binding fills (by name, or by set and
// binding), and checks that no descriptor is bound twice and that every
// one the shader uses is bound (partially bound arrays excepted).
func (pl *planner) resolve(bindings []Binding) bool {
	p := pl.p
	pl.slots = map[slotKey]*bound{}
	for i := range bindings {
		b := &bindings[i]
		ri := -1
		if b.Name != "" {
			if j, ok := p.names[b.Name]; ok {
				ri = j
			}
		} else {
			for j := range p.res {
				if p.res[j].Set == b.Set && p.res[j].Binding == b.Binding {
					ri = j
					break
				}
			}
		}
		if ri < 0 {
			pl.failf("binding %v: the shader has no resource there; it has %s", b, p.resourceList())
			return false
		}
		r := &p.res[ri]
		if b.Element >= r.ArraySize {
			pl.failf("binding %v: element %d of %s, which has %d", b, b.Element, describe(r), r.ArraySize)
			return false
		}
		k := slotKey{ri, b.Element}
		if prev, dup := pl.slots[k]; dup {
			pl.failf("%s is bound twice (as %v and as %v)", describe(r), prev.b, b)
			return false
		}
		pl.slots[k] = &bound{res: ri, b: b}
	}
	var missing []string
	for ri := range p.res {
		r := &p.res[ri]
		if p.partial[ri] {
			continue // bindless: unbound elements are allowed
		}
		for e := range r.ArraySize {
			if _, ok := pl.slots[slotKey{ri, e}]; !ok {
				m := describe(r)
				if r.ArraySize > 1 {
					m += fmt.Sprintf(" element %d", e)
				}
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 {
		pl.failf("nothing is bound to %s; bind every resource the shader uses, by set and binding or by name", strings.Join(missing, ", "))
		return false
	}
	return true
}

// check checks each resolved binding against its descriptor, in resource
// and element order (so the first error reported does not depend on map
// order), and collects what the dispatch holds, reads and writes, the
// image layouts and the format patches.
func (pl *planner) check() bool {
	order := make([]*bound, 0, len(pl.slots))
	for _, s := range pl.slots {
		order = append(order, s)
	}
	slices.SortFunc(order, func(a, b *bound) int {
		if a.res != b.res {
			return a.res - b.res
		}
		return int(a.b.Element) - int(b.b.Element)
	})
	for _, s := range order {
		if !pl.checkBinding(s) {
			return false
		}
	}
	return true
}

// checkBinding checks that s binds the kinds of object its descriptor
// takes (buffer, image, sampler), then checks each object.
func (pl *planner) checkBinding(s *bound) bool {
	r := &pl.p.res[s.res]
	b := s.b
	bad := pl.badf(s)
	mode := accRead
	if !r.ReadOnly {
		mode |= accWrite
	}
	wantBuffer, wantImage, wantSampler := false, false, false
	switch r.Kind {
	case spirv.UniformBuffer, spirv.StorageBuffer, spirv.UniformTexelBuffer, spirv.StorageTexelBuffer:
		wantBuffer = true
	case spirv.StorageImage, spirv.SampledImage:
		wantImage = true
	case spirv.Sampler:
		wantSampler = true
	case spirv.CombinedImageSampler:
		wantImage, wantSampler = true, true
	}
	switch {
	case wantBuffer && b.Buffer == nil:
		bad("needs a buffer")
		return false
	case wantImage && b.Image == nil:
		bad("needs an image")
		return false
	case wantSampler && b.Sampler == nil:
		bad("needs a sampler")
		return false
	case !wantBuffer && b.Buffer != nil:
		bad("takes no buffer")
		return false
	case !wantImage && b.Image != nil:
		bad("takes no image")
		return false
	case !wantSampler && b.Sampler != nil:
		bad("takes no sampler")
		return false
	case b.ImageFormat != 0 && b.Image == nil:
		bad("ImageFormat is for images")
		return false
	}
	if b.Buffer != nil && !pl.checkBuffer(s, mode) {
		return false
	}
	if b.Image != nil && !pl.checkImage(s, mode) {
		return false
	}
	if b.Sampler != nil && !pl.checkSampler(s) {
		return false
	}
	return true
}

// badf returns the failf of errors about binding s: they name its
// descriptor and the binding.
func (pl *planner) badf(s *bound) func(format string, a ...any) {
	r := &pl.p.res[s.res]
	return func(format string, a ...any) {
		pl.failf("%s, bound as %v: "+format, append([]any{describe(r), s.b}, a...)...)
	}
}

// checkBuffer checks s's buffer (device, usage, offset, alignment, range
// against the device's limits and the shader's block) and, for a texel
// buffer, its texel format; it sets s.rng (and s.format) and records the
// buffer as held and accessed with mode.
func (pl *planner) checkBuffer(s *bound, mode uint8) bool {
	d, p := pl.c.d, pl.p
	lim := &d.pd.Limits
	r := &p.res[s.res]
	b := s.b
	bad := pl.badf(s)
	buf := b.Buffer
	var usage BufferUsage
	var align uint64
	var maxRange uint64
	switch r.Kind {
	case spirv.UniformBuffer:
		usage, align, maxRange = BufferUniform, lim.MinUniformBufferOffsetAlignment, uint64(lim.MaxUniformBufferRange)
	case spirv.StorageBuffer:
		usage, align, maxRange = BufferStorage, lim.MinStorageBufferOffsetAlignment, uint64(lim.MaxStorageBufferRange)
	case spirv.UniformTexelBuffer:
		usage, align = BufferUniformTexel, lim.MinTexelBufferOffsetAlignment
	case spirv.StorageTexelBuffer:
		usage, align = BufferStorageTexel, lim.MinTexelBufferOffsetAlignment
	}
	switch {
	case buf.d == nil:
		bad("nil buffer")
		return false
	case buf.d != d:
		bad("buffer of another device")
		return false
	case buf.usage&usage == 0:
		bad("the buffer's usage %v lacks %v", buf.usage, usage)
		return false
	case b.Offset >= buf.size:
		bad("offset %d is outside the %d-byte buffer", b.Offset, buf.size)
		return false
	case align > 1 && b.Offset%align != 0:
		bad("offset %d is not a multiple of %s's offset alignment %d", b.Offset, d.pd.Name, align)
		return false
	case b.Range > 0 && b.Range > buf.size-b.Offset:
		bad("bytes [%d, %d) lie outside the %d-byte buffer", b.Offset, b.Offset+b.Range, buf.size)
		return false
	case b.TexelFormat != 0 && usage&bufferTexel == 0:
		bad("TexelFormat is for texel buffers")
		return false
	}
	rng := b.Range
	if rng == 0 {
		rng = buf.size - b.Offset
		if r.Kind == spirv.UniformBuffer {
			rng = min(rng, maxRange)
		}
	}
	if maxRange > 0 && rng > maxRange {
		bad("%d bytes exceed %s's max%sBufferRange %d; bind a smaller Range", rng, d.pd.Name,
			map[bool]string{true: "Uniform", false: "Storage"}[r.Kind == spirv.UniformBuffer], maxRange)
		return false
	}
	if r.Kind.IsBuffer() {
		if need := uint64(r.Size); rng < need {
			what := "its block"
			if r.Stride > 0 && r.Size == 0 {
				what = "one element"
			}
			bad("%d bytes bound, but %s needs %d bytes; bind a larger buffer", rng, what, need)
			return false
		}
	} else { // a texel buffer
		var ok bool
		if rng, ok = pl.checkTexels(s, rng); !ok {
			return false
		}
	}
	s.rng = rng
	pl.held = append(pl.held, &buf.resource)
	pl.accesses = append(pl.accesses, acc{&buf.resource, mode})
	return true
}

// checkTexels checks a texel buffer binding's texel format (Binding's, or
// the shader's) against the device and the shader, patches the shader's
// format where it needs to, sets s.format, and returns the range bound,
// rng, rounded down to whole texels.
func (pl *planner) checkTexels(s *bound, rng uint64) (uint64, bool) {
	d, p := pl.c.d, pl.p
	lim := &d.pd.Limits
	r := &p.res[s.res]
	b := s.b
	bad := pl.badf(s)
	f := b.TexelFormat
	if f == 0 {
		f = uint32(r.Format.VkFormat())
	}
	if f == 0 {
		bad("the shader declares no texel format; set Binding.TexelFormat")
		return 0, false
	}
	feat := uint32(vk.FormatFeatureUniformTexelBuffer)
	if r.Kind == spirv.StorageTexelBuffer {
		feat = vk.FormatFeatureStorageTexelBuffer
	}
	size, _, _ := FormatBlock(f)
	switch {
	case size == 0:
		bad("texel format %s has no texel size", FormatName(f))
		return 0, false
	case d.inst.raw.FormatProperties(d.pd.h, f).Buffer&feat == 0:
		bad("%s cannot use %s in a %s", d.pd.Name, FormatName(f), r.Kind)
		return 0, false
	case !numericMatch(r.SampledType, f):
		bad("the shader reads %s texels but %s holds %s", r.SampledType, FormatName(f), numericOf(f))
		return 0, false
	}
	rng -= rng % uint64(size)
	if rng == 0 {
		bad("%d bytes hold no texel of %s", b.Range, FormatName(f))
		return 0, false
	}
	if n := rng / uint64(size); n > uint64(lim.MaxTexelBufferElements) {
		bad("%d texels exceed %s's maxTexelBufferElements %d; bind a smaller Range", n, d.pd.Name, lim.MaxTexelBufferElements)
		return 0, false
	}
	s.format = f
	if err := p.formatPatch(r, f, pl.patch, pl.patchBy, &pl.caps); err != nil {
		bad("%v", err)
		return 0, false
	}
	return rng, true
}

// checkImage checks s's image (device, usage, dimensions, numeric type,
// linear filtering with a combined sampler), records the layout it needs
// (GENERAL for storage, SHADER_READ_ONLY for sampling unless a storage
// binding of the same image wants GENERAL) and any format patch, and
// records the image as held and accessed with mode.
func (pl *planner) checkImage(s *bound, mode uint8) bool {
	d, p := pl.c.d, pl.p
	r := &p.res[s.res]
	b := s.b
	bad := pl.badf(s)
	img := b.Image
	usage := ImageSampled
	if r.Kind == spirv.StorageImage {
		usage = ImageStorage
	}
	switch {
	case img.d == nil:
		bad("nil image")
		return false
	case img.d != d:
		bad("image of another device")
		return false
	case img.opts.Usage&usage == 0:
		bad("the image's usage %v lacks %v", img.opts.Usage, usage)
		return false
	case !dimMatch(r, img):
		bad("the shader expects %s, but the image is %s", shaderDim(r), imageDim(img))
		return false
	case b.ImageFormat != 0 && !img.opts.viewable(b.ImageFormat):
		bad("ImageFormat %s is not one of the image's ViewFormats (%s); make the image with it in ImageOptions.ViewFormats",
			FormatName(b.ImageFormat), img.viewFormatNames())
		return false
	}
	f := img.opts.Format // the format the shader sees the texels as
	if b.ImageFormat != 0 {
		f = b.ImageFormat
	}
	if !numericMatch(r.SampledType, f) {
		if f != img.opts.Format {
			bad("the shader reads %s texels but the image viewed as %s holds %s", r.SampledType, FormatName(f), numericOf(f))
		} else {
			bad("the shader reads %s texels but the image's format %s holds %s", r.SampledType, FormatName(f), numericOf(f))
		}
		return false
	}
	if r.Kind == spirv.StorageImage {
		pl.layouts[img] = LayoutGeneral
		if err := p.formatPatch(r, f, pl.patch, pl.patchBy, &pl.caps); err != nil {
			bad("%v", err)
			return false
		}
	} else {
		if _, ok := pl.layouts[img]; !ok {
			pl.layouts[img] = LayoutShaderReadOnly
		}
		if r.Kind == spirv.CombinedImageSampler && b.Sampler != nil && b.Sampler.opts.Filter == FilterLinear &&
			d.inst.raw.FormatProperties(d.pd.h, f).Optimal&vk.FormatFeatureSampledImageFilterLinear == 0 {
			bad("%s cannot filter %s linearly; use a nearest (point) sampler", d.pd.Name, FormatName(f))
			return false
		}
	}
	pl.held = append(pl.held, &img.resource)
	pl.accesses = append(pl.accesses, acc{&img.resource, mode})
	return true
}

// checkSampler checks s's sampler (its device) and records it as held.
func (pl *planner) checkSampler(s *bound) bool {
	bad := pl.badf(s)
	sm := s.b.Sampler
	switch {
	case sm.d == nil:
		bad("nil sampler")
		return false
	case sm.d != pl.c.d:
		bad("sampler of another device")
		return false
	}
	pl.held = append(pl.held, &sm.resource)
	return true
}

// descriptorSets returns a descriptor set per set of the pipeline's
// layout, filled with the checked bindings: from the batch's cache where
// the same pipeline was dispatched with the same bindings, otherwise
// allocated from the batch's pools, written and cached.
func (pl *planner) descriptorSets() ([]vk.DescriptorSet, bool) {
	p := pl.p
	sets := make([]vk.DescriptorSet, len(p.sets))
	for si := range p.sets {
		writes, key, ok := pl.descriptorWrites(si)
		if !ok {
			return nil, false
		}
		if set, ok := pl.c.cs.sets[string(key)]; ok {
			sets[si] = set
			continue
		}
		set, ok := pl.writeSet(si, string(key), writes)
		if !ok {
			return nil, false
		}
		sets[si] = set
	}
	return sets, true
}

// descriptorWrites returns the writes that fill set si with the checked
// bindings, and the key that identifies them in the batch's cache of sets:
// the set layout, the pipeline and, per descriptor, the objects and
// handles written (buffer and range, texel view, image view, sampler and
// layout), or a mark for a partially bound array's unbound element. It
// makes the texel buffer views the writes need.
func (pl *planner) descriptorWrites(si int) ([]vk.WriteDescriptorSet, []byte, bool) {
	c, p := pl.c, pl.p
	var writes []vk.WriteDescriptorSet
	key := make([]byte, 0, 64)
	setKey := func(tag byte, vs ...uint64) {
		key = append(key, tag)
		for _, v := range vs {
			key = binary.LittleEndian.AppendUint64(key, v)
		}
	}
	setKey('s', uint64(p.sets[si]), uint64(uintptr(unsafe.Pointer(p))))
	for _, ri := range p.setRes[si] {
		r := &p.res[ri]
		for e := range r.ArraySize {
			s := pl.slots[slotKey{ri, e}]
			if s == nil {
				setKey('-', uint64(e)) // a partially bound array's unbound element
				continue
			}
			b := s.b
			w := vk.WriteDescriptorSet{Binding: r.Binding, ArrayElement: e, Type: uint32(r.Kind.VkDescriptorType())}
			switch r.Kind {
			case spirv.UniformBuffer, spirv.StorageBuffer:
				w.Buffers = []vk.DescriptorBufferInfo{{Buffer: b.Buffer.h, Offset: b.Offset, Range: s.rng}}
				setKey('b', uint64(b.Buffer.h), uint64(uintptr(unsafe.Pointer(b.Buffer))), b.Offset, s.rng)
			case spirv.UniformTexelBuffer, spirv.StorageTexelBuffer:
				v, err := c.texelView(b.Buffer, s.format, b.Offset, s.rng)
				if err != nil {
					pl.failf("%s: %v", describe(r), err)
					return nil, nil, false
				}
				w.TexelViews = []vk.BufferView{v}
				setKey('t', uint64(v))
			default:
				var info vk.DescriptorImageInfo
				if b.Image != nil {
					v, err := b.Image.viewAs(b.ImageFormat)
					if err != nil {
						pl.failf("%s: %v", describe(r), err)
						return nil, nil, false
					}
					info.View, info.Layout = v, uint32(pl.layouts[b.Image])
				}
				if b.Sampler != nil {
					info.Sampler = b.Sampler.h
				}
				w.Images = []vk.DescriptorImageInfo{info}
				setKey('i', uint64(info.View), uint64(info.Sampler), uint64(info.Layout),
					uint64(uintptr(unsafe.Pointer(b.Image))), uint64(uintptr(unsafe.Pointer(b.Sampler))))
			}
			writes = append(writes, w)
		}
	}
	return writes, key, true
}

// writeSet allocates a set for layout set si from the batch's pools,
// writes it and caches it under key; the cache keeps the pipeline and the
// held resources referenced for as long as the batch keeps the set.
func (pl *planner) writeSet(si int, key string, writes []vk.WriteDescriptorSet) (vk.DescriptorSet, bool) {
	c, p := pl.c, pl.p
	need := p.setNeed[si]
	set, err := c.allocateSet(p.sets[si], &need)
	if err != nil {
		pl.failf("descriptor set: %v", err)
		return 0, false
	}
	for i := range writes {
		writes[i].Set = set
	}
	c.d.raw.UpdateDescriptorSets(writes)
	if c.cs.sets == nil {
		c.cs.sets = map[string]vk.DescriptorSet{}
		c.cs.setRefs = map[*resource]struct{}{}
	}
	c.cs.sets[key] = set
	c.cs.setRefs[&p.resource] = struct{}{}
	for _, r := range pl.held {
		c.cs.setRefs[r] = struct{}{}
	}
	return set, true
}

// transitionLayouts records the image layout transitions to layouts, as
// one barrier, for the images not in them yet (the barrier the dispatch's
// accesses need comes later, when it is recorded).
func (c *Commands) transitionLayouts(layouts map[*Image]ImageLayout) {
	var imgs []vk.ImageBarrier
	var moved []*Image
	for img, l := range layouts {
		c.expect(img)
		if img.Layout() == l {
			continue
		}
		moved = append(moved, img)
		imgs = append(imgs, vk.ImageBarrier{
			MemoryBarrier: fullBarrier,
			OldLayout:     uint32(img.Layout()), NewLayout: uint32(l),
			SrcFamily: vk.QueueFamilyIgnored, DstFamily: vk.QueueFamilyIgnored,
			Image: img.h, Aspect: img.aspect,
			MipCount: vk.RemainingMipLevels, Layers: vk.RemainingArrayLayers,
		})
		c.setLayout(img, l)
	}
	if len(imgs) > 0 {
		c.barrier(vk.Dependency{Images: imgs})
		for _, img := range moved {
			c.synced(&img.resource)
		}
	}
}

// memo makes the plan the batch's memo (dispatchPlan), which later
// dispatches of the same pipeline with the same bindings reuse.
func (pl *planner) memo(bindings []Binding, pipe vk.Pipeline, sets []vk.DescriptorSet) {
	m := &pl.c.cs.memo
	m.forget()
	m.p, m.pipe = pl.p, pipe
	m.bindings = append(m.bindings, bindings...)
	m.sets = append(m.sets, sets...)
	m.held = append(m.held, pl.held...)
	m.accesses = append(m.accesses, pl.accesses...)
	for img, l := range pl.layouts {
		m.images = append(m.images, imageUse{img, l})
	}
}
