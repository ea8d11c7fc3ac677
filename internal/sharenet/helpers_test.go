//go:build linux

package sharenet

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The transport's tests share descriptors of memfds: fd passing, refusals
// and the rendezvous without any GPU (the face's tests share GPU memory).

func ctx10(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// seededRandom returns n deterministic pseudo-random bytes for seed.
func seededRandom(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

func poisonedBytes(n int) []byte { return bytes.Repeat([]byte{0xCD}, n) }

// export is a test's Offer, withdrawn by Close (as the face's Shared).
type export struct{ *Offer }

func (e export) Close() error { e.Withdraw(); return nil }

// memfdExport exports a memfd of n random bytes (seed) as a fake buffer:
// fd passing without any GPU.
func memfdExport(t testing.TB, seed uint64, n int, o ...ExportOptions) export {
	t.Helper()
	fd, err := unix.MemfdCreate("share-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.Write(fd, seededRandom(seed, n)); err != nil {
		t.Fatal(err)
	}
	return fdExport(t, fd, n, o...)
}

// fdExport exports descriptor fd (duplicated for each open), with at most
// one ExportOptions.
func fdExport(t testing.TB, fd, n int, o ...ExportOptions) export {
	t.Helper()
	var opt ExportOptions
	if len(o) > 0 {
		opt = o[0]
	}
	f, err := Publish(Meta{Kind: KindBuffer, Size: uint64(n), AllocationSize: uint64(n)}, opt, func(Peer) ([]int, []byte, error) {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		return []int{d}, nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	ex := export{f}
	t.Cleanup(func() { ex.Close() })
	return ex
}

func readFD(t testing.TB, fd int, n int) []byte {
	t.Helper()
	got := poisonedBytes(n)
	if m, err := unix.Pread(fd, got, 0); err != nil || m != n {
		t.Fatalf("pread: %d, %v", m, err)
	}
	return got
}
