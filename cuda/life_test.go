package cuda

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLifeCloseWaitsForUses runs uses and Close concurrently: destroy must
// run exactly once, only after every use that was granted has ended, and
// no use may be granted after Close began. CPU only: this is the
// bookkeeping every cuda object's Close relies on.
func TestLifeCloseWaitsForUses(t *testing.T) {
	for round := 0; round < 200; round++ {
		var l life
		var inUse, destroyed, granted, refused atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; i < 50; i++ {
					if err := l.acquire(); err != nil {
						if !errors.Is(err, ErrClosed) {
							t.Errorf("acquire: %v, want ErrClosed", err)
						}
						refused.Add(1)
						continue
					}
					granted.Add(1)
					inUse.Add(1)
					if destroyed.Load() != 0 {
						t.Error("use granted after destroy")
					}
					if i%7 == 0 {
						time.Sleep(time.Microsecond)
					}
					inUse.Add(-1)
					l.release()
				}
			}()
		}
		var closers sync.WaitGroup
		closeErrs := make([]error, 3)
		for c := range closeErrs {
			closers.Add(1)
			go func() {
				defer closers.Done()
				<-start
				closeErrs[c] = l.shut(func() error {
					if n := inUse.Load(); n != 0 {
						t.Errorf("destroy ran with %d uses in progress", n)
					}
					if destroyed.Add(1) != 1 {
						t.Error("destroy ran twice")
					}
					return errors.New("destroy's error")
				})
				// Every Close returns only after destruction.
				if destroyed.Load() != 1 {
					t.Error("Close returned before destroy")
				}
			}()
		}
		close(start)
		wg.Wait()
		closers.Wait()
		n := 0
		for _, err := range closeErrs {
			if err != nil {
				n++
				if err.Error() != "destroy's error" {
					t.Errorf("Close: %v", err)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d Close calls returned destroy's error, want exactly 1 (later ones nil)", n)
		}
		if err := l.acquire(); !errors.Is(err, ErrClosed) {
			t.Fatalf("acquire after Close: %v, want ErrClosed", err)
		}
		if granted.Load()+refused.Load() != 8*50 {
			t.Fatalf("granted %d + refused %d != %d", granted.Load(), refused.Load(), 8*50)
		}
	}
}

// TestLifeCloseBlocksOnHeldUse checks that Close waits for a use in
// progress and proceeds as soon as it ends.
func TestLifeCloseBlocksOnHeldUse(t *testing.T) {
	var l life
	if err := l.acquire(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- l.shut(func() error { return nil }) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a use was in progress")
	case <-time.After(20 * time.Millisecond):
	}
	if !l.closed() {
		t.Error("closed() is false while Close waits")
	}
	if err := l.acquire(); !errors.Is(err, ErrClosed) {
		t.Errorf("acquire while closing: %v, want ErrClosed", err)
	}
	l.release()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return after the use ended")
	}
	if err := l.shut(func() error { t.Error("second destroy"); return nil }); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
