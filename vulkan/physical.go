package vulkan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// DeviceType is a VkPhysicalDeviceType.
type DeviceType uint32

// Physical device types.
const (
	DeviceTypeOther      DeviceType = vk.PhysicalDeviceTypeOther
	DeviceTypeIntegrated DeviceType = vk.PhysicalDeviceTypeIntegratedGPU
	DeviceTypeDiscrete   DeviceType = vk.PhysicalDeviceTypeDiscreteGPU
	DeviceTypeVirtual    DeviceType = vk.PhysicalDeviceTypeVirtualGPU
	DeviceTypeCPU        DeviceType = vk.PhysicalDeviceTypeCPU
)

// String returns a short description, such as "discrete GPU".
func (t DeviceType) String() string {
	switch t {
	case DeviceTypeOther:
		return "other"
	case DeviceTypeIntegrated:
		return "integrated GPU"
	case DeviceTypeDiscrete:
		return "discrete GPU"
	case DeviceTypeVirtual:
		return "virtual GPU"
	case DeviceTypeCPU:
		return "CPU"
	}
	return fmt.Sprintf("DeviceType(%d)", uint32(t))
}

// HandleType is a kind of external handle memory or a semaphore can be
// exported to or imported from.
type HandleType int

// External handle types.
const (
	// OpaqueFD is a driver-specific file descriptor
	// (VK_EXTERNAL_*_HANDLE_TYPE_OPAQUE_FD_BIT), the kind CUDA imports.
	OpaqueFD HandleType = iota + 1
	// DMABuf is a Linux dma-buf file descriptor
	// (VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT), the kind EGL imports.
	DMABuf
	// HostAllocation is host memory the application allocated
	// (VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT).
	HostAllocation
	// SyncFD is a Linux sync file of a binary semaphore's payload
	// (VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT).
	SyncFD
)

// String returns the Vulkan-style name, such as "OPAQUE_FD".
func (h HandleType) String() string {
	switch h {
	case OpaqueFD:
		return "OPAQUE_FD"
	case DMABuf:
		return "DMA_BUF"
	case HostAllocation:
		return "HOST_ALLOCATION"
	case SyncFD:
		return "SYNC_FD"
	}
	return fmt.Sprintf("HandleType(%d)", int(h))
}

// memoryHandle returns the VkExternalMemoryHandleTypeFlagBits of h and the
// device extension it needs; 0 for a handle type memory does not have.
func (h HandleType) memoryHandle() (bit uint32, ext string) {
	switch h {
	case OpaqueFD:
		return vk.ExternalMemoryHandleTypeOpaqueFD, vk.ExtExternalMemoryFD
	case DMABuf:
		return vk.ExternalMemoryHandleTypeDMABuf, vk.ExtExternalMemoryDMABuf
	case HostAllocation:
		return vk.ExternalMemoryHandleTypeHostAllocation, vk.ExtExternalMemoryHost
	}
	return 0, ""
}

// semaphoreHandle returns the VkExternalSemaphoreHandleTypeFlagBits of h;
// 0 for a handle type semaphores do not have.
func (h HandleType) semaphoreHandle() uint32 {
	switch h {
	case OpaqueFD:
		return vk.ExternalSemaphoreHandleTypeOpaqueFD
	case SyncFD:
		return vk.ExternalSemaphoreHandleTypeSyncFD
	}
	return 0
}

// MemoryPropertyFlags is a VkMemoryPropertyFlags bit set.
type MemoryPropertyFlags uint32

// Memory property bits.
const (
	MemoryDeviceLocal     MemoryPropertyFlags = vk.MemoryPropertyDeviceLocal
	MemoryHostVisible     MemoryPropertyFlags = vk.MemoryPropertyHostVisible
	MemoryHostCoherent    MemoryPropertyFlags = vk.MemoryPropertyHostCoherent
	MemoryHostCached      MemoryPropertyFlags = vk.MemoryPropertyHostCached
	MemoryLazilyAllocated MemoryPropertyFlags = vk.MemoryPropertyLazilyAllocated
	MemoryProtected       MemoryPropertyFlags = vk.MemoryPropertyProtected
)

// String lists the set bits, such as "DEVICE_LOCAL|HOST_VISIBLE", or "0".
func (f MemoryPropertyFlags) String() string {
	names := []struct {
		bit  MemoryPropertyFlags
		name string
	}{
		{MemoryDeviceLocal, "DEVICE_LOCAL"},
		{MemoryHostVisible, "HOST_VISIBLE"},
		{MemoryHostCoherent, "HOST_COHERENT"},
		{MemoryHostCached, "HOST_CACHED"},
		{MemoryLazilyAllocated, "LAZILY_ALLOCATED"},
		{MemoryProtected, "PROTECTED"},
	}
	var parts []string
	rest := f
	for _, n := range names {
		if f&n.bit != 0 {
			parts = append(parts, n.name)
			rest &^= n.bit
		}
	}
	if rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// MemoryHeap is one of a device's memory heaps.
type MemoryHeap struct {
	Size        uint64
	DeviceLocal bool
}

// MemoryType is one of a device's memory types.
type MemoryType struct {
	HeapIndex uint32
	Flags     MemoryPropertyFlags
}

// QueueFamily is one of a device's queue families.
type QueueFamily struct {
	Index, Count                uint32
	Graphics, Compute, Transfer bool
	// SparseBinding says the family's queues bind memory to sparse
	// resources (VK_QUEUE_SPARSE_BINDING_BIT).
	SparseBinding bool
	// TimestampValidBits is the number of meaningful bits of timestamps
	// written on this family's queues; 0 means no timestamps.
	TimestampValidBits uint32
}

// ExternalMemorySupport says what a device can do with memory of one
// external handle type. Everything is false when the device lacks the
// extension the handle type needs (VK_KHR_external_memory_fd,
// VK_EXT_external_memory_dma_buf or VK_EXT_external_memory_host).
type ExternalMemorySupport struct {
	Handle     HandleType
	Exportable bool
	Importable bool
	// DedicatedOnly means the memory must be a dedicated allocation of one
	// buffer or image to be exported or imported.
	DedicatedOnly bool
}

// ExternalSemaphoreSupport says what a device can do with binary or
// timeline semaphores and one external handle type. Everything is false
// without VK_KHR_external_semaphore_fd, for timeline semaphores without the
// timelineSemaphore feature, and for timeline semaphores as SYNC_FD, which
// Vulkan defines for binary semaphores only.
type ExternalSemaphoreSupport struct {
	Handle     HandleType
	Timeline   bool
	Exportable bool
	Importable bool
}

// PhysicalDevice describes one Vulkan physical device: a GPU, or a software
// implementation such as lavapipe. Its fields are filled once, when the
// instance lists its devices; treat them as read-only.
type PhysicalDevice struct {
	// Index is the device's place in Instance.PhysicalDevices.
	Index int
	Name  string
	Type  DeviceType
	// VendorID and DeviceID are the PCI IDs for PCI devices (0x10de is
	// NVIDIA); software devices use other values.
	VendorID, DeviceID uint32
	// APIVersion is the highest API version the device supports.
	APIVersion Version
	// DriverVersion is the vendor-encoded driver version; see
	// DriverVersionString.
	DriverVersion uint32
	// DriverName and DriverInfo come from VkPhysicalDeviceDriverProperties,
	// such as "NVIDIA" and "580.95.05"; empty before Vulkan 1.2 without
	// VK_KHR_driver_properties.
	DriverName, DriverInfo string
	// DeviceUUID and DriverUUID come from VkPhysicalDeviceIDProperties.
	// CUDA's device UUID equals DeviceUUID for the same GPU; memory and
	// semaphores can be shared only between devices and drivers whose UUIDs
	// match.
	DeviceUUID, DriverUUID [16]byte

	MemoryHeaps   []MemoryHeap
	MemoryTypes   []MemoryType
	QueueFamilies []QueueFamily
	// Extensions lists the device extensions, sorted.
	Extensions []string

	// ExternalMemory is the export/import support of buffers (usage
	// storage, transfer source and destination) for OpaqueFD, DMABuf and
	// HostAllocation, in that order.
	ExternalMemory []ExternalMemorySupport
	// ExternalImageMemory is the same for a 2D R8G8B8A8_UNORM image of
	// optimal tiling, usable as sampled, storage, and transfer source and
	// destination.
	ExternalImageMemory []ExternalMemorySupport
	// ExternalSemaphore is the export/import support of binary and timeline
	// semaphores for OpaqueFD and SyncFD.
	ExternalSemaphore []ExternalSemaphoreSupport

	// Features gfxcuda uses, enabled by NewDevice where present.
	TimelineSemaphore   bool
	Synchronization2    bool
	BufferDeviceAddress bool

	// Limits are the device's limits that compute work is checked against.
	Limits Limits

	inst                *Instance
	h                   vk.PhysicalDevice
	nonCoherentAtomSize uint64
	effectiveAPI        Version         // min(instance, device) API version
	featureQuery        vk.FeatureQuery // how to query and enable the features
	features            vk.Features     // every feature gfxcuda knows that the device has
}

// Limits are the VkPhysicalDeviceLimits that compute work is checked
// against: the largest dispatch (MaxComputeWorkGroupCount) and workgroup,
// push constant and buffer range sizes, and descriptor offset alignments.
type Limits = vk.Limits

func newPhysicalDevice(in *Instance, index int, h vk.PhysicalDevice) (*PhysicalDevice, error) {
	raw := in.raw
	pd := &PhysicalDevice{Index: index, inst: in, h: h}

	exts, err := raw.DeviceExtensions(h)
	if err != nil {
		return nil, err
	}
	for _, e := range exts {
		pd.Extensions = append(pd.Extensions, e.Name)
	}
	slices.Sort(pd.Extensions)
	pd.Extensions = slices.Compact(pd.Extensions)

	base := raw.PhysicalDeviceProperties(h, vk.PropertiesQuery{})
	pd.APIVersion = versionOf(base.APIVersion)
	pd.effectiveAPI = pd.APIVersion
	if in.apiVersion.Less(pd.effectiveAPI) {
		pd.effectiveAPI = in.apiVersion
	}
	eff := pd.effectiveAPI
	instHas := func(e string) bool { return slices.Contains(in.extensions, e) }
	q := vk.PropertiesQuery{
		ID:     eff.AtLeast(1, 1) || instHas(vk.ExtExternalMemoryCapabilities),
		Driver: eff.AtLeast(1, 2) || pd.HasExtension(vk.ExtDriverProperties),
	}
	props := raw.PhysicalDeviceProperties(h, q)
	pd.Name = props.DeviceName
	pd.Type = DeviceType(props.DeviceType)
	pd.VendorID = props.VendorID
	pd.DeviceID = props.DeviceID
	pd.DriverVersion = props.DriverVersion
	pd.DriverName = props.DriverName
	pd.DriverInfo = props.DriverInfo
	pd.DeviceUUID = props.DeviceUUID
	pd.DriverUUID = props.DriverUUID
	pd.nonCoherentAtomSize = max(props.NonCoherentAtomSize, 1)
	pd.Limits = props.Limits

	types, heaps := raw.MemoryProperties(h)
	for _, t := range types {
		pd.MemoryTypes = append(pd.MemoryTypes, MemoryType{HeapIndex: t.HeapIndex, Flags: MemoryPropertyFlags(t.PropertyFlags)})
	}
	for _, hp := range heaps {
		pd.MemoryHeaps = append(pd.MemoryHeaps, MemoryHeap{Size: hp.Size, DeviceLocal: hp.Flags&vk.MemoryHeapDeviceLocal != 0})
	}
	for i, f := range raw.QueueFamilies(h) {
		pd.QueueFamilies = append(pd.QueueFamilies, QueueFamily{
			Index:              uint32(i),
			Count:              f.QueueCount,
			Graphics:           f.QueueFlags&vk.QueueGraphics != 0,
			Compute:            f.QueueFlags&vk.QueueCompute != 0,
			Transfer:           f.QueueFlags&vk.QueueTransfer != 0,
			SparseBinding:      f.QueueFlags&vk.QueueSparseBinding != 0,
			TimestampValidBits: f.TimestampValidBits,
		})
	}

	pd.featureQuery = vk.FeatureQuery{
		Vulkan12:               eff.AtLeast(1, 2),
		Vulkan13:               eff.AtLeast(1, 3),
		TimelineSemaphoreExt:   pd.HasExtension(vk.ExtTimelineSemaphore),
		Synchronization2Ext:    pd.HasExtension(vk.ExtSynchronization2),
		BufferDeviceAddressExt: pd.HasExtension(vk.ExtBufferDeviceAddress),
	}
	feats := raw.PhysicalDeviceFeatures(h, pd.featureQuery)
	pd.TimelineSemaphore = feats.TimelineSemaphore
	pd.Synchronization2 = feats.Synchronization2
	pd.BufferDeviceAddress = feats.BufferDeviceAddress
	pd.features = feats

	// The external memory and semaphore queries are core in 1.1, and come
	// from instance extensions before.
	external := eff.AtLeast(1, 1) || instHas(vk.ExtExternalMemoryCapabilities)
	for _, ht := range []HandleType{OpaqueFD, DMABuf, HostAllocation} {
		buf := ExternalMemorySupport{Handle: ht}
		img := ExternalMemorySupport{Handle: ht}
		bit, ext := ht.memoryHandle()
		if external && pd.HasExtension(ext) {
			p, err := raw.ExternalBufferProperties(h, 0,
				vk.BufferUsageStorageBuffer|vk.BufferUsageTransferSrc|vk.BufferUsageTransferDst, bit)
			if err == nil {
				buf = memorySupport(ht, p)
			}
			p, err = raw.ExternalImageProperties(h, vk.ImageFormatInfo{
				Format: vk.FormatR8G8B8A8Unorm,
				Type:   vk.ImageType2D,
				Tiling: vk.ImageTilingOptimal,
				Usage: vk.ImageUsageSampled | vk.ImageUsageStorage |
					vk.ImageUsageTransferSrc | vk.ImageUsageTransferDst,
			}, bit)
			switch {
			case err == nil:
				img = memorySupport(ht, p)
			case errors.Is(err, vk.ErrorFormatNotSupported):
				// Not exportable or importable this way.
			default:
				return nil, err
			}
		}
		pd.ExternalMemory = append(pd.ExternalMemory, buf)
		pd.ExternalImageMemory = append(pd.ExternalImageMemory, img)
	}

	externalSem := eff.AtLeast(1, 1) || instHas(vk.ExtExternalSemaphoreCapabilities)
	for _, timeline := range []bool{false, true} {
		for _, ht := range []HandleType{OpaqueFD, SyncFD} {
			s := ExternalSemaphoreSupport{Handle: ht, Timeline: timeline}
			ok := externalSem && pd.HasExtension(vk.ExtExternalSemaphoreFD) &&
				(!timeline || pd.TimelineSemaphore && ht != SyncFD)
			if ok {
				p, err := raw.ExternalSemaphoreProperties(h, ht.semaphoreHandle(), timeline)
				if err == nil {
					s.Exportable = p.Features&vk.ExternalSemaphoreFeatureExportable != 0
					s.Importable = p.Features&vk.ExternalSemaphoreFeatureImportable != 0
				}
			}
			pd.ExternalSemaphore = append(pd.ExternalSemaphore, s)
		}
	}
	return pd, nil
}

func memorySupport(ht HandleType, p vk.ExternalMemoryProperties) ExternalMemorySupport {
	return ExternalMemorySupport{
		Handle:        ht,
		Exportable:    p.Features&vk.ExternalMemoryFeatureExportable != 0,
		Importable:    p.Features&vk.ExternalMemoryFeatureImportable != 0,
		DedicatedOnly: p.Features&vk.ExternalMemoryFeatureDedicatedOnly != 0,
	}
}

// String returns the device's name, type and API version.
func (pd *PhysicalDevice) String() string {
	return fmt.Sprintf("%s (%s, Vulkan %s)", pd.Name, pd.Type, pd.APIVersion)
}

// HasExtension reports whether the device supports the named extension.
func (pd *PhysicalDevice) HasExtension(name string) bool {
	_, ok := slices.BinarySearch(pd.Extensions, name)
	return ok
}

// IsSoftware reports whether the device is a CPU implementation, such as
// Mesa's lavapipe (llvmpipe) or SwiftShader, rather than a GPU.
func (pd *PhysicalDevice) IsSoftware() bool {
	if pd.Type == DeviceTypeCPU {
		return true
	}
	s := strings.ToLower(pd.Name + " " + pd.DriverName)
	for _, n := range []string{"llvmpipe", "lavapipe", "swiftshader", "softpipe"} {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// DriverVersionString decodes DriverVersion: NVIDIA's 10.8.8.6-bit scheme
// for vendor 0x10de (such as "580.95.05"), the VK_MAKE_VERSION scheme
// otherwise (such as Mesa's "22.3.6").
func (pd *PhysicalDevice) DriverVersionString() string {
	v := pd.DriverVersion
	if pd.VendorID == 0x10de {
		major, minor := v>>22&0x3ff, v>>14&0xff
		sub, tert := v>>6&0xff, v&0x3f
		if tert == 0 {
			return fmt.Sprintf("%d.%d.%02d", major, minor, sub)
		}
		return fmt.Sprintf("%d.%d.%d.%d", major, minor, sub, tert)
	}
	return fmt.Sprintf("%d.%d.%d", v>>22, v>>12&0x3ff, v&0xfff)
}

// MemorySupport returns the buffer memory support for handle type h.
func (pd *PhysicalDevice) MemorySupport(h HandleType) ExternalMemorySupport {
	for _, s := range pd.ExternalMemory {
		if s.Handle == h {
			return s
		}
	}
	return ExternalMemorySupport{Handle: h}
}

// ImageMemorySupport returns the image memory support for handle type h.
func (pd *PhysicalDevice) ImageMemorySupport(h HandleType) ExternalMemorySupport {
	for _, s := range pd.ExternalImageMemory {
		if s.Handle == h {
			return s
		}
	}
	return ExternalMemorySupport{Handle: h}
}

// SemaphoreSupport returns the support of binary or timeline semaphores
// for handle type h.
func (pd *PhysicalDevice) SemaphoreSupport(h HandleType, timeline bool) ExternalSemaphoreSupport {
	for _, s := range pd.ExternalSemaphore {
		if s.Handle == h && s.Timeline == timeline {
			return s
		}
	}
	return ExternalSemaphoreSupport{Handle: h, Timeline: timeline}
}

// CanExportOpaqueFD reports whether buffer memory can be exported as an
// opaque file descriptor (what CUDA imports).
func (pd *PhysicalDevice) CanExportOpaqueFD() bool { return pd.MemorySupport(OpaqueFD).Exportable }

// CanImportOpaqueFD reports whether buffer memory can be imported from an
// opaque file descriptor.
func (pd *PhysicalDevice) CanImportOpaqueFD() bool { return pd.MemorySupport(OpaqueFD).Importable }

// CanExportSemaphoreFD reports whether a timeline semaphore can be exported
// as an opaque file descriptor, the kind CUDA imports as a timeline
// semaphore.
func (pd *PhysicalDevice) CanExportSemaphoreFD() bool {
	return pd.SemaphoreSupport(OpaqueFD, true).Exportable
}
