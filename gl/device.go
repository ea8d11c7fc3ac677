package gl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// ErrOtherGPU is returned when the GL context runs on a GPU that CUDA does
// not see (another GPU than CUDA's, or one CUDA_VISIBLE_DEVICES hides).
var ErrOtherGPU = errors.New("gl: the GL context's GPU is not one CUDA sees")

// CUDADevice returns the CUDA ordinal of the GPU the context runs on,
// matched by the GL device UUID (GL_EXT_memory_object) against CUDA's
// devices: the device to give CUDA work on the context's frames. Call it
// where the context is current. Errors wrap ErrOtherGPU (naming the GL
// renderer and CUDA's devices) or say that GL has no device UUID.
func (c *Context) CUDADevice() (int, error) {
	var uuids [][16]byte
	if err := c.do(func(e *egl.Context) error {
		var err error
		uuids, err = e.GLDeviceUUIDs()
		return err
	}); err != nil {
		return -1, err
	}
	if len(uuids) == 0 {
		return -1, fmt.Errorf("gl: %s reports no device UUID (GL_EXT_memory_object): cannot tell its GPU", c.Info().Renderer)
	}
	devs, err := cuda.Devices()
	if err != nil {
		return -1, err
	}
	var seen []string
	for _, d := range devs {
		u, err := d.UUID()
		if err != nil {
			continue
		}
		for _, g := range uuids {
			if cuda.UUID(g) == u {
				return d.Ordinal(), nil
			}
		}
		name, _ := d.Name()
		seen = append(seen, fmt.Sprintf("%d: %s (%s)", d.Ordinal(), name, u))
	}
	gl := make([]string, len(uuids))
	for i, g := range uuids {
		gl[i] = cuda.UUID(g).String()
	}
	return -1, fmt.Errorf("%w: GL renders on %s (UUID %s), CUDA sees %s; make the renderer use a GPU CUDA sees "+
		"(its EGL device: gfxcuda.gl.egl_device_index / EGLDeviceIndex) or let CUDA see that GPU (CUDA_VISIBLE_DEVICES)",
		ErrOtherGPU, c.Info().Renderer, strings.Join(gl, ", "), orNone(seen))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no device"
	}
	return strings.Join(s, ", ")
}

// EGLDevice is one of EGL's devices (EGL_EXT_device_enumeration), as
// EGLDevices lists them.
type EGLDevice struct {
	// Index is the device's index in eglQueryDevicesEXT's order: what
	// MUJOCO_EGL_DEVICE_ID, pyrender's EGL_DEVICE_ID and PyOpenGL's device
	// selection take.
	Index       int
	Description string    // its DRM device file, "software", or its extensions
	UUID        *[16]byte // its device UUID (EGL_EXT_device_persistent_id), or nil
	CUDADevice  int       // the CUDA ordinal EGL_NV_device_cuda reports, or -1
}

// EGLDevices lists EGL's devices, loading libEGL on first use: none
// where EGL lacks EGL_EXT_device_enumeration. An error says why libEGL
// could not be loaded.
func EGLDevices() ([]EGLDevice, error) {
	devs, err := egl.Devices()
	if err != nil {
		return nil, fmt.Errorf("gl: %w", err)
	}
	out := make([]EGLDevice, len(devs))
	for i, d := range devs {
		out[i] = EGLDevice{Index: i, Description: d.Description, UUID: d.UUID, CUDADevice: d.CUDADevice}
	}
	return out, nil
}

// MatchEGLDevice returns the Index of the device in devs that is the GPU
// with this UUID (a CUDA or Vulkan device UUID, matched against
// EGL_EXT_device_persistent_id), else of the device without a UUID that
// EGL_NV_device_cuda reports as CUDA ordinal cudaOrdinal (pass -1 for a GPU
// CUDA does not see), else -1.
func MatchEGLDevice(devs []EGLDevice, uuid [16]byte, cudaOrdinal int) int {
	for _, e := range devs {
		if e.UUID != nil && *e.UUID == uuid {
			return e.Index
		}
	}
	if cudaOrdinal < 0 {
		return -1
	}
	for _, e := range devs {
		if e.UUID == nil && e.CUDADevice == cudaOrdinal {
			return e.Index
		}
	}
	return -1
}

// EGLDeviceIndex returns the index, among EGL's devices
// (eglQueryDevicesEXT's order: what MUJOCO_EGL_DEVICE_ID and PyOpenGL's
// device selection take), of CUDA device ordinal's GPU: matched by UUID
// (EGL_EXT_device_persistent_id), else by EGL_NV_device_cuda
// (MatchEGLDevice). An error names the EGL devices when none matches.
func EGLDeviceIndex(ordinal int) (int, error) {
	d, err := cuda.GetDevice(ordinal)
	if err != nil {
		return -1, err
	}
	u, err := d.UUID()
	if err != nil {
		return -1, err
	}
	devs, err := EGLDevices()
	if err != nil {
		return -1, err
	}
	if i := MatchEGLDevice(devs, u, ordinal); i >= 0 {
		return i, nil
	}
	var seen []string
	for _, e := range devs {
		seen = append(seen, fmt.Sprintf("%d: %s", e.Index, e.Description))
	}
	name, _ := d.Name()
	return -1, fmt.Errorf("%w: no EGL device is CUDA device %d (%s, %s); EGL has %s", ErrOtherGPU, ordinal, name, u, orNone(seen))
}
