package compute

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestCompushadyFormats: every color format compushady accepts makes a
// typed buffer and, where the device supports it, a 2D texture, each
// round-tripping random bytes.
func TestCompushadyFormats(t *testing.T) {
	d := openTest(t)
	r := newRand(21)
	ns := DXGIFormats()
	slices.Sort(ns)
	if len(ns) != 44 {
		t.Errorf("%d formats, compushady has 44 color formats", len(ns))
	}
	textures := 0
	for _, n := range ns {
		f, _ := FormatFromDXGI(n)
		in, ok := format.Lookup(f)
		if !ok {
			t.Errorf("DXGI %d: %v is not in the format table", n, f)
			continue
		}
		b, err := d.TypedBuffer(f, 33, HeapDefault)
		if err != nil {
			t.Fatalf("TypedBuffer(%v): %v", f, err)
		}
		data := randomBytes(r, int(b.Size()))
		if err := b.Upload(data); err != nil || !bytes.Equal(readback(t, b), data) {
			t.Errorf("typed buffer of %v: round trip differs (%v)", f, err)
		}
		if b.Format() != f || b.Size() != 33*uint64(in.BytesPerTexel) {
			t.Errorf("typed buffer of %v: format %v, %d bytes", f, b.Format(), b.Size())
		}
		b.Close()
		tex, err := d.Texture2D(7, 5, f)
		if errors.Is(err, vulkan.ErrFormatNotSupported) {
			t.Logf("%v: no 2D texture on this device: %v", f, err)
			continue
		}
		if err != nil {
			t.Fatalf("Texture2D(%v): %v", f, err)
		}
		data = randomBytes(r, int(tex.Size()))
		got := poison(len(data))
		if err := tex.Upload(data); err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if err := tex.ReadbackInto(got); err != nil || !bytes.Equal(got, data) {
			t.Errorf("texture of %v: round trip differs (%v)", f, err)
		}
		tex.Close()
		textures++
	}
	if textures < 35 {
		t.Errorf("only %d formats make textures", textures)
	}
	if _, ok := FormatFromDXGI(40); ok {
		t.Error("D32_FLOAT (a depth format) has a compute format")
	}
}
