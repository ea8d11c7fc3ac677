package egl

/*
#include <stdint.h>
#include <stdlib.h>
#include <GL/glcorearb.h>

typedef void *(*gfx_cv_gpa)(const char *);

uintptr_t gfx_egl_current(void); // egl.c

// GL entry points of the converter (context-independent pointers from
// eglGetProcAddress).
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
} gfx_cv_gl;

static gfx_cv_gl gfx_cv;

#define GFX_CV_LOAD(f, n) if (!(gfx_cv.f = (void *)gpa(n))) return 1;

static int gfx_cv_load(void *p) {
	gfx_cv_gpa gpa = (gfx_cv_gpa)p;
	GFX_CV_LOAD(CreateShader, "glCreateShader")
	GFX_CV_LOAD(ShaderSource, "glShaderSource")
	GFX_CV_LOAD(CompileShader, "glCompileShader")
	GFX_CV_LOAD(GetShaderiv, "glGetShaderiv")
	GFX_CV_LOAD(GetShaderInfoLog, "glGetShaderInfoLog")
	GFX_CV_LOAD(DeleteShader, "glDeleteShader")
	GFX_CV_LOAD(CreateProgram, "glCreateProgram")
	GFX_CV_LOAD(AttachShader, "glAttachShader")
	GFX_CV_LOAD(LinkProgram, "glLinkProgram")
	GFX_CV_LOAD(GetProgramiv, "glGetProgramiv")
	GFX_CV_LOAD(GetProgramInfoLog, "glGetProgramInfoLog")
	GFX_CV_LOAD(DeleteProgram, "glDeleteProgram")
	GFX_CV_LOAD(GetUniformLocation, "glGetUniformLocation")
	GFX_CV_LOAD(UseProgram, "glUseProgram")
	GFX_CV_LOAD(ProgramUniform1i, "glProgramUniform1i")
	GFX_CV_LOAD(ProgramUniform1ui, "glProgramUniform1ui")
	GFX_CV_LOAD(ProgramUniform4fv, "glProgramUniform4fv")
	GFX_CV_LOAD(BindBufferBase, "glBindBufferBase")
	GFX_CV_LOAD(BindBufferRange, "glBindBufferRange")
	GFX_CV_LOAD(ActiveTexture, "glActiveTexture")
	GFX_CV_LOAD(BindTexture, "glBindTexture")
	GFX_CV_LOAD(GenSamplers, "glGenSamplers")
	GFX_CV_LOAD(DeleteSamplers, "glDeleteSamplers")
	GFX_CV_LOAD(SamplerParameteri, "glSamplerParameteri")
	GFX_CV_LOAD(BindSampler, "glBindSampler")
	GFX_CV_LOAD(DispatchCompute, "glDispatchCompute")
	GFX_CV_LOAD(MemoryBarrier, "glMemoryBarrier")
	GFX_CV_LOAD(GetIntegerv, "glGetIntegerv")
	GFX_CV_LOAD(GetIntegeri_v, "glGetIntegeri_v")
	GFX_CV_LOAD(GetInteger64i_v, "glGetInteger64i_v")
	GFX_CV_LOAD(GetError, "glGetError")
	return 0;
}

static GLenum gfx_cv_errors(void) {
	GLenum first = GL_NO_ERROR, e;
	int n = 0;
	while ((e = gfx_cv.GetError()) != GL_NO_ERROR && n++ < 64) {
		if (first == GL_NO_ERROR) first = e;
	}
	return first;
}

static GLuint gfx_cv_build(const char *src, char *log, int logn) {
	GLint ok = 0;
	GLuint sh = gfx_cv.CreateShader(GL_COMPUTE_SHADER);
	if (!sh) return 0;
	gfx_cv.ShaderSource(sh, 1, &src, NULL);
	gfx_cv.CompileShader(sh);
	gfx_cv.GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		gfx_cv.GetShaderInfoLog(sh, logn, NULL, log);
		gfx_cv.DeleteShader(sh);
		return 0;
	}
	GLuint p = gfx_cv.CreateProgram();
	gfx_cv.AttachShader(p, sh);
	gfx_cv.LinkProgram(p);
	gfx_cv.DeleteShader(sh);
	gfx_cv.GetProgramiv(p, GL_LINK_STATUS, &ok);
	if (!ok) {
		gfx_cv.GetProgramInfoLog(p, logn, NULL, log);
		gfx_cv.DeleteProgram(p);
		return 0;
	}
	return p;
}

static GLint gfx_cv_uniform(GLuint p, const char *name) { return gfx_cv.GetUniformLocation(p, name); }

// The uniforms' locations, in the order of gfx_cv_names (convert.go).
enum { CV_W, CV_H, CV_C, CV_PLANAR, CV_FLIP, CV_DTYPE, CV_MEAN, CV_SCALE, CV_EBASE, CV_VIEWELEMS, CV_WBASE, CV_NWORDS, CV_SRC, CV_SWAPRB, CV_N };

static GLuint gfx_cv_sampler(void) {
	GLuint s = 0;
	gfx_cv.GenSamplers(1, &s);
	if (!s) return 0;
	// texelFetch reads level 0 whatever the texture's own filters say; a
	// sampler without mipmaps makes any texture with level 0 complete.
	gfx_cv.SamplerParameteri(s, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	gfx_cv.SamplerParameteri(s, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	return s;
}

typedef struct {
	GLuint w, h, c, planar, flip, dtype, swaprb;
	float mean[4], scale[4];
	GLuint ebase, viewelems, wbase, nwords;
	GLuint gx, gy;
} gfx_cv_args;

// gfx_cv_run dispatches the program once per call: a view's elements into
// words [wbase, wbase + nwords) of buffer buf (binding 0), reading texture
// tex (target GL_TEXTURE_2D) on texture unit `unit` with the converter's
// sampler. Everything it binds is put back: the current program, the active
// texture unit, the unit's 2D texture and sampler, binding 0 of
// GL_SHADER_STORAGE_BUFFER (with its range).
static GLenum gfx_cv_run(GLuint p, const GLint *loc, GLuint sampler, GLuint unit, GLuint tex, GLuint buf,
                         const gfx_cv_args *a) {
	GLint prog = 0, active = 0, oldtex = 0, oldsampler = 0, bound = 0;
	GLint64 start = 0, size = 0;
	gfx_cv_errors();
	gfx_cv.GetIntegerv(GL_CURRENT_PROGRAM, &prog);
	gfx_cv.GetIntegerv(GL_ACTIVE_TEXTURE, &active);
	gfx_cv.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &bound);
	gfx_cv.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, 0, &start);
	gfx_cv.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, 0, &size);
	gfx_cv.ActiveTexture(GL_TEXTURE0 + unit);
	gfx_cv.GetIntegerv(GL_TEXTURE_BINDING_2D, &oldtex);
	gfx_cv.GetIntegerv(GL_SAMPLER_BINDING, &oldsampler);

	gfx_cv.ProgramUniform1ui(p, loc[CV_W], a->w);
	gfx_cv.ProgramUniform1ui(p, loc[CV_H], a->h);
	gfx_cv.ProgramUniform1ui(p, loc[CV_C], a->c);
	gfx_cv.ProgramUniform1ui(p, loc[CV_PLANAR], a->planar);
	gfx_cv.ProgramUniform1ui(p, loc[CV_FLIP], a->flip);
	gfx_cv.ProgramUniform1ui(p, loc[CV_DTYPE], a->dtype);
	gfx_cv.ProgramUniform4fv(p, loc[CV_MEAN], 1, a->mean);
	gfx_cv.ProgramUniform4fv(p, loc[CV_SCALE], 1, a->scale);
	gfx_cv.ProgramUniform1ui(p, loc[CV_EBASE], a->ebase);
	gfx_cv.ProgramUniform1ui(p, loc[CV_VIEWELEMS], a->viewelems);
	gfx_cv.ProgramUniform1ui(p, loc[CV_WBASE], a->wbase);
	gfx_cv.ProgramUniform1ui(p, loc[CV_NWORDS], a->nwords);
	gfx_cv.ProgramUniform1i(p, loc[CV_SRC], (GLint)unit);
	gfx_cv.ProgramUniform1ui(p, loc[CV_SWAPRB], a->swaprb);
	gfx_cv.BindTexture(GL_TEXTURE_2D, tex);
	gfx_cv.BindSampler(unit, sampler);
	gfx_cv.UseProgram(p);
	gfx_cv.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
	gfx_cv.DispatchCompute(a->gx, a->gy, 1);
	// The next view's edge words and later GL reads of the buffer (copies,
	// readback, mapping) see the writes.
	gfx_cv.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT);
	GLenum e = gfx_cv_errors();

	if (bound && size > 0) {
		gfx_cv.BindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, (GLuint)bound, (GLintptr)start, (GLsizeiptr)size);
	} else {
		gfx_cv.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, (GLuint)bound);
	}
	gfx_cv.UseProgram((GLuint)prog);
	gfx_cv.BindSampler(unit, (GLuint)oldsampler);
	gfx_cv.BindTexture(GL_TEXTURE_2D, (GLuint)oldtex);
	gfx_cv.ActiveTexture((GLenum)active);
	return e;
}

static GLint gfx_cv_max_units(void) {
	GLint n = 0;
	gfx_cv.GetIntegerv(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS, &n);
	return n;
}

// gfx_cv_state reads the bindings Convert must put back: the current
// program, the active texture unit, unit's 2D texture and sampler, and
// storage buffer binding 0.
static void gfx_cv_state(GLuint unit, GLint *out) {
	GLint active = 0;
	gfx_cv.GetIntegerv(GL_CURRENT_PROGRAM, &out[0]);
	gfx_cv.GetIntegerv(GL_ACTIVE_TEXTURE, &active);
	out[1] = active;
	gfx_cv.ActiveTexture(GL_TEXTURE0 + unit);
	gfx_cv.GetIntegerv(GL_TEXTURE_BINDING_2D, &out[2]);
	gfx_cv.GetIntegerv(GL_SAMPLER_BINDING, &out[3]);
	gfx_cv.ActiveTexture((GLenum)active);
	gfx_cv.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &out[4]);
}

static void gfx_cv_delete(GLuint p, GLuint sampler) {
	gfx_cv.DeleteProgram(p);
	gfx_cv.DeleteSamplers(1, &sampler);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/dl"
)

// convertSource converts one view of a texture into tensor elements, one
// invocation per 32-bit word of the output: word i holds 4/E elements of E
// bytes (float32 1, float16 2, uint8 4). Element e of the view (0 ≤ e <
// viewelems) is channel c of texel (x, y'), y' counted in the tensor's
// rows (flip: y = h − 1 − y' in the texture's); its value is (texel[c] −
// mean[c]) · scale[c], stored as float32, float16 or uint8 (clamped to [0,
// 1], ×255, rounded half up). A word shared with the elements of another
// view (or bytes before the tensor) is updated with atomics, only its own
// bytes; a word of this view alone is stored whole.
const convertSource = `#version 430
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Out { uint words[]; };
uniform sampler2D src;
uniform uint w, h, c, planar, flip, dtype;
uniform uint swaprb;    // the texture holds blue in its red channel (BGRA8 frames uploaded as RGBA8)
uniform vec4 mean, scale;
uniform uint ebase;     // the view's first element, counted from word 0 of the buffer
uniform uint viewelems; // w * h * c
uniform uint wbase, nwords;

uint encode(float v) {
	if (dtype == 0u) return floatBitsToUint(v);
	if (dtype == 1u) return packHalf2x16(vec2(v, 0.0)) & 0xFFFFu;
	if (!(v > 0.0)) return 0u;
	if (v >= 1.0) return 255u;
	return uint(floor(v * 255.0 + 0.5));
}

void main() {
	uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
	if (i >= nwords) return;
	uint word = wbase + i;
	uint per = dtype == 0u ? 1u : (dtype == 1u ? 2u : 4u);
	uint bits = 32u / per;
	uint value = 0u, mask = 0u;
	for (uint k = 0u; k < per; k++) {
		uint e = word * per + k;
		if (e < ebase || e - ebase >= viewelems) continue;
		uint le = e - ebase;
		uint ch, x, yt;
		if (planar != 0u) {
			ch = le / (w * h);
			uint r = le - ch * (w * h);
			yt = r / w;
			x = r - yt * w;
		} else {
			uint p = le / c;
			ch = le - p * c;
			yt = p / w;
			x = p - yt * w;
		}
		uint y = flip != 0u ? h - 1u - yt : yt;
		vec4 t = texelFetch(src, ivec2(int(x), int(y)), 0);
		uint sc = (swaprb != 0u && ch < 3u) ? 2u - ch : ch;
		float v = (t[sc] - mean[ch]) * scale[ch];
		uint m = bits == 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u) << (k * bits);
		value |= (encode(v) << (k * bits)) & m;
		mask |= m;
	}
	if (mask == 0xFFFFFFFFu) {
		words[word] = value;
	} else if (mask != 0u) {
		atomicAnd(words[word], ~mask);
		atomicOr(words[word], value);
	}
}
`

// The converter's uniforms, in the order of the C enum CV_*.
var convertUniforms = [...]string{"w", "h", "c", "planar", "flip", "dtype", "mean", "scale", "ebase", "viewelems", "wbase", "nwords", "src", "swaprb"}

// convertMaxGroupsX is the most work groups dispatched along x (GL
// guarantees 65535); larger views use a second dimension. A variable so
// that tests reach the two-dimensional case with small views.
var convertMaxGroupsX = 65535

var (
	convertOnce sync.Once
	convertErr  error
)

func loadConvert() error {
	convertOnce.Do(func() {
		if err := Load(); err != nil {
			convertErr = err
			return
		}
		lib, err := dl.Open(Library())
		if err != nil {
			convertErr = err
			return
		}
		gpa, err := lib.Sym("eglGetProcAddress")
		if err != nil {
			convertErr = err
			return
		}
		if C.gfx_cv_load(gpa) != 0 {
			convertErr = errors.New("egl: the GL driver lacks compute shader entry points (GL 4.3)")
		}
	})
	return convertErr
}

// ConvertDType is the element type a Converter writes.
type ConvertDType uint32

// The element types.
const (
	ConvertFloat32 ConvertDType = 0
	ConvertFloat16 ConvertDType = 1
	ConvertUint8   ConvertDType = 2
)

// Size is the element's size in bytes.
func (d ConvertDType) Size() int {
	switch d {
	case ConvertFloat32:
		return 4
	case ConvertFloat16:
		return 2
	case ConvertUint8:
		return 1
	}
	return 0
}

// ConvertLayout says what a view becomes: W×H texels, C channels (red
// first) as planar (C, H, W) or interleaved (H, W, C) elements of DType,
// rows flipped or not, (v − Mean[c]) · Scale[c] per channel. SwapRB reads
// red from the texture's blue channel and blue from its red (a BGRA8
// frame kept in an RGBA8 texture).
type ConvertLayout struct {
	Width, Height, Channels int
	Planar, FlipY, SwapRB   bool
	DType                   ConvertDType
	Mean, Scale             [4]float32
}

// ViewBytes is one view's size in bytes.
func (l ConvertLayout) ViewBytes() int { return l.Width * l.Height * l.Channels * l.DType.Size() }

// Converter is a GL compute program that converts views of 2D textures
// into tensor elements in a buffer, on the GPU, the way gfxcuda's CUDA and
// Vulkan converters do, so that a tensor in memory GL shares with CUDA is
// complete once GL is: CUDA runs nothing per frame. It needs desktop GL
// 4.3 or later.
//
// NewConverter, Convert and Delete must run on a thread where the GL
// context the program belongs to is current (inside Context.Do).
type Converter struct {
	prog    C.GLuint
	sampler C.GLuint
	loc     [len(convertUniforms)]C.GLint
	unit    C.GLuint
}

// NewConverter compiles and links the converter in the current context.
func NewConverter() (*Converter, error) {
	if err := loadConvert(); err != nil {
		return nil, err
	}
	if err := currentGL(); err != nil {
		return nil, err
	}
	src := C.CString(convertSource)
	defer C.free(unsafe.Pointer(src))
	const logn = 4096
	log := (*C.char)(C.calloc(logn, 1))
	defer C.free(unsafe.Pointer(log))
	p := C.gfx_cv_build(src, log, logn)
	if p == 0 {
		return nil, fmt.Errorf("egl: building the tensor converter's compute shader (needs GL 4.3): %s", C.GoString(log))
	}
	cv := &Converter{prog: p}
	for i, name := range convertUniforms {
		cn := C.CString(name)
		cv.loc[i] = C.gfx_cv_uniform(p, cn)
		C.free(unsafe.Pointer(cn))
		if cv.loc[i] < 0 {
			C.gfx_cv_delete(p, 0)
			return nil, fmt.Errorf("egl: the tensor converter lost its uniform %q", name)
		}
	}
	// The last texture unit: the one a renderer is least likely to use (it
	// is put back after each dispatch anyway).
	n := C.gfx_cv_max_units()
	if n < 1 {
		C.gfx_cv_delete(p, 0)
		return nil, errors.New("egl: the GL context reports no texture units")
	}
	cv.unit = C.GLuint(n - 1)
	cv.sampler = C.gfx_cv_sampler()
	if cv.sampler == 0 {
		C.gfx_cv_delete(p, 0)
		return nil, errors.New("egl: glGenSamplers failed")
	}
	return cv, nil
}

// Convert queues the conversion of view number `view` of a tensor — 2D
// texture tex, read at level 0 — into buffer b, whose tensor starts at
// byte offset (a multiple of 4): the view's elements go to
// offset + view·l.ViewBytes(). Bytes of the buffer outside them are left
// as they were (edge words are updated atomically). A memory barrier
// follows for later GL reads of b. It leaves GL's bindings as they were.
func (cv *Converter) Convert(tex Texture, l ConvertLayout, view int, b Buffer, offset int) error {
	if err := currentGL(); err != nil {
		return err
	}
	if cv == nil || cv.prog == 0 {
		return errors.New("egl: Converter.Convert on a deleted converter")
	}
	if l.Width <= 0 || l.Height <= 0 || (l.Channels != 3 && l.Channels != 4 && l.Channels != 1) || l.DType.Size() == 0 {
		return fmt.Errorf("egl: Converter.Convert: layout %dx%d, %d channels, dtype %d", l.Width, l.Height, l.Channels, l.DType)
	}
	if offset < 0 || offset%4 != 0 || view < 0 {
		return fmt.Errorf("egl: Converter.Convert: byte offset %d (a multiple of 4), view %d", offset, view)
	}
	es := l.DType.Size()
	elems := uint64(l.Width) * uint64(l.Height) * uint64(l.Channels)
	first := uint64(offset)/uint64(es) + uint64(view)*elems // the view's first element from word 0
	last := first + elems                                   // one past
	per := uint64(4 / es)
	wbase := first / per
	wend := (last + per - 1) / per
	if last > 1<<32-4 {
		return fmt.Errorf("egl: Converter.Convert: the view ends past 2^32 elements of the buffer")
	}
	nwords := wend - wbase
	groups := int((nwords + 255) / 256)
	gx := min(groups, convertMaxGroupsX)
	gy := (groups + gx - 1) / gx
	if gy > 65535 {
		return fmt.Errorf("egl: Converter.Convert: %d words is too large for one dispatch", nwords)
	}
	a := C.gfx_cv_args{
		w: C.GLuint(l.Width), h: C.GLuint(l.Height), c: C.GLuint(l.Channels),
		dtype: C.GLuint(l.DType), ebase: C.GLuint(first), viewelems: C.GLuint(elems),
		wbase: C.GLuint(wbase), nwords: C.GLuint(nwords), gx: C.GLuint(gx), gy: C.GLuint(gy),
	}
	if l.Planar {
		a.planar = 1
	}
	if l.FlipY {
		a.flip = 1
	}
	if l.SwapRB {
		a.swaprb = 1
	}
	for i := 0; i < 4; i++ {
		a.mean[i] = C.float(l.Mean[i])
		a.scale[i] = C.float(l.Scale[i])
	}
	e := C.gfx_cv_run(cv.prog, &cv.loc[0], cv.sampler, cv.unit, C.GLuint(tex), C.GLuint(b), &a)
	return glErr("tensor conversion dispatch", e)
}

// bindings returns the GL state Convert puts back (the current program,
// the active texture unit, the converter's unit's 2D texture and sampler,
// storage buffer binding 0), for tests to compare.
func (cv *Converter) bindings() [5]int32 {
	var out [5]C.GLint
	C.gfx_cv_state(cv.unit, &out[0])
	var r [5]int32
	for i, v := range out {
		r[i] = int32(v)
	}
	return r
}

// Delete frees the program and its sampler. Idempotent.
func (cv *Converter) Delete() error {
	if cv == nil || cv.prog == 0 {
		return nil
	}
	if err := currentGL(); err != nil {
		return err
	}
	C.gfx_cv_delete(cv.prog, cv.sampler)
	cv.prog, cv.sampler = 0, 0
	return nil
}
