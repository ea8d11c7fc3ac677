#include <string.h>
#include "egl.h"

static struct {
	PFNEGLGETPROCADDRESSPROC GetProcAddress;
	PFNEGLGETERRORPROC GetError;
	PFNEGLQUERYSTRINGPROC QueryString;
	PFNEGLINITIALIZEPROC Initialize;
	PFNEGLTERMINATEPROC Terminate;
	PFNEGLBINDAPIPROC BindAPI;
	PFNEGLCHOOSECONFIGPROC ChooseConfig;
	PFNEGLCREATECONTEXTPROC CreateContext;
	PFNEGLDESTROYCONTEXTPROC DestroyContext;
	PFNEGLMAKECURRENTPROC MakeCurrent;
	PFNEGLRELEASETHREADPROC ReleaseThread;
	PFNEGLGETPLATFORMDISPLAYPROC GetPlatformDisplay; // EGL 1.5, may be NULL
	PFNEGLGETPLATFORMDISPLAYEXTPROC GetPlatformDisplayEXT;
	PFNEGLQUERYDEVICESEXTPROC QueryDevicesEXT;
	PFNEGLQUERYDEVICESTRINGEXTPROC QueryDeviceStringEXT;
	PFNEGLQUERYDEVICEBINARYEXTPROC QueryDeviceBinaryEXT;
	PFNEGLQUERYDEVICEATTRIBEXTPROC QueryDeviceAttribEXT;
	PFNEGLGETCURRENTCONTEXTPROC GetCurrentContext; // may be NULL
	PFNEGLGETCURRENTDISPLAYPROC GetCurrentDisplay; // may be NULL
	PFNEGLQUERYCONTEXTPROC QueryContext;           // may be NULL
} egl;

// has reports whether the space-separated list exts contains name.
static int has(const char *exts, const char *name) {
	size_t n = strlen(name);
	const char *p = exts;
	if (!exts) return 0;
	while ((p = strstr(p, name)) != NULL) {
		if ((p == exts || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
		p += n;
	}
	return 0;
}

int gfx_egl_load(void **core) {
	egl.GetProcAddress = (PFNEGLGETPROCADDRESSPROC)core[0];
	egl.GetError = (PFNEGLGETERRORPROC)core[1];
	egl.QueryString = (PFNEGLQUERYSTRINGPROC)core[2];
	egl.Initialize = (PFNEGLINITIALIZEPROC)core[3];
	egl.Terminate = (PFNEGLTERMINATEPROC)core[4];
	egl.BindAPI = (PFNEGLBINDAPIPROC)core[5];
	egl.ChooseConfig = (PFNEGLCHOOSECONFIGPROC)core[6];
	egl.CreateContext = (PFNEGLCREATECONTEXTPROC)core[7];
	egl.DestroyContext = (PFNEGLDESTROYCONTEXTPROC)core[8];
	egl.MakeCurrent = (PFNEGLMAKECURRENTPROC)core[9];
	egl.ReleaseThread = (PFNEGLRELEASETHREADPROC)core[10];
	egl.GetPlatformDisplay = (PFNEGLGETPLATFORMDISPLAYPROC)core[11];
	egl.GetCurrentContext = (PFNEGLGETCURRENTCONTEXTPROC)core[12];
	egl.GetCurrentDisplay = (PFNEGLGETCURRENTDISPLAYPROC)core[13];
	egl.QueryContext = (PFNEGLQUERYCONTEXTPROC)core[14];
	for (int i = 0; i < GFX_EGL_NREQUIRED; i++)
		if (!core[i]) return 1;
	egl.GetPlatformDisplayEXT = (PFNEGLGETPLATFORMDISPLAYEXTPROC)egl.GetProcAddress("eglGetPlatformDisplayEXT");
	egl.QueryDevicesEXT = (PFNEGLQUERYDEVICESEXTPROC)egl.GetProcAddress("eglQueryDevicesEXT");
	egl.QueryDeviceStringEXT = (PFNEGLQUERYDEVICESTRINGEXTPROC)egl.GetProcAddress("eglQueryDeviceStringEXT");
	egl.QueryDeviceBinaryEXT = (PFNEGLQUERYDEVICEBINARYEXTPROC)egl.GetProcAddress("eglQueryDeviceBinaryEXT");
	egl.QueryDeviceAttribEXT = (PFNEGLQUERYDEVICEATTRIBEXTPROC)egl.GetProcAddress("eglQueryDeviceAttribEXT");
	return 0;
}

int gfx_egl_has_platform_display(void) { return egl.GetPlatformDisplay != NULL || egl.GetPlatformDisplayEXT != NULL; }
int gfx_egl_has_devices(void) { return egl.QueryDevicesEXT != NULL && egl.QueryDeviceStringEXT != NULL; }
int gfx_egl_has_device_binary(void) { return egl.QueryDeviceBinaryEXT != NULL; }
int gfx_egl_has_current(void) { return egl.GetCurrentContext != NULL && egl.GetCurrentDisplay != NULL; }

int gfx_egl_device_cuda(uintptr_t dev, int *ordinal) {
	EGLAttrib v = -1;
	if (!egl.QueryDeviceAttribEXT) return -1;
	if (!egl.QueryDeviceAttribEXT((EGLDeviceEXT)dev, EGL_CUDA_DEVICE_NV, &v)) return -1;
	*ordinal = (int)v;
	return 0;
}

uintptr_t gfx_egl_current(void) {
	if (!egl.GetCurrentContext) return 0;
	return (uintptr_t)egl.GetCurrentContext();
}

EGLint gfx_egl_get_error(void) { return egl.GetError(); }

const char *gfx_egl_query_string(uintptr_t dpy, EGLint name) {
	return egl.QueryString((EGLDisplay)dpy, name);
}

int gfx_egl_devices(uintptr_t *devs, int max) {
	EGLDeviceEXT buf[64];
	EGLint n = 0;
	if (!egl.QueryDevicesEXT) return -1;
	if (max > 64) max = 64;
	if (!egl.QueryDevicesEXT(max, buf, &n)) return -1;
	for (int i = 0; i < n; i++) devs[i] = (uintptr_t)buf[i];
	return n;
}

const char *gfx_egl_device_string(uintptr_t dev, EGLint name) {
	if (!egl.QueryDeviceStringEXT) return NULL;
	return egl.QueryDeviceStringEXT((EGLDeviceEXT)dev, name);
}

int gfx_egl_device_uuid(uintptr_t dev, unsigned char *out) {
	EGLint size = 0;
	if (!egl.QueryDeviceBinaryEXT) return -1;
	if (!egl.QueryDeviceBinaryEXT((EGLDeviceEXT)dev, EGL_DEVICE_UUID_EXT, 16, out, &size) || size != 16) return -1;
	return 0;
}

uintptr_t gfx_egl_display(EGLenum platform, uintptr_t native) {
	if (egl.GetPlatformDisplay) return (uintptr_t)egl.GetPlatformDisplay(platform, (void *)native, NULL);
	if (egl.GetPlatformDisplayEXT) return (uintptr_t)egl.GetPlatformDisplayEXT(platform, (void *)native, NULL);
	return 0;
}

EGLBoolean gfx_egl_initialize(uintptr_t dpy, EGLint *major, EGLint *minor) {
	return egl.Initialize((EGLDisplay)dpy, major, minor);
}

EGLBoolean gfx_egl_terminate(uintptr_t dpy) { return egl.Terminate((EGLDisplay)dpy); }

// gl_proc looks a GL entry point up for c: through the context's own
// lookup when it has one (a context adopted from GLX: glx.c sets it), else
// through eglGetProcAddress.
static void *gl_proc(gfx_egl_ctx *c, const char *name) {
	if (c->get_proc) return c->get_proc(c->glx, name);
	return egl.GetProcAddress ? (void *)egl.GetProcAddress(name) : NULL;
}

static int load_gl(gfx_egl_ctx *c);
int gfx_egl_load_gl(gfx_egl_ctx *c) { return load_gl(c); }

#define GFX_GL_LOAD(field, name) \
	if (!(c->gl.field = gl_proc(c, name))) return 1;
#define GFX_GL_OPT(field, name) c->gl.field = gl_proc(c, name);

// load_gl resolves the entry points. Which ones a context really has is
// decided in Go (version and extension strings): glvnd hands out dispatch
// stubs for any name, so a non-NULL pointer proves nothing.
static int load_gl(gfx_egl_ctx *c) {
	GFX_GL_LOAD(GetString, "glGetString")
	GFX_GL_LOAD(GetStringi, "glGetStringi")
	GFX_GL_LOAD(GetError, "glGetError")
	GFX_GL_LOAD(GetIntegerv, "glGetIntegerv")
	GFX_GL_LOAD(Finish, "glFinish")
	GFX_GL_LOAD(Flush, "glFlush")
	GFX_GL_LOAD(DeleteBuffers, "glDeleteBuffers")
	GFX_GL_LOAD(DeleteTextures, "glDeleteTextures")
	GFX_GL_LOAD(GenBuffers, "glGenBuffers")
	GFX_GL_LOAD(BindBuffer, "glBindBuffer")
	GFX_GL_LOAD(BufferData, "glBufferData")
	GFX_GL_LOAD(BufferSubData, "glBufferSubData")
	GFX_GL_LOAD(MapBufferRange, "glMapBufferRange")
	GFX_GL_LOAD(UnmapBuffer, "glUnmapBuffer")
	GFX_GL_LOAD(CopyBufferSubData, "glCopyBufferSubData")
	GFX_GL_LOAD(GenTextures, "glGenTextures")
	GFX_GL_LOAD(BindTexture, "glBindTexture")
	GFX_GL_LOAD(TexStorage2D, "glTexStorage2D")
	GFX_GL_LOAD(TexSubImage2D, "glTexSubImage2D")
	GFX_GL_LOAD(PixelStorei, "glPixelStorei")
	GFX_GL_LOAD(GenFramebuffers, "glGenFramebuffers")
	GFX_GL_LOAD(BindFramebuffer, "glBindFramebuffer")
	GFX_GL_LOAD(FramebufferTexture2D, "glFramebufferTexture2D")
	GFX_GL_LOAD(DeleteFramebuffers, "glDeleteFramebuffers")
	GFX_GL_LOAD(ReadPixels, "glReadPixels")
	GFX_GL_LOAD(FenceSync, "glFenceSync")
	GFX_GL_LOAD(ClientWaitSync, "glClientWaitSync")
	GFX_GL_LOAD(DeleteSync, "glDeleteSync")
	GFX_GL_OPT(GetTexImage, "glGetTexImage")
	GFX_GL_OPT(CreateBuffers, "glCreateBuffers")
	GFX_GL_OPT(NamedBufferData, "glNamedBufferData")
	GFX_GL_OPT(NamedBufferSubData, "glNamedBufferSubData")
	GFX_GL_OPT(GetNamedBufferSubData, "glGetNamedBufferSubData")
	GFX_GL_OPT(CopyNamedBufferSubData, "glCopyNamedBufferSubData")
	GFX_GL_OPT(CreateTextures, "glCreateTextures")
	GFX_GL_OPT(TextureStorage2D, "glTextureStorage2D")
	GFX_GL_OPT(TextureSubImage2D, "glTextureSubImage2D")
	GFX_GL_OPT(GetTextureImage, "glGetTextureImage")
	GFX_GL_OPT(GetUnsignedBytei_vEXT, "glGetUnsignedBytei_vEXT")
	GFX_GL_OPT(CreateMemoryObjectsEXT, "glCreateMemoryObjectsEXT")
	GFX_GL_OPT(DeleteMemoryObjectsEXT, "glDeleteMemoryObjectsEXT")
	GFX_GL_OPT(MemoryObjectParameterivEXT, "glMemoryObjectParameterivEXT")
	GFX_GL_OPT(ImportMemoryFdEXT, "glImportMemoryFdEXT")
	GFX_GL_OPT(NamedBufferStorageMemEXT, "glNamedBufferStorageMemEXT")
	GFX_GL_OPT(BufferStorageMemEXT, "glBufferStorageMemEXT")
	GFX_GL_OPT(TextureStorageMem2DEXT, "glTextureStorageMem2DEXT")
	GFX_GL_OPT(TexStorageMem2DEXT, "glTexStorageMem2DEXT")
	GFX_GL_OPT(GenSemaphoresEXT, "glGenSemaphoresEXT")
	GFX_GL_OPT(DeleteSemaphoresEXT, "glDeleteSemaphoresEXT")
	GFX_GL_OPT(ImportSemaphoreFdEXT, "glImportSemaphoreFdEXT")
	GFX_GL_OPT(SignalSemaphoreEXT, "glSignalSemaphoreEXT")
	GFX_GL_OPT(WaitSemaphoreEXT, "glWaitSemaphoreEXT")
	GFX_GL_OPT(SemaphoreParameterui64vEXT, "glSemaphoreParameterui64vEXT")
	GFX_GL_OPT(CreateSemaphoresNV, "glCreateSemaphoresNV")
	GFX_GL_OPT(SemaphoreParameterivNV, "glSemaphoreParameterivNV")
	GFX_GL_OPT(GetSemaphoreParameterivNV, "glGetSemaphoreParameterivNV")
	GFX_GL_OPT(GetSemaphoreParameterui64vEXT, "glGetSemaphoreParameterui64vEXT")
	return 0;
}

int gfx_egl_create(gfx_egl_ctx *c, uintptr_t dpy, int api, int major, int minor) {
	EGLDisplay d = (EGLDisplay)dpy;
	EGLConfig cfg = EGL_NO_CONFIG_KHR;
	const char *exts = egl.QueryString(d, EGL_EXTENSIONS);
	memset(c, 0, sizeof *c);
	c->dpy = d;
	if (!has(exts, "EGL_KHR_surfaceless_context")) return GFX_EGL_STAGE_NO_SURFACELESS;
	if (!egl.BindAPI(api == GFX_API_GLES ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) return GFX_EGL_STAGE_BIND_API;
	c->es = api == GFX_API_GLES;
	if (!has(exts, "EGL_KHR_no_config_context") && !has(exts, "EGL_MESA_configless_context")) {
		const EGLint attrs[] = {EGL_RENDERABLE_TYPE, api == GFX_API_GLES ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
		EGLint n = 0;
		if (!egl.ChooseConfig(d, attrs, &cfg, 1, &n) || n < 1) return GFX_EGL_STAGE_CONFIG;
	}
	const EGLint glAttrs[] = {
		EGL_CONTEXT_MAJOR_VERSION, major,
		EGL_CONTEXT_MINOR_VERSION, minor,
		EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_NONE,
	};
	const EGLint esAttrs[] = {
		EGL_CONTEXT_MAJOR_VERSION, major,
		EGL_CONTEXT_MINOR_VERSION, minor,
		EGL_NONE,
	};
	const EGLint *ctxAttrs = api == GFX_API_GLES ? esAttrs : glAttrs;
	c->ctx = egl.CreateContext(d, cfg, EGL_NO_CONTEXT, ctxAttrs);
	if (c->ctx == EGL_NO_CONTEXT) return GFX_EGL_STAGE_CONTEXT;
	if (!egl.MakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c->ctx)) {
		egl.DestroyContext(d, c->ctx);
		c->ctx = EGL_NO_CONTEXT;
		return GFX_EGL_STAGE_MAKE_CURRENT;
	}
	if (load_gl(c)) {
		gfx_egl_destroy(c);
		return GFX_EGL_STAGE_GL_ENTRY;
	}
	return 0;
}

int gfx_egl_adopt(gfx_egl_ctx *c) {
	memset(c, 0, sizeof *c);
	if (!egl.GetCurrentContext || !egl.GetCurrentDisplay) return GFX_EGL_STAGE_NO_CURRENT;
	c->ctx = egl.GetCurrentContext();
	c->dpy = egl.GetCurrentDisplay();
	c->adopted = 1;
	if (c->ctx == EGL_NO_CONTEXT) return GFX_EGL_STAGE_NO_CURRENT;
	if (egl.QueryContext) {
		EGLint t = 0;
		if (egl.QueryContext(c->dpy, c->ctx, EGL_CONTEXT_CLIENT_TYPE, &t) && t == EGL_OPENGL_ES_API) c->es = 1;
	}
	if (load_gl(c)) return GFX_EGL_STAGE_GL_ENTRY;
	return 0;
}

void gfx_egl_destroy(gfx_egl_ctx *c) {
	if (c->adopted) {
		c->ctx = EGL_NO_CONTEXT;
		return;
	}
	if (c->ctx != EGL_NO_CONTEXT) {
		egl.MakeCurrent(c->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		egl.DestroyContext(c->dpy, c->ctx);
		c->ctx = EGL_NO_CONTEXT;
	}
	egl.ReleaseThread();
}

const char *gfx_gl_get_string(gfx_egl_ctx *c, GLenum name) { return (const char *)c->gl.GetString(name); }
const char *gfx_gl_get_stringi(gfx_egl_ctx *c, GLenum name, GLuint i) { return (const char *)c->gl.GetStringi(name, i); }

GLint gfx_gl_get_integer(gfx_egl_ctx *c, GLenum name) {
	GLint v = 0;
	c->gl.GetIntegerv(name, &v);
	return v;
}

GLenum gfx_gl_get_error(gfx_egl_ctx *c) { return c->gl.GetError(); }

GLenum gfx_gl_clear_errors(gfx_egl_ctx *c) {
	GLenum first = c->gl.GetError(), e;
	if (first == GL_NO_ERROR) return first;
	for (int i = 0; i < 64 && (e = c->gl.GetError()) != GL_NO_ERROR; i++) {
	}
	return first;
}

void gfx_gl_finish(gfx_egl_ctx *c) { c->gl.Finish(); }

void *gfx_gl_get_proc(gfx_egl_ctx *c, const char *name) {
	return gl_proc(c, name); // EGL's or, adopted from GLX, GLX's (glx.c)
}

int gfx_gl_device_uuid(gfx_egl_ctx *c, GLuint index, unsigned char *out) {
	if (!c->gl.GetUnsignedBytei_vEXT) return -1;
	c->gl.GetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, index, out);
	return c->gl.GetError() == GL_NO_ERROR ? 0 : -1;
}


// Bind-based paths save and restore every binding they touch, so an
// adopted context's state is as its owner left it.
typedef struct {
	GLint copyRead, copyWrite, tex2D, readFB, unpackBuf, packBuf, unpackAlign, packAlign, unpackRow, packRow;
} saved;

static void save(gfx_egl_ctx *c, saved *s) {
	c->gl.GetIntegerv(GL_COPY_READ_BUFFER_BINDING, &s->copyRead);
	c->gl.GetIntegerv(GL_COPY_WRITE_BUFFER_BINDING, &s->copyWrite);
	c->gl.GetIntegerv(GL_TEXTURE_BINDING_2D, &s->tex2D);
	c->gl.GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->readFB);
	c->gl.GetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &s->unpackBuf);
	c->gl.GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &s->packBuf);
	c->gl.GetIntegerv(GL_UNPACK_ALIGNMENT, &s->unpackAlign);
	c->gl.GetIntegerv(GL_PACK_ALIGNMENT, &s->packAlign);
	c->gl.GetIntegerv(GL_UNPACK_ROW_LENGTH, &s->unpackRow);
	c->gl.GetIntegerv(GL_PACK_ROW_LENGTH, &s->packRow);
	c->gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
	c->gl.BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	c->gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1);
	c->gl.PixelStorei(GL_PACK_ALIGNMENT, 1);
	c->gl.PixelStorei(GL_UNPACK_ROW_LENGTH, 0);
	c->gl.PixelStorei(GL_PACK_ROW_LENGTH, 0);
}

static void restore(gfx_egl_ctx *c, const saved *s) {
	c->gl.BindBuffer(GL_COPY_READ_BUFFER, s->copyRead);
	c->gl.BindBuffer(GL_COPY_WRITE_BUFFER, s->copyWrite);
	c->gl.BindTexture(GL_TEXTURE_2D, s->tex2D);
	c->gl.BindFramebuffer(GL_READ_FRAMEBUFFER, s->readFB);
	c->gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, s->unpackBuf);
	c->gl.BindBuffer(GL_PIXEL_PACK_BUFFER, s->packBuf);
	c->gl.PixelStorei(GL_UNPACK_ALIGNMENT, s->unpackAlign);
	c->gl.PixelStorei(GL_PACK_ALIGNMENT, s->packAlign);
	c->gl.PixelStorei(GL_UNPACK_ROW_LENGTH, s->unpackRow);
	c->gl.PixelStorei(GL_PACK_ROW_LENGTH, s->packRow);
}

GLenum gfx_gl_create_buffer(gfx_egl_ctx *c, GLsizeiptr size, const void *data, GLenum usage, GLuint *id) {
	*id = 0;
	gfx_gl_clear_errors(c);
	if (c->dsa) {
		c->gl.CreateBuffers(1, id);
		c->gl.NamedBufferData(*id, size, data, usage);
	} else {
		saved s;
		save(c, &s);
		c->gl.GenBuffers(1, id);
		c->gl.BindBuffer(GL_COPY_WRITE_BUFFER, *id);
		c->gl.BufferData(GL_COPY_WRITE_BUFFER, size, data, usage);
		restore(c, &s);
	}
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *id) {
		c->gl.DeleteBuffers(1, id);
		*id = 0;
	}
	return e;
}

GLenum gfx_gl_buffer_sub_data(gfx_egl_ctx *c, GLuint id, GLintptr off, GLsizeiptr size, const void *data) {
	gfx_gl_clear_errors(c);
	if (c->dsa) {
		c->gl.NamedBufferSubData(id, off, size, data);
	} else {
		saved s;
		save(c, &s);
		c->gl.BindBuffer(GL_COPY_WRITE_BUFFER, id);
		c->gl.BufferSubData(GL_COPY_WRITE_BUFFER, off, size, data);
		restore(c, &s);
	}
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_get_buffer_sub_data(gfx_egl_ctx *c, GLuint id, GLintptr off, GLsizeiptr size, void *data) {
	gfx_gl_clear_errors(c);
	if (c->dsa) {
		c->gl.GetNamedBufferSubData(id, off, size, data);
	} else {
		saved s;
		save(c, &s);
		// Buffers over imported memory (immutable, no map flags) cannot be
		// mapped: copy them into a temporary buffer that can.
		GLuint tmp = 0;
		c->gl.GenBuffers(1, &tmp);
		c->gl.BindBuffer(GL_COPY_WRITE_BUFFER, tmp);
		c->gl.BufferData(GL_COPY_WRITE_BUFFER, size, NULL, GL_STREAM_READ);
		c->gl.BindBuffer(GL_COPY_READ_BUFFER, id);
		c->gl.CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, off, 0, size);
		void *p = c->gl.MapBufferRange(GL_COPY_WRITE_BUFFER, 0, size, GL_MAP_READ_BIT);
		if (p) {
			memcpy(data, p, (size_t)size);
			c->gl.UnmapBuffer(GL_COPY_WRITE_BUFFER);
		}
		restore(c, &s);
		c->gl.DeleteBuffers(1, &tmp);
	}
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_copy_buffer(gfx_egl_ctx *c, GLuint dst, GLuint src, GLintptr dstOff, GLintptr srcOff, GLsizeiptr n) {
	if (c->dsa) {
		c->gl.CopyNamedBufferSubData(src, dst, srcOff, dstOff, n);
	} else {
		saved s;
		save(c, &s);
		c->gl.BindBuffer(GL_COPY_READ_BUFFER, src);
		c->gl.BindBuffer(GL_COPY_WRITE_BUFFER, dst);
		c->gl.CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, srcOff, dstOff, n);
		restore(c, &s);
	}
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_delete_buffer(gfx_egl_ctx *c, GLuint id) {
	c->gl.DeleteBuffers(1, &id);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_create_texture_2d(gfx_egl_ctx *c, GLsizei levels, GLenum ifmt, GLsizei w, GLsizei h, GLuint *id) {
	*id = 0;
	gfx_gl_clear_errors(c);
	if (c->dsa) {
		c->gl.CreateTextures(GL_TEXTURE_2D, 1, id);
		c->gl.TextureStorage2D(*id, levels, ifmt, w, h);
	} else {
		saved s;
		save(c, &s);
		c->gl.GenTextures(1, id);
		c->gl.BindTexture(GL_TEXTURE_2D, *id);
		c->gl.TexStorage2D(GL_TEXTURE_2D, levels, ifmt, w, h);
		restore(c, &s);
	}
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *id) {
		c->gl.DeleteTextures(1, id);
		*id = 0;
	}
	return e;
}

GLenum gfx_gl_texture_sub_image_2d(gfx_egl_ctx *c, GLuint id, GLint level, GLsizei w, GLsizei h, GLenum fmt, GLenum type, const void *data) {
	saved s;
	gfx_gl_clear_errors(c);
	save(c, &s);
	if (c->dsa) {
		c->gl.TextureSubImage2D(id, level, 0, 0, w, h, fmt, type, data);
	} else {
		c->gl.BindTexture(GL_TEXTURE_2D, id);
		c->gl.TexSubImage2D(GL_TEXTURE_2D, level, 0, 0, w, h, fmt, type, data);
	}
	restore(c, &s);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_get_texture_image(gfx_egl_ctx *c, GLuint id, GLint level, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLsizei n, void *data) {
	saved s;
	gfx_gl_clear_errors(c);
	save(c, &s);
	if (c->dsa) {
		c->gl.GetTextureImage(id, level, fmt, type, n, data);
	} else if (!c->es && c->gl.GetTexImage) {
		c->gl.BindTexture(GL_TEXTURE_2D, id);
		c->gl.GetTexImage(GL_TEXTURE_2D, level, fmt, type, data);
	} else {
		// OpenGL ES has no glGetTexImage: read through a framebuffer.
		GLuint fb = 0;
		(void)n;
		c->gl.GenFramebuffers(1, &fb);
		c->gl.BindFramebuffer(GL_READ_FRAMEBUFFER, fb);
		c->gl.FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, id, level);
		c->gl.ReadPixels(0, 0, w, h, fmt, type, data);
		c->gl.BindFramebuffer(GL_READ_FRAMEBUFFER, s.readFB);
		c->gl.DeleteFramebuffers(1, &fb);
	}
	restore(c, &s);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_delete_texture(gfx_egl_ctx *c, GLuint id) {
	c->gl.DeleteTextures(1, &id);
	return gfx_gl_clear_errors(c);
}

void gfx_gl_flush(gfx_egl_ctx *c) { c->gl.Flush(); }

uintptr_t gfx_gl_fence(gfx_egl_ctx *c) {
	GLsync s = c->gl.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	c->gl.Flush();
	return (uintptr_t)s;
}

int gfx_gl_wait(gfx_egl_ctx *c, uintptr_t sync, GLuint64 timeout) {
	GLenum r = c->gl.ClientWaitSync((GLsync)sync, GL_SYNC_FLUSH_COMMANDS_BIT, timeout);
	if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED) return 0;
	if (r == GL_TIMEOUT_EXPIRED) return 1;
	return 2;
}

void gfx_gl_delete_sync(gfx_egl_ctx *c, uintptr_t sync) { c->gl.DeleteSync((GLsync)sync); }

GLenum gfx_gl_import_memory(gfx_egl_ctx *c, GLuint64 size, int fd, int dedicated, GLuint *mem) {
	GLint ded = dedicated ? GL_TRUE : GL_FALSE;
	*mem = 0;
	gfx_gl_clear_errors(c);
	c->gl.CreateMemoryObjectsEXT(1, mem);
	c->gl.MemoryObjectParameterivEXT(*mem, GL_DEDICATED_MEMORY_OBJECT_EXT, &ded);
	c->gl.ImportMemoryFdEXT(*mem, size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *mem) {
		c->gl.DeleteMemoryObjectsEXT(1, mem);
		*mem = 0;
	}
	return e;
}

GLenum gfx_gl_delete_memory(gfx_egl_ctx *c, GLuint mem) {
	c->gl.DeleteMemoryObjectsEXT(1, &mem);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_buffer_from_memory(gfx_egl_ctx *c, GLuint mem, GLsizeiptr size, GLuint *id) {
	*id = 0;
	gfx_gl_clear_errors(c);
	if (c->dsa) {
		c->gl.CreateBuffers(1, id);
		c->gl.NamedBufferStorageMemEXT(*id, size, mem, 0);
	} else {
		saved s;
		save(c, &s);
		c->gl.GenBuffers(1, id);
		c->gl.BindBuffer(GL_COPY_WRITE_BUFFER, *id);
		c->gl.BufferStorageMemEXT(GL_COPY_WRITE_BUFFER, size, mem, 0);
		restore(c, &s);
	}
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *id) {
		c->gl.DeleteBuffers(1, id);
		*id = 0;
	}
	return e;
}

GLenum gfx_gl_texture_from_memory(gfx_egl_ctx *c, GLuint mem, GLenum ifmt, GLsizei w, GLsizei h, GLuint *id) {
	*id = 0;
	gfx_gl_clear_errors(c);
	if (c->dsa) {
		c->gl.CreateTextures(GL_TEXTURE_2D, 1, id);
		c->gl.TextureStorageMem2DEXT(*id, 1, ifmt, w, h, mem, 0);
	} else {
		saved s;
		save(c, &s);
		c->gl.GenTextures(1, id);
		c->gl.BindTexture(GL_TEXTURE_2D, *id);
		c->gl.TexStorageMem2DEXT(GL_TEXTURE_2D, 1, ifmt, w, h, mem, 0);
		restore(c, &s);
	}
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *id) {
		c->gl.DeleteTextures(1, id);
		*id = 0;
	}
	return e;
}

GLenum gfx_gl_import_semaphore(gfx_egl_ctx *c, int fd, GLuint *sem) {
	*sem = 0;
	gfx_gl_clear_errors(c);
	c->gl.GenSemaphoresEXT(1, sem);
	c->gl.ImportSemaphoreFdEXT(*sem, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *sem) {
		c->gl.DeleteSemaphoresEXT(1, sem);
		*sem = 0;
	}
	return e;
}

GLenum gfx_gl_delete_semaphore(gfx_egl_ctx *c, GLuint sem) {
	c->gl.DeleteSemaphoresEXT(1, &sem);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_signal_semaphore(gfx_egl_ctx *c, GLuint sem, GLuint nb, const GLuint *bufs, GLuint nt, const GLuint *texs, const GLenum *layouts) {
	c->gl.SignalSemaphoreEXT(sem, nb, bufs, nt, texs, layouts);
	c->gl.Flush();
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_wait_semaphore(gfx_egl_ctx *c, GLuint sem, GLuint nb, const GLuint *bufs, GLuint nt, const GLuint *texs, const GLenum *layouts) {
	c->gl.WaitSemaphoreEXT(sem, nb, bufs, nt, texs, layouts);
	// Submit the wait now: later GL work, and the driver's own copies
	// for reads, queue behind it without waiting for the next flush.
	c->gl.Flush();
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_texture_to_buffer(gfx_egl_ctx *c, GLuint tex, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLuint buf, GLintptr off, GLsizei n) {
	saved s;
	gfx_gl_clear_errors(c);
	save(c, &s);
	c->gl.BindBuffer(GL_PIXEL_PACK_BUFFER, buf);
	if (c->dsa) {
		c->gl.GetTextureImage(tex, 0, fmt, type, n, (void *)off);
	} else if (!c->es && c->gl.GetTexImage) {
		c->gl.BindTexture(GL_TEXTURE_2D, tex);
		c->gl.GetTexImage(GL_TEXTURE_2D, 0, fmt, type, (void *)off);
	} else {
		GLuint fb = 0;
		c->gl.GenFramebuffers(1, &fb);
		c->gl.BindFramebuffer(GL_READ_FRAMEBUFFER, fb);
		c->gl.FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
		c->gl.ReadPixels(0, 0, w, h, fmt, type, (void *)off);
		c->gl.BindFramebuffer(GL_READ_FRAMEBUFFER, s.readFB);
		c->gl.DeleteFramebuffers(1, &fb);
	}
	restore(c, &s);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_framebuffer_to_buffer(gfx_egl_ctx *c, GLuint fb, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLuint buf, GLintptr off) {
	saved s;
	gfx_gl_clear_errors(c);
	save(c, &s);
	c->gl.BindFramebuffer(GL_READ_FRAMEBUFFER, fb);
	c->gl.BindBuffer(GL_PIXEL_PACK_BUFFER, buf);
	c->gl.ReadPixels(0, 0, w, h, fmt, type, (void *)off);
	restore(c, &s);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_buffer_to_texture(gfx_egl_ctx *c, GLuint tex, GLsizei w, GLsizei h, GLenum fmt, GLenum type, GLuint buf, GLintptr off) {
	saved s;
	if (!c->dsa) return GL_INVALID_OPERATION;
	gfx_gl_clear_errors(c);
	save(c, &s);
	c->gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, buf);
	c->gl.TextureSubImage2D(tex, 0, 0, 0, w, h, fmt, type, (const void *)off);
	restore(c, &s);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_import_timeline(gfx_egl_ctx *c, int fd, GLuint *sem) {
	GLint type = GL_SEMAPHORE_TYPE_TIMELINE_NV;
	*sem = 0;
	gfx_gl_clear_errors(c);
	c->gl.CreateSemaphoresNV(1, sem);
	c->gl.SemaphoreParameterivNV(*sem, GL_SEMAPHORE_TYPE_NV, &type);
	c->gl.ImportSemaphoreFdEXT(*sem, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *sem) {
		c->gl.DeleteSemaphoresEXT(1, sem);
		*sem = 0;
	}
	return e;
}

GLenum gfx_gl_semaphore_info(gfx_egl_ctx *c, GLuint sem, GLint *type, GLuint64 *value) {
	*type = 0;
	*value = 0;
	gfx_gl_clear_errors(c);
	if (c->gl.GetSemaphoreParameterivNV) {
		c->gl.GetSemaphoreParameterivNV(sem, GL_SEMAPHORE_TYPE_NV, type);
	}
	if (c->gl.GetSemaphoreParameterui64vEXT) {
		c->gl.GetSemaphoreParameterui64vEXT(sem, GL_TIMELINE_SEMAPHORE_VALUE_NV, value);
	}
	return gfx_gl_clear_errors(c);
}

void gfx_gl_set_timeline_value(gfx_egl_ctx *c, GLuint sem, GLuint64 v) {
	c->gl.SemaphoreParameterui64vEXT(sem, GL_TIMELINE_SEMAPHORE_VALUE_NV, &v);
}
