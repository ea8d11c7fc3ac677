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
