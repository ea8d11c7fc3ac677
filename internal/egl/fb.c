#include <string.h>
#include "fb.h"

#define GFX_FB_LOAD(field, name) \
	if (!(t->field = (void *)gfx_gl_get_proc(c, name))) return 1;

int gfx_fb_load(gfx_egl_ctx *c, gfx_gl_fb *t) {
	memset(t, 0, sizeof *t);
	GFX_FB_LOAD(IsTexture, "glIsTexture")
	GFX_FB_LOAD(IsRenderbuffer, "glIsRenderbuffer")
	GFX_FB_LOAD(IsFramebuffer, "glIsFramebuffer")
	GFX_FB_LOAD(GetTextureParameteriv, "glGetTextureParameteriv")
	GFX_FB_LOAD(GetTextureLevelParameteriv, "glGetTextureLevelParameteriv")
	GFX_FB_LOAD(GetNamedRenderbufferParameteriv, "glGetNamedRenderbufferParameteriv")
	GFX_FB_LOAD(GetNamedFramebufferAttachmentParameteriv, "glGetNamedFramebufferAttachmentParameteriv")
	GFX_FB_LOAD(CreateFramebuffers, "glCreateFramebuffers")
	GFX_FB_LOAD(DeleteFramebuffers, "glDeleteFramebuffers")
	GFX_FB_LOAD(NamedFramebufferTexture, "glNamedFramebufferTexture")
	GFX_FB_LOAD(NamedFramebufferTextureLayer, "glNamedFramebufferTextureLayer")
	GFX_FB_LOAD(NamedFramebufferRenderbuffer, "glNamedFramebufferRenderbuffer")
	GFX_FB_LOAD(NamedFramebufferReadBuffer, "glNamedFramebufferReadBuffer")
	GFX_FB_LOAD(NamedFramebufferDrawBuffer, "glNamedFramebufferDrawBuffer")
	GFX_FB_LOAD(CheckNamedFramebufferStatus, "glCheckNamedFramebufferStatus")
	GFX_FB_LOAD(BlitNamedFramebuffer, "glBlitNamedFramebuffer")
	GFX_FB_LOAD(IsEnabled, "glIsEnabled")
	GFX_FB_LOAD(Enable, "glEnable")
	GFX_FB_LOAD(Disable, "glDisable")
	return 0;
}

static GLenum first_error(gfx_egl_ctx *c) { return gfx_gl_clear_errors(c); }

GLenum gfx_fb_texture(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint name, gfx_fb_desc *d) {
	memset(d, 0, sizeof *d);
	first_error(c);
	if (!name || !t->IsTexture(name)) return GL_INVALID_VALUE;
	t->GetTextureParameteriv(name, GL_TEXTURE_TARGET, &d->target);
	GLenum e = first_error(c);
	if (e) return e;
	t->GetTextureLevelParameteriv(name, 0, GL_TEXTURE_WIDTH, &d->width);
	t->GetTextureLevelParameteriv(name, 0, GL_TEXTURE_HEIGHT, &d->height);
	t->GetTextureLevelParameteriv(name, 0, GL_TEXTURE_DEPTH, &d->depth);
	t->GetTextureLevelParameteriv(name, 0, GL_TEXTURE_SAMPLES, &d->samples);
	t->GetTextureLevelParameteriv(name, 0, GL_TEXTURE_INTERNAL_FORMAT, &d->internal_format);
	d->type = GL_TEXTURE;
	d->name = (GLint)name;
	return first_error(c);
}

GLenum gfx_fb_renderbuffer(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint name, gfx_fb_desc *d) {
	memset(d, 0, sizeof *d);
	first_error(c);
	if (!name || !t->IsRenderbuffer(name)) return GL_INVALID_VALUE;
	d->target = GL_RENDERBUFFER;
	t->GetNamedRenderbufferParameteriv(name, GL_RENDERBUFFER_WIDTH, &d->width);
	t->GetNamedRenderbufferParameteriv(name, GL_RENDERBUFFER_HEIGHT, &d->height);
	t->GetNamedRenderbufferParameteriv(name, GL_RENDERBUFFER_SAMPLES, &d->samples);
	t->GetNamedRenderbufferParameteriv(name, GL_RENDERBUFFER_INTERNAL_FORMAT, &d->internal_format);
	d->depth = 1;
	d->type = GL_RENDERBUFFER;
	d->name = (GLint)name;
	return first_error(c);
}

GLenum gfx_fb_attachment(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint fb, GLenum attachment, gfx_fb_desc *d) {
	GLint type = GL_NONE, name = 0, level = 0, layer = 0, layered = 0;
	memset(d, 0, sizeof *d);
	first_error(c);
	if (!fb || !t->IsFramebuffer(fb)) return GL_INVALID_VALUE;
	t->GetNamedFramebufferAttachmentParameteriv(fb, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
	GLenum e = first_error(c);
	if (e) return e;
	if (type == GL_NONE) return GL_NO_ERROR;
	t->GetNamedFramebufferAttachmentParameteriv(fb, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
	if (type == GL_TEXTURE) {
		t->GetNamedFramebufferAttachmentParameteriv(fb, attachment, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL, &level);
		t->GetNamedFramebufferAttachmentParameteriv(fb, attachment, GL_FRAMEBUFFER_ATTACHMENT_LAYERED, &layered);
		t->GetNamedFramebufferAttachmentParameteriv(fb, attachment, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LAYER, &layer);
		first_error(c); // LAYER is an error for textures without layers on some drivers
		e = gfx_fb_texture(t, c, (GLuint)name, d);
		if (e) return e;
		if (level) {
			t->GetTextureLevelParameteriv((GLuint)name, level, GL_TEXTURE_WIDTH, &d->width);
			t->GetTextureLevelParameteriv((GLuint)name, level, GL_TEXTURE_HEIGHT, &d->height);
		}
	} else if (type == GL_RENDERBUFFER) {
		e = gfx_fb_renderbuffer(t, c, (GLuint)name, d);
		if (e) return e;
	} else {
		d->type = type; // GL_FRAMEBUFFER_DEFAULT cannot happen for fb > 0
		return GL_NO_ERROR;
	}
	d->level = level;
	d->layer = layered ? 0 : layer;
	return first_error(c);
}

GLenum gfx_fb_create(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint *fb) {
	first_error(c);
	t->CreateFramebuffers(1, fb);
	return first_error(c);
}

GLenum gfx_fb_delete(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint fb) {
	first_error(c);
	t->DeleteFramebuffers(1, &fb);
	return first_error(c);
}

GLenum gfx_fb_blit(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint read_fb, GLuint draw_fb, GLenum src_type, GLuint src,
                   GLint level, GLint layer, GLuint dst, GLint w, GLint h, GLbitfield mask, GLenum *status) {
	GLenum att = mask == GL_DEPTH_BUFFER_BIT ? GL_DEPTH_ATTACHMENT : GL_COLOR_ATTACHMENT0;
	GLenum e = gfx_fb_attach(t, c, read_fb, 1, src_type, src, level, layer, mask, status);
	if (!e) e = gfx_fb_attach(t, c, draw_fb, 0, GL_TEXTURE, dst, 0, 0, mask, status);
	if (!e) e = gfx_fb_blit_attached(t, c, read_fb, draw_fb, w, h, mask, 0);
	// Detach: these framebuffers hold no reference to the caller's objects.
	if (src_type == GL_RENDERBUFFER) {
		t->NamedFramebufferRenderbuffer(read_fb, att, GL_RENDERBUFFER, 0);
	} else {
		t->NamedFramebufferTexture(read_fb, att, 0, 0);
	}
	t->NamedFramebufferTexture(draw_fb, att, 0, 0);
	first_error(c);
	return e;
}

GLenum gfx_fb_attach(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint fb, int read, GLenum src_type, GLuint src, GLint level,
                     GLint layer, GLbitfield mask, GLenum *status) {
	GLenum att = mask == GL_DEPTH_BUFFER_BIT ? GL_DEPTH_ATTACHMENT : GL_COLOR_ATTACHMENT0;
	GLenum e;
	*status = GL_FRAMEBUFFER_COMPLETE;
	first_error(c);
	if (src_type == GL_RENDERBUFFER) {
		t->NamedFramebufferRenderbuffer(fb, att, GL_RENDERBUFFER, src);
	} else if (layer > 0) {
		t->NamedFramebufferTextureLayer(fb, att, src, level, layer);
	} else {
		t->NamedFramebufferTexture(fb, att, src, level);
	}
	GLenum buf = att == GL_COLOR_ATTACHMENT0 ? GL_COLOR_ATTACHMENT0 : GL_NONE;
	if (read) {
		t->NamedFramebufferReadBuffer(fb, buf);
	} else {
		t->NamedFramebufferDrawBuffer(fb, buf);
	}
	if ((e = first_error(c))) return e;
	GLenum st = t->CheckNamedFramebufferStatus(fb, read ? GL_READ_FRAMEBUFFER : GL_DRAW_FRAMEBUFFER);
	if (st != GL_FRAMEBUFFER_COMPLETE) {
		*status = st;
		return GL_INVALID_FRAMEBUFFER_OPERATION;
	}
	return first_error(c);
}

GLenum gfx_fb_blit_attached(gfx_gl_fb *t, gfx_egl_ctx *c, GLuint read_fb, GLuint draw_fb, GLint w, GLint h,
                            GLbitfield mask, int flip) {
	GLboolean scissor = t->IsEnabled(GL_SCISSOR_TEST);
	GLboolean srgb = t->IsEnabled(GL_FRAMEBUFFER_SRGB);
	GLboolean discard = t->IsEnabled(GL_RASTERIZER_DISCARD);
	first_error(c); // GL_FRAMEBUFFER_SRGB is unknown on GLES
	if (scissor) t->Disable(GL_SCISSOR_TEST);
	if (srgb) t->Disable(GL_FRAMEBUFFER_SRGB);
	if (discard) t->Disable(GL_RASTERIZER_DISCARD);
	t->BlitNamedFramebuffer(read_fb, draw_fb, 0, 0, w, h, 0, flip ? h : 0, w, flip ? 0 : h, mask, GL_NEAREST);
	GLenum e = first_error(c);
	if (scissor) t->Enable(GL_SCISSOR_TEST);
	if (srgb) t->Enable(GL_FRAMEBUFFER_SRGB);
	if (discard) t->Enable(GL_RASTERIZER_DISCARD);
	return e;
}

int gfx_fb_alive(gfx_gl_fb *t, GLenum type, GLuint name) {
	return type == GL_RENDERBUFFER ? t->IsRenderbuffer(name) == GL_TRUE : t->IsTexture(name) == GL_TRUE;
}
