package npy

import (
	"bufio"
	"os"
)

// WriteFile writes a to path.
func WriteFile(path string, a Array) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := Write(w, a); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadFile reads the .npy file at path.
func ReadFile(path string) (Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return Array{}, err
	}
	defer f.Close()
	return Read(bufio.NewReader(f))
}
