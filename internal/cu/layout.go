package cu

// #include "cu.h"
import "C"

import "unsafe"

// Layout reports the size and field offsets of the C declarations in cu.h,
// so tests can compare them with the ABI NVIDIA documents for 64-bit Linux.
func Layout() map[string]uintptr {
	var m C.CUDA_MEMCPY2D
	var u C.CUuuid
	var emh C.CUDA_EXTERNAL_MEMORY_HANDLE_DESC
	var emb C.CUDA_EXTERNAL_MEMORY_BUFFER_DESC
	var ema C.CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC
	var a3 C.CUDA_ARRAY3D_DESCRIPTOR
	var esh C.CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC
	var ess C.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS
	var esw C.CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS
	var prop C.CUmemAllocationProp
	var acc C.CUmemAccessDesc
	var res C.CUDA_RESOURCE_DESC
	var m3 C.CUDA_MEMCPY3D
	var m3p C.CUDA_MEMCPY3D_PEER
	var ipc C.CUipcMemHandle
	return map[string]uintptr{
		"sizeof(CUDA_EXTERNAL_MEMORY_HANDLE_DESC)":            unsafe.Sizeof(emh),
		"CUDA_EXTERNAL_MEMORY_HANDLE_DESC.handle":             unsafe.Offsetof(emh.handle),
		"CUDA_EXTERNAL_MEMORY_HANDLE_DESC.size":               unsafe.Offsetof(emh.size),
		"CUDA_EXTERNAL_MEMORY_HANDLE_DESC.flags":              unsafe.Offsetof(emh.flags),
		"sizeof(CUDA_EXTERNAL_MEMORY_BUFFER_DESC)":            unsafe.Sizeof(emb),
		"CUDA_EXTERNAL_MEMORY_BUFFER_DESC.flags":              unsafe.Offsetof(emb.flags),
		"sizeof(CUDA_ARRAY3D_DESCRIPTOR)":                     unsafe.Sizeof(a3),
		"CUDA_ARRAY3D_DESCRIPTOR.Format":                      unsafe.Offsetof(a3.Format),
		"CUDA_ARRAY3D_DESCRIPTOR.Flags":                       unsafe.Offsetof(a3.Flags),
		"sizeof(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC)":   unsafe.Sizeof(ema),
		"CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC.numLevels": unsafe.Offsetof(ema.numLevels),
		"sizeof(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC)":         unsafe.Sizeof(esh),
		"CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC.flags":           unsafe.Offsetof(esh.flags),
		"sizeof(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS)":       unsafe.Sizeof(ess),
		"CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.flags":         unsafe.Offsetof(ess.flags),
		"sizeof(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS)":         unsafe.Sizeof(esw),
		"CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS.flags":           unsafe.Offsetof(esw.flags),
		"sizeof(CUmemAllocationProp)":                         unsafe.Sizeof(prop),
		"CUmemAllocationProp.win32HandleMetaData":             unsafe.Offsetof(prop.win32HandleMetaData),
		"CUmemAllocationProp.allocFlags":                      unsafe.Offsetof(prop.allocFlags),
		"sizeof(CUmemAccessDesc)":                             unsafe.Sizeof(acc),
		"sizeof(CUDA_RESOURCE_DESC)":                          unsafe.Sizeof(res),
		"CUDA_RESOURCE_DESC.res":                              unsafe.Offsetof(res.res),
		"CUDA_RESOURCE_DESC.flags":                            unsafe.Offsetof(res.flags),
		"sizeof(CUDA_MEMCPY3D)":                               unsafe.Sizeof(m3),
		"CUDA_MEMCPY3D.dstXInBytes":                           unsafe.Offsetof(m3.dstXInBytes),
		"sizeof(CUDA_MEMCPY3D_PEER)":                          unsafe.Sizeof(m3p),
		"CUDA_MEMCPY3D_PEER.srcContext":                       unsafe.Offsetof(m3p.srcContext),
		"CUDA_MEMCPY3D_PEER.dstContext":                       unsafe.Offsetof(m3p.dstContext),
		"CUDA_MEMCPY3D_PEER.WidthInBytes":                     unsafe.Offsetof(m3p.WidthInBytes),
		"CUDA_MEMCPY3D.WidthInBytes":                          unsafe.Offsetof(m3.WidthInBytes),
		"CUDA_MEMCPY3D.reserved0":                             unsafe.Offsetof(m3.reserved0),
		"CUDA_MEMCPY3D.reserved1":                             unsafe.Offsetof(m3.reserved1),
		"sizeof(CUipcMemHandle)":                              unsafe.Sizeof(ipc),
		"sizeof(CUresult)":                                    unsafe.Sizeof(C.CUresult(0)),
		"sizeof(CUdevice)":                                    unsafe.Sizeof(C.CUdevice(0)),
		"sizeof(CUdeviceptr)":                                 unsafe.Sizeof(C.CUdeviceptr(0)),
		"sizeof(CUcontext)":                                   unsafe.Sizeof(C.CUcontext(nil)),
		"sizeof(CUuuid)":                                      unsafe.Sizeof(u),
		"sizeof(CUDA_MEMCPY2D)":                               unsafe.Sizeof(m),
		"CUDA_MEMCPY2D.srcXInBytes":                           unsafe.Offsetof(m.srcXInBytes),
		"CUDA_MEMCPY2D.srcY":                                  unsafe.Offsetof(m.srcY),
		"CUDA_MEMCPY2D.srcMemoryType":                         unsafe.Offsetof(m.srcMemoryType),
		"CUDA_MEMCPY2D.srcHost":                               unsafe.Offsetof(m.srcHost),
		"CUDA_MEMCPY2D.srcDevice":                             unsafe.Offsetof(m.srcDevice),
		"CUDA_MEMCPY2D.srcArray":                              unsafe.Offsetof(m.srcArray),
		"CUDA_MEMCPY2D.srcPitch":                              unsafe.Offsetof(m.srcPitch),
		"CUDA_MEMCPY2D.dstXInBytes":                           unsafe.Offsetof(m.dstXInBytes),
		"CUDA_MEMCPY2D.dstY":                                  unsafe.Offsetof(m.dstY),
		"CUDA_MEMCPY2D.dstMemoryType":                         unsafe.Offsetof(m.dstMemoryType),
		"CUDA_MEMCPY2D.dstHost":                               unsafe.Offsetof(m.dstHost),
		"CUDA_MEMCPY2D.dstDevice":                             unsafe.Offsetof(m.dstDevice),
		"CUDA_MEMCPY2D.dstArray":                              unsafe.Offsetof(m.dstArray),
		"CUDA_MEMCPY2D.dstPitch":                              unsafe.Offsetof(m.dstPitch),
		"CUDA_MEMCPY2D.WidthInBytes":                          unsafe.Offsetof(m.WidthInBytes),
		"CUDA_MEMCPY2D.Height":                                unsafe.Offsetof(m.Height),
	}
}
