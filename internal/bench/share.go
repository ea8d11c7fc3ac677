package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/interop"
	"github.com/gfxcuda/gfxcuda/share"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ShareOpen measures opening share handles in another process: a 256 MiB
// buffer and a 1080p RGBA8 texture, imported into Vulkan and CUDA there.
// child runs that process on a token and returns the time the open took
// in it (the device already open), next to CUDA IPC's figure.
func (s *Suite) ShareOpen(child func(tok share.Token) (time.Duration, error)) error {
	b, err := s.D.NewBuffer(256 << 20)
	if err != nil {
		return err
	}
	defer b.Close()
	tex, err := s.D.NewTexture(interop.TextureOptions{Format: format.RGBA8UNorm, Width: 1920, Height: 1080})
	if err != nil {
		return err
	}
	defer tex.Close()
	for _, c := range []struct {
		name string
		res  any
	}{{"open a 256 MiB buffer handle in another process (Vulkan + CUDA)", b},
		{"open a 1080p texture handle in another process (Vulkan + CUDA)", tex}} {
		ex, err := share.Export(c.res)
		if err != nil {
			return err
		}
		err = s.figure("one-time costs", c.name, "ms", func() (float64, error) {
			d, err := child(ex.Token())
			return float64(d.Microseconds()) / 1000, err
		}, func(f *Figure) { f.Against = "open a CUDA IPC handle of 256 MiB in another process" })
		ex.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// ShareRingSlot is the frame size of ShareRing.
const ShareRingSlot = 1 << 20

// ShareRing measures a 3-slot share.Ring of 1 MiB host-visible Vulkan
// slots, the producer writing every frame: with the consumer in another
// process (child consumes frames frames of the ring's token and returns
// when done), and with the consumer in this process, in the same run.
func (s *Suite) ShareRing(child func(tok share.Token, frames int) error) error {
	frames := s.O.Frames
	run := func(cross bool) (float64, error) {
		d := s.D.Vulkan()
		var bufs []*vulkan.Buffer
		var maps [][]byte
		var exs []*share.Shared
		defer func() {
			for _, e := range exs {
				e.Close()
			}
			for _, b := range bufs {
				b.Close()
			}
		}()
		for i := 0; i < 3; i++ {
			b, err := d.NewBuffer(vulkan.BufferOptions{Size: ShareRingSlot, Heap: vulkan.HeapUpload, Exportable: true})
			if err != nil {
				return 0, err
			}
			bufs = append(bufs, b)
			m, err := b.Map()
			if err != nil {
				return 0, err
			}
			maps = append(maps, m)
			e, err := share.ExportVulkan(d, b)
			if err != nil {
				return 0, err
			}
			exs = append(exs, e)
		}
		r, err := share.NewRing(share.RingOptions{Slots: exs})
		if err != nil {
			return 0, err
		}
		defer r.Close()
		ex, err := share.Export(r)
		if err != nil {
			return 0, err
		}
		done := make(chan error, 1)
		if cross {
			go func() { done <- child(ex.Token(), frames) }()
		} else {
			go func() { done <- ConsumeRing(context.Background(), s.D.Vulkan(), ex.Token(), frames) }()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := r.WaitConsumers(ctx, 1); err != nil {
			return 0, err
		}
		t0 := time.Now()
		for i := 0; i < frames; i++ {
			slot, err := r.Acquire(ctx)
			if err != nil {
				return 0, err
			}
			seq := r.NextSeq()
			fillFrame(seq, maps[slot])
			if _, err := r.Publish(slot, binary.LittleEndian.AppendUint64(nil, seq), 0); err != nil {
				return 0, err
			}
		}
		if err := <-done; err != nil {
			return 0, err
		}
		return float64(frames) / time.Since(t0).Seconds(), nil
	}
	const inName = "share.Ring, consumer in this process (3 × 1 MiB)"
	if err := s.figure("ring", inName, "frames/s", func() (float64, error) { return run(false) }, nil); err != nil {
		return err
	}
	return s.figure("ring", "share.Ring, consumer in another process (3 × 1 MiB)", "frames/s", func() (float64, error) { return run(true) },
		func(f *Figure) { f.Against, f.Target = inName, 0.9 })
}

// fillFrame writes frame seq's checkable content (a cheap pattern: the
// producer's cost should be the ring's, not a random generator's; it
// varies with seq and position, never constant).
func fillFrame(seq uint64, b []byte) {
	x := seq*0x9e3779b97f4a7c15 | 1
	for i := 0; i+8 <= len(b); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
}

// ConsumeRing consumes frames frames of a ring on d, checking every
// frame's first and last words and its metadata; ShareRing's consumer.
func ConsumeRing(ctx context.Context, d *vulkan.Device, tok share.Token, frames int) error {
	c, err := share.OpenRing(ctx, tok)
	if err != nil {
		return err
	}
	defer c.Close()
	var maps [][]byte
	for _, st := range c.Slots() {
		b, err := share.OpenVulkanBuffer(ctx, d, st)
		if err != nil {
			return err
		}
		defer b.Close()
		m, err := b.Map()
		if err != nil {
			return err
		}
		maps = append(maps, m)
	}
	want := make([]byte, ShareRingSlot)
	for i := 0; i < frames; i++ {
		f, err := c.Next(ctx)
		if err != nil {
			return fmt.Errorf("frame %d: %w", i, err)
		}
		fillFrame(f.Seq, want[:64])
		m := maps[f.Slot]
		if string(m[:64]) != string(want[:64]) || binary.LittleEndian.Uint64(f.User) != f.Seq {
			return errors.New("share ring: a frame's content differs")
		}
		c.Release(f)
	}
	return nil
}
