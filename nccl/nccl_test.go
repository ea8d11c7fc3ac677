package nccl

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/cuda/cudatest"
)

// needNCCL returns a context on CUDA device 0 with NCCL loaded; it skips
// with one line without a CUDA driver or NCCL (fails instead under
// GFXCUDA_REQUIRE_CUDA=1 or GFXCUDA_REQUIRE_NCCL=1).
func needNCCL(t *testing.T) *cuda.Context {
	t.Helper()
	cudatest.Init(t)
	if err := Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" || os.Getenv("GFXCUDA_REQUIRE_NCCL") == "1" {
			t.Fatalf("NCCL required (GFXCUDA_REQUIRE_CUDA/NCCL=1; the GPU machine has NCCL): %v", err)
		}
		t.Skipf("no NCCL: %v", err)
	}
	return cudatest.Context(t)
}

// TestSelfSendRecv: a one-rank communicator sends random bytes to itself
// (send and receive in one group) into poisoned memory; every byte is
// compared, for several sizes, many times over the same communicator.
func TestSelfSendRecv(t *testing.T) {
	ctx := needNCCL(t)
	v, lib, _ := Version()
	t.Logf("NCCL %s from %s", v, lib)
	id, err := NewUniqueID()
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewComm(ctx, id, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}()
	s, err := ctx.NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const max = 9<<20 + 13
	src, err := ctx.Alloc(max)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := ctx.Alloc(max)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	r := rand.New(rand.NewPCG(23, 42))
	for i, n := range []uint64{1, 7, 4096, 1 << 20, max, 3<<20 + 1, 8 << 20} {
		want := make([]byte, n)
		for k := range want {
			want[k] = byte(r.Uint32())
		}
		if err := ctx.CopyHtoD(src.Ptr(), want); err != nil {
			t.Fatal(err)
		}
		if err := ctx.Memset8(dst.Ptr(), 0xCD, max); err != nil {
			t.Fatal(err)
		}
		err := c.Group(func() error {
			return errors.Join(c.Send(s, src.Ptr(), n, 0), c.Recv(s, dst.Ptr(), n, 0))
		})
		if err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
		wctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = s.Wait(wctx)
		cancel()
		if err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
		if err := c.AsyncError(); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, max)
		if err := ctx.CopyDtoH(got, dst.Ptr()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:n], want) {
			k := 0
			for got[k] == want[k] {
				k++
			}
			t.Fatalf("round %d, %d bytes: byte %d is %#x, want %#x", i, n, k, got[k], want[k])
		}
		if bytes.Count(got[n:], []byte{0xCD}) != int(max-n) {
			t.Fatalf("round %d: bytes past %d were written", i, n)
		}
	}
	// Bad arguments are refused before NCCL sees them.
	for _, err := range []error{c.Send(s, src.Ptr(), 0, 0), c.Send(s, src.Ptr(), 1, 1), c.Recv(nil, dst.Ptr(), 1, 0)} {
		if err == nil {
			t.Error("a bad Send/Recv was accepted")
		}
	}
}

// TestUniqueIDText: String and ParseUniqueID round-trip; damage is refused.
func TestUniqueIDText(t *testing.T) {
	var id UniqueID
	for i := range id {
		id[i] = byte(i * 7)
	}
	s := id.String()
	got, err := ParseUniqueID(s)
	if err != nil || got != id {
		t.Fatalf("ParseUniqueID(%q) = %v, %v", s, got, err)
	}
	for _, bad := range []string{"", "ncclid.", s[:len(s)-1], s + "A", "x" + s, strings.Replace(s, "ncclid.", "ncclid!", 1)} {
		if _, err := ParseUniqueID(bad); err == nil {
			t.Errorf("ParseUniqueID(%q) accepted", bad)
		}
	}
}

// TestLoadErrors: with GFXCUDA_NCCL_LIBRARY naming a missing file, or a
// library that is not NCCL, every call fails with the matching error (in a
// child process: Load runs once per process).
func TestLoadErrors(t *testing.T) {
	if os.Getenv("GFXCUDA_NCCL_CHILD") == "1" {
		_, err := NewUniqueID()
		want := ErrNotFound
		if strings.Contains(os.Getenv(EnvLibrary), "libm") {
			want = ErrSymbols
		}
		if !errors.Is(err, want) || !strings.Contains(err.Error(), EnvLibrary) {
			t.Fatalf("NewUniqueID with %s=%s: %v, want %v naming %s", EnvLibrary, os.Getenv(EnvLibrary), err, want, EnvLibrary)
		}
		if _, err := NewComm(nil, UniqueID{}, 1, 0); err == nil {
			t.Fatal("NewComm(nil) accepted")
		}
		if _, err := NewCommContext(context.Background(), nil, UniqueID{}, 1, 0); err == nil {
			t.Fatal("NewCommContext(nil) accepted")
		}
		return
	}
	for _, lib := range []string{"/nonexistent/libnccl.so.2", "libm.so.6"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadErrors$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GFXCUDA_NCCL_CHILD=1", EnvLibrary+"="+lib)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s=%s: %v\n%s", EnvLibrary, lib, err, out)
		}
	}
}
