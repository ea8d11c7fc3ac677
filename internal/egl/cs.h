// Compute-shader GL of package egl (pattern.go, convert.go): the entry
// points their programs use (context-independent pointers from
// eglGetProcAddress, loaded once) and building a compute program.
#ifndef GFX_CS_H
#define GFX_CS_H

#include <GL/glcorearb.h>

typedef struct {
	PFNGLCREATESHADERPROC CreateShader;
	PFNGLSHADERSOURCEPROC ShaderSource;
	PFNGLCOMPILESHADERPROC CompileShader;
	PFNGLGETSHADERIVPROC GetShaderiv;
	PFNGLGETSHADERINFOLOGPROC GetShaderInfoLog;
	PFNGLDELETESHADERPROC DeleteShader;
	PFNGLCREATEPROGRAMPROC CreateProgram;
	PFNGLATTACHSHADERPROC AttachShader;
	PFNGLLINKPROGRAMPROC LinkProgram;
	PFNGLGETPROGRAMIVPROC GetProgramiv;
	PFNGLGETPROGRAMINFOLOGPROC GetProgramInfoLog;
	PFNGLDELETEPROGRAMPROC DeleteProgram;
	PFNGLGETUNIFORMLOCATIONPROC GetUniformLocation;
	PFNGLUSEPROGRAMPROC UseProgram;
	PFNGLPROGRAMUNIFORM1IPROC ProgramUniform1i;
	PFNGLPROGRAMUNIFORM1UIPROC ProgramUniform1ui;
	PFNGLPROGRAMUNIFORM2UIPROC ProgramUniform2ui;
	PFNGLPROGRAMUNIFORM4FVPROC ProgramUniform4fv;
	PFNGLBINDBUFFERBASEPROC BindBufferBase;
	PFNGLBINDBUFFERRANGEPROC BindBufferRange;
	PFNGLACTIVETEXTUREPROC ActiveTexture;
	PFNGLBINDTEXTUREPROC BindTexture;
	PFNGLGENSAMPLERSPROC GenSamplers;
	PFNGLDELETESAMPLERSPROC DeleteSamplers;
	PFNGLSAMPLERPARAMETERIPROC SamplerParameteri;
	PFNGLBINDSAMPLERPROC BindSampler;
	PFNGLDISPATCHCOMPUTEPROC DispatchCompute;
	PFNGLMEMORYBARRIERPROC MemoryBarrier;
	PFNGLGETINTEGERVPROC GetIntegerv;
	PFNGLGETINTEGERI_VPROC GetIntegeri_v;
	PFNGLGETINTEGER64I_VPROC GetInteger64i_v;
	PFNGLGETERRORPROC GetError;
} gfx_cs_gl;

extern gfx_cs_gl gfx_cs;

// gfx_cs_load fills gfx_cs through gpa (eglGetProcAddress); 1 when an
// entry point is missing (no GL 4.3).
int gfx_cs_load(void *gpa);
// gfx_cs_errors drains GL's error flags and returns the first.
GLenum gfx_cs_errors(void);
// gfx_cs_build compiles and links a compute program; 0 on failure, with
// the driver's log in log.
GLuint gfx_cs_build(const char *src, char *log, int logn);
GLint gfx_cs_uniform(GLuint p, const char *name);

#endif
