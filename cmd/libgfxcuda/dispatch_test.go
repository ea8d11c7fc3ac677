package main

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

const counterHLSL = `RWStructuredBuffer<uint> counter : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { InterlockedAdd(counter[0], 1); }`

// dispatchFixture is a counter kernel made through the C entry points,
// with its buffer's first word set to a random start.
type dispatchFixture struct {
	dev, buf, k uint64
	start       uint32
}

func newDispatchFixture(tb testing.TB) *dispatchFixture {
	tb.Helper()
	f := &dispatchFixture{}
	var st int
	if f.dev, st = cDeviceOpen(-1); st != 0 {
		tb.Skipf("no Vulkan device: %s", lastError())
	}
	tb.Cleanup(func() { release(f.dev) })
	if f.buf, st = cBufferNew(f.dev, 4096, 4); st != 0 {
		tb.Fatalf("gfxcuda_buffer_new: %d %s", st, lastError())
	}
	tb.Cleanup(func() { release(f.buf) })
	m, err := shader.Compile([]byte(counterHLSL), shader.Options{Language: shader.HLSL})
	if err != nil {
		tb.Fatal(err)
	}
	if f.k, st = cComputeNew(f.dev, m.SPIRV, []uint64{f.buf}); st != 0 {
		tb.Fatalf("gfxcuda_compute_new: %d %s", st, lastError())
	}
	tb.Cleanup(func() { release(f.k) })
	f.start = rand.Uint32() >> 1
	b, _ := get[*buffer](f.buf, "buffer")
	word := binary.LittleEndian.AppendUint32(nil, f.start)
	if err := b.Upload(word); err != nil {
		tb.Fatal(err)
	}
	return f
}

// counter reads the counter back through the C entry point.
func (f *dispatchFixture) counter(tb testing.TB) uint32 {
	word := []byte{0xde, 0xad, 0xbe, 0xef}
	if st := cReadback(f.buf, 0, word); st != 0 {
		tb.Fatalf("gfxcuda_buffer_readback: %d %s", st, lastError())
	}
	return binary.LittleEndian.Uint32(word)
}

func lastError() string {
	return goLastError()
}

// TestDispatchResubmits: repeated dispatches through the C entry point
// run every time (the counter moves by 8 per dispatch) whether or not
// they take the kernel's resubmit shortcut, and a change of workgroups
// in between is honoured.
func TestDispatchResubmits(t *testing.T) {
	f := newDispatchFixture(t)
	want := f.start
	for i, g := range []uint32{1, 1, 1, 3, 3, 1, 2, 2, 2, 1} {
		if st := cDispatch(f.k, g, 1, 1); st != 0 {
			t.Fatalf("dispatch %d: %d %s", i, st, lastError())
		}
		want += 8 * g
		if got := f.counter(t); got != want {
			t.Fatalf("after dispatch %d of %d groups: counter %d, want %d", i, g, got, want)
		}
	}
}

// BenchmarkDispatchWaitedC is dispatch(1,1,1) waited through the C entry
// point, as Python's Compute.dispatch calls it; BenchmarkDispatchWaitedGo
// is the same kernel and buffer through compute.Kernel.Dispatch. Their
// difference is the C path's own cost.
func BenchmarkDispatchWaitedC(b *testing.B) {
	f := newDispatchFixture(b)
	b.ResetTimer()
	for range b.N {
		if st := cDispatch(f.k, 1, 1, 1); st != 0 {
			b.Fatalf("dispatch: %d %s", st, lastError())
		}
	}
	b.StopTimer()
	if got, want := f.counter(b), f.start+uint32(8*b.N); got != want {
		b.Fatalf("counter %d after %d dispatches, want %d", got, b.N, want)
	}
}

func BenchmarkDispatchWaitedGo(b *testing.B) {
	f := newDispatchFixture(b)
	kk, _ := get[*kernel](f.k, "compute pipeline")
	bb, _ := get[*buffer](f.buf, "buffer")
	uav := compute.UAV(0, bb.Buffer)
	b.ResetTimer()
	for range b.N {
		if err := kk.k.Dispatch(1, 1, 1, uav); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got, want := f.counter(b), f.start+uint32(8*b.N); got != want {
		b.Fatalf("counter %d after %d dispatches, want %d", got, b.N, want)
	}
}
