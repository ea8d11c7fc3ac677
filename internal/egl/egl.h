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

// GL_EXT_memory_object, GL_EXT_memory_object_fd, GL_EXT_semaphore(_fd).
#ifndef GL_HANDLE_TYPE_OPAQUE_FD_EXT
#define GL_HANDLE_TYPE_OPAQUE_FD_EXT 0x9586
#endif
#ifndef GL_DEDICATED_MEMORY_OBJECT_EXT
#define GL_DEDICATED_MEMORY_OBJECT_EXT 0x9581
#endif
#ifndef GL_LAYOUT_GENERAL_EXT
#define GL_LAYOUT_GENERAL_EXT 0x958D
#endif
typedef void (APIENTRYP gfx_PFNGLCREATEMEMORYOBJECTSEXTPROC)(GLsizei n, GLuint *memoryObjects);
typedef void (APIENTRYP gfx_PFNGLDELETEMEMORYOBJECTSEXTPROC)(GLsizei n, const GLuint *memoryObjects);
typedef void (APIENTRYP gfx_PFNGLMEMORYOBJECTPARAMETERIVEXTPROC)(GLuint memoryObject, GLenum pname, const GLint *params);
typedef void (APIENTRYP gfx_PFNGLIMPORTMEMORYFDEXTPROC)(GLuint memory, GLuint64 size, GLenum handleType, GLint fd);
typedef void (APIENTRYP gfx_PFNGLNAMEDBUFFERSTORAGEMEMEXTPROC)(GLuint buffer, GLsizeiptr size, GLuint memory, GLuint64 offset);
typedef void (APIENTRYP gfx_PFNGLBUFFERSTORAGEMEMEXTPROC)(GLenum target, GLsizeiptr size, GLuint memory, GLuint64 offset);
typedef void (APIENTRYP gfx_PFNGLTEXTURESTORAGEMEM2DEXTPROC)(GLuint texture, GLsizei levels, GLenum internalFormat, GLsizei width, GLsizei height, GLuint memory, GLuint64 offset);
typedef void (APIENTRYP gfx_PFNGLTEXSTORAGEMEM2DEXTPROC)(GLenum target, GLsizei levels, GLenum internalFormat, GLsizei width, GLsizei height, GLuint memory, GLuint64 offset);
typedef void (APIENTRYP gfx_PFNGLGENSEMAPHORESEXTPROC)(GLsizei n, GLuint *semaphores);
typedef void (APIENTRYP gfx_PFNGLDELETESEMAPHORESEXTPROC)(GLsizei n, const GLuint *semaphores);
typedef void (APIENTRYP gfx_PFNGLIMPORTSEMAPHOREFDEXTPROC)(GLuint semaphore, GLenum handleType, GLint fd);
typedef void (APIENTRYP gfx_PFNGLSIGNALSEMAPHOREEXTPROC)(GLuint semaphore, GLuint numBufferBarriers, const GLuint *buffers, GLuint numTextureBarriers, const GLuint *textures, const GLenum *dstLayouts);
typedef void (APIENTRYP gfx_PFNGLCREATESEMAPHORESNVPROC)(GLsizei n, GLuint *semaphores);
typedef void (APIENTRYP gfx_PFNGLSEMAPHOREPARAMETERIVNVPROC)(GLuint semaphore, GLenum pname, const GLint *params);
typedef void (APIENTRYP gfx_PFNGLSEMAPHOREPARAMETERUI64VEXTPROC)(GLuint semaphore, GLenum pname, const GLuint64 *params);
typedef void (APIENTRYP gfx_PFNGLGETSEMAPHOREPARAMETERIVNVPROC)(GLuint semaphore, GLenum pname, GLint *params);
typedef void (APIENTRYP gfx_PFNGLGETSEMAPHOREPARAMETERUI64VEXTPROC)(GLuint semaphore, GLenum pname, GLuint64 *params);
#ifndef GL_TIMELINE_SEMAPHORE_VALUE_NV
#define GL_TIMELINE_SEMAPHORE_VALUE_NV 0x9595
#define GL_SEMAPHORE_TYPE_NV 0x95B3
#define GL_SEMAPHORE_TYPE_TIMELINE_NV 0x95B5
#endif
typedef void (APIENTRYP gfx_PFNGLWAITSEMAPHOREEXTPROC)(GLuint semaphore, GLuint numBufferBarriers, const GLuint *buffers, GLuint numTextureBarriers, const GLuint *textures, const GLenum *srcLayouts);

// EGL_NV_device_cuda.
#ifndef EGL_CUDA_DEVICE_NV
#define EGL_CUDA_DEVICE_NV 0x323A
#endif

// Core EGL entry points, looked up with dlsym in this order (GFX_EGL_CORE
// in egl.go lists the names).
#define GFX_EGL_NCORE 15
// The first GFX_EGL_NREQUIRED are required; the rest may be NULL.
#define GFX_EGL_NREQUIRED 11

// gfx_egl_load fills the process-wide EGL table from core (dlsym results)
// and eglGetProcAddress. It returns 0, or 1 when an essential entry point is
// missing.
int gfx_egl_load(void **core);
// Availability of optional entry points.
int gfx_egl_has_platform_display(void);
int gfx_egl_has_devices(void);
int gfx_egl_has_device_binary(void);
int gfx_egl_has_current(void);
// gfx_egl_device_cuda writes the CUDA ordinal of an EGL device
// (EGL_NV_device_cuda); 0 on success.
int gfx_egl_device_cuda(uintptr_t dev, int *ordinal);

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
	GFX_EGL_STAGE_GL_ENTRY,
	GFX_EGL_STAGE_NO_CURRENT
};

// Client APIs for gfx_egl_create.
enum { GFX_API_GL = 0, GFX_API_GLES = 1 };

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
	// Bind-based entry points, for GLES and GL contexts without
	// direct state access (GL 3.x, ES 3.x).
	PFNGLGENBUFFERSPROC GenBuffers;
	PFNGLBINDBUFFERPROC BindBuffer;
	PFNGLBUFFERDATAPROC BufferData;
	PFNGLBUFFERSUBDATAPROC BufferSubData;
	PFNGLMAPBUFFERRANGEPROC MapBufferRange;
	PFNGLUNMAPBUFFERPROC UnmapBuffer;
	PFNGLCOPYBUFFERSUBDATAPROC CopyBufferSubData;
	PFNGLGENTEXTURESPROC GenTextures;
	PFNGLBINDTEXTUREPROC BindTexture;
	PFNGLTEXSTORAGE2DPROC TexStorage2D;
	PFNGLTEXSUBIMAGE2DPROC TexSubImage2D;
	PFNGLGETTEXIMAGEPROC GetTexImage; // desktop GL only
	PFNGLPIXELSTOREIPROC PixelStorei;
	PFNGLGENFRAMEBUFFERSPROC GenFramebuffers;
	PFNGLBINDFRAMEBUFFERPROC BindFramebuffer;
	PFNGLFRAMEBUFFERTEXTURE2DPROC FramebufferTexture2D;
	PFNGLDELETEFRAMEBUFFERSPROC DeleteFramebuffers;
	PFNGLREADPIXELSPROC ReadPixels;
	PFNGLFLUSHPROC Flush;
	PFNGLFENCESYNCPROC FenceSync;
	PFNGLCLIENTWAITSYNCPROC ClientWaitSync;
	PFNGLDELETESYNCPROC DeleteSync;
	PFNGLCOPYNAMEDBUFFERSUBDATAPROC CopyNamedBufferSubData; // DSA only
	// GL_EXT_memory_object(_fd) and GL_EXT_semaphore(_fd): use only when
	// the context reports them (glvnd hands out stubs for any name).
	gfx_PFNGLCREATEMEMORYOBJECTSEXTPROC CreateMemoryObjectsEXT;
	gfx_PFNGLDELETEMEMORYOBJECTSEXTPROC DeleteMemoryObjectsEXT;
	gfx_PFNGLMEMORYOBJECTPARAMETERIVEXTPROC MemoryObjectParameterivEXT;
	gfx_PFNGLIMPORTMEMORYFDEXTPROC ImportMemoryFdEXT;
	gfx_PFNGLNAMEDBUFFERSTORAGEMEMEXTPROC NamedBufferStorageMemEXT;
	gfx_PFNGLBUFFERSTORAGEMEMEXTPROC BufferStorageMemEXT;
	gfx_PFNGLTEXTURESTORAGEMEM2DEXTPROC TextureStorageMem2DEXT;
	gfx_PFNGLTEXSTORAGEMEM2DEXTPROC TexStorageMem2DEXT;
	gfx_PFNGLGENSEMAPHORESEXTPROC GenSemaphoresEXT;
	gfx_PFNGLDELETESEMAPHORESEXTPROC DeleteSemaphoresEXT;
	gfx_PFNGLIMPORTSEMAPHOREFDEXTPROC ImportSemaphoreFdEXT;
	gfx_PFNGLSIGNALSEMAPHOREEXTPROC SignalSemaphoreEXT;
	gfx_PFNGLWAITSEMAPHOREEXTPROC WaitSemaphoreEXT;
	gfx_PFNGLSEMAPHOREPARAMETERUI64VEXTPROC SemaphoreParameterui64vEXT;
	gfx_PFNGLCREATESEMAPHORESNVPROC CreateSemaphoresNV;           // GL_NV_timeline_semaphore
	gfx_PFNGLSEMAPHOREPARAMETERIVNVPROC SemaphoreParameterivNV; // GL_NV_timeline_semaphore
	gfx_PFNGLGETSEMAPHOREPARAMETERIVNVPROC GetSemaphoreParameterivNV; // GL_NV_timeline_semaphore
	gfx_PFNGLGETSEMAPHOREPARAMETERUI64VEXTPROC GetSemaphoreParameterui64vEXT;
} gfx_gl;

// One display + context. Allocated in C memory: no driver handle is ever
// held in Go memory.
typedef struct {
	EGLDisplay dpy;
	EGLContext ctx;
	EGLint major, minor; // EGL version
	int es;      // an OpenGL ES context
	int dsa;     // direct state access (GL 4.5 or ARB_direct_state_access)
	int adopted; // the caller's context: never made current or destroyed here
	int glx;     // adopted from GLX (glx.c): 1 + its GLX library's slot; ctx is then a GLXContext, dpy an X Display
	// get_proc looks GL entry points up for a context whose own lookup is
	// not eglGetProcAddress (glx.c sets it: glXGetProcAddressARB of slot
	// glx); NULL: eglGetProcAddress.
	void *(*get_proc)(int lib, const char *name);
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
int gfx_egl_create(gfx_egl_ctx *c, uintptr_t dpy, int api, int major, int minor);
// gfx_egl_adopt fills c from the context current on the calling thread;
// it returns 0 or the stage that failed.
int gfx_egl_adopt(gfx_egl_ctx *c);
// gfx_egl_current returns the context current on the calling thread.
uintptr_t gfx_egl_current(void);
// gfx_egl_destroy releases the context from the thread and destroys it.
void gfx_egl_destroy(gfx_egl_ctx *c);

// gfx_gl_get_proc looks up a GL entry point for context c (as load_gl
// does); NULL when there is none.
void *gfx_gl_get_proc(gfx_egl_ctx *c, const char *name);

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
GLenum gfx_gl_get_texture_image(gfx_egl_ctx *c, GLuint id, GLint level, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLsizei n, void *data);
GLenum gfx_gl_delete_texture(gfx_egl_ctx *c, GLuint id);
GLenum gfx_gl_copy_buffer(gfx_egl_ctx *c, GLuint dst, GLuint src, GLintptr dstOff, GLintptr srcOff, GLsizeiptr n);
void gfx_gl_flush(gfx_egl_ctx *c);
// gfx_gl_texture_to_buffer packs level 0 of tex into buf at off (a pixel
// pack buffer copy, on the GPU).
GLenum gfx_gl_texture_to_buffer(gfx_egl_ctx *c, GLuint tex, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLuint buf, GLintptr off, GLsizei n);
// gfx_gl_framebuffer_to_buffer reads w x h pixels of framebuffer fb into buf
// at off (glReadPixels into a pixel pack buffer; the read framebuffer,
// buffer bindings and pack state put back).
GLenum gfx_gl_framebuffer_to_buffer(gfx_egl_ctx *c, GLuint fb, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLuint buf, GLintptr off);
// gfx_gl_buffer_to_texture unpacks w x h texels of fmt/type from buffer buf
// at off into level 0 of tex (a pixel unpack buffer copy, on the GPU;
// direct state access only; bindings and pixel store put back).
GLenum gfx_gl_buffer_to_texture(gfx_egl_ctx *c, GLuint tex, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLuint buf, GLintptr off);
// gfx_gl_fence inserts a fence; gfx_gl_wait waits for it up to timeout ns
// (returns 0 when signalled, 1 on timeout, 2 on error) and deletes it when
// done is set.
uintptr_t gfx_gl_fence(gfx_egl_ctx *c);
int gfx_gl_wait(gfx_egl_ctx *c, uintptr_t sync, GLuint64 timeout);
void gfx_gl_delete_sync(gfx_egl_ctx *c, uintptr_t sync);
// Memory objects: import takes fd (GL owns it on success).
GLenum gfx_gl_import_memory(gfx_egl_ctx *c, GLuint64 size, int fd, int dedicated, GLuint *mem);
GLenum gfx_gl_delete_memory(gfx_egl_ctx *c, GLuint mem);
GLenum gfx_gl_buffer_from_memory(gfx_egl_ctx *c, GLuint mem, GLsizeiptr size, GLuint *id);
GLenum gfx_gl_texture_from_memory(gfx_egl_ctx *c, GLuint mem, GLenum ifmt, GLsizei w, GLsizei h, GLuint *id);
GLenum gfx_gl_import_semaphore(gfx_egl_ctx *c, int fd, GLuint *sem);
GLenum gfx_gl_delete_semaphore(gfx_egl_ctx *c, GLuint sem);
// gfx_gl_import_timeline imports a timeline semaphore (GL_NV_timeline_semaphore).
GLenum gfx_gl_import_timeline(gfx_egl_ctx *c, int fd, GLuint *sem);
// gfx_gl_semaphore_info reads GL_SEMAPHORE_TYPE_NV and
// GL_TIMELINE_SEMAPHORE_VALUE_NV of sem (0 where the query is missing).
GLenum gfx_gl_semaphore_info(gfx_egl_ctx *c, GLuint sem, GLint *type, GLuint64 *value);
// gfx_gl_set_timeline_value sets the value the next signal or wait uses.
void gfx_gl_set_timeline_value(gfx_egl_ctx *c, GLuint sem, GLuint64 v);
// signal/wait: nb buffers, nt textures with one layout each.
GLenum gfx_gl_signal_semaphore(gfx_egl_ctx *c, GLuint sem, GLuint nb, const GLuint *bufs, GLuint nt, const GLuint *texs, const GLenum *layouts);
GLenum gfx_gl_wait_semaphore(gfx_egl_ctx *c, GLuint sem, GLuint nb, const GLuint *bufs, GLuint nt, const GLuint *texs, const GLenum *layouts);

#endif
