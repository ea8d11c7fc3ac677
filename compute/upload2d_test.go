package compute

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// refUpload2D is compushady's vulkan_Resource_upload2d loop (vulkan.cpp),
// transcribed, on a host copy of the buffer: it returns false where
// compushady would write past the end of the buffer (Upload2D's error).
func refUpload2D(mem, data []byte, pitch, row uint64, height int) bool {
	offset, remains, resourceRemains := uint64(0), uint64(len(data)), uint64(len(mem))
	for y := uint64(0); y < uint64(height); y++ {
		amount := min(row, min(remains, resourceRemains))
		if amount > 0 {
			if pitch*y+amount > uint64(len(mem)) {
				return false
			}
			copy(mem[pitch*y:pitch*y+amount], data[offset:offset+amount])
		}
		remains -= amount
		if remains == 0 {
			break
		}
		resourceRemains -= amount
		offset += amount
	}
	return true
}

// upload2DCase is one Upload2D call on a buffer of size bytes.
type upload2DCase struct {
	size, pitch, row uint64
	height, n        int
}

func (c upload2DCase) String() string {
	return fmt.Sprintf("%d bytes as %d rows of %d, pitch %d, into %d bytes", c.n, c.height, c.row, c.pitch, c.size)
}

// upload2DCases: compushady's own (4 bytes into a 2x2 RGBA8 texture's
// rows, 8 into a 2x2x2 one's), exact, partial, too long, empty, gaps,
// overlapping rows and rows past the end, then random ones that mostly
// fit.
func upload2DCases(r interface{ IntN(int) int }) []upload2DCase {
	cs := []upload2DCase{
		{size: 16, pitch: 8, row: 8, height: 2, n: 4},      // test_texture2d.test_simple_upload2d
		{size: 32, pitch: 8, row: 8, height: 2, n: 8},      // test_texture3d.test_simple_upload2d
		{size: 1024, pitch: 256, row: 8, height: 2, n: 4},  // the same with a 256-byte row pitch
		{size: 1024, pitch: 256, row: 8, height: 2, n: 12}, // a partial last row
		{size: 1024, pitch: 256, row: 8, height: 4, n: 32}, // exact
		{size: 1024, pitch: 256, row: 8, height: 4, n: 99}, // too long: cut
		{size: 64, pitch: 16, row: 16, height: 4, n: 64},   // contiguous rows
		{size: 64, pitch: 16, row: 16, height: 4, n: 0},    // empty
		{size: 64, pitch: 16, row: 16, height: 0, n: 32},   // no rows
		{size: 64, pitch: 16, row: 0, height: 4, n: 32},    // empty rows
		{size: 20, pitch: 4, row: 8, height: 4, n: 32},     // overlapping rows
		{size: 16, pitch: 0, row: 8, height: 3, n: 24},     // every row at 0: the budget ends it
		{size: 16, pitch: 12, row: 4, height: 3, n: 12},    // row 2 past the end: an error
		{size: 16, pitch: 12, row: 4, height: 3, n: 8},     // ... unless the data ends first
		{size: 8, pitch: 16, row: 16, height: 1, n: 4},     // one row wider than the buffer, short data
		{size: 8, pitch: 16, row: 16, height: 1, n: 9},     // ... and data that would pass the end
		{size: 30, pitch: 8, row: 8, height: 4, n: 32},     // the last row 2 bytes short of room
		{size: 30, pitch: 8, row: 8, height: 4, n: 30},     // ... and data that stops there
		{size: 64, pitch: 1 << 62, row: 8, height: 3, n: 24},
	}
	for range 60 {
		c := upload2DCase{pitch: uint64(r.IntN(80)), row: uint64(r.IntN(48)), height: r.IntN(7)}
		span := c.row
		if c.height > 1 {
			span += c.pitch * uint64(c.height-1)
		}
		c.size = uint64(max(1, int(span)+r.IntN(24)-r.IntN(8)))
		c.n = r.IntN(int(c.row)*c.height + 24)
		cs = append(cs, c)
	}
	return cs
}

// TestUpload2D: Upload2D follows compushady's upload2d rule byte for byte
// on random data, on every heap: a poisoned buffer, the call, then every
// byte compared with compushady's loop on the same bytes (what the rows do
// not cover is untouched; an error writes nothing).
func TestUpload2D(t *testing.T) {
	d := openTest(t)
	r := newRand(41)
	cases := upload2DCases(r)
	for _, heap := range []Heap{HeapUpload, HeapDefault, HeapReadback} {
		t.Run(heap.String(), func(t *testing.T) {
			errs := 0
			for _, c := range cases {
				before := randomBytes(r, int(c.size))
				b := newBuffer(t, d, heap, before)
				data := randomBytes(r, c.n)
				want := bytes.Clone(before)
				ok := refUpload2D(want, data, c.pitch, c.row, c.height)
				err := b.Upload2D(data, c.pitch, c.row, c.height)
				if ok != (err == nil) {
					t.Fatalf("%v: error %v, compushady writes in bounds: %v", c, err, ok)
				}
				if !ok {
					errs++
					want = before
				}
				if got := readback(t, b); !bytes.Equal(got, want) {
					i := 0
					for got[i] == want[i] {
						i++
					}
					t.Fatalf("%v: byte %d is %#x, want %#x", c, i, got[i], want[i])
				}
				b.Close()
			}
			if errs == 0 || errs == len(cases) {
				t.Fatalf("%d of %d cases were errors: the cases do not test both", errs, len(cases))
			}
		})
	}
	b := newBuffer(t, d, HeapUpload, make([]byte, 16))
	if err := b.Upload2D(nil, 8, 8, -1); err == nil {
		t.Error("a height of -1 accepted")
	}
}

// TestReadback2D: Readback2D reads what compushady's readback2d reads
// (rows pitch bytes apart, packed) and refuses what it refuses (a buffer
// under compushady's size by pitch) and what would read past the end.
func TestReadback2D(t *testing.T) {
	d := openTest(t)
	r := newRand(43)
	for _, heap := range []Heap{HeapReadback, HeapDefault} {
		t.Run(heap.String(), func(t *testing.T) {
			for _, c := range upload2DCases(r) {
				mem := randomBytes(r, int(c.size))
				b := newBuffer(t, d, heap, mem)
				// compushady_get_size_by_pitch, and the end of the last row.
				need, end := c.pitch, c.row
				if c.height > 1 {
					need = c.pitch*uint64(c.height-1) + c.row
					end = need
				}
				ok := c.pitch < 1<<40 && need <= c.size && (c.height == 0 || end <= c.size)
				got, err := b.Readback2D(c.pitch, c.row, c.height)
				if ok != (err == nil) {
					t.Fatalf("%v: error %v, want an error: %v", c, err, !ok)
				}
				if ok {
					var want []byte
					for y := range uint64(c.height) {
						want = append(want, mem[y*c.pitch:y*c.pitch+c.row]...)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("%v: read %x, want %x", c, got, want)
					}
				}
				b.Close()
			}
		})
	}
}

// TestUploadChunkedRule: compushady's upload_chunked rule on random data:
// whole chunks only, the size check counting the partial chunk, and bytes
// past the last filler untouched.
func TestUploadChunkedRule(t *testing.T) {
	d := openTest(t)
	r := newRand(47)
	for _, heap := range []Heap{HeapUpload, HeapDefault} {
		t.Run(heap.String(), func(t *testing.T) {
			for i := range 40 {
				stride, fill := 1+r.IntN(16), r.IntN(6)
				n := r.IntN(12*stride + 1)
				whole := n / stride
				size := max(1, n+whole*fill+r.IntN(12)-r.IntN(6))
				if i == 0 { // compushady's test_upload_chunked
					stride, fill, n, size, whole = 2, 2, 4, 8, 2
				}
				before := randomBytes(r, size)
				b := newBuffer(t, d, heap, before)
				data, filler := randomBytes(r, n), randomBytes(r, fill)
				err := b.UploadChunked(data, stride, filler)
				want := bytes.Clone(before)
				if ok := n+whole*fill <= size; ok != (err == nil) {
					t.Fatalf("%d bytes, stride %d, filler %d, size %d: error %v, want one: %v", n, stride, fill, size, err, !ok)
				} else if ok {
					o := 0
					for k := range whole {
						o += copy(want[o:], data[k*stride:(k+1)*stride])
						o += copy(want[o:], filler)
					}
				}
				if got := readback(t, b); !bytes.Equal(got, want) {
					t.Fatalf("%d bytes, stride %d, filler %d, size %d: got %x, want %x", n, stride, fill, size, got, want)
				}
				b.Close()
			}
		})
	}
	b := newBuffer(t, d, HeapUpload, make([]byte, 8))
	if err := b.UploadChunked([]byte{1, 2}, 0, nil); err == nil {
		t.Error("a stride of 0 accepted")
	}
}

// TestReadback2DInto: the rows land in dst, which must hold them exactly;
// UploadAt and ReadbackAt past the end wrap ErrRange.
func TestReadback2DInto(t *testing.T) {
	d := openTest(t)
	b := newBuffer(t, d, HeapDefault, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	defer b.Close()
	dst := make([]byte, 6)
	if err := b.Readback2DInto(dst, 4, 2, 3); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0, 1, 4, 5, 8, 9}; !bytes.Equal(dst, want) {
		t.Errorf("Readback2DInto = %v, want %v", dst, want)
	}
	if err := b.Readback2DInto(make([]byte, 5), 4, 2, 3); !errors.Is(err, ErrRange) {
		t.Errorf("5 bytes for 3 rows of 2: %v, want ErrRange", err)
	}
	if err := b.UploadAt(10, make([]byte, 4)); !errors.Is(err, ErrRange) {
		t.Errorf("UploadAt past the end: %v, want ErrRange", err)
	}
	if err := b.ReadbackAt(13, nil); !errors.Is(err, ErrRange) {
		t.Errorf("ReadbackAt past the end: %v, want ErrRange", err)
	}
}
