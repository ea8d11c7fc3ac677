package cuda

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPollBackoff checks the host-wait loop behind Stream.Wait and
// Event.Wait with an injected query (no driver needed): it returns when
// the condition holds, passes errors through, gives up with the context's
// error when the deadline passes, and sleeps rather than spins after its
// first pollSpin.
func TestPollBackoff(t *testing.T) {
	calls := 0
	err := Poll(context.Background(), "test", func() (bool, error) {
		calls++
		return calls == 40, nil
	})
	if err != nil || calls != 40 {
		t.Fatalf("Poll = %v after %d calls, want nil after 40", err, calls)
	}
	boom := errors.New("boom")
	if err := Poll(context.Background(), "test", func() (bool, error) { return false, boom }); err != boom {
		t.Errorf("Poll error = %v, want boom as it is", err)
	}
	t0 := time.Now() // before the deadline is set: d below cannot be short of it
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	var times []time.Duration
	err = Poll(ctx, "never", func() (bool, error) { times = append(times, time.Since(t0)); return false, nil })
	d := time.Since(t0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Poll = %v, want DeadlineExceeded", err)
	} else if want := "cuda: waiting for never: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Poll error %q, want it to start with %q", err, want)
	}
	if d < 30*time.Millisecond {
		t.Errorf("Poll gave up after %v, before the 30 ms deadline", d)
	}
	if d > 2*time.Second {
		t.Errorf("Poll took %v to notice a 30 ms deadline", d)
	}
	// Yields for the first pollSpin (1 ms), then sleeps a millisecond
	// between queries. Checked without a count that load could break:
	// Poll's start lies between the first and the second query, so once
	// a query comes more than pollSpin after the second, the next one
	// follows a timer of 1 ms set after it (Go timers never fire early).
	// A loop that spun would query again within microseconds.
	if len(times) < 3 {
		t.Fatalf("Poll queried %d times in %v, want at least 3", len(times), d)
	}
	for i := 2; i < len(times); i++ {
		if times[i-1]-times[1] <= pollSpin {
			continue
		}
		if gap := times[i] - times[i-1]; gap < time.Millisecond {
			t.Fatalf("query %d came %v after query %d, %v into the wait: Poll spins instead of sleeping after its first %v",
				i, gap, i-1, times[i-1]-times[1], pollSpin)
		}
	}
}

// TestPollDelay: Poll's schedule, without timing anything: no sleep
// (yield and query again) before pollSpin, a millisecond from it on.
func TestPollDelay(t *testing.T) {
	for _, c := range []struct{ elapsed, want time.Duration }{
		{0, 0}, {time.Microsecond, 0}, {200 * time.Microsecond, 0}, {pollSpin - 1, 0},
		{pollSpin, time.Millisecond}, {5 * time.Millisecond, time.Millisecond}, {time.Hour, time.Millisecond},
	} {
		if got := pollDelay(c.elapsed); got != c.want {
			t.Errorf("pollDelay(%v) = %v, want %v", c.elapsed, got, c.want)
		}
	}
}

// TestPollCancel checks that Poll notices a cancellation that arrives
// while it sleeps, that a done condition wins over an ended context, and
// that an already ended context stops it after one query.
func TestPollCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	errc := make(chan error, 1)
	go func() { errc <- Poll(ctx, "event", func() (bool, error) { return false, nil }) }()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Poll after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Poll did not return after its context was cancelled")
	}

	// ctx is cancelled now.
	if err := Poll(ctx, "event", func() (bool, error) { return true, nil }); err != nil {
		t.Errorf("Poll of a finished condition with an ended context = %v, want nil", err)
	}
	calls := 0
	err := Poll(ctx, "event", func() (bool, error) { calls++; return false, nil })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("Poll with an ended context = %v after %d queries, want context.Canceled after 1", err, calls)
	}
}
