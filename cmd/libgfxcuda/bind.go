package main

// bind.go maps compushady's binding model (lists of constant buffers,
// shader resources, unordered-access resources and samplers: entry i of a
// list binds HLSL register b<i>, t<i>, u<i> or s<i>) onto package compute's
// class-aware binding (compute.CBV, SRV, UAV, SamplerAt). For GLSL, entry i
// of a list binds the resource of that class at binding i.

import (
	"errors"

	"github.com/gfxcuda/gfxcuda/compute"
)

var classNames = [4]string{"cbv", "srv", "uav", "samplers"}

// bindClasses turns the four class lists (handles) into dispatch arguments
// and the handles the pipeline must keep alive. Entries whose register the
// shader does not declare are kept alive but not bound, as compushady
// allows; any other mismatch (a texture where the shader wants a buffer,
// say) is an error naming the entry.
func bindClasses(k *compute.Kernel, lists [4][]uint64) ([]compute.Arg, []uint64, error) {
	var args []compute.Arg
	var deps []uint64
	for class, list := range lists {
		for i, h := range list {
			var arg compute.Arg
			if class == 3 {
				s, err := get[*compute.Sampler](h, "sampler")
				if err != nil {
					return nil, nil, errorf(statusOf(err), "gfxcuda: %s[%d]: %v", classNames[class], i, err)
				}
				arg = compute.SamplerAt(i, s)
			} else {
				res, err := resourceOf(h)
				if err != nil {
					return nil, nil, errorf(statusOf(err), "gfxcuda: %s[%d]: %v", classNames[class], i, err)
				}
				arg = [3]func(int, compute.Resource) compute.Arg{compute.CBV, compute.SRV, compute.UAV}[class](i, res)
			}
			deps = append(deps, h)
			if _, err := k.Resolve(arg); err != nil {
				if errors.Is(err, compute.ErrNoSuchResource) {
					continue // the shader has no register of this class and number
				}
				return nil, nil, errorf(stInvalid, "gfxcuda: %s[%d]: %v", classNames[class], i, err)
			}
			args = append(args, arg)
		}
	}
	return args, deps, nil
}

// resourceOf returns the compute resource of a buffer or texture handle.
func resourceOf(h uint64) (compute.Resource, error) {
	handles.Lock()
	e, ok := handles.m[h]
	handles.Unlock()
	if !ok {
		return nil, errorf(stBadHandle, "%d is not a live handle", h)
	}
	switch o := e.obj.(type) {
	case *buffer:
		return o.Buffer, nil
	case *texture:
		return o.Texture, nil
	}
	return nil, errorf(stInvalid, "a %s cannot be bound as a buffer or texture", kindName(e.obj))
}
