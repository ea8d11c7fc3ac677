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
	"github.com/gfxcuda/gfxcuda/compute"
)

var classNames = [4]string{"cbv", "srv", "uav", "samplers"}
var classLetters = [4]string{"b", "t", "u", "s"}

// bindClasses turns the four class lists (handles) into dispatch arguments
// and the handles the pipeline must keep alive.
func bindClasses(k *compute.Kernel, lists [4][]uint64) ([]compute.Arg, []uint64, error) {
	used := map[uint32]bool{}
	for _, r := range k.Resources() {
		if r.Set == 0 {
			used[r.Binding] = true
		}
	}
	var args []compute.Arg
	var deps []uint64
	owner := map[int]int{} // register number -> class that took it
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
			if prev, ok := owner[i]; ok {
				return nil, nil, errorf(stNotImplemented,
					"gfxcuda: registers %s%d and %s%d share binding %d in this build (compute binds by register number "+
						"whatever the class); class-aware binding comes with compute.SRV/UAV/CBV: use distinct register numbers meanwhile",
					classLetters[prev], i, classLetters[class], i, i)
			}
			owner[i] = class
			deps = append(deps, h)
			if !used[uint32(i)] {
				continue // bound but unused by the shader, as compushady allows
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
