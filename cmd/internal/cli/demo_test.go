package cli

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/label"
)

// TestDemo runs `gfxcuda demo` small on this machine: the Vulkan half on
// any Vulkan device (lavapipe in CI), the CUDA half where there is CUDA
// (required under GFXCUDA_REQUIRE_CUDA=1). It checks the pictures: a PNG
// and a GIF of 24 frames of which no two neighbours are the same.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	rc := run([]string{"demo", "--out", dir, "--frames", "8", "--size", "64x40", "--cameras", "2", "--batch", "4"}, &out, &errb)
	t.Log("\n" + out.String())
	if rc != 0 {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") != "1" && strings.Contains(errb.String(), "no Vulkan device") {
			t.Skip(strings.TrimSpace(errb.String()))
		}
		t.Fatalf("demo: rc %d: %s", rc, errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "check: Vulkan tensor pass vs Go reference            OK") {
		t.Error("the Vulkan check did not run")
	}
	// Writing the pictures takes seconds (the GIF's dithering): the demo
	// says what it writes before it starts, not only when it is done.
	writing := strings.Index(text, fmt.Sprintf("\nwriting the pictures: %s, then %s (%d frames, each dithered to 256 colours)…\n",
		filepath.Join(dir, "demo.png"), filepath.Join(dir, "demo.gif"), demoGIFFrames))
	if done := strings.Index(text, "\npictures: "); writing < 0 || done < writing {
		t.Errorf("the demo does not say what it writes before writing its pictures (writing at %d, done at %d)", writing, done)
	}
	if cuda.Init() == nil {
		for _, want := range []string{"check: CUDA kernel's tensor vs Go reference", "check: Vulkan pass's tensor (in CUDA)", "every path ran"} {
			if !strings.Contains(text, want) {
				t.Errorf("output lacks %q", want)
			}
		}
	} else {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatal("GFXCUDA_REQUIRE_CUDA=1 but CUDA is missing")
		}
		if !strings.Contains(text, "SKIPPED: the CUDA half") || !strings.Contains(text, "CUDA: not available: ") {
			t.Error("the skipped CUDA half is not explained")
		}
	}
	f, err := os.Open(filepath.Join(dir, "demo.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Two cameras side by side, 64x40 each, between a strip of titles and
	// a caption of one or more lines.
	head := label.Height(1)
	if b := img.Bounds(); b.Dx() != 2*64 || b.Dy() < head+40+label.Height(4) || (b.Dy()-head-40-label.Height(0))%label.LineHeight != 0 {
		t.Fatalf("PNG is %v, want 128 wide: titles, two cameras 64x40 side by side, a caption", img.Bounds())
	}
	checkCaptions(t, "PNG", img, head, 40)
	f, err = os.Open(filepath.Join(dir, "demo.gif"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != demoGIFFrames {
		t.Fatalf("GIF has %d frames, want %d", len(g.Image), demoGIFFrames)
	}
	for i := 1; i < len(g.Image); i++ {
		if bytes.Equal(g.Image[i].Pix, g.Image[i-1].Pix) {
			t.Errorf("GIF frames %d and %d are the same: the scene does not move", i-1, i)
		}
	}
	// The scene is not blank: many colours in one frame.
	seen := map[uint8]bool{}
	for _, p := range g.Image[0].Pix {
		seen[p] = true
	}
	if len(seen) < 16 {
		t.Errorf("GIF frame 0 has %d colours", len(seen))
	}
	for i, fr := range g.Image {
		if fr.Bounds() != img.Bounds() {
			t.Fatalf("GIF frame %d is %v, the PNG %v", i, fr.Bounds(), img.Bounds())
		}
		checkCaptions(t, fmt.Sprintf("GIF frame %d", i), fr, head, 40)
	}
}

// checkCaptions checks the strips of a demo picture: over each camera and
// under them, mostly the caption's background with text on it; between,
// the cameras' images, with many colours and little of that background.
func checkCaptions(t *testing.T, what string, img image.Image, head, h int) {
	t.Helper()
	b := img.Bounds()
	bg := color.RGBAModel.Convert(capBG)
	count := func(r image.Rectangle) (nbg, other int, colours int) {
		seen := map[color.Color]bool{}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				c := color.RGBAModel.Convert(img.At(x, y))
				seen[c] = true
				if c == bg {
					nbg++
				} else {
					other++
				}
			}
		}
		return nbg, other, len(seen)
	}
	for name, r := range map[string]image.Rectangle{
		"camera 1 title": image.Rect(0, 0, b.Dx()/2, head),
		"camera 2 title": image.Rect(b.Dx()/2, 0, b.Dx(), head),
		"caption":        image.Rect(0, head+h, b.Dx(), b.Dy()),
	} {
		if nbg, text, _ := count(r); nbg < r.Dx()*r.Dy()/2 || text < 40 {
			t.Errorf("%s: %s strip %v: %d background and %d text pixels: no label there", what, name, r, nbg, text)
		}
	}
	cams := image.Rect(0, head, b.Dx(), head+h)
	if nbg, _, colours := count(cams); nbg > cams.Dx()*cams.Dy()/4 || colours < 16 {
		t.Errorf("%s: the cameras' area has %d caption background pixels and %d colours", what, nbg, colours)
	}
}

func TestDemoFlags(t *testing.T) {
	for _, args := range [][]string{{"--size", "63x40"}, {"--size", "x"}, {"--cameras", "0"}, {"--batch", "0"}, {"--frames", "-1"}} {
		var out, errb bytes.Buffer
		if rc := run(append([]string{"demo"}, args...), &out, &errb); rc != 2 {
			t.Errorf("%v: rc %d, want 2", args, rc)
		}
	}
}
