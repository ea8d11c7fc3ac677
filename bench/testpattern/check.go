package testpattern

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/kernels"
)

// NoneWrong is Checker.Result's first wrong index when no texel was wrong.
const NoneWrong = 0xffffffff

// Checker checks frames of the pattern on a CUDA GPU with gfxcuda's
// gfx_check_hash kernel: Check queues it over one frame, and it adds the
// frame's wrong texels to a counter in GPU memory and keeps the smallest
// wrong texel index seen; Result reads both once the queued checks are
// done. CheckWrongSeed checks a frame against a seed it was not made
// with, into a second counter, so that Verify can tell a checker that ran
// from one that did not. The counters start at zero.
type Checker struct {
	cx   *cuda.Context
	mod  *cuda.Module
	fn   *cuda.Function
	errs *cuda.DeviceMemory // per counter: uint64 wrong texels, uint32 first wrong index, 4 unused
	grid cuda.Dim3
	// selfTexels: the texels CheckWrongSeed checked.
	selfTexels uint64
}

// Counts are a Checker's counters.
type Counts struct {
	Wrong     uint64 // wrong texels over the frames checked
	First     uint32 // the first wrong texel's index (NoneWrong: none)
	WrongSeed uint64 // texels found wrong by CheckWrongSeed
}

// NewChecker loads the kernel into cx. blocks is its grid (of 256
// threads, looping over the frame); 0 gives 264.
func NewChecker(cx *cuda.Context, blocks uint32) (_ *Checker, err error) {
	if blocks == 0 {
		blocks = 264
	}
	c := &Checker{cx: cx, grid: cuda.Dim3{X: blocks}}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if c.mod, err = cx.LoadModule(kernels.PTX); err != nil {
		return nil, err
	}
	if c.fn, err = c.mod.Function(kernels.CheckHash); err != nil {
		return nil, err
	}
	if c.errs, err = cx.Alloc(32); err != nil {
		return nil, err
	}
	return c, c.Reset()
}

// Reset sets the counter back to zero (and the first wrong index to
// NoneWrong); it returns when that is done. Checks still queued may count
// after it: reset between runs, after their streams' work.
func (c *Checker) Reset() error {
	c.selfTexels = 0
	return errors.Join(c.cx.Memset8(c.errs.Ptr(), 0, 32), c.cx.Memset32(c.errs.Ptr().Add(8), NoneWrong, 1),
		c.cx.Memset32(c.errs.Ptr().Add(24), NoneWrong, 1))
}

// Check queues on s the check of texels RGBA8 texels at p against the
// pattern made with seed (Seed(frame) for a frame).
func (c *Checker) Check(s *cuda.Stream, p cuda.DevicePtr, texels uint64, seed uint32) error {
	return c.fn.Launch(s, c.grid, cuda.Dim3{X: 256}, 0, p, texels, seed, c.errs.Ptr(), c.errs.Ptr().Add(8))
}

// CheckWrongSeed queues on s the check of a frame made with seed against
// another seed, into the second counter: every texel (but a chance few)
// must come out wrong, or the checker did not run (Verify).
func (c *Checker) CheckWrongSeed(s *cuda.Stream, p cuda.DevicePtr, texels uint64, seed uint32) error {
	c.selfTexels += texels
	return c.fn.Launch(s, c.grid, cuda.Dim3{X: 256}, 0, p, texels, seed^1, c.errs.Ptr().Add(16), c.errs.Ptr().Add(24))
}

// Result waits for the work queued on s so far (nil: queued elsewhere and
// finished) and returns the counters.
func (c *Checker) Result(s *cuda.Stream) (Counts, error) {
	if s != nil {
		if err := s.Synchronize(); err != nil {
			return Counts{}, err
		}
	}
	// A synchronous copy: Stream.CopyDtoH takes only pinned memory.
	var b [32]byte
	if err := c.cx.CopyDtoH(b[:], c.errs.Ptr()); err != nil {
		return Counts{}, err
	}
	le := binary.LittleEndian
	return Counts{Wrong: le.Uint64(b[:]), First: le.Uint32(b[8:]), WrongSeed: le.Uint64(b[16:])}, nil
}

// Verify is Result (frames: how many frames were checked, for the
// message), failing when a texel was wrong, or when CheckWrongSeed ran
// and the checker did not see its frames wrong.
func (c *Checker) Verify(s *cuda.Stream, frames int) error {
	n, err := c.Result(s)
	if err != nil {
		return err
	}
	if n.Wrong != 0 {
		return fmt.Errorf("%d wrong texels over %d frames (first at texel %d)", n.Wrong, frames, n.First)
	}
	return c.Ran(n)
}

// Ran fails when CheckWrongSeed ran and the checker did not see its
// frames wrong (n: a Result): the kernel did not run.
func (c *Checker) Ran(n Counts) error {
	// Of texels checked against a wrong seed, a few may match by chance
	// (one in 2³² each); two in a frame would be remarkable already.
	if c.selfTexels > 0 && n.WrongSeed+2 < c.selfTexels {
		return fmt.Errorf("the checker found only %d of %d texels wrong against a wrong seed: it did not run", n.WrongSeed, c.selfTexels)
	}
	return nil
}

// Close frees the counter and the kernel (after the checks queued: wait
// for their streams first). Idempotent.
func (c *Checker) Close() error {
	var err error
	if c.errs != nil {
		err = c.errs.Close()
		c.errs = nil
	}
	if c.mod != nil {
		err = errors.Join(err, c.mod.Close())
		c.mod = nil
	}
	return err
}
