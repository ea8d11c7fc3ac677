package cuda

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/kernels"
)

// copyPeerCheck copies random bytes from memory of src to memory of dst
// with CopyPeer on a stream of sctx, and checks every byte.
func copyPeerCheck(t *testing.T, dst, src, sctx *Context, n int) {
	t.Helper()
	want := randomBytes(t, n)
	a, err := src.Alloc(uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := dst.Alloc(uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := src.CopyHtoD(a.Ptr(), want); err != nil {
		t.Fatal(err)
	}
	if err := dst.Memset8(b.Ptr(), 0x5a, uint64(n)); err != nil {
		t.Fatal(err)
	}
	s, err := sctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CopyPeer(b.Ptr(), dst, a.Ptr(), src, uint64(n)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	poison(got)
	if err := dst.CopyDtoH(got, b.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%d bytes from GPU %d to GPU %d (stream on GPU %d): the copy differs", n, src.Device().Ordinal(),
			dst.Device().Ordinal(), sctx.Device().Ordinal())
	}
}

// TestCopyPeerSameDevice runs the peer copy between a context and itself
// (the path of a cross-GPU ring whose ends share one GPU): every byte.
func TestCopyPeerSameDevice(t *testing.T) {
	ctx := needCUDA(t)
	for _, n := range []int{1, 4097, 1920 * 1080 * 4} {
		copyPeerCheck(t, ctx, ctx, ctx, n)
	}
	ok, err := ctx.Device().CanAccessPeer(ctx.Device())
	if err != nil || !ok {
		t.Errorf("CanAccessPeer of a device and itself = %v, %v; want true", ok, err)
	}
	if err := ctx.EnablePeerAccess(ctx); err != nil {
		t.Errorf("EnablePeerAccess of a context and itself: %v", err)
	}
	m, err := ctx.Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if ok, err := ctx.CanReadPointer(m.Ptr()); err != nil || !ok {
		t.Errorf("CanReadPointer of the context's own memory = %v, %v; want true", ok, err)
	}
	s, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CopyPeer(0, nil, 0, ctx, 1); !errors.Is(err, ErrorInvalidValue) {
		t.Errorf("CopyPeer with a nil Context: %v, want ErrorInvalidValue", err)
	}
}

// TestCopyPeerTwoGPUs copies both ways between GPUs 0 and 1, with the
// stream on either side, and enables peer access where the topology has
// it. It needs two GPUs: the one skip GFXCUDA_REQUIRE_CUDA=1 allows.
func TestCopyPeerTwoGPUs(t *testing.T) {
	c0 := needCUDA(t)
	c1 := secondGPU(t)
	for _, sz := range []int{1, 4097, 1920 * 1080 * 4} {
		copyPeerCheck(t, c1, c0, c1, sz)
		copyPeerCheck(t, c1, c0, c0, sz)
		copyPeerCheck(t, c0, c1, c0, sz)
	}
	ok, err := c1.Device().CanAccessPeer(c0.Device())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GPU 1 can access GPU 0's memory in place: %v", ok)
	m, err := c0.Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if r, err := c1.CanReadPointer(m.Ptr()); err != nil || r {
		t.Errorf("GPU 1 reading GPU 0's memory before EnablePeerAccess: %v, %v; want false", r, err)
	}
	err = c1.EnablePeerAccess(c0)
	switch {
	case ok && err != nil:
		t.Errorf("EnablePeerAccess: %v", err)
	case !ok && !errors.Is(err, ErrorPeerAccessUnsupported):
		t.Errorf("EnablePeerAccess without a peer path: %v, want ErrorPeerAccessUnsupported", err)
	}
	if ok {
		if err := c1.EnablePeerAccess(c0); err != nil {
			t.Errorf("EnablePeerAccess twice: %v (want nil)", err)
		}
		if r, err := c1.CanReadPointer(m.Ptr()); err != nil || !r {
			t.Errorf("GPU 1 reading GPU 0's cuMemAlloc memory after EnablePeerAccess: %v, %v; want true", r, err)
		}
	}
	// TryEnablePeerAccess: enabled (again) where there is a path, false
	// and no error where there is none.
	if got, err := c1.TryEnablePeerAccess(c0); got != ok || err != nil {
		t.Errorf("TryEnablePeerAccess: %v, %v; want %v, nil", got, err, ok)
	}
	if _, err := c1.TryEnablePeerAccess(nil); !errors.Is(err, ErrorInvalidValue) {
		t.Errorf("TryEnablePeerAccess(nil): %v, want ErrorInvalidValue", err)
	}
}

// TestParseUUID: the forms nvidia-smi prints, and what is refused.
func TestParseUUID(t *testing.T) {
	want := UUID{0x5c, 0x3e, 0x01, 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0, 1, 2, 3, 4, 5, 6, 0xff}
	for _, s := range []string{"GPU-5c3e0102-aabb-ccdd-0001-0203040506ff", "5c3e0102-aabb-ccdd-0001-0203040506ff",
		"5c3e0102aabbccdd00010203040506ff", " GPU-5C3E0102-AABB-CCDD-0001-0203040506FF\n"} {
		u, err := ParseUUID(s)
		if err != nil || u != want {
			t.Errorf("ParseUUID(%q) = %v, %v", s, u, err)
		}
		if u.String() != "5c3e0102-aabb-ccdd-0001-0203040506ff" {
			t.Errorf("String = %s", u)
		}
	}
	for _, s := range []string{"", "GPU-", "GPU-5c3e0102-aabb-ccdd-0001-0203040506f", "GPU-5c3e0102-aabb-ccdd-0001-0203040506fg", "MIG-5c3e0102-aabb-ccdd-0001-0203040506ff"} {
		if _, err := ParseUUID(s); !errors.Is(err, ErrorInvalidValue) {
			t.Errorf("ParseUUID(%q): %v, want ErrorInvalidValue", s, err)
		}
	}
	if _, err := LookupDevice("GPU-zz"); !errors.Is(err, ErrorInvalidValue) {
		t.Errorf("LookupDevice of a bad name: %v", err)
	}
}

// arrayPeerCheck fills an RGBA8 array of src with random texels and copies
// it with CopyFromArrayPeer into memory of dst (stream of dst), pitched,
// then checks every byte.
func arrayPeerCheck(t *testing.T, dst, src *Context) {
	t.Helper()
	const w, h, pitch = 257, 33, 257*4 + 60
	arr, err := src.NewArray(ArrayDesc{Width: w, Height: h, Format: FormatUint8, Channels: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Close()
	want := randomBytes(t, w*h*4)
	lin, err := src.Alloc(w * h * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer lin.Close()
	if err := src.CopyHtoD(lin.Ptr(), want); err != nil {
		t.Fatal(err)
	}
	ss, err := src.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if err := ss.CopyToArray(ArrayCopy{Array: arr, Ptr: lin.Ptr()}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ss.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := dst.Alloc(pitch * h)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := dst.Memset8(out.Ptr(), 0x5a, pitch*h); err != nil {
		t.Fatal(err)
	}
	ds, err := dst.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if err := ds.CopyFromArrayPeer(ArrayCopy{Array: arr, Ptr: out.Ptr(), Pitch: pitch}, dst); err != nil {
		t.Fatal(err)
	}
	if err := ds.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, pitch*h)
	poison(got)
	if err := dst.CopyDtoH(got, out.Ptr()); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < h; y++ {
		if !bytes.Equal(got[y*pitch:y*pitch+w*4], want[y*w*4:(y+1)*w*4]) {
			t.Fatalf("row %d differs (GPU %d to GPU %d)", y, src.Device().Ordinal(), dst.Device().Ordinal())
		}
		for _, b := range got[y*pitch+w*4 : (y+1)*pitch] {
			if b != 0x5a {
				t.Fatalf("row %d: the copy wrote past the row", y)
			}
		}
	}
	if err := ds.CopyFromArrayPeer(ArrayCopy{Ptr: out.Ptr()}, dst); !errors.Is(err, ErrorInvalidValue) {
		t.Errorf("CopyFromArrayPeer without an array: %v", err)
	}
}

// TestCopyFromArrayPeer: an array's texels to memory of the same context
// (one GPU) and of another GPU (two GPUs; skipped with one line on one).
func TestCopyFromArrayPeer(t *testing.T) {
	c0 := needCUDA(t)
	t.Run("same GPU", func(t *testing.T) { arrayPeerCheck(t, c0, c0) })
	t.Run("two GPUs", func(t *testing.T) {
		c1 := secondGPU(t)
		arrayPeerCheck(t, c1, c0)
		arrayPeerCheck(t, c0, c1)
	})
}

// secondGPU is the primary context of CUDA device 1 (closed at the end of
// t), skipping t when this process sees fewer than two CUDA GPUs: the one
// skip GFXCUDA_REQUIRE_CUDA=1 allows.
func secondGPU(t testing.TB) *Context {
	t.Helper()
	n, err := DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Skipf("needs 2 CUDA GPUs, %d visible (the one skip allowed under GFXCUDA_REQUIRE_CUDA=1: run it on a 2-GPU machine)", n)
	}
	d1, err := GetDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	c1, err := d1.PrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c1.Close() })
	return c1
}

// TestShareableAllowDevice: memory of GPU 0 (cuMemCreate) granted to GPU 1
// is read and written in place by a kernel running on GPU 1 (XorU32 over
// random words), every word checked from GPU 0; granting twice and
// granting its own GPU change nothing; a closed allocation refuses.
func TestShareableAllowDevice(t *testing.T) {
	c0 := needCUDA(t)
	c1 := secondGPU(t)
	g, err := c0.Granularity()
	if err != nil {
		t.Fatal(err)
	}
	m, err := c0.AllocShareable(g)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want := randomBytes(t, int(g))
	if err := c0.CopyHtoD(m.Ptr(), want); err != nil {
		t.Fatal(err)
	}
	if err := m.AllowDevice(c0.Device()); err != nil {
		t.Errorf("AllowDevice of the memory's own GPU: %v", err)
	}
	ok, err := c1.Device().CanAccessPeer(c0.Device())
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		if err := m.AllowDevice(c1.Device()); err == nil {
			t.Error("AllowDevice without a peer path between the GPUs: no error")
		}
		t.Skip("GPU 1 has no peer path to GPU 0 here: AllowDevice refused, as it must")
	}
	for i := 0; i < 2; i++ {
		if err := m.AllowDevice(c1.Device()); err != nil {
			t.Fatalf("AllowDevice(GPU 1), call %d: %v", i+1, err)
		}
	}
	mod, err := c1.LoadModule(kernels.PTX)
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Close()
	f, err := mod.Function(kernels.XorU32)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c1.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const key = 0x9e3779b9
	if err := f.Launch(s, Dim3{X: 64}, Dim3{X: 256}, 0, m.Ptr(), g/4, uint32(key)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatalf("GPU 1's kernel on GPU 0's memory: %v", err)
	}
	got := make([]byte, g)
	poison(got)
	if err := c0.CopyDtoH(got, m.Ptr()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+4 <= len(want); i += 4 {
		w := uint32(want[i]) | uint32(want[i+1])<<8 | uint32(want[i+2])<<16 | uint32(want[i+3])<<24
		w ^= key
		v := uint32(got[i]) | uint32(got[i+1])<<8 | uint32(got[i+2])<<16 | uint32(got[i+3])<<24
		if v != w {
			t.Fatalf("word %d: %#x after GPU 1's xor, want %#x", i/4, v, w)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.AllowDevice(c1.Device()); !errors.Is(err, ErrClosed) {
		t.Errorf("AllowDevice after Close: %v, want ErrClosed", err)
	}
}
