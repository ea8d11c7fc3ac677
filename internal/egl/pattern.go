package egl

/*
#include <stdint.h>
#include <stdlib.h>
#include "cs.h"

uintptr_t gfx_egl_current(void); // egl.c

// gfx_pat_fill dispatches the program over buffer buf (binding 0), the
// current program and binding 0 restored afterwards.
static GLenum gfx_pat_fill(GLuint p, GLint lseed, GLint ln, GLuint buf, GLuint words, GLuint seed, GLuint gx, GLuint gy) {
	GLint prog = 0, bound = 0;
	gfx_cs_errors();
	gfx_cs.GetIntegerv(GL_CURRENT_PROGRAM, &prog);
	gfx_cs.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 0, &bound);
	gfx_cs.ProgramUniform1ui(p, lseed, seed);
	gfx_cs.ProgramUniform1ui(p, ln, words);
	gfx_cs.UseProgram(p);
	gfx_cs.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
	gfx_cs.DispatchCompute(gx, gy, 1);
	// Later GL reads of the buffer (copies, readback, mapping) see the writes.
	gfx_cs.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT);
	gfx_cs.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, (GLuint)bound);
	gfx_cs.UseProgram((GLuint)prog);
	return gfx_cs_errors();
}

static void gfx_pat_delete(GLuint p) { gfx_cs.DeleteProgram(p); }
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
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
	p, err := buildCompute("pattern", patternSource)
	if err != nil {
		return nil, err
	}
	pat := &Pattern{prog: p, lseed: uniform(p, "seed"), lnum: uniform(p, "n")}
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
