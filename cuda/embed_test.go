//go:build linux

package cuda

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/cu"
	"github.com/gfxcuda/gfxcuda/kernels"
)

// exercise runs a series of gfxcuda calls of many kinds on the calling
// thread, checking the bytes that come back, and calls after() after each
// so the caller can inspect thread state between them.
func exercise(t *testing.T, ctx *Context, after func(step string)) {
	t.Helper()
	const n = 1 << 16
	data := randomBytes(t, n)
	m, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	after("Alloc")
	closeAfter := func(c interface{ Close() error }, step string) {
		if err := c.Close(); err != nil {
			t.Errorf("%s: %v", step, err)
		}
		after(step)
	}
	defer closeAfter(m, "DeviceMemory.Close")
	if err := ctx.CopyHtoD(m.Ptr(), data); err != nil {
		t.Fatal(err)
	}
	after("CopyHtoD")
	s, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	after("NewStream")
	defer closeAfter(s, "Stream.Close")
	m2, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAfter(m2, "DeviceMemory.Close")
	if err := s.Memset8(m2.Ptr(), 0x5a, n); err != nil {
		t.Fatal(err)
	}
	after("Stream.Memset8")
	if err := s.CopyDtoD(m2.Ptr(), m.Ptr(), n/2); err != nil {
		t.Fatal(err)
	}
	after("Stream.CopyDtoD")
	e, err := ctx.NewEvent(EventDisableTiming)
	if err != nil {
		t.Fatal(err)
	}
	after("NewEvent")
	defer closeAfter(e, "Event.Close")
	if err := e.Record(s); err != nil {
		t.Fatal(err)
	}
	after("Event.Record")
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Wait(wctx); err != nil {
		t.Fatal(err)
	}
	after("Event.Wait")
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	after("Stream.Synchronize")
	if err := s.Wait(wctx); err != nil {
		t.Fatal(err)
	}
	after("Stream.Wait")
	mod, err := ctx.LoadModule(kernels.PTX)
	if err != nil {
		t.Fatal(err)
	}
	after("LoadModule")
	defer closeAfter(mod, "Module.Close")
	f, err := mod.Function(kernels.XorU32)
	if err != nil {
		t.Fatal(err)
	}
	after("Module.Function")
	const key = 0x9e3779b9
	if err := f.Launch(s, Dim3{X: 64}, Dim3{X: 256}, 0, m2.Ptr(), uint64(n/4), uint32(key)); err != nil {
		t.Fatal(err)
	}
	after("Function.Launch")
	legacy, err := WrapStream(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := legacy.Synchronize(); err != nil { // the legacy stream waits for nothing on s (non-blocking)
		t.Fatal(err)
	}
	after("WrapStream(0).Synchronize")
	if err := legacy.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Synchronize(); err != nil {
		t.Fatal(err)
	}
	after("Context.Synchronize")
	if _, _, err := ctx.MemInfo(); err != nil {
		t.Fatal(err)
	}
	after("MemInfo")
	got := make([]byte, n)
	if err := ctx.CopyDtoH(got, m2.Ptr()); err != nil {
		t.Fatal(err)
	}
	after("CopyDtoH")
	want := make([]byte, n)
	copy(want, data[:n/2])
	for i := n / 2; i < n; i++ {
		want[i] = 0x5a
	}
	for i := 0; i < n; i += 4 {
		w := uint32(want[i]) | uint32(want[i+1])<<8 | uint32(want[i+2])<<16 | uint32(want[i+3])<<24
		w ^= key
		want[i], want[i+1], want[i+2], want[i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the calls computed wrong bytes")
	}
	if err := ctx.Do(func() error {
		if !ctx.IsCurrent() {
			return errors.New("context not current inside Do")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	after("Context.Do")
}

// TestCallsKeepCallersContext makes another context current on a locked
// thread, as PyTorch working on another device would, runs many gfxcuda
// calls there and checks after each that the thread's current context is
// still the caller's; then the same with no context current at all.
func TestCallsKeepCallersContext(t *testing.T) {
	ctx := needCUDA(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, r := cu.CtxGetCurrent()
	if r != cu.Success {
		t.Fatalf("cuCtxGetCurrent: %d", r)
	}
	defer func() {
		if err := check("cuCtxSetCurrent", cu.CtxSetCurrent(prev)); err != nil {
			t.Error(err)
		}
	}()

	other, r := cu.CtxCreate(0, ctx.dev.h) // becomes current on this thread
	if err := check("cuCtxCreate", r); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := check("cuCtxDestroy", cu.CtxDestroy(other)); err != nil {
			t.Error(err)
		}
	}()
	if other == ctx.h || other.IsNil() {
		t.Fatal("cuCtxCreate returned the primary context or NULL")
	}
	for _, want := range []cu.Context{other, {}} {
		if err := check("cuCtxSetCurrent", cu.CtxSetCurrent(want)); err != nil {
			t.Fatal(err)
		}
		name := "a foreign context"
		if want.IsNil() {
			name = "no context"
		}
		exercise(t, ctx, func(step string) {
			if cur, r := cu.CtxGetCurrent(); r != cu.Success || cur != want {
				t.Errorf("with %s current: after %s the thread's current context is %#x, want %#x", name, step, cur.Handle(), want.Handle())
			}
		})
	}
}

// TestCallsLeaveNoContextOnThreads checks, from goroutines that are not
// locked, that calls leave no context current on the threads they ran on.
func TestCallsLeaveNoContextOnThreads(t *testing.T) {
	ctx := needCUDA(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				runtime.LockOSThread()
				before, _ := cu.CtxGetCurrent()
				if _, _, err := ctx.MemInfo(); err != nil {
					t.Error(err)
				}
				after, _ := cu.CtxGetCurrent()
				runtime.UnlockOSThread()
				if after != before {
					t.Errorf("MemInfo changed the thread's current context from %#x to %#x", before.Handle(), after.Handle())
				}
			}
		}()
	}
	wg.Wait()
}

// TestWrapStream runs work on foreign streams: the legacy and per-thread
// default streams and a stream gfxcuda did not create (made raw, as
// PyTorch would), checks the bytes, and that closing the wrapper leaves
// the stream alive.
func TestWrapStream(t *testing.T) {
	ctx := needCUDA(t)
	raw, r := cu.StreamCreate(ctx.h, StreamNonBlocking)
	if err := check("cuStreamCreate", r); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := check("cuStreamDestroy", cu.StreamDestroy(ctx.h, raw)); err != nil {
			t.Error(err)
		}
	}()
	const n = 1 << 20
	// PerThreadDefaultStream names the calling OS thread's stream: queue and
	// wait on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, h := range []uintptr{0, LegacyDefaultStream, PerThreadDefaultStream, raw.Handle()} {
		s, err := WrapStream(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Foreign() || s.Handle() != h {
			t.Errorf("WrapStream(%#x): Foreign %v Handle %#x", h, s.Foreign(), s.Handle())
		}
		data := randomBytes(t, n)
		src, err := ctx.Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		dst, err := ctx.Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		// Separate pinned buffers in and out: the driver reads in after
		// CopyHtoD returns, so it must not be touched until the stream is
		// done; out is poisoned before anything is queued.
		in, err := ctx.AllocHost(n)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ctx.AllocHost(n)
		if err != nil {
			t.Fatal(err)
		}
		copy(in.Bytes(), data)
		poison(out.Bytes())
		if err := errors.Join(
			s.Memset8(dst.Ptr(), 0xa5, n),
			s.CopyHtoD(src.Ptr(), in.Bytes()),
			s.CopyDtoD(dst.Ptr(), src.Ptr(), n),
			s.CopyDtoH(out.Bytes(), dst.Ptr()),
		); err != nil {
			t.Fatalf("stream %#x: %v", h, err)
		}
		wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := s.Wait(wctx); err != nil {
			t.Fatalf("stream %#x: %v", h, err)
		}
		cancel()
		if i := firstDiff(out.Bytes(), data); i >= 0 {
			t.Errorf("stream %#x: byte %d of %d: got %#x, want %#x", h, i, n, out.Bytes()[i], data[i])
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Memset8(dst.Ptr(), 0, 1); !errors.Is(err, ErrClosed) {
			t.Errorf("closed wrapper: %v, want ErrClosed", err)
		}
		for _, c := range []interface{ Close() error }{src, dst, in, out} {
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		}
	}
	// The raw stream survived its wrapper.
	if err := check("cuStreamQuery", cu.StreamQuery(raw)); err != nil {
		t.Errorf("the wrapped stream is gone after the wrapper closed: %v", err)
	}
	if _, err := WrapStream(nil, 0); err == nil {
		t.Error("WrapStream(nil) succeeded")
	}
}

// TestEventWaitDeadline blocks a stream on a flag in device memory
// (cuStreamWaitValue32), checks that Event.Wait and Stream.Wait give up at
// their deadline, then releases the flag and checks they succeed.
func TestEventWaitDeadline(t *testing.T) {
	ctx := needCUDA(t)
	s, release := blockedStream(t, ctx)
	e, err := ctx.NewEvent(EventDisableTiming)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOK(t, e)
	if err := e.Record(s); err != nil {
		t.Fatal(err)
	}
	for name, wait := range map[string]func(context.Context) error{"Event.Wait": e.Wait, "Stream.Wait": s.Wait} {
		wctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := wait(wctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s on blocked work: %v, want DeadlineExceeded", name, err)
		}
	}
	if done, err := e.Done(); err != nil || done {
		t.Fatalf("event done=%v err=%v while its stream is blocked", done, err)
	}
	release()
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Wait(wctx); err != nil {
		t.Fatalf("Event.Wait after release: %v", err)
	}
	if err := s.Wait(wctx); err != nil {
		t.Fatalf("Stream.Wait after release: %v", err)
	}
}

// blockedStream returns a non-blocking stream whose work waits for a flag
// in device memory (cuStreamWaitValue32; skips where stream memory
// operations are unavailable) and the function that releases it, from the
// host through a stream of its own (so the write does not queue behind the
// blocked stream). release is idempotent and also runs at cleanup, before
// the stream is closed (which would otherwise wait forever if the test
// fails early).
func blockedStream(t *testing.T, ctx *Context) (*Stream, func()) {
	t.Helper()
	flag, err := ctx.Alloc(4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeOK(t, flag) })
	if err := ctx.Memset32(flag.Ptr(), 0, 1); err != nil {
		t.Fatal(err)
	}
	rel, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeOK(t, rel) })
	s, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeOK(t, s) })
	released := false
	release := func() {
		if !released {
			released = true
			if err := rel.Memset32(flag.Ptr(), 1, 1); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(release) // runs before the stream's Close (cleanups run last-in first-out)
	const waitGEQ = 0  // CU_STREAM_WAIT_VALUE_GEQ
	if err := check("cuStreamWaitValue32", cu.StreamWaitValue32(ctx.h, s.h, cu.DevicePtr(flag.Ptr()), 1, waitGEQ)); err != nil {
		release()
		t.Skipf("stream memory operations unavailable: %v", err)
	}
	return s, release
}

// TestConcurrentCloseAndUse closes streams, events, modules, arrays,
// shareable memory and contexts while other goroutines use them: every call
// must either succeed or fail with ErrClosed, never reach the driver with a
// destroyed handle (run with -race; a destroyed handle shows as
// CUDA_ERROR_INVALID_HANDLE or a crash).
func TestConcurrentCloseAndUse(t *testing.T) {
	ctx := needCUDA(t)
	mod, err := ctx.LoadModule(kernels.PTX)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOK(t, mod)
	buf, err := ctx.Alloc(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOK(t, buf)
	ok := func(what string, err error) {
		if err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("%s: %v (want nil or ErrClosed)", what, err)
		}
	}
	race := func(use func(), closeIt func() error) {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						use()
					}
				}
			}()
		}
		time.Sleep(2 * time.Millisecond)
		if err := closeIt(); err != nil {
			t.Errorf("Close: %v", err)
		}
		time.Sleep(time.Millisecond)
		close(stop)
		wg.Wait()
	}
	for round := 0; round < 20; round++ {
		s, err := ctx.NewStream(StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ctx.NewEvent(EventDisableTiming)
		if err != nil {
			t.Fatal(err)
		}
		race(func() {
			ok("Stream.Memset32", s.Memset32(buf.Ptr(), 7, 1<<14))
			ok("Event.Record", e.Record(s))
			_, err := s.Done()
			ok("Stream.Done", err)
			ok("Stream.WaitEvent", s.WaitEvent(e))
		}, s.Close)
		race(func() {
			ok("Event.Record(nil)", e.Record(nil))
			_, err := e.Done()
			ok("Event.Done", err)
			ok("Event.Synchronize", e.Synchronize())
		}, e.Close)

		// Modules and arrays race on host-side calls only: unloading a
		// module or destroying an array while GPU work queued from it still
		// runs is the caller's error, not something Close can prevent.
		m2, err := ctx.LoadModule(kernels.PTX)
		if err != nil {
			t.Fatal(err)
		}
		f, err := m2.Function(kernels.XorU32)
		if err != nil {
			t.Fatal(err)
		}
		race(func() {
			_, err := m2.Function(kernels.XorU32)
			ok("Module.Function", err)
		}, m2.Close)
		if err := f.Launch(nil, Dim3{X: 1}, Dim3{X: 32}, 0, buf.Ptr(), uint64(32), uint32(3)); !errors.Is(err, ErrClosed) {
			t.Errorf("Launch from an unloaded module: %v, want ErrClosed", err)
		}

		a, err := ctx.NewArray(ArrayDesc{Width: 64, Height: 64, Format: FormatUint8, Channels: 4, Surface: true})
		if err != nil {
			t.Fatal(err)
		}
		race(func() {
			_, err := a.Surface()
			ok("Array.Surface", err)
		}, a.Close)
		s2, err := ctx.NewStream(StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		if err := s2.CopyFromArray(ArrayCopy{Array: a, Ptr: buf.Ptr()}); !errors.Is(err, ErrClosed) {
			t.Errorf("copy from a closed array: %v, want ErrClosed", err)
		}
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}

		sm, err := ctx.AllocShareable(1)
		if err != nil {
			t.Fatal(err)
		}
		race(func() {
			fd, err := sm.ExportFD()
			ok("ShareableMemory.ExportFD", err)
			if err == nil {
				if err := syscall.Close(fd); err != nil {
					t.Error(err)
				}
			}
		}, sm.Close)
	}
	// A context closed while calls run through it stays valid for them.
	c2, err := ctx.Device().PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	race(func() {
		_, _, err := c2.MemInfo()
		ok("Context.MemInfo", err)
		ok("Context.Memset8", c2.Memset8(buf.Ptr(), 1, 16))
	}, c2.Close)
}

func closeOK(t *testing.T, c interface{ Close() error }) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("%T.Close: %v", c, err)
	}
}

// firstDiff returns the index of the first byte where a and b differ (or
// where the shorter ends), or -1 when they are equal.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestContextCallsComplete checks that Context's copies and memsets have
// finished when they return, as documented: the driver returns from
// cuMemsetD8/D32 and cuMemcpyDtoD before the device is done, and work on a
// non-blocking stream is not ordered after the legacy stream they ran on.
func TestContextCallsComplete(t *testing.T) {
	ctx := needCUDA(t)
	const n = 64 << 20
	a, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOK(t, a)
	b, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOK(t, b)
	out, err := ctx.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOK(t, out)
	s, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOK(t, s)
	read := func(p DevicePtr) []byte {
		t.Helper()
		poison(out.Bytes())
		if err := s.CopyDtoH(out.Bytes(), p); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Wait(wctx); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	data := randomBytes(t, n)
	for round := 0; round < 4; round++ {
		if err := ctx.CopyHtoD(a.Ptr(), data); err != nil { // pageable
			t.Fatal(err)
		}
		if i := firstDiff(read(a.Ptr()), data); i >= 0 {
			t.Fatalf("round %d: CopyHtoD: byte %d differs", round, i)
		}
		v := byte(0x3c + round)
		if err := ctx.Memset8(b.Ptr(), v, n); err != nil {
			t.Fatal(err)
		}
		if got := read(b.Ptr()); bytes.Count(got, []byte{v}) != n {
			t.Fatalf("round %d: Memset8: %d of %d bytes set", round, bytes.Count(got, []byte{v}), n)
		}
		if err := ctx.CopyDtoD(b.Ptr(), a.Ptr(), n); err != nil {
			t.Fatal(err)
		}
		if i := firstDiff(read(b.Ptr()), data); i >= 0 {
			t.Fatalf("round %d: CopyDtoD: byte %d differs", round, i)
		}
		w := uint32(0x9e3779b9) + uint32(round)
		if err := ctx.Memset32(b.Ptr(), w, n/4); err != nil {
			t.Fatal(err)
		}
		got := read(b.Ptr())
		for i := 0; i < n; i += 4 {
			if g := uint32(got[i]) | uint32(got[i+1])<<8 | uint32(got[i+2])<<16 | uint32(got[i+3])<<24; g != w {
				t.Fatalf("round %d: Memset32: word %d is %#x, want %#x", round, i/4, g, w)
			}
		}
	}
}
