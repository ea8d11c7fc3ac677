package gfxcuda

import (
	"errors"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// cudaSide is what the hand-off state machine (ToCUDA, Done, Submit, Ring)
// uses of CUDA: streams, events, and Vulkan semaphores imported into CUDA.
// The driver implements it (driverCUDA). Tests implement it on the host
// (fake_test.go) to check the state machine on the CPU against a real
// Vulkan driver (lavapipe); nothing else does. Streams are *cuda.Stream
// values, which the fake treats as opaque keys.
type cudaSide interface {
	// newStream creates the Device's own stream.
	newStream() (*cuda.Stream, error)
	closeStream(s *cuda.Stream) error
	// syncContext waits until the context's work has finished.
	syncContext() error
	// exportable says whether semaphores must be created exportable.
	exportable() bool
	// importSemaphore imports a timeline semaphore made by Vulkan.
	importSemaphore(s *vulkan.Semaphore) (extSem, error)
	newEvent() (event, error)
	// streamIdle reports whether everything queued on s has finished (a
	// host query; nothing is queued on the GPU).
	streamIdle(s *cuda.Stream) (bool, error)
}

// extSem is a Vulkan timeline semaphore seen by CUDA.
type extSem interface {
	// wait makes later work on s wait until the semaphore reaches v.
	wait(s *cuda.Stream, v uint64) error
	// signal sets the semaphore to v once the work queued on s has finished.
	signal(s *cuda.Stream, v uint64) error
	close() error
}

// event is a CUDA event.
type event interface {
	// record marks the current end of s (nil: the legacy default stream).
	record(s *cuda.Stream) error
	// waitedBy makes later work on s wait for the recorded point.
	waitedBy(s *cuda.Stream) error
	// done reports whether the recorded point has been reached.
	done() (bool, error)
	// synchronize waits on the host for the recorded point.
	synchronize() error
	close() error
}

// driverCUDA is the cudaSide of a real CUDA context.
type driverCUDA struct{ ctx *cuda.Context }

func (c driverCUDA) newStream() (*cuda.Stream, error) { return c.ctx.NewStream(cuda.StreamNonBlocking) }
func (c driverCUDA) closeStream(s *cuda.Stream) error { return s.Close() }
func (c driverCUDA) syncContext() error               { return c.ctx.Synchronize() }
func (c driverCUDA) exportable() bool                 { return true }

func (c driverCUDA) streamIdle(s *cuda.Stream) (bool, error) { return s.Done() }

func (c driverCUDA) importSemaphore(s *vulkan.Semaphore) (extSem, error) {
	fd, err := s.ExportFD()
	if err != nil {
		return nil, err
	}
	x, err := c.ctx.ImportSemaphoreFD(fd, true) // takes fd
	if err != nil {
		return nil, err
	}
	return driverSem{x}, nil
}

func (c driverCUDA) newEvent() (event, error) {
	e, err := c.ctx.NewEvent(cuda.EventDisableTiming)
	if err != nil {
		return nil, err
	}
	return driverEvent{e}, nil
}

type driverSem struct{ x *cuda.ExternalSemaphore }

func (s driverSem) wait(st *cuda.Stream, v uint64) error   { return s.x.Wait(st, v) }
func (s driverSem) signal(st *cuda.Stream, v uint64) error { return s.x.Signal(st, v) }
func (s driverSem) close() error                           { return s.x.Close() }

type driverEvent struct{ e *cuda.Event }

func (e driverEvent) record(s *cuda.Stream) error   { return e.e.Record(s) }
func (e driverEvent) waitedBy(s *cuda.Stream) error { return s.WaitEvent(e.e) }
func (e driverEvent) done() (bool, error)           { return e.e.Done() }
func (e driverEvent) synchronize() error            { return e.e.Synchronize() }
func (e driverEvent) close() error                  { return e.e.Close() }

// order makes later work on to wait for the work queued on from so far,
// without blocking the host (nothing when they are the same stream).
func order(cs cudaSide, from, to *cuda.Stream) error {
	if from == to {
		return nil
	}
	ev, err := cs.newEvent()
	if err != nil {
		return err
	}
	err = ev.record(from)
	if err == nil {
		err = ev.waitedBy(to)
	}
	return errors.Join(err, ev.close()) // the driver keeps it until the wait is resolved
}

// hostWait waits on the host until the work queued on s so far has
// finished, without waiting for work queued later.
func hostWait(cs cudaSide, s *cuda.Stream) error {
	ev, err := cs.newEvent()
	if err != nil {
		return err
	}
	err = ev.record(s)
	if err == nil {
		err = ev.synchronize()
	}
	return errors.Join(err, ev.close())
}
