#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glxtest.h"

#if __has_include(<X11/Xlib.h>) && __has_include(<GL/glx.h>)
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <GL/glx.h>
#include <GL/glxext.h>

#define FN(name) static __typeof__(name) *p_##name;
FN(XOpenDisplay)
FN(XCloseDisplay)
FN(XSetErrorHandler)
FN(XSync)
FN(XFree)
FN(XCreateColormap)
FN(XFreeColormap)
FN(XCreateWindow)
FN(XDestroyWindow)
FN(XMapWindow)
FN(glXChooseFBConfig)
FN(glXGetVisualFromFBConfig)
FN(glXCreateNewContext)
FN(glXMakeCurrent)
FN(glXDestroyContext)
FN(glXGetCurrentContext)
FN(glXGetProcAddressARB)
FN(glXQueryExtension)
#undef FN

static struct {
	__typeof__(glGenTextures) *GenTextures;
	__typeof__(glBindTexture) *BindTexture;
	__typeof__(glTexImage2D) *TexImage2D;
	__typeof__(glGetTexImage) *GetTexImage;
	__typeof__(glDeleteTextures) *DeleteTextures;
	__typeof__(glPixelStorei) *PixelStorei;
	__typeof__(glGetIntegerv) *GetIntegerv;
	__typeof__(glGetError) *GetError;
	__typeof__(glGetString) *GetString;
	__typeof__(glTexParameteri) *TexParameteri;
} gl;

struct glxt {
	Display *dpy;
	Colormap cmap;
	Window win;
	GLXContext ctx;
};

int glxt_available(void) { return 1; }

static int xerror;
static int on_xerror(Display *d, XErrorEvent *e) {
	(void)d;
	xerror = e->error_code;
	return 0;
}

static int loaded;
static int load(char *err, int n) {
	if (loaded) return 0;
	void *x = dlopen("libX11.so.6", RTLD_NOW | RTLD_GLOBAL);
	if (!x) {
		snprintf(err, n, "libX11.so.6: %s", dlerror());
		return 1;
	}
	void *g = dlopen("libGLX.so.0", RTLD_NOW | RTLD_GLOBAL);
	if (!g) g = dlopen("libGL.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!g) {
		snprintf(err, n, "neither libGLX.so.0 nor libGL.so.1: %s", dlerror());
		return 1;
	}
#define SYM(h, name) \
	if (!(p_##name = (__typeof__(p_##name))dlsym(h, #name))) { \
		snprintf(err, n, "%s missing", #name); \
		return 1; \
	}
	SYM(x, XOpenDisplay)
	SYM(x, XCloseDisplay)
	SYM(x, XSetErrorHandler)
	SYM(x, XSync)
	SYM(x, XFree)
	SYM(x, XCreateColormap)
	SYM(x, XFreeColormap)
	SYM(x, XCreateWindow)
	SYM(x, XDestroyWindow)
	SYM(x, XMapWindow)
	SYM(g, glXChooseFBConfig)
	SYM(g, glXGetVisualFromFBConfig)
	SYM(g, glXCreateNewContext)
	SYM(g, glXMakeCurrent)
	SYM(g, glXDestroyContext)
	SYM(g, glXGetCurrentContext)
	SYM(g, glXGetProcAddressARB)
	SYM(g, glXQueryExtension)
#undef SYM
#define GLP(field, name) \
	if (!(gl.field = (__typeof__(gl.field))p_glXGetProcAddressARB((const GLubyte *)name))) { \
		snprintf(err, n, "%s missing", name); \
		return 1; \
	}
	GLP(GenTextures, "glGenTextures")
	GLP(BindTexture, "glBindTexture")
	GLP(TexImage2D, "glTexImage2D")
	GLP(GetTexImage, "glGetTexImage")
	GLP(DeleteTextures, "glDeleteTextures")
	GLP(PixelStorei, "glPixelStorei")
	GLP(GetIntegerv, "glGetIntegerv")
	GLP(GetError, "glGetError")
	GLP(GetString, "glGetString")
	GLP(TexParameteri, "glTexParameteri")
#undef GLP
	p_XSetErrorHandler(on_xerror);
	loaded = 1;
	return 0;
}

glxt *glxt_new(const char *display, int core, int w, int h, char *err, int n) {
	if (load(err, n)) return NULL;
	glxt *t = calloc(1, sizeof *t);
	t->dpy = p_XOpenDisplay(display);
	if (!t->dpy) {
		snprintf(err, n, "XOpenDisplay(%s) failed", display);
		free(t);
		return NULL;
	}
	int eb, ev;
	if (!p_glXQueryExtension(t->dpy, &eb, &ev)) {
		snprintf(err, n, "the X server on %s has no GLX extension", display);
		glxt_destroy(t);
		return NULL;
	}
	const int fbattrs[] = {
		GLX_X_RENDERABLE, True, GLX_DRAWABLE_TYPE, GLX_WINDOW_BIT, GLX_RENDER_TYPE, GLX_RGBA_BIT,
		GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8, GLX_BLUE_SIZE, 8, GLX_DEPTH_SIZE, 24, GLX_DOUBLEBUFFER, True, None,
	};
	int nc = 0;
	GLXFBConfig *cfgs = p_glXChooseFBConfig(t->dpy, DefaultScreen(t->dpy), fbattrs, &nc);
	if (!cfgs || nc < 1) {
		snprintf(err, n, "glXChooseFBConfig found no RGBA8 window config on %s", display);
		glxt_destroy(t);
		return NULL;
	}
	GLXFBConfig cfg = cfgs[0];
	p_XFree(cfgs);
	XVisualInfo *vi = p_glXGetVisualFromFBConfig(t->dpy, cfg);
	if (!vi) {
		snprintf(err, n, "glXGetVisualFromFBConfig failed");
		glxt_destroy(t);
		return NULL;
	}
	Window root = RootWindow(t->dpy, vi->screen);
	t->cmap = p_XCreateColormap(t->dpy, root, vi->visual, AllocNone);
	XSetWindowAttributes swa;
	memset(&swa, 0, sizeof swa);
	swa.colormap = t->cmap;
	swa.event_mask = StructureNotifyMask;
	t->win = p_XCreateWindow(t->dpy, root, 0, 0, w, h, 0, vi->depth, InputOutput, vi->visual, CWBorderPixel | CWColormap | CWEventMask, &swa);
	p_XFree(vi);
	p_XMapWindow(t->dpy, t->win);
	xerror = 0;
	if (core) {
		PFNGLXCREATECONTEXTATTRIBSARBPROC create = (PFNGLXCREATECONTEXTATTRIBSARBPROC)p_glXGetProcAddressARB((const GLubyte *)"glXCreateContextAttribsARB");
		const int attrs[] = {
			GLX_CONTEXT_MAJOR_VERSION_ARB, 4, GLX_CONTEXT_MINOR_VERSION_ARB, 5,
			GLX_CONTEXT_PROFILE_MASK_ARB, GLX_CONTEXT_CORE_PROFILE_BIT_ARB, None,
		};
		if (create) t->ctx = create(t->dpy, cfg, NULL, True, attrs);
	} else {
		t->ctx = p_glXCreateNewContext(t->dpy, cfg, GLX_RGBA_TYPE, NULL, True);
	}
	p_XSync(t->dpy, False);
	if (!t->ctx || xerror) {
		snprintf(err, n, "creating a GLX %s context failed (X error %d)", core ? "4.5 core" : "default", xerror);
		glxt_destroy(t);
		return NULL;
	}
	if (glxt_make_current(t, 1)) {
		snprintf(err, n, "glXMakeCurrent failed (X error %d)", xerror);
		glxt_destroy(t);
		return NULL;
	}
	return t;
}

int glxt_make_current(glxt *t, int on) {
	xerror = 0;
	Bool ok = on ? p_glXMakeCurrent(t->dpy, t->win, t->ctx) : p_glXMakeCurrent(t->dpy, None, NULL);
	p_XSync(t->dpy, False);
	return ok && !xerror ? 0 : 1;
}

int glxt_is_current(glxt *t) { return t->ctx && p_glXGetCurrentContext() == t->ctx; }
uintptr_t glxt_handle(glxt *t) { return (uintptr_t)t->ctx; }
const char *glxt_string(glxt *t, unsigned name) {
	(void)t;
	return (const char *)gl.GetString(name);
}

static void drain(void) {
	for (int i = 0; i < 64 && gl.GetError() != GL_NO_ERROR; i++) {
	}
}

unsigned glxt_texture(glxt *t, int w, int h, const void *rgba, unsigned *e) {
	(void)t;
	GLuint id = 0;
	GLint old = 0;
	drain();
	gl.GetIntegerv(GL_TEXTURE_BINDING_2D, &old);
	gl.GenTextures(1, &id);
	gl.BindTexture(GL_TEXTURE_2D, id);
	gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1);
	gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
	gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
	gl.PixelStorei(GL_UNPACK_ALIGNMENT, 4);
	gl.BindTexture(GL_TEXTURE_2D, old);
	*e = gl.GetError();
	if (*e) {
		gl.DeleteTextures(1, &id);
		return 0;
	}
	return id;
}

unsigned glxt_read_texture(glxt *t, unsigned name, void *out) {
	(void)t;
	GLint old = 0;
	drain();
	gl.GetIntegerv(GL_TEXTURE_BINDING_2D, &old);
	gl.BindTexture(GL_TEXTURE_2D, name);
	gl.PixelStorei(GL_PACK_ALIGNMENT, 1);
	gl.GetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, out);
	gl.PixelStorei(GL_PACK_ALIGNMENT, 4);
	gl.BindTexture(GL_TEXTURE_2D, old);
	return gl.GetError();
}

unsigned glxt_delete_texture(glxt *t, unsigned name) {
	(void)t;
	drain();
	gl.DeleteTextures(1, &name);
	return gl.GetError();
}

int glxt_binding(glxt *t) {
	(void)t;
	GLint v = 0;
	gl.GetIntegerv(GL_TEXTURE_BINDING_2D, &v);
	return v;
}

void glxt_destroy(glxt *t) {
	if (!t) return;
	if (t->ctx) {
		if (p_glXGetCurrentContext() == t->ctx) p_glXMakeCurrent(t->dpy, None, NULL);
		p_glXDestroyContext(t->dpy, t->ctx);
	}
	if (t->win) p_XDestroyWindow(t->dpy, t->win);
	if (t->cmap) p_XFreeColormap(t->dpy, t->cmap);
	if (t->dpy) p_XCloseDisplay(t->dpy);
	free(t);
}

#else // no X11 or GLX headers: every context fails to open, saying why.

int glxt_available(void) { return 0; }

glxt *glxt_new(const char *display, int core, int w, int h, char *err, int n) {
	(void)display, (void)core, (void)w, (void)h;
	snprintf(err, n, "built without X11/GLX headers (install libgl-dev libx11-dev)");
	return NULL;
}
int glxt_make_current(glxt *t, int on) { (void)t, (void)on; return 1; }
int glxt_is_current(glxt *t) { (void)t; return 0; }
uintptr_t glxt_handle(glxt *t) { (void)t; return 0; }
const char *glxt_string(glxt *t, unsigned name) { (void)t, (void)name; return ""; }
unsigned glxt_texture(glxt *t, int w, int h, const void *rgba, unsigned *e) { (void)t, (void)w, (void)h, (void)rgba; *e = 1; return 0; }
unsigned glxt_read_texture(glxt *t, unsigned name, void *out) { (void)t, (void)name, (void)out; return 1; }
unsigned glxt_delete_texture(glxt *t, unsigned name) { (void)t, (void)name; return 1; }
int glxt_binding(glxt *t) { (void)t; return 0; }
void glxt_destroy(glxt *t) { (void)t; }

#endif
