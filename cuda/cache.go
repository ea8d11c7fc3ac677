package cuda

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// A Cache keeps device memory that its users gave back, to hand it out
// again without cuMemAlloc and cuMemFree, which cost hundreds of
// microseconds for frame-sized blocks (cuMemFree also waits for the
// device). It is for memory that is made and dropped every frame, such as
// the tensors a conversion returns.
//
// Memory given back with Put may still be read or written by work queued
// on streams (the consumer's, the producer's): Put records an event on
// each stream it is told of, and on the legacy default stream (which
// orders after every blocking stream, the per-thread default streams
// included); Get hands a block out again only once all of them have
// passed (a query: the host never waits), else it allocates. Work on a
// non-blocking stream that Put was not told of is not waited for: as with
// PyTorch's caching allocator, tell it of every stream that used the
// memory (DLPack's consumer stream, say).
//
// Blocks are reused for requests of the same size only. The cache keeps at
// most limit bytes of idle blocks: a Put that would pass it first frees
// the idle blocks given back longest ago (those no stream still uses:
// sizes a program stopped asking for), and frees the block it is given
// only when that is not enough (cuMemFree waits for the device). A Cache
// is safe for concurrent use.
type Cache struct {
	ctx   *Context
	limit uint64

	mu     sync.Mutex
	idle   map[uint64][]cachedBlock
	bytes  uint64 // in idle
	events []cu.Event
	seq    uint64 // Puts so far: the age of idle blocks
	closed bool
	stats  CacheStats
}

// CacheStats counts a Cache's work.
type CacheStats struct {
	Hits, Misses uint64 // Gets served from idle blocks, and by cuMemAlloc
	Busy         uint64 // idle blocks of the right size skipped: a stream had not passed their event
	Freed        uint64 // blocks Put freed instead of keeping (over the limit, no idle block to make room)
	Evicted      uint64 // idle blocks freed to make room for newer ones (over the limit)
	IdleBytes    uint64 // bytes kept now
}

type cachedBlock struct {
	m      *DeviceMemory
	events []cu.Event
	seq    uint64 // when it was given back (Cache.seq)
}

// NewCache makes a cache of c's memory keeping at most limit bytes of
// idle blocks (0: 1 GiB). It holds c until Close.
func (c *Context) NewCache(limit uint64) (*Cache, error) {
	if limit == 0 {
		limit = 1 << 30
	}
	if err := c.acquire(); err != nil {
		return nil, err
	}
	return &Cache{ctx: c, limit: limit, idle: map[uint64][]cachedBlock{}}, nil
}

// Get returns n bytes of device memory: an idle block of that size whose
// streams have passed, or a new allocation. Give it back with Put (or
// Close it: then it is freed, not kept).
func (k *Cache) Get(n uint64) (*DeviceMemory, error) {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil, fmt.Errorf("cuda: Cache.Get: %w", ErrClosed)
	}
	list := k.idle[n]
	for i, b := range list {
		if !k.passedLocked(b.events) {
			k.stats.Busy++
			continue
		}
		k.idle[n] = append(list[:i:i], list[i+1:]...)
		k.bytes -= n
		k.events = append(k.events, b.events...)
		k.stats.Hits++
		k.mu.Unlock()
		return b.m, nil
	}
	k.stats.Misses++
	k.mu.Unlock()
	return k.ctx.Alloc(n)
}

// passedLocked reports whether every event has been reached. k.mu is held.
func (k *Cache) passedLocked(es []cu.Event) bool {
	for _, e := range es {
		if cu.EventQuery(e) != cu.Success {
			return false
		}
	}
	return true
}

// Put gives m (from Get, or any allocation of the cache's context) back
// for reuse once the work queued so far on the legacy default stream and
// on each stream in streams (raw CUstream handles; 0, LegacyDefaultStream
// and PerThreadDefaultStream are covered by the legacy default stream) has
// finished. m must not be used after Put.
func (k *Cache) Put(m *DeviceMemory, streams ...uintptr) error {
	if m == nil {
		return nil
	}
	if m.ctx != k.ctx {
		return errors.Join(fmt.Errorf("cuda: Cache.Put: memory of another context: %w", ErrorInvalidValue), m.Close())
	}
	k.mu.Lock()
	var evicted []*DeviceMemory
	if !k.closed && k.bytes+m.size > k.limit && m.size <= k.limit {
		evicted = k.evictLocked(k.bytes + m.size - k.limit)
	}
	if k.closed || k.bytes+m.size > k.limit {
		if !k.closed {
			k.stats.Freed++
		}
		k.mu.Unlock()
		return errors.Join(closeAll(evicted), m.Close())
	}
	handles := []uintptr{LegacyDefaultStream}
	for _, s := range streams {
		if s != 0 && s != LegacyDefaultStream && s != PerThreadDefaultStream {
			handles = append(handles, s)
		}
	}
	b := cachedBlock{m: m}
	var err error
	for _, s := range handles {
		var e cu.Event
		if e, err = k.eventLocked(); err != nil {
			break
		}
		b.events = append(b.events, e)
		if err = check("cuEventRecord", cu.EventRecord(k.ctx.h, e, cu.StreamFromHandle(s))); err != nil {
			break
		}
	}
	if err != nil {
		// Not kept: freed once the device is done with it.
		k.events = append(k.events, b.events...)
		k.mu.Unlock()
		return errors.Join(fmt.Errorf("cuda: Cache.Put: %w", err), m.Close(), closeAll(evicted))
	}
	k.seq++
	b.seq = k.seq
	k.idle[m.size] = append(k.idle[m.size], b)
	k.bytes += m.size
	k.mu.Unlock()
	return closeAll(evicted)
}

// evictLocked takes idle blocks out of the cache, those given back longest
// ago first, skipping any a stream still uses, until at least need bytes
// are out or none is left; it returns them for the caller to free outside
// the lock (cuMemFree waits for the device). k.mu is held.
func (k *Cache) evictLocked(need uint64) []*DeviceMemory {
	type at struct {
		size uint64
		i    int
		seq  uint64
	}
	var order []at
	for size, list := range k.idle {
		for i, b := range list {
			order = append(order, at{size, i, b.seq})
		}
	}
	sort.Slice(order, func(a, b int) bool { return order[a].seq < order[b].seq })
	var out []*DeviceMemory
	gone := map[uint64]map[int]bool{}
	var freed uint64
	for _, o := range order {
		if freed >= need {
			break
		}
		b := k.idle[o.size][o.i]
		if !k.passedLocked(b.events) {
			continue
		}
		if gone[o.size] == nil {
			gone[o.size] = map[int]bool{}
		}
		gone[o.size][o.i] = true
		out = append(out, b.m)
		k.events = append(k.events, b.events...)
		freed += o.size
	}
	for size, idx := range gone {
		list := k.idle[size]
		kept := list[:0]
		for i, b := range list {
			if !idx[i] {
				kept = append(kept, b)
			}
		}
		if len(kept) == 0 {
			delete(k.idle, size)
		} else {
			k.idle[size] = kept
		}
	}
	k.bytes -= freed
	k.stats.Evicted += uint64(len(out))
	return out
}

// closeAll frees ms (cuMemFree each).
func closeAll(ms []*DeviceMemory) error {
	var err error
	for _, m := range ms {
		err = errors.Join(err, m.Close())
	}
	return err
}

// eventLocked returns an event from the spare list or a new one. k.mu is
// held.
func (k *Cache) eventLocked() (cu.Event, error) {
	if n := len(k.events); n > 0 {
		e := k.events[n-1]
		k.events = k.events[:n-1]
		return e, nil
	}
	e, r := cu.EventCreate(k.ctx.h, uint32(EventDisableTiming))
	return e, check("cuEventCreate", r)
}

// Stats returns the cache's counters.
func (k *Cache) Stats() CacheStats {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := k.stats
	s.IdleBytes = k.bytes
	return s
}

// Close frees the idle blocks (cuMemFree waits for the device) and the
// events. Blocks handed out stay their holders' (Put then frees them).
// Idempotent.
func (k *Cache) Close() error {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil
	}
	k.closed = true
	idle, events := k.idle, k.events
	k.idle, k.events, k.bytes = nil, nil, 0
	k.mu.Unlock()
	var err error
	for _, list := range idle {
		for _, b := range list {
			err = errors.Join(err, b.m.Close())
			events = append(events, b.events...)
		}
	}
	for _, e := range events {
		err = errors.Join(err, check("cuEventDestroy", cu.EventDestroy(k.ctx.h, e)))
	}
	return errors.Join(err, k.ctx.release())
}
