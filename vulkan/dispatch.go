package vulkan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

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

	Image   *Image
	Sampler *Sampler
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

// plan checks bindings against p's shader, makes (or finds) their
// descriptor sets, records the image layout transitions they need, and
// makes the result the batch's memo (dispatchPlan). It reports whether
// it succeeded; otherwise the batch has failed.
func (c *Commands) plan(what string, p *Pipeline, bindings []Binding) bool {
	failf := func(format string, a ...any) {
		c.fail(fmt.Errorf("vulkan: %s: "+format, append([]any{what}, a...)...))
	}
	d := c.d
	lim := &d.pd.Limits

	// Resolve the bindings to descriptors.
	type slotKey struct {
		res  int
		elem uint32
	}
	slots := map[slotKey]*bound{}
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
			failf("binding %v: the shader has no resource there; it has %s", b, p.resourceList())
			return false
		}
		r := &p.res[ri]
		if b.Element >= r.ArraySize {
			failf("binding %v: element %d of %s, which has %d", b, b.Element, describe(r), r.ArraySize)
			return false
		}
		k := slotKey{ri, b.Element}
		if prev, dup := slots[k]; dup {
			failf("%s is bound twice (as %v and as %v)", describe(r), prev.b, b)
			return false
		}
		slots[k] = &bound{res: ri, b: b}
	}
	var missing []string
	for ri := range p.res {
		r := &p.res[ri]
		if p.partial[ri] {
			continue // bindless: unbound elements are allowed
		}
		for e := range r.ArraySize {
			if _, ok := slots[slotKey{ri, e}]; !ok {
				m := describe(r)
				if r.ArraySize > 1 {
					m += fmt.Sprintf(" element %d", e)
				}
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 {
		failf("nothing is bound to %s; bind every resource the shader uses, by set and binding or by name", strings.Join(missing, ", "))
		return false
	}

	// Check each binding against its resource; collect what the dispatch
	// holds, reads and writes, the image layouts and format patches.
	var held []*resource
	var accesses []acc
	layouts := map[*Image]ImageLayout{}
	patch := map[uint32]uint32{}
	patchBy := map[uint32]string{}
	var caps []uint32
	order := make([]*bound, 0, len(slots))
	for _, s := range slots {
		order = append(order, s)
	}
	slices.SortFunc(order, func(a, b *bound) int {
		if a.res != b.res {
			return a.res - b.res
		}
		return int(a.b.Element) - int(b.b.Element)
	})
	for _, s := range order {
		r := &p.res[s.res]
		b := s.b
		bad := func(format string, a ...any) {
			failf("%s, bound as %v: "+format, append([]any{describe(r), b}, a...)...)
		}
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
		}
		if b.Buffer != nil {
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
			} else {
				f := b.TexelFormat
				if f == 0 {
					f = uint32(r.Format.VkFormat())
				}
				if f == 0 {
					bad("the shader declares no texel format; set Binding.TexelFormat")
					return false
				}
				feat := uint32(vk.FormatFeatureUniformTexelBuffer)
				if r.Kind == spirv.StorageTexelBuffer {
					feat = vk.FormatFeatureStorageTexelBuffer
				}
				size, _, _ := FormatBlock(f)
				switch {
				case size == 0:
					bad("texel format %s has no texel size", FormatName(f))
					return false
				case d.inst.raw.FormatProperties(d.pd.h, f).Buffer&feat == 0:
					bad("%s cannot use %s in a %s", d.pd.Name, FormatName(f), r.Kind)
					return false
				case !numericMatch(r.SampledType, f):
					bad("the shader reads %s texels but %s holds %s", r.SampledType, FormatName(f), numericOf(f))
					return false
				}
				rng -= rng % uint64(size)
				if rng == 0 {
					bad("%d bytes hold no texel of %s", b.Range, FormatName(f))
					return false
				}
				if n := rng / uint64(size); n > uint64(lim.MaxTexelBufferElements) {
					bad("%d texels exceed %s's maxTexelBufferElements %d; bind a smaller Range", n, d.pd.Name, lim.MaxTexelBufferElements)
					return false
				}
				s.format = f
				if err := p.formatPatch(r, f, patch, patchBy, &caps); err != nil {
					bad("%v", err)
					return false
				}
			}
			s.rng = rng
			held = append(held, &buf.resource)
			accesses = append(accesses, acc{&buf.resource, mode})
		}
		if b.Image != nil {
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
			case !numericMatch(r.SampledType, img.opts.Format):
				bad("the shader reads %s texels but the image's format %s holds %s", r.SampledType, FormatName(img.opts.Format), numericOf(img.opts.Format))
				return false
			}
			if r.Kind == spirv.StorageImage {
				layouts[img] = LayoutGeneral
				if err := p.formatPatch(r, img.opts.Format, patch, patchBy, &caps); err != nil {
					bad("%v", err)
					return false
				}
			} else {
				if _, ok := layouts[img]; !ok {
					layouts[img] = LayoutShaderReadOnly
				}
				if r.Kind == spirv.CombinedImageSampler && b.Sampler != nil && b.Sampler.opts.Filter == FilterLinear &&
					d.inst.raw.FormatProperties(d.pd.h, img.opts.Format).Optimal&vk.FormatFeatureSampledImageFilterLinear == 0 {
					bad("%s cannot filter %s linearly; use a nearest (point) sampler", d.pd.Name, FormatName(img.opts.Format))
					return false
				}
			}
			held = append(held, &img.resource)
			accesses = append(accesses, acc{&img.resource, mode})
		}
		if b.Sampler != nil {
			sm := b.Sampler
			switch {
			case sm.d == nil:
				bad("nil sampler")
				return false
			case sm.d != d:
				bad("sampler of another device")
				return false
			}
			held = append(held, &sm.resource)
		}
	}
	if !c.hold(what, held...) {
		return false
	}
	defer c.unhold(held...)

	// Final layouts: images already GENERAL stay so for sampling.
	for img, l := range layouts {
		if l == LayoutShaderReadOnly && img.Layout() == LayoutGeneral {
			layouts[img] = LayoutGeneral
		}
	}
	pipe, err := p.variant(patch, caps...)
	if err != nil {
		failf("%v", err)
		return false
	}

	// Descriptor sets, from the batch's cache where the same pipeline was
	// dispatched with the same bindings.
	sets := make([]vk.DescriptorSet, len(p.sets))
	for si := range p.sets {
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
				s := slots[slotKey{ri, e}]
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
						failf("%s: %v", describe(r), err)
						return false
					}
					w.TexelViews = []vk.BufferView{v}
					setKey('t', uint64(v))
				default:
					var info vk.DescriptorImageInfo
					if b.Image != nil {
						v, err := b.Image.viewHandle()
						if err != nil {
							failf("%s: %v", describe(r), err)
							return false
						}
						info.View, info.Layout = v, uint32(layouts[b.Image])
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
		if set, ok := c.cs.sets[string(key)]; ok {
			sets[si] = set
			continue
		}
		k := string(key)
		need := p.setNeed[si]
		set, err := c.allocateSet(p.sets[si], &need)
		if err != nil {
			failf("descriptor set: %v", err)
			return false
		}
		for i := range writes {
			writes[i].Set = set
		}
		d.raw.UpdateDescriptorSets(writes)
		if c.cs.sets == nil {
			c.cs.sets = map[string]vk.DescriptorSet{}
			c.cs.setRefs = map[*resource]struct{}{}
		}
		c.cs.sets[k] = set
		c.cs.setRefs[&p.resource] = struct{}{}
		for _, r := range held {
			c.cs.setRefs[r] = struct{}{}
		}
		sets[si] = set
	}

	// Layout transitions, then the barrier the accesses need.
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
	m := &c.cs.memo
	m.forget()
	m.p, m.pipe = p, pipe
	m.bindings = append(m.bindings, bindings...)
	m.sets = append(m.sets, sets...)
	m.held = append(m.held, held...)
	m.accesses = append(m.accesses, accesses...)
	for img, l := range layouts {
		m.images = append(m.images, imageUse{img, l})
	}
	return true
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
