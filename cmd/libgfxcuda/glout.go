package main

/*
#include "gfxcuda.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
)

// glOut is a tensor the caller's GL renderer's frames were converted into
// by GL itself (gfxcuda_gl_write_tensors): a Buffer of the shared device's
// pool, written by GL and read by CUDA in place, complete when the call
// returns — no CUDA work was queued for it. Released, it goes back to the
// pool, which reuses it once the streams that read it (noted as for cached
// memory, gfxcuda_cuda_note_stream) have passed it.
type glOut struct {
	b    *gfxcuda.Buffer
	n    uint64 // the tensor's bytes; the buffer may be larger
	pool *glOutPool

	mu      sync.Mutex
	streams []uintptr
}

// note adds a stream that reads the tensor (the legacy default stream and
// the per-thread one are always covered).
func (o *glOut) note(stream uintptr) {
	if stream == 0 || stream == cuda.LegacyDefaultStream || stream == cuda.PerThreadDefaultStream {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.streams {
		if s == stream {
			return
		}
	}
	o.streams = append(o.streams, stream)
}

// release gives the buffer back to its pool.
func (o *glOut) release() error {
	o.mu.Lock()
	streams := o.streams
	o.mu.Unlock()
	return o.pool.put(o.b, streams)
}

// glOutPool keeps a shared device's idle GL-written tensors' buffers.
type glOutPool struct {
	sd *sharedDevice

	mu     sync.Mutex
	idle   []glIdle
	bytes  uint64
	closed bool
}

// glIdle is an idle buffer and the events that say when the streams that
// read it have passed it (none: they were idle when it came back).
type glIdle struct {
	b      *gfxcuda.Buffer
	events []*cuda.Event
}

// glOutLimit is the idle memory a pool keeps (more only while streams
// still read it, or for one buffer larger than it); glOutMargin the bytes
// a buffer has past its tensor (llvmpipe reads 48 bytes past a GL buffer).
const (
	glOutLimit  = 1 << 30
	glOutMargin = 64
)

// get returns an idle buffer of exactly n+glOutMargin bytes whose readers
// have passed it, or a new one.
func (p *glOutPool) get(n uint64) (*gfxcuda.Buffer, error) {
	size := n + glOutMargin
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errorf(stInvalid, "gfxcuda: the shared device is closed")
	}
	for i, e := range p.idle {
		if e.b.Size() != size || !passed(e.events) {
			continue
		}
		p.idle = append(p.idle[:i:i], p.idle[i+1:]...)
		p.bytes -= size
		p.mu.Unlock()
		closeEvents(e.events)
		return e.b, nil
	}
	p.mu.Unlock()
	return p.sd.d.NewBuffer(size)
}

// passed reports whether every event has been reached (an error counts as
// not yet).
func passed(es []*cuda.Event) bool {
	for _, e := range es {
		if done, err := e.Done(); err != nil || !done {
			return false
		}
	}
	return true
}

func closeEvents(es []*cuda.Event) {
	for _, e := range es {
		e.Close()
	}
}

// put takes b back once the work queued so far on streams (raw handles)
// and on the legacy default stream has passed: an event on each that is
// busy now, none on an idle one (a stream with nothing queued gets no work
// from this, which after GL's work would wait for the GPU to switch to
// CUDA). Over the pool's limit, or after close, b is closed instead.
func (p *glOutPool) put(b *gfxcuda.Buffer, streams []uintptr) error {
	if glTrace {
		t0 := time.Now()
		defer func() { fmt.Fprintf(os.Stderr, "GLTRACE put %d\n", time.Since(t0).Microseconds()) }()
	}
	handles := []uintptr{cuda.LegacyDefaultStream}
	for _, s := range streams {
		if s != 0 && s != cuda.LegacyDefaultStream && s != cuda.PerThreadDefaultStream {
			handles = append(handles, s)
		}
	}
	var events []*cuda.Event
	var err error
	for _, h := range handles {
		s, done, serr := p.sd.stream(uint64(h))
		if serr != nil {
			err = serr
			break
		}
		idle, qerr := s.Done()
		if qerr == nil && idle {
			done()
			continue
		}
		e, eerr := p.sd.d.CUDA().NewEvent(cuda.EventDisableTiming)
		if eerr == nil {
			eerr = e.Record(s)
			if eerr != nil {
				e.Close()
			}
		}
		done()
		if eerr != nil {
			err = eerr
			break
		}
		events = append(events, e)
	}
	p.mu.Lock()
	if err != nil || p.closed {
		p.mu.Unlock()
		if err != nil {
			// Not kept: closing it waits for the device.
			err = fmt.Errorf("gfxcuda: a GL-written tensor given back: %w", err)
		}
		closeEvents(events)
		return errors.Join(err, b.Close())
	}
	// Over the limit, the idle buffers given back longest ago that no
	// stream still reads make room; b is kept whatever is left (a batch's
	// buffer larger than the limit is reused too, not made each call).
	var evicted []glIdle
	kept := p.idle[:0]
	for _, e := range p.idle {
		if p.bytes+b.Size() > glOutLimit && passed(e.events) {
			evicted = append(evicted, e)
			p.bytes -= e.b.Size()
			continue
		}
		kept = append(kept, e)
	}
	p.idle = append(kept, glIdle{b, events})
	p.bytes += b.Size()
	p.mu.Unlock()
	for _, e := range evicted {
		closeEvents(e.events)
		err = errors.Join(err, e.b.Close())
	}
	return err
}

// close frees the idle buffers; buffers given back afterwards are closed.
func (p *glOutPool) close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed, p.bytes = nil, true, 0
	p.mu.Unlock()
	var err error
	for _, e := range idle {
		closeEvents(e.events)
		err = errors.Join(err, e.b.Close())
	}
	return err
}

// glWrite reports whether gfxcuda_gl_write_tensors is on
// (GFXCUDA_GL_WRITE=0 turns it off: Python's to_tensor then converts with
// CUDA, as before).
var glWrite = os.Getenv("GFXCUDA_GL_WRITE") != "0"

// glTrace (GFXCUDA_GL_TRACE, an experiment's) prints the call's phases.
var glTrace = os.Getenv("GFXCUDA_GL_TRACE") != ""

//export gfxcuda_gl_write_tensors
func gfxcuda_gl_write_tensors(srcs *C.uint64_t, n C.int, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_gl_write_tensors: null output")
		}
		if !glWrite {
			return errorf(stUnsupported, "gfxcuda_gl_write_tensors: turned off (GFXCUDA_GL_WRITE=0)")
		}
		if srcs == nil || n <= 0 || n > 1<<16 {
			return errorf(stInvalid, "gfxcuda_gl_write_tensors: %d sources; pass an array of 1 to 65536", n)
		}
		if size == 0 {
			return errorf(stInvalid, "gfxcuda_gl_write_tensors: a tensor of 0 bytes")
		}
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		l, err := tensorLayout(layout)
		if err != nil {
			return err
		}
		list := unsafe.Slice(srcs, int(n))
		gs := make([]*gfxcuda.GraphicsSource, len(list))
		for i, h := range list {
			s, err := get[*glSource](uint64(h), "GL source")
			if err != nil {
				return err
			}
			gs[i] = s.g
		}
		if need := gs[0].TensorBytes(l) * uint64(len(gs)); uint64(size) != need {
			return errorf(stInvalid, "gfxcuda_gl_write_tensors: %d bytes asked, %d frames of that layout are %d", uint64(size), len(gs), need)
		}
		p := sd.glPool()
		t0 := time.Now()
		p.mu.Lock()
		nidle := len(p.idle)
		p.mu.Unlock()
		b, err := p.get(uint64(size))
		if err != nil {
			return err
		}
		t1 := time.Now()
		err = gfxcuda.GraphicsWriteTensorsTo(sd.d, b, 0, l, gs...)
		if glTrace {
			p.mu.Lock()
			nidle2 := len(p.idle)
			p.mu.Unlock()
			fmt.Fprintf(os.Stderr, "GLTRACE call get=%d idle=%d->%d write=%d\n", t1.Sub(t0).Microseconds(), nidle, nidle2, time.Since(t1).Microseconds())
		}
		if err != nil {
			if errors.Is(err, gfxcuda.ErrUnsupported) {
				err = &statusError{stUnsupported, err} // depth, or a GL that cannot: gfxcuda_gl_to_tensors can
			}
			return errors.Join(glStatus(err), p.put(b, nil))
		}
		o := &glOut{b: b, n: uint64(size), pool: p}
		return store(out, o, o.release, uint64(dev))
	})
}
