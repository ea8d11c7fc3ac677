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
	for (int i = 0; i < 11; i++)
		if (!core[i]) return 1;
	egl.GetPlatformDisplayEXT = (PFNEGLGETPLATFORMDISPLAYEXTPROC)egl.GetProcAddress("eglGetPlatformDisplayEXT");
	egl.QueryDevicesEXT = (PFNEGLQUERYDEVICESEXTPROC)egl.GetProcAddress("eglQueryDevicesEXT");
	egl.QueryDeviceStringEXT = (PFNEGLQUERYDEVICESTRINGEXTPROC)egl.GetProcAddress("eglQueryDeviceStringEXT");
	egl.QueryDeviceBinaryEXT = (PFNEGLQUERYDEVICEBINARYEXTPROC)egl.GetProcAddress("eglQueryDeviceBinaryEXT");
	return 0;
}

int gfx_egl_has_platform_display(void) { return egl.GetPlatformDisplay != NULL || egl.GetPlatformDisplayEXT != NULL; }
int gfx_egl_has_devices(void) { return egl.QueryDevicesEXT != NULL && egl.QueryDeviceStringEXT != NULL; }
int gfx_egl_has_device_binary(void) { return egl.QueryDeviceBinaryEXT != NULL; }

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

#define GFX_GL_LOAD(field, name) \
	if (!(c->gl.field = (void *)egl.GetProcAddress(name))) return 1;

static int load_gl(gfx_egl_ctx *c) {
	GFX_GL_LOAD(GetString, "glGetString")
	GFX_GL_LOAD(GetStringi, "glGetStringi")
	GFX_GL_LOAD(GetError, "glGetError")
	GFX_GL_LOAD(GetIntegerv, "glGetIntegerv")
	GFX_GL_LOAD(Finish, "glFinish")
	GFX_GL_LOAD(CreateBuffers, "glCreateBuffers")
	GFX_GL_LOAD(NamedBufferData, "glNamedBufferData")
	GFX_GL_LOAD(NamedBufferSubData, "glNamedBufferSubData")
	GFX_GL_LOAD(GetNamedBufferSubData, "glGetNamedBufferSubData")
	GFX_GL_LOAD(DeleteBuffers, "glDeleteBuffers")
	GFX_GL_LOAD(CreateTextures, "glCreateTextures")
	GFX_GL_LOAD(TextureStorage2D, "glTextureStorage2D")
	GFX_GL_LOAD(TextureSubImage2D, "glTextureSubImage2D")
	GFX_GL_LOAD(GetTextureImage, "glGetTextureImage")
	GFX_GL_LOAD(DeleteTextures, "glDeleteTextures")
	// glvnd hands out dispatch stubs for any name: use this one only when
	// the context reports GL_EXT_memory_object (checked in Go).
	c->gl.GetUnsignedBytei_vEXT = (gfx_PFNGLGETUNSIGNEDBYTEI_VEXTPROC)egl.GetProcAddress("glGetUnsignedBytei_vEXT");
	return 0;
}

int gfx_egl_create(gfx_egl_ctx *c, uintptr_t dpy, int major, int minor) {
	EGLDisplay d = (EGLDisplay)dpy;
	EGLConfig cfg = EGL_NO_CONFIG_KHR;
	const char *exts = egl.QueryString(d, EGL_EXTENSIONS);
	memset(c, 0, sizeof *c);
	c->dpy = d;
	if (!has(exts, "EGL_KHR_surfaceless_context")) return GFX_EGL_STAGE_NO_SURFACELESS;
	if (!egl.BindAPI(EGL_OPENGL_API)) return GFX_EGL_STAGE_BIND_API;
	if (!has(exts, "EGL_KHR_no_config_context") && !has(exts, "EGL_MESA_configless_context")) {
		const EGLint attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
		EGLint n = 0;
		if (!egl.ChooseConfig(d, attrs, &cfg, 1, &n) || n < 1) return GFX_EGL_STAGE_CONFIG;
	}
	const EGLint ctxAttrs[] = {
		EGL_CONTEXT_MAJOR_VERSION, major,
		EGL_CONTEXT_MINOR_VERSION, minor,
		EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_NONE,
	};
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

void gfx_egl_destroy(gfx_egl_ctx *c) {
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

int gfx_gl_device_uuid(gfx_egl_ctx *c, GLuint index, unsigned char *out) {
	if (!c->gl.GetUnsignedBytei_vEXT) return -1;
	c->gl.GetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, index, out);
	return c->gl.GetError() == GL_NO_ERROR ? 0 : -1;
}

GLenum gfx_gl_create_buffer(gfx_egl_ctx *c, GLsizeiptr size, const void *data, GLenum usage, GLuint *id) {
	*id = 0;
	c->gl.CreateBuffers(1, id);
	c->gl.NamedBufferData(*id, size, data, usage);
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *id) {
		c->gl.DeleteBuffers(1, id);
		*id = 0;
	}
	return e;
}

GLenum gfx_gl_buffer_sub_data(gfx_egl_ctx *c, GLuint id, GLintptr off, GLsizeiptr size, const void *data) {
	c->gl.NamedBufferSubData(id, off, size, data);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_get_buffer_sub_data(gfx_egl_ctx *c, GLuint id, GLintptr off, GLsizeiptr size, void *data) {
	c->gl.GetNamedBufferSubData(id, off, size, data);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_delete_buffer(gfx_egl_ctx *c, GLuint id) {
	c->gl.DeleteBuffers(1, &id);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_create_texture_2d(gfx_egl_ctx *c, GLsizei levels, GLenum ifmt, GLsizei w, GLsizei h, GLuint *id) {
	*id = 0;
	c->gl.CreateTextures(GL_TEXTURE_2D, 1, id);
	c->gl.TextureStorage2D(*id, levels, ifmt, w, h);
	GLenum e = gfx_gl_clear_errors(c);
	if (e != GL_NO_ERROR && *id) {
		c->gl.DeleteTextures(1, id);
		*id = 0;
	}
	return e;
}

GLenum gfx_gl_texture_sub_image_2d(gfx_egl_ctx *c, GLuint id, GLint level, GLsizei w, GLsizei h, GLenum fmt, GLenum type, const void *data) {
	c->gl.TextureSubImage2D(id, level, 0, 0, w, h, fmt, type, data);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_get_texture_image(gfx_egl_ctx *c, GLuint id, GLint level, GLenum fmt, GLenum type, GLsizei n, void *data) {
	c->gl.GetTextureImage(id, level, fmt, type, n, data);
	return gfx_gl_clear_errors(c);
}

GLenum gfx_gl_delete_texture(gfx_egl_ctx *c, GLuint id) {
	c->gl.DeleteTextures(1, &id);
	return gfx_gl_clear_errors(c);
}
