package vulkan

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// fdOpen is false on Windows: there are no file descriptors to check.
func fdOpen(int) bool { return false }

// devNullFD skips the test: file descriptors are Linux-only.
func devNullFD(t testing.TB) int {
	t.Helper()
	t.Skip("file descriptor import is Linux-only (not supported on Windows yet)")
	return -1
}

// underWine tells whether the test runs under Wine (ntdll exports
// wine_get_version there), not on Windows.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// TestWindowsRefusesFDs: on Windows, exportable and imported buffers and
// images and memory imports fail with ErrUnsupported and an error that
// says file descriptors are not supported on Windows yet; nothing is
// created and the device keeps working.
func TestWindowsRefusesFDs(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "not supported on Windows yet") {
			t.Errorf("%s: %v, want ErrUnsupported saying not supported on Windows yet", what, err)
		}
	}
	b, err := d.NewBuffer(BufferOptions{Size: 4096, Exportable: true})
	if b != nil {
		b.Close()
	}
	check("exportable buffer", err)
	b, err = d.NewBuffer(BufferOptions{Size: 4096, Import: &ImportFD{FD: 3, Size: 4096}})
	if b != nil {
		b.Close()
	}
	check("imported buffer", err)
	img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 16, Height: 16, Exportable: true})
	if img != nil {
		img.Close()
	}
	check("exportable image", err)
	m, err := d.ImportMemory(ImportFD{FD: 3, Size: 4096})
	if m != nil {
		m.Close()
	}
	check("memory import", err)
	// The device still works.
	ok, err := d.NewBuffer(BufferOptions{Size: 4096, Heap: HeapUpload})
	if err != nil {
		t.Fatal(err)
	}
	ok.Close()
}
