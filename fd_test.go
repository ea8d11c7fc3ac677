package gfxcuda

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
)

// TestExportImportBufferFD exports buffers of both origins (Vulkan and
// CUDA allocations) and imports them again on the same Device: bytes CUDA
// writes through the import are read through the original, and back.
func TestExportImportBufferFD(t *testing.T) {
	d := openDevice(t)
	for _, fromCUDA := range []bool{false, true} {
		const n = 3<<20 + 5
		var src *Buffer
		var err error
		if fromCUDA {
			src, err = d.NewBufferFromCUDA(n)
		} else {
			src, err = d.NewBuffer(n)
		}
		if err != nil {
			t.Fatal(err)
		}
		fd, err := src.ExportFD()
		if err != nil {
			t.Fatal(err)
		}
		dst, err := d.ImportBuffer(fd, n, ImportOptions{AllocationSize: src.AllocationSize(), Dedicated: src.Dedicated()})
		if err != nil {
			t.Fatalf("fromCUDA=%v: %v", fromCUDA, err)
		}
		if _, err := dst.ExportFD(); !errors.Is(err, ErrNotExportable) {
			t.Errorf("ExportFD of an imported buffer = %v, want ErrNotExportable", err)
		}
		want := random(n)
		host := pinned(t, d, n)
		copy(host.Bytes(), want)
		if err := dst.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.CopyHtoD(p, host.Bytes()) }); err != nil {
			t.Fatal(err)
		}
		copy(host.Bytes(), poisoned(n))
		if err := src.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.CopyDtoH(host.Bytes(), p) }); err != nil {
			t.Fatal(err)
		}
		if err := d.Stream().Synchronize(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(host.Bytes(), want) {
			t.Fatalf("fromCUDA=%v: bytes written through the import differ in the original", fromCUDA)
		}
		// The original closes first; the import stays valid.
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
		roundTripBuffer(t, d, dst)
		if err := dst.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := dst.ExportFD(); !errors.Is(err, ErrClosed) {
			t.Errorf("ExportFD after Close = %v", err)
		}
	}
}

// TestExportImportTextureFD imports a texture's memory as a second texture
// and checks every byte both ways.
func TestExportImportTextureFD(t *testing.T) {
	d := openDevice(t)
	src, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 301, Height: 77, Layers: 2})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := src.ExportFD()
	if err != nil {
		t.Fatal(err)
	}
	dst, err := d.ImportTexture(fd, src.Options(), ImportOptions{AllocationSize: src.AllocationSize()})
	if err != nil {
		t.Fatal(err)
	}
	o := src.Options()
	n := int(src.RowBytes()) * int(o.Height) * int(o.Layers)
	want := random(n)
	uploadImage(t, d, src, want)
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	scratch, err := d.CUDA().Alloc(uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Close()
	host := pinned(t, d, n)
	copy(host.Bytes(), poisoned(n))
	err = dst.Map(nil, func(_ *cuda.Array, s *cuda.Stream) error {
		if err := dst.CopyTo(s, scratch.Ptr(), 0); err != nil {
			return err
		}
		return s.CopyDtoH(host.Bytes(), scratch.Ptr())
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Stream().Synchronize(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(host.Bytes()[:n], want) {
		t.Fatal("texture written through the original differs in the import")
	}
	roundTripTexture(t, d, dst, scratch, host)
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestImportBadArguments: bad arguments fail with errors and close the
// descriptor (checked by counting descriptors).
func TestImportBadArguments(t *testing.T) {
	d := openDevice(t)
	b, err := d.NewBuffer(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	before := countFDs(t)
	for i := 0; i < 3; i++ {
		fd, err := b.ExportFD()
		if err != nil {
			t.Fatal(err)
		}
		switch i {
		case 0:
			_, err = d.ImportBuffer(fd, 8192, ImportOptions{AllocationSize: b.AllocationSize(), Dedicated: true})
		case 1:
			_, err = d.ImportBuffer(fd, 0, ImportOptions{AllocationSize: b.AllocationSize()})
		case 2:
			_, err = d.ImportTexture(fd, TextureOptions{Format: format.RGBA8UNorm, Width: 4, Height: 4}, ImportOptions{AllocationSize: 4096})
		}
		if err == nil {
			t.Errorf("case %d: import succeeded", i)
		}
	}
	if after := countFDs(t); after != before {
		t.Errorf("%d descriptors before, %d after failed imports", before, after)
	}
}
