package vulkan

import (
	"slices"
	"sync"
)

// Pool hands out command batches of one Device, reusing those whose
// submission has finished and those given back unsubmitted, so that
// getting one never waits on the host. Device.Run draws from the device's
// own pool; package gfxcuda keeps one for its hand-offs and rings. Safe for
// concurrent use; each batch is used by one goroutine at a time between Get
// and Put.
type Pool struct {
	d    *Device
	max  int // idle batches kept; 0: no bound
	mu   sync.Mutex
	busy []*Commands // submitted, maybe still running
	idle []*Commands // reset, ready for recording
}

// NewPool makes an empty pool of the device's command batches.
func (d *Device) NewPool() *Pool { return &Pool{d: d} }

// Get returns a batch ready for recording: an idle one, one whose
// submission has finished, or a new one. Give it back with Put.
func (p *Pool) Get() (*Commands, error) {
	p.mu.Lock()
	for n := len(p.idle); n > 0; n = len(p.idle) {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		if !c.life.isClosing() {
			p.mu.Unlock()
			return c, nil
		}
	}
	for i := 0; i < len(p.busy); i++ {
		c := p.busy[i]
		if c.life.isClosing() { // closed with its device
			p.busy = slices.Delete(p.busy, i, i+1)
			i--
			continue
		}
		if c.Done() && c.Reset() == nil {
			p.busy = slices.Delete(p.busy, i, i+1)
			p.mu.Unlock()
			return c, nil
		}
	}
	p.mu.Unlock()
	c, err := p.d.NewCommands()
	if err != nil {
		return nil, err
	}
	c.from = p
	return c, nil
}

// Put gives back a batch from Get: a submitted batch is reused once it has
// finished; any other is reset (discarding what was recorded, and
// restoring the image layouts it recorded) and reused at once.
func (p *Pool) Put(c *Commands) {
	if c == nil || c.from != p {
		return
	}
	submitted := c.state == cmdSubmitted && !c.Done()
	p.mu.Lock()
	defer p.mu.Unlock()
	if submitted {
		p.busy = append(p.busy, c)
		return
	}
	if c.Reset() == nil && (p.max == 0 || len(p.idle) < p.max) {
		p.idle = append(p.idle, c)
		return
	}
	c.Close()
}

// Owns reports whether c came from the pool.
func (p *Pool) Owns(c *Commands) bool { return c != nil && c.from == p }

// Len returns the number of batches the pool holds (not those out).
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.busy) + len(p.idle)
}

// Close waits for the pool's submitted batches and frees them all.
// Batches out of the pool are the caller's to Close.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range append(p.busy, p.idle...) {
		c.Close()
	}
	p.busy, p.idle = nil, nil
	return nil
}
