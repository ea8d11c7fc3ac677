package sharenet

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestImportsCounts: random opens and closes of a few keys from several
// goroutines; each key's import is made only when none is alive, shared
// while one is, and released by its last reference alone.
func TestImportsCounts(t *testing.T) {
	var c Imports[int, *int]
	var mu sync.Mutex
	made := map[int]int{}   // imports made per key
	closed := map[int]int{} // imports closed per key
	open := func(k int) *int {
		if v, ok := c.Get(k); ok {
			return v
		}
		v := new(int)
		*v = k
		mu.Lock()
		made[k]++
		mu.Unlock()
		got, added := c.Add(k, v)
		if !added {
			mu.Lock()
			closed[k]++ // the caller closes its own
			mu.Unlock()
		}
		return got
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			var held []int
			for range 2000 {
				if len(held) > 0 && rng.IntN(2) == 0 {
					i := rng.IntN(len(held))
					k := held[i]
					held = append(held[:i], held[i+1:]...)
					if c.Release(k) {
						mu.Lock()
						closed[k]++
						mu.Unlock()
					}
					continue
				}
				k := rng.IntN(4)
				if v := open(k); *v != k {
					t.Errorf("key %d: import of %d", k, *v)
					return
				}
				held = append(held, k)
			}
			for _, k := range held {
				if c.Release(k) {
					mu.Lock()
					closed[k]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if c.Len() != 0 {
		t.Fatalf("%d imports alive after every release", c.Len())
	}
	for k := range 4 {
		if made[k] != closed[k] || made[k] == 0 {
			t.Errorf("key %d: %d imports made, %d closed", k, made[k], closed[k])
		}
	}
	if c.Release(7) {
		t.Error("Release of a key never imported was the last")
	}
}

// TestImportsShares: a second open shares the first's import; the import
// goes with the last of the two.
func TestImportsShares(t *testing.T) {
	var c Imports[string, int]
	if _, ok := c.Get("a"); ok {
		t.Fatal("Get of an empty cache")
	}
	if v, added := c.Add("a", 1); !added || v != 1 {
		t.Fatalf("Add: %d, %v", v, added)
	}
	if v, added := c.Add("a", 2); added || v != 1 {
		t.Fatalf("Add of a key imported meanwhile: %d, %v; want the first import", v, added)
	}
	if v, ok := c.Get("a"); !ok || v != 1 || c.Len() != 1 {
		t.Fatalf("Get: %d, %v, %d imports", v, ok, c.Len())
	}
	for i, want := range []bool{false, false, true} {
		if last := c.Release("a"); last != want {
			t.Fatalf("release %d: last %v, want %v", i+1, last, want)
		}
	}
	if _, ok := c.Get("a"); ok || c.Len() != 0 {
		t.Fatal("the import outlived its last reference")
	}
}
