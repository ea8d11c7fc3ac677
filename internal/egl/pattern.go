package egl

/*
#include <stdint.h>
#include <stdlib.h>
#include <GL/glcorearb.h>

typedef void *(*gfx_pat_gpa)(const char *);

uintptr_t gfx_egl_current(void); // egl.c

// GL entry points of the pattern program (context-independent pointers
// from eglGetProcAddress).
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
	PFNGLPROGRAMUNIFORM1UIPROC ProgramUniform1ui;
	PFNGLBINDBUFFERBASEPROC BindBufferBase;
	PFNGLDISPATCHCOMPUTEPROC DispatchCompute;
	PFNGLMEMORYBARRIERPROC MemoryBarrier;
	PFNGLGETINTEGERVPROC GetIntegerv;
	PFNGLGETINTEGERI_VPROC GetIntegeri_v;
	PFNGLGETERRORPROC GetError;
} gfx_pat_gl;

static gfx_pat_gl gfx_pat;

#define GFX_PAT_LOAD(f, n) if (!(gfx_pat.f = (void *)gpa(n))) return 1;

static int gfx_pat_load(void *p) {
	gfx_pat_gpa gpa = (gfx_pat_gpa)p;
	GFX_PAT_LOAD(CreateShader, "glCreateShader")
	GFX_PAT_LOAD(ShaderSource, "glShaderSource")
	GFX_PAT_LOAD(CompileShader, "glCompileShader")
	GFX_PAT_LOAD(GetShaderiv, "glGetShaderiv")
	GFX_PAT_LOAD(GetShaderInfoLog, "glGetShaderInfoLog")
	GFX_PAT_LOAD(DeleteShader, "glDeleteShader")
	GFX_PAT_LOAD(CreateProgram, "glCreateProgram")
	GFX_PAT_LOAD(AttachShader, "glAttachShader")
	GFX_PAT_LOAD(LinkProgram, "glLinkProgram")
	GFX_PAT_LOAD(GetProgramiv, "glGetProgramiv")
	GFX_PAT_LOAD(GetProgramInfoLog, "glGetProgramInfoLog")
	GFX_PAT_LOAD(DeleteProgram, "glDeleteProgram")
	GFX_PAT_LOAD(GetUniformLocation, "glGetUniformLocation")
	GFX_PAT_LOAD(UseProgram, "glUseProgram")
	GFX_PAT_LOAD(ProgramUniform1ui, "glProgramUniform1ui")
	GFX_PAT_LOAD(BindBufferBase, "glBindBufferBase")
	GFX_PAT_LOAD(DispatchCompute, "glDispatchCompute")
	GFX_PAT_LOAD(MemoryBarrier, "glMemoryBarrier")
	GFX_PAT_LOAD(GetIntegerv, "glGetIntegerv")
	GFX_PAT_LOAD(GetIntegeri_v, "glGetIntegeri_v")
	GFX_PAT_LOAD(GetError, "glGetError")
	return 0;
}

static GLenum gfx_pat_errors(void) {
	GLenum first = GL_NO_ERROR, e;
	int n = 0;
	while ((e = gfx_pat.GetError()) != GL_NO_ERROR && n++ < 64) {
		if (first == GL_NO_ERROR) first = e;
	}
	return first;
}

// gfx_pat_build compiles and links the compute program; 0 on failure, with
// the driver's log in log.
static GLuint gfx_pat_build(const char *src, char *log, int logn) {
	GLint ok = 0;
	GLuint sh = gfx_pat.CreateShader(GL_COMPUTE_SHADER);
	if (!sh) return 0;
	gfx_pat.ShaderSource(sh, 1, &src, NULL);
	gfx_pat.CompileShader(sh);
	gfx_pat.GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		gfx_pat.GetShaderInfoLog(sh, logn, NULL, log);
		gfx_pat.DeleteShader(sh);
		return 0;
	}
	GLuint p = gfx_pat.CreateProgram();
	gfx_pat.AttachShader(p, sh);
	gfx_pat.LinkProgram(p);
	gfx_pat.DeleteShader(sh);
	gfx_pat.GetProgramiv(p, GL_LINK_STATUS, &ok);
	if (!ok) {
		gfx_pat.GetProgramInfoLog(p, logn, NULL, log);
		gfx_pat.DeleteProgram(p);
		return 0;
	}
	return p;
}

static GLint gfx_pat_uniform(GLuint p, const char *name) { return gfx_pat.GetUniformLocation(p, name); }

// gfx_pat_fill dispatches the program over buffer buf (binding 0), the
// current program and binding 0 restored afterwards.
static GLenum gfx_pat_fill(GLuint p, GLint lseed, GLint ln, GLuint buf, GLuint words, GLuint seed, GLuint gx, GLuint gy) {
	GLint prog = 0, bound = 0;
	gfx_pat_errors();
	gfx_pat.GetIntegerv(GL_CURRENT_PROGRAM, &prog);
	gfx_pat.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &bound);
	gfx_pat.ProgramUniform1ui(p, lseed, seed);
	gfx_pat.ProgramUniform1ui(p, ln, words);
	gfx_pat.UseProgram(p);
	gfx_pat.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
	gfx_pat.DispatchCompute(gx, gy, 1);
	// Later GL reads of the buffer (copies, readback, mapping) see the writes.
	gfx_pat.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT);
	gfx_pat.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, (GLuint)bound);
	gfx_pat.UseProgram((GLuint)prog);
	return gfx_pat_errors();
}

static void gfx_pat_delete(GLuint p) { gfx_pat.DeleteProgram(p); }
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/dl"
)

// patternSource writes word i of a frame as patternWord(i, seed): a hash,
// so that frames are incompressible (Hopper compresses constant data) and
// differ from seed to seed. Dispatched as gx × gy groups of 256.
const patternSource = `#version 430
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer Frame { uint words[]; };
uniform uint seed;
uniform uint n;
uint mixbits(uint x) {
	x ^= x >> 16; x *= 0x7FEB352Du;
	x ^= x >> 15; x *= 0x846CA68Bu;
	x ^= x >> 16;
	return x;
}
void main() {
	uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
	if (i >= n) return;
	uint key = mixbits(seed + 0x6A09E667u);
	words[i] = mixbits((i * 0x9E3779B9u) ^ key);
}
`

// patternMaxGroupsX is the most work groups dispatched along x (GL
// guarantees 65535); larger frames use a second dimension. A variable so
// that tests reach the two-dimensional case with small buffers.
var patternMaxGroupsX = 65535

func mixbits(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7FEB352D
	x ^= x >> 15
	x *= 0x846CA68B
	x ^= x >> 16
	return x
}

// PatternBytes writes into dst what Pattern.Fill writes into a buffer of
// len(dst) bytes with seed (len(dst) a multiple of 4): the reference for
// checking frames byte for byte.
func PatternBytes(dst []byte, seed uint32) {
	key := mixbits(seed + 0x6A09E667)
	for i := 0; i+4 <= len(dst); i += 4 {
		w := uint32(i / 4)
		binary.LittleEndian.PutUint32(dst[i:], mixbits((w*0x9E3779B9)^key))
	}
}

var (
	patternOnce sync.Once
	patternErr  error
)

func loadPattern() error {
	patternOnce.Do(func() {
		if err := Load(); err != nil {
			patternErr = err
			return
		}
		lib, err := dl.Open(Library())
		if err != nil {
			patternErr = err
			return
		}
		gpa, err := lib.Sym("eglGetProcAddress")
		if err != nil {
			patternErr = err
			return
		}
		if C.gfx_pat_load(gpa) != 0 {
			patternErr = errors.New("egl: the GL driver lacks compute shader entry points (GL 4.3)")
		}
	})
	return patternErr
}

// Pattern is a GL compute program that fills buffers with pseudo-random
// frames derived from a seed, on the GPU: how benchmarks produce frames the
// way a renderer does (a GPU write of every byte, cheap where graphics
// units are scarce, incompressible). It needs desktop GL 4.3 or later.
//
// NewPattern, Fill and Delete must run on a thread where the GL context the
// program belongs to is current (inside Context.Do).
type Pattern struct {
	prog        C.GLuint
	lseed, lnum C.GLint
}

func currentGL() error {
	if C.gfx_egl_current() == 0 {
		return ErrWrongThread
	}
	return nil
}

// NewPattern compiles and links the pattern program in the current
// context.
func NewPattern() (*Pattern, error) {
	if err := loadPattern(); err != nil {
		return nil, err
	}
	if err := currentGL(); err != nil {
		return nil, err
	}
	src := C.CString(patternSource)
	defer C.free(unsafe.Pointer(src))
	const logn = 4096
	log := (*C.char)(C.calloc(logn, 1))
	defer C.free(unsafe.Pointer(log))
	p := C.gfx_pat_build(src, log, logn)
	if p == 0 {
		return nil, fmt.Errorf("egl: building the pattern compute shader (needs GL 4.3): %s", C.GoString(log))
	}
	seed, num := C.CString("seed"), C.CString("n")
	defer C.free(unsafe.Pointer(seed))
	defer C.free(unsafe.Pointer(num))
	pat := &Pattern{prog: p, lseed: C.gfx_pat_uniform(p, seed), lnum: C.gfx_pat_uniform(p, num)}
	if pat.lseed < 0 || pat.lnum < 0 {
		C.gfx_pat_delete(p)
		return nil, errors.New("egl: the pattern compute shader lost its uniforms")
	}
	return pat, nil
}

// Fill queues a dispatch writing the first size bytes of buffer b (a
// multiple of 4) with the frame of seed (PatternBytes), followed by a
// memory barrier for later GL reads of b. It leaves the current program and
// shader storage binding 0 as they were.
func (p *Pattern) Fill(b Buffer, size int, seed uint32) error {
	if err := currentGL(); err != nil {
		return err
	}
	if p == nil || p.prog == 0 {
		return errors.New("egl: Pattern.Fill on a deleted pattern")
	}
	if size <= 0 || size%4 != 0 || size/4 > 1<<31 {
		return fmt.Errorf("egl: Pattern.Fill: %d bytes: need a positive multiple of 4", size)
	}
	words := size / 4
	groups := (words + 255) / 256
	gx := min(groups, patternMaxGroupsX)
	gy := (groups + gx - 1) / gx
	if gy > 65535 {
		return fmt.Errorf("egl: Pattern.Fill: %d bytes is too large for one dispatch", size)
	}
	e := C.gfx_pat_fill(p.prog, p.lseed, p.lnum, C.GLuint(b), C.GLuint(words), C.GLuint(seed), C.GLuint(gx), C.GLuint(gy))
	return glErr("pattern dispatch", e)
}

// Delete frees the program. Idempotent.
func (p *Pattern) Delete() error {
	if p == nil || p.prog == 0 {
		return nil
	}
	if err := currentGL(); err != nil {
		return err
	}
	C.gfx_pat_delete(p.prog)
	p.prog = 0
	return nil
}
