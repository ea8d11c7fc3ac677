package cuda

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// UUID identifies a GPU. Vulkan's deviceUUID and OpenGL's device UUID of the
// same GPU are equal to it, which is how gfxcuda finds "the same GPU" in
// several APIs.
type UUID [16]byte

// String formats the UUID as nvidia-smi does, without its "GPU-" prefix.
func (u UUID) String() string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// IsZero reports whether all bytes are zero.
func (u UUID) IsZero() bool { return u == UUID{} }

// Device is a CUDA device.
type Device struct {
	ordinal int
	h       cu.Device
}

// Attribute is a CUdevice_attribute.
type Attribute int

// Device attributes (values from cuda.h).
const (
	AttrMaxThreadsPerBlock               Attribute = 1
	AttrMaxGridDimX                      Attribute = 5
	AttrMaxSharedMemoryPerBlock          Attribute = 8
	AttrWarpSize                         Attribute = 10
	AttrClockRate                        Attribute = 13
	AttrMultiprocessorCount              Attribute = 16
	AttrIntegrated                       Attribute = 18
	AttrComputeMode                      Attribute = 20
	AttrConcurrentKernels                Attribute = 31
	AttrECCEnabled                       Attribute = 32
	AttrPCIBusID                         Attribute = 33
	AttrPCIDeviceID                      Attribute = 34
	AttrMemoryClockRate                  Attribute = 36
	AttrGlobalMemoryBusWidth             Attribute = 37
	AttrL2CacheSize                      Attribute = 38
	AttrUnifiedAddressing                Attribute = 41
	AttrPCIDomainID                      Attribute = 50
	AttrComputeCapabilityMajor           Attribute = 75
	AttrComputeCapabilityMinor           Attribute = 76
	AttrManagedMemory                    Attribute = 83
	AttrVirtualMemoryManagement          Attribute = 102
	AttrHandleTypePosixFD                Attribute = 103
	AttrTimelineSemaphoreInterop         Attribute = 114
	AttrMemoryPools                      Attribute = 115
	AttrCanUse64BitStreamMemOps          Attribute = 122
	AttrDMABufSupported                  Attribute = 124
	AttrIPCEventSupported                Attribute = 125
	AttrMaxSharedMemoryPerBlockOptin     Attribute = 97
	AttrHostRegisterSupported            Attribute = 99
	AttrPageableMemoryAccess             Attribute = 88
	AttrCooperativeLaunch                Attribute = 95
	AttrMaxBlocksPerMultiprocessor       Attribute = 106
	AttrGenericCompressionSupported      Attribute = 107
	AttrGPUDirectRDMASupported           Attribute = 116
	AttrMemPoolSupportedHandleTypes      Attribute = 119
	AttrDeferredMappingArraySupported    Attribute = 121
	AttrMaxTexture2DWidth                Attribute = 22
	AttrMaxTexture2DHeight               Attribute = 23
	AttrMaxSurface2DWidth                Attribute = 55
	AttrMaxSurface2DHeight               Attribute = 56
	AttrTextureAlignment                 Attribute = 14
	AttrTexturePitchAlignment            Attribute = 51
	AttrAsyncEngineCount                 Attribute = 40
	AttrStreamPrioritiesSupported        Attribute = 78
	AttrGlobalL1CacheSupported           Attribute = 79
	AttrMaxRegistersPerBlock             Attribute = 12
	AttrMaxThreadsPerMultiprocessor      Attribute = 39
	AttrKernelExecTimeout                Attribute = 17
	AttrCanMapHostMemory                 Attribute = 19
	AttrTCCDriver                        Attribute = 35
	AttrMultiGPUBoard                    Attribute = 84
	AttrSingleToDoublePrecisionPerfRatio Attribute = 87
)

// DeviceCount returns the number of CUDA devices.
func DeviceCount() (int, error) {
	if err := Init(); err != nil {
		return 0, err
	}
	n, r := cu.DeviceGetCount()
	return n, check("cuDeviceGetCount", r)
}

// GetDevice returns the device of the given ordinal (0 ≤ ordinal < DeviceCount).
func GetDevice(ordinal int) (Device, error) {
	if err := Init(); err != nil {
		return Device{}, err
	}
	h, r := cu.DeviceGet(ordinal)
	if err := check("cuDeviceGet", r); err != nil {
		return Device{}, fmt.Errorf("cuda device %d: %w", ordinal, err)
	}
	return Device{ordinal: ordinal, h: h}, nil
}

// Devices returns every CUDA device, in CUDA's order (which can differ from
// Vulkan's and nvidia-smi's: match devices by UUID, never by index).
func Devices() ([]Device, error) {
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	out := make([]Device, 0, n)
	for i := 0; i < n; i++ {
		d, err := GetDevice(i)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// DeviceByUUID returns the CUDA device whose UUID is u.
func DeviceByUUID(u UUID) (Device, error) {
	devs, err := Devices()
	if err != nil {
		return Device{}, err
	}
	for _, d := range devs {
		if du, err := d.UUID(); err == nil && du == u {
			return d, nil
		}
	}
	return Device{}, fmt.Errorf("cuda: no device with UUID %s among %d devices: %w", u, len(devs), ErrorInvalidDevice)
}

// Ordinal is the device's index in CUDA's enumeration.
func (d Device) Ordinal() int { return d.ordinal }

// Name returns the device's product name.
func (d Device) Name() (string, error) {
	s, r := cu.DeviceGetName(d.h)
	return s, check("cuDeviceGetName", r)
}

// UUID returns the device's UUID.
func (d Device) UUID() (UUID, error) {
	u, r := cu.DeviceGetUUID(d.h)
	return UUID(u), check("cuDeviceGetUuid", r)
}

// PCIBusID returns the PCI address, e.g. "0000:65:00.0".
func (d Device) PCIBusID() (string, error) {
	s, r := cu.DeviceGetPCIBusID(d.h)
	return s, check("cuDeviceGetPCIBusId", r)
}

// TotalMemory returns the device's memory in bytes.
func (d Device) TotalMemory() (uint64, error) {
	n, r := cu.DeviceTotalMem(d.h)
	return n, check("cuDeviceTotalMem", r)
}

// Attribute returns one device attribute.
func (d Device) Attribute(a Attribute) (int, error) {
	v, r := cu.DeviceGetAttribute(d.h, int(a))
	if err := check("cuDeviceGetAttribute", r); err != nil {
		return 0, fmt.Errorf("attribute %d: %w", int(a), err)
	}
	return v, nil
}

// ComputeCapability returns the SM version, e.g. 9, 0 for Hopper.
func (d Device) ComputeCapability() (major, minor int, err error) {
	if major, err = d.Attribute(AttrComputeCapabilityMajor); err != nil {
		return 0, 0, err
	}
	minor, err = d.Attribute(AttrComputeCapabilityMinor)
	return major, minor, err
}

// DeviceInfo is a summary of a device, as `gfxcuda devices` prints it.
type DeviceInfo struct {
	Ordinal            int    `json:"ordinal"`
	Name               string `json:"name"`
	UUID               UUID   `json:"-"`
	UUIDString         string `json:"uuid"`
	PCIBusID           string `json:"pci_bus_id"`
	TotalMemory        uint64 `json:"total_memory"`
	FreeMemory         uint64 `json:"free_memory"`
	ComputeMajor       int    `json:"compute_major"`
	ComputeMinor       int    `json:"compute_minor"`
	Multiprocessors    int    `json:"multiprocessors"`
	Integrated         bool   `json:"integrated"`
	UnifiedAddressing  bool   `json:"unified_addressing"`
	PosixFDHandles     bool   `json:"posix_fd_handles"`    // cuMemCreate can export POSIX fds
	TimelineSemaphores bool   `json:"timeline_semaphores"` // external timeline semaphore interop
	VirtualMemory      bool   `json:"virtual_memory"`      // cuMemCreate/cuMemMap
	DMABuf             bool   `json:"dma_buf"`
}

// Info gathers a DeviceInfo. Free memory is read through the primary
// context, which is retained and released for that purpose.
func (d Device) Info() (DeviceInfo, error) {
	var in DeviceInfo
	var err error
	in.Ordinal = d.ordinal
	if in.Name, err = d.Name(); err != nil {
		return in, err
	}
	if in.UUID, err = d.UUID(); err != nil {
		return in, err
	}
	in.UUIDString = in.UUID.String()
	if in.PCIBusID, err = d.PCIBusID(); err != nil {
		return in, err
	}
	if in.TotalMemory, err = d.TotalMemory(); err != nil {
		return in, err
	}
	if in.ComputeMajor, in.ComputeMinor, err = d.ComputeCapability(); err != nil {
		return in, err
	}
	flags := []struct {
		a   Attribute
		dst *bool
	}{
		{AttrIntegrated, &in.Integrated},
		{AttrUnifiedAddressing, &in.UnifiedAddressing},
		{AttrHandleTypePosixFD, &in.PosixFDHandles},
		{AttrTimelineSemaphoreInterop, &in.TimelineSemaphores},
		{AttrVirtualMemoryManagement, &in.VirtualMemory},
		{AttrDMABufSupported, &in.DMABuf},
	}
	for _, f := range flags {
		v, err := d.Attribute(f.a)
		if err != nil {
			return in, err
		}
		*f.dst = v != 0
	}
	if in.Multiprocessors, err = d.Attribute(AttrMultiprocessorCount); err != nil {
		return in, err
	}
	ctx, err := d.PrimaryContext()
	if err != nil {
		return in, err
	}
	defer ctx.Close()
	in.FreeMemory, _, err = ctx.MemInfo()
	return in, err
}

// ParseUUID reads a GPU UUID as nvidia-smi -L prints it ("GPU-" then 32
// hexadecimal digits in groups of 8-4-4-4-12), with or without the "GPU-"
// prefix and the dashes.
func ParseUUID(s string) (UUID, error) {
	h := strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(s), "GPU-"), "-", "")
	var u UUID
	if len(h) != 32 {
		return u, fmt.Errorf("cuda: %q is not a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as nvidia-smi -L prints): %w", s, ErrorInvalidValue)
	}
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return u, fmt.Errorf("cuda: %q is not a GPU UUID: %v: %w", s, err, ErrorInvalidValue)
	}
	return u, nil
}

// LookupDevice finds a device by ordinal ("1") or by UUID ("GPU-…", with
// or without the prefix, as ParseUUID reads it). Ordinals count the
// devices this process sees (after CUDA_VISIBLE_DEVICES); UUIDs do not
// change with it.
func LookupDevice(s string) (Device, error) {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return GetDevice(n)
	}
	u, err := ParseUUID(s)
	if err != nil {
		return Device{}, fmt.Errorf("cuda: device %q: give an ordinal or a GPU UUID: %w", s, err)
	}
	return DeviceByUUID(u)
}
