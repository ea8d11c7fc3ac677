// GLX side of package egl (glx.go): adopting the caller's current GLX
// context. Nothing links against libGLX or libGL: the GLX library the
// caller's context came from is found with dlopen at run time, and GL entry
// points come from its glXGetProcAddressARB. No X11 or GLX header is
// needed: GLX handles are opaque pointers here.
#ifndef GFX_GLX_H
#define GFX_GLX_H

#include "egl.h"

// GFX_GLX_NLIB GLX libraries can be tried (glx.go names them).
#define GFX_GLX_NLIB 3

// gfx_glx_open dlopens GLX library slot i as name (with RTLD_NOLOAD when
// noload is set: only a library the process has already loaded) and
// resolves glXGetCurrentContext, glXGetCurrentDisplay and
// glXGetProcAddressARB (or glXGetProcAddress). It returns 0, 1 when the
// library cannot be opened (*err: dlerror's message, or NULL) or 2 when it
// lacks one of those. A slot once opened stays open.
int gfx_glx_open(int i, const char *name, int noload, const char **err);
// gfx_glx_current is glXGetCurrentContext of slot i (0: none, or the slot
// is not open).
uintptr_t gfx_glx_current(int i);
// gfx_glx_adopt fills c from the GLX context current on the calling
// thread, as slot i's library sees it; it returns 0 or the stage that
// failed (GFX_EGL_STAGE_NO_CURRENT, GFX_EGL_STAGE_GL_ENTRY).
int gfx_glx_adopt(gfx_egl_ctx *c, int i);
// gfx_glx_proc looks a GL entry point up with the glXGetProcAddressARB of
// slot lib-1 (lib is gfx_egl_ctx.glx).
void *gfx_glx_proc(int lib, const char *name);
// gfx_ctx_is_current reports whether c's context (EGL or GLX) is current
// on the calling thread.
int gfx_ctx_is_current(gfx_egl_ctx *c);
// gfx_egl_load_gl fills c's GL table (egl.c's load_gl), through
// gfx_glx_proc when c->glx is set.
int gfx_egl_load_gl(gfx_egl_ctx *c);
// gfx_glx_display_name is the X display's name (XDisplayString, from an
// already loaded libX11), or NULL when unknown.
const char *gfx_glx_display_name(gfx_egl_ctx *c);

#endif
