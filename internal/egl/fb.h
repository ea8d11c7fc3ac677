// Framebuffer-side GL of package egl (fb.go): what a renderer's own
// textures, renderbuffers and framebuffers are, and blits out of them.
// Direct state access only (GL 4.5 or ARB_direct_state_access): nothing
// here changes the caller's bindings.
#ifndef GFX_FB_H
#define GFX_FB_H

#include "egl.h"

typedef struct {
	PFNGLISTEXTUREPROC IsTexture;
	PFNGLISRENDERBUFFERPROC IsRenderbuffer;
	PFNGLISFRAMEBUFFERPROC IsFramebuffer;
	PFNGLGETTEXTUREPARAMETERIVPROC GetTextureParameteriv;
	PFNGLGETTEXTURELEVELPARAMETERIVPROC GetTextureLevelParameteriv;
	PFNGLGETNAMEDRENDERBUFFERPARAMETERIVPROC GetNamedRenderbufferParameteriv;
	PFNGLGETNAMEDFRAMEBUFFERATTACHMENTPARAMETERIVPROC GetNamedFramebufferAttachmentParameteriv;
	PFNGLCREATEFRAMEBUFFERSPROC CreateFramebuffers;
	PFNGLDELETEFRAMEBUFFERSPROC DeleteFramebuffers;
	PFNGLNAMEDFRAMEBUFFERTEXTUREPROC NamedFramebufferTexture;
	PFNGLNAMEDFRAMEBUFFERTEXTURELAYERPROC NamedFramebufferTextureLayer;
	PFNGLNAMEDFRAMEBUFFERRENDERBUFFERPROC NamedFramebufferRenderbuffer;
	PFNGLNAMEDFRAMEBUFFERREADBUFFERPROC NamedFramebufferReadBuffer;
	PFNGLNAMEDFRAMEBUFFERDRAWBUFFERPROC NamedFramebufferDrawBuffer;
	PFNGLCHECKNAMEDFRAMEBUFFERSTATUSPROC CheckNamedFramebufferStatus;
	PFNGLBLITNAMEDFRAMEBUFFERPROC BlitNamedFramebuffer;
	PFNGLISENABLEDPROC IsEnabled;
	PFNGLENABLEPROC Enable;
	PFNGLDISABLEPROC Disable;
} gfx_gl_fb;

// gfx_fb_load fills t through the context's GetProcAddress; 0 on success,
// 1 when an entry point is missing.
int gfx_fb_load(gfx_egl_ctx *c, gfx_gl_fb *t);

// An object's description (level 0 for textures).
typedef struct {
	GLint target;  // texture target (GL_TEXTURE_2D, ...); GL_RENDERBUFFER
	GLint width, height, depth, samples;
	GLint internal_format;
	GLint type;    // GL_TEXTURE or GL_RENDERBUFFER (attachments)
	GLint name;    // the object (attachments)
	GLint level, layer; // attachments: the attached level and layer
} gfx_fb_desc;

// gfx_fb_texture describes texture name; returns a GL error, or
// GL_INVALID_VALUE when name is not a texture.
GLenum gfx_fb_texture(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint name, gfx_fb_desc *d);
GLenum gfx_fb_renderbuffer(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint name, gfx_fb_desc *d);
// gfx_fb_attachment describes what is attached to attachment of
// framebuffer fb (> 0): type GL_NONE when nothing is.
GLenum gfx_fb_attachment(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint fb, GLenum attachment, gfx_fb_desc *d);

// gfx_fb_blit copies a w x h region of src (a texture or renderbuffer,
// src_type GL_TEXTURE or GL_RENDERBUFFER, level/layer for textures) into
// dst (a 2D texture) through two framebuffers the caller owns (read_fb,
// draw_fb), resolving multisampled sources; mask GL_COLOR_BUFFER_BIT or
// GL_DEPTH_BUFFER_BIT. The scissor test, framebuffer sRGB and rasterizer
// discard are off during the blit and put back after. Returns a GL error,
// or GL_INVALID_FRAMEBUFFER_OPERATION when a framebuffer is incomplete
// (*status says why).
GLenum gfx_fb_blit(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint read_fb, GLuint draw_fb, GLenum src_type, GLuint src,
                   GLint level, GLint layer, GLuint dst, GLint w, GLint h, GLbitfield mask, GLenum *status);
// gfx_fb_attach attaches src (src_type GL_TEXTURE or GL_RENDERBUFFER; a
// texture's level and layer) to framebuffer fb as its read (read != 0) or
// draw attachment for mask, and checks fb: returns a GL error, or
// GL_INVALID_FRAMEBUFFER_OPERATION with *status when it is incomplete.
GLenum gfx_fb_attach(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint fb, int read, GLenum src_type, GLuint src, GLint level,
                     GLint layer, GLbitfield mask, GLenum *status);
// gfx_fb_blit_attached blits w x h from read_fb to draw_fb (attached
// before), with the scissor test, framebuffer sRGB and rasterizer discard
// off for the blit and put back; flip != 0 writes the rows upside down
// (single-sampled reads only: GL refuses to flip a resolve).
GLenum gfx_fb_blit_attached(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint read_fb, GLuint draw_fb, GLint w, GLint h,
                            GLbitfield mask, int flip);
// gfx_fb_alive reports whether name is still a texture (GL_TEXTURE) or
// renderbuffer of the context.
int gfx_fb_alive(gfx_gl_fb *t, GLenum type, GLuint name);
GLenum gfx_fb_create(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint *fb);
GLenum gfx_fb_delete(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint fb);

#endif
