package compute

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/shader"
)

// The benchmarks time dispatch(1,1,1) of a shader that adds 1 per thread
// to a counter, as `gfxcuda bench --only compute` does. Besides ns/op they
// report cpu-µs/op: the CPU time of the whole process per operation (on
// lavapipe it includes the shader running on the CPU, which is the same
// before and after host-side changes).

const counterHLSL = `RWStructuredBuffer<uint> c : register(u0);
[numthreads(8, 1, 1)] void main() { InterlockedAdd(c[0], 1); }`

// benchCounter opens a device, compiles the counter kernel and makes its
// buffer, set to a random start.
func benchCounter(b *testing.B) (*Device, *Kernel, *Buffer, uint32) {
	d := openBench(b)
	k, err := d.Compile([]byte(counterHLSL), shader.Options{Filename: "c.hlsl"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { k.Close() })
	buf, err := d.Buffer(4, HeapDefault)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { buf.Close() })
	start := uint32(time.Now().UnixNano())
	var w [4]byte
	binary.LittleEndian.PutUint32(w[:], start)
	if err := buf.Upload(w[:]); err != nil {
		b.Fatal(err)
	}
	return d, k, buf, start
}

// checkCounter fails b unless the counter holds start + 8 per dispatch.
func checkCounter(b *testing.B, buf *Buffer, start uint32, dispatches int) {
	got, err := buf.Readback()
	if err != nil {
		b.Fatal(err)
	}
	if v, want := binary.LittleEndian.Uint32(got), start+uint32(8*dispatches); v != want {
		b.Fatalf("counter %d after %d dispatches, want %d", v, dispatches, want)
	}
}

// cpuMeter reports the process CPU time per op between its start and stop.
type cpuMeter struct {
	b *testing.B
	t time.Duration
}

func startCPU(b *testing.B) *cpuMeter {
	b.ResetTimer()
	return &cpuMeter{b, cpuTime()}
}

func (m *cpuMeter) stop(ops int) {
	m.b.StopTimer()
	m.b.ReportMetric(float64((cpuTime()-m.t).Nanoseconds())/1e3/float64(ops), "cpu-µs/op")
}

// BenchmarkRecordDispatch times recording one dispatch into a batch (the
// host's share of "1,000 dispatches in one batch"): each writes the same
// buffer, so each also records a barrier.
func BenchmarkRecordDispatch(b *testing.B) {
	d, k, buf, _ := benchCounter(b)
	bt, err := d.NewBatch()
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Close()
	m := startCPU(b)
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
	m.stop(b.N)
	if err := bt.Err(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBatch1000 times 1,000 dispatch(1,1,1) recorded into one batch,
// submitted and waited for, per dispatch, and checks the counter.
func BenchmarkBatch1000(b *testing.B) {
	d, k, buf, start := benchCounter(b)
	bt, err := d.NewBatch()
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Close()
	const n = 1000
	m := startCPU(b)
	for i := 0; i < b.N; i++ {
		if err := bt.Reset(); err != nil {
			b.Fatal(err)
		}
		for range n {
			bt.Dispatch(k, 1, 1, 1, UAV(0, buf))
		}
		if err := bt.Run(); err != nil {
			b.Fatal(err)
		}
	}
	m.stop(b.N * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N*n), "µs/dispatch")
	checkCounter(b, buf, start, b.N*n)
}

// BenchmarkDispatchWaited times a synchronous dispatch(1,1,1), the same
// one each time, and checks the counter.
func BenchmarkDispatchWaited(b *testing.B) {
	_, k, buf, start := benchCounter(b)
	m := startCPU(b)
	for i := 0; i < b.N; i++ {
		if err := k.Dispatch(1, 1, 1, UAV(0, buf)); err != nil {
			b.Fatal(err)
		}
	}
	m.stop(b.N)
	checkCounter(b, buf, start, b.N)
}

// BenchmarkDispatchWaitedAlternating times synchronous dispatches that
// alternate between two buffers, so that each one is recorded anew.
func BenchmarkDispatchWaitedAlternating(b *testing.B) {
	d, k, buf, start := benchCounter(b)
	buf2, err := d.Buffer(4, HeapDefault)
	if err != nil {
		b.Fatal(err)
	}
	defer buf2.Close()
	if err := buf2.Upload(make([]byte, 4)); err != nil {
		b.Fatal(err)
	}
	bufs := [2]*Buffer{buf, buf2}
	m := startCPU(b)
	for i := 0; i < b.N; i++ {
		if err := k.Dispatch(1, 1, 1, UAV(0, bufs[i%2])); err != nil {
			b.Fatal(err)
		}
	}
	m.stop(b.N)
	checkCounter(b, buf, start, (b.N+1)/2)
	checkCounter(b, buf2, 0, b.N/2)
}

// BenchmarkEmptySubmitWait times submitting an empty batch and waiting for
// it: the bound of a waited dispatch.
func BenchmarkEmptySubmitWait(b *testing.B) {
	d := openBench(b)
	bt, err := d.NewBatch()
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Close()
	m := startCPU(b)
	for i := 0; i < b.N; i++ {
		if err := bt.Reset(); err != nil {
			b.Fatal(err)
		}
		if err := bt.Run(); err != nil {
			b.Fatal(err)
		}
	}
	m.stop(b.N)
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
