package egl

/*
#include "egl.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// MemoryObject, Semaphore and Sync are GL_EXT_memory_object,
// GL_EXT_semaphore and fence sync objects.
type (
	MemoryObject uint32
	Semaphore    uint32
	Sync         uintptr
)

// GL_EXT_semaphore image layouts (for SignalSemaphore and WaitSemaphore).
const (
	LayoutGeneral         = 0x958D
	LayoutColorAttachment = 0x958E
	LayoutShaderReadOnly  = 0x9591
	LayoutTransferSrc     = 0x9592
	LayoutTransferDst     = 0x9593
)

// ErrTimeout is returned by WaitSync when the fence did not signal in time.
var ErrTimeout = errors.New("egl: timed out waiting for a GL fence")

// Flush is glFlush.
func (c *Context) Flush() error {
	if err := c.gl(); err != nil {
		return err
	}
	C.gfx_gl_flush(c.c)
	return nil
}

// CopyBuffer copies n bytes between buffers (glCopyNamedBufferSubData or
// glCopyBufferSubData).
func (c *Context) CopyBuffer(dst, src Buffer, dstOff, srcOff, n int) error {
	if err := c.gl(); err != nil {
		return err
	}
	return glErr("glCopyBufferSubData", C.gfx_gl_copy_buffer(c.c, C.GLuint(dst), C.GLuint(src), C.GLintptr(dstOff), C.GLintptr(srcOff), C.GLsizeiptr(n)))
}

// Fence inserts a fence after the commands issued so far and flushes.
func (c *Context) Fence() (Sync, error) {
	if err := c.gl(); err != nil {
		return 0, err
	}
	s := C.gfx_gl_fence(c.c)
	if s == 0 {
		return 0, glErr("glFenceSync", C.gfx_gl_clear_errors(c.c))
	}
	return Sync(s), nil
}

// WaitSync waits on the host until s signals or timeout passes
// (ErrTimeout). It does not delete s.
func (c *Context) WaitSync(s Sync, timeout time.Duration) error {
	if err := c.gl(); err != nil {
		return err
	}
	switch C.gfx_gl_wait(c.c, C.uintptr_t(s), C.GLuint64(timeout.Nanoseconds())) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%w (%v)", ErrTimeout, timeout)
	}
	return glErr("glClientWaitSync", C.gfx_gl_clear_errors(c.c))
}

// DeleteSync is glDeleteSync.
func (c *Context) DeleteSync(s Sync) error {
	if err := c.gl(); err != nil {
		return err
	}
	C.gfx_gl_delete_sync(c.c, C.uintptr_t(s))
	return glErr("glDeleteSync", C.gfx_gl_clear_errors(c.c))
}

func (c *Context) needExt(ok bool, name string) error {
	if err := c.gl(); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("egl: the GL context (%s) lacks %s", c.info.Renderer, name)
	}
	return nil
}

// ImportMemoryFD imports OPAQUE_FD memory of size bytes
// (glImportMemoryFdEXT). On success GL owns fd; on failure fd is closed,
// so the caller never closes it.
func (c *Context) ImportMemoryFD(fd int, size uint64, dedicated bool) (MemoryObject, error) {
	if err := c.needExt(c.info.MemoryObject, "GL_EXT_memory_object_fd"); err != nil {
		closeFD(fd)
		return 0, err
	}
	var m C.GLuint
	ded := C.int(0)
	if dedicated {
		ded = 1
	}
	if err := glErr("glImportMemoryFdEXT", C.gfx_gl_import_memory(c.c, C.GLuint64(size), C.int(fd), ded, &m)); err != nil {
		closeFD(fd)
		return 0, err
	}
	return MemoryObject(m), nil
}

// DeleteMemoryObject is glDeleteMemoryObjectsEXT.
func (c *Context) DeleteMemoryObject(m MemoryObject) error {
	if err := c.gl(); err != nil {
		return err
	}
	return glErr("glDeleteMemoryObjectsEXT", C.gfx_gl_delete_memory(c.c, C.GLuint(m)))
}

// BufferFromMemory makes a buffer of size bytes over memory object m at
// offset 0 (glNamedBufferStorageMemEXT).
func (c *Context) BufferFromMemory(m MemoryObject, size int) (Buffer, error) {
	if err := c.gl(); err != nil {
		return 0, err
	}
	var id C.GLuint
	if err := glErr(fmt.Sprintf("glBufferStorageMemEXT(%d bytes)", size), C.gfx_gl_buffer_from_memory(c.c, C.GLuint(m), C.GLsizeiptr(size), &id)); err != nil {
		return 0, err
	}
	return Buffer(id), nil
}

// TextureFromMemory makes a one-level 2D texture over memory object m at
// offset 0 (glTextureStorageMem2DEXT, optimal tiling).
func (c *Context) TextureFromMemory(m MemoryObject, internalFormat uint32, width, height int) (Texture, error) {
	if err := c.gl(); err != nil {
		return 0, err
	}
	var id C.GLuint
	e := C.gfx_gl_texture_from_memory(c.c, C.GLuint(m), C.GLenum(internalFormat), C.GLsizei(width), C.GLsizei(height), &id)
	if err := glErr(fmt.Sprintf("glTextureStorageMem2DEXT(0x%x, %dx%d)", internalFormat, width, height), e); err != nil {
		return 0, err
	}
	return Texture(id), nil
}

// ImportSemaphoreFD imports an OPAQUE_FD binary semaphore
// (glImportSemaphoreFdEXT). On success GL owns fd; on failure it is closed.
func (c *Context) ImportSemaphoreFD(fd int) (Semaphore, error) {
	if err := c.needExt(c.info.SemaphoreFD, "GL_EXT_semaphore_fd"); err != nil {
		closeFD(fd)
		return 0, err
	}
	var s C.GLuint
	if err := glErr("glImportSemaphoreFdEXT", C.gfx_gl_import_semaphore(c.c, C.int(fd), &s)); err != nil {
		closeFD(fd)
		return 0, err
	}
	return Semaphore(s), nil
}

// DeleteSemaphore is glDeleteSemaphoresEXT.
func (c *Context) DeleteSemaphore(s Semaphore) error {
	if err := c.gl(); err != nil {
		return err
	}
	return glErr("glDeleteSemaphoresEXT", C.gfx_gl_delete_semaphore(c.c, C.GLuint(s)))
}

func semArgs(bufs []Buffer, texs []Texture, layouts []uint32) (*C.GLuint, *C.GLuint, *C.GLenum, unsafe.Pointer) {
	n := len(bufs) + 2*len(texs) + 1
	mem := (*[1 << 20]C.GLuint)(C.calloc(C.size_t(n), 4))[:n:n]
	for i, b := range bufs {
		mem[i] = C.GLuint(b)
	}
	t := mem[len(bufs):]
	for i, x := range texs {
		t[i] = C.GLuint(x)
		t[len(texs)+i] = C.GLuint(layouts[i])
	}
	return &mem[0], &t[0], (*C.GLenum)(unsafe.Pointer(&t[len(texs)])), unsafe.Pointer(&mem[0])
}

// SignalSemaphore queues a signal of s after the commands so far, making
// bufs and texs (in the given layouts) available to the waiter, and
// flushes (glSignalSemaphoreEXT).
func (c *Context) SignalSemaphore(s Semaphore, bufs []Buffer, texs []Texture, layouts []uint32) error {
	if err := c.gl(); err != nil {
		return err
	}
	if len(layouts) != len(texs) {
		return fmt.Errorf("egl: SignalSemaphore: %d layouts for %d textures", len(layouts), len(texs))
	}
	b, t, l, mem := semArgs(bufs, texs, layouts)
	defer C.free(mem)
	return glErr("glSignalSemaphoreEXT", C.gfx_gl_signal_semaphore(c.c, C.GLuint(s), C.GLuint(len(bufs)), b, C.GLuint(len(texs)), t, l))
}

// WaitSemaphore makes later GL commands wait on the GPU for s
// (glWaitSemaphoreEXT); texs are in the given layouts.
func (c *Context) WaitSemaphore(s Semaphore, bufs []Buffer, texs []Texture, layouts []uint32) error {
	if err := c.gl(); err != nil {
		return err
	}
	if len(layouts) != len(texs) {
		return fmt.Errorf("egl: WaitSemaphore: %d layouts for %d textures", len(layouts), len(texs))
	}
	b, t, l, mem := semArgs(bufs, texs, layouts)
	defer C.free(mem)
	return glErr("glWaitSemaphoreEXT", C.gfx_gl_wait_semaphore(c.c, C.GLuint(s), C.GLuint(len(bufs)), b, C.GLuint(len(texs)), t, l))
}

// TextureToBuffer packs level 0 of the w×h texture t into buffer b at
// offset off, on the GPU (a pixel pack buffer read: glGetTextureImage, or
// glReadPixels on OpenGL ES); n is the bytes available in b from off.
func (c *Context) TextureToBuffer(t Texture, w, h int, format, typ uint32, b Buffer, off, n int) error {
	if err := c.gl(); err != nil {
		return err
	}
	e := C.gfx_gl_texture_to_buffer(c.c, C.GLuint(t), C.GLsizei(w), C.GLsizei(h), C.GLenum(format), C.GLenum(typ), C.GLuint(b), C.GLintptr(off), C.GLsizei(n))
	return glErr("pixel pack of a texture into a buffer", e)
}

// FramebufferToBuffer reads w×h pixels of framebuffer fb into buffer b at
// offset off, on the GPU: glReadPixels into a pixel pack buffer, the same
// conversion a renderer's own glReadPixels makes (for depth, the driver's
// depth-to-float path, which can differ in the last bit from a texture
// read's). Bindings and pack state are put back.
func (c *Context) FramebufferToBuffer(fb Framebuffer, w, h int, format, typ uint32, b Buffer, off int) error {
	if err := c.gl(); err != nil {
		return err
	}
	e := C.gfx_gl_framebuffer_to_buffer(c.c, C.GLuint(fb), C.GLsizei(w), C.GLsizei(h), C.GLenum(format), C.GLenum(typ), C.GLuint(b), C.GLintptr(off))
	return glErr("glReadPixels of a framebuffer into a buffer", e)
}

// ImportTimelineSemaphoreFD imports an OPAQUE_FD timeline semaphore (a
// Vulkan one; GL_NV_timeline_semaphore). On success GL owns fd; on failure
// it is closed.
func (c *Context) ImportTimelineSemaphoreFD(fd int) (Semaphore, error) {
	if err := c.needExt(c.info.TimelineSemaphore, "GL_NV_timeline_semaphore"); err != nil {
		closeFD(fd)
		return 0, err
	}
	var s C.GLuint
	if err := glErr("glImportSemaphoreFdEXT (timeline)", C.gfx_gl_import_timeline(c.c, C.int(fd), &s)); err != nil {
		closeFD(fd)
		return 0, err
	}
	return Semaphore(s), nil
}

// SemaphoreInfo reports what GL says of s: its GL_SEMAPHORE_TYPE_NV
// (SemaphoreTypeTimeline for a timeline semaphore) and its
// GL_TIMELINE_SEMAPHORE_VALUE_NV, for diagnostics. Zero where the driver
// lacks the query.
func (c *Context) SemaphoreInfo(s Semaphore) (typ uint32, value uint64, err error) {
	if err := c.gl(); err != nil {
		return 0, 0, err
	}
	var t C.GLint
	var v C.GLuint64
	err = glErr("glGetSemaphoreParameter", C.gfx_gl_semaphore_info(c.c, C.GLuint(s), &t, &v))
	return uint32(t), uint64(v), err
}

// SemaphoreTypeTimeline is GL_SEMAPHORE_TYPE_TIMELINE_NV, as SemaphoreInfo
// reports it.
const SemaphoreTypeTimeline = C.GL_SEMAPHORE_TYPE_TIMELINE_NV

// SetTimelineValue sets the value the next SignalSemaphore or
// WaitSemaphore on the timeline semaphore s signals or waits for.
func (c *Context) SetTimelineValue(s Semaphore, v uint64) error {
	if err := c.gl(); err != nil {
		return err
	}
	C.gfx_gl_set_timeline_value(c.c, C.GLuint(s), C.GLuint64(v))
	return glErr("glSemaphoreParameterui64vEXT", C.gfx_gl_clear_errors(c.c))
}
