package vulkan

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// randomWords returns n random uint32 and their bytes.
func randomWords(seed uint64, n int) ([]uint32, []byte) {
	r := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15))
	w := make([]uint32, n)
	b := make([]byte, 4*n)
	for i := range w {
		w[i] = r.Uint32()
		binary.LittleEndian.PutUint32(b[4*i:], w[i])
	}
	return w, b
}

// checkAdded fails t unless b holds want[i] + add in every word.
func checkAdded(t *testing.T, b *Buffer, want []uint32, add uint32) {
	t.Helper()
	for i, v := range contents(t, b) {
		if v != want[i]+add {
			t.Fatalf("word %d = %d, want %d + %d", i, v, want[i], add)
		}
	}
}

// TestCommandsReuse submits one recorded batch several times with Reuse,
// and checks what Reuse refuses.
func TestCommandsReuse(t *testing.T) {
	d := computeDevice(t)
	p, err := d.NewComputePipeline(compileModule(t, "add.comp", addShader))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	orig, data := randomWords(1, 256)
	a := hostBuffer(t, d, data)
	defer a.Close()
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Reuse(); err == nil {
		t.Fatal("Reuse of a batch never submitted succeeded")
	}
	c.Dispatch(p, []Binding{{Buffer: a}}, push32(7), 4, 1, 1)
	for round := 1; round <= 3; round++ {
		if round > 1 {
			if err := c.Reuse(); err != nil {
				t.Fatalf("round %d: Reuse: %v", round, err)
			}
		}
		if err := c.Submit(SubmitOptions{}); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := c.Wait(-1); err != nil {
			t.Fatal(err)
		}
		checkAdded(t, a, orig, uint32(7*round))
	}
	// Nothing can be recorded into a reused batch.
	if err := c.Reuse(); err != nil {
		t.Fatal(err)
	}
	c.Dispatch(p, []Binding{{Buffer: a}}, push32(1), 4, 1, 1)
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "Reset") {
		t.Fatalf("recording into a reused batch: %v", err)
	}
	if err := c.Submit(SubmitOptions{}); err == nil {
		t.Fatal("Submit after a failed recording succeeded")
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}

	// A batch that moves an image to another layout cannot be reused.
	img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	c.TransitionImage(img, LayoutGeneral)
	if err := c.Submit(SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(-1); err != nil {
		t.Fatal(err)
	}
	if err := c.Reuse(); err == nil {
		t.Fatal("Reuse of a batch that changes an image's layout succeeded")
	}

	// A closed buffer stops a reused batch.
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	b := hostBuffer(t, d, data)
	c.Dispatch(p, []Binding{{Buffer: b}}, push32(1), 4, 1, 1)
	if err := c.Submit(SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(-1); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := c.Reuse(); err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(SubmitOptions{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit of a reused batch whose buffer was closed: %v", err)
	}
}

// TestDescriptorSetsAcrossReset reuses one batch for many dispatches:
// identical bindings find the descriptor sets of earlier batches, and a
// buffer closed and replaced (whose handle the driver may hand out again)
// never finds the sets of the old one (the validation layer reports a
// destroyed buffer in a bound set).
func TestDescriptorSetsAcrossReset(t *testing.T) {
	d := computeDevice(t)
	p, err := d.NewComputePipeline(compileModule(t, "add.comp", addShader))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := func() {
		t.Helper()
		if err := c.Submit(SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(-1); err != nil {
			t.Fatal(err)
		}
		if err := c.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	keep, keepData := randomWords(2, 256)
	k := hostBuffer(t, d, keepData)
	defer k.Close()
	added := uint32(0)
	for i := range 20 {
		orig, data := randomWords(uint64(100+i), 256)
		b := hostBuffer(t, d, data)
		add := uint32(i + 1)
		c.Dispatch(p, []Binding{{Buffer: b}}, push32(add), 4, 1, 1)
		c.Dispatch(p, []Binding{{Buffer: k}}, push32(add), 4, 1, 1)
		c.Dispatch(p, []Binding{{Buffer: b}}, push32(add), 4, 1, 1) // after a write: a barrier
		run()
		added += add
		checkAdded(t, b, orig, 2*add)
		checkAdded(t, k, keep, added)
		b.Close()
	}
}

// TestSerialCompleted: Submit numbers batches in submission order
// (Commands.Serial), and Device.Completed and Device.WaitCompleted see a
// batch finish only once it and every batch before it have: a batch held
// by a semaphore nobody has signalled holds back the serial of the batch
// after it.
func TestSerialCompleted(t *testing.T) {
	d := computeDevice(t)
	p, err := d.NewComputePipeline(compileModule(t, "add.comp", addShader))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	orig, data := randomWords(2, 256)
	a := hostBuffer(t, d, data)
	defer a.Close()
	_, data2 := randomWords(3, 256)
	b := hostBuffer(t, d, data2)
	defer b.Close()
	gate, err := d.NewTimelineSemaphore(0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	c1, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	defer gate.SignalAbove(1) // a failure before the signal: c1 finishes, Close returns
	if c1.Serial() != 0 {
		t.Fatalf("Serial before Submit = %d, want 0", c1.Serial())
	}
	c1.Dispatch(p, []Binding{{Buffer: a}}, push32(5), 4, 1, 1)
	if err := c1.Submit(SubmitOptions{Wait: []SemaphoreValue{{Semaphore: gate, Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	c2.Dispatch(p, []Binding{{Buffer: b}}, push32(9), 4, 1, 1)
	if err := c2.Submit(SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	s1, s2 := c1.Serial(), c2.Serial()
	if s1 == 0 || s2 != s1+1 {
		t.Fatalf("serials %d then %d, want consecutive and above 0", s1, s2)
	}
	if err := d.WaitCompleted(s2, 100*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("WaitCompleted of the batch after a held one: %v, want ErrTimeout", err)
	}
	if v, err := d.Completed(); err != nil || v >= s1 {
		t.Fatalf("Completed = %d (%v) while batch %d waits for its semaphore, want below it", v, err, s1)
	}
	if err := gate.Signal(1); err != nil {
		t.Fatal(err)
	}
	if err := d.WaitCompleted(s2, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if v, err := d.Completed(); err != nil || v < s2 {
		t.Fatalf("Completed = %d (%v) after WaitCompleted(%d)", v, err, s2)
	}
	if !c1.Done() || !c2.Done() {
		t.Fatal("WaitCompleted returned before both batches were done")
	}
	checkAdded(t, a, orig, 5)
	if err := c1.Reset(); err != nil {
		t.Fatal(err)
	}
	if c1.Serial() != 0 {
		t.Fatalf("Serial after Reset = %d, want 0", c1.Serial())
	}
}
