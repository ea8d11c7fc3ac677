package main

// bindglsl.go: compushady's binding of GLSL shaders. Its GLSL compiler
// numbers each class's resources itself, so a shader declaring a sampler at
// binding 0, a texture at 1, an image at 2 and a uniform block at 3 takes
// samplers=[s], srv=[t], uav=[i], cbv=[b]: entry i of a class list is the
// class's i-th resource in binding order. gfxcuda binds entry i at binding i
// first (bindClasses); when that leaves the shader's resources unbound or
// fails, a GLSL module is bound by this rule instead.

import (
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

var listClasses = [4]shader.RegisterClass{shader.ClassCBV, shader.ClassSRV, shader.ClassUAV, shader.ClassSampler}

// hlslModule reports whether the module's bindings look like DXC's register
// shifts (some binding at 1024 or above).
func hlslModule(k *compute.Kernel) bool {
	for _, r := range k.Resources() {
		if _, _, ok := shader.RegisterOf(r.Binding); ok && r.Binding >= 1024 {
			return true
		}
	}
	return false
}

// allBound reports whether args bind every resource the shader declares.
func allBound(k *compute.Kernel, args []compute.Arg) bool {
	bound := map[[2]uint32]bool{}
	for _, a := range args {
		if r, err := k.Resolve(a); err == nil && r != nil {
			bound[[2]uint32{r.Set, r.Binding}] = true
		}
	}
	for _, r := range k.Resources() {
		if !bound[[2]uint32{r.Set, r.Binding}] {
			return false
		}
	}
	return true
}

// bindCompushadyGLSL binds the lists by class ordinal (see the file's doc).
// ok is false when the module is not GLSL or the rule does not apply.
func bindCompushadyGLSL(k *compute.Kernel, lists [4][]uint64) (args []compute.Arg, deps []uint64, ok bool) {
	if hlslModule(k) {
		return nil, nil, false
	}
	res := k.Resources()
	for class, list := range lists {
		var of []int
		for i := range res {
			if compute.ClassOf(&res[i]) == listClasses[class] {
				of = append(of, i)
			}
		}
		for i, h := range list {
			deps = append(deps, h)
			if i >= len(of) {
				continue // unused entries are allowed, as compushady allows them
			}
			r := &res[of[i]]
			var arg compute.Arg
			if class == 3 {
				s, err := get[*compute.Sampler](h, "sampler")
				if err != nil {
					return nil, nil, false
				}
				arg = compute.AtBinding(r.Set, r.Binding, s)
			} else {
				rr, err := resourceOf(h)
				if err != nil {
					return nil, nil, false
				}
				arg = compute.AtBinding(r.Set, r.Binding, rr)
			}
			if _, err := k.Resolve(arg); err != nil {
				return nil, nil, false
			}
			args = append(args, arg)
		}
	}
	return args, deps, allBound(k, args)
}
