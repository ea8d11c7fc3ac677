package cu

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLayout checks cu.h against the driver API's ABI on 64-bit Linux
// (cuda.h, CUDA 12.x: CUDA_MEMCPY2D_v2 is 128 bytes).
func TestLayout(t *testing.T) {
	want := map[string]uintptr{
		"sizeof(CUDA_EXTERNAL_MEMORY_HANDLE_DESC)":            104,
		"CUDA_EXTERNAL_MEMORY_HANDLE_DESC.handle":             8,
		"CUDA_EXTERNAL_MEMORY_HANDLE_DESC.size":               24,
		"CUDA_EXTERNAL_MEMORY_HANDLE_DESC.flags":              32,
		"sizeof(CUDA_EXTERNAL_MEMORY_BUFFER_DESC)":            88,
		"CUDA_EXTERNAL_MEMORY_BUFFER_DESC.flags":              16,
		"sizeof(CUDA_ARRAY3D_DESCRIPTOR)":                     40,
		"CUDA_ARRAY3D_DESCRIPTOR.Format":                      24,
		"CUDA_ARRAY3D_DESCRIPTOR.Flags":                       32,
		"sizeof(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC)":   120,
		"CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC.numLevels": 48,
		"sizeof(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC)":         96,
		"CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC.flags":           24,
		"sizeof(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS)":       144,
		"CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.flags":         72,
		"sizeof(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS)":         144,
		"CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS.flags":           72,
		"sizeof(CUmemAllocationProp)":                         32,
		"CUmemAllocationProp.win32HandleMetaData":             16,
		"CUmemAllocationProp.allocFlags":                      24,
		"sizeof(CUmemAccessDesc)":                             12,
		"sizeof(CUDA_RESOURCE_DESC)":                          144,
		"CUDA_RESOURCE_DESC.res":                              8,
		"CUDA_RESOURCE_DESC.flags":                            136,
		"sizeof(CUDA_MEMCPY3D)":                               200,
		"CUDA_MEMCPY3D.dstXInBytes":                           88,
		"sizeof(CUDA_MEMCPY3D_PEER)":                          200, // cuda.h: srcContext, dstContext in CUDA_MEMCPY3D's reserved0/1
		"CUDA_MEMCPY3D_PEER.srcContext":                       64,
		"CUDA_MEMCPY3D_PEER.dstContext":                       152,
		"CUDA_MEMCPY3D_PEER.WidthInBytes":                     176,
		"CUDA_MEMCPY3D.WidthInBytes":                          176,
		"CUDA_MEMCPY3D.reserved0":                             64,  // where CUDA_MEMCPY3D_PEER has srcContext
		"CUDA_MEMCPY3D.reserved1":                             152, // and dstContext (MemcpyThreeDPeerAsync)
		"sizeof(CUipcMemHandle)":                              64,
		"sizeof(CUresult)":                                    4,
		"sizeof(CUdevice)":                                    4,
		"sizeof(CUdeviceptr)":                                 8,
		"sizeof(CUcontext)":                                   8,
		"sizeof(CUuuid)":                                      16,
		"sizeof(CUDA_MEMCPY2D)":                               128,
		"CUDA_MEMCPY2D.srcXInBytes":                           0,
		"CUDA_MEMCPY2D.srcY":                                  8,
		"CUDA_MEMCPY2D.srcMemoryType":                         16,
		"CUDA_MEMCPY2D.srcHost":                               24,
		"CUDA_MEMCPY2D.srcDevice":                             32,
		"CUDA_MEMCPY2D.srcArray":                              40,
		"CUDA_MEMCPY2D.srcPitch":                              48,
		"CUDA_MEMCPY2D.dstXInBytes":                           56,
		"CUDA_MEMCPY2D.dstY":                                  64,
		"CUDA_MEMCPY2D.dstMemoryType":                         72,
		"CUDA_MEMCPY2D.dstHost":                               80,
		"CUDA_MEMCPY2D.dstDevice":                             88,
		"CUDA_MEMCPY2D.dstArray":                              96,
		"CUDA_MEMCPY2D.dstPitch":                              104,
		"CUDA_MEMCPY2D.WidthInBytes":                          112,
		"CUDA_MEMCPY2D.Height":                                120,
	}
	got := Layout()
	if len(got) != len(want) {
		t.Errorf("Layout has %d entries, test knows %d", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s = %d, want %d", k, g, w)
		}
	}
}

// TestNotLoaded runs TestNotLoadedChild in a process that cannot find
// libcuda, so the no-driver path is covered on GPU machines too.
func TestNotLoaded(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestNotLoadedChild$", "-test.v")
	cmd.Env = append(os.Environ(), "GFXCUDA_LIBCUDA=/nonexistent/libcuda.so.1", "GFXCUDA_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNotLoadedChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestNotLoadedChild checks that wrappers fail cleanly, never crash, when
// no driver could be loaded.
func TestNotLoadedChild(t *testing.T) {
	if os.Getenv("GFXCUDA_CHILD") != "1" {
		t.Skip("only meaningful in the child process TestNotLoaded starts")
	}
	if Load() == nil {
		t.Fatal("Load succeeded with GFXCUDA_LIBCUDA pointing nowhere")
	}
	if _, r := DeviceGetCount(); r != NotLoaded {
		t.Errorf("DeviceGetCount = %d, want NotLoaded", r)
	}
	if _, r := MemAlloc(Context{}, 16); r != NotLoaded {
		t.Errorf("MemAlloc = %d, want NotLoaded", r)
	}
	var le *LoadError
	if !errors.As(Load(), &le) {
		t.Errorf("Load() = %v, want *LoadError", Load())
	}
}
