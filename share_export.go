// Sharing between processes (formerly package share) shares GPU memory, timeline semaphores and frame rings
// between processes of the same user.
//
// The exporting process calls Export (interop buffers and textures, rings),
// ExportVulkan (Vulkan buffers, images and timeline semaphores) or
// ExportCUDA (CUDA shareable allocations) and gets a Token: a short
// printable string to pass to another process any way (argv, a pipe, JSON,
// pickle). There, OpenBuffer, OpenTexture, OpenVulkanBuffer, OpenVulkanImage,
// OpenCUDABuffer and the others import the same memory into the API the
// opener asks for.
//
//	// process A
//	buf, _ := dev.NewBuffer(64 << 20)
//	ex, _ := Export(buf)
//	fmt.Println(ex.Token())            // gfxcuda1.AQEAA…
//	defer ex.Close()                   // withdraws the token
//
//	// process B
//	b, err := dev.OpenBuffer(ctx, Token(os.Args[1]))
//
// Transport: the exporting process serves its resources' file descriptors
// (SCM_RIGHTS) on an abstract Unix socket and, by default, a Unix socket in
// a directory other containers can mount (ExportOptions.Dir,
// GFXCUDA_SHARE_DIR, /dev/shm/gfxcuda), started with its first export and
// stopped when its last export closes; exporters that ask for it
// (RendezvousPidfd) also let processes of their PID namespace take the
// descriptors with pidfd_getfd. The token records each way and the
// namespaces they work in; openers try them in order and, when none works,
// say why for each and what to set (*OpenError). The exporter answers only
// peers of its own uid or of the uids and gids the export allows
// (ExportOptions.AllowUIDs, AllowGIDs; SO_PEERCRED), and only requests
// carrying the resource's 128-bit random secret (compared in constant
// time); refusals are logged with the peer's credentials and answered with
// the reason. Each connection gets one bounded request, one reply and a
// 2-second deadline, so no peer can block or crash it. Openers check that
// the process serving a token runs as the uid it names.
//
// Lifetime: an opened resource owns its import; it stays valid when the
// exporter closes its resource or exits, until the opener closes it. Opening
// after the exporter closed fails with ErrWithdrawn; opening on another GPU
// fails with ErrResourceOnOtherGPU.

package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Shared is one resource shared with other processes. Close withdraws it:
// later opens fail, and opens already made stay valid.
type Shared struct {
	offer *sharenet.Offer
	meta  Meta
	once  sync.Once
	close func() // extra cleanup (rings)
}

// Token returns the printable handle to give to other processes.
func (e *Shared) Token() Token { return e.offer.Token() }

// Meta returns what the token tells about the resource.
func (e *Shared) Meta() Meta { return e.meta }

// Close withdraws the resource; the process's server stops with its last
// export. It leaves the resource itself open. Idempotent.
func (e *Shared) Close() error {
	e.once.Do(func() {
		e.offer.Withdraw()
		if e.close != nil {
			e.close()
		}
	})
	return nil
}

// Rendezvous returns the ways the token offers to reach this exporter.
func (e *Shared) Rendezvous() Rendezvous { return e.offer.Rendezvous() }

// exportOptions returns the options of a variadic export call.
func exportOptions(o []ExportOptions) (ExportOptions, error) {
	switch len(o) {
	case 0:
		return ExportOptions{}, nil
	case 1:
		return o[0], nil
	}
	return ExportOptions{}, fmt.Errorf("share: %d ExportOptions, at most 1", len(o))
}

func newExport(m Meta, open sharenet.OpenFunc, opts []ExportOptions) (*Shared, error) {
	o, err := exportOptions(opts)
	if err != nil {
		return nil, err
	}
	offer, err := sharenet.Publish(m, o, open)
	if err != nil {
		return nil, err
	}
	return &Shared{offer: offer, meta: m}, nil
}

// oneFD adapts an ExportFD method to an entry's open function: a resource
// closed by its owner answers ErrWithdrawn.
func oneFD(export func() (int, error)) sharenet.OpenFunc {
	return func(sharenet.Peer) ([]int, []byte, error) {
		fd, err := export()
		if err != nil {
			if errors.Is(err, ErrClosed) || errors.Is(err, vulkan.ErrClosed) || errors.Is(err, cuda.ErrClosed) {
				return nil, nil, fmt.Errorf("%w: the exporter closed the resource but not its token", ErrWithdrawn)
			}
			return nil, nil, err
		}
		return []int{fd}, nil, nil
	}
}

// ExportVulkan shares a *vulkan.Buffer or *vulkan.Image created Exportable
// (images: 2D or 2D arrays), or a timeline *vulkan.Semaphore created
// exportable, all of dev, with at most one ExportOptions.
func ExportVulkan(dev *vulkan.Device, res any, eo ...ExportOptions) (*Shared, error) {
	uuid := dev.Physical().DeviceUUID
	switch r := res.(type) {
	case *vulkan.Buffer:
		if !r.Exportable() {
			return nil, errors.New("share: ExportVulkan: the buffer was not created Exportable")
		}
		m := Meta{Kind: KindBuffer, UUID: uuid, Size: r.Size(), AllocationSize: r.AllocationSize(),
			Usage: uint32(r.Usage()), Heap: uint32(r.Heap())}
		if r.Dedicated() {
			m.Flags |= FlagDedicated
		}
		return newExport(m, oneFD(r.ExportFD), eo)
	case *vulkan.Image:
		o := r.Options()
		if !o.Exportable {
			return nil, errors.New("share: ExportVulkan: the image was not created Exportable")
		}
		if (o.Dim != 0 && o.Dim != vulkan.Image2D) || o.Depth > 1 {
			return nil, fmt.Errorf("share: ExportVulkan: only 2D images and 2D arrays are shared, not %v", o.Dim)
		}
		if len(o.ViewFormats) > 0 {
			// The opener must make the image as it was made (a mutable
			// image with the same format list), and a token does not
			// carry the list.
			var names []string
			for _, f := range o.ViewFormats {
				names = append(names, format.Format(f).String())
			}
			return nil, fmt.Errorf("share: ExportVulkan: the image has ViewFormats (%s), which a share token does not carry: "+
				"share an image made without them", strings.Join(names, ", "))
		}
		m := Meta{Kind: KindTexture, Flags: FlagDedicated, UUID: uuid, AllocationSize: r.AllocationSize(),
			Format: o.Format, Width: o.Width, Height: o.Height, Layers: o.Layers, Usage: uint32(o.Usage)}
		return newExport(m, oneFD(r.ExportFD), eo)
	case *vulkan.Semaphore:
		if !r.Timeline() {
			return nil, errors.New("share: ExportVulkan: only timeline semaphores are shared")
		}
		fd, err := r.ExportFD()
		if err != nil {
			return nil, fmt.Errorf("share: ExportVulkan: %w", err)
		}
		sharenet.CloseAll([]int{fd})
		return newExport(Meta{Kind: KindSemaphore, UUID: uuid}, oneFD(r.ExportFD), eo)
	case nil:
		return nil, errors.New("share: ExportVulkan(nil)")
	}
	return nil, fmt.Errorf("share: ExportVulkan: cannot share a %T", res)
}

// ExportCUDA shares a CUDA shareable allocation (cuda.Context.AllocShareable)
// of ctx, with at most one ExportOptions. Openers map it into CUDA with
// cuMemImportFromShareableHandle alone (OpenCUDABuffer).
func ExportCUDA(ctx *cuda.Context, m *cuda.ShareableMemory, o ...ExportOptions) (*Shared, error) {
	uuid, err := ctx.Device().UUID()
	if err != nil {
		return nil, err
	}
	fd, err := m.ExportFD()
	if err != nil {
		return nil, fmt.Errorf("share: ExportCUDA: %w", err)
	}
	sharenet.CloseAll([]int{fd})
	return newExport(Meta{Kind: KindBuffer, Flags: FlagFromCUDA, UUID: uuid, Size: m.Size(), AllocationSize: m.Size()}, oneFD(m.ExportFD), o)
}

// Fetch asks the exporter of tok for its descriptors, for callers that
// import them with their own API: the caller owns the returned descriptors
// (for buffers and textures, one OPAQUE_FD memory descriptor, or a POSIX
// fd of cuMemCreate memory when Meta.FromCUDA; semaphores, one OPAQUE_FD
// semaphore descriptor; rings, the control block's memfd and more).
func Fetch(ctx context.Context, tok Token, o ...OpenOptions) ([]int, Meta, error) {
	return sharenet.Fetch(ctx, tok, o...)
}

// prepare parses tok, checks its kind and GPU, and fetches its one
// descriptor: it returns what the token says and which resource it names.
func prepare(ctx context.Context, tok Token, kind Kind, uuid [16]byte, o []OpenOptions) (Meta, sharenet.Resource, int, error) {
	t, err := sharenet.ParseToken(tok)
	if err != nil {
		return Meta{}, sharenet.Resource{}, -1, err
	}
	m := t.Meta()
	if m.Kind != kind {
		return Meta{}, sharenet.Resource{}, -1, fmt.Errorf("%w: the token shares a %v, not a %v", ErrWrongKind, m.Kind, kind)
	}
	if m.UUID != uuid {
		return Meta{}, sharenet.Resource{}, -1, fmt.Errorf("%w: it was exported on the GPU with UUID %s; this device is %s", ErrResourceOnOtherGPU,
			cuda.UUID(m.UUID), cuda.UUID(uuid))
	}
	r, err := t.Fetch(ctx, o...)
	if err != nil {
		return Meta{}, sharenet.Resource{}, -1, err
	}
	if len(r.FDs) != 1 {
		sharenet.CloseAll(r.FDs)
		return Meta{}, sharenet.Resource{}, -1, fmt.Errorf("share: the exporter sent %d descriptors, want 1", len(r.FDs))
	}
	return m, t.Resource(), r.FDs[0], nil
}

// OpenVulkanBuffer imports a shared buffer into dev (same GPU) as a
// vulkan.Buffer with the exporter's size, usage and heap.
func OpenVulkanBuffer(ctx context.Context, dev *vulkan.Device, tok Token, o ...OpenOptions) (*vulkan.Buffer, error) {
	t, _, fd, err := prepare(ctx, tok, KindBuffer, dev.Physical().DeviceUUID, o)
	if err != nil {
		return nil, err
	}
	if t.Offset != 0 {
		// Part of an allocation: import it whole, place the buffer in it.
		b, err := importPlaced(dev, fd, t.Size, t.AllocationSize, t.Offset)
		if err != nil {
			return nil, fmt.Errorf("share: importing a buffer into Vulkan: %w", err)
		}
		return b, nil
	}
	b, err := dev.NewBuffer(vulkan.BufferOptions{Size: t.Size, Usage: vulkan.BufferUsage(t.Usage), Heap: vulkan.Heap(t.Heap),
		Import: &vulkan.ImportFD{FD: fd, Size: t.AllocationSize, Dedicated: t.Dedicated()}}) // takes fd
	if err != nil {
		return nil, fmt.Errorf("share: importing a buffer into Vulkan: %w", err)
	}
	return b, nil
}

// OpenVulkanImage imports a shared texture into dev as a vulkan.Image with
// the exporter's format, extent, layers and usage (layout UNDEFINED: the
// contents are preserved only by an acquire from the layout the exporter
// left, as with any image shared outside Vulkan's knowledge). Package
// vulkan does not export queue family transfers: they belong to the
// hand-offs, and a VulkanConsumer records them for a ring's images.
func OpenVulkanImage(ctx context.Context, dev *vulkan.Device, tok Token, o ...OpenOptions) (*vulkan.Image, error) {
	t, _, fd, err := prepare(ctx, tok, KindTexture, dev.Physical().DeviceUUID, o)
	if err != nil {
		return nil, err
	}
	img, err := dev.NewImage(vulkan.ImageOptions{Dim: vulkan.Image2D, Format: t.Format, Width: t.Width, Height: t.Height,
		Layers: t.Layers, Usage: vulkan.ImageUsage(t.Usage), Import: &vulkan.ImportFD{FD: fd, Size: t.AllocationSize, Dedicated: true}})
	if err != nil {
		return nil, fmt.Errorf("share: importing an image into Vulkan: %w", err)
	}
	return img, nil
}

// OpenVulkanSemaphore imports a shared timeline semaphore into dev.
func OpenVulkanSemaphore(ctx context.Context, dev *vulkan.Device, tok Token, o ...OpenOptions) (*vulkan.Semaphore, error) {
	_, _, fd, err := prepare(ctx, tok, KindSemaphore, dev.Physical().DeviceUUID, o)
	if err != nil {
		return nil, err
	}
	return dev.ImportSemaphoreFD(fd, true)
}

// OpenBuffer imports the buffer tok shares into d: into CUDA now (memory the
// exporter allocated with CUDA, Meta.FromCUDA, through
// cuMemImportFromShareableHandle alone), and into Vulkan when Vulkan first
// asks for it (Buffer.Vulkan): consumers that only touch it from
// CUDA never pay for the Vulkan import.
func (d *Device) OpenBuffer(ctx context.Context, tok Token, o ...OpenOptions) (*Buffer, error) {
	t, _, fd, err := prepare(ctx, tok, KindBuffer, d.Vulkan().Physical().DeviceUUID, o)
	if err != nil {
		return nil, err
	}
	return d.ImportBuffer(fd, t.Size, ImportOptions{AllocationSize: t.AllocationSize, Dedicated: t.Dedicated(),
		FromCUDA: t.FromCUDA(), LazyVulkan: true, Offset: t.Offset})
}

// OpenTexture imports the texture tok shares into d: into CUDA now, into
// Vulkan when Vulkan first asks for it (Texture.Vulkan).
func (d *Device) OpenTexture(ctx context.Context, tok Token, o ...OpenOptions) (*Texture, error) {
	t, _, fd, err := prepare(ctx, tok, KindTexture, d.Vulkan().Physical().DeviceUUID, o)
	if err != nil {
		return nil, err
	}
	return d.ImportTexture(fd, TextureOptions{Format: format.Format(t.Format), Width: t.Width, Height: t.Height,
		Layers: t.Layers, Usage: vulkan.ImageUsage(t.Usage)}, ImportOptions{AllocationSize: t.AllocationSize, Dedicated: true, LazyVulkan: true})
}

// OpenCUDASemaphore imports a shared timeline semaphore into c.
func OpenCUDASemaphore(ctx context.Context, c *cuda.Context, tok Token, o ...OpenOptions) (*cuda.ExternalSemaphore, error) {
	uuid, err := c.Device().UUID()
	if err != nil {
		return nil, err
	}
	_, _, fd, err := prepare(ctx, tok, KindSemaphore, uuid, o)
	if err != nil {
		return nil, err
	}
	return c.ImportSemaphoreFD(fd, true)
}
