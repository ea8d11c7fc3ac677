package egl

/*
#include <stdint.h>
#include <stdlib.h>
#include "cs.h"

uintptr_t gfx_egl_current(void); // egl.c

// The uniforms' locations, in the order of convertUniforms (below).
enum { CV_W, CV_H, CV_C, CV_PLANAR, CV_FLIP, CV_DTYPE, CV_MEAN, CV_SCALE, CV_EBASE, CV_VIEWELEMS, CV_WBASE, CV_NWORDS, CV_SRC, CV_SWAPRB, CV_ORIGIN, CV_COLS, CV_VBASE, CV_VIEWWORDS, CV_N };

static GLuint gfx_cv_sampler(void) {
	GLuint s = 0;
	gfx_cs.GenSamplers(1, &s);
	if (!s) return 0;
	// texelFetch reads level 0 whatever the texture's own filters say; a
	// sampler without mipmaps makes any texture with level 0 complete.
	gfx_cs.SamplerParameteri(s, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	gfx_cs.SamplerParameteri(s, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	return s;
}

typedef struct {
	GLuint w, h, c, planar, flip, dtype, swaprb, ox, oy;
	float mean[4], scale[4];
	GLuint ebase, viewelems, wbase, nwords;
	GLuint cols, vbase, viewwords; // the per-pixel program's tiles: z is the view (vbase + z)
	GLuint gx, gy, gz;
} gfx_cv_args;

// gfx_cv_run dispatches the program once per call: a view's elements into
// words [wbase, wbase + nwords) of buffer buf (binding 0), reading texture
// tex (target GL_TEXTURE_2D) on texture unit `unit` with the converter's
// sampler. Everything it binds is put back: the current program, the active
// texture unit, the unit's 2D texture and sampler, binding 0 of
// GL_SHADER_STORAGE_BUFFER (with its range).
static GLenum gfx_cv_run(GLuint p, const GLint *loc, GLuint sampler, GLuint unit, GLuint tex, GLuint buf,
                         const gfx_cv_args *a, int uniforms) {
	GLint prog = 0, active = 0, oldtex = 0, oldsampler = 0, bound = 0;
	GLint64 start = 0, size = 0;
	gfx_cs_errors();
	gfx_cs.GetIntegerv(GL_CURRENT_PROGRAM, &prog);
	gfx_cs.GetIntegerv(GL_ACTIVE_TEXTURE, &active);
	gfx_cs.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &bound);
	gfx_cs.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, 0, &start);
	gfx_cs.GetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, 0, &size);
	gfx_cs.ActiveTexture(GL_TEXTURE0 + unit);
	gfx_cs.GetIntegerv(GL_TEXTURE_BINDING_2D, &oldtex);
	gfx_cs.GetIntegerv(GL_SAMPLER_BINDING, &oldsampler);

	if (uniforms) {
		gfx_cs.ProgramUniform1ui(p, loc[CV_W], a->w);
		gfx_cs.ProgramUniform1ui(p, loc[CV_H], a->h);
		gfx_cs.ProgramUniform1ui(p, loc[CV_C], a->c);
		gfx_cs.ProgramUniform1ui(p, loc[CV_PLANAR], a->planar);
		gfx_cs.ProgramUniform1ui(p, loc[CV_FLIP], a->flip);
		gfx_cs.ProgramUniform1ui(p, loc[CV_DTYPE], a->dtype);
		gfx_cs.ProgramUniform4fv(p, loc[CV_MEAN], 1, a->mean);
		gfx_cs.ProgramUniform4fv(p, loc[CV_SCALE], 1, a->scale);
		gfx_cs.ProgramUniform1ui(p, loc[CV_EBASE], a->ebase);
		gfx_cs.ProgramUniform1ui(p, loc[CV_VIEWELEMS], a->viewelems);
		gfx_cs.ProgramUniform1ui(p, loc[CV_WBASE], a->wbase);
		gfx_cs.ProgramUniform1ui(p, loc[CV_NWORDS], a->nwords);
		gfx_cs.ProgramUniform1i(p, loc[CV_SRC], (GLint)unit);
		gfx_cs.ProgramUniform1ui(p, loc[CV_SWAPRB], a->swaprb);
		gfx_cs.ProgramUniform2ui(p, loc[CV_ORIGIN], a->ox, a->oy);
		gfx_cs.ProgramUniform1ui(p, loc[CV_COLS], a->cols);
		gfx_cs.ProgramUniform1ui(p, loc[CV_VBASE], a->vbase);
		gfx_cs.ProgramUniform1ui(p, loc[CV_VIEWWORDS], a->viewwords);
	}
	gfx_cs.BindTexture(GL_TEXTURE_2D, tex);
	gfx_cs.BindSampler(unit, sampler);
	gfx_cs.UseProgram(p);
	gfx_cs.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
	gfx_cs.DispatchCompute(a->gx, a->gy, a->gz);
	// The next view's edge words and later GL reads of the buffer (copies,
	// readback, mapping) see the writes.
	gfx_cs.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT);
	GLenum e = gfx_cs_errors();

	if (bound && size > 0) {
		gfx_cs.BindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, (GLuint)bound, (GLintptr)start, (GLsizeiptr)size);
	} else {
		gfx_cs.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, (GLuint)bound);
	}
	gfx_cs.UseProgram((GLuint)prog);
	gfx_cs.BindSampler(unit, (GLuint)oldsampler);
	gfx_cs.BindTexture(GL_TEXTURE_2D, (GLuint)oldtex);
	gfx_cs.ActiveTexture((GLenum)active);
	return e;
}


static GLint gfx_cv_max_units(void) {
	GLint n = 0;
	gfx_cs.GetIntegerv(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS, &n);
	return n;
}

// gfx_cv_state reads the bindings Convert must put back: the current
// program, the active texture unit, unit's 2D texture and sampler, and
// storage buffer binding 0.
static void gfx_cv_state(GLuint unit, GLint *out) {
	GLint active = 0;
	gfx_cs.GetIntegerv(GL_CURRENT_PROGRAM, &out[0]);
	gfx_cs.GetIntegerv(GL_ACTIVE_TEXTURE, &active);
	out[1] = active;
	gfx_cs.ActiveTexture(GL_TEXTURE0 + unit);
	gfx_cs.GetIntegerv(GL_TEXTURE_BINDING_2D, &out[2]);
	gfx_cs.GetIntegerv(GL_SAMPLER_BINDING, &out[3]);
	gfx_cs.ActiveTexture((GLenum)active);
	gfx_cs.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &out[4]);
}

static void gfx_cv_delete(GLuint p, GLuint sampler) {
	gfx_cs.DeleteProgram(p);
	gfx_cs.DeleteSamplers(1, &sampler);
}
*/
import "C"

import (
	"errors"
	"fmt"
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
uniform uvec2 origin;   // the view's first texel in the texture (a tile of an atlas; 0, 0 for a whole texture)
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
	// The word's first element of the view, located once (divisions); the
	// next ones step from it, and a texel is fetched once for the channels
	// it gives (an interleaved word of uint8 is one texel).
	uint e0 = word * per;
	uint k0 = e0 < ebase ? ebase - e0 : 0u;
	uint le = e0 + k0 - ebase;
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
	ivec2 last = ivec2(-1);
	vec4 t = vec4(0.0);
	for (uint k = k0; k < per && le < viewelems; k++) {
		uint y = flip != 0u ? h - 1u - yt : yt;
		ivec2 pos = ivec2(origin + uvec2(x, y));
		if (pos != last) {
			t = texelFetch(src, pos, 0);
			last = pos;
		}
		uint sc = (swaprb != 0u && ch < 3u) ? 2u - ch : ch;
		float v = (t[sc] - mean[ch]) * scale[ch];
		uint m = bits == 32u ? 0xFFFFFFFFu : ((1u << bits) - 1u) << (k * bits);
		value |= (encode(v) << (k * bits)) & m;
		mask |= m;
		le++;
		if (planar != 0u) {
			if (++x == w) {
				x = 0u;
				if (++yt == h) {
					yt = 0u;
					ch++;
				}
			}
		} else if (++ch == c) {
			ch = 0u;
			if (++x == w) {
				x = 0u;
				yt++;
			}
		}
	}
	if (mask == 0xFFFFFFFFu) {
		words[word] = value;
	} else if (mask != 0u) {
		atomicAnd(words[word], ~mask);
		atomicOr(words[word], value);
	}
}
`

// convertFastSource converts a view the way convertSource does when each
// of its pixels' elements fill whole words (fastLayout): a thread per
// pixel, in 16×16 tiles, with no division and no atomic; wbase is the
// view's first word. Its results are convertSource's, bit for bit: the
// same arithmetic per element.
// convertPixelsHeader is what convertFastSource and convertQuadSource
// begin with: 16×16 work groups, the buffer, the uniforms (the views are
// tiles: the dispatch's z is view vbase + z of an atlas of cols tiles per
// row from origin, each view viewwords words after the one before) and
// convertSource's uint8 encoding.
const convertPixelsHeader = `#version 430
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) buffer Out { uint words[]; };
uniform sampler2D src;
uniform uint w, h, c, planar, flip, dtype, swaprb;
uniform uvec2 origin;
uniform vec4 mean, scale;
uniform uint wbase;
uniform uint cols, vbase, viewwords;

uint u8(float v) {
	if (!(v > 0.0)) return 0u;
	if (v >= 1.0) return 255u;
	return uint(floor(v * 255.0 + 0.5));
}
`

const convertFastSource = convertPixelsHeader + `
void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	if (p.x >= w || p.y >= h) return;
	uint view = vbase + gl_GlobalInvocationID.z;
	uint y = flip != 0u ? h - 1u - p.y : p.y;
	uvec2 o = origin + uvec2((view % cols) * w, (view / cols) * h);
	vec4 t = texelFetch(src, ivec2(o + uvec2(p.x, y)), 0);
	if (swaprb != 0u) t = t.bgra;
	vec4 v = (t - mean) * scale;
	uint wbase = wbase + view * viewwords;
	uint pix = p.y * w + p.x;
	if (dtype == 2u) {
		words[wbase + pix] = u8(v.x) | (u8(v.y) << 8) | (u8(v.z) << 16) | (u8(v.w) << 24);
	} else if (dtype == 1u) {
		words[wbase + 2u * pix] = packHalf2x16(v.xy);
		words[wbase + 2u * pix + 1u] = packHalf2x16(v.zw);
	} else if (planar != 0u) {
		for (uint k = 0u; k < c; k++) words[wbase + k * w * h + pix] = floatBitsToUint(v[k]);
	} else {
		for (uint k = 0u; k < c; k++) words[wbase + c * pix + k] = floatBitsToUint(v[k]);
	}
}
`

// convertQuadSource converts a view the way convertSource does for the
// uint8 and float16 layouts convertFastSource does not take (planar, or 3
// channels) when the view's width is a multiple of 4 and it starts at a
// word (quadLayout): a thread per 4 pixels of a row, whose elements fill
// whole words (4 pixels: one word per uint8 plane, 3 words of uint8 RGB,
// 2 words per float16 plane, 6 of float16 RGB), no atomic, no division
// but by c. Its uniforms and tiles are convertFastSource's; its results
// are convertSource's, bit for bit.
const convertQuadSource = convertPixelsHeader + `
void main() {
	// A work group converts 64 texels (16 runs of 4) of 16 rows; the four
	// invocations of a quad take the same 4 texels of 4 consecutive rows,
	// so that each fetch of a quad reads a 1×4 column: a quad's 4 texels
	// 4 apart in one row read at a third of the rate (BENCHMARKS.md,
	// "Reading an image atlas in columns").
	uint li = gl_LocalInvocationIndex;
	uvec2 q = uvec2(gl_WorkGroupID.x * 16u + ((li >> 2) & 15u), gl_WorkGroupID.y * 16u + (li & 3u) + 4u * (li >> 6));
	uint x0 = q.x * 4u;
	if (x0 >= w || q.y >= h) return;
	uint view = vbase + gl_GlobalInvocationID.z;
	uint y = flip != 0u ? h - 1u - q.y : q.y;
	uvec2 o = origin + uvec2((view % cols) * w, (view / cols) * h) + uvec2(x0, y);
	vec4 t[4];
	for (uint k = 0u; k < 4u; k++) {
		vec4 s = texelFetch(src, ivec2(o) + ivec2(k, 0), 0);
		if (swaprb != 0u) s = s.bgra;
		t[k] = (s - mean) * scale;
	}
	uint wb = wbase + view * viewwords;
	uint pix = q.y * w + x0; // the first pixel; a multiple of 4
	if (dtype == 2u) {
		if (planar != 0u) {
			for (uint ch = 0u; ch < c; ch++)
				words[wb + (ch * w * h + pix) / 4u] = u8(t[0][ch]) | (u8(t[1][ch]) << 8) | (u8(t[2][ch]) << 16) | (u8(t[3][ch]) << 24);
		} else {
			// Element n of the 4 pixels (pixel n / c, channel n % c).
			for (uint i = 0u; i < c; i++) {
				uint v = 0u;
				for (uint j = 0u; j < 4u; j++) {
					uint n = 4u * i + j;
					v |= u8(t[n / c][n % c]) << (8u * j);
				}
				words[wb + pix * c / 4u + i] = v;
			}
		}
	} else if (planar != 0u) {
		for (uint ch = 0u; ch < c; ch++) {
			uint at = wb + (ch * w * h + pix) / 2u;
			words[at] = packHalf2x16(vec2(t[0][ch], t[1][ch]));
			words[at + 1u] = packHalf2x16(vec2(t[2][ch], t[3][ch]));
		}
	} else {
		for (uint i = 0u; i < 2u * c; i++) {
			uint n = 2u * i;
			words[wb + pix * c / 2u + i] = packHalf2x16(vec2(t[n / c][n % c], t[(n + 1u) / c][(n + 1u) % c]));
		}
	}
}
`

// fastOptional are the converter's uniforms convertFastSource does not
// have (their locations stay -1: GL ignores them).
var fastOptional = map[string]bool{"ebase": true, "viewelems": true, "nwords": true}

// genericOptional are the uniforms convertSource does not have (the
// per-pixel program's tiles).
var genericOptional = map[string]bool{"cols": true, "vbase": true, "viewwords": true}

// fastLayout reports whether convertFastSource converts a view of l whose
// first element is element first of the buffer: every element of a pixel
// in whole words of its own (uint8 RGBA and float16 RGBA interleaved,
// float32 any way), the view starting at a word.
func fastLayout(l ConvertLayout, first uint64) bool {
	switch {
	case disableFast:
		return false
	case l.DType == ConvertFloat32:
		return true
	case l.Planar || l.Channels != 4:
		return false
	case l.DType == ConvertUint8:
		return first%4 == 0
	}
	return l.DType == ConvertFloat16 && first%2 == 0
}

// quadLayout reports whether convertQuadSource converts a view of l
// whose first element is element first of the buffer: uint8 or float16,
// a width that is a multiple of 4, the view starting at a word (so that
// every 4 pixels' elements fill whole words of their own).
func quadLayout(l ConvertLayout, first uint64) bool {
	switch {
	case disableFast || l.Width%4 != 0:
		return false
	case l.DType == ConvertUint8:
		return first%4 == 0
	}
	return l.DType == ConvertFloat16 && first%2 == 0
}

// disableFast makes every conversion take convertSource (tests compare the two).
var disableFast = false

// The converter's uniforms, in the order of the C enum CV_*.
var convertUniforms = [...]string{"w", "h", "c", "planar", "flip", "dtype", "mean", "scale", "ebase", "viewelems", "wbase", "nwords", "src", "swaprb", "origin",
	"cols", "vbase", "viewwords"}

// convertMaxGroupsX is the most work groups dispatched along x (GL
// guarantees 65535); larger views use a second dimension. A variable so
// that tests reach the two-dimensional case with small views.
var convertMaxGroupsX = 65535

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
// frame kept in an RGBA8 texture). OriginX, OriginY are the view's first
// texel in the texture (a tile of an atlas).
type ConvertLayout struct {
	Width, Height, Channels int
	Planar, FlipY, SwapRB   bool
	DType                   ConvertDType
	Mean, Scale             [4]float32
	OriginX, OriginY        int
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
	// fast and floc: convertFastSource's program and uniforms; quad and
	// qloc: convertQuadSource's.
	fast, quad C.GLuint
	floc, qloc [len(convertUniforms)]C.GLint
	// last, flast and qlast are the arguments each program's uniforms hold
	// (set, fset, qset: once a dispatch set them): a dispatch with the same
	// ones sets none.
	last, flast, qlast C.gfx_cv_args
	set, fset, qset    bool
	// quadRuns counts the quad program's dispatches (tests check it ran).
	quadRuns int
}

// NewConverter compiles and links the converter in the current context.
func NewConverter() (*Converter, error) {
	p, err := buildCompute("tensor converter's", convertSource)
	if err != nil {
		return nil, err
	}
	cv := &Converter{prog: p}
	for i, name := range convertUniforms {
		if cv.loc[i] = uniform(p, name); cv.loc[i] < 0 && !genericOptional[name] {
			C.gfx_cv_delete(p, 0)
			return nil, fmt.Errorf("egl: the tensor converter lost its uniform %q", name)
		}
	}
	f, err := buildCompute("tensor converter's per-pixel", convertFastSource)
	if err != nil {
		C.gfx_cv_delete(p, 0)
		return nil, err
	}
	cv.fast = f
	if cv.quad, err = buildCompute("tensor converter's 4-pixel", convertQuadSource); err != nil {
		cv.deletePrograms()
		return nil, err
	}
	for i, name := range convertUniforms {
		cv.floc[i], cv.qloc[i] = uniform(f, name), uniform(cv.quad, name)
		if (cv.floc[i] < 0 || cv.qloc[i] < 0) && !fastOptional[name] {
			cv.deletePrograms()
			return nil, fmt.Errorf("egl: the tensor converter lost its uniform %q", name)
		}
	}
	// The last texture unit: the one a renderer is least likely to use (it
	// is put back after each dispatch anyway).
	n := C.gfx_cv_max_units()
	if n < 1 {
		cv.deletePrograms()
		return nil, errors.New("egl: the GL context reports no texture units")
	}
	cv.unit = C.GLuint(n - 1)
	cv.sampler = C.gfx_cv_sampler()
	if cv.sampler == 0 {
		cv.deletePrograms()
		return nil, errors.New("egl: glGenSamplers failed")
	}
	return cv, nil
}

// deletePrograms deletes the programs (the sampler is not made yet).
func (cv *Converter) deletePrograms() {
	for _, p := range []C.GLuint{cv.prog, cv.fast, cv.quad} {
		if p != 0 {
			C.gfx_cv_delete(p, 0)
		}
	}
	cv.prog, cv.fast, cv.quad = 0, 0, 0
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
	a, err := convertArgs("Convert", l)
	if err != nil {
		return err
	}
	a.ebase, a.viewelems, a.wbase, a.nwords = C.GLuint(first), C.GLuint(elems), C.GLuint(wbase), C.GLuint(nwords)
	a.gx, a.gy, a.gz = C.GLuint(gx), C.GLuint(gy), 1
	if fastLayout(l, first) {
		return cv.runFast(tex, a, first*uint64(es)/4, 1, 0, 1, 0, b)
	}
	if quadLayout(l, first) {
		return cv.runQuad(tex, a, first*uint64(es)/4, 1, 0, 1, 0, b)
	}
	return cv.run(cv.prog, &cv.loc[0], &cv.last, &cv.set, tex, a, b)
}

// ConvertTiles converts views [0, n) of an atlas in tex — tiles of
// l.Width × l.Height, cols per row, row by row from (l.OriginX, l.OriginY)
// — into buffer b as n views of a tensor at byte offset (view v at
// offset + v·l.ViewBytes()), as n calls of Convert with each tile's origin
// would: with the per-pixel or the 4-pixel program where the layout takes
// one, in one dispatch (65,535 views at most per dispatch), else view by
// view.
func (cv *Converter) ConvertTiles(tex Texture, l ConvertLayout, cols, n int, b Buffer, offset int) error {
	if cols <= 0 || n <= 0 {
		return fmt.Errorf("egl: Converter.ConvertTiles: %d tiles per row, %d views: each at least 1", cols, n)
	}
	es := l.DType.Size()
	if err := currentGL(); err != nil {
		return err
	}
	if cv == nil || cv.prog == 0 {
		return errors.New("egl: Converter.ConvertTiles on a deleted converter")
	}
	if es == 0 || offset < 0 || offset%4 != 0 || l.Width <= 0 || l.Height <= 0 || (l.Channels != 1 && l.Channels != 3 && l.Channels != 4) {
		return fmt.Errorf("egl: Converter.ConvertTiles: layout %dx%d, %d channels, dtype %d, byte offset %d", l.Width, l.Height, l.Channels, l.DType, offset)
	}
	elems := uint64(l.Width) * uint64(l.Height) * uint64(l.Channels)
	first := uint64(offset) / uint64(es)
	run := cv.runFast
	if !fastLayout(l, first) {
		run = cv.runQuad
	}
	if !fastLayout(l, first) && !quadLayout(l, first) || (elems*uint64(es))%4 != 0 {
		for v := 0; v < n; v++ {
			tl := l
			tl.OriginX, tl.OriginY = l.OriginX+(v%cols)*l.Width, l.OriginY+(v/cols)*l.Height
			if err := cv.Convert(tex, tl, v, b, offset); err != nil {
				return fmt.Errorf("view %d: %w", v, err)
			}
		}
		return nil
	}
	if first+uint64(n)*elems > 1<<32-4 {
		return fmt.Errorf("egl: Converter.ConvertTiles: the views end past 2^32 elements of the buffer")
	}
	a, err := convertArgs("ConvertTiles", l)
	if err != nil {
		return err
	}
	viewwords := elems * uint64(es) / 4
	for v := 0; v < n; v += convertMaxGroupsZ {
		if err := run(tex, a, first*uint64(es)/4, cols, v, min(convertMaxGroupsZ, n-v), viewwords, b); err != nil {
			return err
		}
	}
	return nil
}

// convertArgs is the dispatch arguments l decides (size, channels, dtype,
// planar, flip, swap, origin, mean and scale); the caller adds where the
// elements go and the dispatch's size.
func convertArgs(what string, l ConvertLayout) (*C.gfx_cv_args, error) {
	if l.OriginX < 0 || l.OriginY < 0 {
		return nil, fmt.Errorf("egl: Converter.%s: origin (%d, %d)", what, l.OriginX, l.OriginY)
	}
	a := &C.gfx_cv_args{w: C.GLuint(l.Width), h: C.GLuint(l.Height), c: C.GLuint(l.Channels), dtype: C.GLuint(l.DType),
		ox: C.GLuint(l.OriginX), oy: C.GLuint(l.OriginY)}
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
	return a, nil
}

// convertMaxGroupsZ is the most views one per-pixel dispatch converts (GL
// guarantees 65535 work groups along z); a variable so that tests reach
// more than one dispatch with few views.
var convertMaxGroupsZ = 65535

// runFast dispatches the per-pixel program for views [vbase, vbase+nz) of
// cols tiles per row, the first view's first word at wbase.
func (cv *Converter) runFast(tex Texture, a *C.gfx_cv_args, wbase uint64, cols, vbase, nz int, viewwords uint64, b Buffer) error {
	a.wbase, a.cols, a.vbase, a.viewwords = C.GLuint(wbase), C.GLuint(cols), C.GLuint(vbase), C.GLuint(viewwords)
	a.ebase, a.viewelems, a.nwords = 0, 0, 0
	a.gx, a.gy, a.gz = C.GLuint((a.w+15)/16), C.GLuint((a.h+15)/16), C.GLuint(nz)
	if a.gx > 65535 || a.gy > 65535 {
		return fmt.Errorf("egl: Converter.Convert: a %dx%d view is too large for one dispatch", a.w, a.h)
	}
	return cv.run(cv.fast, &cv.floc[0], &cv.flast, &cv.fset, tex, a, b)
}

// runQuad is runFast with the 4-pixel program (quadLayout).
func (cv *Converter) runQuad(tex Texture, a *C.gfx_cv_args, wbase uint64, cols, vbase, nz int, viewwords uint64, b Buffer) error {
	a.wbase, a.cols, a.vbase, a.viewwords = C.GLuint(wbase), C.GLuint(cols), C.GLuint(vbase), C.GLuint(viewwords)
	a.ebase, a.viewelems, a.nwords = 0, 0, 0
	a.gx, a.gy, a.gz = C.GLuint((a.w/4+15)/16), C.GLuint((a.h+15)/16), C.GLuint(nz)
	if a.gx > 65535 || a.gy > 65535 {
		return fmt.Errorf("egl: Converter.Convert: a %dx%d view is too large for one dispatch", a.w, a.h)
	}
	cv.quadRuns++
	return cv.run(cv.quad, &cv.qloc[0], &cv.qlast, &cv.qset, tex, a, b)
}

// run dispatches program prog (uniform locations loc; the arguments its
// uniforms hold, held, once set) with arguments a.
func (cv *Converter) run(prog C.GLuint, loc *C.GLint, held *C.gfx_cv_args, set *bool, tex Texture, a *C.gfx_cv_args, b Buffer) error {
	uniforms := C.int(1)
	if *set && *a == *held {
		uniforms = 0
	}
	e := C.gfx_cv_run(prog, loc, cv.sampler, cv.unit, C.GLuint(tex), C.GLuint(b), a, uniforms)
	*held, *set = *a, e == 0
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
	C.gfx_cv_delete(0, cv.sampler)
	cv.sampler = 0
	cv.deletePrograms()
	return nil
}
