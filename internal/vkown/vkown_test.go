package vkown

import (
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	defer func(h any) { hooks = h }(hooks)
	called := false
	Register(Hooks[*int, string, bool, uint32]{ReleaseBuffers: func(*int, ...string) { called = true }})
	Get[*int, string, bool, uint32]().ReleaseBuffers(nil, "b")
	if !called {
		t.Error("Get did not return the registered hooks")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "registered") {
			t.Errorf("Get of other types: panic %v", r)
		}
	}()
	Get[int, string, bool, uint32]()
}
