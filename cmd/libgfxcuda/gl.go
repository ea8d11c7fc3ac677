package main

// gl.go: the caller's own OpenGL renderer: its context adopted, its
// textures, renderbuffers and framebuffer attachments as sources whose
// frames reach compute shaders (a Vulkan texture) and CUDA tensors
// (package gl's Source and View; docs/opengl.md).

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// glContext is an adopted GL context (the caller's).
type glContext struct{ c *gl.Context }

func (g *glContext) close() error {
	err := g.c.Close()
	if errors.Is(err, gl.ErrWrongThread) {
		// Released on a thread where the context is not current (Python's
		// garbage collection): what gfxcuda made in it stays until the
		// renderer's context is destroyed.
		return nil
	}
	return err
}

// glSource is one object of the caller's context taken into the face (a
// gfxcuda.GraphicsSource over a gl.Source), which keeps its views and
// converters.
type glSource struct {
	ctx *glContext
	s   *gl.Source
	g   *gfxcuda.GraphicsSource
}

func (s *glSource) close() error {
	err := s.g.Close()
	if errors.Is(err, gl.ErrWrongThread) {
		return nil // as glContext.close
	}
	return err
}

// glStatus maps package gl's errors to statuses.
func glStatus(err error) error {
	var se *statusError
	switch {
	case err == nil, errors.As(err, &se):
		return err
	case errors.Is(err, gl.ErrWrongThread), errors.Is(err, gl.ErrNotObject), errors.Is(err, gl.ErrUnsupportedFormat), errors.Is(err, gl.ErrBadSource),
		errors.Is(err, gl.ErrClosed), errors.Is(err, gl.ErrOtherGPU), errors.Is(err, gl.ErrNoCurrent),
		errors.Is(err, gfxcuda.ErrGraphicsInput), errors.Is(err, gfxcuda.ErrSource), errors.Is(err, gfxcuda.ErrClosed):
		return &statusError{stInvalid, err}
	case errors.Is(err, gl.ErrNoEGL):
		return &statusError{stUnsupported, err}
	}
	return err
}

//export gfxcuda_gl_adopt
func gfxcuda_gl_adopt(out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_gl_adopt: null output")
		}
		c, err := gl.Adopt(nil)
		if errors.Is(err, gl.ErrNoCurrent) {
			err = fmt.Errorf("gfxcuda: no OpenGL context is current on this thread: "+
				"call from the thread that renders, after the renderer made its context current (%w)", err)
		}
		if err != nil {
			return glStatus(err)
		}
		g := &glContext{c: c}
		return store(out, g, g.close)
	})
}

// Source kinds of gfxcuda_gl_source.
const (
	glKindTexture      = 1
	glKindRenderbuffer = 2
	glKindFramebuffer  = 3
)

//export gfxcuda_gl_source
func gfxcuda_gl_source(ctx C.uint64_t, kind C.int, name C.int64_t, attachment C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		g, err := get[*glContext](uint64(ctx), "GL context")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_gl_source: null output")
		}
		var s *gl.Source
		switch kind {
		case glKindTexture, glKindRenderbuffer:
			if name <= 0 || name > 0xFFFFFFFF {
				return errorf(stInvalid, "gfxcuda: GL object name %d: names are 1 to 2**32 - 1", int64(name))
			}
			if kind == glKindTexture {
				s, err = g.c.TextureSource(uint32(name))
			} else {
				s, err = g.c.RenderbufferSource(uint32(name))
			}
		case glKindFramebuffer:
			if name > 0xFFFFFFFF {
				return errorf(stInvalid, "gfxcuda: framebuffer %d: names are 0 to 2**32 - 1 (-1: the one bound for reading)", int64(name))
			}
			s, err = g.c.FramebufferSource(int64(name), uint32(attachment))
		default:
			return errorf(stInvalid, "gfxcuda_gl_source: kind %d (1 texture, 2 renderbuffer, 3 framebuffer)", kind)
		}
		if err != nil {
			return glStatus(err)
		}
		gs, err := gfxcuda.NewGraphicsSource(s)
		if err != nil {
			return glStatus(err)
		}
		src := &glSource{ctx: g, s: s, g: gs}
		return store(out, src, src.close, uint64(ctx))
	})
}

//export gfxcuda_gl_source_info
func gfxcuda_gl_source_info(src C.uint64_t, info *C.gfxcuda_gl_source_info_t) C.int {
	return call(func() error {
		s, err := get[*glSource](uint64(src), "GL source")
		if err != nil {
			return err
		}
		if info == nil {
			return errorf(stInvalid, "gfxcuda_gl_source_info: null output")
		}
		d := s.s.Desc()
		*info = C.gfxcuda_gl_source_info_t{width: C.uint32_t(d.Width), height: C.uint32_t(d.Height),
			samples: C.uint32_t(d.Samples), internal_format: C.uint32_t(d.InternalFormat), format: C.uint32_t(s.s.Format()),
			name: C.uint32_t(d.Name), target: C.uint32_t(d.Target), renderbuffer: 0}
		if d.Kind == 0x8D41 { // GL_RENDERBUFFER
			info.renderbuffer = 1
		}
		return nil
	})
}

//export gfxcuda_gl_compute_view
func gfxcuda_gl_compute_view(src, dev C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		s, err := get[*glSource](uint64(src), "GL source")
		if err != nil {
			return err
		}
		cd, err := get[*compute.Device](uint64(dev), "device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_gl_compute_view: null output")
		}
		t, err := s.g.ComputeView(cd)
		if err != nil {
			return glStatus(err)
		}
		// The texture stays the source's: the handle holds a reference to
		// the source (and the device), nothing of its own to close.
		return store(out, &texture{Texture: t, slices: 1, dev: uint64(dev)}, nil, uint64(dev), uint64(src))
	})
}

//export gfxcuda_gl_to_tensor
func gfxcuda_gl_to_tensor(src, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t, dst, dstSize C.uint64_t, stream C.uint64_t) C.int {
	hs := [1]C.uint64_t{src}
	return gfxcuda_gl_to_tensors(&hs[0], 1, dev, layout, dst, dstSize, stream)
}

//export gfxcuda_gl_to_tensors
func gfxcuda_gl_to_tensors(srcs *C.uint64_t, n C.int, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t, dst, dstSize C.uint64_t, stream C.uint64_t) C.int {
	return call(func() error {
		sd, l, gs, err := glArgs("gfxcuda_gl_to_tensors", srcs, n, dev, layout)
		if err != nil {
			return err
		}
		st, done, err := sd.stream(uint64(stream))
		if err != nil {
			return err
		}
		defer done()
		return glStatus(gfxcuda.GraphicsToTensors(sd.d, st, cuda.DevicePtr(dst), uint64(dstSize), l, gs...))
	})
}

// glArgs decodes the GL calls' common arguments: n source handles at
// srcs (1 to 65536), a shared device's handle and a tensor layout.
func glArgs(what string, srcs *C.uint64_t, n C.int, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t) (*sharedDevice,
	tensor.Layout, []*gfxcuda.GraphicsSource, error) {
	if srcs == nil || n <= 0 || n > 1<<16 {
		return nil, tensor.Layout{}, nil, errorf(stInvalid, "%s: %d sources; pass an array of 1 to 65536", what, n)
	}
	sd, err := get[*sharedDevice](uint64(dev), "shared device")
	if err != nil {
		return nil, tensor.Layout{}, nil, err
	}
	l, err := tensorLayout(layout)
	if err != nil {
		return nil, tensor.Layout{}, nil, err
	}
	list := unsafe.Slice(srcs, int(n))
	gs := make([]*gfxcuda.GraphicsSource, len(list))
	for i, h := range list {
		s, err := get[*glSource](uint64(h), "GL source")
		if err != nil {
			return nil, tensor.Layout{}, nil, err
		}
		gs[i] = s.g
	}
	return sd, l, gs, nil
}

//export gfxcuda_gl_cuda_device
func gfxcuda_gl_cuda_device(ctx C.uint64_t, ordinal *C.int) C.int {
	return call(func() error {
		g, err := get[*glContext](uint64(ctx), "GL context")
		if err != nil {
			return err
		}
		if ordinal == nil {
			return errorf(stInvalid, "gfxcuda_gl_cuda_device: null output")
		}
		n, err := g.c.CUDADevice()
		if err != nil {
			return glStatus(err)
		}
		*ordinal = C.int(n)
		return nil
	})
}

//export gfxcuda_gl_egl_device_index
func gfxcuda_gl_egl_device_index(cudaOrdinal C.int, index *C.int) C.int {
	return call(func() error {
		if index == nil {
			return errorf(stInvalid, "gfxcuda_gl_egl_device_index: null output")
		}
		i, err := gl.EGLDeviceIndex(int(cudaOrdinal))
		if err != nil {
			return glStatus(err)
		}
		*index = C.int(i)
		return nil
	})
}
