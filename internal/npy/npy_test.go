package npy

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, a := range []Array{
		{Descr: "<f4", Shape: []int{3}, Data: make([]byte, 12)},
		{Descr: "|u1", Shape: []int{2, 3, 4}, Data: bytes.Repeat([]byte{7}, 24)},
		{Descr: "<u4", Shape: []int{}, Data: []byte{1, 2, 3, 4}},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, a); err != nil {
			t.Fatal(err)
		}
		if (buf.Len()-len(a.Data))%64 != 0 {
			t.Errorf("header not 64-byte aligned: %d", buf.Len()-len(a.Data))
		}
		b, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if b.Descr != a.Descr || len(b.Shape) != len(a.Shape) || !bytes.Equal(b.Data, a.Data) {
			t.Errorf("round trip %+v → %+v", a, b)
		}
	}
}

func TestBadInput(t *testing.T) {
	if err := Write(&bytes.Buffer{}, Array{Descr: "<f4", Shape: []int{2}, Data: make([]byte, 4)}); err == nil {
		t.Error("short data accepted")
	}
	for _, in := range [][]byte{nil, []byte("hello world"), append([]byte("\x93NUMPY\x01\x00\x05\x00"), "{'x'}"...)} {
		if _, err := Read(bytes.NewReader(in)); !errors.Is(err, ErrFormat) {
			t.Errorf("Read(%q) = %v", in, err)
		}
	}
}

// TestNumPyReadsIt checks compatibility with real NumPy where it is installed.
func TestNumPyReadsIt(t *testing.T) {
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with numpy")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "a.npy")
	var buf bytes.Buffer
	Write(&buf, Array{Descr: "<u2", Shape: []int{2, 2}, Data: []byte{1, 0, 2, 0, 3, 0, 4, 1}})
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", "import numpy as np; a=np.load('"+p+"'); print(a.dtype, a.shape, a.sum())").CombinedOutput()
	if err != nil || string(bytes.TrimSpace(out)) != "uint16 (2, 2) 266" {
		t.Errorf("numpy says %q, %v", out, err)
	}
	q := filepath.Join(dir, "b.npy")
	if out, err := exec.Command(py, "-c", "import numpy as np; np.save('"+q+"', np.arange(6, dtype=np.float32).reshape(2,3))").CombinedOutput(); err != nil {
		t.Fatalf("%s %v", out, err)
	}
	a, err := ReadFile(q)
	if err != nil || a.Descr != "<f4" || len(a.Shape) != 2 || a.Shape[1] != 3 || len(a.Data) != 24 {
		t.Errorf("reading numpy's file: %+v, %v", a, err)
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	Write(&buf, Array{Descr: "<f4", Shape: []int{3}, Data: make([]byte, 12)})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) { Read(bytes.NewReader(b)) })
}
