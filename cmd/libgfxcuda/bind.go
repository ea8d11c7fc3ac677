package main

// bind.go turns compushady's binding lists of handles (constant buffers,
// shader resources, unordered-access resources, samplers) into
// compute.Lists; the binding rules are package compute's
// (Kernel.BindLists, Kernel.NewBindless, Bindless.Bind).

/*
#include <stdint.h>
*/
import "C"

import (
	"unsafe"

	"github.com/gfxcuda/gfxcuda/compute"
)

var classNames = compute.ListNames

// handleList is a C array of handles.
type handleList struct {
	p *C.uint64_t
	n C.size_t
}

// handles reads the list (fn names the C function for messages).
func (l handleList) handles(fn string) ([]uint64, error) {
	if l.n == 0 {
		return nil, nil
	}
	if l.p == nil {
		return nil, errorf(stInvalid, "%s: null list of %d handles", fn, l.n)
	}
	return append([]uint64(nil), unsafe.Slice((*uint64)(unsafe.Pointer(l.p)), int(l.n))...), nil
}

// listResources resolves the four lists of handles into compute.Lists (a
// sampler handle in the samplers list, a buffer or texture in the others)
// and returns every handle, for the pipeline to keep alive.
func listResources(hs [4][]uint64) (compute.Lists, []uint64, error) {
	var l compute.Lists
	var deps []uint64
	for class, list := range hs {
		for i, h := range list {
			r, err := listResource(class, h)
			if err != nil {
				return l, nil, errorf(statusOf(err), "gfxcuda: %s[%d]: %v", classNames[class], i, err)
			}
			l[class] = append(l[class], r)
			deps = append(deps, h)
		}
	}
	return l, deps, nil
}

// listResource resolves an entry of list class.
func listResource(class int, h uint64) (compute.Resource, error) {
	if class == 3 {
		return get[*compute.Sampler](h, "sampler")
	}
	return resourceOf(h)
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
