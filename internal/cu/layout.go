package cu

// #include "cu.h"
import "C"

import "unsafe"

// Layout reports the size and field offsets of the C declarations in cu.h,
// so tests can compare them with the ABI NVIDIA documents for 64-bit Linux.
func Layout() map[string]uintptr {
	var m C.CUDA_MEMCPY2D
	var u C.CUuuid
	return map[string]uintptr{
		"sizeof(CUresult)":            unsafe.Sizeof(C.CUresult(0)),
		"sizeof(CUdevice)":            unsafe.Sizeof(C.CUdevice(0)),
		"sizeof(CUdeviceptr)":         unsafe.Sizeof(C.CUdeviceptr(0)),
		"sizeof(CUcontext)":           unsafe.Sizeof(C.CUcontext(nil)),
		"sizeof(CUuuid)":              unsafe.Sizeof(u),
		"sizeof(CUDA_MEMCPY2D)":       unsafe.Sizeof(m),
		"CUDA_MEMCPY2D.srcXInBytes":   unsafe.Offsetof(m.srcXInBytes),
		"CUDA_MEMCPY2D.srcY":          unsafe.Offsetof(m.srcY),
		"CUDA_MEMCPY2D.srcMemoryType": unsafe.Offsetof(m.srcMemoryType),
		"CUDA_MEMCPY2D.srcHost":       unsafe.Offsetof(m.srcHost),
		"CUDA_MEMCPY2D.srcDevice":     unsafe.Offsetof(m.srcDevice),
		"CUDA_MEMCPY2D.srcArray":      unsafe.Offsetof(m.srcArray),
		"CUDA_MEMCPY2D.srcPitch":      unsafe.Offsetof(m.srcPitch),
		"CUDA_MEMCPY2D.dstXInBytes":   unsafe.Offsetof(m.dstXInBytes),
		"CUDA_MEMCPY2D.dstY":          unsafe.Offsetof(m.dstY),
		"CUDA_MEMCPY2D.dstMemoryType": unsafe.Offsetof(m.dstMemoryType),
		"CUDA_MEMCPY2D.dstHost":       unsafe.Offsetof(m.dstHost),
		"CUDA_MEMCPY2D.dstDevice":     unsafe.Offsetof(m.dstDevice),
		"CUDA_MEMCPY2D.dstArray":      unsafe.Offsetof(m.dstArray),
		"CUDA_MEMCPY2D.dstPitch":      unsafe.Offsetof(m.dstPitch),
		"CUDA_MEMCPY2D.WidthInBytes":  unsafe.Offsetof(m.WidthInBytes),
		"CUDA_MEMCPY2D.Height":        unsafe.Offsetof(m.Height),
	}
}
