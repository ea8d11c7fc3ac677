// C side of package egl: function tables filled at run time and thin
// shims that call through them. Nothing here links against libEGL or libGL.
#ifndef GFX_EGL_H
#define GFX_EGL_H

#define EGL_EGL_PROTOTYPES 0
#include <stdint.h>
#include <stdlib.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>

// GL_EXT_memory_object (not part of glcorearb.h).
#ifndef GL_NUM_DEVICE_UUIDS_EXT
#define GL_NUM_DEVICE_UUIDS_EXT 0x9596
#endif
#ifndef GL_DEVICE_UUID_EXT
#define GL_DEVICE_UUID_EXT 0x9597
#endif
typedef void (APIENTRYP gfx_PFNGLGETUNSIGNEDBYTEI_VEXTPROC)(GLenum target, GLuint index, GLubyte *data);

// Core EGL entry points, looked up with dlsym in this order (GFX_EGL_CORE
// in egl.go lists the names).
#define GFX_EGL_NCORE 12

// gfx_egl_load fills the process-wide EGL table from core (dlsym results)
// and eglGetProcAddress. It returns 0, or 1 when an essential entry point is
// missing.
int gfx_egl_load(void **core);
// Availability of optional entry points.
int gfx_egl_has_platform_display(void);
int gfx_egl_has_devices(void);
int gfx_egl_has_device_binary(void);

EGLint gfx_egl_get_error(void);
const char *gfx_egl_query_string(uintptr_t dpy, EGLint name);
// gfx_egl_devices writes up to max device handles; returns the count or -1.
int gfx_egl_devices(uintptr_t *devs, int max);
const char *gfx_egl_device_string(uintptr_t dev, EGLint name);
// gfx_egl_device_uuid writes the device's EGL_DEVICE_UUID_EXT; 0 on success.
int gfx_egl_device_uuid(uintptr_t dev, unsigned char *out);

// Stages gfx_egl_open can fail at.
enum {
	GFX_EGL_STAGE_DISPLAY = 1,
	GFX_EGL_STAGE_INITIALIZE,
	GFX_EGL_STAGE_NO_SURFACELESS,
	GFX_EGL_STAGE_BIND_API,
	GFX_EGL_STAGE_CONFIG,
	GFX_EGL_STAGE_CONTEXT,
	GFX_EGL_STAGE_MAKE_CURRENT,
	GFX_EGL_STAGE_GL_ENTRY
};

// GL entry points of one context.
typedef struct {
	PFNGLGETSTRINGPROC GetString;
	PFNGLGETSTRINGIPROC GetStringi;
	PFNGLGETERRORPROC GetError;
	PFNGLGETINTEGERVPROC GetIntegerv;
	PFNGLFINISHPROC Finish;
	PFNGLCREATEBUFFERSPROC CreateBuffers;
	PFNGLNAMEDBUFFERDATAPROC NamedBufferData;
	PFNGLNAMEDBUFFERSUBDATAPROC NamedBufferSubData;
	PFNGLGETNAMEDBUFFERSUBDATAPROC GetNamedBufferSubData;
	PFNGLDELETEBUFFERSPROC DeleteBuffers;
	PFNGLCREATETEXTURESPROC CreateTextures;
	PFNGLTEXTURESTORAGE2DPROC TextureStorage2D;
	PFNGLTEXTURESUBIMAGE2DPROC TextureSubImage2D;
	PFNGLGETTEXTUREIMAGEPROC GetTextureImage;
	PFNGLDELETETEXTURESPROC DeleteTextures;
	gfx_PFNGLGETUNSIGNEDBYTEI_VEXTPROC GetUnsignedBytei_vEXT; // may be NULL
} gfx_gl;

// One display + context. Allocated in C memory: no driver handle is ever
// held in Go memory.
typedef struct {
	EGLDisplay dpy;
	EGLContext ctx;
	EGLint major, minor; // EGL version
	gfx_gl gl;
} gfx_egl_ctx;

// gfx_egl_display gets the platform display (0 on failure).
uintptr_t gfx_egl_display(EGLenum platform, uintptr_t native);
// gfx_egl_initialize initializes dpy; EGL_TRUE on success.
EGLBoolean gfx_egl_initialize(uintptr_t dpy, EGLint *major, EGLint *minor);
EGLBoolean gfx_egl_terminate(uintptr_t dpy);
// gfx_egl_create makes a GL major.minor core context on the initialized
// display and makes it current on the calling thread with no surface.
// It returns 0 or the stage that failed (eglGetError tells why).
int gfx_egl_create(gfx_egl_ctx *c, uintptr_t dpy, int major, int minor);
// gfx_egl_destroy releases the context from the thread and destroys it.
void gfx_egl_destroy(gfx_egl_ctx *c);

// GL shims (the context must be current on the calling thread).
const char *gfx_gl_get_string(gfx_egl_ctx *c, GLenum name);
const char *gfx_gl_get_stringi(gfx_egl_ctx *c, GLenum name, GLuint i);
GLint gfx_gl_get_integer(gfx_egl_ctx *c, GLenum name);
GLenum gfx_gl_get_error(gfx_egl_ctx *c);
// gfx_gl_clear_errors drains glGetError and returns the first error.
GLenum gfx_gl_clear_errors(gfx_egl_ctx *c);
void gfx_gl_finish(gfx_egl_ctx *c);
int gfx_gl_device_uuid(gfx_egl_ctx *c, GLuint index, unsigned char *out);
GLenum gfx_gl_create_buffer(gfx_egl_ctx *c, GLsizeiptr size, const void *data, GLenum usage, GLuint *id);
GLenum gfx_gl_buffer_sub_data(gfx_egl_ctx *c, GLuint id, GLintptr off, GLsizeiptr size, const void *data);
GLenum gfx_gl_get_buffer_sub_data(gfx_egl_ctx *c, GLuint id, GLintptr off, GLsizeiptr size, void *data);
GLenum gfx_gl_delete_buffer(gfx_egl_ctx *c, GLuint id);
GLenum gfx_gl_create_texture_2d(gfx_egl_ctx *c, GLsizei levels, GLenum ifmt, GLsizei w, GLsizei h, GLuint *id);
GLenum gfx_gl_texture_sub_image_2d(gfx_egl_ctx *c, GLuint id, GLint level, GLsizei w, GLsizei h, GLenum fmt, GLenum type, const void *data);
GLenum gfx_gl_get_texture_image(gfx_egl_ctx *c, GLuint id, GLint level, GLenum fmt, GLenum type, GLsizei n, void *data);
GLenum gfx_gl_delete_texture(gfx_egl_ctx *c, GLuint id);

#endif
