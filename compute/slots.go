package compute

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gfxcuda/gfxcuda/shader"
)

// ClassOf returns the HLSL register class that binds r: b for constant
// buffers, s for samplers, t for read-only resources, u for read-write ones.
// A combined image sampler (GLSL sampler2D) is a t.
func ClassOf(r *shader.Resource) shader.RegisterClass {
	switch {
	case r.Kind == shader.UniformBuffer:
		return shader.ClassCBV
	case r.Kind == shader.Sampler:
		return shader.ClassSampler
	case r.ReadOnly || r.Kind == shader.SampledImage || r.Kind == shader.CombinedImageSampler || r.Kind == shader.UniformTexelBuffer:
		return shader.ClassSRV
	}
	return shader.ClassUAV
}

// ClassFunc is the name of the function that binds a register class:
// "SRV", "UAV", "CBV" or "SamplerAt".
func ClassFunc(c shader.RegisterClass) string {
	switch c {
	case shader.ClassSRV:
		return "SRV"
	case shader.ClassUAV:
		return "UAV"
	case shader.ClassCBV:
		return "CBV"
	case shader.ClassSampler:
		return "SamplerAt"
	}
	return "At"
}

// KindName describes a resource's kind for messages: "read-only buffer",
// "read-write 2D texture", "constant buffer"...
func KindName(r *shader.Resource) string {
	switch r.Kind {
	case shader.UniformBuffer:
		return "constant buffer"
	case shader.StorageBuffer:
		if r.ReadOnly {
			return "read-only buffer"
		}
		return "read-write buffer"
	case shader.UniformTexelBuffer:
		return "read-only typed buffer"
	case shader.StorageTexelBuffer:
		return "read-write typed buffer"
	case shader.SampledImage:
		return "read-only " + r.Dim.String() + " texture"
	case shader.CombinedImageSampler:
		return r.Dim.String() + " texture with sampler"
	case shader.StorageImage:
		return "read-write " + r.Dim.String() + " texture"
	case shader.Sampler:
		return "sampler"
	}
	return r.Kind.String()
}

// Register returns how k's shader names resource r: "t0", "u1 space 2"
// for HLSL registers (modules with register shifts), "binding 3" or
// "set 1 binding 3" otherwise.
func (k *Kernel) Register(r *shader.Resource) string {
	return registerName(k.shifted, r)
}

func registerName(shifted bool, r *shader.Resource) string {
	if shifted {
		if c, n, ok := shader.RegisterOf(r.Binding); ok {
			s := fmt.Sprintf("%s%d", c, n)
			if r.Set != 0 {
				s += fmt.Sprintf(" space %d", r.Set)
			}
			return s
		}
	}
	if r.Set != 0 {
		return fmt.Sprintf("set %d binding %d", r.Set, r.Binding)
	}
	return fmt.Sprintf("binding %d", r.Binding)
}

// RegisterNumber is the number the bind functions take for r: the HLSL
// register number with register shifts, else the binding.
func (k *Kernel) RegisterNumber(r *shader.Resource) uint32 {
	if k.shifted {
		if _, n, ok := shader.RegisterOf(r.Binding); ok {
			return n
		}
	}
	return r.Binding
}

// BindExample is the Go call that binds r, such as `compute.UAV(0, buf)`
// or `compute.SRV(1, tex).Space(2)`.
func (k *Kernel) BindExample(r *shader.Resource) string {
	c := ClassOf(r)
	arg := "buf"
	switch {
	case r.Kind == shader.Sampler:
		arg = "sampler"
	case r.Kind.IsImage():
		arg = "tex"
	}
	s := fmt.Sprintf("compute.%s(%d, %s)", ClassFunc(c), k.RegisterNumber(r), arg)
	if r.Set != 0 {
		s += fmt.Sprintf(".Space(%d)", r.Set)
	}
	return s
}

// ResourceList lists the kernel's resources for messages: "a (t0,
// read-only buffer); o (u0, read-write buffer)".
func (k *Kernel) ResourceList() string {
	rs := k.p.Resources()
	if len(rs) == 0 {
		return "the shader binds no resources"
	}
	parts := make([]string, len(rs))
	for i := range rs {
		parts[i] = fmt.Sprintf("%s (%s, %s)", rs[i].Name, k.Register(&rs[i]), KindName(&rs[i]))
	}
	return "the shader's resources: " + strings.Join(parts, "; ")
}

// ErrNoSuchResource is wrapped by the errors of Resolve (and of dispatches)
// for arguments that name a register, binding or name the shader does not
// declare.
var ErrNoSuchResource = errors.New("the shader declares no such resource")

// Resolve returns the shader resource an argument binds, or an error that
// names the argument, lists the shader's resources and says which call
// binds what.
//
// SRV, UAV, CBV and SamplerAt name an HLSL register; with a module whose
// bindings follow the register shifts (HLSL compiled by shader.Compile),
// register tN is binding 1024+N and so on. Other modules (GLSL, or HLSL
// with shader.Options.FlatRegisters) take the register number as the
// binding, and the resource's kind must fit the class.
func (k *Kernel) Resolve(a Arg) (*shader.Resource, error) {
	if a.isPush {
		return nil, fmt.Errorf("compute: push constants bind no resource")
	}
	where := a.Where()
	if a.name != "" {
		r := k.p.ResourceNamed(a.name)
		if r == nil {
			return nil, fmt.Errorf("compute: %s: %w: no resource called %q; %s", where, ErrNoSuchResource, a.name, k.ResourceList())
		}
		return r, nil
	}
	if a.slot < 0 {
		return nil, fmt.Errorf("compute: %s: negative register or binding", where)
	}
	slot := uint32(a.slot)
	if a.class != 0 {
		binding := slot
		if k.shifted {
			b, err := shader.RegisterBinding(a.class, slot)
			if err != nil {
				return nil, fmt.Errorf("compute: %s: %w", where, err)
			}
			binding = b
		}
		r := k.p.Resource(a.space, binding)
		if r == nil {
			return nil, fmt.Errorf("compute: %s: %w: no %s; %s", where, ErrNoSuchResource, k.wanted(a.class, slot, a.space), k.hint(a))
		}
		if c := ClassOf(r); c != a.class {
			return nil, fmt.Errorf("compute: %s: %s is %s, a %s; bind it with %s", where, k.Register(r), r.Name, KindName(r), k.BindExample(r))
		}
		return r, nil
	}
	if a.exact || !k.shifted || slot >= shader.RegisterRange {
		r := k.p.Resource(a.space, slot)
		if r == nil {
			return nil, fmt.Errorf("compute: %s: %w: no resource at set %d binding %d; %s", where, ErrNoSuchResource, a.space, slot, k.ResourceList())
		}
		return r, nil
	}
	// At(n) on HLSL registers: the one register numbered n, whatever its class.
	var found []*shader.Resource
	rs := k.p.Resources()
	for i := range rs {
		if _, n, ok := shader.RegisterOf(rs[i].Binding); ok && n == slot && rs[i].Set == a.space {
			found = append(found, &rs[i])
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("compute: %s: %w: no register numbered %d in space %d; %s", where, ErrNoSuchResource, slot, a.space, k.ResourceList())
	case 1:
		return found[0], nil
	}
	var alts []string
	for _, r := range found {
		alts = append(alts, fmt.Sprintf("%s is %s (%s)", k.Register(r), r.Name, k.BindExample(r)))
	}
	return nil, fmt.Errorf("compute: %s is ambiguous: %s; bind by register class instead", where, strings.Join(alts, ", "))
}

func (k *Kernel) wanted(c shader.RegisterClass, n, space uint32) string {
	if k.shifted {
		s := fmt.Sprintf("register %s%d", c, n)
		if space != 0 {
			s += fmt.Sprintf(" in space %d", space)
		}
		return s
	}
	return fmt.Sprintf("resource at set %d binding %d", space, n)
}

// hint lists the shader's resources and, where one has the register
// number asked for in another class, says so.
func (k *Kernel) hint(a Arg) string {
	rs := k.p.Resources()
	for i := range rs {
		r := &rs[i]
		if r.Set == a.space && k.RegisterNumber(r) == uint32(a.slot) {
			return fmt.Sprintf("%s is %s, a %s: bind it with %s; %s", k.Register(r), r.Name, KindName(r), k.BindExample(r), k.ResourceList())
		}
	}
	return k.ResourceList()
}
