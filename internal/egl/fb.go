package egl

/*
#include "fb.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// The renderer's own objects: what a texture, renderbuffer or framebuffer
// attachment of the context is (Describe*), and blits out of them into
// textures of our own (Blit). Direct state access only (GL 4.5 or
// ARB_direct_state_access): the caller's bindings are never changed.

// Object kinds (ObjectDesc.Kind).
const (
	KindTexture      = C.GL_TEXTURE
	KindRenderbuffer = C.GL_RENDERBUFFER
)

// GL enums callers of this file need.
const (
	ColorAttachment0 = C.GL_COLOR_ATTACHMENT0
	DepthAttachment  = C.GL_DEPTH_ATTACHMENT
	StencilAttach    = C.GL_STENCIL_ATTACHMENT
	DepthStencil     = C.GL_DEPTH_STENCIL_ATTACHMENT
	ReadFramebuffer  = C.GL_READ_FRAMEBUFFER_BINDING
	Texture2DTarget  = C.GL_TEXTURE_2D
	TextureRectangle = C.GL_TEXTURE_RECTANGLE
	Texture2DMS      = C.GL_TEXTURE_2D_MULTISAMPLE
	Texture2DArray   = C.GL_TEXTURE_2D_ARRAY
	ColorBufferBit   = C.GL_COLOR_BUFFER_BIT
	DepthBufferBit   = C.GL_DEPTH_BUFFER_BIT
)

// ErrNotObject is returned when a name is not an object of the asked kind
// in the current context.
var ErrNotObject = errors.New("egl: not an object of that kind in the current context")

// ErrNoDSA is returned by the methods of this file on a context without
// direct state access.
var ErrNoDSA = errors.New("egl: the context has no direct state access (GL 4.5 or ARB_direct_state_access): " +
	"create a GL 4.5 context (or one that has the extension)")

// ObjectDesc describes a texture or renderbuffer (level 0, or the level
// attached).
type ObjectDesc struct {
	Kind   uint32 // KindTexture or KindRenderbuffer
	Name   uint32
	Target uint32 // the texture target; GL_RENDERBUFFER for renderbuffers
	// Width, Height, Depth (layers of an array texture) and Samples (0:
	// not multisampled).
	Width, Height, Depth, Samples int
	InternalFormat                uint32
	Level, Layer                  int // the level and layer an attachment uses
}

func (d ObjectDesc) String() string {
	k := "texture"
	if d.Kind == KindRenderbuffer {
		k = "renderbuffer"
	}
	ms := ""
	if d.Samples > 0 {
		ms = fmt.Sprintf(", %d samples", d.Samples)
	}
	return fmt.Sprintf("%s %d (%dx%d, internal format %s%s)", k, d.Name, d.Width, d.Height, InternalFormatName(d.InternalFormat), ms)
}

func descOf(d C.gfx_fb_desc) ObjectDesc {
	return ObjectDesc{Kind: uint32(d._type), Name: uint32(d.name), Target: uint32(d.target), Width: int(d.width),
		Height: int(d.height), Depth: int(d.depth), Samples: int(d.samples), InternalFormat: uint32(d.internal_format),
		Level: int(d.level), Layer: int(d.layer)}
}

// fb returns the context's framebuffer entry points, loading them first.
func (c *Context) fb() (*C.gfx_gl_fb, error) {
	if err := c.gl(); err != nil {
		return nil, err
	}
	if c.c.dsa == 0 {
		return nil, ErrNoDSA
	}
	if c.fbt == nil {
		t := (*C.gfx_gl_fb)(C.calloc(1, C.sizeof_gfx_gl_fb))
		if C.gfx_fb_load(c.c, t) != 0 {
			C.free(unsafe.Pointer(t))
			return nil, fmt.Errorf("egl: the context lacks a framebuffer entry point of GL 4.5 (glBlitNamedFramebuffer, ...)")
		}
		c.fbt = t
	}
	return c.fbt, nil
}

func (c *Context) freeFB() {
	if c.fbt != nil {
		C.free(unsafe.Pointer(c.fbt))
		c.fbt = nil
	}
}

// Native is the context's driver handle (EGLContext or GLXContext): two
// Contexts adopted from the same current context have the same one.
func (c *Context) Native() uintptr {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.c == nil {
		return 0
	}
	return uintptr(c.c.ctx)
}

// GLDeviceUUIDs are the current context's GL device UUIDs
// (GL_EXT_memory_object's GL_DEVICE_UUID_EXT): the GPUs it runs on. Empty
// without the extension.
func (c *Context) GLDeviceUUIDs() ([][16]byte, error) {
	if err := c.gl(); err != nil {
		return nil, err
	}
	if !c.hasGLExt("GL_EXT_memory_object") {
		return nil, nil
	}
	var out [][16]byte
	n := int(C.gfx_gl_get_integer(c.c, C.GL_NUM_DEVICE_UUIDS_EXT))
	for i := 0; i < n; i++ {
		var u [16]byte
		if C.gfx_gl_device_uuid(c.c, C.GLuint(i), (*C.uchar)(unsafe.Pointer(&u[0]))) == 0 {
			out = append(out, u)
		}
	}
	C.gfx_gl_clear_errors(c.c)
	return out, nil
}

// DescribeTexture describes texture name of the current context (level 0).
func (c *Context) DescribeTexture(name uint32) (ObjectDesc, error) {
	t, err := c.fb()
	if err != nil {
		return ObjectDesc{}, err
	}
	var d C.gfx_fb_desc
	if e := C.gfx_fb_texture(t, c.c, C.GLuint(name), &d); e != 0 {
		if e == C.GL_INVALID_VALUE {
			return ObjectDesc{}, fmt.Errorf("texture %d: %w", name, ErrNotObject)
		}
		return ObjectDesc{}, glErr(fmt.Sprintf("describing texture %d", name), e)
	}
	return descOf(d), nil
}

// DescribeRenderbuffer describes renderbuffer name of the current context.
func (c *Context) DescribeRenderbuffer(name uint32) (ObjectDesc, error) {
	t, err := c.fb()
	if err != nil {
		return ObjectDesc{}, err
	}
	var d C.gfx_fb_desc
	if e := C.gfx_fb_renderbuffer(t, c.c, C.GLuint(name), &d); e != 0 {
		if e == C.GL_INVALID_VALUE {
			return ObjectDesc{}, fmt.Errorf("renderbuffer %d: %w", name, ErrNotObject)
		}
		return ObjectDesc{}, glErr(fmt.Sprintf("describing renderbuffer %d", name), e)
	}
	return descOf(d), nil
}

// ReadFramebufferBinding is the framebuffer bound for reading
// (GL_READ_FRAMEBUFFER_BINDING; 0: the default one).
func (c *Context) ReadFramebufferBinding() (uint32, error) {
	if err := c.gl(); err != nil {
		return 0, err
	}
	return uint32(C.gfx_gl_get_integer(c.c, C.GL_READ_FRAMEBUFFER_BINDING)), nil
}

// DescribeAttachment describes what is attached to attachment
// (ColorAttachment0+i, DepthAttachment) of framebuffer fb (> 0; the
// default framebuffer has no objects). ok is false when nothing is.
func (c *Context) DescribeAttachment(fb, attachment uint32) (d ObjectDesc, ok bool, err error) {
	t, err := c.fb()
	if err != nil {
		return ObjectDesc{}, false, err
	}
	var cd C.gfx_fb_desc
	if e := C.gfx_fb_attachment(t, c.c, C.GLuint(fb), C.GLenum(attachment), &cd); e != 0 {
		if e == C.GL_INVALID_VALUE {
			return ObjectDesc{}, false, fmt.Errorf("framebuffer %d: %w", fb, ErrNotObject)
		}
		return ObjectDesc{}, false, glErr(fmt.Sprintf("framebuffer %d, attachment %s", fb, AttachmentName(attachment)), e)
	}
	if cd._type == C.GL_NONE {
		return ObjectDesc{}, false, nil
	}
	if cd._type != C.GL_TEXTURE && cd._type != C.GL_RENDERBUFFER {
		return ObjectDesc{}, false, fmt.Errorf("egl: framebuffer %d, attachment %s: an object of type 0x%x", fb, AttachmentName(attachment), int(cd._type))
	}
	return descOf(cd), true, nil
}

// Framebuffer is a framebuffer object of our own (for Blit).
type Framebuffer uint32

// CreateFramebuffer makes a framebuffer object (glCreateFramebuffers).
func (c *Context) CreateFramebuffer() (Framebuffer, error) {
	t, err := c.fb()
	if err != nil {
		return 0, err
	}
	var fb C.GLuint
	if e := C.gfx_fb_create(t, c.c, &fb); e != 0 {
		return 0, glErr("glCreateFramebuffers", e)
	}
	return Framebuffer(fb), nil
}

// DeleteFramebuffer deletes a framebuffer made by CreateFramebuffer.
func (c *Context) DeleteFramebuffer(fb Framebuffer) error {
	t, err := c.fb()
	if err != nil {
		return err
	}
	return glErr("glDeleteFramebuffers", C.gfx_fb_delete(t, c.c, C.GLuint(fb)))
}

// Blit copies the whole of src (its level and layer) into dst, a 2D
// texture of the same size, through framebuffers read and draw of our own
// (attached for the blit and detached after), resolving a multisampled
// src. mask is ColorBufferBit or DepthBufferBit. The scissor test,
// framebuffer sRGB and rasterizer discard are off for the blit and put
// back; no binding changes.
func (c *Context) Blit(read, draw Framebuffer, src ObjectDesc, dst Texture, mask uint32) error {
	t, err := c.fb()
	if err != nil {
		return err
	}
	var status C.GLenum
	e := C.gfx_fb_blit(t, c.c, C.GLuint(read), C.GLuint(draw), C.GLenum(src.Kind), C.GLuint(src.Name), C.GLint(src.Level),
		C.GLint(src.Layer), C.GLuint(dst), C.GLint(src.Width), C.GLint(src.Height), C.GLbitfield(mask), &status)
	if e == C.GL_INVALID_FRAMEBUFFER_OPERATION && status != C.GL_FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("egl: blitting %v: a framebuffer is incomplete (status 0x%x: %s)", src, int(status), fbStatusName(uint32(status)))
	}
	return glErr(fmt.Sprintf("glBlitNamedFramebuffer of %v", src), e)
}

// Attach attaches src (its level and layer) to fb as the read (read) or
// draw attachment for mask (ColorBufferBit or DepthBufferBit), and checks
// that fb is complete: for BlitAttached, frame after frame, without
// attaching again.
func (c *Context) Attach(fb Framebuffer, read bool, src ObjectDesc, mask uint32) error {
	t, err := c.fb()
	if err != nil {
		return err
	}
	var status C.GLenum
	r := C.int(0)
	if read {
		r = 1
	}
	e := C.gfx_fb_attach(t, c.c, C.GLuint(fb), r, C.GLenum(src.Kind), C.GLuint(src.Name), C.GLint(src.Level),
		C.GLint(src.Layer), C.GLbitfield(mask), &status)
	if e == C.GL_INVALID_FRAMEBUFFER_OPERATION && status != C.GL_FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("egl: attaching %v: the framebuffer is incomplete (status 0x%x: %s)", src, int(status), fbStatusName(uint32(status)))
	}
	return glErr(fmt.Sprintf("attaching %v", src), e)
}

// BlitAttached blits w x h pixels between framebuffers attached with
// Attach (the scissor test, framebuffer sRGB and rasterizer discard off
// for the blit and put back); flip writes the rows upside down (read must
// not be multisampled: GL refuses to flip a resolve).
func (c *Context) BlitAttached(read, draw Framebuffer, w, h int, mask uint32, flip bool) error {
	t, err := c.fb()
	if err != nil {
		return err
	}
	f := C.int(0)
	if flip {
		f = 1
	}
	return glErr("glBlitNamedFramebuffer", C.gfx_fb_blit_attached(t, c.c, C.GLuint(read), C.GLuint(draw), C.GLint(w), C.GLint(h), C.GLbitfield(mask), f))
}

// Alive reports whether the object d describes is still a texture (or
// renderbuffer) of the context: false once its owner deleted it.
func (c *Context) Alive(d ObjectDesc) (bool, error) {
	t, err := c.fb()
	if err != nil {
		return false, err
	}
	return C.gfx_fb_alive(t, C.GLenum(d.Kind), C.GLuint(d.Name)) != 0, nil
}

// BufferToTexture unpacks w x h texels of format/typ from buffer b at off
// into level 0 of t, on the GPU (GL 4.5 direct state access; bindings and
// pixel store put back).
func (c *Context) BufferToTexture(t Texture, w, h int, format, typ uint32, b Buffer, off int) error {
	if err := c.gl(); err != nil {
		return err
	}
	return glErr("glTextureSubImage2D from a buffer", C.gfx_gl_buffer_to_texture(c.c, C.GLuint(t), C.GLsizei(w), C.GLsizei(h),
		C.GLenum(format), C.GLenum(typ), C.GLuint(b), C.GLintptr(off)))
}

// GL enums of depth copies.
const (
	DepthComponent = C.GL_DEPTH_COMPONENT
	Red            = C.GL_RED
	Float          = C.GL_FLOAT
)

func fbStatusName(s uint32) string {
	switch s {
	case C.GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT:
		return "an attachment cannot be rendered to (its format is not color-renderable?)"
	case C.GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT:
		return "nothing attached"
	case C.GL_FRAMEBUFFER_UNSUPPORTED:
		return "the driver does not support this combination of formats"
	case C.GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE:
		return "attachments of different sample counts"
	}
	return "incomplete"
}

// AttachmentName names a framebuffer attachment enum.
func AttachmentName(a uint32) string {
	switch {
	case a >= C.GL_COLOR_ATTACHMENT0 && a < C.GL_COLOR_ATTACHMENT0+32:
		return fmt.Sprintf("GL_COLOR_ATTACHMENT%d", a-C.GL_COLOR_ATTACHMENT0)
	case a == C.GL_DEPTH_ATTACHMENT:
		return "GL_DEPTH_ATTACHMENT"
	case a == C.GL_STENCIL_ATTACHMENT:
		return "GL_STENCIL_ATTACHMENT"
	case a == C.GL_DEPTH_STENCIL_ATTACHMENT:
		return "GL_DEPTH_STENCIL_ATTACHMENT"
	}
	return fmt.Sprintf("attachment 0x%x", a)
}

// InternalFormatName names the sized internal formats renderers use.
func InternalFormatName(f uint32) string {
	if n, ok := internalFormatNames[f]; ok {
		return n
	}
	return fmt.Sprintf("0x%x", f)
}

var internalFormatNames = map[uint32]string{
	C.GL_RGBA8: "GL_RGBA8", C.GL_RGB8: "GL_RGB8", C.GL_RG8: "GL_RG8", C.GL_R8: "GL_R8",
	C.GL_SRGB8_ALPHA8: "GL_SRGB8_ALPHA8", C.GL_SRGB8: "GL_SRGB8", C.GL_RGBA: "GL_RGBA", C.GL_RGB: "GL_RGB",
	C.GL_RGBA16F: "GL_RGBA16F", C.GL_RGB16F: "GL_RGB16F", C.GL_RGBA32F: "GL_RGBA32F", C.GL_RGB32F: "GL_RGB32F",
	C.GL_R16F: "GL_R16F", C.GL_R32F: "GL_R32F", C.GL_RG16F: "GL_RG16F", C.GL_RG32F: "GL_RG32F",
	C.GL_RGB10_A2: "GL_RGB10_A2", C.GL_R11F_G11F_B10F: "GL_R11F_G11F_B10F", C.GL_RGBA16: "GL_RGBA16",
	C.GL_RGBA8UI: "GL_RGBA8UI", C.GL_RGBA32UI: "GL_RGBA32UI", C.GL_R32UI: "GL_R32UI", C.GL_R32I: "GL_R32I",
	C.GL_DEPTH_COMPONENT16: "GL_DEPTH_COMPONENT16", C.GL_DEPTH_COMPONENT24: "GL_DEPTH_COMPONENT24",
	C.GL_DEPTH_COMPONENT32: "GL_DEPTH_COMPONENT32", C.GL_DEPTH_COMPONENT32F: "GL_DEPTH_COMPONENT32F",
	C.GL_DEPTH24_STENCIL8: "GL_DEPTH24_STENCIL8", C.GL_DEPTH32F_STENCIL8: "GL_DEPTH32F_STENCIL8",
	C.GL_DEPTH_COMPONENT: "GL_DEPTH_COMPONENT", C.GL_STENCIL_INDEX8: "GL_STENCIL_INDEX8",
}
