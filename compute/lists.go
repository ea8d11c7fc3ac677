package compute

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/shader"
)

// Lists are compushady's binding model: four lists of resources, in its
// order constant buffers (cbv), shader resources (srv), unordered-access
// resources (uav) and samplers. Entry i of a list binds HLSL register b<i>,
// t<i>, u<i> or s<i> (for GLSL, see Kernel.BindLists). Entries of the
// samplers list are *Sampler; the others *Buffer or *Texture.
type Lists [4][]Resource

// ListClasses are the register classes of the four Lists, in order.
var ListClasses = [4]shader.RegisterClass{shader.ClassCBV, shader.ClassSRV, shader.ClassUAV, shader.ClassSampler}

// ListNames are the names of the four Lists in messages, in order.
var ListNames = [4]string{"cbv", "srv", "uav", "samplers"}

// BindLists returns the arguments that bind l by compushady's rules:
//   - entry i of a list binds the register of its class numbered i
//     (Kernel.Resolve of CBV, SRV, UAV or SamplerAt with register i);
//     entries whose register the shader does not declare are not bound,
//     as compushady allows, and any other mismatch (a texture where the
//     shader wants a buffer, say) is an error naming the entry;
//   - when that fails, or leaves resources of the shader unbound, and the
//     module's bindings are not HLSL register shifts, the lists are bound
//     as compushady binds GLSL: its GLSL compiler numbers each class's
//     resources itself, so entry i of a list binds the class's i-th
//     resource in binding order (a shader with a sampler at binding 0, a
//     texture at 1, an image at 2 and a uniform block at 3 takes
//     samplers=[s], srv=[t], uav=[i], cbv=[b]). Unused entries are allowed
//     there too. When that rule does not bind every resource either, the
//     first rule's result (or error) stands.
func (k *Kernel) BindLists(l Lists) ([]Arg, error) {
	args, err := k.bindRegisters(l)
	if err != nil || !k.allBound(args) {
		if a, ok := k.bindOrdinals(l); ok {
			return a, nil
		}
	}
	return args, err
}

// listArg returns the argument of entry i of list class at register i.
func listArg(class, i int, r Resource) (Arg, error) {
	if class == 3 {
		s, ok := r.(*Sampler)
		if !ok {
			return Arg{}, fmt.Errorf("compute: %s[%d]: a %T is not a sampler", ListNames[class], i, r)
		}
		return SamplerAt(i, s), nil
	}
	if _, ok := r.(*Sampler); ok || r == nil {
		return Arg{}, fmt.Errorf("compute: %s[%d]: a %T cannot be bound as a buffer or texture", ListNames[class], i, r)
	}
	return [3]func(int, Resource) Arg{CBV, SRV, UAV}[class](i, r), nil
}

// bindRegisters is BindLists' first rule.
func (k *Kernel) bindRegisters(l Lists) ([]Arg, error) {
	var args []Arg
	for class, list := range l {
		for i, r := range list {
			arg, err := listArg(class, i, r)
			if err != nil {
				return nil, err
			}
			if _, err := k.Resolve(arg); err != nil {
				if errors.Is(err, ErrNoSuchResource) {
					continue // the shader has no register of this class and number
				}
				return nil, fmt.Errorf("compute: %s[%d]: %w", ListNames[class], i, err)
			}
			args = append(args, arg)
		}
	}
	return args, nil
}

// hlslShifted reports whether the module's bindings look like DXC's
// register shifts (some binding at 1024 or above).
func (k *Kernel) hlslShifted() bool {
	for _, r := range k.Resources() {
		if _, _, ok := shader.RegisterOf(r.Binding); ok && r.Binding >= 1024 {
			return true
		}
	}
	return false
}

// boundSet returns the (set, binding) pairs of the shader's resources that
// args bind.
func (k *Kernel) boundSet(args []Arg) map[[2]uint32]bool {
	bound := map[[2]uint32]bool{}
	for _, a := range args {
		if r, err := k.Resolve(a); err == nil && r != nil {
			bound[[2]uint32{r.Set, r.Binding}] = true
		}
	}
	return bound
}

// allBound reports whether args bind every resource the shader declares.
func (k *Kernel) allBound(args []Arg) bool {
	bound := k.boundSet(args)
	for _, r := range k.Resources() {
		if !bound[[2]uint32{r.Set, r.Binding}] {
			return false
		}
	}
	return true
}

// bindOrdinals is BindLists' GLSL rule; ok is false when the module is not
// GLSL or the rule does not bind every resource.
func (k *Kernel) bindOrdinals(l Lists) (args []Arg, ok bool) {
	if k.hlslShifted() {
		return nil, false
	}
	res := k.Resources()
	for class, list := range l {
		var of []int
		for i := range res {
			if ClassOf(&res[i]) == ListClasses[class] {
				of = append(of, i)
			}
		}
		for i, r := range list {
			if i >= len(of) {
				continue // unused entries are allowed, as compushady allows them
			}
			if _, isSampler := r.(*Sampler); r == nil || isSampler != (class == 3) {
				return nil, false
			}
			sr := &res[of[i]]
			arg := AtBinding(sr.Set, sr.Binding, r)
			if _, err := k.Resolve(arg); err != nil {
				return nil, false
			}
			args = append(args, arg)
		}
	}
	return args, k.allBound(args)
}

// Bindless holds the arguments of a bindless kernel (KernelOptions.Bindless)
// by compushady's binding lists: entries bound at creation
// (Kernel.NewBindless) and replaced one by one after (Bind). Its methods are
// safe for concurrent use.
type Bindless struct {
	k   *Kernel
	max uint32
	mu  sync.Mutex
	arg []Arg
}

// NewBindless binds l to a kernel made with KernelOptions.Bindless = max
// (max_bindless): each list of buffers and textures holds at most max
// entries, and entry i binds as Bind(class, i, r) does. max must be at
// least 1.
func (k *Kernel) NewBindless(max uint32, l Lists) (*Bindless, error) {
	if max == 0 {
		return nil, errors.New("compute: a bindless kernel of 0 descriptors; give max_bindless of at least 1")
	}
	b := &Bindless{k: k, max: max}
	for class, list := range l {
		if class < 3 && len(list) > int(max) {
			return nil, fmt.Errorf("compute: %d initial %s for a bindless kernel of %d (max_bindless)", len(list), ListNames[class], max)
		}
		for i, r := range list {
			if err := b.bind(class, uint32(i), r); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// Bind binds r as entry index of list class (0 cbv, 1 srv, 2 uav, 3
// samplers; see Lists), replacing what that entry bound: the class's
// resource of the shader whose register range holds index (an array at
// register r of n elements covers r to r+n-1), at element index-r. An
// index no resource of the shader covers is allowed and binds nothing, as
// in compushady; index must be below the kernel's max_bindless.
func (b *Bindless) Bind(class int, index uint32, r Resource) error {
	if class < 0 || class > 3 {
		return fmt.Errorf("compute: class %d (0 cbv, 1 srv, 2 uav, 3 samplers)", class)
	}
	if index >= b.max {
		return fmt.Errorf("compute: invalid bind index %d (max: %d)", index, b.max-1)
	}
	return b.bind(class, index, r)
}

func (b *Bindless) bind(class int, index uint32, r Resource) error {
	if _, isSampler := r.(*Sampler); r == nil || isSampler != (class == 3) {
		return fmt.Errorf("compute: %s[%d]: a %T cannot be bound there", ListNames[class], index, r)
	}
	var arg Arg
	found := false
	for _, sr := range b.k.Resources() {
		if ClassOf(&sr) != ListClasses[class] {
			continue
		}
		first := sr.Binding
		if _, reg, ok := shader.RegisterOf(sr.Binding); ok && b.k.Shifted() {
			first = uint32(reg)
		}
		if index >= first && index < first+sr.ArraySize {
			arg = AtBinding(sr.Set, sr.Binding, r).Element(index - first)
			found = true
			break
		}
	}
	if !found {
		return nil // no resource of the shader there: allowed, as in compushady
	}
	if _, err := b.k.Resolve(arg); err != nil {
		return fmt.Errorf("compute: %s[%d]: %w", ListNames[class], index, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	args := make([]Arg, 0, len(b.arg)+1)
	for _, a := range b.arg {
		if !a.SameSlot(arg) {
			args = append(args, a)
		}
	}
	b.arg = append(args, arg)
	return nil
}

// Args returns the arguments bound now, for Kernel.Dispatch (the slice is
// not changed by later binds).
func (b *Bindless) Args() []Arg {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.arg
}
