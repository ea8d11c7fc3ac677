package compute

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestDispatchAgain runs synchronous dispatches that repeat (the kernel
// submits its last batch again) and that change (push constants, buffer,
// workgroups), on random data, checking every word after each.
func TestDispatchAgain(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "add.hlsl", `struct PC { uint add; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
RWStructuredBuffer<uint> o : register(u0);
[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] += pc.add; }`)
	r := newRand(9)
	const n = 256
	data := [2][]byte{randomBytes(r, 4*n), randomBytes(r, 4*n)}
	bufs := [2]*Buffer{newBuffer(t, d, HeapDefault, data[0]), newBuffer(t, d, HeapDefault, data[1])}
	want := [2][]uint32{u32s(data[0]), u32s(data[1])}
	push := make([]byte, 4)
	closed := [2]bool{}
	step := func(which int, add uint32, groups uint32) {
		t.Helper()
		binary.LittleEndian.PutUint32(push, add) // the same slice, changed in place
		if err := k.Dispatch(groups, 1, 1, UAV(0, bufs[which]), Push(push)); err != nil {
			t.Fatal(err)
		}
		for i := range int(groups) * 64 {
			want[which][i] += add
		}
		for j := range 2 {
			if closed[j] {
				continue
			}
			if got := u32s(readback(t, bufs[j])); !equalU32(got, want[j]) {
				t.Fatalf("buffer %d differs after adding %d to buffer %d", j, add, which)
			}
		}
	}
	for range 3 {
		step(0, 5, 4) // the same: submitted again
	}
	step(0, 6, 4) // other push constants
	step(1, 6, 4) // another buffer
	step(1, 6, 2) // other workgroups
	step(1, 6, 2)
	step(0, 5, 4)

	// A buffer closed since stops the dispatch with ErrClosed, whether the
	// batch is submitted again or recorded anew.
	bufs[0].Close()
	closed[0] = true
	for range 2 {
		err := k.Dispatch(4, 1, 1, UAV(0, bufs[0]), Push(push))
		if !errors.Is(err, vulkan.ErrClosed) {
			t.Fatalf("dispatch with a closed buffer: %v", err)
		}
	}
	step(1, 7, 4)
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
