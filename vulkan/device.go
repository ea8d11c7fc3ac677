package vulkan

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

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
// for concurrent use; submissions to its queue are serialized.
//
// A Device owns what is created on it (buffers, images, samplers,
// semaphores, command batches): Close closes those still open.
type Device struct {
	inst          *Instance
	pd            *PhysicalDevice
	family        uint32
	computeFamily int // -1: none
	enabled       []string
	missing       []string
	sync2         bool // barriers and submissions through synchronization2

	life  life // guards raw
	raw   *vk.Device
	queue vk.Queue
	// timeline is signalled with the submission serial by every batch
	// submitted through Commands; 0 without timeline semaphores.
	timeline vk.Semaphore

	mu       sync.Mutex // serializes queue access; guards the fields below
	serial   uint64     // the value the last submission signals on timeline
	children map[child]struct{}
	pool     *Pool // batches for Run

	stage stagingState // staging rings of Upload and Readback (staging.go)
}

// NewDevice creates a logical device on pd with one queue of a
// compute-capable family (a graphics and compute family where there is
// one). It enables, where present: VK_KHR_external_memory_fd,
// VK_KHR_external_semaphore_fd, VK_KHR_external_fence_fd,
// VK_EXT_external_memory_host, VK_EXT_external_memory_dma_buf, and the
// timelineSemaphore, synchronization2 and bufferDeviceAddress features
// (with the extensions that provide them below Vulkan 1.2 or 1.3), and the
// shader features compute shaders may need (64-bit and 16-bit types, 8- and
// 16-bit storage, storage images without a format). What is absent is no
// error: Missing names the interop extensions and features missing.
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
	// Every feature gfxcuda knows and the device has: the interop ones and
	// the shader ones compute shaders may declare capabilities for.
	feats := pd.features
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
	d.children = map[child]struct{}{}
	d.pool = &Pool{d: d, max: maxSpare}
	d.sync2 = feats.Synchronization2 && raw.HasSynchronization2()
	if feats.TimelineSemaphore && raw.HasTimelineCalls() {
		d.timeline, err = raw.CreateSemaphore(vk.SemaphoreCreateInfo{Timeline: true})
		if err != nil {
			raw.Destroy()
			return nil, fmt.Errorf("vulkan: %s: %w", pd.Name, err)
		}
	}
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
	if err := d.acquire(); err != nil {
		return err
	}
	defer d.life.release()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.raw.WaitIdle(); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	return nil
}

// Close closes every object still open on the device, command batches
// first (each waits for its work), waits for the device to be idle and
// destroys it. Methods in progress on other goroutines finish first; host
// waits in progress (Semaphore.Wait, Commands.Wait) return ErrClosed. Close
// is idempotent; it returns the error of waiting, if any, having destroyed
// the device all the same.
func (d *Device) Close() error {
	if d.raw == nil {
		return nil
	}
	var err error
	d.life.shut(func() {
		d.mu.Lock()
		kids := make([]child, 0, len(d.children))
		for c := range d.children {
			kids = append(kids, c)
		}
		d.mu.Unlock()
		slices.SortStableFunc(kids, func(a, b child) int { return cmp.Compare(a.closeOrder(), b.closeOrder()) })
		waited := false
		for _, c := range kids {
			if c.closeOrder() > orderCommands && !waited {
				err = d.raw.WaitIdle()
				waited = true
			}
			c.destroy()
		}
		if !waited {
			err = d.raw.WaitIdle()
		}
		d.raw.DestroySemaphore(d.timeline)
		d.raw.Destroy()
		d.queue = nil
	})

	d.inst.mu.Lock()
	delete(d.inst.devices, d)
	d.inst.mu.Unlock()
	if err != nil {
		return fmt.Errorf("vulkan: closing device: %w", err)
	}
	return nil
}

// acquire keeps the device open until d.life.release, or returns ErrClosed.
func (d *Device) acquire() error {
	if d.raw == nil || !d.life.acquire() {
		return ErrClosed
	}
	return nil
}

// register makes c a child that Close destroys.
func (d *Device) register(c child) {
	d.mu.Lock()
	d.children[c] = struct{}{}
	d.mu.Unlock()
}

// unregister forgets c.
func (d *Device) unregister(c child) {
	d.mu.Lock()
	delete(d.children, c)
	d.mu.Unlock()
}

// closeChild is the Close method of a child whose life is l: it runs
// destroy once through l, keeping the device open meanwhile. If the device
// is closing, its Close destroys the child, and closeChild returns at once
// (it must not wait: the caller may hold what the device's Close waits for).
func (d *Device) closeChild(l *life, destroy func()) {
	if d.acquire() != nil {
		return
	}
	defer d.life.release()
	l.shut(destroy)
}

// waitSlice bounds each host wait, so that long waits notice Close.
const waitSlice = 50 * time.Millisecond

// waitTimeline waits on the host until timeline semaphore sem reaches v.
// timeout < 0 waits without limit; expiry returns an error wrapping
// ErrTimeout. abort, if not nil, is polled between slices of the wait; when
// it returns true the wait ends with ErrClosed.
func (d *Device) waitTimeline(sem vk.Semaphore, v uint64, timeout time.Duration, abort func() bool) error {
	var deadline time.Time
	if timeout >= 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		slice := waitSlice
		if timeout >= 0 {
			slice = min(slice, max(time.Until(deadline), 0))
		}
		switch r := d.raw.WaitSemaphores([]vk.Semaphore{sem}, []uint64{v}, false, uint64(slice.Nanoseconds())); r {
		case vk.Success:
			return nil
		case vk.Timeout:
		default:
			return fmt.Errorf("vulkan: vkWaitSemaphores: %w", r)
		}
		if abort != nil && abort() {
			return ErrClosed
		}
		if timeout >= 0 && !time.Now().Before(deadline) {
			return fmt.Errorf("vulkan: waiting for value %d: %w", v, ErrTimeout)
		}
	}
}

// waitSerial waits until every batch submitted up to serial v has finished,
// without limit. It is how objects wait for the work that uses them before
// being destroyed; it does not give up when the device closes.
func (d *Device) waitSerial(v uint64) error {
	if v == 0 || d.timeline == 0 {
		return nil
	}
	return d.waitTimeline(d.timeline, v, -1, nil)
}

// errNoTimeline is the error of Completed and WaitCompleted on a device
// without timeline semaphores.
var errNoTimeline = errors.New("vulkan: the device has no timeline semaphores (Vulkan 1.2's timelineSemaphore feature), which batch serials need")

// Completed returns the serial (Commands.Serial) of the last batch the
// device has finished: every batch of that serial or lower has finished,
// since a batch's completion signals after every batch submitted before
// it. It does not wait. A device without timeline semaphores returns an
// error.
func (d *Device) Completed() (uint64, error) {
	if err := d.acquire(); err != nil {
		return 0, err
	}
	defer d.life.release()
	if d.timeline == 0 {
		return 0, errNoTimeline
	}
	return d.completed()
}

// WaitCompleted waits on the host until the batch of serial v
// (Commands.Serial) and every batch submitted before it have finished,
// blocking in the driver (no polling; Commands.Wait polls first). A
// negative timeout waits without limit; when the timeout passes the error
// wraps ErrTimeout, and when the device closes meanwhile it is ErrClosed.
// A serial not yet submitted waits until it is and has finished.
func (d *Device) WaitCompleted(v uint64, timeout time.Duration) error {
	if err := d.acquire(); err != nil {
		return err
	}
	defer d.life.release()
	if d.timeline == 0 {
		return errNoTimeline
	}
	return d.waitTimeline(d.timeline, v, timeout, d.life.isClosing)
}

// completed returns the serial of the last finished submission.
func (d *Device) completed() (uint64, error) {
	if d.timeline == 0 {
		return 0, nil
	}
	v, err := d.raw.SemaphoreCounterValue(d.timeline)
	if err != nil {
		return 0, fmt.Errorf("vulkan: %w", err)
	}
	return v, nil
}

// rawDevice returns the raw device, for code of this package that adds
// entry points (pipelines, descriptor sets). Use it between acquire and
// release.
func (d *Device) rawDevice() *vk.Device { return d.raw }

// String returns the name of the physical device.
func (d *Device) String() string { return d.pd.Name }
