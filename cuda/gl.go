package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// GLFlags say how CUDA uses a registered GL object
// (cuGraphicsGLRegister* flags). They may be combined with GLSurface and
// GLTextureGather.
type GLFlags uint32

// Registration flags.
const (
	// GLReadWrite: CUDA reads and writes the object (the default).
	GLReadWrite GLFlags = cu.GraphicsRegisterNone
	// GLReadOnly: CUDA only reads; GL need not see CUDA's writes.
	GLReadOnly GLFlags = cu.GraphicsRegisterReadOnly
	// GLWriteDiscard: CUDA overwrites everything; the contents are not
	// preserved into CUDA when mapped.
	GLWriteDiscard GLFlags = cu.GraphicsRegisterWriteDiscard
	// GLSurface: the texture's mapped array can back surface objects.
	GLSurface GLFlags = cu.GraphicsRegisterSurfaceLDST
	// GLTextureGather: the texture can be used with texture gather.
	GLTextureGather GLFlags = cu.GraphicsRegisterTextureGather
)

// ErrNotMapped is returned by GLResource.Pointer and Array outside a
// mapping, and ErrMapped by operations that need the resource unmapped.
var (
	ErrNotMapped = errors.New("cuda: the GL resource is not mapped (MapGL first)")
	ErrMapped    = errors.New("cuda: the GL resource is mapped (UnmapGL first)")
)

// GLResource is an OpenGL buffer or texture registered with CUDA
// (cuGraphicsGLRegisterBuffer/Image).
//
// Thread rule: CUDA–GL calls act on the GL context current on the calling
// OS thread, so RegisterGL*, MapGL, UnmapGL and Close must run on a
// thread where the object's GL context is current (package gl does this
// for you). Each call makes the Context current for its duration and
// restores the thread's previous CUDA context.
type GLResource struct {
	ctx   *Context
	name  uint32
	image bool
	flags GLFlags

	mu     sync.Mutex
	h      cu.GraphicsResource
	ok     bool
	mapped bool
	arrays []*Array // arrays handed out during the current mapping
}

// withCurrent runs f on the locked calling thread with c current, and
// restores the thread's previous CUDA context.
func withCurrent(c *Context, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, r := cu.CtxGetCurrent()
	if err := check("cuCtxGetCurrent", r); err != nil {
		return err
	}
	if prev != c.h {
		defer cu.CtxSetCurrent(prev)
	}
	return f()
}

// RegisterGLBuffer registers GL buffer object name with CUDA. Call it on a
// thread where the buffer's GL context is current.
func (c *Context) RegisterGLBuffer(name uint32, flags GLFlags) (*GLResource, error) {
	return c.registerGL(name, 0, false, flags)
}

// RegisterGLImage registers GL texture (or renderbuffer) name of the given
// target (e.g. GL_TEXTURE_2D = 0x0DE1) with CUDA. CUDA accepts 1, 2 and 4
// channel textures of 8/16/32-bit integer, 16-bit and 32-bit float
// formats; other formats fail with CUDA_ERROR_INVALID_VALUE or
// CUDA_ERROR_NOT_SUPPORTED. Call it on a thread where the texture's GL
// context is current.
func (c *Context) RegisterGLImage(name, target uint32, flags GLFlags) (*GLResource, error) {
	return c.registerGL(name, target, true, flags)
}

func (c *Context) registerGL(name, target uint32, image bool, flags GLFlags) (*GLResource, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	var h cu.GraphicsResource
	err := withCurrent(c, func() error {
		var r cu.Result
		op := "cuGraphicsGLRegisterBuffer"
		if image {
			op = "cuGraphicsGLRegisterImage"
			h, r = cu.GraphicsGLRegisterImage(c.h, name, target, uint32(flags))
		} else {
			h, r = cu.GraphicsGLRegisterBuffer(c.h, name, uint32(flags))
		}
		return check(op, r)
	})
	if err != nil {
		c.release()
		what := "buffer"
		if image {
			what = fmt.Sprintf("texture (target 0x%x)", target)
		}
		return nil, fmt.Errorf("registering GL %s %d with CUDA (the GL context must be current on this thread and run on the CUDA device): %w", what, name, err)
	}
	return &GLResource{ctx: c, name: name, image: image, flags: flags, h: h, ok: true}, nil
}

// Name is the GL object name.
func (r *GLResource) Name() uint32 { return r.name }

// IsImage reports whether the resource is a texture (else a buffer).
func (r *GLResource) IsImage() bool { return r.image }

// Flags are the registration flags.
func (r *GLResource) Flags() GLFlags { return r.flags }

// Mapped reports whether the resource is mapped.
func (r *GLResource) Mapped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mapped
}

// glBatch checks resources for MapGL/UnmapGL and locks them in order.
func glBatch(rs []*GLResource, wantMapped bool) (*Context, []cu.GraphicsResource, func(), error) {
	if len(rs) == 0 {
		return nil, nil, func() {}, nil
	}
	ctx := rs[0].ctx
	hs := make([]cu.GraphicsResource, len(rs))
	seen := make(map[*GLResource]bool, len(rs))
	var locked []*GLResource
	unlock := func() {
		for _, r := range locked {
			r.mu.Unlock()
		}
	}
	for i, r := range rs {
		if r == nil || seen[r] {
			unlock()
			return nil, nil, nil, fmt.Errorf("cuda: GL resource %d is nil or listed twice: %w", i, ErrorInvalidValue)
		}
		seen[r] = true
		if r.ctx != ctx {
			unlock()
			return nil, nil, nil, fmt.Errorf("cuda: GL resources of different contexts in one call: %w", ErrorInvalidValue)
		}
		r.mu.Lock()
		locked = append(locked, r)
		switch {
		case !r.ok:
			unlock()
			return nil, nil, nil, ErrClosed
		case r.mapped != wantMapped && wantMapped:
			unlock()
			return nil, nil, nil, fmt.Errorf("GL object %d: %w", r.name, ErrNotMapped)
		case r.mapped != wantMapped:
			unlock()
			return nil, nil, nil, fmt.Errorf("GL object %d: %w", r.name, ErrMapped)
		}
		hs[i] = r.h
	}
	return ctx, hs, unlock, nil
}

// streamHandle takes a use of s (nil: the legacy default stream); call
// the returned func when the driver call has returned.
func streamHandle(s *Stream) (cu.Stream, func(), error) {
	if s == nil {
		return cu.Stream{}, func() {}, nil
	}
	h, err := s.use()
	if err != nil {
		return cu.Stream{}, nil, err
	}
	return h, s.done, nil
}

// MapGL maps GL resources for CUDA in one cuGraphicsMapResources call,
// ordered after the GL commands issued so far and before later work on s
// (nil: the legacy default stream). While mapped, GL must not use them.
// Call it on a thread where their GL context is current.
func MapGL(s *Stream, rs ...*GLResource) error {
	ctx, hs, unlock, err := glBatch(rs, false)
	if err != nil || ctx == nil {
		return err
	}
	defer unlock()
	sh, doneStream, err := streamHandle(s)
	if err != nil {
		return err
	}
	defer doneStream()
	if s != nil && s.ctx != ctx {
		return fmt.Errorf("cuda: MapGL: the stream belongs to another context: %w", ErrorInvalidValue)
	}
	err = withCurrent(ctx, func() error {
		return check("cuGraphicsMapResources", cu.GraphicsMapResources(ctx.h, hs, sh))
	})
	if err != nil {
		return err
	}
	for _, r := range rs {
		r.mapped = true
	}
	return nil
}

// UnmapGL unmaps resources in one cuGraphicsUnmapResources call: GL
// commands issued afterwards see CUDA's work queued on s before it.
// Pointers and arrays obtained during the mapping become invalid. Call it
// on a thread where their GL context is current.
func UnmapGL(s *Stream, rs ...*GLResource) error {
	ctx, hs, unlock, err := glBatch(rs, true)
	if err != nil || ctx == nil {
		return err
	}
	defer unlock()
	sh, doneStream, err := streamHandle(s)
	if err != nil {
		return err
	}
	defer doneStream()
	var first error
	for _, r := range rs {
		first = errors.Join(first, r.dropArrays())
	}
	err = withCurrent(ctx, func() error {
		return check("cuGraphicsUnmapResources", cu.GraphicsUnmapResources(ctx.h, hs, sh))
	})
	if err != nil {
		return err
	}
	for _, r := range rs {
		r.mapped = false
	}
	return first
}

// dropArrays invalidates the arrays of the mapping; r.mu is held.
func (r *GLResource) dropArrays() error {
	var first error
	for _, a := range r.arrays {
		first = errors.Join(first, a.Close())
	}
	r.arrays = nil
	return first
}

// Pointer returns a mapped buffer's device address and size. It is valid
// until UnmapGL.
func (r *GLResource) Pointer() (DevicePtr, uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.live(true); err != nil {
		return 0, 0, err
	}
	if r.image {
		return 0, 0, fmt.Errorf("cuda: GL object %d is a texture: use Array: %w", r.name, ErrorInvalidValue)
	}
	var p cu.DevicePtr
	var n uint64
	err := withCurrent(r.ctx, func() error {
		var res cu.Result
		p, n, res = cu.GraphicsResourceGetMappedPointer(r.ctx.h, r.h)
		return check("cuGraphicsResourceGetMappedPointer", res)
	})
	return DevicePtr(p), n, err
}

// Array returns layer layer, mip level level of a mapped texture as a CUDA
// array, described as the driver reports it. The array belongs to the
// mapping: UnmapGL invalidates it (Close on it is allowed and only drops
// its surface objects).
func (r *GLResource) Array(layer, level uint32) (*Array, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.live(true); err != nil {
		return nil, err
	}
	if !r.image {
		return nil, fmt.Errorf("cuda: GL object %d is a buffer: use Pointer: %w", r.name, ErrorInvalidValue)
	}
	var a cu.Array
	var d cu.ArrayDesc
	err := withCurrent(r.ctx, func() error {
		var res cu.Result
		a, res = cu.GraphicsSubResourceGetMappedArray(r.ctx.h, r.h, layer, level)
		if err := check("cuGraphicsSubResourceGetMappedArray", res); err != nil {
			return err
		}
		d, res = cu.Array3DGetDescriptor(r.ctx.h, a)
		return check("cuArray3DGetDescriptor", res)
	})
	if err != nil {
		return nil, err
	}
	desc := ArrayDesc{Width: d.Width, Height: max(d.Height, 1), Format: ArrayFormat(d.Format), Channels: d.Channels,
		Surface: d.Flags&cu.Array3DSurfaceLDST != 0}
	if d.Flags&cu.Array3DLayered != 0 {
		desc.Layers = d.Depth
	}
	arr := &Array{ctx: r.ctx, h: a, desc: desc, borrowed: true}
	r.arrays = append(r.arrays, arr)
	return arr, nil
}

func (r *GLResource) live(wantMapped bool) error {
	if !r.ok {
		return ErrClosed
	}
	if wantMapped && !r.mapped {
		return fmt.Errorf("GL object %d: %w", r.name, ErrNotMapped)
	}
	return nil
}

// Close unregisters the resource (unmapping it first on the legacy
// default stream if it is still mapped). It is idempotent. Call it on a
// thread where the object's GL context is current, before the GL object
// is deleted.
func (r *GLResource) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ok {
		return nil
	}
	r.ok = false
	first := r.dropArrays()
	err := withCurrent(r.ctx, func() error {
		var err error
		if r.mapped {
			err = check("cuGraphicsUnmapResources", cu.GraphicsUnmapResources(r.ctx.h, []cu.GraphicsResource{r.h}, cu.Stream{}))
			r.mapped = false
		}
		return errors.Join(err, check("cuGraphicsUnregisterResource", cu.GraphicsUnregisterResource(r.ctx.h, r.h)))
	})
	return errors.Join(errors.Join(first, err), r.ctx.release())
}
