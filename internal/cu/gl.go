package cu

/*
#include "cu.h"

static CUresult gfx_map1(CUcontext ctx, CUgraphicsResource r, CUstream s) {
	return gfx_cuGraphicsMapResources(ctx, 1, &r, s);
}
static CUresult gfx_unmap1(CUcontext ctx, CUgraphicsResource r, CUstream s) {
	return gfx_cuGraphicsUnmapResources(ctx, 1, &r, s);
}
*/
import "C"

import "unsafe"

// CUDA–OpenGL interop (cudaGL.h). The GL object must belong to the GL
// context current on the calling OS thread, and that context must run on
// the CUDA device: call these on the GL context's thread.

// GraphicsResource is a CUgraphicsResource.
type GraphicsResource struct{ h C.CUgraphicsResource }

// IsNil reports whether the handle is NULL.
func (r GraphicsResource) IsNil() bool { return r.h == nil }

// CUgraphicsRegisterFlags.
const (
	GraphicsRegisterNone          = 0x0
	GraphicsRegisterReadOnly      = 0x1
	GraphicsRegisterWriteDiscard  = 0x2
	GraphicsRegisterSurfaceLDST   = 0x4
	GraphicsRegisterTextureGather = 0x8
)

// GraphicsGLRegisterBuffer is cuGraphicsGLRegisterBuffer.
func GraphicsGLRegisterBuffer(c Context, buffer uint32, flags uint32) (GraphicsResource, Result) {
	var r C.CUgraphicsResource
	res := Result(C.gfx_cuGraphicsGLRegisterBuffer(c.h, &r, C.uint(buffer), C.uint(flags)))
	return GraphicsResource{r}, res
}

// GraphicsGLRegisterImage is cuGraphicsGLRegisterImage (target e.g.
// GL_TEXTURE_2D).
func GraphicsGLRegisterImage(c Context, image, target, flags uint32) (GraphicsResource, Result) {
	var r C.CUgraphicsResource
	res := Result(C.gfx_cuGraphicsGLRegisterImage(c.h, &r, C.uint(image), C.uint(target), C.uint(flags)))
	return GraphicsResource{r}, res
}

// GraphicsMapResources is cuGraphicsMapResources.
func GraphicsMapResources(c Context, rs []GraphicsResource, s Stream) Result {
	switch len(rs) {
	case 0:
		return Success
	case 1:
		return Result(C.gfx_map1(c.h, rs[0].h, s.h))
	}
	// GraphicsResource is one C pointer: the slice is a C array of handles
	// (Go memory holding no Go pointers).
	return Result(C.gfx_cuGraphicsMapResources(c.h, C.uint(len(rs)), (*C.CUgraphicsResource)(unsafe.Pointer(&rs[0])), s.h))
}

// GraphicsUnmapResources is cuGraphicsUnmapResources.
func GraphicsUnmapResources(c Context, rs []GraphicsResource, s Stream) Result {
	switch len(rs) {
	case 0:
		return Success
	case 1:
		return Result(C.gfx_unmap1(c.h, rs[0].h, s.h))
	}
	return Result(C.gfx_cuGraphicsUnmapResources(c.h, C.uint(len(rs)), (*C.CUgraphicsResource)(unsafe.Pointer(&rs[0])), s.h))
}

// GraphicsResourceGetMappedPointer is cuGraphicsResourceGetMappedPointer.
func GraphicsResourceGetMappedPointer(c Context, r GraphicsResource) (DevicePtr, uint64, Result) {
	var p C.CUdeviceptr
	var n C.size_t
	res := Result(C.gfx_cuGraphicsResourceGetMappedPointer(c.h, &p, &n, r.h))
	return DevicePtr(p), uint64(n), res
}

// GraphicsSubResourceGetMappedArray is cuGraphicsSubResourceGetMappedArray.
// The array belongs to the mapping: it is valid until unmap, and is not
// destroyed by the caller.
func GraphicsSubResourceGetMappedArray(c Context, r GraphicsResource, arrayIndex, mipLevel uint32) (Array, Result) {
	var a C.CUarray
	res := Result(C.gfx_cuGraphicsSubResourceGetMappedArray(c.h, &a, r.h, C.uint(arrayIndex), C.uint(mipLevel)))
	return Array{a}, res
}

// GraphicsUnregisterResource is cuGraphicsUnregisterResource.
func GraphicsUnregisterResource(c Context, r GraphicsResource) Result {
	return Result(C.gfx_cuGraphicsUnregisterResource(c.h, r.h))
}
