package vulkan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gfxcuda/gfxcuda/internal/vk"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// Binding binds one resource to a descriptor of a pipeline's shader, found
// by Set and Binding, or by Name.
//
// Buffers bind to uniform (constant) buffers, storage buffers (structured,
// byte-address and GLSL buffer blocks) and texel buffers; images to storage
// and sampled images; samplers to samplers; an image and a sampler together
// to a combined image sampler.
type Binding struct {
	// Set and Binding locate the descriptor: an HLSL register's space and
	// number, a GLSL layout(set, binding).
	Set, Binding uint32
	// Name, when not empty, locates the descriptor by its variable's name,
	// or its block type's (an HLSL cbuffer's name), or the name of a
	// member of a block without an instance name (GLSL's buffer Out {
	// float outp[]; } is "Out" or "outp"), instead.
	Name string
	// Element is the array element, for arrays of descriptors.
	Element uint32

	// Buffer is bound from byte Offset, Range bytes; Range 0 means to the
	// end of the buffer (for uniform buffers, at most the device's
	// maxUniformBufferRange).
	Buffer        *Buffer
	Offset, Range uint64
	// TexelFormat is the VkFormat a texel buffer's texels are read or
	// written as; 0 means the format the shader declares.
	TexelFormat uint32

	Image *Image
	// ImageFormat is the VkFormat the image's texels are read or written
	// as: one of its ImageOptions.ViewFormats (the texels' bits
	// reinterpreted); 0 means the image's own format.
	ImageFormat uint32
	Sampler     *Sampler
}

// String names the binding's target, as errors do.
func (b *Binding) String() string {
	if b.Name != "" {
		return fmt.Sprintf("%q", b.Name)
	}
	s := fmt.Sprintf("set %d, binding %d", b.Set, b.Binding)
	if b.Element > 0 {
		s += fmt.Sprintf(", element %d", b.Element)
	}
	return s
}

// Access bits of the hazard tracking.
const (
	accRead  uint8 = 1
	accWrite uint8 = 2
)

// computeBarrier orders earlier shader and transfer writes before later
// shader, transfer and indirect-argument accesses, and earlier reads before
// later writes.
var computeBarrier = vk.MemoryBarrier{
	SrcStage:  vk.PipelineStage2ComputeShader | vk.PipelineStage2AllTransfer,
	SrcAccess: vk.Access2ShaderWrite | vk.Access2TransferWrite,
	DstStage:  vk.PipelineStage2ComputeShader | vk.PipelineStage2AllTransfer | vk.PipelineStage2DrawIndirect,
	DstAccess: vk.Access2ShaderRead | vk.Access2ShaderWrite | vk.Access2UniformRead | vk.Access2TransferRead |
		vk.Access2TransferWrite | vk.Access2IndirectCommandRead,
}

// texelViewKey identifies a texel buffer view.
type texelViewKey struct {
	buf         vk.Buffer
	format      uint32
	offset, rng uint64
}

// computeState is what a Commands keeps for dispatches and the barriers
// between commands: descriptor pools and the sets allocated from them,
// texel buffer views, the bound pipeline and sets, and the accesses since
// the last barrier.
type computeState struct {
	pools  []descPool
	cur    int                         // the pool allocations come from
	sets   map[string]vk.DescriptorSet // by layout and contents
	views  map[texelViewKey]vk.BufferView
	access map[*resource]uint8 // accRead|accWrite since the last barrier
	dirty  bool                // commands recorded since the last full barrier
	pipe   vk.Pipeline
	layout vk.PipelineLayout
	bound  []vk.DescriptorSet
	// setRefs are the objects the descriptor sets in sets refer to: the
	// keys of sets name them by address, so they must stay allocated
	// while the sets are kept (across Reset, see resetCompute).
	setRefs map[*resource]struct{}
	// memo is the last dispatch resolved (see dispatchPlan).
	memo    dispatchPlan
	push    []byte // push constants padded to the block's size
	scratch []acc
	rec     vk.DispatchScratch
}

// dispatchPlan is a dispatch resolved against its pipeline: what a
// dispatch of the same pipeline with the same bindings records again
// without checking them anew (the fast path of dispatch).
type dispatchPlan struct {
	p        *Pipeline
	bindings []Binding // a copy
	pipe     vk.Pipeline
	sets     []vk.DescriptorSet
	held     []*resource // what the descriptors refer to
	accesses []acc
	images   []imageUse // the images and the layouts they must be in
}

// imageUse is an image a dispatch uses and the layout it uses it in.
type imageUse struct {
	img    *Image
	layout ImageLayout
}

// matches reports whether a dispatch of p with bindings can record plan m
// again: same pipeline, same bindings, and the images still in the
// layouts m's descriptors name.
func (m *dispatchPlan) matches(p *Pipeline, bindings []Binding) bool {
	if m.p != p || len(m.bindings) != len(bindings) {
		return false
	}
	for i := range bindings {
		if m.bindings[i] != bindings[i] {
			return false
		}
	}
	for _, u := range m.images {
		if u.img.Layout() != u.layout {
			return false
		}
	}
	return true
}

func (m *dispatchPlan) forget() {
	m.p = nil
	clear(m.bindings)
	m.bindings = m.bindings[:0]
	clear(m.held)
	m.held = m.held[:0]
	clear(m.accesses)
	m.accesses = m.accesses[:0]
	clear(m.images)
	m.images = m.images[:0]
	m.sets = m.sets[:0]
}

// descPool is a descriptor pool and the room left in it.
type descPool struct {
	h    vk.DescriptorPool
	sets uint32
	left [8]uint32 // descriptors left, by VkDescriptorType (0 to 7)
	size [8]uint32 // descriptors at creation
	max  uint32    // sets at creation
}

// fits reports whether a set of need descriptors fits in the pool.
func (p *descPool) fits(need *[8]uint32) bool {
	if p.sets == 0 {
		return false
	}
	for t, n := range need {
		if n > p.left[t] {
			return false
		}
	}
	return true
}

// allocateSet allocates a set of layout, which holds need descriptors of
// each type, from the batch's pools, making a larger pool when they are
// full. It counts what the pools hold rather than relying on the driver
// to refuse an allocation.
func (c *Commands) allocateSet(layout vk.DescriptorSetLayout, need *[8]uint32) (vk.DescriptorSet, error) {
	cs := &c.cs
	for {
		if cs.cur < len(cs.pools) {
			p := &cs.pools[cs.cur]
			if p.fits(need) {
				s, err := c.d.raw.AllocateDescriptorSet(p.h, layout)
				if err == nil {
					p.sets--
					for t, n := range need {
						p.left[t] -= n
					}
					return s, nil
				}
				if !errors.Is(err, vk.ErrorOutOfPoolMemory) && !errors.Is(err, vk.ErrorFragmentedPool) {
					return 0, err
				}
			}
			cs.cur++
			continue
		}
		// Pools grow: 64 sets, then 256, 1024, 4096 at most, with room for
		// 4 descriptors of each type per set (more if a layout needs it).
		sets := uint32(64) << (2 * min(len(cs.pools), 3))
		var sizes []vk.DescriptorPoolSize
		np := descPool{sets: sets, max: sets}
		for t := range need {
			np.size[t] = sets * max(4, need[t])
			np.left[t] = np.size[t]
			sizes = append(sizes, vk.DescriptorPoolSize{Type: uint32(t), Count: np.size[t]})
		}
		h, err := c.d.raw.CreateDescriptorPool(sets, sizes, 0)
		if err != nil {
			return 0, err
		}
		np.h = h
		cs.pools = append(cs.pools, np)
	}
}

// maxKeptSets bounds the descriptor sets a batch keeps across Reset.
const maxKeptSets = 256

// resetCompute forgets the batch's bindings and accesses; the batch's work
// must have finished. The descriptor sets it made stay for the next
// batches (identical bindings then reuse them, with no descriptor writes)
// as long as they fit in the first pool, hold no texel buffer views (which
// Reset destroys) and every object they refer to is still open; otherwise
// the pools are reset and the sets forgotten.
func (c *Commands) resetCompute() error {
	cs := &c.cs
	keep := len(cs.views) == 0 && cs.cur == 0 && len(cs.sets) <= maxKeptSets
	if keep {
		for r := range cs.setRefs {
			if r.life.isClosing() {
				keep = false
				break
			}
		}
	}
	var err error
	if !keep {
		for i := range cs.pools {
			p := &cs.pools[i]
			if e := c.d.raw.ResetDescriptorPool(p.h); e != nil && err == nil {
				err = e
			}
			p.sets, p.left = p.max, p.size
		}
		for _, v := range cs.views {
			c.d.raw.DestroyBufferView(v)
		}
		clear(cs.views)
		clear(cs.sets)
		clear(cs.setRefs)
		cs.memo.forget()
		cs.cur = 0
	}
	clear(cs.access)
	cs.dirty, cs.pipe, cs.layout, cs.bound = false, 0, 0, cs.bound[:0]
	return err
}

// freeCompute destroys the batch's pools and views.
func (c *Commands) freeCompute() {
	cs := &c.cs
	for _, p := range cs.pools {
		c.d.raw.DestroyDescriptorPool(p.h)
	}
	cs.pools = nil
	for _, v := range cs.views {
		c.d.raw.DestroyBufferView(v)
	}
	clear(cs.views)
}

// acc is one resource a command reads or writes.
type acc struct {
	r    *resource
	mode uint8
}

// track records that the command about to be recorded accesses list,
// first recording a barrier if it reads what an earlier command of the
// batch wrote, or writes what one read or wrote, since the last barrier.
func (c *Commands) track(list ...acc) {
	if c.trackNeed(list) {
		c.barrier(vk.Dependency{Memory: []vk.MemoryBarrier{computeBarrier}})
	}
}

// trackNeed is track for a caller that records the barrier itself: it
// reports whether the command needs one (and counts it as recorded).
// Barriers are per whole resource: reads after reads need none; a write
// after any access, or any access after a write, needs one.
func (c *Commands) trackNeed(list []acc) bool {
	cs := &c.cs
	if cs.access == nil {
		cs.access = map[*resource]uint8{}
	}
	need := false
	for _, a := range list {
		prev := cs.access[a.r]
		if prev&accWrite != 0 || a.mode&accWrite != 0 && prev != 0 {
			need = true
			clear(cs.access)
			break
		}
	}
	for _, a := range list {
		cs.access[a.r] |= a.mode
	}
	cs.dirty = true
	return need
}

// synced notes an image barrier on r after which every earlier access to
// r is complete and visible (image barriers order accesses to their image
// only).
func (c *Commands) synced(r *resource) {
	delete(c.cs.access, r)
}

// fullBarrierRecorded notes a barrier after which every earlier access is
// complete and visible.
func (c *Commands) fullBarrierRecorded() {
	clear(c.cs.access)
	c.cs.dirty = false
}

// finish records, before the batch ends, a barrier that makes its writes
// visible to later batches and to the host, if it recorded commands since
// the last such barrier.
func (c *Commands) finish() {
	if c.cs.dirty {
		c.barrier(vk.Dependency{Memory: []vk.MemoryBarrier{fullBarrier}})
		c.fullBarrierRecorded()
	}
}

// Fail makes err the batch's error, as a command that cannot be recorded
// does, unless the batch has an error already: for code that records
// commands on a higher level and checks its own arguments. Err and Submit
// return it until Reset.
func (c *Commands) Fail(err error) {
	if err != nil && c.begin("Fail") {
		c.fail(err)
		c.end()
	}
}

// Dispatch records a dispatch of x×y×z workgroups of p's shader with the
// given bindings and push constants (vkCmdDispatch).
//
// Every resource the shader uses must be bound, with a resource of the
// right kind: a buffer large enough for the shader's block, an image of
// the shader's dimensionality and texel type, a sampler. push must hold
// the shader's push constant block (its size, or that rounded up to a
// multiple of 4) or be empty when it has none. x, y and z must not exceed
// the device's maxComputeWorkGroupCount. What does not fit fails the batch
// with an error (see Err) that says what to change.
//
// Dispatch inserts the barriers the batch needs: images move to the
// GENERAL layout for storage use and to SHADER_READ_ONLY_OPTIMAL for
// sampling (images already in GENERAL stay there), and a memory barrier
// precedes a command that reads what an earlier command of the batch wrote,
// or writes what it read or wrote. Copies and fills take part in the same
// tracking. Submit ends the batch with a barrier that makes its writes
// visible to later batches and to the host.
//
// Descriptor sets come from pools the batch owns; identical bindings of
// one pipeline share a set within the batch. Reset and Close free them.
func (c *Commands) Dispatch(p *Pipeline, bindings []Binding, push []byte, x, y, z uint32) {
	c.dispatch("Dispatch", p, bindings, push, [3]uint32{x, y, z}, nil, 0)
}

// DispatchIndirect records a dispatch whose workgroup counts are read, when
// it runs, from the VkDispatchIndirectCommand (three uint32: x, y, z) at
// byte offset off of args (vkCmdDispatchIndirect). args needs the indirect
// usage (buffers have it by default); off must be a multiple of 4. The
// counts must not exceed the device's maxComputeWorkGroupCount, which the
// GPU cannot check. Bindings and push constants are as for Dispatch.
func (c *Commands) DispatchIndirect(p *Pipeline, bindings []Binding, push []byte, args *Buffer, off uint64) {
	if args == nil {
		const what = "DispatchIndirect"
		if c.begin(what) {
			c.fail(errors.New("vulkan: DispatchIndirect: nil argument buffer"))
			c.end()
		}
		return
	}
	c.dispatch("DispatchIndirect", p, bindings, push, [3]uint32{}, args, off)
}

// bound is one descriptor a dispatch writes.
type bound struct {
	res    int // index into Pipeline.res
	b      *Binding
	format uint32 // texel buffer view format
	rng    uint64 // buffer range, or texel view range
	layout ImageLayout
	view   vk.BufferView
}

func (c *Commands) dispatch(what string, p *Pipeline, bindings []Binding, push []byte, groups [3]uint32, args *Buffer, argsOff uint64) {
	if !c.begin(what) {
		return
	}
	defer c.end()
	switch {
	case p == nil || p.d == nil:
		c.fail(fmt.Errorf("vulkan: %s: nil pipeline", what))
		return
	case p.d != c.d:
		c.fail(fmt.Errorf("vulkan: %s: pipeline of another device", what))
		return
	}
	if !c.hold(what, &p.resource) {
		return
	}
	defer c.unhold(&p.resource)
	pushData, ok := c.checkCall(what, p, push, groups, args, argsOff)
	if !ok {
		return
	}
	// The same pipeline with the same bindings as the last dispatch (of
	// this batch, or of an earlier batch of this Commands whose sets it
	// kept) records the plan made then, without checking the bindings
	// anew.
	m := &c.cs.memo
	if !m.matches(p, bindings) && !c.plan(what, p, bindings) {
		return
	}
	if !c.hold(what, m.held...) {
		return
	}
	defer c.unhold(m.held...)
	accesses := m.accesses
	if args != nil {
		if !c.hold(what, &args.resource) {
			return
		}
		defer c.unhold(&args.resource)
		c.cs.scratch = append(append(c.cs.scratch[:0], m.accesses...), acc{&args.resource, accRead})
		accesses = c.cs.scratch
	}
	for _, u := range m.images {
		c.expect(u.img)
	}

	cs := &c.cs
	dp := vk.Dispatch{Sync2: c.d.sync2, Layout: p.layout, Push: pushData}
	if c.trackNeed(accesses) {
		dp.Barrier = computeBarrier
	}
	if cs.pipe != m.pipe {
		dp.Pipeline = m.pipe
		cs.pipe = m.pipe
	}
	if cs.layout != p.layout || !slices.Equal(cs.bound, m.sets) {
		dp.Sets = m.sets
		cs.layout = p.layout
		cs.bound = append(cs.bound[:0], m.sets...)
	}
	if len(dp.Sets) > vk.MaxDispatchSets {
		if dp.Barrier.SrcStage != 0 {
			c.barrier(vk.Dependency{Memory: []vk.MemoryBarrier{computeBarrier}})
			dp.Barrier = vk.MemoryBarrier{}
		}
		c.d.raw.CmdBindComputeDescriptorSets(c.cb, p.layout, 0, dp.Sets)
		dp.Sets = nil
	}
	if args != nil {
		dp.Indirect, dp.IndirectOffset = args.h, argsOff
	} else {
		dp.X, dp.Y, dp.Z = groups[0], groups[1], groups[2]
	}
	c.d.raw.RecordDispatch(c.cb, &dp, &c.cs.rec)
}

// checkCall checks a dispatch's workgroup counts or indirect arguments and
// its push constants, and returns the push constants padded to the size of
// the shader's block.
func (c *Commands) checkCall(what string, p *Pipeline, push []byte, groups [3]uint32, args *Buffer, argsOff uint64) ([]byte, bool) {
	failf := func(format string, a ...any) {
		c.fail(fmt.Errorf("vulkan: %s: "+format, append([]any{what}, a...)...))
	}
	d := c.d
	lim := &d.pd.Limits
	if args == nil {
		for i, axis := range [3]string{"x", "y", "z"} {
			if groups[i] > lim.MaxComputeWorkGroupCount[i] {
				failf("%d×%d×%d workgroups: %d in %s exceeds %s's maxComputeWorkGroupCount (%d, %d, %d); dispatch fewer, larger workgroups or split the work",
					groups[0], groups[1], groups[2], groups[i], axis, d.pd.Name,
					lim.MaxComputeWorkGroupCount[0], lim.MaxComputeWorkGroupCount[1], lim.MaxComputeWorkGroupCount[2])
				return nil, false
			}
		}
	} else {
		switch {
		case !c.checkBuffer(what, args, BufferIndirect):
			return nil, false
		case argsOff%4 != 0:
			failf("argument offset %d is not a multiple of 4", argsOff)
			return nil, false
		case argsOff > args.size || args.size-argsOff < 12:
			failf("the 12 bytes of arguments at offset %d lie outside the %d-byte buffer", argsOff, args.size)
			return nil, false
		}
	}
	switch pc := p.module.PushConstants; {
	case p.push == 0 && len(push) > 0:
		failf("the shader declares no push constants, but %d bytes were given", len(push))
		return nil, false
	case p.push > 0 && len(push) != int(pc.Size) && len(push) != int(p.push):
		var ms []string
		for _, m := range pc.Members {
			ms = append(ms, fmt.Sprintf("%s at %d (%d bytes)", m.Name, m.Offset, m.Size))
		}
		failf("push constants: the shader's block %s is %d bytes (%s), but %d bytes were given",
			pc.Name, pc.Size, strings.Join(ms, ", "), len(push))
		return nil, false
	case p.push == 0:
		return nil, true
	case len(push) == int(p.push):
		return push, true
	}
	buf := c.cs.push
	if cap(buf) < int(p.push) {
		buf = make([]byte, p.push)
		c.cs.push = buf
	}
	buf = buf[:p.push]
	clear(buf[copy(buf, push):])
	return buf, true
}

// texelView returns the batch's view of bytes [off, off+rng) of b as
// format, creating it on first use.
func (c *Commands) texelView(b *Buffer, format uint32, off, rng uint64) (vk.BufferView, error) {
	k := texelViewKey{b.h, format, off, rng}
	if v, ok := c.cs.views[k]; ok {
		return v, nil
	}
	v, err := c.d.raw.CreateBufferView(b.h, format, off, rng)
	if err != nil {
		return 0, err
	}
	if c.cs.views == nil {
		c.cs.views = map[texelViewKey]vk.BufferView{}
	}
	c.cs.views[k] = v
	return v, nil
}

// formatPatch checks the image format r's shader type declares against
// the VkFormat bound to it, and where they differ asks, through patch and
// caps, for a pipeline variant that declares the bound format instead (or
// no format, where SPIR-V has no name for it).
func (p *Pipeline) formatPatch(r *spirv.Resource, vkf uint32, patch map[uint32]uint32, by map[uint32]string, caps *[]uint32) error {
	t, ok := p.formats[bindingKey(r.Set, r.Binding)]
	if !ok || t.format == 0 {
		return nil
	}
	want := spirvFormat(vkf)
	if t.sampled != 2 {
		want = 0 // sampled images and uniform texel buffers need no format
	}
	if want == t.format {
		return nil
	}
	if prev, ok := patch[t.id]; ok && prev != want {
		return fmt.Errorf("it shares its SPIR-V image type with %s, bound to another format; declare each image's format in the shader", by[t.id])
	}
	if t.sampled == 2 && want == 0 {
		f := &p.d.pd.features
		if !r.ReadOnly {
			if !f.StorageImageWriteWithoutFormat {
				return fmt.Errorf("the shader declares %s texels, SPIR-V has no format for %s, and %s cannot write storage images without a format",
					spirv.ImageFormat(t.format), FormatName(vkf), p.d.pd.Name)
			}
			*caps = append(*caps, spvCapWriteNoFormat)
		}
		if !r.WriteOnly {
			if !f.StorageImageReadWithoutFormat {
				return fmt.Errorf("the shader declares %s texels, SPIR-V has no format for %s, and %s cannot read storage images without a format; make the image write-only or use another format",
					spirv.ImageFormat(t.format), FormatName(vkf), p.d.pd.Name)
			}
			*caps = append(*caps, spvCapReadNoFormat)
		}
	}
	patch[t.id] = want
	by[t.id] = r.Name
	return nil
}

// resourceList lists the pipeline's resources for error messages.
func (p *Pipeline) resourceList() string {
	if len(p.res) == 0 {
		return "no resources"
	}
	parts := make([]string, len(p.res))
	for i := range p.res {
		parts[i] = describe(&p.res[i])
	}
	return strings.Join(parts, ", ")
}

// numericOf returns the numeric type of a VkFormat's texels as shaders
// read them: uint, int or float.
func numericOf(format uint32) spirv.ScalarType {
	name := FormatName(format)
	switch {
	case strings.HasSuffix(name, "_UINT") || strings.Contains(name, "_UINT_"):
		return spirv.ScalarUint
	case strings.HasSuffix(name, "_SINT") || strings.Contains(name, "_SINT_"):
		return spirv.ScalarInt
	}
	return spirv.ScalarFloat
}

// numericMatch reports whether a shader reading t texels can use format.
func numericMatch(t spirv.ScalarType, format uint32) bool {
	return t == spirv.ScalarUnknown || t == numericOf(format)
}

// dimMatch reports whether img's default view has the type r expects.
func dimMatch(r *spirv.Resource, img *Image) bool {
	o := &img.opts
	layered := o.Layers > 1
	switch r.Dim {
	case spirv.Dim1D:
		return o.Dim == Image1D && r.Arrayed == layered
	case spirv.Dim2D:
		return o.Dim == Image2D && r.Arrayed == layered && !r.Multisampled
	case spirv.Dim3D:
		return o.Dim == Image3D && !r.Arrayed
	}
	return false
}

func shaderDim(r *spirv.Resource) string {
	s := "a " + r.Dim.String()
	if r.Arrayed {
		s += " array"
	}
	return s + " image"
}

func imageDim(img *Image) string {
	o := &img.opts
	if o.Layers > 1 {
		return fmt.Sprintf("a %v image of %d layers", o.Dim, o.Layers)
	}
	return fmt.Sprintf("a %v image", o.Dim)
}
