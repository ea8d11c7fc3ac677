package vulkan

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// TestStagePieceFor: transfers are cut into pieces of a quarter, at least
// stagePieceMin, at most a slot, in 64 KiB steps.
func TestStagePieceFor(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{1, stagePieceMin},
		{4 << 20, 1 << 20},
		{1920 * 1080 * 4, 2097152}, // 8,294,400 / 4 = 2,073,600 → 32 × 64 KiB
		{64 << 20, stageSlot},
		{1 << 30, stageSlot},
	} {
		if got := stagePieceFor(tc.n); got != tc.want {
			t.Errorf("stagePieceFor(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestImportRule: TransferAuto imports on CPU devices only; Staged never;
// Import always.
func TestImportRule(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	soft := d.Physical().IsSoftware()
	for _, tc := range []struct {
		m    TransferMode
		want bool
	}{{TransferAuto, soft}, {TransferStaged, false}, {TransferImport, true}} {
		if got := d.importsFor(tc.m); got != tc.want {
			t.Errorf("importsFor(%v) on %s = %v", tc.m, d, got)
		}
		d.SetTransferMode(tc.m)
		if got := d.ImportsHostMemory(); got != (tc.want && d.raw.HasHostPointer()) {
			t.Errorf("ImportsHostMemory in %v on %s = %v", tc.m, d, got)
		}
	}
}

// TestTransferModes: Upload and Readback of a device-local buffer in every
// transfer mode, at sizes around the piece and slot boundaries and the
// ring's size, at offsets, from and into unaligned slices, every byte
// compared on random data; the stats say which path ran.
func TestTransferModes(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	const bufSize = 64<<20 + 64
	b, err := d.NewBuffer(BufferOptions{Size: bufSize})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	importing := d.raw.HasHostPointer()
	sizes := []int{1, 4095, 4<<20 - 1, 4 << 20, 4<<20 + 1, stageSlot*stageSlots + 1, 64<<20 + 13}
	if testing.Short() {
		sizes = sizes[:5]
	}
	seed := uint64(100)
	// shadow is what the buffer holds: the whole of it is compared after
	// each mode, so a write outside its range shows.
	shadow := randomBytes(seed, bufSize)
	if err := b.Upload(0, shadow); err != nil {
		t.Fatal(err)
	}
	whole := make([]byte, bufSize)
	for _, mode := range []TransferMode{TransferAuto, TransferStaged, TransferImport} {
		d.SetTransferMode(mode)
		for _, n := range sizes {
			for _, shift := range []int{0, 1, 4093} { // where the host slice starts past a page
				name := fmt.Sprintf("%v/%d bytes/host+%d", mode, n, shift)
				if n+shift+51 > bufSize {
					shift = 0
				}
				off := uint64(shift % 51) // device offset
				seed++
				data := randomBytes(seed, n+shift)[shift:]
				before := d.TransferStats()
				imports := d.HostImports()
				if err := b.Upload(off, data); err != nil {
					t.Fatalf("%s: Upload: %v", name, err)
				}
				got := poisoned(n + shift)[shift:]
				if err := b.Readback(off, got); err != nil {
					t.Fatalf("%s: Readback: %v", name, err)
				}
				mustEqual(t, name, got, data)
				copy(shadow[off:], data)
				st := d.TransferStats().Sub(before)
				imported := d.HostImports() - imports
				viaImport := d.importsFor(mode) && importing
				switch {
				case !viaImport && imported != 0:
					t.Errorf("%s: %d host imports", name, imported)
				case viaImport && n >= 2*hostImportMin && imported != 2:
					t.Errorf("%s: %d host imports, want 2 (an upload and a readback)", name, imported)
				}
				if st.Transfers < 2 || st.Pieces < 2 || st.StagedBytes+st.ImportedBytes < 2*int64(n) {
					t.Errorf("%s: stats %+v", name, st)
				}
				if !viaImport {
					wantPieces := 2 * int64((n+stagePieceFor(n)-1)/stagePieceFor(n))
					if st.Pieces != wantPieces || st.StagedBytes != 2*int64(n) {
						t.Errorf("%s: %d pieces, %d bytes staged; want %d, %d", name, st.Pieces, st.StagedBytes, wantPieces, 2*n)
					}
				}
			}
		}
		clear(whole)
		if err := b.Readback(0, whole); err != nil {
			t.Fatal(err)
		}
		mustEqual(t, fmt.Sprintf("%v: the whole buffer", mode), whole, shadow)
	}
	checkValidation(t, in)
}

// TestImageTransferModes: a 1080p RGBA8 image (4 pieces of bands of rows)
// and an odd-sized one, up and back in every mode, from unaligned slices
// too.
func TestImageTransferModes(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	for _, sz := range [][2]uint32{{1920, 1080}, {333, 7}} {
		img, err := d.NewImage(ImageOptions{Width: sz[0], Height: sz[1], Dim: Image2D, Format: 37 /* R8G8B8A8_UNORM */, Usage: ImageStorage | ImageTransferSrc | ImageTransferDst})
		if err != nil {
			t.Fatal(err)
		}
		n := int(sz[0] * sz[1] * 4)
		for _, mode := range []TransferMode{TransferAuto, TransferStaged, TransferImport} {
			d.SetTransferMode(mode)
			for _, shift := range []int{0, 3} {
				name := fmt.Sprintf("%dx%d/%v/host+%d", sz[0], sz[1], mode, shift)
				data := randomBytes(uint64(n+shift), n+shift)[shift:]
				if err := img.Upload(ImageRegion{}, data); err != nil {
					t.Fatalf("%s: Upload: %v", name, err)
				}
				got := poisoned(n + shift)[shift:]
				if err := img.Readback(ImageRegion{}, got); err != nil {
					t.Fatalf("%s: Readback: %v", name, err)
				}
				mustEqual(t, name, got, data)
			}
		}
		img.Close()
	}
	checkValidation(t, in)
}

// BenchmarkImageStaged times a 1080p RGBA8 round trip through the staging
// rings (TransferStaged), reporting the host copy and submit time per
// round trip from TransferStats; every byte is compared after each trip.
// Validation is off: it would time the layer's checks of each submit.
func BenchmarkImageStaged(b *testing.B) {
	off := false
	in, err := NewInstance(InstanceOptions{AppName: "gfxcuda-bench", Validation: &off})
	if err != nil {
		unavailable(b, "Vulkan unavailable: %v", err)
	}
	defer in.Close()
	d := testDevice(b, in)
	img, err := d.NewImage(ImageOptions{Width: 1920, Height: 1080, Format: 37 /* R8G8B8A8_UNORM */, Usage: ImageTransferSrc | ImageTransferDst})
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	d.SetTransferMode(TransferStaged)
	n := 1920 * 1080 * 4
	frames := [2][]byte{randomBytes(1, n), randomBytes(2, n)}
	back := poisoned(n)
	var st TransferStats
	b.SetBytes(int64(2 * n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(back)
		before := d.TransferStats()
		if err := img.Upload(ImageRegion{}, frames[i%2]); err != nil {
			b.Fatal(err)
		}
		if err := img.Readback(ImageRegion{}, back); err != nil {
			b.Fatal(err)
		}
		s := d.TransferStats().Sub(before)
		st.HostCopy += s.HostCopy
		st.Submit += s.Submit
		st.Wait += s.Wait
		st.Pieces += s.Pieces
		b.StopTimer()
		if !bytes.Equal(back, frames[i%2]) {
			b.Fatal("round trip: bytes differ")
		}
		b.StartTimer()
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(per(st.HostCopy), "hostcopy-µs/op")
	b.ReportMetric(per(st.Submit), "submit-µs/op")
	b.ReportMetric(per(st.Wait), "wait-µs/op")
	b.ReportMetric(float64(st.Pieces)/float64(b.N), "pieces/op")
}

// TestImageRegionTransfers: regions narrower than the image (host rows of
// the region's width, not the image's), odd widths of a 1-byte format, some
// layers of an array, and regions cut into several pieces, uploaded into a
// known image and read back whole and as the region, in every mode. The
// model of the image is updated on the host and compared byte for byte.
func TestImageRegionTransfers(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	type tc struct {
		format, bs   uint32
		w, h, layers uint32
		regions      []ImageRegion
	}
	for _, c := range []tc{
		{37 /* R8G8B8A8_UNORM */, 4, 1000, 50, 3, []ImageRegion{
			{X: 5, Y: 3, Width: 333, Height: 7, Layer: 1, Layers: 2},
			{X: 999, Y: 49, Width: 1, Height: 1, Layer: 2},
			{X: 0, Y: 10, Width: 1000, Height: 1},
		}},
		{9 /* R8_UNORM */, 1, 1001, 37, 1, []ImageRegion{
			{X: 1, Y: 2, Width: 333, Height: 7},
			{X: 3, Y: 0, Width: 997, Height: 37},
			{X: 1000, Y: 36, Width: 1, Height: 1},
			{},
		}},
		// 4 MB regions of 2,999 of 3,001 texels per row: several pieces
		// of bands of odd rows.
		{9 /* R8_UNORM */, 1, 3001, 1500, 1, []ImageRegion{
			{X: 1, Y: 1, Width: 2999, Height: 1397},
			{X: 2, Y: 100, Width: 2997, Height: 1399},
		}},
	} {
		img, err := d.NewImage(ImageOptions{Width: c.w, Height: c.h, Layers: c.layers, Format: c.format, Usage: ImageTransferSrc | ImageTransferDst})
		if err != nil {
			t.Fatal(err)
		}
		whole := int(c.w * c.h * c.layers * c.bs)
		for mi, mode := range []TransferMode{TransferStaged, TransferAuto, TransferImport} {
			d.SetTransferMode(mode)
			model := randomBytes(uint64(100+mi), whole)
			if err := img.Upload(ImageRegion{}, model); err != nil {
				t.Fatalf("%v: Upload whole: %v", mode, err)
			}
			for ri, r := range c.regions {
				name := fmt.Sprintf("%s %dx%dx%d/%v/region %d %+v", FormatName(c.format), c.w, c.h, c.layers, mode, ri, r)
				n, err := img.RegionSize(r)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				rr := r
				if _, err := img.resolve(&rr); err != nil {
					t.Fatal(err)
				}
				// Twice (the second time with batches recorded before), and
				// from an unaligned slice.
				for rep, shift := range []int{0, 1} {
					data := randomBytes(uint64(1000*mi+10*ri+rep), int(n)+shift)[shift:]
					if err := img.Upload(r, data); err != nil {
						t.Fatalf("%s: Upload: %v", name, err)
					}
					rowBytes := int(rr.Width * c.bs)
					at := 0
					for l := rr.Layer; l < rr.Layer+rr.Layers; l++ {
						for y := rr.Y; y < rr.Y+rr.Height; y++ {
							o := int(((l*c.h)+y)*c.w+rr.X) * int(c.bs)
							copy(model[o:o+rowBytes], data[at:at+rowBytes])
							at += rowBytes
						}
					}
					got := poisoned(int(n) + shift)[shift:]
					if err := img.Readback(r, got); err != nil {
						t.Fatalf("%s: Readback: %v", name, err)
					}
					mustEqual(t, name+": region", got, data)
					all := poisoned(whole)
					if err := img.Readback(ImageRegion{}, all); err != nil {
						t.Fatalf("%s: Readback whole: %v", name, err)
					}
					mustEqual(t, name+": whole image", all, model)
				}
			}
		}
		img.Close()
	}
	checkValidation(t, in)
}

// TestStagedBatchReuse: repeated staged transfers submit the batches they
// recorded before, and a batch recorded for one image, region or buffer is
// never submitted for another (same sizes, same slots), nor for an image
// closed and replaced.
func TestStagedBatchReuse(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	d.SetTransferMode(TransferStaged)
	newImg := func() *Image {
		img, err := d.NewImage(ImageOptions{Width: 640, Height: 480, Format: 37, Usage: ImageTransferSrc | ImageTransferDst})
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	n := 640 * 480 * 4
	a, b := newImg(), newImg()
	defer b.Close()
	dataA, dataB := randomBytes(1, n), randomBytes(2, n)
	before := d.TransferStats()
	for rep := range 3 {
		if err := a.Upload(ImageRegion{}, dataA); err != nil {
			t.Fatal(err)
		}
		if err := b.Upload(ImageRegion{}, dataB); err != nil {
			t.Fatal(err)
		}
		for _, x := range []struct {
			img  *Image
			want []byte
		}{{a, dataA}, {b, dataB}} {
			got := poisoned(n)
			if err := x.img.Readback(ImageRegion{}, got); err != nil {
				t.Fatal(err)
			}
			mustEqual(t, fmt.Sprintf("repetition %d", rep), got, x.want)
		}
		// The lower half, then the upper: same sizes, other rows.
		half := n / 2
		for h, r := range []ImageRegion{{Y: 240}, {Height: 240}} {
			got := poisoned(half)
			if err := a.Readback(r, got); err != nil {
				t.Fatal(err)
			}
			mustEqual(t, fmt.Sprintf("repetition %d, half %d", rep, h), got, dataA[(1-h)*half:(2-h)*half])
		}
		dataA, dataB = dataB, randomBytes(uint64(3+rep), n)
	}
	st := d.TransferStats().Sub(before)
	if st.Reused == 0 || st.Reused >= st.Pieces {
		t.Errorf("%d of %d pieces reused a batch: want some, not all", st.Reused, st.Pieces)
	}
	// A closed image's batches are not submitted for the next one.
	a.Close()
	c := newImg()
	defer c.Close()
	data := randomBytes(9, n)
	if err := c.Upload(ImageRegion{}, data); err != nil {
		t.Fatal(err)
	}
	got := poisoned(n)
	if err := c.Readback(ImageRegion{}, got); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "new image", got, data)
	// Buffers: two of the same size, alternately.
	bufs := [2]*Buffer{}
	for i := range bufs {
		var err error
		if bufs[i], err = d.NewBuffer(BufferOptions{Size: 3 << 20, Usage: BufferTransferSrc | BufferTransferDst}); err != nil {
			t.Fatal(err)
		}
		defer bufs[i].Close()
	}
	for rep := range 4 {
		want := [2][]byte{randomBytes(uint64(20+rep), 3<<20), randomBytes(uint64(40+rep), 3<<20)}
		for i, bf := range bufs {
			if err := bf.Upload(0, want[i]); err != nil {
				t.Fatal(err)
			}
		}
		for i, bf := range bufs {
			got := poisoned(3 << 20)
			if err := bf.Readback(0, got); err != nil {
				t.Fatal(err)
			}
			mustEqual(t, fmt.Sprintf("buffer %d, repetition %d", i, rep), got, want[i])
		}
	}
	checkValidation(t, in)
}
