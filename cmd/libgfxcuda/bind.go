package main

// bind.go maps compushady's binding model (lists of constant buffers,
// shader resources, unordered-access resources and samplers: entry i of a
// list binds HLSL register b<i>, t<i>, u<i> or s<i>) onto package compute.
//
// MERGE NOTE: today's compute binds by slot (compute.At): an HLSL
// register's number is its binding whatever its class, so t0 and u0 collide.
// With class-aware binding (compute.CBV(i, r), compute.SRV(i, r),
// compute.UAV(i, r), compute.SamplerAt(i, s)) this file becomes one call per
// entry and the collision check below goes away.

import (
	"slices"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

var classNames = [4]string{"cbv", "srv", "uav", "samplers"}

// classOf is the compushady class (0 cbv, 1 srv, 2 uav, 3 samplers) of a
// reflected resource.
func classOf(r shader.Resource) int {
	switch r.Kind {
	case shader.UniformBuffer:
		return 0
	case shader.Sampler:
		return 3
	case shader.StorageImage, shader.StorageTexelBuffer:
		return 2
	case shader.StorageBuffer:
		if r.ReadOnly {
			return 1
		}
		return 2
	}
	return 1 // sampled images, uniform texel buffers, combined image samplers
}

// bindClasses turns the four class lists (handles) into dispatch arguments
// and the handles the pipeline must keep alive. Entries whose register the
// shader does not use are kept alive but not bound, as compushady allows.
func bindClasses(k *compute.Kernel, lists [4][]uint64) ([]compute.Arg, []uint64, error) {
	// The classes of the shader's resources at each binding of set 0.
	at := map[uint32][]int{}
	for _, r := range k.Module().Resources {
		if r.Set == 0 {
			at[r.Binding] = append(at[r.Binding], classOf(r))
		}
	}
	var args []compute.Arg
	var deps []uint64
	for class, list := range lists {
		for i, h := range list {
			var res compute.Resource
			var err error
			if class == 3 {
				res, err = get[*compute.Sampler](h, "sampler")
			} else {
				res, err = resourceOf(h)
			}
			if err != nil {
				return nil, nil, errorf(statusOf(err), "gfxcuda: %s[%d]: %v", classNames[class], i, err)
			}
			deps = append(deps, h)
			classes := at[uint32(i)]
			if !slices.Contains(classes, class) {
				continue // the shader has no register of this class and number
			}
			if len(classes) > 1 {
				return nil, nil, errorf(stNotImplemented,
					"gfxcuda: the shader has registers of %d classes numbered %d (e.g. t%d and u%d), which share binding %d in this build "+
						"(compute binds by register number whatever the class); class-aware binding comes with compute.SRV/UAV/CBV: "+
						"use distinct register numbers meanwhile", len(classes), i, i, i, i)
			}
			args = append(args, compute.At(i, res))
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
