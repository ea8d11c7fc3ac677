package vulkan

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// interopExtensions are the device extensions NewDevice enables when
// present; Device.Missing names those that are absent.
var interopExtensions = []string{
	vk.ExtExternalMemoryFD,
	vk.ExtExternalSemaphoreFD,
	vk.ExtExternalFenceFD,
	vk.ExtExternalMemoryHost,
	vk.ExtExternalMemoryDMABuf,
}

// Feature names used by Device.Enabled and Device.Missing.
const (
	FeatureTimelineSemaphore   = "timelineSemaphore"
	FeatureSynchronization2    = "synchronization2"
	FeatureBufferDeviceAddress = "bufferDeviceAddress"
)

// DeviceOptions configures Instance.NewDevice.
type DeviceOptions struct {
	// Extensions names device extensions to enable besides the interop
	// ones. NewDevice fails, with an error wrapping
	// ErrorExtensionNotPresent, if one is not supported.
	Extensions []string
}

// Device is a Vulkan logical device with one queue. Its methods are safe
// for concurrent use.
type Device struct {
	inst          *Instance
	pd            *PhysicalDevice
	family        uint32
	computeFamily int // -1: none
	enabled       []string
	missing       []string

	mu     sync.Mutex
	raw    *vk.Device
	queue  vk.Queue
	closed bool
}

// NewDevice creates a logical device on pd with one queue of a
// compute-capable family (a graphics and compute family where there is
// one). It enables, where present: VK_KHR_external_memory_fd,
// VK_KHR_external_semaphore_fd, VK_KHR_external_fence_fd,
// VK_EXT_external_memory_host, VK_EXT_external_memory_dma_buf, and the
// timelineSemaphore, synchronization2 and bufferDeviceAddress features
// (with the extensions that provide them below Vulkan 1.2 or 1.3). What is
// absent is no error: Missing names it.
func (in *Instance) NewDevice(pd *PhysicalDevice, opts DeviceOptions) (*Device, error) {
	if pd == nil || pd.inst != in {
		return nil, ErrForeignDevice
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || in.raw == nil {
		return nil, ErrClosed
	}

	d := &Device{inst: in, pd: pd, computeFamily: -1}
	found := false
	for _, f := range pd.QueueFamilies {
		if f.Compute && f.Graphics && f.Count > 0 {
			d.family, found = f.Index, true
			break
		}
	}
	for _, f := range pd.QueueFamilies {
		if f.Compute && f.Count > 0 {
			if !found {
				d.family, found = f.Index, true
			}
			if !f.Graphics && d.computeFamily < 0 && f.Index != d.family {
				d.computeFamily = int(f.Index)
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("vulkan: %s has no compute queue family: %w", pd.Name, ErrorFeatureNotPresent)
	}

	eff := pd.effectiveAPI
	var exts []string
	add := func(e string) {
		if !slices.Contains(exts, e) {
			exts = append(exts, e)
		}
	}
	addIfPresent := func(e string) {
		if pd.HasExtension(e) {
			add(e)
		}
	}
	for _, e := range interopExtensions {
		if pd.HasExtension(e) {
			if !eff.AtLeast(1, 1) {
				// Their 1.1-core dependencies.
				switch e {
				case vk.ExtExternalMemoryFD, vk.ExtExternalMemoryHost, vk.ExtExternalMemoryDMABuf:
					addIfPresent(vk.ExtExternalMemory)
				case vk.ExtExternalSemaphoreFD:
					addIfPresent(vk.ExtExternalSemaphore)
				case vk.ExtExternalFenceFD:
					addIfPresent(vk.ExtExternalFence)
				}
			}
			add(e)
		} else {
			d.missing = append(d.missing, e)
		}
	}
	feats := vk.Features{
		TimelineSemaphore:   pd.TimelineSemaphore,
		Synchronization2:    pd.Synchronization2,
		BufferDeviceAddress: pd.BufferDeviceAddress,
	}
	if feats.TimelineSemaphore && !eff.AtLeast(1, 2) {
		add(vk.ExtTimelineSemaphore)
	}
	if feats.BufferDeviceAddress && !eff.AtLeast(1, 2) {
		add(vk.ExtBufferDeviceAddress)
	}
	if feats.Synchronization2 && !eff.AtLeast(1, 3) {
		add(vk.ExtSynchronization2)
	}
	// A portability (non-conformant) implementation must have this enabled.
	addIfPresent(vk.ExtPortabilitySubset)
	for _, e := range opts.Extensions {
		if !pd.HasExtension(e) {
			return nil, fmt.Errorf("vulkan: %s: extension %s: %w", pd.Name, e, ErrorExtensionNotPresent)
		}
		add(e)
	}
	d.enabled = slices.Clone(exts)
	for _, f := range []struct {
		on   bool
		name string
	}{
		{feats.TimelineSemaphore, FeatureTimelineSemaphore},
		{feats.Synchronization2, FeatureSynchronization2},
		{feats.BufferDeviceAddress, FeatureBufferDeviceAddress},
	} {
		if f.on {
			d.enabled = append(d.enabled, f.name)
		} else if f.name != FeatureBufferDeviceAddress {
			d.missing = append(d.missing, f.name)
		}
	}

	raw, err := in.raw.CreateDevice(pd.h, vk.DeviceCreateInfo{
		Queues:       []vk.QueueCreateInfo{{Family: d.family, Priorities: []float32{1}}},
		Extensions:   exts,
		Features:     feats,
		FeatureQuery: pd.featureQuery,
	})
	if err != nil {
		return nil, fmt.Errorf("vulkan: %s: %w", pd.Name, err)
	}
	d.raw = raw
	d.queue = raw.Queue(d.family, 0)
	in.devices[d] = struct{}{}
	return d, nil
}

// Physical returns the physical device the device was created on.
func (d *Device) Physical() *PhysicalDevice { return d.pd }

// Enabled lists the enabled device extensions, then the names of the
// enabled features (FeatureTimelineSemaphore and the like).
func (d *Device) Enabled() []string { return slices.Clone(d.enabled) }

// Missing lists the interop extensions (VK_KHR_external_memory_fd and the
// like) and features (FeatureTimelineSemaphore, FeatureSynchronization2)
// the physical device lacks, so that NewDevice could not enable them.
func (d *Device) Missing() []string { return slices.Clone(d.missing) }

// HasEnabled reports whether the named extension or feature is enabled.
func (d *Device) HasEnabled(name string) bool { return slices.Contains(d.enabled, name) }

// QueueFamily is the index of the family of the device's queue.
func (d *Device) QueueFamily() uint32 { return d.family }

// ComputeOnlyFamily returns a family with compute but no graphics
// capability other than QueueFamily, if the device has one. No queue of it
// is created.
func (d *Device) ComputeOnlyFamily() (uint32, bool) {
	if d.computeFamily < 0 {
		return 0, false
	}
	return uint32(d.computeFamily), true
}

// WaitIdle waits until the device has finished all submitted work.
func (d *Device) WaitIdle() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.raw == nil {
		return ErrClosed
	}
	if err := d.raw.WaitIdle(); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	return nil
}

// Close waits for the device to be idle and destroys it. Close is
// idempotent; it returns the error of waiting, if any, having destroyed the
// device all the same.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed || d.raw == nil {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	err := d.raw.WaitIdle()
	d.raw.Destroy()
	d.queue = nil
	d.mu.Unlock()

	d.inst.mu.Lock()
	delete(d.inst.devices, d)
	d.inst.mu.Unlock()
	if err != nil {
		return fmt.Errorf("vulkan: closing device: %w", err)
	}
	return nil
}
