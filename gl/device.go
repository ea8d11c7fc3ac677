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

// EGLDeviceIndex returns the index, among EGL's devices
// (eglQueryDevicesEXT's order: what MUJOCO_EGL_DEVICE_ID and PyOpenGL's
// device selection take), of CUDA device ordinal's GPU: matched by UUID
// (EGL_EXT_device_persistent_id), else by EGL_NV_device_cuda. An error
// names the EGL devices when none matches.
func EGLDeviceIndex(ordinal int) (int, error) {
	d, err := cuda.GetDevice(ordinal)
	if err != nil {
		return -1, err
	}
	u, err := d.UUID()
	if err != nil {
		return -1, err
	}
	devs, err := egl.Devices()
	if err != nil {
		return -1, fmt.Errorf("gl: %w", err)
	}
	for i, e := range devs {
		if e.UUID != nil && cuda.UUID(*e.UUID) == u {
			return i, nil
		}
	}
	for i, e := range devs {
		if e.UUID == nil && e.CUDADevice == ordinal {
			return i, nil
		}
	}
	var seen []string
	for i, e := range devs {
		seen = append(seen, fmt.Sprintf("%d: %s", i, e.Description))
	}
	name, _ := d.Name()
	return -1, fmt.Errorf("%w: no EGL device is CUDA device %d (%s, %s); EGL has %s", ErrOtherGPU, ordinal, name, u, orNone(seen))
}
