package cuda

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// needCUDA returns the first device's primary context, or skips the test
// with a one-line reason when there is no driver. With
// GFXCUDA_REQUIRE_CUDA=1 (set by `make gpu-test`) it fails instead.
func needCUDA(t testing.TB) *Context {
	t.Helper()
	if err := Init(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required (GFXCUDA_REQUIRE_CUDA=1): %v", err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	d, err := GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func poison(b []byte) {
	for i := range b {
		b[i] = byte(0xA5 ^ i*7)
	}
}

// TestNoDriverErrors runs TestNoDriverErrorsChild in a process that cannot
// find libcuda, so the no-driver path is covered on GPU machines too.
func TestNoDriverErrors(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDriverErrorsChild$", "-test.v")
	cmd.Env = append(os.Environ(), "GFXCUDA_LIBCUDA=/nonexistent/libcuda.so.1", "GFXCUDA_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNoDriverErrorsChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestNoDriverErrorsChild(t *testing.T) {
	if os.Getenv("GFXCUDA_CHILD") != "1" {
		t.Skip("only meaningful in the child process TestNoDriverErrors starts")
	}
	checks := map[string]error{}
	checks["Init"] = Init()
	_, checks["DriverVersion"] = DriverVersion()
	_, checks["DeviceCount"] = DeviceCount()
	_, checks["GetDevice"] = GetDevice(0)
	_, checks["Devices"] = Devices()
	_, checks["DeviceByUUID"] = DeviceByUUID(UUID{1})
	_, checks["CanAccessPeer"] = Device{}.CanAccessPeer(Device{ordinal: 1})
	_, checks["LookupDevice ordinal"] = LookupDevice("1")
	_, checks["LookupDevice UUID"] = LookupDevice("GPU-5c3e0102-aabb-ccdd-0001-0203040506ff")
	for name, err := range checks {
		if !errors.Is(err, ErrNoDriver) {
			t.Errorf("%s: err = %v, want ErrNoDriver", name, err)
		}
		var nd *NoDriverError
		if errors.As(err, &nd) && nd.Fix == "" && nd.Reason == "" {
			t.Errorf("%s: NoDriverError has neither reason nor fix", name)
		}
	}
}

func TestDeviceInfo(t *testing.T) {
	ctx := needCUDA(t)
	v, err := DriverVersion()
	if err != nil || v.Major < 11 {
		t.Fatalf("DriverVersion = %v, %v", v, err)
	}
	devs, err := Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("Devices = %v, %v", devs, err)
	}
	seen := map[UUID]bool{}
	for _, d := range devs {
		in, err := d.Info()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", in)
		if in.Name == "" || in.UUID.IsZero() || in.TotalMemory == 0 || in.FreeMemory == 0 || in.FreeMemory > in.TotalMemory {
			t.Errorf("implausible device info %+v", in)
		}
		if !regexp.MustCompile(`^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]$`).MatchString(in.PCIBusID) {
			t.Errorf("PCI bus id %q", in.PCIBusID)
		}
		if in.ComputeMajor < 3 || in.Multiprocessors < 1 {
			t.Errorf("compute capability %d.%d, %d SMs", in.ComputeMajor, in.ComputeMinor, in.Multiprocessors)
		}
		if seen[in.UUID] {
			t.Errorf("duplicate UUID %s", in.UUID)
		}
		seen[in.UUID] = true
		byUUID, err := DeviceByUUID(in.UUID)
		if err != nil || byUUID.Ordinal() != d.Ordinal() {
			t.Errorf("DeviceByUUID(%s) = %v, %v", in.UUID, byUUID, err)
		}
	}
	if _, err := DeviceByUUID(UUID{0xff, 1, 2}); err == nil {
		t.Error("DeviceByUUID of an unknown UUID succeeded")
	}
	_ = ctx
}

func TestSyncCopies(t *testing.T) {
	ctx := needCUDA(t)
	for _, n := range []int{1, 4097, 64 << 20} {
		src := randomBytes(t, n)
		a, err := ctx.Alloc(uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ctx.Alloc(uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if err := ctx.Memset8(b.Ptr(), 0x5a, uint64(n)); err != nil {
			t.Fatal(err)
		}
		if err := ctx.CopyHtoD(a.Ptr(), src); err != nil {
			t.Fatal(err)
		}
		if err := ctx.CopyDtoD(b.Ptr(), a.Ptr(), uint64(n)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, n)
		poison(got)
		if err := ctx.CopyDtoH(got, b.Ptr()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, src) {
			t.Errorf("%d bytes: round trip differs", n)
		}
		a.Close()
		b.Close()
	}
}

func TestMemset(t *testing.T) {
	ctx := needCUDA(t)
	const n = 1 << 16
	m, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	src := randomBytes(t, n)
	if err := ctx.CopyHtoD(m.Ptr(), src); err != nil {
		t.Fatal(err)
	}
	// Set bytes [100, 1100) to 0x3c and words [1024, 2048) to a pattern.
	if err := ctx.Memset8(m.Ptr().Add(100), 0x3c, 1000); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Memset32(m.Ptr().Add(4096), 0xdeadbeef, 1024); err != nil {
		t.Fatal(err)
	}
	want := append([]byte(nil), src...)
	for i := 100; i < 1100; i++ {
		want[i] = 0x3c
	}
	for i := 4096; i < 8192; i += 4 {
		want[i], want[i+1], want[i+2], want[i+3] = 0xef, 0xbe, 0xad, 0xde
	}
	got := make([]byte, n)
	poison(got)
	if err := ctx.CopyDtoH(got, m.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("memset result differs")
	}
}

func TestAsyncPinnedCopies(t *testing.T) {
	ctx := needCUDA(t)
	s, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 8 << 20
	in, err := ctx.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := ctx.AllocHost(n)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	copy(in.Bytes(), randomBytes(t, n))
	poison(out.Bytes())
	a, _ := ctx.Alloc(n)
	b, _ := ctx.Alloc(n)
	defer a.Close()
	defer b.Close()
	if err := s.CopyHtoD(a.Ptr(), in.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := s.Memset8(b.Ptr(), 0, n); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyDtoD(b.Ptr().Add(1), a.Ptr().Add(1), n-1); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyDtoH(out.Bytes(), b.Ptr()); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	want := append([]byte{0}, in.Bytes()[1:]...)
	if !bytes.Equal(out.Bytes(), want) {
		t.Error("async round trip differs")
	}
	if done, err := s.Done(); !done || err != nil {
		t.Errorf("Done = %v, %v after Synchronize", done, err)
	}
	// Go memory must be refused for asynchronous copies.
	if err := s.CopyHtoD(a.Ptr(), make([]byte, 16)); !errors.Is(err, ErrNotPinned) {
		t.Errorf("async copy from Go memory: %v, want ErrNotPinned", err)
	}
	// A sub-slice at the very end of a pinned allocation is accepted.
	if err := s.CopyHtoD(a.Ptr(), in.Bytes()[n-8:]); err != nil {
		t.Errorf("copy of the last 8 pinned bytes: %v", err)
	}
	s.Synchronize()
}

func TestCopy2D(t *testing.T) {
	ctx := needCUDA(t)
	const w, h, pitch, hostPitch = 300, 77, 512, 333
	host := randomBytes(t, hostPitch*h)
	dev, err := ctx.Alloc(pitch * (h + 2))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if err := ctx.Memset8(dev.Ptr(), 0, pitch*(h+2)); err != nil {
		t.Fatal(err)
	}
	// Host rows → device rows 2.., columns 5.., then back out to a fresh host image.
	if err := ctx.Copy2D(Copy2D{
		Src:        Pitched{Host: host, Pitch: hostPitch},
		Dst:        Pitched{Ptr: dev.Ptr(), X: 5, Y: 2, Pitch: pitch},
		WidthBytes: w, Height: h,
	}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, w*h)
	poison(got)
	if err := ctx.Copy2D(Copy2D{
		Src:        Pitched{Ptr: dev.Ptr(), X: 5, Y: 2, Pitch: pitch},
		Dst:        Pitched{Host: got, Pitch: w},
		WidthBytes: w, Height: h,
	}); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < h; y++ {
		if !bytes.Equal(got[y*w:(y+1)*w], host[y*hostPitch:y*hostPitch+w]) {
			t.Fatalf("row %d differs", y)
		}
	}
	// Async variant with pinned memory.
	s, _ := ctx.NewStream(StreamNonBlocking)
	defer s.Close()
	pm, _ := ctx.AllocHost(w * h)
	defer pm.Close()
	poison(pm.Bytes())
	if err := s.Copy2D(Copy2D{Src: Pitched{Ptr: dev.Ptr(), X: 5, Y: 2, Pitch: pitch}, Dst: Pitched{Host: pm.Bytes(), Pitch: w}, WidthBytes: w, Height: h}); err != nil {
		t.Fatal(err)
	}
	s.Synchronize()
	if !bytes.Equal(pm.Bytes(), got) {
		t.Error("async 2D copy differs")
	}
	// Bad shapes are refused before reaching the driver.
	if err := ctx.Copy2D(Copy2D{Src: Pitched{Host: host, Pitch: 10}, Dst: Pitched{Ptr: dev.Ptr(), Pitch: pitch}, WidthBytes: 20, Height: 1}); !errors.Is(err, ErrorInvalidValue) {
		t.Errorf("pitch < width: %v", err)
	}
	if err := ctx.Copy2D(Copy2D{Src: Pitched{Host: host[:100], Pitch: 100}, Dst: Pitched{Ptr: dev.Ptr(), Pitch: pitch}, WidthBytes: 100, Height: 2}); !errors.Is(err, ErrorInvalidValue) {
		t.Errorf("host slice too short: %v", err)
	}
}

func TestEventsTiming(t *testing.T) {
	ctx := needCUDA(t)
	s, _ := ctx.NewStream(StreamNonBlocking)
	defer s.Close()
	start, err := ctx.NewEvent(EventDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer start.Close()
	end, _ := ctx.NewEvent(EventDefault)
	defer end.Close()
	const n = 256 << 20
	a, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, _ := ctx.Alloc(n)
	defer b.Close()
	// Random data: Hopper compresses constant data, which would flatter the copy.
	src := randomBytes(t, n)
	ctx.CopyHtoD(a.Ptr(), src)
	start.Record(s)
	s.CopyDtoD(b.Ptr(), a.Ptr(), n)
	end.Record(s)
	if err := end.Synchronize(); err != nil {
		t.Fatal(err)
	}
	d, err := Elapsed(start, end)
	if err != nil || d <= 0 {
		t.Fatalf("Elapsed = %v, %v", d, err)
	}
	t.Logf("256 MiB device copy: %v (%.0f GB/s)", d, 2*float64(n)/d.Seconds()/1e9)
	// Ordering between streams with WaitEvent.
	s2, _ := ctx.NewStream(StreamNonBlocking)
	defer s2.Close()
	if err := s2.WaitEvent(end); err != nil {
		t.Fatal(err)
	}
	if done, err := end.Done(); !done || err != nil {
		t.Errorf("event Done = %v, %v", done, err)
	}
}

func TestErrorsCarryNames(t *testing.T) {
	ctx := needCUDA(t)
	_, err := ctx.Alloc(1 << 60)
	if !errors.Is(err, ErrorOutOfMemory) {
		t.Fatalf("huge Alloc: %v, want ErrorOutOfMemory", err)
	}
	if !regexp.MustCompile(`cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY \(out of memory\)`).MatchString(err.Error()) {
		t.Errorf("error text %q lacks op, name and description", err)
	}
	if _, err := ctx.Alloc(0); !errors.Is(err, ErrorInvalidValue) {
		t.Errorf("Alloc(0): %v", err)
	}
}

func TestCloseOrderAndUseAfterClose(t *testing.T) {
	needCUDA(t)
	d, _ := GetDevice(0)
	ctx, err := d.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ctx.Alloc(4096)
	s, _ := ctx.NewStream(0)
	e, _ := ctx.NewEvent(0)
	h, _ := ctx.AllocHost(4096)
	// Close the context first: its children stay usable until closed.
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := ctx.Alloc(16); !errors.Is(err, ErrClosed) {
		t.Errorf("Alloc on closed context: %v", err)
	}
	if err := ctx.CopyHtoD(m.Ptr(), []byte{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("CopyHtoD on closed context: %v", err)
	}
	if err := s.Memset8(m.Ptr(), 1, 4096); err != nil {
		t.Errorf("stream of a closed context: %v", err)
	}
	if err := s.CopyDtoH(h.Bytes(), m.Ptr()); err != nil {
		t.Error(err)
	}
	s.Synchronize()
	if h.Bytes()[4095] != 1 {
		t.Error("memset through the stream did not land")
	}
	for _, c := range []interface{ Close() error }{m, s, e, h, m, s, e, h} {
		if err := c.Close(); err != nil {
			t.Errorf("%T.Close: %v", c, err)
		}
	}
	if err := s.Synchronize(); !errors.Is(err, ErrClosed) {
		t.Errorf("closed stream: %v", err)
	}
	if err := e.Record(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("closed event: %v", err)
	}
	if m.Ptr() != 0 || h.Bytes() != nil {
		t.Error("closed memory still exposes its address")
	}
}

func TestContextDo(t *testing.T) {
	ctx := needCUDA(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := ctx.Do(func() error {
				if !ctx.IsCurrent() {
					t.Error("context not current inside Do")
				}
				runtime.Gosched()
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func countFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestNoLeaks(t *testing.T) {
	ctx := needCUDA(t)
	// Warm up so that lazily created driver state is not counted.
	m, _ := ctx.Alloc(1 << 20)
	m.Close()
	ctx.Synchronize()
	free0, _, _ := ctx.MemInfo()
	fd0 := countFDs(t)
	for i := 0; i < 1000; i++ {
		m, err := ctx.Alloc(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ctx.AllocHost(4096)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ctx.NewStream(StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ctx.NewEvent(EventDisableTiming)
		if err != nil {
			t.Fatal(err)
		}
		e.Record(s)
		for _, c := range []interface{ Close() error }{e, s, h, m} {
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx.Synchronize()
	free1, _, _ := ctx.MemInfo()
	fd1 := countFDs(t)
	if fd1 != fd0 {
		t.Errorf("open fds %d → %d after 1000 cycles", fd0, fd1)
	}
	// Allow 2 MiB of allocator slack; a leak of 1 MiB per cycle is 1000 MiB.
	// The figure is device-wide: scripts/gpu-run.sh runs this package alone
	// on the GPU (GFXCUDA_GPU_SERIAL) so other processes do not move it.
	if free0 > free1+2<<20 {
		t.Errorf("free memory %d → %d after 1000 cycles (device-wide: no other process may use the GPU meanwhile)", free0, free1)
	}
	pinned.Lock()
	nPinned := len(pinned.ranges)
	pinned.Unlock()
	if nPinned != 0 {
		t.Errorf("%d pinned ranges still registered", nPinned)
	}
}

// TestIPC shares device memory with a child process through a CUDA IPC
// handle; the child reads it and reports its hash.
func TestIPC(t *testing.T) {
	ctx := needCUDA(t)
	const n = 1 << 20
	data := randomBytes(t, n)
	m, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := ctx.CopyHtoD(m.Ptr(), data); err != nil {
		t.Fatal(err)
	}
	h, err := ctx.IPCHandle(m.Ptr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.OpenIPCHandle(h); err == nil {
		t.Error("opening our own IPC handle succeeded")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestIPCChild$", "-test.v")
	cmd.Env = append(os.Environ(), "GFXCUDA_CHILD=1", fmt.Sprintf("GFXCUDA_IPC=%x", h[:]))
	out, err := cmd.CombinedOutput()
	want := fmt.Sprintf("sum=%x", sha256.Sum256(data))
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("child: %v\n%s\nwant %s", err, out, want)
	}
}

func TestIPCChild(t *testing.T) {
	if os.Getenv("GFXCUDA_CHILD") != "1" || os.Getenv("GFXCUDA_IPC") == "" {
		t.Skip("only meaningful in the child process TestIPC starts")
	}
	ctx := needCUDA(t)
	raw, _ := hex.DecodeString(os.Getenv("GFXCUDA_IPC"))
	var h IPCHandle
	copy(h[:], raw)
	p, err := ctx.OpenIPCHandle(h)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.CloseIPCHandle(p)
	buf := make([]byte, 1<<20)
	if err := ctx.CopyDtoH(buf, p); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("sum=%x\n", sha256.Sum256(buf))
}
