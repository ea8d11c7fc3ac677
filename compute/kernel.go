package compute

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Kernel is a compiled compute shader on a device, ready to dispatch.
type Kernel struct {
	d       *Device
	m       *shader.Module
	p       *vulkan.Pipeline
	shifted bool // bindings follow the HLSL register shifts
	// last is the last argument list converted into bindings, so that a
	// dispatch with the same arguments skips resolving them.
	last atomic.Pointer[argsMemo]
	// again is the batch of the last Dispatch (see Dispatch).
	again atomic.Pointer[againBatch]
}

// argsMemo is an argument list (push constants left out) and its
// bindings; never changed once stored.
type argsMemo struct {
	args []Arg
	bs   []vulkan.Binding
}

// matches reports whether args bind what m's arguments bound; push
// constants may differ.
func (m *argsMemo) matches(args []Arg) bool {
	if len(args) != len(m.args) {
		return false
	}
	for i := range args {
		a, b := &args[i], &m.args[i]
		if a.isPush != b.isPush || a.err != nil {
			return false
		}
		if a.isPush {
			continue
		}
		if a.slot != b.slot || a.class != b.class || a.exact != b.exact || a.space != b.space || a.name != b.name ||
			a.elem != b.elem || a.res != b.res || a.sampler != b.sampler || a.off != b.off || a.n != b.n || a.format != b.format {
			return false
		}
	}
	return true
}

// Compile compiles an HLSL, GLSL or WGSL compute shader (or checks a SPIR-V
// binary) in process and makes a kernel of its entry point (o.EntryPoint,
// "main" by default). The language comes from o.Language, else from
// o.Filename's extension, else from the source (see shader.Options).
// Compiled modules are cached on disk. A source the compiler rejects
// returns a *shader.CompileError whose diagnostics carry file and line.
func (d *Device) Compile(src []byte, o shader.Options) (*Kernel, error) {
	m, err := shader.Compile(src, o)
	if err != nil {
		return nil, err
	}
	return d.Kernel(m, o.EntryPoint)
}

// CompileFile is Compile of the file at path.
func (d *Device) CompileFile(path string, o shader.Options) (*Kernel, error) {
	m, err := shader.CompileFile(path, o)
	if err != nil {
		return nil, err
	}
	return d.Kernel(m, o.EntryPoint)
}

// Kernel makes a kernel of a compiled or reflected module's compute entry
// point called entry (empty: the first), its specialization constants
// (WGSL overrides) at their defaults; KernelWith sets them.
func (d *Device) Kernel(m *shader.Module, entry string) (*Kernel, error) {
	return d.KernelWith(m, KernelOptions{EntryPoint: entry})
}

// Module returns the kernel's SPIR-V module and its reflection.
func (k *Kernel) Module() *shader.Module { return k.m }

// Pipeline returns the Vulkan pipeline.
func (k *Kernel) Pipeline() *vulkan.Pipeline { return k.p }

// Resources lists what a dispatch binds, by set and binding.
func (k *Kernel) Resources() []shader.Resource { return k.p.Resources() }

// LocalSize is the workgroup size, with the specialization constants of
// KernelOptions.Constants set.
func (k *Kernel) LocalSize() [3]uint32 { return k.p.LocalSize() }

// PushConstantSize is the size of the push constants a dispatch passes, 0
// when the shader has none.
func (k *Kernel) PushConstantSize() uint32 { return k.p.PushConstantSize() }

// Groups returns how many workgroups cover width×height×depth threads
// (each count rounded up), with the workgroup size of LocalSize.
func (k *Kernel) Groups(width, height, depth uint32) (x, y, z uint32) {
	ls := k.p.LocalSize()
	// In 64 bits: n + d - 1 wraps in 32 for n near 2³² (4294967295
	// threads in workgroups of 64 gave 0 workgroups, a dispatch of nothing).
	div := func(n, d uint32) uint32 { return uint32((uint64(n) + uint64(d) - 1) / uint64(d)) }
	return div(width, ls[0]), div(height, ls[1]), div(depth, ls[2])
}

// Close frees the kernel's pipeline and the batch it keeps. Idempotent.
func (k *Kernel) Close() error {
	if kb := k.again.Swap(nil); kb != nil {
		k.d.recycle(kb.c)
	}
	return k.p.Close()
}

// Dispatch runs x×y×z workgroups of the kernel with args and waits for
// them: the synchronous call for scripts. Use a Batch to submit many
// dispatches at once.
//
// The kernel keeps the batch of its last Dispatch: the same workgroup
// counts with the same arguments and push constants submit that batch
// again, as recorded, without recording anything.
func (k *Kernel) Dispatch(x, y, z uint32, args ...Arg) error {
	if kb := k.again.Swap(nil); kb != nil {
		if kb.matches(x, y, z, args) && kb.c.Reuse() == nil && k.d.submit(kb.c, vulkan.SubmitOptions{}) == nil {
			err := kb.c.Wait(-1)
			if err == nil {
				k.keep(kb)
			} else {
				k.d.recycle(kb.c)
			}
			return err
		}
		k.d.recycle(kb.c)
	}
	c, err := k.d.commands()
	if err != nil {
		return err
	}
	m, push := k.record(c, x, y, z, nil, 0, args)
	if err = c.Err(); err == nil {
		if err = k.d.submit(c, vulkan.SubmitOptions{}); err == nil {
			err = c.Wait(-1)
		}
	}
	if err != nil || m == nil {
		k.d.recycle(c)
		return err
	}
	k.keep(&againBatch{c: c, m: m, groups: [3]uint32{x, y, z}, push: slices.Clone(push)})
	return nil
}

// againBatch is the batch of a kernel's last Dispatch, which ran, and
// what it was recorded with.
type againBatch struct {
	c      *vulkan.Commands
	m      *argsMemo
	groups [3]uint32
	push   []byte
}

// matches reports whether a Dispatch of x, y, z with args records what kb
// holds.
func (kb *againBatch) matches(x, y, z uint32, args []Arg) bool {
	if kb.groups != [3]uint32{x, y, z} || !kb.m.matches(args) {
		return false
	}
	var push []byte
	n := 0
	for i := range args {
		if args[i].isPush {
			push = args[i].push
			n++
		}
	}
	return n <= 1 && bytes.Equal(push, kb.push)
}

// keep makes kb the kernel's batch for its next Dispatch.
func (k *Kernel) keep(kb *againBatch) {
	if old := k.again.Swap(kb); old != nil {
		k.d.recycle(old.c)
	}
}

// DispatchIndirect runs the kernel with the workgroup counts the
// VkDispatchIndirectCommand (three little-endian uint32) at byte off of
// argsBuf holds when it runs, and waits for it. off must be a multiple of
// 4 and leave the 12 bytes in argsBuf (or the error wraps ErrRange).
func (k *Kernel) DispatchIndirect(argsBuf *Buffer, off uint64, args ...Arg) error {
	if argsBuf == nil {
		return fmt.Errorf("compute: DispatchIndirect: nil argument buffer")
	}
	if off%4 != 0 || off > argsBuf.Size() || argsBuf.Size()-off < 12 {
		return rangef("compute: indirect arguments (3 uint32) at offset %d of a %d-byte buffer; the offset must be a multiple of 4 and leave 12 bytes", off, argsBuf.Size())
	}
	return k.d.run(func(c *vulkan.Commands) error {
		k.record(c, 0, 0, 0, argsBuf, off, args)
		return nil
	})
}

// record records a dispatch into c; errors become c's. It returns the
// memo of the arguments and the push constants (nil memo on error).
func (k *Kernel) record(c *vulkan.Commands, x, y, z uint32, argsBuf *Buffer, off uint64, args []Arg) (*argsMemo, []byte) {
	m, push, err := k.bindings(args)
	if err != nil {
		c.Fail(err)
		return nil, nil
	}
	if argsBuf != nil {
		c.DispatchIndirect(k.p, m.bs, push, argsBuf.vk, off)
	} else {
		c.Dispatch(k.p, m.bs, push, x, y, z)
	}
	return m, push
}

// Arg is one argument of a dispatch: a resource bound to an HLSL register,
// a binding or a name, or the push constants. Make them with SRV, UAV, CBV,
// SamplerAt, At, Named and Push.
type Arg struct {
	slot    int
	class   shader.RegisterClass // 0: At's binding number
	exact   bool                 // AtBinding: slot is the binding itself
	space   uint32
	name    string
	elem    uint32
	res     Resource
	sampler *Sampler
	off     uint64
	n       uint64
	format  format.Format
	push    []byte
	isPush  bool
	err     error
}

// SRV binds r to HLSL register t<register> (a StructuredBuffer,
// ByteAddressBuffer, Buffer<T> or Texture*; in GLSL, the read-only
// resource at binding register). Another register space takes Space.
func SRV(register int, r Resource) Arg { return Arg{slot: register, class: shader.ClassSRV, res: r} }

// UAV binds r to HLSL register u<register> (an RWStructuredBuffer,
// RWByteAddressBuffer, RWBuffer<T> or RWTexture*; in GLSL, the read-write
// resource at binding register).
func UAV(register int, r Resource) Arg { return Arg{slot: register, class: shader.ClassUAV, res: r} }

// CBV binds buffer r to HLSL register b<register> (a cbuffer or
// ConstantBuffer<T>; in GLSL, the uniform block at binding register).
func CBV(register int, r Resource) Arg { return Arg{slot: register, class: shader.ClassCBV, res: r} }

// SamplerAt binds sampler s to HLSL register s<register> (a SamplerState;
// in GLSL, the sampler at binding register).
func SamplerAt(register int, s *Sampler) Arg {
	return Arg{slot: register, class: shader.ClassSampler, res: s}
}

// At binds r (a *Buffer, *Texture or *Sampler) at slot: a GLSL
// layout(binding), or an HLSL register number when only one register class
// uses that number (t0 alone; with t0 and u0 both declared, At(0) is
// ambiguous: use SRV and UAV). A slot of 1024 or more is the binding
// itself. Resources in another set (an HLSL register space) take Space.
func At(slot int, r Resource) Arg { return Arg{slot: slot, res: r} }

// AtBinding binds r at a Vulkan descriptor set and binding exactly as the
// SPIR-V declares them (HLSL register t3 is binding 1027; see
// shader.RegisterBinding).
func AtBinding(set, binding uint32, r Resource) Arg {
	return Arg{slot: int(binding), space: set, exact: true, res: r}
}

// Named binds r to the shader variable called name (or the block type of
// that name, such as an HLSL cbuffer's).
func Named(name string, r Resource) Arg { return Arg{slot: -1, name: name, res: r} }

// Push passes data as the push constants: the bytes of the shader's push
// constant block, laid out as the shader declares it.
func Push(data []byte) Arg { return Arg{isPush: true, push: data} }

// PushValues passes values, encoded little-endian one after the other with
// encoding/binary (fixed-size numbers, arrays and structs of them), as the
// push constants.
func PushValues(values ...any) Arg {
	var b bytes.Buffer
	for _, v := range values {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			return Arg{isPush: true, err: fmt.Errorf("compute: PushValues: %T: %w", v, err)}
		}
	}
	return Arg{isPush: true, push: b.Bytes()}
}

// whereOf describes a lazily, for error messages.
type whereOf Arg

func (w whereOf) String() string { return Arg(w).Where() }

// Where describes what the argument binds to, as the API writes it:
// "UAV(0)", "At(3)", "Named(\"o\")", with the space when not 0.
func (a Arg) Where() string {
	var s string
	switch {
	case a.isPush:
		return "Push"
	case a.name != "":
		return fmt.Sprintf("Named(%q)", a.name)
	case a.exact:
		return fmt.Sprintf("AtBinding(%d, %d)", a.space, a.slot)
	case a.class == shader.ClassSRV:
		s = fmt.Sprintf("SRV(%d)", a.slot)
	case a.class == shader.ClassUAV:
		s = fmt.Sprintf("UAV(%d)", a.slot)
	case a.class == shader.ClassCBV:
		s = fmt.Sprintf("CBV(%d)", a.slot)
	case a.class == shader.ClassSampler:
		s = fmt.Sprintf("SamplerAt(%d)", a.slot)
	default:
		s = fmt.Sprintf("At(%d)", a.slot)
	}
	if a.space != 0 {
		s += fmt.Sprintf(".Space(%d)", a.space)
	}
	return s
}

// Space returns a with its descriptor set (HLSL register space) set.
func (a Arg) Space(set uint32) Arg { a.space = set; return a }

// Element returns a bound to element i of an array of resources.
func (a Arg) Element(i uint32) Arg { a.elem = i; return a }

// Bytes returns a binding n bytes of a buffer from byte off (n 0: to the
// end).
func (a Arg) Bytes(off, n uint64) Arg { a.off, a.n = off, n; return a }

// As returns a binding a buffer as a texel buffer of format f, whatever
// its own format.
func (a Arg) As(f format.Format) Arg { a.format = f; return a }

// With returns a binding a texture together with a sampler, for combined
// image samplers (GLSL sampler2D and the like).
func (a Arg) With(s *Sampler) Arg { a.sampler = s; return a }

// bindings converts args into Vulkan bindings and push constants. The
// bindings may be shared with later calls: they must not be changed.
func (k *Kernel) bindings(args []Arg) (*argsMemo, []byte, error) {
	if m := k.last.Load(); m != nil && m.matches(args) {
		var push []byte
		pushed := false
		for i := range args {
			if args[i].isPush {
				if pushed {
					return nil, nil, fmt.Errorf("compute: push constants given twice; pass one Push")
				}
				push, pushed = args[i].push, true
			}
		}
		return m, push, nil
	}
	bs, push, err := k.resolveArgs(args)
	if err != nil {
		return nil, nil, err
	}
	m := &argsMemo{args: slices.Clone(args), bs: bs}
	for i := range m.args {
		m.args[i].push = nil
	}
	k.last.Store(m)
	return m, push, nil
}

// resolveArgs is bindings without the memo.
func (k *Kernel) resolveArgs(args []Arg) ([]vulkan.Binding, []byte, error) {
	var bs []vulkan.Binding
	var push []byte
	pushed := false
	for _, a := range args {
		if a.err != nil {
			return nil, nil, a.err
		}
		if a.isPush {
			if pushed {
				return nil, nil, fmt.Errorf("compute: push constants given twice; pass one Push")
			}
			push, pushed = a.push, true
			continue
		}
		where := whereOf(a) // formatted only when printed
		r, err := k.Resolve(a)
		if err != nil {
			return nil, nil, err
		}
		b := vulkan.Binding{Set: r.Set, Binding: r.Binding, Element: a.elem}
		v, err := k.d.resolve(a.res)
		if err != nil {
			return nil, nil, fmt.Errorf("compute: %s: %w", where, err)
		}
		switch res := v.(type) {
		case *Buffer:
			if res == nil {
				return nil, nil, fmt.Errorf("compute: %s: nil buffer", where)
			}
			b.Buffer, b.Offset, b.Range = res.vk, a.off, a.n
			b.TexelFormat = uint32(res.format)
			if a.format != 0 {
				b.TexelFormat = uint32(a.format)
			}
			if r != nil && r.Kind == shader.StorageBuffer && res.stride != 0 && r.Stride != 0 && res.stride != r.Stride {
				return nil, nil, fmt.Errorf("compute: %s: a structured buffer of %d-byte elements is bound to %s, whose elements are %d bytes",
					where, res.stride, r.Name, r.Stride)
			}
			if r != nil && !(r.Kind == shader.UniformTexelBuffer || r.Kind == shader.StorageTexelBuffer) {
				b.TexelFormat = 0
			}
		case *Texture:
			if res == nil {
				return nil, nil, fmt.Errorf("compute: %s: nil texture", where)
			}
			b.Image = res.vk
		case *Sampler:
			if res == nil {
				return nil, nil, fmt.Errorf("compute: %s: nil sampler", where)
			}
			b.Sampler = res.vk
		case nil:
			return nil, nil, fmt.Errorf("compute: %s: no resource", where)
		default:
			return nil, nil, fmt.Errorf("compute: %s: unsupported resource %T", where, a.res)
		}
		if a.sampler != nil {
			if b.Sampler != nil {
				return nil, nil, fmt.Errorf("compute: %s: two samplers", where)
			}
			b.Sampler = a.sampler.vk
		}
		bs = append(bs, b)
	}
	return bs, push, nil
}
