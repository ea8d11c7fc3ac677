package compute

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// DeviceEnv is the environment variable that picks the device Open uses
// when Options.Device is empty: a device index (as Devices lists them), a
// case-insensitive substring of its name, or its UUID.
const DeviceEnv = "GFXCUDA_DEVICE"

// DeviceInfo describes a Vulkan device that can run compute shaders.
type DeviceInfo struct {
	// Index is the device's place in the Vulkan instance's list, the index
	// GFXCUDA_DEVICE and Options.Device take.
	Index int
	Name  string
	// DedicatedVideoMemory is the size of the device-local memory heaps;
	// SharedSystemMemory that of the other heaps (host memory the device
	// reaches). A software device's memory is system memory reported as
	// device-local.
	DedicatedVideoMemory uint64
	SharedSystemMemory   uint64
	// VendorID and DeviceID are the PCI IDs (0x10de: NVIDIA).
	VendorID, DeviceID uint32
	// Hardware is false for CPU implementations such as lavapipe.
	Hardware bool
	// Discrete is true for discrete GPUs.
	Discrete bool
	Type     vulkan.DeviceType
	// UUID is the Vulkan device UUID, equal to CUDA's for the same GPU.
	UUID       [16]byte
	APIVersion vulkan.Version
	Driver     string // driver name and version
}

// UUIDString formats the UUID as CUDA does (8-4-4-4-12 hex digits).
func (i DeviceInfo) UUIDString() string {
	h := hex.EncodeToString(i.UUID[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// String returns the index, name and kind of the device.
func (i DeviceInfo) String() string {
	return fmt.Sprintf("%d: %s (%s, %d MiB dedicated, %d MiB shared)", i.Index, i.Name, i.kind(),
		i.DedicatedVideoMemory>>20, i.SharedSystemMemory>>20)
}

// kind is "software", "integrated" or "discrete".
func (i DeviceInfo) kind() string {
	switch {
	case !i.Hardware:
		return "software"
	case i.Discrete:
		return "discrete"
	}
	return "integrated"
}

// NoDeviceError is Select's error (and so Open's) when a device spec
// names none of the devices: it says how the spec was read and lists the
// devices there are.
type NoDeviceError struct {
	Spec string
	// What is what no device has: "index 3", "UUID …", or, for a name,
	// empty.
	What    string
	Devices []DeviceInfo
}

// Error reads, e.g., `no Vulkan device matches "nvidia"; devices here: 0
// llvmpipe (software, UUID …); use an index, a UUID or a name fragment`.
func (e *NoDeviceError) Error() string {
	what := fmt.Sprintf("matches %q", e.Spec)
	if e.What != "" {
		what = "has " + e.What
	}
	here := make([]string, len(e.Devices))
	for i, d := range e.Devices {
		kind := d.kind()
		if kind != "software" {
			kind += " GPU"
		}
		here[i] = fmt.Sprintf("%d %s (%s, UUID %s)", d.Index, d.Name, kind, d.UUIDString())
	}
	if len(here) == 0 {
		here = []string{"none that can run compute shaders"}
	}
	return fmt.Sprintf("no Vulkan device %s; devices here: %s; use an index, a UUID or a name fragment", what, strings.Join(here, ", "))
}

// InfoOf describes pd as Devices and Open do (doctor predicts Open's
// choice with it).
func InfoOf(pd *vulkan.PhysicalDevice) DeviceInfo {
	info := DeviceInfo{
		Index: pd.Index, Name: pd.Name, VendorID: pd.VendorID, DeviceID: pd.DeviceID,
		Hardware: !pd.IsSoftware(), Discrete: pd.Type == vulkan.DeviceTypeDiscrete, Type: pd.Type,
		UUID: pd.DeviceUUID, APIVersion: pd.APIVersion,
		Driver: strings.TrimSpace(pd.DriverName + " " + pd.DriverVersionString()),
	}
	for _, h := range pd.MemoryHeaps {
		if h.DeviceLocal {
			info.DedicatedVideoMemory += h.Size
		} else {
			info.SharedSystemMemory += h.Size
		}
	}
	return info
}

// HasCompute reports whether the device has a compute queue: the devices
// Devices lists and Open chooses from.
func HasCompute(pd *vulkan.PhysicalDevice) bool {
	return slices.ContainsFunc(pd.QueueFamilies, func(f vulkan.QueueFamily) bool { return f.Compute && f.Count > 0 })
}

// Devices lists the Vulkan devices that can run compute shaders, in the
// Vulkan instance's order.
func Devices() ([]DeviceInfo, error) {
	off := false
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda compute", Validation: &off})
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	defer in.Close()
	pds, err := in.PhysicalDevices()
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	var out []DeviceInfo
	for _, pd := range pds {
		if HasCompute(pd) {
			out = append(out, InfoOf(pd))
		}
	}
	return out, nil
}

// better reports whether a is preferred to b: hardware first, then
// discrete, then more dedicated memory, then the lower index.
func better(a, b *DeviceInfo) bool {
	if a.Hardware != b.Hardware {
		return a.Hardware
	}
	if a.Discrete != b.Discrete {
		return a.Discrete
	}
	if a.DedicatedVideoMemory != b.DedicatedVideoMemory {
		return a.DedicatedVideoMemory > b.DedicatedVideoMemory
	}
	return a.Index < b.Index
}

// Best returns the position in devs of the preferred device: hardware
// before software, then discrete before integrated, then the most dedicated
// memory. It returns -1 for an empty list.
func Best(devs []DeviceInfo) int {
	best := -1
	for i := range devs {
		if best < 0 || better(&devs[i], &devs[best]) {
			best = i
		}
	}
	return best
}

// Select returns the position in devs of the device spec names: a device
// index (DeviceInfo.Index), a UUID (32 hex digits, dashes and a "GPU-"
// prefix allowed), or a case-insensitive substring of the name (the best
// match by the order of Best when several match). An empty spec selects
// Best's choice.
func Select(devs []DeviceInfo, spec string) (int, error) {
	spec = strings.TrimSpace(spec)
	if len(devs) == 0 {
		return -1, errors.New("compute: no Vulkan device can run compute shaders")
	}
	if spec == "" {
		return Best(devs), nil
	}
	if n, err := strconv.Atoi(spec); err == nil {
		for i := range devs {
			if devs[i].Index == n {
				return i, nil
			}
		}
		return -1, &NoDeviceError{Spec: spec, What: fmt.Sprintf("index %d", n), Devices: devs}
	}
	hexs := strings.ReplaceAll(strings.TrimPrefix(strings.ToLower(spec), "gpu-"), "-", "")
	if len(hexs) == 32 {
		if u, err := hex.DecodeString(hexs); err == nil {
			for i := range devs {
				if string(devs[i].UUID[:]) == string(u) {
					return i, nil
				}
			}
			return -1, &NoDeviceError{Spec: spec, What: "UUID " + spec, Devices: devs}
		}
	}
	pick := -1
	for i := range devs {
		if strings.Contains(strings.ToLower(devs[i].Name), strings.ToLower(spec)) && (pick < 0 || better(&devs[i], &devs[pick])) {
			pick = i
		}
	}
	if pick < 0 {
		return -1, &NoDeviceError{Spec: spec, Devices: devs}
	}
	return pick, nil
}

// Options configures Open.
type Options struct {
	// Device picks the device as Select does; empty means the environment
	// variable GFXCUDA_DEVICE, and when that is empty too, the best device.
	Device string
	// Validation turns the Khronos validation layer on or off; nil follows
	// GFXCUDA_VALIDATION.
	Validation *bool
}

// Device is a Vulkan device that runs compute shaders. Its methods are
// safe for concurrent use.
type Device struct {
	vk   *vulkan.Device
	inst *vulkan.Instance // owned, when Open made it
	sub  Submitter        // when made by NewSubmitting
	info DeviceInfo

	mu     sync.Mutex
	spare  []*vulkan.Commands // idle batches for synchronous calls
	closed bool
}

// Open opens a device for compute work: the one opts.Device or
// GFXCUDA_DEVICE names, else the best one (see Best).
func Open(opts Options) (*Device, error) {
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda compute", Validation: opts.Validation})
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	pds, err := in.PhysicalDevices()
	if err != nil {
		in.Close()
		return nil, fmt.Errorf("compute: %w", err)
	}
	var infos []DeviceInfo
	var cands []*vulkan.PhysicalDevice
	for _, pd := range pds {
		if HasCompute(pd) {
			infos = append(infos, InfoOf(pd))
			cands = append(cands, pd)
		}
	}
	spec, from := opts.Device, "Options.Device"
	if spec == "" {
		spec, from = os.Getenv(DeviceEnv), DeviceEnv
	}
	i, err := Select(infos, spec)
	if err != nil {
		in.Close()
		if spec != "" {
			return nil, fmt.Errorf("%s=%q: %w", from, spec, err)
		}
		return nil, err
	}
	vd, err := in.NewDevice(cands[i], vulkan.DeviceOptions{})
	if err != nil {
		in.Close()
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Device{vk: vd, inst: in, info: infos[i]}, nil
}

// New runs compute work on an existing Vulkan device, which the Device
// borrows: Close leaves it open.
func New(vd *vulkan.Device) *Device {
	return &Device{vk: vd, info: InfoOf(vd.Physical())}
}

// Submitter submits batches on behalf of a Device made by NewSubmitting,
// such as an interop.Device, which first acquires what CUDA handed back.
type Submitter interface {
	Submit(c *vulkan.Commands, o vulkan.SubmitOptions) error
}

// NewSubmitting runs compute work on vd, submitting every batch through s
// (see gfxcuda.Device.Compute, which does this for a
// gfxcuda.Device). The Device borrows vd and s: Close leaves them open.
func NewSubmitting(vd *vulkan.Device, s Submitter) *Device {
	return &Device{vk: vd, sub: s, info: InfoOf(vd.Physical())}
}

// Info describes the device.
func (d *Device) Info() DeviceInfo { return d.info }

// Vulkan returns the Vulkan device.
func (d *Device) Vulkan() *vulkan.Device { return d.vk }

// Instance returns the Vulkan instance Open made, or nil for a Device made
// by New or NewSubmitting.
func (d *Device) Instance() *vulkan.Instance { return d.inst }

// Limits are the device's limits: the largest dispatch, workgroup and push
// constants, buffer ranges and alignments.
func (d *Device) Limits() vulkan.Limits { return d.vk.Physical().Limits }

// String returns the device's name.
func (d *Device) String() string { return d.info.Name }

// Close closes what the device made and, when Open made it, the Vulkan
// device and instance. Close is idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	spare := d.spare
	d.spare = nil
	d.mu.Unlock()
	for _, c := range spare {
		c.Close()
	}
	if d.inst == nil {
		return nil
	}
	err := d.vk.Close()
	if e := d.inst.Close(); err == nil {
		err = e
	}
	return err
}

// submit submits c through the Submitter when there is one.
func (d *Device) submit(c *vulkan.Commands, o vulkan.SubmitOptions) error {
	if d.sub != nil {
		return d.sub.Submit(c, o)
	}
	return c.Submit(o)
}

// commands returns an idle batch.
func (d *Device) commands() (*vulkan.Commands, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, fmt.Errorf("compute: %w", vulkan.ErrClosed)
	}
	if n := len(d.spare); n > 0 {
		c := d.spare[n-1]
		d.spare = d.spare[:n-1]
		d.mu.Unlock()
		return c, nil
	}
	d.mu.Unlock()
	return d.vk.NewCommands()
}

// recycle resets c and keeps it for later synchronous calls.
func (d *Device) recycle(c *vulkan.Commands) {
	if c.Reset() == nil {
		d.mu.Lock()
		if !d.closed && len(d.spare) < 4 {
			d.spare = append(d.spare, c)
			c = nil
		}
		d.mu.Unlock()
	}
	if c != nil {
		c.Close()
	}
}

// run records a batch with record, submits it and waits for it.
func (d *Device) run(record func(c *vulkan.Commands) error) error {
	c, err := d.commands()
	if err != nil {
		return err
	}
	defer d.recycle(c)
	if err := record(c); err != nil {
		return err
	}
	if err := c.Err(); err != nil {
		return err
	}
	if err := d.submit(c, vulkan.SubmitOptions{}); err != nil {
		return err
	}
	return c.Wait(-1)
}
