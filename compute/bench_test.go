package compute

import (
	"testing"

	"github.com/gfxcuda/gfxcuda/shader"
)

// BenchmarkRecordDispatch times recording one dispatch into a batch (the
// host's share of "1,000 dispatches in one batch").
func BenchmarkRecordDispatch(b *testing.B) {
	d := openBench(b)
	k, err := d.Compile([]byte(`RWStructuredBuffer<uint> c : register(u0);
[numthreads(8, 1, 1)] void main() { InterlockedAdd(c[0], 1); }`), shader.Options{Filename: "c.hlsl"})
	if err != nil {
		b.Fatal(err)
	}
	buf, err := d.Buffer(4, HeapDefault)
	if err != nil {
		b.Fatal(err)
	}
	bt, err := d.NewBatch()
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			b.StopTimer()
			if err := bt.Reset(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		bt.Dispatch(k, 1, 1, 1, UAV(0, buf))
	}
	b.StopTimer()
	if err := bt.Err(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDispatchWaited times a synchronous dispatch(1,1,1).
func BenchmarkDispatchWaited(b *testing.B) {
	d := openBench(b)
	k, err := d.Compile([]byte(`RWStructuredBuffer<uint> c : register(u0);
[numthreads(8, 1, 1)] void main() { InterlockedAdd(c[0], 1); }`), shader.Options{Filename: "c.hlsl"})
	if err != nil {
		b.Fatal(err)
	}
	buf, err := d.Buffer(4, HeapDefault)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := k.Dispatch(1, 1, 1, UAV(0, buf)); err != nil {
			b.Fatal(err)
		}
	}
}

// openBench opens the best device without validation (timings).
func openBench(b *testing.B) *Device {
	off := false
	d, err := Open(Options{Validation: &off})
	if err != nil {
		b.Skipf("no Vulkan device: %v", err)
	}
	b.Cleanup(func() { d.Close() })
	return d
}
