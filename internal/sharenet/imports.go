package sharenet

import "sync"

// Imports counts what a process imported of shared resources, so that
// opening one resource again shares its import: one import per key (the
// resource's identity in its token and where it is imported), released
// with its last reference. Every open still asks the exporter; only the
// import is reused. The caller makes and closes the imports. Safe for
// concurrent use; the zero value is empty.
type Imports[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*counted[V]
}

type counted[V any] struct {
	v    V
	refs int
}

// Get returns k's import, taking a reference, or ok false when there is
// none.
func (c *Imports[K, V]) Get(k K) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	if e == nil {
		return v, false
	}
	e.refs++
	return e.v, true
}

// Add records v, just made, as k's import, with one reference. When
// another import of k was added meanwhile, it takes a reference to that one
// and returns it with added false: the caller closes v and uses it.
func (c *Imports[K, V]) Add(k K, v V) (_ V, added bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[k]; e != nil {
		e.refs++
		return e.v, false
	}
	if c.m == nil {
		c.m = map[K]*counted[V]{}
	}
	c.m[k] = &counted[V]{v: v, refs: 1}
	return v, true
}

// Release drops a reference to k's import and reports whether it was the
// last: the caller closes the import then.
func (c *Imports[K, V]) Release(k K) (last bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	if e == nil {
		return false
	}
	e.refs--
	if e.refs > 0 {
		return false
	}
	delete(c.m, k)
	return true
}

// Len counts the imports alive.
func (c *Imports[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
