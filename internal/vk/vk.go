// Package vk is gfxcuda's raw Vulkan binding.
//
// Nothing here links against libvulkan: Load opens libvulkan.so.1 at run
// time and looks up vkGetInstanceProcAddr; every other entry point is loaded
// into a per-instance or per-device table of C function pointers through
// vkGetInstanceProcAddr and vkGetDeviceProcAddr. Each call goes through a
// small static C shim that takes the function pointer as its first argument.
//
// Structures that hold pointers (pNext chains, name arrays) are built in C
// memory (see arena), so the cgo pointer rules hold under cgocheck.
//
// The binding is thin but takes and returns Go values; the public package
// github.com/gfxcuda/gfxcuda/vulkan builds the user-facing API on it.
//
// Adding an entry point takes three steps: a field in instanceFuncs or
// deviceFuncs, a line in its procs list, and a shim in the cgo preamble of
// the file that calls it (static C functions are private to their file):
// this file for the loader, instance and device lifetime, memory.go for
// buffers, images, memory, views and samplers, sync.go for semaphores,
// commands.go for command pools, recording and submission, pipeline.go for
// shader modules, pipelines, descriptors and dispatches.
//
// Non-dispatchable handles (VkBuffer, VkImage, VkSemaphore and the like) are
// plain 64-bit integers in C as well as in Go: the package is compiled with
// VK_USE_64_BIT_PTR_DEFINES=0, so that no driver or layer handle value (the
// validation layer hands out small integers) is ever held in a Go pointer.
// The ABI is the same on 64-bit targets.
package vk

/*
#cgo CFLAGS: -Wall -DVK_USE_64_BIT_PTR_DEFINES=0
#cgo linux LDFLAGS: -lpthread
#cgo windows LDFLAGS: -Wl,-Bstatic -lwinpthread -Wl,-Bdynamic
#define VK_NO_PROTOTYPES 1
#include <stdlib.h>
#include <vulkan/vulkan.h>
#include "messages.h"

// Loader-level shims.

static PFN_vkVoidFunction gfx_vkGetInstanceProcAddr(PFN_vkGetInstanceProcAddr f, VkInstance instance, const char *name) {
	return f(instance, name);
}
static VkResult gfx_vkEnumerateInstanceVersion(PFN_vkEnumerateInstanceVersion f, uint32_t *version) {
	return f(version);
}
static VkResult gfx_vkEnumerateInstanceExtensionProperties(PFN_vkEnumerateInstanceExtensionProperties f, const char *layer, uint32_t *count, VkExtensionProperties *props) {
	return f(layer, count, props);
}
static VkResult gfx_vkEnumerateInstanceLayerProperties(PFN_vkEnumerateInstanceLayerProperties f, uint32_t *count, VkLayerProperties *props) {
	return f(count, props);
}
static VkResult gfx_vkCreateInstance(PFN_vkCreateInstance f, const VkInstanceCreateInfo *info, VkInstance *instance) {
	return f(info, NULL, instance);
}

// Instance-level shims.

static void gfx_vkDestroyInstance(PFN_vkDestroyInstance f, VkInstance instance) {
	f(instance, NULL);
}
static VkResult gfx_vkEnumeratePhysicalDevices(PFN_vkEnumeratePhysicalDevices f, VkInstance instance, uint32_t *count, VkPhysicalDevice *devs) {
	return f(instance, count, devs);
}
static void gfx_vkGetPhysicalDeviceProperties(PFN_vkGetPhysicalDeviceProperties f, VkPhysicalDevice pd, VkPhysicalDeviceProperties *props) {
	f(pd, props);
}
static void gfx_vkGetPhysicalDeviceProperties2(PFN_vkGetPhysicalDeviceProperties2 f, VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *props) {
	f(pd, props);
}
static void gfx_vkGetPhysicalDeviceFeatures2(PFN_vkGetPhysicalDeviceFeatures2 f, VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *feats) {
	f(pd, feats);
}
static void gfx_vkGetPhysicalDeviceMemoryProperties(PFN_vkGetPhysicalDeviceMemoryProperties f, VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties *props) {
	f(pd, props);
}
static void gfx_vkGetPhysicalDeviceQueueFamilyProperties(PFN_vkGetPhysicalDeviceQueueFamilyProperties f, VkPhysicalDevice pd, uint32_t *count, VkQueueFamilyProperties *props) {
	f(pd, count, props);
}
static VkResult gfx_vkEnumerateDeviceExtensionProperties(PFN_vkEnumerateDeviceExtensionProperties f, VkPhysicalDevice pd, const char *layer, uint32_t *count, VkExtensionProperties *props) {
	return f(pd, layer, count, props);
}
static void gfx_vkGetPhysicalDeviceExternalBufferProperties(PFN_vkGetPhysicalDeviceExternalBufferProperties f, VkPhysicalDevice pd, const VkPhysicalDeviceExternalBufferInfo *info, VkExternalBufferProperties *props) {
	f(pd, info, props);
}
static void gfx_vkGetPhysicalDeviceFormatProperties(PFN_vkGetPhysicalDeviceFormatProperties f, VkPhysicalDevice pd, VkFormat format, VkFormatProperties *props) {
	f(pd, format, props);
}
static VkResult gfx_vkGetPhysicalDeviceImageFormatProperties2(PFN_vkGetPhysicalDeviceImageFormatProperties2 f, VkPhysicalDevice pd, const VkPhysicalDeviceImageFormatInfo2 *info, VkImageFormatProperties2 *props) {
	return f(pd, info, props);
}
static void gfx_vkGetPhysicalDeviceExternalSemaphoreProperties(PFN_vkGetPhysicalDeviceExternalSemaphoreProperties f, VkPhysicalDevice pd, const VkPhysicalDeviceExternalSemaphoreInfo *info, VkExternalSemaphoreProperties *props) {
	f(pd, info, props);
}
static VkResult gfx_vkCreateDevice(PFN_vkCreateDevice f, VkPhysicalDevice pd, const VkDeviceCreateInfo *info, VkDevice *dev) {
	return f(pd, info, NULL, dev);
}
static PFN_vkVoidFunction gfx_vkGetDeviceProcAddr(PFN_vkGetDeviceProcAddr f, VkDevice dev, const char *name) {
	return f(dev, name);
}
static VkResult gfx_vkCreateDebugUtilsMessengerEXT(PFN_vkCreateDebugUtilsMessengerEXT f, VkInstance instance, const VkDebugUtilsMessengerCreateInfoEXT *info, VkDebugUtilsMessengerEXT *m) {
	return f(instance, info, NULL, m);
}
static void gfx_vkDestroyDebugUtilsMessengerEXT(PFN_vkDestroyDebugUtilsMessengerEXT f, VkInstance instance, VkDebugUtilsMessengerEXT m) {
	f(instance, m, NULL);
}

// Device-level shims.

static void gfx_vkDestroyDevice(PFN_vkDestroyDevice f, VkDevice dev) {
	f(dev, NULL);
}
static VkResult gfx_vkDeviceWaitIdle(PFN_vkDeviceWaitIdle f, VkDevice dev) {
	return f(dev);
}
static void gfx_vkGetDeviceQueue(PFN_vkGetDeviceQueue f, VkDevice dev, uint32_t family, uint32_t index, VkQueue *q) {
	f(dev, family, index, q);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/dl"
)

// Handles that callers keep but never look into.
type (
	// PhysicalDevice is a VkPhysicalDevice, valid while its Instance is.
	PhysicalDevice = C.VkPhysicalDevice
	// Queue is a VkQueue, valid while its Device is.
	Queue = C.VkQueue
)

// ErrProcNotFound is wrapped by the errors returned when the loader or driver
// lacks a required entry point.
var ErrProcNotFound = errors.New("Vulkan entry point not found")

// MakeAPIVersion packs a version as VK_MAKE_API_VERSION does.
func MakeAPIVersion(variant, major, minor, patch uint32) uint32 {
	return variant<<29 | major<<22 | minor<<12 | patch
}

// Vulkan API versions, patch 0.
var (
	APIVersion1_0 = MakeAPIVersion(0, 1, 0, 0)
	APIVersion1_1 = MakeAPIVersion(0, 1, 1, 0)
	APIVersion1_2 = MakeAPIVersion(0, 1, 2, 0)
	APIVersion1_3 = MakeAPIVersion(0, 1, 3, 0)
)

// VersionMajor, VersionMinor and VersionPatch unpack a Vulkan API version.
func VersionMajor(v uint32) uint32 { return v >> 22 & 0x7f }

// VersionMinor returns the minor number of a packed Vulkan API version.
func VersionMinor(v uint32) uint32 { return v >> 12 & 0x3ff }

// VersionPatch returns the patch number of a packed Vulkan API version.
func VersionPatch(v uint32) uint32 { return v & 0xfff }

// VersionAtLeast reports whether packed version v is at least major.minor,
// ignoring patch and variant.
func VersionAtLeast(v, major, minor uint32) bool {
	return v&^0xfff&^(7<<29) >= MakeAPIVersion(0, major, minor, 0)
}

// proc is one entry of a function table: the field it fills and the names
// to look up, in order (core name first, then extension aliases).
type proc struct {
	dst      *unsafe.Pointer
	names    []string
	optional bool
}

// fp returns the address of a typed C function pointer field as a
// *unsafe.Pointer, so that tables of different PFN types can be filled by
// one loop.
func fp[T ~*[0]byte](p *T) *unsafe.Pointer { return (*unsafe.Pointer)(unsafe.Pointer(p)) }

func req(dst *unsafe.Pointer, names ...string) proc { return proc{dst: dst, names: names} }
func opt(dst *unsafe.Pointer, names ...string) proc {
	return proc{dst: dst, names: names, optional: true}
}

// loadProcs fills every entry of procs with lookup. It fails on the first
// required entry point that lookup cannot find.
func loadProcs(procs []proc, lookup func(name *C.char) unsafe.Pointer) error {
	var a arena
	defer a.free()
	for _, p := range procs {
		*p.dst = nil
		for _, n := range p.names {
			if f := lookup(a.cstr(n)); f != nil {
				*p.dst = f
				break
			}
		}
		if *p.dst == nil && !p.optional {
			return fmt.Errorf("%w: %s", ErrProcNotFound, p.names[0])
		}
	}
	return nil
}

// Loader is the opened Vulkan loader and its global entry points.
type Loader struct {
	lib *dl.Library

	getInstanceProcAddr                  C.PFN_vkGetInstanceProcAddr
	enumerateInstanceVersion             C.PFN_vkEnumerateInstanceVersion
	enumerateInstanceExtensionProperties C.PFN_vkEnumerateInstanceExtensionProperties
	enumerateInstanceLayerProperties     C.PFN_vkEnumerateInstanceLayerProperties
	createInstance                       C.PFN_vkCreateInstance
}

var (
	loadOnce   sync.Once
	loadResult *Loader
	loadErr    error
	loaderLib  *dl.Library // the loader, once dlopen found it
)

// Load opens the Vulkan loader once per process and returns it. Its error
// wraps ErrNoLoader.
func Load() (*Loader, error) {
	loadOnce.Do(func() { loadResult, loadErr = load() })
	return loadResult, loadErr
}

func load() (*Loader, error) {
	lib, err := dl.Open(LoaderName)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLoader, err)
	}
	loaderLib = lib
	sym, err := lib.Sym("vkGetInstanceProcAddr")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLoader, err)
	}
	l := &Loader{lib: lib, getInstanceProcAddr: C.PFN_vkGetInstanceProcAddr(sym)}
	err = loadProcs([]proc{
		opt(fp(&l.enumerateInstanceVersion), "vkEnumerateInstanceVersion"), // absent in 1.0 loaders
		req(fp(&l.enumerateInstanceExtensionProperties), "vkEnumerateInstanceExtensionProperties"),
		req(fp(&l.enumerateInstanceLayerProperties), "vkEnumerateInstanceLayerProperties"),
		req(fp(&l.createInstance), "vkCreateInstance"),
	}, func(name *C.char) unsafe.Pointer {
		return unsafe.Pointer(C.gfx_vkGetInstanceProcAddr(l.getInstanceProcAddr, nil, name))
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLoader, err)
	}
	return l, nil
}

// Path is the file name the loader was opened by.
func (l *Loader) Path() string { return l.lib.Name() }

// LoaderFile is the file the Vulkan loader was loaded from (dl.Library.Path),
// once Load opened it, even where Load then failed; "" before, or when it
// was not found.
func LoaderFile() string { return loaderLib.Path() }

// InstanceVersion is the highest instance API version the loader supports
// (vkEnumerateInstanceVersion), or 1.0.0 for loaders that predate it.
func (l *Loader) InstanceVersion() (uint32, error) {
	if l.enumerateInstanceVersion == nil {
		return APIVersion1_0, nil
	}
	var v C.uint32_t
	if r := Result(C.gfx_vkEnumerateInstanceVersion(l.enumerateInstanceVersion, &v)); r != Success {
		return 0, fmt.Errorf("vkEnumerateInstanceVersion: %w", r)
	}
	return uint32(v), nil
}

// ExtensionProperties is a VkExtensionProperties.
type ExtensionProperties struct {
	Name        string
	SpecVersion uint32
}

// LayerProperties is a VkLayerProperties.
type LayerProperties struct {
	Name                  string
	SpecVersion           uint32
	ImplementationVersion uint32
	Description           string
}

// enumerate runs the two-call idiom of a vkEnumerate*/vkGet* function,
// retrying while it answers VK_INCOMPLETE.
func enumerate[T any](call func(n *C.uint32_t, p *T) Result) ([]T, error) {
	for {
		var n C.uint32_t
		if r := call(&n, nil); r != Success {
			return nil, r
		}
		if n == 0 {
			return nil, nil
		}
		out := make([]T, n)
		r := call(&n, &out[0])
		if r == Incomplete {
			continue
		}
		if r != Success {
			return nil, r
		}
		return out[:n], nil
	}
}

func extensionList(props []C.VkExtensionProperties) []ExtensionProperties {
	out := make([]ExtensionProperties, len(props))
	for i := range props {
		out[i] = ExtensionProperties{
			Name:        C.GoString(&props[i].extensionName[0]),
			SpecVersion: uint32(props[i].specVersion),
		}
	}
	return out
}

// InstanceExtensions lists the instance extensions of the loader and its
// implicit layers, or of the named layer if layer is not empty.
func (l *Loader) InstanceExtensions(layer string) ([]ExtensionProperties, error) {
	var a arena
	defer a.free()
	var cl *C.char
	if layer != "" {
		cl = a.cstr(layer)
	}
	props, err := enumerate(func(n *C.uint32_t, p *C.VkExtensionProperties) Result {
		return Result(C.gfx_vkEnumerateInstanceExtensionProperties(l.enumerateInstanceExtensionProperties, cl, n, p))
	})
	if err != nil {
		return nil, fmt.Errorf("vkEnumerateInstanceExtensionProperties: %w", err)
	}
	return extensionList(props), nil
}

// InstanceLayers lists the instance layers the loader can enable.
func (l *Loader) InstanceLayers() ([]LayerProperties, error) {
	props, err := enumerate(func(n *C.uint32_t, p *C.VkLayerProperties) Result {
		return Result(C.gfx_vkEnumerateInstanceLayerProperties(l.enumerateInstanceLayerProperties, n, p))
	})
	if err != nil {
		return nil, fmt.Errorf("vkEnumerateInstanceLayerProperties: %w", err)
	}
	out := make([]LayerProperties, len(props))
	for i := range props {
		out[i] = LayerProperties{
			Name:                  C.GoString(&props[i].layerName[0]),
			SpecVersion:           uint32(props[i].specVersion),
			ImplementationVersion: uint32(props[i].implementationVersion),
			Description:           C.GoString(&props[i].description[0]),
		}
	}
	return out, nil
}

// InstanceCreateInfo describes an instance to create.
type InstanceCreateInfo struct {
	AppName       string
	AppVersion    uint32
	EngineName    string
	EngineVersion uint32
	// APIVersion is the highest API version the application uses.
	APIVersion uint32
	Layers     []string
	Extensions []string
	// EnumeratePortability sets VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
	// VK_KHR_portability_enumeration must be among Extensions.
	EnumeratePortability bool
	// CaptureMessages installs a VK_EXT_debug_utils messenger, also for
	// instance creation and destruction, whose messages Messages drains.
	// VK_EXT_debug_utils must be among Extensions.
	CaptureMessages bool
	// VerboseMessages prints every message, info included, to stderr.
	VerboseMessages bool
}

// instanceFuncs holds the instance-level entry points.
type instanceFuncs struct {
	destroyInstance                         C.PFN_vkDestroyInstance
	enumeratePhysicalDevices                C.PFN_vkEnumeratePhysicalDevices
	getPhysicalDeviceProperties             C.PFN_vkGetPhysicalDeviceProperties
	getPhysicalDeviceProperties2            C.PFN_vkGetPhysicalDeviceProperties2
	getPhysicalDeviceFeatures2              C.PFN_vkGetPhysicalDeviceFeatures2
	getPhysicalDeviceMemoryProperties       C.PFN_vkGetPhysicalDeviceMemoryProperties
	getPhysicalDeviceQueueFamilyProperties  C.PFN_vkGetPhysicalDeviceQueueFamilyProperties
	enumerateDeviceExtensionProperties      C.PFN_vkEnumerateDeviceExtensionProperties
	getPhysicalDeviceExternalBufferProps    C.PFN_vkGetPhysicalDeviceExternalBufferProperties
	getPhysicalDeviceImageFormatProperties2 C.PFN_vkGetPhysicalDeviceImageFormatProperties2
	getPhysicalDeviceFormatProperties       C.PFN_vkGetPhysicalDeviceFormatProperties
	getPhysicalDeviceExternalSemaphoreProps C.PFN_vkGetPhysicalDeviceExternalSemaphoreProperties
	createDevice                            C.PFN_vkCreateDevice
	getDeviceProcAddr                       C.PFN_vkGetDeviceProcAddr
	createDebugUtilsMessengerEXT            C.PFN_vkCreateDebugUtilsMessengerEXT
	destroyDebugUtilsMessengerEXT           C.PFN_vkDestroyDebugUtilsMessengerEXT
}

func (f *instanceFuncs) procs() []proc {
	return []proc{
		req(fp(&f.destroyInstance), "vkDestroyInstance"),
		req(fp(&f.enumeratePhysicalDevices), "vkEnumeratePhysicalDevices"),
		req(fp(&f.getPhysicalDeviceProperties), "vkGetPhysicalDeviceProperties"),
		// Core in 1.1; the KHR names come from
		// VK_KHR_get_physical_device_properties2 and friends on 1.0.
		opt(fp(&f.getPhysicalDeviceProperties2), "vkGetPhysicalDeviceProperties2", "vkGetPhysicalDeviceProperties2KHR"),
		opt(fp(&f.getPhysicalDeviceFeatures2), "vkGetPhysicalDeviceFeatures2", "vkGetPhysicalDeviceFeatures2KHR"),
		req(fp(&f.getPhysicalDeviceMemoryProperties), "vkGetPhysicalDeviceMemoryProperties"),
		req(fp(&f.getPhysicalDeviceQueueFamilyProperties), "vkGetPhysicalDeviceQueueFamilyProperties"),
		req(fp(&f.enumerateDeviceExtensionProperties), "vkEnumerateDeviceExtensionProperties"),
		opt(fp(&f.getPhysicalDeviceExternalBufferProps), "vkGetPhysicalDeviceExternalBufferProperties", "vkGetPhysicalDeviceExternalBufferPropertiesKHR"),
		opt(fp(&f.getPhysicalDeviceImageFormatProperties2), "vkGetPhysicalDeviceImageFormatProperties2", "vkGetPhysicalDeviceImageFormatProperties2KHR"),
		req(fp(&f.getPhysicalDeviceFormatProperties), "vkGetPhysicalDeviceFormatProperties"),
		opt(fp(&f.getPhysicalDeviceExternalSemaphoreProps), "vkGetPhysicalDeviceExternalSemaphoreProperties", "vkGetPhysicalDeviceExternalSemaphorePropertiesKHR"),
		req(fp(&f.createDevice), "vkCreateDevice"),
		req(fp(&f.getDeviceProcAddr), "vkGetDeviceProcAddr"),
		opt(fp(&f.createDebugUtilsMessengerEXT), "vkCreateDebugUtilsMessengerEXT"),
		opt(fp(&f.destroyDebugUtilsMessengerEXT), "vkDestroyDebugUtilsMessengerEXT"),
	}
}

// Instance is a VkInstance with its function table. Its methods are not
// safe for concurrent use with Destroy.
type Instance struct {
	h          C.VkInstance
	fn         instanceFuncs
	apiVersion uint32
	msgs       *C.gfx_msgbuf
	messenger  C.VkDebugUtilsMessengerEXT
	leftover   [C.GFX_MSG_KINDS][]string // messages taken at Destroy
}

// CreateInstance calls vkCreateInstance and loads the instance's function
// table. The drivers and layers the loader opens for the instance stay
// loaded after it is destroyed (see pinLoadedLibraries).
func (l *Loader) CreateInstance(info InstanceCreateInfo) (*Instance, error) {
	var a arena
	defer a.free()

	app := alloc[C.VkApplicationInfo](&a)
	app.sType = C.VK_STRUCTURE_TYPE_APPLICATION_INFO
	app.pApplicationName = a.cstr(info.AppName)
	app.applicationVersion = C.uint32_t(info.AppVersion)
	app.pEngineName = a.cstr(info.EngineName)
	app.engineVersion = C.uint32_t(info.EngineVersion)
	app.apiVersion = C.uint32_t(info.APIVersion)

	ci := alloc[C.VkInstanceCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
	ci.pApplicationInfo = app
	ci.enabledLayerCount = C.uint32_t(len(info.Layers))
	ci.ppEnabledLayerNames = a.cstrs(info.Layers)
	ci.enabledExtensionCount = C.uint32_t(len(info.Extensions))
	ci.ppEnabledExtensionNames = a.cstrs(info.Extensions)
	if info.EnumeratePortability {
		ci.flags |= C.VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
	}

	in := &Instance{apiVersion: info.APIVersion}
	var mci *C.VkDebugUtilsMessengerCreateInfoEXT
	if info.CaptureMessages {
		verbose := C.int(0)
		if info.VerboseMessages {
			verbose = 1
		}
		in.msgs = C.gfx_msgbuf_new(verbose)
		if in.msgs == nil {
			return nil, fmt.Errorf("vkCreateInstance: message buffer: %w", ErrorOutOfHostMemory)
		}
		mci = alloc[C.VkDebugUtilsMessengerCreateInfoEXT](&a)
		C.gfx_msgbuf_fill(mci, in.msgs)
		// Chained, the messenger also reports on vkCreateInstance and
		// vkDestroyInstance themselves.
		ci.pNext = unsafe.Pointer(mci)
	}

	if r := Result(C.gfx_vkCreateInstance(l.createInstance, ci, &in.h)); r != Success {
		var msgs []string
		if in.msgs != nil {
			// The loader and layers may have said why.
			msgs = in.takeMessages(MessageError)
			C.gfx_msgbuf_free(in.msgs)
		}
		if len(msgs) > 0 {
			return nil, fmt.Errorf("vkCreateInstance: %w (%s)", r, strings.Join(msgs, "; "))
		}
		return nil, fmt.Errorf("vkCreateInstance: %w", r)
	}
	pinLoadedLibraries()
	err := loadProcs(in.fn.procs(), func(name *C.char) unsafe.Pointer {
		return unsafe.Pointer(C.gfx_vkGetInstanceProcAddr(l.getInstanceProcAddr, in.h, name))
	})
	if err != nil {
		if in.fn.destroyInstance != nil {
			C.gfx_vkDestroyInstance(in.fn.destroyInstance, in.h)
		}
		C.gfx_msgbuf_free(in.msgs)
		return nil, fmt.Errorf("vkCreateInstance: %w", err)
	}
	if info.CaptureMessages {
		if in.fn.createDebugUtilsMessengerEXT == nil || in.fn.destroyDebugUtilsMessengerEXT == nil {
			in.Destroy()
			return nil, fmt.Errorf("%w: vkCreateDebugUtilsMessengerEXT (is VK_EXT_debug_utils enabled?)", ErrProcNotFound)
		}
		if r := Result(C.gfx_vkCreateDebugUtilsMessengerEXT(in.fn.createDebugUtilsMessengerEXT, in.h, mci, &in.messenger)); r != Success {
			in.Destroy()
			return nil, fmt.Errorf("vkCreateDebugUtilsMessengerEXT: %w", r)
		}
	}
	return in, nil
}

// APIVersion is the API version the instance was created with.
func (in *Instance) APIVersion() uint32 { return in.apiVersion }

// Destroy destroys the messenger and the instance. Every device must be
// destroyed first. Messages not yet taken, those of vkDestroyInstance
// included, stay available to Messages. Destroy does nothing the second
// time.
func (in *Instance) Destroy() {
	if in.h == nil {
		return
	}
	if in.messenger != 0 {
		C.gfx_vkDestroyDebugUtilsMessengerEXT(in.fn.destroyDebugUtilsMessengerEXT, in.h, in.messenger)
		in.messenger = 0
	}
	C.gfx_vkDestroyInstance(in.fn.destroyInstance, in.h)
	in.h = nil
	if in.msgs != nil {
		for k := range in.leftover {
			in.leftover[k] = in.takeMessages(MessageKind(k))
		}
		C.gfx_msgbuf_free(in.msgs)
		in.msgs = nil
	}
}

// MessageKind selects the list Messages drains.
type MessageKind int

// Message kinds, by severity.
const (
	MessageError   MessageKind = C.GFX_MSG_ERROR
	MessageWarning MessageKind = C.GFX_MSG_WARNING
)

// Messages drains the captured debug messages of one kind, oldest first.
// If some were dropped for lack of room, a last entry says how many. It
// returns nil when the instance captures no messages.
func (in *Instance) Messages(kind MessageKind) []string {
	if kind < 0 || int(kind) >= len(in.leftover) {
		return nil
	}
	if in.msgs == nil {
		out := in.leftover[kind]
		in.leftover[kind] = nil
		return out
	}
	return in.takeMessages(kind)
}

func (in *Instance) takeMessages(kind MessageKind) []string {
	var p *C.char
	var dropped C.unsigned
	n := C.gfx_msgbuf_take(in.msgs, C.int(kind), &p, &dropped)
	var out []string
	if p != nil {
		data := unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
		for len(data) > 0 {
			i := 0
			for i < len(data) && data[i] != 0 {
				i++
			}
			out = append(out, string(data[:i]))
			if i < len(data) {
				i++
			}
			data = data[i:]
		}
		C.free(unsafe.Pointer(p))
	}
	if dropped > 0 {
		out = append(out, fmt.Sprintf("(%d more messages dropped)", uint(dropped)))
	}
	return out
}

// injectMessage appends a message as the messenger would; for tests.
func (in *Instance) injectMessage(kind MessageKind, msg string) {
	if in.msgs == nil || kind < 0 || int(kind) >= len(in.leftover) {
		return
	}
	var a arena
	defer a.free()
	C.gfx_msgbuf_add(in.msgs, C.int(kind), a.cstr(msg))
}

// PhysicalDevices lists the physical devices (vkEnumeratePhysicalDevices).
func (in *Instance) PhysicalDevices() ([]PhysicalDevice, error) {
	pds, err := enumerate(func(n *C.uint32_t, p *C.VkPhysicalDevice) Result {
		return Result(C.gfx_vkEnumeratePhysicalDevices(in.fn.enumeratePhysicalDevices, in.h, n, p))
	})
	if err != nil {
		return nil, fmt.Errorf("vkEnumeratePhysicalDevices: %w", err)
	}
	return pds, nil
}

// DeviceExtensions lists the device extensions of pd.
func (in *Instance) DeviceExtensions(pd PhysicalDevice) ([]ExtensionProperties, error) {
	props, err := enumerate(func(n *C.uint32_t, p *C.VkExtensionProperties) Result {
		return Result(C.gfx_vkEnumerateDeviceExtensionProperties(in.fn.enumerateDeviceExtensionProperties, pd, nil, n, p))
	})
	if err != nil {
		return nil, fmt.Errorf("vkEnumerateDeviceExtensionProperties: %w", err)
	}
	return extensionList(props), nil
}

// PropertiesQuery says which structures to chain to
// VkPhysicalDeviceProperties2. Chain only what the device supports.
type PropertiesQuery struct {
	ID     bool // VkPhysicalDeviceIDProperties (1.1)
	Driver bool // VkPhysicalDeviceDriverProperties (1.2 or VK_KHR_driver_properties)
}

// Properties is what PhysicalDeviceProperties reports.
type Properties struct {
	APIVersion    uint32
	DriverVersion uint32
	VendorID      uint32
	DeviceID      uint32
	DeviceType    uint32 // VkPhysicalDeviceType
	DeviceName    string

	TimestampPeriod float32
	// Limits are the limits compute work needs (VkPhysicalDeviceLimits).
	Limits Limits
	// NonCoherentAtomSize is limits.nonCoherentAtomSize: the granularity of
	// flushes and invalidations of host-visible, non-coherent memory.
	NonCoherentAtomSize uint64

	HasID      bool // the fields below were queried
	DeviceUUID [16]byte
	DriverUUID [16]byte

	HasDriver  bool // the fields below were queried
	DriverID   uint32
	DriverName string
	DriverInfo string
}

// PhysicalDeviceProperties queries pd's properties. Without
// vkGetPhysicalDeviceProperties2 it reports the core properties only.
func (in *Instance) PhysicalDeviceProperties(pd PhysicalDevice, q PropertiesQuery) Properties {
	var a arena
	defer a.free()
	var out Properties
	var base *C.VkPhysicalDeviceProperties
	var id *C.VkPhysicalDeviceIDProperties
	var drv *C.VkPhysicalDeviceDriverProperties
	if in.fn.getPhysicalDeviceProperties2 != nil {
		p2 := alloc[C.VkPhysicalDeviceProperties2](&a)
		p2.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
		next := &p2.pNext
		if q.ID {
			id = alloc[C.VkPhysicalDeviceIDProperties](&a)
			id.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES
			*next = unsafe.Pointer(id)
			next = &id.pNext
		}
		if q.Driver {
			drv = alloc[C.VkPhysicalDeviceDriverProperties](&a)
			drv.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES
			*next = unsafe.Pointer(drv)
		}
		C.gfx_vkGetPhysicalDeviceProperties2(in.fn.getPhysicalDeviceProperties2, pd, p2)
		base = &p2.properties
	} else {
		base = alloc[C.VkPhysicalDeviceProperties](&a)
		C.gfx_vkGetPhysicalDeviceProperties(in.fn.getPhysicalDeviceProperties, pd, base)
	}
	out.APIVersion = uint32(base.apiVersion)
	out.DriverVersion = uint32(base.driverVersion)
	out.VendorID = uint32(base.vendorID)
	out.DeviceID = uint32(base.deviceID)
	out.DeviceType = uint32(base.deviceType)
	out.DeviceName = C.GoString(&base.deviceName[0])
	out.TimestampPeriod = float32(base.limits.timestampPeriod)
	out.NonCoherentAtomSize = uint64(base.limits.nonCoherentAtomSize)
	out.Limits = limitsOf(&base.limits)
	if id != nil {
		out.HasID = true
		for i := range out.DeviceUUID {
			out.DeviceUUID[i] = byte(id.deviceUUID[i])
			out.DriverUUID[i] = byte(id.driverUUID[i])
		}
	}
	if drv != nil {
		out.HasDriver = true
		out.DriverID = uint32(drv.driverID)
		out.DriverName = C.GoString(&drv.driverName[0])
		out.DriverInfo = C.GoString(&drv.driverInfo[0])
	}
	return out
}

// Features is the set of optional features gfxcuda queries and enables.
type Features struct {
	TimelineSemaphore   bool
	Synchronization2    bool
	BufferDeviceAddress bool

	// Shader features: the VkPhysicalDeviceFeatures ones always, the
	// VkPhysicalDeviceVulkan11Features and Vulkan12Features ones where
	// FeatureQuery.Vulkan12 is set.
	ShaderFloat64                      bool
	ShaderInt64                        bool
	ShaderInt16                        bool
	StorageImageExtendedFormats        bool
	StorageImageReadWithoutFormat      bool
	StorageImageWriteWithoutFormat     bool
	ShaderFloat16                      bool // Vulkan12
	ShaderInt8                         bool // Vulkan12
	StorageBuffer8BitAccess            bool // Vulkan12
	UniformAndStorageBuffer8BitAccess  bool // Vulkan12
	StorageBuffer16BitAccess           bool // Vulkan11
	UniformAndStorageBuffer16BitAccess bool // Vulkan11
	// UniformBufferStandardLayout lets uniform buffers use std430-style
	// layouts (Vulkan12).
	UniformBufferStandardLayout bool

	// Sparse resources (VkPhysicalDeviceFeatures).
	SparseBinding          bool
	SparseResidencyBuffer  bool
	SparseResidencyImage2D bool
	SparseResidencyImage3D bool
	SparseResidencyAliased bool

	// Arrays of descriptors indexed in shaders: the dynamic indexing
	// features of VkPhysicalDeviceFeatures, and descriptor indexing's
	// (Vulkan12) for runtime-sized, partially bound arrays.
	UniformBufferArrayDynamicIndexing      bool
	SampledImageArrayDynamicIndexing       bool
	StorageBufferArrayDynamicIndexing      bool
	StorageImageArrayDynamicIndexing       bool
	UniformTexelBufferArrayDynamicIndexing bool // Vulkan12
	StorageTexelBufferArrayDynamicIndexing bool // Vulkan12
	RuntimeDescriptorArray                 bool // Vulkan12
	DescriptorBindingPartiallyBound        bool // Vulkan12
}

// FeatureQuery says through which structures features are queried or
// enabled: the Vulkan12/13 structures when the API version has them, else
// the extensions' own structures. Set only what the device supports.
type FeatureQuery struct {
	Vulkan12, Vulkan13     bool // VkPhysicalDeviceVulkan1{2,3}Features
	TimelineSemaphoreExt   bool // VK_KHR_timeline_semaphore
	Synchronization2Ext    bool // VK_KHR_synchronization2
	BufferDeviceAddressExt bool // VK_KHR_buffer_device_address
}

// featureChain builds a VkPhysicalDeviceFeatures2 chain for q in a; with
// set, the requested features are set to VK_TRUE. It returns the head and a
// function that reads the features back.
func featureChain(a *arena, q FeatureQuery, set *Features) (*C.VkPhysicalDeviceFeatures2, func() Features) {
	f2 := alloc[C.VkPhysicalDeviceFeatures2](a)
	f2.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
	next := &f2.pNext
	b := func(v bool) C.VkBool32 {
		if v {
			return C.VK_TRUE
		}
		return C.VK_FALSE
	}
	var want Features
	if set != nil {
		want = *set
	}
	f2.features.shaderFloat64 = b(want.ShaderFloat64)
	f2.features.shaderInt64 = b(want.ShaderInt64)
	f2.features.shaderInt16 = b(want.ShaderInt16)
	f2.features.shaderStorageImageExtendedFormats = b(want.StorageImageExtendedFormats)
	f2.features.shaderStorageImageReadWithoutFormat = b(want.StorageImageReadWithoutFormat)
	f2.features.shaderStorageImageWriteWithoutFormat = b(want.StorageImageWriteWithoutFormat)
	f2.features.sparseBinding = b(want.SparseBinding)
	f2.features.sparseResidencyBuffer = b(want.SparseResidencyBuffer)
	f2.features.sparseResidencyImage2D = b(want.SparseResidencyImage2D)
	f2.features.sparseResidencyImage3D = b(want.SparseResidencyImage3D)
	f2.features.sparseResidencyAliased = b(want.SparseResidencyAliased)
	f2.features.shaderUniformBufferArrayDynamicIndexing = b(want.UniformBufferArrayDynamicIndexing)
	f2.features.shaderSampledImageArrayDynamicIndexing = b(want.SampledImageArrayDynamicIndexing)
	f2.features.shaderStorageBufferArrayDynamicIndexing = b(want.StorageBufferArrayDynamicIndexing)
	f2.features.shaderStorageImageArrayDynamicIndexing = b(want.StorageImageArrayDynamicIndexing)
	var v11 *C.VkPhysicalDeviceVulkan11Features
	var v12 *C.VkPhysicalDeviceVulkan12Features
	var v13 *C.VkPhysicalDeviceVulkan13Features
	var tl *C.VkPhysicalDeviceTimelineSemaphoreFeatures
	var s2 *C.VkPhysicalDeviceSynchronization2Features
	var bda *C.VkPhysicalDeviceBufferDeviceAddressFeatures
	if q.Vulkan12 {
		v12 = alloc[C.VkPhysicalDeviceVulkan12Features](a)
		v12.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
		v12.timelineSemaphore = b(want.TimelineSemaphore)
		v12.bufferDeviceAddress = b(want.BufferDeviceAddress)
		v12.shaderFloat16 = b(want.ShaderFloat16)
		v12.shaderInt8 = b(want.ShaderInt8)
		v12.storageBuffer8BitAccess = b(want.StorageBuffer8BitAccess)
		v12.uniformAndStorageBuffer8BitAccess = b(want.UniformAndStorageBuffer8BitAccess)
		v12.shaderUniformTexelBufferArrayDynamicIndexing = b(want.UniformTexelBufferArrayDynamicIndexing)
		v12.shaderStorageTexelBufferArrayDynamicIndexing = b(want.StorageTexelBufferArrayDynamicIndexing)
		v12.runtimeDescriptorArray = b(want.RuntimeDescriptorArray)
		v12.descriptorBindingPartiallyBound = b(want.DescriptorBindingPartiallyBound)
		v12.uniformBufferStandardLayout = b(want.UniformBufferStandardLayout)
		*next = unsafe.Pointer(v12)
		next = &v12.pNext
		v11 = alloc[C.VkPhysicalDeviceVulkan11Features](a)
		v11.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES
		v11.storageBuffer16BitAccess = b(want.StorageBuffer16BitAccess)
		v11.uniformAndStorageBuffer16BitAccess = b(want.UniformAndStorageBuffer16BitAccess)
		*next = unsafe.Pointer(v11)
		next = &v11.pNext
	} else {
		if q.TimelineSemaphoreExt && (set == nil || want.TimelineSemaphore) {
			tl = alloc[C.VkPhysicalDeviceTimelineSemaphoreFeatures](a)
			tl.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES
			tl.timelineSemaphore = b(want.TimelineSemaphore)
			*next = unsafe.Pointer(tl)
			next = &tl.pNext
		}
		if q.BufferDeviceAddressExt && (set == nil || want.BufferDeviceAddress) {
			bda = alloc[C.VkPhysicalDeviceBufferDeviceAddressFeatures](a)
			bda.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES
			bda.bufferDeviceAddress = b(want.BufferDeviceAddress)
			*next = unsafe.Pointer(bda)
			next = &bda.pNext
		}
	}
	if q.Vulkan13 {
		v13 = alloc[C.VkPhysicalDeviceVulkan13Features](a)
		v13.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES
		v13.synchronization2 = b(want.Synchronization2)
		*next = unsafe.Pointer(v13)
	} else if q.Synchronization2Ext && (set == nil || want.Synchronization2) {
		s2 = alloc[C.VkPhysicalDeviceSynchronization2Features](a)
		s2.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES
		s2.synchronization2 = b(want.Synchronization2)
		*next = unsafe.Pointer(s2)
	}
	read := func() Features {
		f := Features{
			ShaderFloat64:                  f2.features.shaderFloat64 != 0,
			ShaderInt64:                    f2.features.shaderInt64 != 0,
			ShaderInt16:                    f2.features.shaderInt16 != 0,
			StorageImageExtendedFormats:    f2.features.shaderStorageImageExtendedFormats != 0,
			StorageImageReadWithoutFormat:  f2.features.shaderStorageImageReadWithoutFormat != 0,
			StorageImageWriteWithoutFormat: f2.features.shaderStorageImageWriteWithoutFormat != 0,
			SparseBinding:                  f2.features.sparseBinding != 0,
			SparseResidencyBuffer:          f2.features.sparseResidencyBuffer != 0,
			SparseResidencyImage2D:         f2.features.sparseResidencyImage2D != 0,
			SparseResidencyImage3D:         f2.features.sparseResidencyImage3D != 0,
			SparseResidencyAliased:         f2.features.sparseResidencyAliased != 0,

			UniformBufferArrayDynamicIndexing: f2.features.shaderUniformBufferArrayDynamicIndexing != 0,
			SampledImageArrayDynamicIndexing:  f2.features.shaderSampledImageArrayDynamicIndexing != 0,
			StorageBufferArrayDynamicIndexing: f2.features.shaderStorageBufferArrayDynamicIndexing != 0,
			StorageImageArrayDynamicIndexing:  f2.features.shaderStorageImageArrayDynamicIndexing != 0,
		}
		if v12 != nil {
			f.TimelineSemaphore = v12.timelineSemaphore != 0
			f.BufferDeviceAddress = v12.bufferDeviceAddress != 0
			f.ShaderFloat16 = v12.shaderFloat16 != 0
			f.ShaderInt8 = v12.shaderInt8 != 0
			f.StorageBuffer8BitAccess = v12.storageBuffer8BitAccess != 0
			f.UniformAndStorageBuffer8BitAccess = v12.uniformAndStorageBuffer8BitAccess != 0
			f.UniformTexelBufferArrayDynamicIndexing = v12.shaderUniformTexelBufferArrayDynamicIndexing != 0
			f.StorageTexelBufferArrayDynamicIndexing = v12.shaderStorageTexelBufferArrayDynamicIndexing != 0
			f.RuntimeDescriptorArray = v12.runtimeDescriptorArray != 0
			f.DescriptorBindingPartiallyBound = v12.descriptorBindingPartiallyBound != 0
			f.UniformBufferStandardLayout = v12.uniformBufferStandardLayout != 0
		}
		if v11 != nil {
			f.StorageBuffer16BitAccess = v11.storageBuffer16BitAccess != 0
			f.UniformAndStorageBuffer16BitAccess = v11.uniformAndStorageBuffer16BitAccess != 0
		}
		if tl != nil {
			f.TimelineSemaphore = tl.timelineSemaphore != 0
		}
		if bda != nil {
			f.BufferDeviceAddress = bda.bufferDeviceAddress != 0
		}
		if v13 != nil {
			f.Synchronization2 = v13.synchronization2 != 0
		}
		if s2 != nil {
			f.Synchronization2 = s2.synchronization2 != 0
		}
		return f
	}
	return f2, read
}

// PhysicalDeviceFeatures queries the features of q that pd supports. It
// reports none without vkGetPhysicalDeviceFeatures2.
func (in *Instance) PhysicalDeviceFeatures(pd PhysicalDevice, q FeatureQuery) Features {
	if in.fn.getPhysicalDeviceFeatures2 == nil {
		return Features{}
	}
	var a arena
	defer a.free()
	f2, read := featureChain(&a, q, nil)
	C.gfx_vkGetPhysicalDeviceFeatures2(in.fn.getPhysicalDeviceFeatures2, pd, f2)
	return read()
}

// MemoryType is a VkMemoryType.
type MemoryType struct {
	PropertyFlags uint32 // VkMemoryPropertyFlags
	HeapIndex     uint32
}

// MemoryHeap is a VkMemoryHeap.
type MemoryHeap struct {
	Size  uint64
	Flags uint32 // VkMemoryHeapFlags
}

// MemoryProperties returns pd's memory types and heaps.
func (in *Instance) MemoryProperties(pd PhysicalDevice) ([]MemoryType, []MemoryHeap) {
	var p C.VkPhysicalDeviceMemoryProperties
	C.gfx_vkGetPhysicalDeviceMemoryProperties(in.fn.getPhysicalDeviceMemoryProperties, pd, &p)
	types := make([]MemoryType, p.memoryTypeCount)
	for i := range types {
		types[i] = MemoryType{
			PropertyFlags: uint32(p.memoryTypes[i].propertyFlags),
			HeapIndex:     uint32(p.memoryTypes[i].heapIndex),
		}
	}
	heaps := make([]MemoryHeap, p.memoryHeapCount)
	for i := range heaps {
		heaps[i] = MemoryHeap{
			Size:  uint64(p.memoryHeaps[i].size),
			Flags: uint32(p.memoryHeaps[i].flags),
		}
	}
	return types, heaps
}

// QueueFamily is a VkQueueFamilyProperties.
type QueueFamily struct {
	QueueFlags         uint32 // VkQueueFlags
	QueueCount         uint32
	TimestampValidBits uint32
}

// QueueFamilies returns pd's queue families, indexed by family index.
func (in *Instance) QueueFamilies(pd PhysicalDevice) []QueueFamily {
	var n C.uint32_t
	C.gfx_vkGetPhysicalDeviceQueueFamilyProperties(in.fn.getPhysicalDeviceQueueFamilyProperties, pd, &n, nil)
	if n == 0 {
		return nil
	}
	props := make([]C.VkQueueFamilyProperties, n)
	C.gfx_vkGetPhysicalDeviceQueueFamilyProperties(in.fn.getPhysicalDeviceQueueFamilyProperties, pd, &n, &props[0])
	out := make([]QueueFamily, n)
	for i := range out {
		out[i] = QueueFamily{
			QueueFlags:         uint32(props[i].queueFlags),
			QueueCount:         uint32(props[i].queueCount),
			TimestampValidBits: uint32(props[i].timestampValidBits),
		}
	}
	return out
}

// ExternalMemoryProperties is a VkExternalMemoryProperties.
type ExternalMemoryProperties struct {
	Features                      uint32 // VkExternalMemoryFeatureFlags
	ExportFromImportedHandleTypes uint32
	CompatibleHandleTypes         uint32
}

func externalMemoryProperties(p *C.VkExternalMemoryProperties) ExternalMemoryProperties {
	return ExternalMemoryProperties{
		Features:                      uint32(p.externalMemoryFeatures),
		ExportFromImportedHandleTypes: uint32(p.exportFromImportedHandleTypes),
		CompatibleHandleTypes:         uint32(p.compatibleHandleTypes),
	}
}

// ExternalBufferProperties asks how a buffer of the given create flags and
// usage can be exported and imported as handleType
// (vkGetPhysicalDeviceExternalBufferProperties).
func (in *Instance) ExternalBufferProperties(pd PhysicalDevice, flags, usage, handleType uint32) (ExternalMemoryProperties, error) {
	if in.fn.getPhysicalDeviceExternalBufferProps == nil {
		return ExternalMemoryProperties{}, fmt.Errorf("%w: vkGetPhysicalDeviceExternalBufferProperties", ErrProcNotFound)
	}
	var a arena
	defer a.free()
	info := alloc[C.VkPhysicalDeviceExternalBufferInfo](&a)
	info.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO
	info.flags = C.VkBufferCreateFlags(flags)
	info.usage = C.VkBufferUsageFlags(usage)
	info.handleType = C.VkExternalMemoryHandleTypeFlagBits(handleType)
	props := alloc[C.VkExternalBufferProperties](&a)
	props.sType = C.VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES
	C.gfx_vkGetPhysicalDeviceExternalBufferProperties(in.fn.getPhysicalDeviceExternalBufferProps, pd, info, props)
	return externalMemoryProperties(&props.externalMemoryProperties), nil
}

// ImageFormatInfo is the part of VkPhysicalDeviceImageFormatInfo2 that
// ImageFormatProperties and ExternalImageProperties take.
type ImageFormatInfo struct {
	Format uint32 // VkFormat
	Type   uint32 // VkImageType
	Tiling uint32 // VkImageTiling
	Usage  uint32 // VkImageUsageFlags
	Flags  uint32 // VkImageCreateFlags
}

// ImageFormatProperties is a VkImageFormatProperties, with the external
// memory properties when they were asked for.
type ImageFormatProperties struct {
	MaxExtent       [3]uint32
	MaxMipLevels    uint32
	MaxArrayLayers  uint32
	SampleCounts    uint32 // VkSampleCountFlags
	MaxResourceSize uint64
	External        ExternalMemoryProperties
}

// ImageFormatProperties asks whether and within which limits an image
// described by info can be created (vkGetPhysicalDeviceImageFormatProperties2).
// With handleType non-zero, VkPhysicalDeviceExternalImageFormatInfo is
// chained and External says how the image's memory can be exported and
// imported as handleType. An unsupported combination is an error wrapping
// ErrorFormatNotSupported.
func (in *Instance) ImageFormatProperties(pd PhysicalDevice, info ImageFormatInfo, handleType uint32) (ImageFormatProperties, error) {
	if in.fn.getPhysicalDeviceImageFormatProperties2 == nil {
		return ImageFormatProperties{}, fmt.Errorf("%w: vkGetPhysicalDeviceImageFormatProperties2", ErrProcNotFound)
	}
	var a arena
	defer a.free()
	fi := alloc[C.VkPhysicalDeviceImageFormatInfo2](&a)
	fi.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2
	fi.format = C.VkFormat(info.Format)
	fi._type = C.VkImageType(info.Type)
	fi.tiling = C.VkImageTiling(info.Tiling)
	fi.usage = C.VkImageUsageFlags(info.Usage)
	fi.flags = C.VkImageCreateFlags(info.Flags)
	props := alloc[C.VkImageFormatProperties2](&a)
	props.sType = C.VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2
	var eprops *C.VkExternalImageFormatProperties
	if handleType != 0 {
		ext := alloc[C.VkPhysicalDeviceExternalImageFormatInfo](&a)
		ext.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO
		ext.handleType = C.VkExternalMemoryHandleTypeFlagBits(handleType)
		fi.pNext = unsafe.Pointer(ext)
		eprops = alloc[C.VkExternalImageFormatProperties](&a)
		eprops.sType = C.VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES
		props.pNext = unsafe.Pointer(eprops)
	}
	if r := Result(C.gfx_vkGetPhysicalDeviceImageFormatProperties2(in.fn.getPhysicalDeviceImageFormatProperties2, pd, fi, props)); r != Success {
		return ImageFormatProperties{}, fmt.Errorf("vkGetPhysicalDeviceImageFormatProperties2: %w", r)
	}
	p := &props.imageFormatProperties
	out := ImageFormatProperties{
		MaxExtent:       [3]uint32{uint32(p.maxExtent.width), uint32(p.maxExtent.height), uint32(p.maxExtent.depth)},
		MaxMipLevels:    uint32(p.maxMipLevels),
		MaxArrayLayers:  uint32(p.maxArrayLayers),
		SampleCounts:    uint32(p.sampleCounts),
		MaxResourceSize: uint64(p.maxResourceSize),
	}
	if eprops != nil {
		out.External = externalMemoryProperties(&eprops.externalMemoryProperties)
	}
	return out, nil
}

// ExternalImageProperties asks how an image described by info can be
// exported and imported as handleType (vkGetPhysicalDeviceImageFormatProperties2
// with VkPhysicalDeviceExternalImageFormatInfo chained). An unsupported
// combination is an error wrapping ErrorFormatNotSupported.
func (in *Instance) ExternalImageProperties(pd PhysicalDevice, info ImageFormatInfo, handleType uint32) (ExternalMemoryProperties, error) {
	p, err := in.ImageFormatProperties(pd, info, handleType)
	return p.External, err
}

// FormatProperties is a VkFormatProperties: the VkFormatFeatureFlags of a
// format for linear and optimal tiling images and for buffers.
type FormatProperties struct {
	Linear, Optimal, Buffer uint32
}

// FormatProperties returns what pd can do with format
// (vkGetPhysicalDeviceFormatProperties).
func (in *Instance) FormatProperties(pd PhysicalDevice, format uint32) FormatProperties {
	var p C.VkFormatProperties
	C.gfx_vkGetPhysicalDeviceFormatProperties(in.fn.getPhysicalDeviceFormatProperties, pd, C.VkFormat(format), &p)
	return FormatProperties{
		Linear:  uint32(p.linearTilingFeatures),
		Optimal: uint32(p.optimalTilingFeatures),
		Buffer:  uint32(p.bufferFeatures),
	}
}

// ExternalSemaphoreProperties is a VkExternalSemaphoreProperties.
type ExternalSemaphoreProperties struct {
	Features                      uint32 // VkExternalSemaphoreFeatureFlags
	ExportFromImportedHandleTypes uint32
	CompatibleHandleTypes         uint32
}

// ExternalSemaphoreProperties asks how a binary or, with timeline, a
// timeline semaphore can be exported and imported as handleType
// (vkGetPhysicalDeviceExternalSemaphoreProperties). Ask about timeline
// semaphores only if the device supports them.
func (in *Instance) ExternalSemaphoreProperties(pd PhysicalDevice, handleType uint32, timeline bool) (ExternalSemaphoreProperties, error) {
	if in.fn.getPhysicalDeviceExternalSemaphoreProps == nil {
		return ExternalSemaphoreProperties{}, fmt.Errorf("%w: vkGetPhysicalDeviceExternalSemaphoreProperties", ErrProcNotFound)
	}
	var a arena
	defer a.free()
	info := alloc[C.VkPhysicalDeviceExternalSemaphoreInfo](&a)
	info.sType = C.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO
	info.handleType = C.VkExternalSemaphoreHandleTypeFlagBits(handleType)
	if timeline {
		ti := alloc[C.VkSemaphoreTypeCreateInfo](&a)
		ti.sType = C.VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO
		ti.semaphoreType = C.VK_SEMAPHORE_TYPE_TIMELINE
		info.pNext = unsafe.Pointer(ti)
	}
	props := alloc[C.VkExternalSemaphoreProperties](&a)
	props.sType = C.VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES
	C.gfx_vkGetPhysicalDeviceExternalSemaphoreProperties(in.fn.getPhysicalDeviceExternalSemaphoreProps, pd, info, props)
	return ExternalSemaphoreProperties{
		Features:                      uint32(props.externalSemaphoreFeatures),
		ExportFromImportedHandleTypes: uint32(props.exportFromImportedHandleTypes),
		CompatibleHandleTypes:         uint32(props.compatibleHandleTypes),
	}, nil
}

// QueueCreateInfo asks for len(Priorities) queues of one family.
type QueueCreateInfo struct {
	Family     uint32
	Priorities []float32
}

// DeviceCreateInfo describes a device to create.
type DeviceCreateInfo struct {
	Queues     []QueueCreateInfo
	Extensions []string
	// Features to enable, through the structures FeatureQuery names.
	Features     Features
	FeatureQuery FeatureQuery
}

// deviceFuncs holds the device-level entry points. Their shims live in the
// file that calls them: vk.go, memory.go, sync.go, commands.go, pipeline.go.
type deviceFuncs struct {
	destroyDevice  C.PFN_vkDestroyDevice
	deviceWaitIdle C.PFN_vkDeviceWaitIdle
	getDeviceQueue C.PFN_vkGetDeviceQueue

	// memory.go
	createBuffer                 C.PFN_vkCreateBuffer
	destroyBuffer                C.PFN_vkDestroyBuffer
	getBufferMemoryRequirements  C.PFN_vkGetBufferMemoryRequirements
	getBufferMemoryRequirements2 C.PFN_vkGetBufferMemoryRequirements2
	createImage                  C.PFN_vkCreateImage
	destroyImage                 C.PFN_vkDestroyImage
	getImageMemoryRequirements   C.PFN_vkGetImageMemoryRequirements
	getImageMemoryRequirements2  C.PFN_vkGetImageMemoryRequirements2
	allocateMemory               C.PFN_vkAllocateMemory
	freeMemory                   C.PFN_vkFreeMemory
	bindBufferMemory             C.PFN_vkBindBufferMemory
	bindImageMemory              C.PFN_vkBindImageMemory
	mapMemory                    C.PFN_vkMapMemory
	unmapMemory                  C.PFN_vkUnmapMemory
	flushMappedMemoryRanges      C.PFN_vkFlushMappedMemoryRanges
	invalidateMappedMemoryRanges C.PFN_vkInvalidateMappedMemoryRanges
	getMemoryFdKHR               C.PFN_vkGetMemoryFdKHR
	getMemoryHostPointerProps    C.PFN_vkGetMemoryHostPointerPropertiesEXT
	createImageView              C.PFN_vkCreateImageView
	destroyImageView             C.PFN_vkDestroyImageView
	createSampler                C.PFN_vkCreateSampler
	destroySampler               C.PFN_vkDestroySampler

	// sync.go
	createSemaphore          C.PFN_vkCreateSemaphore
	destroySemaphore         C.PFN_vkDestroySemaphore
	getSemaphoreCounterValue C.PFN_vkGetSemaphoreCounterValue
	waitSemaphores           C.PFN_vkWaitSemaphores
	signalSemaphore          C.PFN_vkSignalSemaphore
	getSemaphoreFdKHR        C.PFN_vkGetSemaphoreFdKHR
	importSemaphoreFdKHR     C.PFN_vkImportSemaphoreFdKHR

	// commands.go
	createCommandPool      C.PFN_vkCreateCommandPool
	destroyCommandPool     C.PFN_vkDestroyCommandPool
	resetCommandPool       C.PFN_vkResetCommandPool
	allocateCommandBuffers C.PFN_vkAllocateCommandBuffers
	beginCommandBuffer     C.PFN_vkBeginCommandBuffer
	endCommandBuffer       C.PFN_vkEndCommandBuffer
	cmdCopyBuffer          C.PFN_vkCmdCopyBuffer
	cmdFillBuffer          C.PFN_vkCmdFillBuffer
	cmdCopyBufferToImage   C.PFN_vkCmdCopyBufferToImage
	cmdCopyImageToBuffer   C.PFN_vkCmdCopyImageToBuffer
	cmdPipelineBarrier     C.PFN_vkCmdPipelineBarrier
	cmdPipelineBarrier2    C.PFN_vkCmdPipelineBarrier2
	queueSubmit            C.PFN_vkQueueSubmit
	queueSubmit2           C.PFN_vkQueueSubmit2
	queueWaitIdle          C.PFN_vkQueueWaitIdle

	// pipeline.go
	createShaderModule         C.PFN_vkCreateShaderModule
	destroyShaderModule        C.PFN_vkDestroyShaderModule
	createDescriptorSetLayout  C.PFN_vkCreateDescriptorSetLayout
	destroyDescriptorSetLayout C.PFN_vkDestroyDescriptorSetLayout
	createPipelineLayout       C.PFN_vkCreatePipelineLayout
	destroyPipelineLayout      C.PFN_vkDestroyPipelineLayout
	createComputePipelines     C.PFN_vkCreateComputePipelines
	destroyPipeline            C.PFN_vkDestroyPipeline
	createDescriptorPool       C.PFN_vkCreateDescriptorPool
	destroyDescriptorPool      C.PFN_vkDestroyDescriptorPool
	resetDescriptorPool        C.PFN_vkResetDescriptorPool
	allocateDescriptorSets     C.PFN_vkAllocateDescriptorSets
	updateDescriptorSets       C.PFN_vkUpdateDescriptorSets
	createBufferView           C.PFN_vkCreateBufferView
	destroyBufferView          C.PFN_vkDestroyBufferView
	cmdBindPipeline            C.PFN_vkCmdBindPipeline
	cmdBindDescriptorSets      C.PFN_vkCmdBindDescriptorSets
	cmdPushConstants           C.PFN_vkCmdPushConstants
	cmdDispatch                C.PFN_vkCmdDispatch
	cmdDispatchIndirect        C.PFN_vkCmdDispatchIndirect
	cmdCopyImage               C.PFN_vkCmdCopyImage

	queueBindSparse                  C.PFN_vkQueueBindSparse
	getImageSparseMemoryRequirements C.PFN_vkGetImageSparseMemoryRequirements
}

func (f *deviceFuncs) procs() []proc {
	return []proc{
		req(fp(&f.destroyDevice), "vkDestroyDevice"),
		req(fp(&f.deviceWaitIdle), "vkDeviceWaitIdle"),
		req(fp(&f.getDeviceQueue), "vkGetDeviceQueue"),

		req(fp(&f.createBuffer), "vkCreateBuffer"),
		req(fp(&f.destroyBuffer), "vkDestroyBuffer"),
		req(fp(&f.getBufferMemoryRequirements), "vkGetBufferMemoryRequirements"),
		opt(fp(&f.getBufferMemoryRequirements2), "vkGetBufferMemoryRequirements2", "vkGetBufferMemoryRequirements2KHR"),
		req(fp(&f.createImage), "vkCreateImage"),
		req(fp(&f.destroyImage), "vkDestroyImage"),
		req(fp(&f.getImageMemoryRequirements), "vkGetImageMemoryRequirements"),
		opt(fp(&f.getImageMemoryRequirements2), "vkGetImageMemoryRequirements2", "vkGetImageMemoryRequirements2KHR"),
		req(fp(&f.allocateMemory), "vkAllocateMemory"),
		req(fp(&f.freeMemory), "vkFreeMemory"),
		req(fp(&f.bindBufferMemory), "vkBindBufferMemory"),
		req(fp(&f.bindImageMemory), "vkBindImageMemory"),
		req(fp(&f.mapMemory), "vkMapMemory"),
		req(fp(&f.unmapMemory), "vkUnmapMemory"),
		req(fp(&f.flushMappedMemoryRanges), "vkFlushMappedMemoryRanges"),
		req(fp(&f.invalidateMappedMemoryRanges), "vkInvalidateMappedMemoryRanges"),
		opt(fp(&f.getMemoryFdKHR), "vkGetMemoryFdKHR"),
		opt(fp(&f.getMemoryHostPointerProps), "vkGetMemoryHostPointerPropertiesEXT"),
		req(fp(&f.createImageView), "vkCreateImageView"),
		req(fp(&f.destroyImageView), "vkDestroyImageView"),
		req(fp(&f.createSampler), "vkCreateSampler"),
		req(fp(&f.destroySampler), "vkDestroySampler"),

		req(fp(&f.createSemaphore), "vkCreateSemaphore"),
		req(fp(&f.destroySemaphore), "vkDestroySemaphore"),
		opt(fp(&f.getSemaphoreCounterValue), "vkGetSemaphoreCounterValue", "vkGetSemaphoreCounterValueKHR"),
		opt(fp(&f.waitSemaphores), "vkWaitSemaphores", "vkWaitSemaphoresKHR"),
		opt(fp(&f.signalSemaphore), "vkSignalSemaphore", "vkSignalSemaphoreKHR"),
		opt(fp(&f.getSemaphoreFdKHR), "vkGetSemaphoreFdKHR"),
		opt(fp(&f.importSemaphoreFdKHR), "vkImportSemaphoreFdKHR"),

		req(fp(&f.createCommandPool), "vkCreateCommandPool"),
		req(fp(&f.destroyCommandPool), "vkDestroyCommandPool"),
		req(fp(&f.resetCommandPool), "vkResetCommandPool"),
		req(fp(&f.allocateCommandBuffers), "vkAllocateCommandBuffers"),
		req(fp(&f.beginCommandBuffer), "vkBeginCommandBuffer"),
		req(fp(&f.endCommandBuffer), "vkEndCommandBuffer"),
		req(fp(&f.cmdCopyBuffer), "vkCmdCopyBuffer"),
		req(fp(&f.cmdFillBuffer), "vkCmdFillBuffer"),
		req(fp(&f.cmdCopyBufferToImage), "vkCmdCopyBufferToImage"),
		req(fp(&f.cmdCopyImageToBuffer), "vkCmdCopyImageToBuffer"),
		req(fp(&f.cmdPipelineBarrier), "vkCmdPipelineBarrier"),
		opt(fp(&f.cmdPipelineBarrier2), "vkCmdPipelineBarrier2", "vkCmdPipelineBarrier2KHR"),
		req(fp(&f.queueSubmit), "vkQueueSubmit"),
		opt(fp(&f.queueSubmit2), "vkQueueSubmit2", "vkQueueSubmit2KHR"),
		req(fp(&f.queueWaitIdle), "vkQueueWaitIdle"),

		req(fp(&f.createShaderModule), "vkCreateShaderModule"),
		req(fp(&f.destroyShaderModule), "vkDestroyShaderModule"),
		req(fp(&f.createDescriptorSetLayout), "vkCreateDescriptorSetLayout"),
		req(fp(&f.destroyDescriptorSetLayout), "vkDestroyDescriptorSetLayout"),
		req(fp(&f.createPipelineLayout), "vkCreatePipelineLayout"),
		req(fp(&f.destroyPipelineLayout), "vkDestroyPipelineLayout"),
		req(fp(&f.createComputePipelines), "vkCreateComputePipelines"),
		req(fp(&f.destroyPipeline), "vkDestroyPipeline"),
		req(fp(&f.createDescriptorPool), "vkCreateDescriptorPool"),
		req(fp(&f.destroyDescriptorPool), "vkDestroyDescriptorPool"),
		req(fp(&f.resetDescriptorPool), "vkResetDescriptorPool"),
		req(fp(&f.allocateDescriptorSets), "vkAllocateDescriptorSets"),
		req(fp(&f.updateDescriptorSets), "vkUpdateDescriptorSets"),
		req(fp(&f.createBufferView), "vkCreateBufferView"),
		req(fp(&f.destroyBufferView), "vkDestroyBufferView"),
		req(fp(&f.cmdBindPipeline), "vkCmdBindPipeline"),
		req(fp(&f.cmdBindDescriptorSets), "vkCmdBindDescriptorSets"),
		req(fp(&f.cmdPushConstants), "vkCmdPushConstants"),
		req(fp(&f.cmdDispatch), "vkCmdDispatch"),
		req(fp(&f.cmdDispatchIndirect), "vkCmdDispatchIndirect"),
		req(fp(&f.cmdCopyImage), "vkCmdCopyImage"),
		req(fp(&f.queueBindSparse), "vkQueueBindSparse"),
		req(fp(&f.getImageSparseMemoryRequirements), "vkGetImageSparseMemoryRequirements"),
	}
}

// Device is a VkDevice with its function table. Its methods are not safe
// for concurrent use with Destroy.
type Device struct {
	h           C.VkDevice
	fn          deviceFuncs
	dispatchFns dispatchFns // RecordDispatch's table
}

// CreateDevice calls vkCreateDevice and loads the device's function table.
func (in *Instance) CreateDevice(pd PhysicalDevice, info DeviceCreateInfo) (*Device, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkDeviceCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
	if len(info.Queues) > 0 {
		qs := allocN[C.VkDeviceQueueCreateInfo](&a, len(info.Queues))
		for i, q := range info.Queues {
			qs[i].sType = C.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
			qs[i].queueFamilyIndex = C.uint32_t(q.Family)
			qs[i].queueCount = C.uint32_t(len(q.Priorities))
			if len(q.Priorities) > 0 {
				ps := allocN[C.float](&a, len(q.Priorities))
				for j, p := range q.Priorities {
					ps[j] = C.float(p)
				}
				qs[i].pQueuePriorities = &ps[0]
			}
		}
		ci.queueCreateInfoCount = C.uint32_t(len(info.Queues))
		ci.pQueueCreateInfos = &qs[0]
	}
	ci.enabledExtensionCount = C.uint32_t(len(info.Extensions))
	ci.ppEnabledExtensionNames = a.cstrs(info.Extensions)
	if info.Features != (Features{}) {
		if in.fn.getPhysicalDeviceFeatures2 == nil {
			return nil, fmt.Errorf("vkCreateDevice: features requested without vkGetPhysicalDeviceFeatures2: %w", ErrorFeatureNotPresent)
		}
		f2, _ := featureChain(&a, info.FeatureQuery, &info.Features)
		ci.pNext = unsafe.Pointer(f2)
	}
	d := &Device{}
	if r := Result(C.gfx_vkCreateDevice(in.fn.createDevice, pd, ci, &d.h)); r != Success {
		return nil, fmt.Errorf("vkCreateDevice: %w", r)
	}
	err := loadProcs(d.fn.procs(), func(name *C.char) unsafe.Pointer {
		return unsafe.Pointer(C.gfx_vkGetDeviceProcAddr(in.fn.getDeviceProcAddr, d.h, name))
	})
	if err != nil {
		if d.fn.destroyDevice != nil {
			C.gfx_vkDestroyDevice(d.fn.destroyDevice, d.h)
		}
		return nil, fmt.Errorf("vkCreateDevice: %w", err)
	}
	d.initDispatchFns()
	return d, nil
}

// Destroy destroys the device; it does nothing the second time.
func (d *Device) Destroy() {
	if d.h == nil {
		return
	}
	C.gfx_vkDestroyDevice(d.fn.destroyDevice, d.h)
	d.h = nil
}

// WaitIdle waits until all the device's queues are idle (vkDeviceWaitIdle).
func (d *Device) WaitIdle() error {
	if r := Result(C.gfx_vkDeviceWaitIdle(d.fn.deviceWaitIdle, d.h)); r != Success {
		return fmt.Errorf("vkDeviceWaitIdle: %w", r)
	}
	return nil
}

// Queue returns queue index of family (vkGetDeviceQueue). Both must have
// been requested at creation.
func (d *Device) Queue(family, index uint32) Queue {
	var q C.VkQueue
	C.gfx_vkGetDeviceQueue(d.fn.getDeviceQueue, d.h, C.uint32_t(family), C.uint32_t(index), &q)
	return q
}

// Handle returns the VkInstance, for callers that pass it to other Vulkan
// code; it stays owned by in.
func (in *Instance) Handle() uintptr { return uintptr(unsafe.Pointer(in.h)) }

// Handle returns the VkDevice; it stays owned by d.
func (d *Device) Handle() uintptr { return uintptr(unsafe.Pointer(d.h)) }

// HandleOf returns a dispatchable handle (VkPhysicalDevice, VkQueue) as an
// integer.
func HandleOf[T PhysicalDevice | Queue](h T) uintptr { return uintptr(unsafe.Pointer(h)) }
