package cuda

import (
	"bytes"
	"testing"
)

// TestStreamAfter: a copy on one stream after a copy on another reads what
// the first wrote (ordered on the GPU by After), and After of a stream and
// itself does nothing.
func TestStreamAfter(t *testing.T) {
	ctx := needCUDA(t)
	a, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ctx.NewStream(StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const n = 1 << 20
	m1, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer m1.Close()
	m2, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if err := a.Memset8(m1.Ptr(), 7, n); err != nil {
		t.Fatal(err)
	}
	if err := b.After(a); err != nil {
		t.Fatal(err)
	}
	if err := b.After(b); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyDtoD(m2.Ptr(), m1.Ptr(), n); err != nil {
		t.Fatal(err)
	}
	if err := b.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := ctx.CopyDtoH(got, m2.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bytes.Repeat([]byte{7}, n)) {
		t.Fatal("the copy after the memset read other bytes")
	}
}
