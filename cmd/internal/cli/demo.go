package cli

import (
	"errors"
	"fmt"
	"image"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/bench/scene"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// demoPeriod is the scene's period in seconds of scene time; frame f shows
// time f·demoPeriod/demoGIFFrames, so the first demoGIFFrames frames loop.
const (
	demoPeriod    = scene.Period
	demoGIFFrames = 24
)

// demoLayout is the tensor the demo makes: what an ImageNet-trained
// network eats.
var demoLayout = tensor.Layout{Planar: true, DType: format.Float32, Channels: 3,
	Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}}

type demo struct {
	stdout, stderr io.Writer
	w, h           uint32
	views, batch   int
	vd             *vulkan.Device
	dev            *gfxcuda.Device // nil without CUDA
	scene          *scene.Renderer // the demo's renderer (package bench/scene)
	pass           *gfxcuda.VulkanConverter
	imgs           [][]*vulkan.Image    // [batch][view]
	texs           [][]*gfxcuda.Texture // the same, with CUDA (else nil)
	run            func(func(*vulkan.Commands) error) error
	progress       bool
	pic            demoPicture // rates and checks for the pictures' captions (demo_picture.go)
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("demo", `Renders an animated scene with a Vulkan compute shader into shared
textures, hands the frames to CUDA without a trip through the host,
converts them to a normalized NCHW float32 tensor there, checks it against
a Go reference, and compares the rate with a host round trip. Without CUDA
it runs the Vulkan half. Writes a PNG and a GIF into --out.`, stdout, stderr)
	fs := cl.fs
	outDir := fs.String("out", "out", "`DIR` to write demo.png and demo.gif in (made if missing)")
	frames := fs.Int("frames", 0, "frames to time per path (0: 48 on a software Vulkan device, 2000 on a GPU)")
	size := fs.String("size", "320x192", "`W×H` of each camera's image (W a multiple of 4)")
	views := fs.Int("cameras", 3, "cameras (views) per frame, each a texture; the tensor is [frames·cameras, 3, H, W]")
	batch := fs.Int("batch", 8, "frames per hand-off to CUDA")
	if _, code, ok := cl.parse(args); !ok {
		return code
	}
	var w, h uint32
	if _, err := fmt.Sscanf(strings.Replace(*size, "×", "x", 1), "%dx%d", &w, &h); err != nil || w == 0 || h == 0 || w%4 != 0 || w > 8192 || h > 8192 {
		return cl.fail("--size %q: want W×H with W a multiple of 4, e.g. 320x192", *size)
	}
	if *views < 1 || *views > 64 || *batch < 1 || *batch > 256 || *frames < 0 {
		return cl.fail("want --cameras 1..64, --batch 1..256, --frames ≥ 0")
	}
	// The pictures are written last: find out now if they cannot be.
	_, statErr := os.Stat(*outDir)
	if err := checkOutputDir(*outDir); err != nil {
		return cl.fail("--out %s: %v", *outDir, err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		// Made by the check: not left behind, empty, by a failed run.
		defer func() { _ = os.Remove(*outDir) }()
	}
	dm := &demo{stdout: stdout, stderr: stderr, w: w, h: h, views: *views, batch: *batch}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			dm.progress = true
		}
	}
	if err := dm.main(*outDir, *frames); err != nil {
		fmt.Fprintf(stderr, "gfxcuda demo: %v\n", err)
		return 1
	}
	return 0
}

// openVulkanOnly opens the first Vulkan device, for machines without CUDA.
func openVulkanOnly() (*vulkan.Instance, *vulkan.Device, error) {
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda demo"})
	if err != nil {
		return nil, nil, err
	}
	pds, err := inst.PhysicalDevices()
	if err != nil || len(pds) == 0 {
		inst.Close()
		return nil, nil, fmt.Errorf("no Vulkan device: %v", err)
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		inst.Close()
		return nil, nil, err
	}
	return inst, vd, nil
}

func (dm *demo) main(outDir string, frames int) (err error) {
	out := dm.stdout
	t0 := time.Now()
	var cudaWhy error
	dm.dev, cudaWhy = gfxcuda.Open(gfxcuda.Options{})
	if cudaWhy == nil {
		defer func() { err = errors.Join(err, dm.dev.Close()) }()
		dm.vd = dm.dev.Vulkan()
		dm.run = dm.dev.Run
		if !gfxcuda.HasCUDAConverterKernel() {
			cudaWhy = gfxcuda.ErrNoCUDAConverterKernel
		}
	} else {
		inst, vd, verr := openVulkanOnly()
		if verr != nil {
			return fmt.Errorf("no Vulkan device either (%v); run `gfxcuda doctor` to see what is missing", verr)
		}
		defer func() {
			vd.Close()
			if msgs := inst.TakeValidationErrors(); len(msgs) > 0 && err == nil {
				err = fmt.Errorf("%d Vulkan validation errors, first: %s", len(msgs), msgs[0])
			}
			inst.Close()
		}()
		dm.vd = vd
		dm.run = vd.Run
	}
	pd := dm.vd.Physical()
	software := pd.Type == vulkan.DeviceTypeCPU
	if frames == 0 {
		frames = 2000
		if software {
			frames = 48
		}
	}
	frames = (frames + dm.batch - 1) / dm.batch * dm.batch
	fmt.Fprintf(out, "gfxcuda demo: %d cameras × %dx%d RGBA8, rendered by a Vulkan compute shader on %s\n", dm.views, dm.w, dm.h, pd.Name)
	fmt.Fprintf(out, "  tensor: %s, shape %v per hand-off of %d frames\n", demoLayout, demoLayout.Shape(dm.batch*dm.views, dm.w, dm.h), dm.batch)
	if cudaWhy == nil {
		fmt.Fprintf(out, "  CUDA: %s (same GPU as Vulkan, matched by UUID)\n", dm.dev.CUDA())
	} else {
		fmt.Fprintf(out, "  CUDA: not available: %v\n", cudaWhy)
		fmt.Fprintln(out, "  SKIPPED: the CUDA half (zero-copy hand-off of each frame to CUDA, the CUDA-side conversion and its check);")
		fmt.Fprintln(out, "           the Vulkan half runs below. `gfxcuda doctor` says what is missing and how to fix it.")
	}
	fmt.Fprintln(out)

	if err := dm.setup(); err != nil {
		return err
	}
	defer dm.close()

	// 1. The Vulkan half: render + tensor pass, in batches.
	tbuf, tptr, closeT, err := dm.tensorBuffer()
	if err != nil {
		return err
	}
	defer closeT()
	_ = tptr
	vkRate, err := dm.timeLoop("Vulkan: render + tensor pass", frames, func(f0 int) error {
		return dm.run(func(c *vulkan.Commands) error {
			if err := dm.record(c, f0); err != nil {
				return err
			}
			return dm.pass.RecordViews(c, dm.flat(), tbuf, 0)
		})
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  %-52s %9.0f frames/s\n", "Vulkan: render + tensor pass (no host copy)", vkRate)
	dm.pic.ran(pathVulkan, vkRate)

	// 2. The host round trip, in the same run; it also captures the pictures.
	rtFrames := max(demoGIFFrames, frames/4)
	var upload *cuda.DeviceMemory
	rtName := "host round trip: render, read back"
	if cudaWhy == nil {
		if upload, err = dm.dev.CUDA().Alloc(uint64(dm.views) * uint64(dm.w) * uint64(dm.h) * 4); err != nil {
			return err
		}
		defer upload.Close()
		rtName += ", upload to CUDA"
	}
	gifFrames := make([]*image.RGBA, 0, demoGIFFrames)
	rtRate, err := dm.roundTrip(rtName, rtFrames, upload, func(f int, pix [][]byte) {
		if f < demoGIFFrames {
			gifFrames = append(gifFrames, dm.mosaic(pix))
		}
	})
	if err != nil {
		return err
	}
	note := ""
	if upload == nil {
		note = " (upload skipped: no CUDA)"
	}
	fmt.Fprintf(out, "  %-52s %9.0f frames/s%s\n", rtName, rtRate, note)
	dm.pic.ran(pathRoundTrip, rtRate)
	if software {
		fmt.Fprintln(out, "  (a software Vulkan device runs both on the CPU, so their ratio says nothing; on a GPU it is the speedup)")
	} else {
		fmt.Fprintf(out, "  %-52s %9.1f×\n", "Vulkan tensor pass vs host round trip", vkRate/rtRate)
	}

	// 3. Check the Vulkan pass on one frame against the Go reference. A
	// failed check still gets its pictures (the caption marks it
	// MISMATCH); the demo then exits with the error.
	checkErr := dm.checkVulkan(frames / 2)

	// 4. The CUDA half.
	if cudaWhy == nil {
		checkErr = errors.Join(checkErr, dm.cudaHalf(frames, rtRate))
	}

	// 5. Pictures: seconds on a slow CPU (the GIF's dithering), so the
	// demo says what it writes before it starts.
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	pngPath, gifPath := filepath.Join(outDir, "demo.png"), filepath.Join(outDir, "demo.gif")
	fmt.Fprintln(out)
	fmt.Fprintf(out, "writing the pictures: %s, then %s (%d frames, each dithered to 256 colours)…\n", pngPath, gifPath, len(gifFrames))
	// Each picture: the cameras between their titles and one footer.
	foot := dm.footer(gifFrames[0].Bounds().Dx(), cudaWhy)
	if err := writePNG(pngPath, captioned(gifFrames[demoGIFFrames/4], dm.views, foot)); err != nil {
		return err
	}
	bar := dm.bar("GIF frames captioned and dithered", len(gifFrames))
	gerr := writeGIF(gifPath, gifFrames, func(f *image.RGBA) *image.RGBA { return captioned(f, dm.views, foot) }, bar.set)
	bar.done()
	if gerr != nil {
		return gerr
	}
	fmt.Fprintf(out, "pictures: %s (one frame, cameras side by side), %s (%d frames, one loop)\n", abs(pngPath), abs(gifPath), len(gifFrames))
	if checkErr != nil {
		return checkErr
	}
	if cudaWhy != nil {
		fmt.Fprintln(out, "done: the Vulkan half ran and was checked; the CUDA half was skipped (see above).")
	} else {
		fmt.Fprintln(out, "done: every path ran and was checked.")
	}
	fmt.Fprintf(out, "(%.1f s)\n", time.Since(t0).Seconds())
	return nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// setup compiles the scene and the tensor pass and makes batch×views
// textures (shared with CUDA when there is CUDA).
func (dm *demo) setup() error {
	var err error
	if dm.scene, err = scene.New(dm.vd); err != nil {
		return err
	}
	if dm.pass, err = gfxcuda.NewVulkanConverter(dm.vd, demoLayout); err != nil {
		return err
	}
	for b := 0; b < dm.batch; b++ {
		var row []*vulkan.Image
		var trow []*gfxcuda.Texture
		for v := 0; v < dm.views; v++ {
			if dm.dev != nil {
				t, err := dm.dev.NewTexture(gfxcuda.TextureOptions{Format: format.RGBA8UNorm, Width: dm.w, Height: dm.h})
				if err != nil {
					return err
				}
				trow = append(trow, t)
				row = append(row, t.Vulkan())
			} else {
				img, err := dm.vd.NewImage(vulkan.ImageOptions{Format: uint32(format.RGBA8UNorm), Width: dm.w, Height: dm.h,
					Usage: vulkan.ImageStorage | vulkan.ImageSampled | vulkan.ImageTransferSrc})
				if err != nil {
					return err
				}
				row = append(row, img)
			}
		}
		dm.imgs = append(dm.imgs, row)
		dm.texs = append(dm.texs, trow)
	}
	return nil
}

func (dm *demo) close() {
	for b := range dm.imgs {
		for v := range dm.imgs[b] {
			if dm.dev != nil {
				dm.texs[b][v].Close()
			} else {
				dm.imgs[b][v].Close()
			}
		}
	}
	if dm.pass != nil {
		dm.pass.Close()
	}
	if dm.scene != nil {
		dm.scene.Close()
	}
}

// flat lists the textures of a batch in tensor order: frame-major, then camera.
func (dm *demo) flat() []*vulkan.Image {
	var s []*vulkan.Image
	for _, row := range dm.imgs {
		s = append(s, row...)
	}
	return s
}

// tensorBuffer makes the buffer the timed tensor pass writes: shared with
// CUDA when there is CUDA, else device memory.
func (dm *demo) tensorBuffer() (*vulkan.Buffer, cuda.DevicePtr, func(), error) {
	n := demoLayout.Bytes(dm.w, dm.h) * uint64(dm.batch*dm.views)
	if dm.dev != nil {
		b, err := dm.dev.NewBuffer(n)
		if err != nil {
			return nil, 0, nil, err
		}
		return b.Vulkan(), b.Ptr(), func() { b.Close() }, nil
	}
	b, err := dm.vd.NewBuffer(vulkan.BufferOptions{Size: n})
	if err != nil {
		return nil, 0, nil, err
	}
	return b, 0, func() { b.Close() }, nil
}

// record records the rendering of frames f0 .. f0+batch-1, every camera.
func (dm *demo) record(c *vulkan.Commands, f0 int) error {
	for b := 0; b < len(dm.imgs); b++ {
		if err := dm.recordFrame(c, f0+b, dm.imgs[b]); err != nil {
			return err
		}
	}
	return c.Err()
}

func (dm *demo) recordFrame(c *vulkan.Commands, f int, imgs []*vulkan.Image) error {
	t := float32(f) * demoPeriod / demoGIFFrames
	for v, img := range imgs {
		dm.scene.Record(c, img, t, float32(v)*2*math.Pi/float32(dm.views)+0.4)
	}
	return c.Err()
}

// timeLoop runs step once per batch for frames frames (after one warm-up
// batch) and returns frames per second, drawing a progress bar on stderr.
func (dm *demo) timeLoop(what string, frames int, step func(f0 int) error) (float64, error) {
	if err := step(0); err != nil { // warm-up: pipelines, first submissions
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	bar := dm.bar(what, frames)
	start := time.Now()
	for f := 0; f < frames; f += dm.batch {
		if err := step(f); err != nil {
			bar.done()
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		bar.set(f + dm.batch)
	}
	el := time.Since(start)
	bar.done()
	return float64(frames) / el.Seconds(), nil
}

// roundTrip renders one frame at a time with batch slot 0, copies every
// camera's image into host memory, waits, and (with CUDA) uploads it to
// CUDA memory: what interop saves. got sees each frame's pixels.
func (dm *demo) roundTrip(what string, frames int, upload *cuda.DeviceMemory, got func(f int, pix [][]byte)) (float64, error) {
	per := uint64(dm.w) * uint64(dm.h) * 4
	stage, err := dm.vd.NewBuffer(vulkan.BufferOptions{Size: per * uint64(dm.views), Heap: vulkan.HeapReadback})
	if err != nil {
		return 0, err
	}
	defer stage.Close()
	m, err := stage.Map()
	if err != nil {
		return 0, err
	}
	bar := dm.bar(what, frames)
	var busy time.Duration
	for f := -1; f < frames; f++ { // f = -1: warm-up
		start := time.Now()
		err := dm.run(func(c *vulkan.Commands) error {
			if err := dm.recordFrame(c, max(f, 0), dm.imgs[0]); err != nil {
				return err
			}
			dm.copyOut(c, dm.imgs[0], stage)
			return c.Err()
		})
		if err == nil {
			err = stage.Invalidate(0, stage.Size())
		}
		pix := make([][]byte, dm.views)
		for v := range pix {
			pix[v] = m[uint64(v)*per : uint64(v+1)*per]
		}
		if err == nil && upload != nil {
			err = dm.dev.CUDA().CopyHtoD(upload.Ptr(), m)
		}
		if err != nil {
			bar.done()
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if f >= 0 {
			busy += time.Since(start)
			got(f, pix)
			bar.set(f + 1)
		}
	}
	bar.done()
	return float64(frames) / busy.Seconds(), nil
}

// copyOut records copies of imgs into buf, one after the other.
func (dm *demo) copyOut(c *vulkan.Commands, imgs []*vulkan.Image, buf *vulkan.Buffer) {
	per := uint64(dm.w) * uint64(dm.h) * 4
	for v, img := range imgs {
		c.TransitionImage(img, vulkan.LayoutTransferSrc)
		c.CopyImageToBuffer(buf, img, vulkan.BufferImageCopy{BufferOffset: uint64(v) * per})
		c.TransitionImage(img, vulkan.LayoutGeneral)
	}
}

// readTextures renders nothing: it reads every texture of the batch back to
// the host, in tensor order.
func (dm *demo) readTextures() ([]tensor.Image, error) {
	imgs := dm.flat()
	per := uint64(dm.w) * uint64(dm.h) * 4
	stage, err := dm.vd.NewBuffer(vulkan.BufferOptions{Size: per * uint64(len(imgs)), Heap: vulkan.HeapReadback})
	if err != nil {
		return nil, err
	}
	defer stage.Close()
	m, err := stage.Map()
	if err != nil {
		return nil, err
	}
	if err := dm.run(func(c *vulkan.Commands) error { dm.copyOut(c, imgs, stage); return c.Err() }); err != nil {
		return nil, err
	}
	if err := stage.Invalidate(0, stage.Size()); err != nil {
		return nil, err
	}
	var views []tensor.Image
	for v := range imgs {
		views = append(views, tensor.Image{Format: format.RGBA8UNorm, Width: dm.w, Height: dm.h,
			Pix: append([]byte(nil), m[uint64(v)*per:uint64(v+1)*per]...)})
	}
	return views, nil
}

// checkVulkan renders batch f0, runs the tensor pass into host-visible
// memory and compares it with the Go reference of the rendered pixels.
func (dm *demo) checkVulkan(f0 int) error {
	n := demoLayout.Bytes(dm.w, dm.h) * uint64(dm.batch*dm.views)
	buf, err := dm.vd.NewBuffer(vulkan.BufferOptions{Size: n, Heap: vulkan.HeapReadback})
	if err != nil {
		return err
	}
	defer buf.Close()
	m, err := buf.Map()
	if err != nil {
		return err
	}
	for i := range m {
		m[i] = 0xCD
	}
	if err := dm.run(func(c *vulkan.Commands) error {
		if err := dm.record(c, f0); err != nil {
			return err
		}
		return dm.pass.RecordViews(c, dm.flat(), buf, 0)
	}); err != nil {
		return err
	}
	if err := buf.Invalidate(0, n); err != nil {
		return err
	}
	views, err := dm.readTextures()
	if err != nil {
		return err
	}
	return dm.pic.checked(pathVulkan, dm.report("check: Vulkan tensor pass vs Go reference", views, m))
}

// report compares a tensor with the Go reference and prints the result.
func (dm *demo) report(what string, views []tensor.Image, got []byte) error {
	bad, first, err := tensor.Check(demoLayout, views, got)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if bad > 0 {
		return fmt.Errorf("%s: %d of %d elements wrong; first: %s", what, bad, len(got)/demoLayout.DType.Size(), first)
	}
	sum := 0.0
	for _, v := range tensor.Decode(demoLayout.DType, got) {
		sum += float64(v)
	}
	fmt.Fprintf(dm.stdout, "  %-52s OK: %d elements of %v match (sum %.4g)\n", what, len(got)/demoLayout.DType.Size(),
		demoLayout.Shape(len(views), dm.w, dm.h), sum)
	return nil
}

// cudaHalf times the two zero-copy paths to CUDA and checks both tensors.
func (dm *demo) cudaHalf(frames int, rtRate float64) error {
	out := dm.stdout
	d := dm.dev
	conv, err := gfxcuda.NewCUDAConverter(d.CUDA(), demoLayout)
	if err != nil {
		return err
	}
	defer conv.Close()
	var srcs []gfxcuda.CUDASource
	var res []gfxcuda.Resource
	for _, row := range dm.texs {
		for _, t := range row {
			s, err := gfxcuda.CUDATextureSource(t, 0)
			if err != nil {
				return err
			}
			srcs = append(srcs, s)
			res = append(res, t)
		}
	}
	n := conv.Bytes(len(srcs), dm.w, dm.h)
	cuTensor, err := d.CUDA().Alloc(2 * n) // the kernel's tensor, then a copy of the Vulkan pass's
	if err != nil {
		return err
	}
	defer cuTensor.Close()
	vkTensor, err := d.NewBuffer(n)
	if err != nil {
		return err
	}
	defer vkTensor.Close()

	// a. Vulkan renders, CUDA converts (the path for textures from any renderer).
	kRate, err := dm.timeLoop("zero-copy: Vulkan renders, CUDA kernel converts", frames, func(f0 int) error {
		if err := d.Run(func(c *vulkan.Commands) error { return dm.record(c, f0) }); err != nil {
			return err
		}
		acc, err := d.ToCUDA(nil, res...)
		if err != nil {
			return err
		}
		return errors.Join(conv.Convert(acc.Stream(), cuTensor.Ptr(), n, srcs...), acc.Done())
	})
	if err == nil {
		err = d.Stream().Synchronize()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  %-52s %9.0f frames/s  %.1f× the host round trip\n", "zero-copy: Vulkan renders, CUDA kernel converts", kRate, kRate/rtRate)
	dm.pic.ran(pathKernel, kRate)

	// b. Vulkan renders and converts into CUDA memory: CUDA does nothing per frame.
	pRate, err := dm.timeLoop("zero-copy: Vulkan renders + converts into CUDA memory", frames, func(f0 int) error {
		if err := d.Run(func(c *vulkan.Commands) error {
			if err := dm.record(c, f0); err != nil {
				return err
			}
			return dm.pass.RecordViews(c, dm.flat(), vkTensor.Vulkan(), 0)
		}); err != nil {
			return err
		}
		acc, err := d.ToCUDA(nil, vkTensor)
		if err != nil {
			return err
		}
		return acc.Done()
	})
	if err == nil {
		err = d.Stream().Synchronize()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  %-52s %9.0f frames/s  %.1f× the host round trip\n", "zero-copy: Vulkan renders + converts into CUDA memory", pRate, pRate/rtRate)
	dm.pic.ran(pathVkInCUDA, pRate)

	// Check: the textures now hold the last batch, vkTensor its tensor.
	// Convert them once more in CUDA, copy the Vulkan pass's tensor next to
	// it, and compare both with the Go reference of the pixels.
	res = append(res, vkTensor)
	acc, err := d.ToCUDA(nil, res...)
	if err != nil {
		return err
	}
	err = conv.Convert(acc.Stream(), cuTensor.Ptr(), n, srcs...)
	if err == nil {
		err = acc.Stream().CopyDtoD(cuTensor.Ptr().Add(n), vkTensor.Ptr(), n)
	}
	err = errors.Join(err, acc.Done())
	if err == nil {
		err = acc.Stream().Synchronize()
	}
	host := make([]byte, 2*n)
	if err == nil {
		err = d.CUDA().CopyDtoH(host, cuTensor.Ptr())
	}
	if err != nil {
		return err
	}
	views, err := dm.readTextures()
	if err != nil {
		return err
	}
	if err := dm.pic.checked(pathKernel, dm.report("check: CUDA kernel's tensor vs Go reference", views, host[:n])); err != nil {
		return err
	}
	return dm.pic.checked(pathVkInCUDA, dm.report("check: Vulkan pass's tensor (in CUDA) vs Go reference", views, host[n:]))
}

// mosaic puts the cameras' RGBA8 images side by side.
func (dm *demo) mosaic(pix [][]byte) *image.RGBA {
	w, h := int(dm.w), int(dm.h)
	img := image.NewRGBA(image.Rect(0, 0, w*len(pix), h))
	for v, p := range pix {
		for y := 0; y < h; y++ {
			copy(img.Pix[y*img.Stride+v*w*4:], p[y*w*4:(y+1)*w*4])
		}
	}
	return img
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(png.Encode(f, img), f.Close())
}

// writeGIF writes frames, each made by prep (its caption) and dithered to
// Plan 9's palette, as a looping GIF; the frames are prepared on every CPU
// at once, and progress is called (from the calling goroutine) with the
// number done after each.
func writeGIF(path string, frames []*image.RGBA, prep func(*image.RGBA) *image.RGBA, progress func(done int)) error {
	g := &gif.GIF{LoopCount: 0, Image: make([]*image.Paletted, len(frames))}
	next, done := make(chan int), make(chan struct{})
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(frames)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fr := prep(frames[i])
				p := image.NewPaletted(fr.Bounds(), palette.Plan9)
				draw.FloydSteinberg.Draw(p, fr.Bounds(), fr, image.Point{})
				g.Image[i] = p
				done <- struct{}{}
			}
		}()
	}
	go func() {
		for i := range frames {
			next <- i
		}
		close(next)
	}()
	for n := 1; n <= len(frames); n++ {
		<-done
		progress(n)
	}
	wg.Wait()
	for range frames {
		g.Delay = append(g.Delay, int(math.Round(100*demoPeriod/demoGIFFrames)))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(gif.EncodeAll(f, g), f.Close())
}

// progressBar draws "what [#####.....] n/total" on stderr when it is a
// terminal.
type progressBar struct {
	w          io.Writer
	what       string
	total, pos int
	on         bool
	last       time.Time
}

func (dm *demo) bar(what string, total int) *progressBar {
	return &progressBar{w: dm.stderr, what: what, total: total, on: dm.progress}
}

func (b *progressBar) set(n int) {
	b.pos = n
	if !b.on || time.Since(b.last) < 50*time.Millisecond && n < b.total {
		return
	}
	b.last = time.Now()
	const width = 30
	fill := width * min(n, b.total) / max(b.total, 1)
	fmt.Fprintf(b.w, "\r  %-52s [%s%s] %d/%d", b.what, strings.Repeat("#", fill), strings.Repeat(".", width-fill), min(n, b.total), b.total)
}

func (b *progressBar) done() {
	if b.on {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", 100))
	}
}
