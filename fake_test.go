package gfxcuda

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// fakeCUDA is a cudaSide that runs on the host, to test the hand-off state
// machine on the CPU with a real Vulkan driver (lavapipe): streams are
// queues of operations that run only when the test says so (run, runAll,
// or auto), semaphore waits poll the Vulkan semaphore, and signals set it
// from the host, recording an error if a value would go backwards. It
// stands in for CUDA only; the Vulkan side is real.
type fakeCUDA struct {
	mu      sync.Mutex
	cond    *sync.Cond
	streams map[*cuda.Stream]*fakeStream // nil key: the legacy default stream
	errs    []string                     // order violations seen
	// failWait, when set, makes the next semaphore wait fail to queue.
	failWait error
	stop     chan struct{}
}

type fakeStream struct {
	name string
	ops  []fakeOp
}

type fakeOp struct {
	what  string
	ready func() bool // whether it may run now (nil: yes)
	run   func()
}

func newFakeCUDA() *fakeCUDA {
	f := &fakeCUDA{streams: map[*cuda.Stream]*fakeStream{nil: {name: "legacy"}}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// newStream returns a new stream key; the fake never calls its methods.
func (f *fakeCUDA) newStream() (*cuda.Stream, error) {
	s := new(cuda.Stream)
	f.mu.Lock()
	f.streams[s] = &fakeStream{name: fmt.Sprintf("stream %d", len(f.streams))}
	f.mu.Unlock()
	return s, nil
}

func (f *fakeCUDA) closeStream(s *cuda.Stream) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.streams[s].ops) > 0 {
		f.cond.Wait()
	}
	delete(f.streams, s)
	return nil
}

func (f *fakeCUDA) syncContext() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		busy := false
		for _, st := range f.streams {
			busy = busy || len(st.ops) > 0
		}
		if !busy {
			return nil
		}
		f.cond.Wait()
	}
}

func (f *fakeCUDA) exportable() bool { return false }

// queue adds an operation to stream s.
func (f *fakeCUDA) queue(s *cuda.Stream, op fakeOp) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.streams[s]
	if !ok {
		return fmt.Errorf("fake CUDA: unknown stream %p", s)
	}
	st.ops = append(st.ops, op)
	return nil
}

// step runs the ready operations at the head of the given streams (all
// when none is given) and reports whether any ran.
func (f *fakeCUDA) step(only ...*cuda.Stream) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	ran := false
	for key, st := range f.streams {
		if len(only) > 0 {
			found := false
			for _, o := range only {
				found = found || o == key
			}
			if !found {
				continue
			}
		}
		for len(st.ops) > 0 && (st.ops[0].ready == nil || st.ops[0].ready()) {
			op := st.ops[0]
			st.ops = st.ops[1:]
			op.run()
			ran = true
		}
	}
	if ran {
		f.cond.Broadcast()
	}
	return ran
}

// run runs the given streams (all when none is given) as far as they can
// go within a short time (waiting for Vulkan where they wait on it).
func (f *fakeCUDA) run(only ...*cuda.Stream) {
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) {
		if f.step(only...) {
			deadline = time.Now().Add(200 * time.Millisecond)
			continue
		}
		if f.idle(only...) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// idle reports whether the given streams (all when none) have nothing queued.
func (f *fakeCUDA) idle(only ...*cuda.Stream) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, st := range f.streams {
		for _, o := range only {
			if o == key {
				goto check
			}
		}
		if len(only) > 0 {
			continue
		}
	check:
		if len(st.ops) > 0 {
			return false
		}
	}
	return true
}

// auto runs every stream in the background until the test ends.
func (f *fakeCUDA) auto(t testing.TB) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if !f.step() {
				time.Sleep(200 * time.Microsecond)
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

func (f *fakeCUDA) violation(format string, a ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, a...)) // called with f.mu held
}

func (f *fakeCUDA) violations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

type fakeSem struct {
	f  *fakeCUDA
	vk *vulkan.Semaphore
}

func (f *fakeCUDA) importSemaphore(s *vulkan.Semaphore) (extSem, error) {
	return &fakeSem{f: f, vk: s}, nil
}

func (s *fakeSem) wait(st *cuda.Stream, v uint64) error {
	s.f.mu.Lock()
	err := s.f.failWait
	s.f.failWait = nil
	s.f.mu.Unlock()
	if err != nil {
		return err
	}
	return s.f.queue(st, fakeOp{what: fmt.Sprintf("wait %d", v), ready: func() bool {
		cur, err := s.vk.Value()
		return err == nil && cur >= v
	}, run: func() {}})
}

func (s *fakeSem) signal(st *cuda.Stream, v uint64) error {
	return s.f.queue(st, fakeOp{what: fmt.Sprintf("signal %d", v), run: func() {
		cur, err := s.vk.Value()
		if err != nil {
			s.f.violation("signal %d: %v", v, err)
			return
		}
		if v <= cur {
			s.f.violation("signal %d after %d: timeline going backwards", v, cur)
			return
		}
		if err := s.vk.Signal(v); err != nil {
			s.f.violation("signal %d: %v", v, err)
		}
	}})
}

func (s *fakeSem) close() error { return nil }

type fakeEvent struct {
	f                   *fakeCUDA
	recorded, completed int // generations
}

func (f *fakeCUDA) newEvent() (event, error) { return &fakeEvent{f: f}, nil }

func (f *fakeCUDA) streamIdle(s *cuda.Stream) (bool, error) { return f.idle(s), nil }

func (e *fakeEvent) record(s *cuda.Stream) error {
	e.f.mu.Lock()
	e.recorded++
	g := e.recorded
	e.f.mu.Unlock()
	return e.f.queue(s, fakeOp{what: "record", run: func() { e.completed = max(e.completed, g) }})
}

func (e *fakeEvent) waitedBy(s *cuda.Stream) error {
	e.f.mu.Lock()
	g := e.recorded
	e.f.mu.Unlock()
	return e.f.queue(s, fakeOp{what: "wait event", ready: func() bool { return e.completed >= g }, run: func() {}})
}

func (e *fakeEvent) done() (bool, error) {
	e.f.mu.Lock()
	defer e.f.mu.Unlock()
	return e.completed >= e.recorded, nil
}

func (e *fakeEvent) synchronize() error {
	e.f.mu.Lock()
	defer e.f.mu.Unlock()
	g := e.recorded
	for e.completed < g {
		e.f.cond.Wait()
	}
	return nil
}

func (e *fakeEvent) close() error { return nil }

// fakeDevice opens a Vulkan device (lavapipe on the CPU) with validation
// and an interop Device over it whose CUDA side is fake.
func fakeDevice(t testing.TB) (*Device, *fakeCUDA) {
	t.Helper()
	on := true
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
	pds, err := inst.PhysicalDevices()
	if err != nil {
		t.Fatal(errors.Join(err, inst.Close()))
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		t.Fatal(errors.Join(err, inst.Close()))
	}
	f := newFakeCUDA()
	d, err := newDeviceWith(vd, f)
	if err != nil {
		t.Fatal(errors.Join(err, inst.Close()))
	}
	d.inst, d.ownVK = inst, true
	t.Cleanup(func() {
		// Let the fake streams finish whatever the test left queued.
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
					f.run()
				}
			}
		}()
		err := d.Close()
		close(stop)
		if err != nil {
			t.Errorf("Device.Close: %v", err)
		}
		if v := f.violations(); len(v) > 0 {
			t.Errorf("fake CUDA saw %d ordering violations, first: %s", len(v), v[0])
		}
		var msgs []string
		for _, m := range inst.TakeValidationErrors() {
			// The fake signals CUDA's semaphores from the host, which
			// the validation layer checks against the queue's pending
			// waits as if they were signals (real CUDA signals it does
			// not see).
			if !strings.Contains(m, "VUID-VkSemaphoreSignalInfo-value-03259") {
				msgs = append(msgs, m)
			}
		}
		if len(msgs) > 0 {
			t.Errorf("%d Vulkan validation errors, first: %s", len(msgs), msgs[0])
		}
	})
	return d, f
}

// fakeBuffer makes a Buffer of the Device with only its Vulkan side (CUDA
// is fake): a storage buffer Upload and Readback can reach.
func fakeBuffer(t testing.TB, d *Device, size uint64) *Buffer {
	t.Helper()
	return fakeBufferOf(t, d, vulkan.BufferOptions{Size: size})
}

// fakeBufferOf is fakeBuffer of a Vulkan buffer made with o.
func fakeBufferOf(t testing.TB, d *Device, o vulkan.BufferOptions) *Buffer {
	t.Helper()
	size := o.Size
	vb, err := d.vk.NewBuffer(o)
	if err != nil {
		t.Fatal(err)
	}
	b := &Buffer{s: state{d: d}, vk: vb, size: size}
	d.mu.Lock()
	d.adopt(b, &b.s, guardBuffer(vb))
	d.mu.Unlock()
	return b
}

// fakeTexture makes a Texture of the Device with only its Vulkan side.
func fakeTexture(t testing.TB, d *Device, w, h uint32) *Texture {
	t.Helper()
	o := TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h, Layers: 1,
		Usage: vulkan.ImageTransferSrc | vulkan.ImageTransferDst | vulkan.ImageStorage}
	img, err := d.vk.NewImage(vulkan.ImageOptions{Dim: vulkan.Image2D, Format: uint32(o.Format), Width: w, Height: h, Layers: 1, Usage: o.Usage})
	if err != nil {
		t.Fatal(err)
	}
	tex := &Texture{s: state{d: d}, o: o, info: o.Format.Info(), vk: img}
	d.mu.Lock()
	d.adopt(tex, &tex.s, guardImage(img))
	d.mu.Unlock()
	return tex
}

// ownerOf returns r's owner and whether it is pending.
func ownerOf(d *Device, r Resource) (owner, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pending := false
	for _, p := range d.pending {
		pending = pending || p == r
	}
	return r.st().owner, pending
}

type (
	cudaPtr    = cuda.DevicePtr
	cudaStream = *cuda.Stream
)
