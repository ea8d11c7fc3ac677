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
// done is called first at once, then, for the first millisecond of the
// wait, after each yield of the processor (a wait returns within a query
// of the work's end), then after sleeps of 1 ms, so a long wait neither
// spins a core for long nor returns much after the work's end. done's
// error is returned as it is. When ctx ends first, Poll returns ctx.Err()
// wrapped as "cuda: waiting for <what>: ..." (errors.Is finds
// context.Canceled or context.DeadlineExceeded); the work waited for goes
// on. A ctx that never ends (context.Background) makes Poll wait as long
// as done says not yet.
func Poll(ctx context.Context, what string, done func() (bool, error)) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var start time.Time
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cuda: waiting for %s: %w", what, err)
		}
		now := time.Now()
		if start.IsZero() {
			start = now
		}
		delay := pollDelay(now.Sub(start))
		if delay == 0 {
			runtime.Gosched() // short waits: stay responsive
			continue
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

// pollSpin is how long Poll queries between yields of the processor
// before it sleeps. A Go timer shorter than a millisecond may fire up to a
// millisecond late (a 1 µs timer on the CPU machine: median 9 µs, 90th
// percentile 1.1 ms), so a wait that slept from its first microseconds
// returned up to a millisecond after the work it waited for. On the H200
// (BENCHMARKS.md, "Host waits on CUDA work"), with the 16 yields and then
// sleeps from 5 µs Poll took before, a 40 µs copy's Event.Wait returned
// 44–937 µs after the copy ended (medians of 60; 90th percentile 1.09 ms),
// a 510 µs copy's 630 µs after; with a millisecond of yields first, 8–10
// µs after both, and a 2 ms copy's 140 µs after (was 200–226 µs). CUDA's
// own synchronization spins the whole wait by default (CU_CTX_SCHED_AUTO
// with fewer contexts than cores); Poll yields for a millisecond, then
// sleeps.
const pollSpin = time.Millisecond

// pollDelay is Poll's schedule: how long to sleep before the next query,
// elapsed into the wait: 0 (yield and query again) for the first
// pollSpin, then 1 ms (a shorter Go timer is no more precise).
func pollDelay(elapsed time.Duration) time.Duration {
	if elapsed < pollSpin {
		return 0
	}
	return time.Millisecond
}
