package cu

import (
	"os"
	"strings"
	"testing"
)

// introducedIn is the CUDA version whose driver API first has each entry
// point in the ABI Load requests (GFX_CU_API_VERSION, CUDA 12.0), from
// NVIDIA's cuda.h: a CUDA 12.0 driver provides every one of at most 12000.
// An entry point added to cu.h must be added here with its version; one
// that needs a newer driver must be optional (its callers handle
// MissingEntry with an error naming the feature) and is listed in
// optionalEntry.
var introducedIn = map[string]int{
	"cuInit": 2000, "cuDriverGetVersion": 2020, "cuGetErrorName": 6000, "cuGetErrorString": 6000,
	"cuDeviceGetCount": 2000, "cuDeviceGet": 2000, "cuDeviceGetName": 2000, "cuDeviceGetUuid": 11040,
	"cuDeviceGetPCIBusId": 4010, "cuDeviceTotalMem": 3020, "cuDeviceGetAttribute": 2000, "cuDeviceCanAccessPeer": 4000,
	"cuDevicePrimaryCtxRetain": 7000, "cuDevicePrimaryCtxRelease": 11000, "cuDevicePrimaryCtxGetState": 7000,
	"cuCtxGetCurrent": 4000, "cuCtxSetCurrent": 4000, "cuCtxCreate": 3020, "cuCtxDestroy": 4000,
	"cuCtxSynchronize":   2000,
	"cuEventSynchronize": 2000, "cuEventQuery": 2000, "cuEventElapsedTime": 2000,
	"cuStreamSynchronize": 2000, "cuStreamQuery": 2000, "cuMemGetInfo": 3020,
	"cuStreamCreate": 2000, "cuStreamDestroy": 4000, "cuStreamWaitEvent": 3020,
	"cuEventCreate": 2000, "cuEventDestroy": 4000, "cuEventRecord": 2000,
	"cuMemAlloc": 3020, "cuMemAllocPitch": 3020, "cuMemFree": 3020, "cuMemHostAlloc": 3020, "cuMemFreeHost": 2000,
	"cuMemcpyHtoD": 3020, "cuMemcpyDtoH": 3020, "cuMemcpyDtoD": 3020,
	"cuMemcpyHtoDAsync": 3020, "cuMemcpyDtoHAsync": 3020, "cuMemcpyDtoDAsync": 3020,
	"cuMemcpyPeerAsync": 4000, "cuCtxEnablePeerAccess": 4000,
	"cuMemcpy2D": 3020, "cuMemcpy2DAsync": 3020, "cuMemsetD8": 3020, "cuMemsetD32": 3020,
	"cuMemsetD8Async": 3020, "cuMemsetD32Async": 3020,
	"cuImportExternalMemory": 10000, "cuExternalMemoryGetMappedBuffer": 10000,
	"cuExternalMemoryGetMappedMipmappedArray": 10000, "cuDestroyExternalMemory": 10000,
	"cuMipmappedArrayGetLevel": 5000, "cuMipmappedArrayDestroy": 5000,
	"cuArray3DCreate": 3020, "cuArray3DGetDescriptor": 3020, "cuArrayDestroy": 2000,
	"cuImportExternalSemaphore": 10000, "cuSignalExternalSemaphoresAsync": 10000,
	"cuWaitExternalSemaphoresAsync": 10000, "cuDestroyExternalSemaphore": 10000,
	"cuMemGetAllocationGranularity": 10020, "cuMemCreate": 10020, "cuMemRelease": 10020,
	"cuMemExportToShareableHandle": 10020, "cuMemImportFromShareableHandle": 10020,
	"cuMemAddressReserve": 10020, "cuMemAddressFree": 10020, "cuMemMap": 10020, "cuMemUnmap": 10020,
	"cuMemSetAccess":   10020,
	"cuModuleLoadData": 2000, "cuModuleLoadDataEx": 2010, "cuModuleUnload": 2000, "cuModuleGetFunction": 2000,
	"cuFuncGetAttribute": 2020, "cuLaunchKernel": 4000, "cuSurfObjectCreate": 5000, "cuSurfObjectDestroy": 5000,
	"cuMemcpy3D": 3020, "cuMemcpy3DAsync": 3020, "cuMemcpy3DPeerAsync": 4000,
	"cuStreamWaitValue32": 11070, "cuStreamWriteValue32": 11070, // the _v2 ABI that 12.0 resolves
	"cuIpcGetMemHandle": 4010, "cuIpcOpenMemHandle": 11000, "cuIpcCloseMemHandle": 4010,
	"cuPointerGetAttribute":      4000,
	"cuGraphicsGLRegisterBuffer": 3000, "cuGraphicsGLRegisterImage": 3000, "cuGraphicsMapResources": 3000,
	"cuGraphicsUnmapResources": 3000, "cuGraphicsResourceGetMappedPointer": 3020,
	"cuGraphicsSubResourceGetMappedArray": 3000, "cuGraphicsUnregisterResource": 3000,
}

// incompatibleFrom names entry points whose cuGetProcAddress ABI changed
// its parameters at the given CUDA version (cudaTypedefs.h: a PFN_name_vN
// with another signature than cu.h's): Load must request them at an older
// version when that change is at or before APIVersion.
var incompatibleFrom = map[string]int{
	"cuCtxCreate": 11040, // _v3: an execution-affinity array and count before the flags
}

// optionalEntry names entry points newer than CUDA 12.0 that gfxcuda can do
// without (none today).
var optionalEntry = map[string]bool{}

// TestEntryPointVersions checks that a CUDA 12.0 driver provides every
// entry point Load resolves in the ABI it requests: nothing that only newer
// drivers have is needed.
func TestEntryPointVersions(t *testing.T) {
	if APIVersion != 12000 {
		t.Errorf("GFX_CU_API_VERSION = %d, want 12000 (CUDA 12.0 drivers and later)", APIVersion)
	}
	names := EntryPoints()
	if len(names) < 50 {
		t.Fatalf("EntryPoints lists %d names: %v", len(names), names)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s listed twice", n)
		}
		seen[n] = true
		v, ok := introducedIn[n]
		switch {
		case !ok:
			t.Errorf("%s: not in introducedIn: add the CUDA version that introduced it (cuda.h) to versions_test.go", n)
		case v > APIVersion && !optionalEntry[n]:
			t.Errorf("%s needs a CUDA %d.%d driver, newer than the 12.0 gfxcuda supports: make it optional", n, v/1000, v%1000/10)
		case v > ABIVersion(n):
			t.Errorf("%s is requested at %d, before CUDA %d introduced it", n, ABIVersion(n), v)
		}
		if c, ok := incompatibleFrom[n]; ok && ABIVersion(n) >= c {
			t.Errorf("%s is requested at %d, where cuGetProcAddress returns the ABI of %d, not the one cu.h declares: pin it in cu.c", n, ABIVersion(n), c)
		}
	}
	for _, essential := range []string{"cuInit", "cuCtxGetCurrent", "cuCtxSetCurrent"} {
		if !seen[essential] {
			t.Errorf("%s is not resolved", essential)
		}
	}
}

// TestDriverProvidesEveryEntryPoint checks, on a machine with a driver,
// that it resolved every entry point (GPU machine: CUDA 12 or 13 driver).
func TestDriverProvidesEveryEntryPoint(t *testing.T) {
	if err := Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required (GFXCUDA_REQUIRE_CUDA=1): %v", err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	v, r := DriverGetVersion()
	if r != Success {
		t.Fatalf("cuDriverGetVersion: %d", r)
	}
	if m := MissingEntryPoints(); m != "" {
		var required []string
		for _, n := range strings.Fields(m) {
			if !optionalEntry[n] {
				required = append(required, n)
			}
		}
		if len(required) > 0 {
			t.Errorf("the CUDA %d driver lacks %v", v, required)
		}
	}
}
