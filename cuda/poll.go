package cuda

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// Poll waits on the host until done reports true, done fails, or ctx ends.
// It is the one host-wait loop behind Stream.Wait and Event.Wait, and the
// one for callers that poll something of their own (an event behind an
// interface, several events, a query with side conditions).
//
// done is called first at once, then after each of 16 yields of the
// processor (short waits stay responsive), then after sleeps that double
// from 5 µs up to 1 ms, so a long wait neither spins a core nor adds much
// latency. done's error is returned as it is. When ctx ends first, Poll
// returns ctx.Err() wrapped as "cuda: waiting for <what>: ..." (errors.Is
// finds context.Canceled or context.DeadlineExceeded); the work waited for
// goes on. A ctx that never ends (context.Background) makes Poll wait as
// long as done says not yet.
func Poll(ctx context.Context, what string, done func() (bool, error)) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	delay := time.Duration(0)
	for i := 0; ; i++ {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cuda: waiting for %s: %w", what, err)
		}
		switch {
		case i < 16:
			runtime.Gosched() // short waits: stay responsive
			continue
		case delay == 0:
			delay = 5 * time.Microsecond
		case delay < time.Millisecond:
			delay = min(2*delay, time.Millisecond)
		}
		if timer == nil {
			timer = time.NewTimer(delay)
		} else {
			timer.Reset(delay)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cuda: waiting for %s: %w", what, ctx.Err())
		case <-timer.C:
		}
	}
}
