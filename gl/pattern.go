package gl

import (
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// Pattern is a GL compute program that fills buffers with pseudo-random
// frames derived from a 32-bit seed, on the GPU: a stand-in for a
// renderer's pass in tests and benchmarks (a GPU write of every byte,
// cheap where graphics units are scarce, incompressible, and checkable
// byte for byte against PatternBytes). It needs desktop OpenGL 4.3 or
// later (compute shaders), which every Open context has unless it asked
// for OpenGL ES.
type Pattern struct {
	c *Context
	p *egl.Pattern

	mu     sync.Mutex
	closed bool
}

// NewPattern compiles and links the pattern program in the context.
// Close (of the Pattern or the Context) deletes it.
func (c *Context) NewPattern() (*Pattern, error) {
	var p *egl.Pattern
	err := c.do(func(_ *egl.Context) (err error) {
		p, err = egl.NewPattern()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: NewPattern: %w", err)
	}
	pat := &Pattern{c: c, p: p}
	return pat, c.addOrDelete(pat)
}

// Fill queues a GPU write of the first n bytes of b (n a positive multiple
// of 4) with the frame of seed, which PatternBytes computes on the host,
// followed by a memory barrier for GL's later reads of b. It leaves GL's
// current program and shader storage binding 0 as they were.
func (p *Pattern) Fill(b *Buffer, n int, seed uint32) error {
	if err := b.check(0, n); err != nil {
		return err
	}
	if b.c != p.c {
		return fmt.Errorf("gl: Pattern.Fill: the buffer belongs to another context")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	return p.c.do(func(_ *egl.Context) error {
		if err := p.p.Fill(egl.Buffer(b.name), n, seed); err != nil {
			return fmt.Errorf("gl: %w", err)
		}
		return nil
	})
}

// Close deletes the program. Idempotent.
func (p *Pattern) Close() error {
	p.c.remove(p)
	return p.close()
}

func (p *Pattern) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	return p.c.e.Do(p.p.Delete)
}

// PatternBytes writes into dst the frame that Pattern.Fill writes with
// seed into the first len(dst) bytes of a buffer (len(dst) a multiple of
// 4): the reference for checking frames byte for byte.
func PatternBytes(dst []byte, seed uint32) { egl.PatternBytes(dst, seed) }
