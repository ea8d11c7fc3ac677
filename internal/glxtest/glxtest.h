// Test-only GLX contexts on an X11 window (glxtest.go). libX11 and the GLX
// library are opened with dlopen; X11 and GLX headers give the types.
#ifndef GFX_GLXTEST_H
#define GFX_GLXTEST_H

#include <stdint.h>

typedef struct glxt glxt;

// glxt_available is 0 when the package was built without X11/GLX headers.
int glxt_available(void);

// glxt_new opens display, makes a w×h window and a GLX context on it
// (OpenGL 4.5 core through glXCreateContextAttribsARB when core is set,
// else glXCreateNewContext's default context) and makes it current on
// the calling thread. NULL on failure, with the reason in err.
glxt *glxt_new(const char *display, int core, int w, int h, char *err, int errlen);
// glxt_make_current makes t's context current (1) or releases the
// thread's current context (0); 0 on success.
int glxt_make_current(glxt *t, int on);
// glxt_is_current reports whether t's context is current on this thread.
int glxt_is_current(glxt *t);
uintptr_t glxt_handle(glxt *t);
const char *glxt_string(glxt *t, unsigned name);
// glxt_texture makes an RGBA8 w×h texture holding rgba (through t's own
// GL entry points); its name, or 0 with the GL error in *gl_error.
unsigned glxt_texture(glxt *t, int w, int h, const void *rgba, unsigned *gl_error);
// glxt_read_texture reads level 0 of texture name (RGBA8, w×h) into out;
// the GL error, or 0.
unsigned glxt_read_texture(glxt *t, unsigned name, void *out);
unsigned glxt_delete_texture(glxt *t, unsigned name);
// glxt_binding is GL_TEXTURE_BINDING_2D.
int glxt_binding(glxt *t);
// glxt_destroy releases and destroys the context, the window and the
// display connection.
void glxt_destroy(glxt *t);

#endif
