#include <stddef.h>
#include "cs.h"

gfx_cs_gl gfx_cs;

typedef void *(*gfx_cs_gpa)(const char *);

#define GFX_CS_LOAD(f, n) if (!(gfx_cs.f = (void *)gpa(n))) return 1;

int gfx_cs_load(void *p) {
	gfx_cs_gpa gpa = (gfx_cs_gpa)p;
	GFX_CS_LOAD(CreateShader, "glCreateShader")
	GFX_CS_LOAD(ShaderSource, "glShaderSource")
	GFX_CS_LOAD(CompileShader, "glCompileShader")
	GFX_CS_LOAD(GetShaderiv, "glGetShaderiv")
	GFX_CS_LOAD(GetShaderInfoLog, "glGetShaderInfoLog")
	GFX_CS_LOAD(DeleteShader, "glDeleteShader")
	GFX_CS_LOAD(CreateProgram, "glCreateProgram")
	GFX_CS_LOAD(AttachShader, "glAttachShader")
	GFX_CS_LOAD(LinkProgram, "glLinkProgram")
	GFX_CS_LOAD(GetProgramiv, "glGetProgramiv")
	GFX_CS_LOAD(GetProgramInfoLog, "glGetProgramInfoLog")
	GFX_CS_LOAD(DeleteProgram, "glDeleteProgram")
	GFX_CS_LOAD(GetUniformLocation, "glGetUniformLocation")
	GFX_CS_LOAD(UseProgram, "glUseProgram")
	GFX_CS_LOAD(ProgramUniform1i, "glProgramUniform1i")
	GFX_CS_LOAD(ProgramUniform1ui, "glProgramUniform1ui")
	GFX_CS_LOAD(ProgramUniform2ui, "glProgramUniform2ui")
	GFX_CS_LOAD(ProgramUniform4fv, "glProgramUniform4fv")
	GFX_CS_LOAD(BindBufferBase, "glBindBufferBase")
	GFX_CS_LOAD(BindBufferRange, "glBindBufferRange")
	GFX_CS_LOAD(ActiveTexture, "glActiveTexture")
	GFX_CS_LOAD(BindTexture, "glBindTexture")
	GFX_CS_LOAD(GenSamplers, "glGenSamplers")
	GFX_CS_LOAD(DeleteSamplers, "glDeleteSamplers")
	GFX_CS_LOAD(SamplerParameteri, "glSamplerParameteri")
	GFX_CS_LOAD(BindSampler, "glBindSampler")
	GFX_CS_LOAD(DispatchCompute, "glDispatchCompute")
	GFX_CS_LOAD(MemoryBarrier, "glMemoryBarrier")
	GFX_CS_LOAD(GetIntegerv, "glGetIntegerv")
	GFX_CS_LOAD(GetIntegeri_v, "glGetIntegeri_v")
	GFX_CS_LOAD(GetInteger64i_v, "glGetInteger64i_v")
	GFX_CS_LOAD(GetError, "glGetError")
	return 0;
}

GLenum gfx_cs_errors(void) {
	GLenum first = GL_NO_ERROR, e;
	int n = 0;
	while ((e = gfx_cs.GetError()) != GL_NO_ERROR && n++ < 64) {
		if (first == GL_NO_ERROR) first = e;
	}
	return first;
}

GLuint gfx_cs_build(const char *src, char *log, int logn) {
	GLint ok = 0;
	GLuint sh = gfx_cs.CreateShader(GL_COMPUTE_SHADER);
	if (!sh) return 0;
	gfx_cs.ShaderSource(sh, 1, &src, NULL);
	gfx_cs.CompileShader(sh);
	gfx_cs.GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		gfx_cs.GetShaderInfoLog(sh, logn, NULL, log);
		gfx_cs.DeleteShader(sh);
		return 0;
	}
	GLuint p = gfx_cs.CreateProgram();
	gfx_cs.AttachShader(p, sh);
	gfx_cs.LinkProgram(p);
	gfx_cs.DeleteShader(sh);
	gfx_cs.GetProgramiv(p, GL_LINK_STATUS, &ok);
	if (!ok) {
		gfx_cs.GetProgramInfoLog(p, logn, NULL, log);
		gfx_cs.DeleteProgram(p);
		return 0;
	}
	return p;
}

GLint gfx_cs_uniform(GLuint p, const char *name) { return gfx_cs.GetUniformLocation(p, name); }
