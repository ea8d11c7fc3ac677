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
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/dlpack"
	"github.com/gfxcuda/gfxcuda/tensor"
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

//export gfxcuda_gl_write_tensors
func gfxcuda_gl_write_tensors(srcs *C.uint64_t, n C.int, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_gl_write_tensors: null output")
		}
		o, _, _, err := glWriteOut("gfxcuda_gl_write_tensors", srcs, n, dev, layout, size, nil)
		if err != nil {
			return err
		}
		return store(out, o, o.release, uint64(dev))
	})
}

//export gfxcuda_gl_write_dlpack
func gfxcuda_gl_write_dlpack(srcs *C.uint64_t, n C.int, batch C.int, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t, stream C.uint64_t,
	versioned C.int, managed *unsafe.Pointer) C.int {
	return call(func() error {
		if managed == nil {
			return errorf(stInvalid, "gfxcuda_gl_write_dlpack: null output")
		}
		if n != 1 && batch == 0 {
			return errorf(stInvalid, "gfxcuda_gl_write_dlpack: %d sources without the N dimension; pass batch 1", n)
		}
		var dims []int64
		o, sd, l, err := glWriteOut("gfxcuda_gl_write_dlpack", srcs, n, dev, layout, 0, &dims)
		if err != nil {
			return err
		}
		if batch == 0 {
			dims = dims[1:]
		}
		return exportGLOut(o, sd, uint64(dev), l, dims, stream, versioned, managed)
	})
}

// exportGLOut hands o out as a DLPack tensor of dims and l's element
// type, its memory back to the pool (after stream and the legacy default
// stream pass what they have queued then) when its deleter runs. The
// tensor holds a reference on the shared device's handle dev until then,
// so that its memory outlives a release of the device.
func exportGLOut(o *glOut, sd *sharedDevice, dev uint64, l tensor.Layout, dims []int64, stream C.uint64_t, versioned C.int,
	managed *unsafe.Pointer) error {
	o.note(uintptr(stream))
	if err := retain(dev); err != nil {
		return errors.Join(err, o.release())
	}
	done := func() {
		o.release()
		release(dev)
	}
	t := dlpack.Tensor{Data: uintptr(o.b.Ptr()), Device: dlpack.Device{Type: dlpack.CUDA, ID: int32(sd.ordinal)},
		DType: l.DType, Shape: dims}
	p, err := dlpack.Export(t, versioned != 0, done)
	if err != nil {
		done()
		return &statusError{stInvalid, err}
	}
	*managed = p
	return nil
}

//export gfxcuda_gl_write_tiles_dlpack
func gfxcuda_gl_write_tiles_dlpack(src C.uint64_t, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t, cols, rows, n C.int,
	stream C.uint64_t, versioned C.int, managed *unsafe.Pointer) C.int {
	return call(func() error {
		const what = "gfxcuda_gl_write_tiles_dlpack"
		if managed == nil {
			return errorf(stInvalid, "%s: null output", what)
		}
		if !glWrite {
			return errorf(stUnsupported, "%s: turned off (GFXCUDA_GL_WRITE=0)", what)
		}
		sd, l, gs, err := glArgs(what, &src, 1, dev, layout)
		if err != nil {
			return err
		}
		tiles := gfxcuda.Tiles{Cols: int(cols), Rows: int(rows), N: int(n)}
		need, err := gs[0].TilesTensorBytes(l, tiles)
		if err != nil {
			return glStatus(err)
		}
		g := gs[0].Source()
		tw, th, _ := tiles.Size(uint32(g.Width()), uint32(g.Height())) // checked by TilesTensorBytes
		dims, _ := layoutShape(l, tiles.N, tw, th, 0)
		o, err := sd.glPool().write(need, func(b *gfxcuda.Buffer) error {
			return gfxcuda.GraphicsWriteTilesTo(sd.d, b, 0, l, tiles, gs[0])
		})
		if err != nil {
			return err
		}
		return exportGLOut(o, sd, uint64(dev), l, dims, stream, versioned, managed)
	})
}

// glWriteOut converts n GL sources (handles at srcs) into a buffer of
// shared device dev's pool with GL (GraphicsWriteTensorsTo), and returns
// it with the shared device and the layout decoded. size, when not 0,
// must be the tensor's bytes; dims, when not nil, gets the tensor's shape
// with N first.
func glWriteOut(what string, srcs *C.uint64_t, n C.int, dev C.uint64_t, layout *C.gfxcuda_tensor_layout_t, size C.uint64_t,
	dims *[]int64) (*glOut, *sharedDevice, tensor.Layout, error) {
	if !glWrite {
		return nil, nil, tensor.Layout{}, errorf(stUnsupported, "%s: turned off (GFXCUDA_GL_WRITE=0)", what)
	}
	sd, l, gs, err := glArgs(what, srcs, n, dev, layout)
	if err != nil {
		return nil, nil, l, err
	}
	need := gs[0].TensorBytes(l) * uint64(len(gs))
	if size != 0 && uint64(size) != need {
		return nil, nil, l, errorf(stInvalid, "%s: %d bytes asked, %d frames of that layout are %d", what, uint64(size), len(gs), need)
	}
	if need == 0 {
		return nil, nil, l, errorf(stInvalid, "%s: a tensor of 0 bytes", what)
	}
	if dims != nil {
		src := gs[0].Source()
		*dims, _ = layoutShape(l, len(gs), uint32(src.Width()), uint32(src.Height()), 0)
	}
	o, err := sd.glPool().write(need, func(b *gfxcuda.Buffer) error {
		return gfxcuda.GraphicsWriteTensorsTo(sd.d, b, 0, l, gs...)
	})
	return o, sd, l, err
}

// write takes a buffer of need bytes from the pool and has the graphics
// API write it (GraphicsWrite*To): the written tensor, or the buffer back
// in the pool and write's error as a status (ErrUnsupported, for depth or
// a GL that cannot, is GFXCUDA_ERR_UNSUPPORTED: CUDA's converter can).
func (p *glOutPool) write(need uint64, write func(*gfxcuda.Buffer) error) (*glOut, error) {
	b, err := p.get(need)
	if err != nil {
		return nil, err
	}
	if err := write(b); err != nil {
		if errors.Is(err, gfxcuda.ErrUnsupported) {
			err = &statusError{stUnsupported, err}
		}
		return nil, errors.Join(glStatus(err), p.put(b, nil))
	}
	return &glOut{b: b, n: need, pool: p}, nil
}
