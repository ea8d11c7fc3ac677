package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Opening into CUDA alone. The import is what costs (mapping the memory
// into the context); a process that opens one resource several times (two
// consumers of a ring, a reopen after a restart of its user's code) shares
// one import per CUDA context, counted: the last Close releases it. Every
// open still asks the exporter, so a withdrawn resource, a forged token or
// a user the exporter does not allow is refused as always; only the
// import is reused. The cache key is the resource's identity in the token
// (its random id and secret), its kind and the context.

// importKey identifies one import.
type importKey struct {
	ctx  *cuda.Context
	kind Kind
	res  sharenet.Resource
}

// cudaImport is a resource mapped into one CUDA context, shared by the
// handles that opened it.
type cudaImport struct {
	key  importKey
	refs int
	ext  *cuda.ExternalMemory  // a Vulkan allocation
	buf  *cuda.MappedBuffer    // mapped from ext (buffers)
	arr  *cuda.Array           // or mapped from ext (textures)
	cu   *cuda.ShareableMemory // or a CUDA allocation, mapped
}

func (im *cudaImport) close() error {
	if im.cu != nil {
		return im.cu.Close()
	}
	return im.ext.Close() // unmaps buf and arr
}

var imports struct {
	mu sync.Mutex
	m  map[importKey]*cudaImport
}

// openCUDA asks the exporter of tok for its kind of resource and maps it
// into c with mk, or takes another reference to the import already there.
func openCUDA(ctx context.Context, c *cuda.Context, tok Token, kind Kind, o []OpenOptions,
	mk func(t Meta, fd int) (*cudaImport, error)) (*cudaImport, Meta, error) {
	uuid, err := c.Device().UUID()
	if err != nil {
		return nil, Meta{}, err
	}
	t, res, fd, err := prepare(ctx, tok, kind, uuid, o)
	if err != nil {
		return nil, Meta{}, err
	}
	key := importKey{ctx: c, kind: kind, res: res}
	imports.mu.Lock()
	if im := imports.m[key]; im != nil {
		im.refs++
		imports.mu.Unlock()
		sharenet.CloseAll([]int{fd})
		return im, t, nil
	}
	imports.mu.Unlock()
	im, err := mk(t, fd) // takes fd
	if err != nil {
		return nil, Meta{}, err
	}
	im.key = key
	imports.mu.Lock()
	defer imports.mu.Unlock()
	if other := imports.m[key]; other != nil { // opened meanwhile
		other.refs++
		im.close()
		return other, t, nil
	}
	if imports.m == nil {
		imports.m = map[importKey]*cudaImport{}
	}
	im.refs = 1
	imports.m[key] = im
	return im, t, nil
}

// release drops one reference; the last releases the import.
func (im *cudaImport) release() error {
	imports.mu.Lock()
	im.refs--
	last := im.refs == 0
	if last {
		delete(imports.m, im.key)
	}
	imports.mu.Unlock()
	if last {
		return im.close()
	}
	return nil
}

// openImports counts the imports alive (tests).
func openImports() int {
	imports.mu.Lock()
	defer imports.mu.Unlock()
	return len(imports.m)
}

// CUDABuffer is a shared buffer imported into CUDA alone.
type CUDABuffer struct {
	im     *cudaImport
	size   uint64
	off    uint64 // where the buffer starts in the allocation (Meta.Offset)
	closed atomic.Bool
	once   sync.Once
	err    error
}

// Ptr is the device pointer to the buffer's first byte (0 after Close).
// Opens of one resource in one context share the mapping, and the
// pointer.
func (b *CUDABuffer) Ptr() cuda.DevicePtr {
	if b.closed.Load() {
		return 0
	}
	if b.im.cu != nil {
		return b.im.cu.Ptr() + cuda.DevicePtr(b.off)
	}
	return b.im.buf.Ptr()
}

// Size is the buffer's size in bytes.
func (b *CUDABuffer) Size() uint64 { return b.size }

// shareable is the CUDA allocation the buffer maps (ExportCUDA,
// Device.NewBufferFromCUDA), or nil for memory imported from Vulkan.
func (b *CUDABuffer) shareable() *cuda.ShareableMemory { return b.im.cu }

// Close releases this handle's reference to the import; the last handle
// of the process to close releases the import. Idempotent.
func (b *CUDABuffer) Close() error {
	b.once.Do(func() {
		b.closed.Store(true)
		b.err = b.im.release()
	})
	return b.err
}

// OpenCUDABuffer imports a shared buffer (from Vulkan or CUDA) into the
// CUDA context c, mapped as one linear range, and nowhere else. CUDA
// allocations (ExportCUDA, Device.NewBufferFromCUDA: cuMemCreate
// with POSIX descriptors) are mapped with cuMemImportFromShareableHandle,
// cuMemMap and cuMemSetAccess, the path NVIDIA documents for them; Vulkan
// allocations are imported as external memory (cuImportExternalMemory).
// Opening a resource this process has open in c already reuses the import.
func OpenCUDABuffer(ctx context.Context, c *cuda.Context, tok Token, o ...OpenOptions) (*CUDABuffer, error) {
	im, t, err := openCUDA(ctx, c, tok, KindBuffer, o, func(t Meta, fd int) (*cudaImport, error) {
		if t.FromCUDA() {
			defer sharenet.CloseAll([]int{fd})
			m, err := c.ImportShareableFD(fd, t.AllocationSize)
			if err != nil {
				return nil, fmt.Errorf("share: importing a CUDA allocation into CUDA: %w", err)
			}
			return &cudaImport{cu: m}, nil
		}
		ext, err := c.ImportMemoryFD(fd, t.AllocationSize, t.Dedicated()) // takes fd
		if err != nil {
			return nil, fmt.Errorf("share: importing a buffer into CUDA: %w", err)
		}
		mb, err := ext.MapBuffer(0, t.Size)
		if err != nil {
			return nil, errors.Join(err, ext.Close())
		}
		return &cudaImport{ext: ext, buf: mb}, nil
	})
	if err != nil {
		return nil, err
	}
	return &CUDABuffer{im: im, size: t.Size, off: t.Offset}, nil
}

// CUDATexture is a shared texture imported into CUDA alone, as a CUDA
// array.
type CUDATexture struct {
	im     *cudaImport
	meta   Meta
	once   sync.Once
	closed atomic.Bool
	err    error
}

// Array is the texture's CUDA array (layered for 2D arrays); nil after
// Close. Opens of one texture in one context share it.
func (t *CUDATexture) Array() *cuda.Array {
	if t.closed.Load() {
		return nil
	}
	return t.im.arr
}

// Meta is what the exporter said about the texture (format, extent).
func (t *CUDATexture) Meta() Meta { return t.meta }

// Close releases this handle's reference to the import (the last one
// releases it). Idempotent.
func (t *CUDATexture) Close() error {
	t.once.Do(func() {
		t.closed.Store(true)
		t.err = t.im.release()
	})
	return t.err
}

// OpenCUDATexture imports a shared texture into the CUDA context c as a
// CUDA array, and nowhere else. The exporter leaves the texels in the
// GENERAL layout, released to external users (a Device's textures and ring
// producers do). Opening a texture this process has open in c already
// reuses the import.
func OpenCUDATexture(ctx context.Context, c *cuda.Context, tok Token, o ...OpenOptions) (*CUDATexture, error) {
	im, t, err := openCUDA(ctx, c, tok, KindTexture, o, func(t Meta, fd int) (*cudaImport, error) {
		in, ok := format.Lookup(format.Format(t.Format))
		if !ok || !in.CUDAArrayCapable() {
			sharenet.CloseAll([]int{fd})
			return nil, fmt.Errorf("share: OpenCUDATexture: format %d has no CUDA array equivalent", t.Format)
		}
		ext, err := c.ImportMemoryFD(fd, t.AllocationSize, true) // takes fd
		if err != nil {
			return nil, fmt.Errorf("share: importing a texture into CUDA: %w", err)
		}
		u := vulkan.ImageUsage(t.Usage)
		desc := cuda.ArrayDesc{Width: uint64(t.Width), Height: uint64(t.Height), Format: cuda.ArrayFormat(in.CUDAFormat),
			Channels: uint32(in.CUDAChannels), Surface: u&vulkan.ImageStorage != 0, ColorTarget: u&vulkan.ImageColorAttachment != 0}
		if t.Layers > 1 {
			desc.Layers = uint64(t.Layers)
		}
		arr, err := ext.MapArray(0, desc)
		if err != nil {
			return nil, errors.Join(err, ext.Close())
		}
		return &cudaImport{ext: ext, arr: arr}, nil
	})
	if err != nil {
		return nil, err
	}
	return &CUDATexture{im: im, meta: t}, nil
}
