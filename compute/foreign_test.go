package compute

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// foreign is a resource of another package: it binds as a view of a
// buffer, made on first use, as gfxcuda's shared buffers do.
type foreign struct {
	size  uint64
	view  *Buffer
	calls int
	err   error
}

func (f *foreign) ComputeResource(d *Device) (Resource, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	if f.view == nil {
		b, err := d.Buffer(f.size, HeapDefault)
		if err != nil {
			return nil, err
		}
		f.view = b
	}
	return f.view, nil
}

func TestForeignResource(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "fill.comp", `#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer O { uint o[]; };
layout(push_constant) uniform PC { uint add; } pc;
void main() { o[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x + pc.add; }
`)
	defer k.Close()
	f := &foreign{size: 64 * 4}
	defer func() { f.view.Close() }()
	if err := k.Dispatch(1, 1, 1, At(0, f), PushValues(uint32(7))); err != nil {
		t.Fatal(err)
	}
	got, err := f.view.Readback()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		if v := binary.LittleEndian.Uint32(got[4*i:]); v != uint32(i+7) {
			t.Fatalf("o[%d] = %d, want %d", i, v, i+7)
		}
	}
	// A batch resolves it too, and copies take it.
	dst, err := d.Buffer(64*4, HeapReadback)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	b, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Dispatch(k, 1, 1, 1, At(0, f), PushValues(uint32(1)))
	b.Barrier()
	b.Copy(dst, f)
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	if got, _ := dst.Readback(); binary.LittleEndian.Uint32(got[4*63:]) != 64 {
		t.Fatalf("o[63] = %d after the batch, want 64", binary.LittleEndian.Uint32(got[4*63:]))
	}
	// Its error is the dispatch's, with where it was bound.
	bad := &foreign{err: errors.New("closed")}
	err = k.Dispatch(1, 1, 1, At(0, bad), PushValues(uint32(0)))
	if err == nil || !strings.Contains(err.Error(), "At(0)") || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Dispatch with a failing resource: %v", err)
	}
	b2, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	b2.Copy(dst, bad)
	if err := b2.Err(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Copy from a failing resource: %v", err)
	}
}
