package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestViewFormats: the view formats of gfxcuda_shared_texture_new_views
// and gfxcuda_shared_texture_import_fd_views are read from the caller's
// array (none for a count of 0, whatever the pointer), and a null array
// with a count, more than 16 or a format gfxcuda does not know are refused
// as invalid arguments naming the problem, before any texture is made.
func TestViewFormats(t *testing.T) {
	r32, rgba := uint32(format.R32UInt), uint32(format.RGBA8UNorm)
	if fs, err := cViewFormats(nil, 0, true); err != nil || fs != nil {
		t.Errorf("none: %v, %v", fs, err)
	}
	if fs, err := cViewFormats([]uint32{r32, rgba}, 2, false); err != nil || !slices.Equal(fs, []format.Format{format.R32UInt, format.RGBA8UNorm}) {
		t.Errorf("two: %v, %v", fs, err)
	}
	if fs, err := cViewFormats([]uint32{r32, rgba}, 1, false); err != nil || !slices.Equal(fs, []format.Format{format.R32UInt}) {
		t.Errorf("the first of two: %v, %v", fs, err)
	}
	for _, c := range []struct {
		vals []uint32
		n    int
		null bool
		want string
	}{
		{nil, 1, true, "give at most 16, non-null"},
		{make([]uint32, 17), 17, false, "17 view formats"},
		{[]uint32{r32, 123456}, 2, false, "unknown view format 123456"},
	} {
		for i := range c.vals {
			if c.vals[i] == 0 {
				c.vals[i] = r32
			}
		}
		_, err := cViewFormats(c.vals, c.n, c.null)
		if err == nil || statusOf(err) != stInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d view formats (null %v): %v (status %d), want an invalid argument mentioning %q", c.n, c.null, err, statusOf(err), c.want)
		}
	}
}
