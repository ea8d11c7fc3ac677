#define _GNU_SOURCE
#ifdef _WIN32
// No GLX on Windows: every open fails with this reason (gfx_glx_open), so
// no slot ever has entry points and the rest finds none.
#define RTLD_NOW 0
#define RTLD_LOCAL 0
#define RTLD_NOLOAD 0
static const char *win_err = "GLX is not supported on Windows";
static void *dlopen(const char *name, int flags) { (void)name; (void)flags; return 0; }
static const char *dlerror(void) { return win_err; }
static void *dlsym(void *h, const char *name) { (void)h; (void)name; return 0; }
static int dlclose(void *h) { (void)h; return 0; }
#else
#include <dlfcn.h>
#endif
#include <string.h>
#include "glx.h"

// The GLX entry points of each library slot. A slot's pointers are set
// once, under glx.go's lock, and never change after.
typedef void *(*gfx_glx_get_current_fn)(void);
typedef void *(*gfx_glx_get_proc_fn)(const unsigned char *name);
static struct {
	void *handle;
	gfx_glx_get_current_fn GetCurrentContext;
	gfx_glx_get_current_fn GetCurrentDisplay;
	gfx_glx_get_proc_fn GetProcAddress;
} glx[GFX_GLX_NLIB];

int gfx_glx_open(int i, const char *name, int noload, const char **err) {
	*err = NULL;
	if (i < 0 || i >= GFX_GLX_NLIB) return 1;
	if (glx[i].GetCurrentContext) return 0;
	void *h = glx[i].handle;
	if (!h) {
		dlerror();
		h = dlopen(name, RTLD_NOW | RTLD_LOCAL | (noload ? RTLD_NOLOAD : 0));
		if (!h) {
			*err = dlerror();
			return 1;
		}
		glx[i].handle = h;
	}
	gfx_glx_get_proc_fn proc = (gfx_glx_get_proc_fn)dlsym(h, "glXGetProcAddressARB");
	if (!proc) proc = (gfx_glx_get_proc_fn)dlsym(h, "glXGetProcAddress");
	gfx_glx_get_current_fn cur = (gfx_glx_get_current_fn)dlsym(h, "glXGetCurrentContext");
	gfx_glx_get_current_fn dpy = (gfx_glx_get_current_fn)dlsym(h, "glXGetCurrentDisplay");
	if (!proc || !cur || !dpy) return 2;
	glx[i].GetProcAddress = proc;
	glx[i].GetCurrentDisplay = dpy;
	glx[i].GetCurrentContext = cur;
	return 0;
}

uintptr_t gfx_glx_current(int i) {
	if (i < 0 || i >= GFX_GLX_NLIB || !glx[i].GetCurrentContext) return 0;
	return (uintptr_t)glx[i].GetCurrentContext();
}

int gfx_glx_adopt(gfx_egl_ctx *c, int i) {
	memset(c, 0, sizeof *c);
	c->adopted = 1;
	if (i < 0 || i >= GFX_GLX_NLIB || !glx[i].GetCurrentContext) return GFX_EGL_STAGE_NO_CURRENT;
	c->ctx = glx[i].GetCurrentContext();
	if (!c->ctx) return GFX_EGL_STAGE_NO_CURRENT;
	// c->dpy holds the X Display of a GLX context: never an EGLDisplay.
	c->dpy = glx[i].GetCurrentDisplay();
	c->glx = i + 1;
	c->get_proc = gfx_glx_proc;
	if (gfx_egl_load_gl(c)) return GFX_EGL_STAGE_GL_ENTRY;
	return 0;
}

void *gfx_glx_proc(int lib, const char *name) {
	if (lib < 1 || lib > GFX_GLX_NLIB || !glx[lib - 1].GetProcAddress) return NULL;
	return glx[lib - 1].GetProcAddress((const unsigned char *)name);
}

int gfx_ctx_is_current(gfx_egl_ctx *c) {
	if (!c || !c->ctx) return 0;
	if (c->glx) return gfx_glx_current(c->glx - 1) == (uintptr_t)c->ctx;
	return gfx_egl_current() == (uintptr_t)c->ctx;
}

const char *gfx_glx_display_name(gfx_egl_ctx *c) {
	typedef char *(*display_string_fn)(void *dpy);
	if (!c->glx || !c->dpy) return NULL;
	// Only a libX11 the process already has: the caller's X display came
	// from it.
	void *h = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!h) return NULL;
	display_string_fn f = (display_string_fn)dlsym(h, "XDisplayString");
	const char *s = f ? f(c->dpy) : NULL;
	dlclose(h); // drops the reference RTLD_NOLOAD took; libX11 stays loaded
	return s;
}
