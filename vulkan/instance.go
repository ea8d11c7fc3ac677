// Package vulkan is gfxcuda's Vulkan side: instances, physical devices with
// the interop capabilities that matter for sharing memory and semaphores
// with CUDA and EGL, logical devices with the interop extensions enabled,
// and the resources shared through them: buffers and images (exportable as
// OPAQUE_FD file descriptors, or imported from them), samplers, timeline
// semaphores, compute pipelines, and batches of commands (copies, fills,
// barriers, queue family ownership transfers, dispatches) submitted with
// semaphore waits and signals. Batches insert the barriers their
// dispatches and copies need (see Commands.Dispatch).
//
// Nothing links against libvulkan at build time: the loader,
// libvulkan.so.1, is opened when the first Instance is made, and NewInstance
// fails with an error wrapping ErrNoLoader where it is missing, or
// ErrNoDevice where it finds no driver.
//
// Validation: with InstanceOptions.Validation, or GFXCUDA_VALIDATION=1 in the
// environment, the Khronos validation layer is enabled when installed and
// its error messages are captured; Instance.TakeValidationErrors drains
// them. GFXCUDA_VALIDATION=verbose also prints every message to stderr.
//
// Lifetimes: every object has an idempotent Close; a Device's Close closes
// what is still open on it (an Instance's, its devices), and methods of a
// closed object return ErrClosed. Objects used by a submitted batch wait for
// it when closed. File descriptors passed to imports belong to the driver
// once the import succeeds and are closed when it fails.
//
// Within the package, code that adds commands (compute pipelines,
// dispatches) follows the pattern of commands.go: Commands.begin and end
// around the recording, Commands.hold and unhold on the objects it uses
// (their embedded resource), Commands.use for other objects, and raw
// handles from Device.rawDevice, Commands.rawBuffer, Buffer.handle,
// Image.handle, Image.viewHandle, Sampler.handle and Semaphore.handle.
// Commands.track records what a new command reads and writes, and records
// a barrier first where an earlier command of the batch conflicts (see
// dispatch.go). New objects embed resource, register with the Device, and
// close through Device.closeChild (see life.go).
package vulkan

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// ValidationEnv is the environment variable that turns validation on when
// InstanceOptions.Validation is nil: "1", "true", "on" or "yes" enable it,
// "verbose" enables it and prints every message to stderr.
const ValidationEnv = "GFXCUDA_VALIDATION"

// maxAPIVersion is the highest API version gfxcuda asks for.
var maxAPIVersion = Version{1, 3, 0}

// InstanceOptions configures NewInstance.
type InstanceOptions struct {
	// AppName is passed to the driver as the application's name.
	AppName string
	// Validation turns the Khronos validation layer on or off; nil means
	// from the environment variable GFXCUDA_VALIDATION. A request for
	// validation where the layer is not installed is no error: see
	// Instance.ValidationMissing.
	Validation *bool
}

// Instance is a Vulkan instance. Its methods are safe for concurrent use.
type Instance struct {
	loaderVersion     Version
	apiVersion        Version
	validation        bool
	validationMissing bool
	extensions        []string
	layers            []string

	mu       sync.Mutex
	raw      *vk.Instance
	closed   bool
	physical []*PhysicalDevice // enumerated on first use
	devices  map[*Device]struct{}
}

// validationFromEnv reads GFXCUDA_VALIDATION.
func validationFromEnv() (enabled, verbose bool) {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(ValidationEnv))) {
	case "1", "true", "on", "yes":
		return true, false
	case "verbose", "2":
		return true, true
	}
	return false, false
}

// NewInstance creates a Vulkan instance of the highest API version the
// loader supports, up to 1.3. Its error wraps ErrNoLoader when
// libvulkan.so.1 is missing and ErrNoDevice when the loader finds no driver.
func NewInstance(opts InstanceOptions) (*Instance, error) {
	loader, err := vk.Load()
	if err != nil {
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	lv, err := loader.InstanceVersion()
	if err != nil {
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	in := &Instance{loaderVersion: versionOf(lv), devices: map[*Device]struct{}{}}
	in.apiVersion = Version{in.loaderVersion.Major, in.loaderVersion.Minor, 0}
	if maxAPIVersion.Less(in.apiVersion) {
		in.apiVersion = maxAPIVersion
	}

	available, err := loader.InstanceExtensions("")
	if err != nil {
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	has := func(exts []vk.ExtensionProperties, name string) bool {
		return slices.ContainsFunc(exts, func(e vk.ExtensionProperties) bool { return e.Name == name })
	}
	info := vk.InstanceCreateInfo{
		AppName:    opts.AppName,
		EngineName: "gfxcuda",
		APIVersion: in.apiVersion.packed(),
	}
	if has(available, vk.ExtPortabilityEnumeration) {
		info.Extensions = append(info.Extensions, vk.ExtPortabilityEnumeration)
		info.EnumeratePortability = true
	}
	if !in.apiVersion.AtLeast(1, 1) {
		// Vulkan 1.0 loader: the 1.1 core queries come from extensions.
		for _, e := range []string{
			vk.ExtGetPhysicalDeviceProperties2,
			vk.ExtExternalMemoryCapabilities,
			vk.ExtExternalSemaphoreCapabilities,
			vk.ExtExternalFenceCapabilities,
		} {
			if has(available, e) {
				info.Extensions = append(info.Extensions, e)
			}
		}
	}

	wantValidation, verbose := validationFromEnv()
	if opts.Validation != nil {
		wantValidation = *opts.Validation
	}
	if wantValidation {
		layers, err := loader.InstanceLayers()
		if err != nil {
			return nil, fmt.Errorf("vulkan: %w", err)
		}
		if slices.ContainsFunc(layers, func(l vk.LayerProperties) bool { return l.Name == vk.ValidationLayerName }) {
			layerExts, _ := loader.InstanceExtensions(vk.ValidationLayerName)
			if has(available, vk.ExtDebugUtils) || has(layerExts, vk.ExtDebugUtils) {
				in.validation = true
				info.Layers = append(info.Layers, vk.ValidationLayerName)
				info.Extensions = append(info.Extensions, vk.ExtDebugUtils)
				info.CaptureMessages = true
				info.VerboseMessages = verbose
			}
		}
		in.validationMissing = !in.validation
	}

	raw, err := loader.CreateInstance(info)
	if err != nil && in.validation && errors.Is(err, vk.ErrorLayerNotPresent) {
		// The layer is listed but cannot be loaded: go on without it.
		in.validation, in.validationMissing = false, true
		info.Layers = slices.DeleteFunc(info.Layers, func(s string) bool { return s == vk.ValidationLayerName })
		info.Extensions = slices.DeleteFunc(info.Extensions, func(s string) bool { return s == vk.ExtDebugUtils })
		info.CaptureMessages = false
		raw, err = loader.CreateInstance(info)
	}
	if err != nil {
		if errors.Is(err, vk.ErrorIncompatibleDriver) {
			return nil, fmt.Errorf("vulkan: %w: %w", ErrNoDevice, err)
		}
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	in.raw = raw
	in.extensions = info.Extensions
	in.layers = info.Layers
	return in, nil
}

// Close destroys the instance, closing first every Device still open on it.
// Validation messages it causes remain available to TakeValidationErrors.
// Close is idempotent; it returns the errors of closing the devices.
func (in *Instance) Close() error {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return nil
	}
	in.closed = true
	devs := make([]*Device, 0, len(in.devices))
	for d := range in.devices {
		devs = append(devs, d)
	}
	in.mu.Unlock()

	var errs []error
	for _, d := range devs {
		errs = append(errs, d.Close())
	}

	in.mu.Lock()
	defer in.mu.Unlock()
	if in.raw != nil {
		in.raw.Destroy()
	}
	return errors.Join(errs...)
}

// LoaderVersion is the instance API version the loader supports.
func (in *Instance) LoaderVersion() Version { return in.loaderVersion }

// APIVersion is the API version the instance was created with: the
// loader's, up to 1.3. Devices are used at the lower of it and their own.
func (in *Instance) APIVersion() Version { return in.apiVersion }

// ValidationEnabled reports whether the validation layer is active and its
// messages captured.
func (in *Instance) ValidationEnabled() bool { return in.validation }

// ValidationMissing reports whether validation was asked for but the
// Khronos validation layer (Debian: vulkan-validationlayers) is not
// installed or could not be loaded, so the instance runs without it.
func (in *Instance) ValidationMissing() bool { return in.validationMissing }

// Extensions lists the instance extensions that were enabled.
func (in *Instance) Extensions() []string { return slices.Clone(in.extensions) }

// Layers lists the instance layers that were enabled.
func (in *Instance) Layers() []string { return slices.Clone(in.layers) }

// TakeValidationErrors returns the error messages of the validation layer
// and the loader captured since the last call, oldest first, and forgets
// them. It returns nil when there were none or validation is off, and keeps
// working after Close.
func (in *Instance) TakeValidationErrors() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.raw == nil {
		return nil
	}
	return in.raw.Messages(vk.MessageError)
}

// TakeValidationWarnings is TakeValidationErrors for warning messages.
func (in *Instance) TakeValidationWarnings() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.raw == nil {
		return nil
	}
	return in.raw.Messages(vk.MessageWarning)
}

// PhysicalDevices lists the instance's physical devices with their
// properties. The same *PhysicalDevice values are returned on every call.
// With no device at all, the error wraps ErrNoDevice.
func (in *Instance) PhysicalDevices() ([]*PhysicalDevice, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || in.raw == nil {
		return nil, ErrClosed
	}
	if in.physical == nil {
		hs, err := in.raw.PhysicalDevices()
		if err != nil {
			return nil, fmt.Errorf("vulkan: %w", err)
		}
		pds := make([]*PhysicalDevice, 0, len(hs))
		for i, h := range hs {
			pd, err := newPhysicalDevice(in, i, h)
			if err != nil {
				return nil, fmt.Errorf("vulkan: physical device %d: %w", i, err)
			}
			pds = append(pds, pd)
		}
		in.physical = pds
	}
	if len(in.physical) == 0 {
		return nil, fmt.Errorf("vulkan: %w", ErrNoDevice)
	}
	return slices.Clone(in.physical), nil
}
