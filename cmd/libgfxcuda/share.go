package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Cross-process sharing (gfxcuda's tokens), file descriptors of
// foreign renderers, external semaphores, explicit hand-offs and rings.

// openTimeout bounds opening a token: the exporter answers within 2 s or
// is gone.
const openTimeout = 10 * time.Second

func tokenOf(p unsafe.Pointer, n C.size_t) (gfxcuda.Token, error) {
	if p == nil || n == 0 || n > 4096 {
		return "", errorf(stInvalid, "gfxcuda: a token of %d bytes; pass the bytes ipc_handle/token returned", n)
	}
	tok := gfxcuda.Token(C.GoStringN((*C.char)(p), C.int(n)))
	if _, err := tok.Meta(); err != nil {
		return "", &statusError{stInvalid, err}
	}
	return tok, nil
}

// shareStatus maps share's errors to statuses.
func shareStatus(err error) error {
	switch {
	case errors.Is(err, gfxcuda.ErrBadToken):
		return &statusError{stInvalid, err}
	case errors.Is(err, gfxcuda.ErrWithdrawn):
		return &statusError{stBadHandle, err}
	case errors.Is(err, gfxcuda.ErrSharedRingClosed):
		return &statusError{stClosed, err}
	case errors.Is(err, context.DeadlineExceeded):
		return &statusError{stTimeout, err}
	case errors.Is(err, gfxcuda.ErrUnsupported):
		return &statusError{stUnsupported, err}
	}
	return err
}

func timeoutCtx(ms C.int64_t) (context.Context, context.CancelFunc) {
	if ms < 0 {
		return context.WithTimeout(context.Background(), 24*365*time.Hour)
	}
	return context.WithTimeout(context.Background(), time.Duration(ms)*time.Millisecond)
}

//export gfxcuda_share_token
func gfxcuda_share_token(h C.uint64_t, out *unsafe.Pointer, n *C.size_t) C.int {
	return call(func() error { return shareToken(uint64(h), out, n) })
}

// shareToken exports a shared buffer, texture or ring (once) and returns
// its token.
func shareToken(h uint64, out *unsafe.Pointer, n *C.size_t) error {
	{
		handles.Lock()
		e, ok := handles.m[h]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
		}
		var tok gfxcuda.Token
		var err error
		switch o := e.obj.(type) {
		case *sharedTexture:
			tok, err = exportOnce(&o.mu, &o.ex, o.t, o.opts)
		case *sharedBuffer:
			tok, err = exportOnce(&o.mu, &o.ex, o.b, o.opts)
		case *ring:
			tok = o.r.Token()
		default:
			return errorf(stInvalid, "gfxcuda: a %s cannot be shared with other processes (shared buffers, textures and rings can)", kindName(e.obj))
		}
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		return cBytes([]byte(tok), out, n)
	}
}

func exportOnce(mu *sync.Mutex, ex **gfxcuda.Shared, res any, o *gfxcuda.ExportOptions) (gfxcuda.Token, error) {
	mu.Lock()
	defer mu.Unlock()
	if *ex == nil {
		var opts []gfxcuda.ExportOptions
		if o != nil {
			opts = append(opts, *o)
		}
		e, err := gfxcuda.Export(res, opts...)
		if err != nil {
			return "", err
		}
		*ex = e
	}
	return (*ex).Token(), nil
}

// exportOptions reads the options of gfxcuda_share_options and
// gfxcuda_ring_new_with from C.
func exportOptions(dir, rendezvous *C.char, uids *C.uint32_t, nu C.size_t, gids *C.uint32_t, ng C.size_t) (gfxcuda.ExportOptions, error) {
	var o gfxcuda.ExportOptions
	if dir != nil {
		o.Dir = C.GoString(dir)
	}
	if rendezvous != nil {
		r, err := gfxcuda.ParseRendezvous(C.GoString(rendezvous))
		if err != nil {
			return o, &statusError{stInvalid, err}
		}
		o.Rendezvous = r
	}
	if (uids == nil && nu != 0) || (gids == nil && ng != 0) || nu > 1<<16 || ng > 1<<16 {
		return o, errorf(stInvalid, "gfxcuda: %d uids and %d gids with null arrays (or too many)", nu, ng)
	}
	if nu > 0 {
		for _, u := range unsafe.Slice((*uint32)(unsafe.Pointer(uids)), int(nu)) {
			o.AllowUIDs = append(o.AllowUIDs, int(u))
		}
	}
	if ng > 0 {
		for _, g := range unsafe.Slice((*uint32)(unsafe.Pointer(gids)), int(ng)) {
			o.AllowGIDs = append(o.AllowGIDs, int(g))
		}
	}
	return o, nil
}

//export gfxcuda_share_options
func gfxcuda_share_options(h C.uint64_t, dir, rendezvous *C.char, uids *C.uint32_t, nu C.size_t, gids *C.uint32_t, ng C.size_t) C.int {
	return call(func() error {
		o, err := exportOptions(dir, rendezvous, uids, nu, gids, ng)
		if err != nil {
			return err
		}
		if h == 0 {
			gfxcuda.SetExportDefaults(o)
			return nil
		}
		handles.Lock()
		e, ok := handles.m[uint64(h)]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
		}
		set := func(mu *sync.Mutex, ex **gfxcuda.Shared, opts **gfxcuda.ExportOptions) error {
			mu.Lock()
			defer mu.Unlock()
			if *ex != nil {
				return errorf(stInvalid, "gfxcuda_share_options: the token of handle %d was made already: set its options before gfxcuda_share_token", h)
			}
			*opts = &o
			return nil
		}
		switch x := e.obj.(type) {
		case *sharedBuffer:
			return set(&x.mu, &x.ex, &x.opts)
		case *sharedTexture:
			return set(&x.mu, &x.ex, &x.opts)
		}
		return errorf(stInvalid, "gfxcuda_share_options: a %s has no token of its own (shared buffers and textures have; rings take their options at gfxcuda_ring_new_with)", kindName(e.obj))
	})
}

//export gfxcuda_shared_texture_ipc_handle
func gfxcuda_shared_texture_ipc_handle(tex C.uint64_t, out *unsafe.Pointer, n *C.size_t) C.int {
	return call(func() error {
		if _, err := get[*sharedTexture](uint64(tex), "shared texture"); err != nil {
			return err
		}
		return shareToken(uint64(tex), out, n)
	})
}

//export gfxcuda_shared_texture_open_ipc
func gfxcuda_shared_texture_open_ipc(dev C.uint64_t, handle unsafe.Pointer, n C.size_t, out *C.uint64_t) C.int {
	return openIPC(dev, handle, n, out, "gfxcuda_shared_texture_open_ipc",
		func(ctx context.Context, sd *sharedDevice, tok gfxcuda.Token) (any, func() error, error) {
			t, err := sd.d.OpenTexture(ctx, tok)
			if err != nil {
				return nil, nil, err
			}
			st := &sharedTexture{t: t, sd: sd, ordinal: sd.ordinal}
			return st, st.close, nil
		})
}

//export gfxcuda_shared_buffer_open_ipc
func gfxcuda_shared_buffer_open_ipc(dev C.uint64_t, handle unsafe.Pointer, n C.size_t, out *C.uint64_t) C.int {
	return openIPC(dev, handle, n, out, "gfxcuda_shared_buffer_open_ipc",
		func(ctx context.Context, sd *sharedDevice, tok gfxcuda.Token) (any, func() error, error) {
			b, err := sd.d.OpenBuffer(ctx, tok)
			if err != nil {
				return nil, nil, err
			}
			sb := &sharedBuffer{b: b, sd: sd, ordinal: sd.ordinal}
			return sb, sb.close, nil
		})
}

// openIPC opens the token at handle (n bytes) on shared device dev with
// open, bounded by openTimeout, and stores what it made in *out.
func openIPC(dev C.uint64_t, handle unsafe.Pointer, n C.size_t, out *C.uint64_t, name string,
	open func(context.Context, *sharedDevice, gfxcuda.Token) (any, func() error, error)) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "%s: null output", name)
		}
		tok, err := tokenOf(handle, n)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		obj, closeFn, err := open(ctx, sd, tok)
		if err != nil {
			return shareStatus(err)
		}
		return store(out, obj, closeFn, uint64(dev))
	})
}

// ---- file descriptors of foreign renderers ----

//export gfxcuda_shared_buffer_import_fd
func gfxcuda_shared_buffer_import_fd(dev C.uint64_t, fd C.int, size, allocSize C.uint64_t, dedicated C.int, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil || size == 0 {
			return errorf(stInvalid, "gfxcuda_shared_buffer_import_fd: null output or zero size")
		}
		if err := checkFD(fd); err != nil {
			return err
		}
		b, err := sd.d.ImportBuffer(int(fd), uint64(size), gfxcuda.ImportOptions{AllocationSize: max(uint64(allocSize), uint64(size)), Dedicated: dedicated != 0})
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		sb := &sharedBuffer{b: b, sd: sd, ordinal: sd.ordinal}
		return store(out, sb, sb.close, uint64(dev))
	})
}

//export gfxcuda_shared_texture_import_fd
func gfxcuda_shared_texture_import_fd(dev C.uint64_t, fd C.int, f, w, h, layers, usage C.uint32_t, allocSize C.uint64_t, out *C.uint64_t) C.int {
	return gfxcuda_shared_texture_import_fd_views(dev, fd, f, w, h, layers, usage, allocSize, nil, 0, out)
}

//export gfxcuda_shared_texture_import_fd_views
func gfxcuda_shared_texture_import_fd_views(dev C.uint64_t, fd C.int, f, w, h, layers, usage C.uint32_t, allocSize C.uint64_t,
	views *C.uint32_t, nviews C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil || allocSize == 0 {
			return errorf(stInvalid, "gfxcuda_shared_texture_import_fd: null output or zero allocation size")
		}
		if _, ok := format.Lookup(format.Format(f)); !ok {
			return errorf(stInvalid, "gfxcuda: unknown texture format %d", f)
		}
		vf, err := viewFormats("gfxcuda_shared_texture_import_fd_views", views, nviews)
		if err != nil {
			return err
		}
		if err := checkFD(fd); err != nil {
			return err
		}
		t, err := sd.d.ImportTexture(int(fd), gfxcuda.TextureOptions{Format: format.Format(f), Width: uint32(w), Height: uint32(h),
			Layers: max(uint32(layers), 1), Usage: vulkan.ImageUsage(usage), ViewFormats: vf}, gfxcuda.ImportOptions{AllocationSize: uint64(allocSize), Dedicated: true})
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		st := &sharedTexture{t: t, sd: sd, ordinal: sd.ordinal}
		return store(out, st, st.close, uint64(dev))
	})
}

//export gfxcuda_shared_export_fd
func gfxcuda_shared_export_fd(h C.uint64_t, fd *C.int, allocSize *C.uint64_t, dedicated *C.int, usage *C.uint32_t) C.int {
	return call(func() error {
		if fd == nil || allocSize == nil || dedicated == nil || usage == nil {
			return errorf(stInvalid, "gfxcuda_shared_export_fd: null output")
		}
		handles.Lock()
		e, ok := handles.m[uint64(h)]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
		}
		switch o := e.obj.(type) {
		case *sharedBuffer:
			if off := o.b.Offset(); off != 0 {
				return errorf(stUnsupported, "gfxcuda: the buffer starts at byte %d of its allocation (a tensor of a torch pool), which a descriptor cannot say: share it by its token (ipc_handle)", off)
			}
			d, err := o.b.ExportFD()
			if err != nil {
				return &statusError{stUnsupported, err}
			}
			*fd, *allocSize, *usage = C.int(d), C.uint64_t(o.b.AllocationSize()), C.uint32_t(o.b.Vulkan().Usage())
			*dedicated = 0
			if o.b.Dedicated() {
				*dedicated = 1
			}
		case *sharedTexture:
			d, err := o.t.ExportFD()
			if err != nil {
				return &statusError{stUnsupported, err}
			}
			*fd, *allocSize, *dedicated, *usage = C.int(d), C.uint64_t(o.t.AllocationSize()), 1, C.uint32_t(o.t.Vulkan().Options().Usage)
		case *vkSemaphore:
			d, err := o.s.ExportFD()
			if err != nil {
				return &statusError{stUnsupported, err}
			}
			*fd, *allocSize, *dedicated, *usage = C.int(d), 0, 0, 0
		default:
			return errorf(stInvalid, "gfxcuda: a %s has no file descriptor to export", kindName(e.obj))
		}
		return nil
	})
}

// ---- semaphores ----

// cudaSemaphore is a timeline semaphore imported into CUDA.
type cudaSemaphore struct {
	s  *cuda.ExternalSemaphore
	sd *sharedDevice
}

// vkSemaphore is a Vulkan timeline semaphore (a renderer's side).
type vkSemaphore struct {
	s *vulkan.Semaphore
}

//export gfxcuda_cuda_semaphore_import_fd
func gfxcuda_cuda_semaphore_import_fd(dev C.uint64_t, fd C.int, timeline C.int, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_cuda_semaphore_import_fd: null output")
		}
		if err := checkFD(fd); err != nil {
			return err
		}
		s, err := sd.d.CUDA().ImportSemaphoreFD(int(fd), timeline != 0)
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		return store(out, &cudaSemaphore{s, sd}, s.Close, uint64(dev))
	})
}

//export gfxcuda_cuda_semaphore_wait
func gfxcuda_cuda_semaphore_wait(sem C.uint64_t, value C.uint64_t, stream C.uint64_t) C.int {
	return call(func() error {
		s, err := get[*cudaSemaphore](uint64(sem), "CUDA semaphore")
		if err != nil {
			return err
		}
		st, done, err := s.sd.stream(uint64(stream))
		if err != nil {
			return err
		}
		defer done()
		return s.s.Wait(st, uint64(value))
	})
}

//export gfxcuda_cuda_semaphore_signal
func gfxcuda_cuda_semaphore_signal(sem C.uint64_t, value C.uint64_t, stream C.uint64_t) C.int {
	return call(func() error {
		s, err := get[*cudaSemaphore](uint64(sem), "CUDA semaphore")
		if err != nil {
			return err
		}
		st, done, err := s.sd.stream(uint64(stream))
		if err != nil {
			return err
		}
		defer done()
		return s.s.Signal(st, uint64(value))
	})
}

// vulkanOf returns the Vulkan device of a compute or shared device handle.
func vulkanOf(h uint64) (*vulkan.Device, error) {
	handles.Lock()
	e, ok := handles.m[h]
	handles.Unlock()
	if !ok {
		return nil, errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
	}
	switch o := e.obj.(type) {
	case *compute.Device:
		return o.Vulkan(), nil
	case *sharedDevice:
		return o.d.Vulkan(), nil
	}
	return nil, errorf(stInvalid, "gfxcuda: handle %d is a %s, not a device", h, kindName(e.obj))
}

//export gfxcuda_vk_semaphore_new
func gfxcuda_vk_semaphore_new(dev C.uint64_t, initial C.uint64_t, exportable C.int, out *C.uint64_t) C.int {
	return call(func() error {
		vd, err := vulkanOf(uint64(dev))
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_vk_semaphore_new: null output")
		}
		s, err := vd.NewTimelineSemaphore(uint64(initial), exportable != 0)
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		return store(out, &vkSemaphore{s: s}, s.Close, uint64(dev))
	})
}

//export gfxcuda_vk_semaphore_signal
func gfxcuda_vk_semaphore_signal(sem C.uint64_t, value C.uint64_t) C.int {
	return call(func() error {
		s, err := get[*vkSemaphore](uint64(sem), "Vulkan semaphore")
		if err != nil {
			return err
		}
		if err := s.s.SignalAbove(uint64(value)); err != nil {
			if errors.Is(err, vulkan.ErrClosed) {
				return err
			}
			return &statusError{stInvalid, err} // vulkan.ErrNotIncreasing among them
		}
		return nil
	})
}

//export gfxcuda_vk_semaphore_wait
func gfxcuda_vk_semaphore_wait(sem C.uint64_t, value C.uint64_t, timeoutMS C.int64_t) C.int {
	return call(func() error {
		s, err := get[*vkSemaphore](uint64(sem), "Vulkan semaphore")
		if err != nil {
			return err
		}
		d := time.Duration(timeoutMS) * time.Millisecond
		if timeoutMS < 0 {
			d = -1
		}
		if err := s.s.Wait(uint64(value), d); err != nil {
			if errors.Is(err, vulkan.ErrTimeout) {
				return &statusError{stTimeout, err}
			}
			return err
		}
		return nil
	})
}

//export gfxcuda_vk_semaphore_value
func gfxcuda_vk_semaphore_value(sem C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		s, err := get[*vkSemaphore](uint64(sem), "Vulkan semaphore")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_vk_semaphore_value: null output")
		}
		v, err := s.s.Value()
		*out = C.uint64_t(v)
		return err
	})
}

// ---- explicit hand-offs ----

// access is an explicit hand-off of shared resources to CUDA.
type access struct {
	a   *gfxcuda.Access
	sd  *sharedDevice
	res []any // *sharedBuffer, *sharedTexture
	s   *cuda.Stream
	end func() // stops using a wrapped stream
	mu  sync.Mutex
	ok  bool // Done not called yet
}

func (a *access) done() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.ok {
		return nil
	}
	a.ok = false
	// The resources' locks are held while the hand-off ends, so that a
	// copy (sharedTexture.copy) runs wholly inside it or wholly after.
	for _, r := range a.res {
		lockOf(r).Lock()
	}
	err := a.a.Done()
	for _, r := range a.res {
		setHeld(r, nil)
		lockOf(r).Unlock()
	}
	a.end()
	return err
}

//export gfxcuda_to_cuda
func gfxcuda_to_cuda(hs *C.uint64_t, n C.size_t, stream C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil || hs == nil || n == 0 || n > 1024 {
			return errorf(stInvalid, "gfxcuda_to_cuda: give 1 to 1024 resources and an output")
		}
		list := unsafe.Slice((*uint64)(unsafe.Pointer(hs)), n)
		sd, res, objs, err := sharedResources(list, "to_cuda", "cannot be handed to CUDA (shared buffers and textures can)")
		if err != nil {
			return err
		}
		s, end, err := sd.stream(uint64(stream))
		if err != nil {
			return err
		}
		// Lock every resource (in list order; the C API forbids listing
		// one twice, interop refuses it) while the hand-off is set up.
		for _, o := range objs {
			lockOf(o).Lock()
		}
		a, err := sd.d.ToCUDA(s, res...)
		if err == nil {
			for _, o := range objs {
				setHeld(o, a)
			}
		}
		for _, o := range objs {
			lockOf(o).Unlock()
		}
		if err != nil {
			end()
			if errors.Is(err, gfxcuda.ErrHeldByCUDA) {
				return &statusError{stInvalid, fmt.Errorf("%w (end the other hand-off with to_vulkan first)", err)}
			}
			return err
		}
		ac := &access{a: a, sd: sd, res: objs, s: s, end: end, ok: true}
		// list is the caller's memory, valid during this call only: store
		// copies the handles it retains.
		return store(out, ac, ac.done, list...)
	})
}

func lockOf(o any) *sync.Mutex {
	if b, ok := o.(*sharedBuffer); ok {
		return &b.mu
	}
	return &o.(*sharedTexture).mu
}

func setHeld(o any, a *gfxcuda.Access) {
	if b, ok := o.(*sharedBuffer); ok {
		b.held = a
	} else {
		o.(*sharedTexture).held = a
	}
}

//export gfxcuda_to_vulkan
func gfxcuda_to_vulkan(acc C.uint64_t) C.int {
	return call(func() error {
		a, err := get[*access](uint64(acc), "hand-off")
		if err != nil {
			return err
		}
		return a.done()
	})
}

//export gfxcuda_cuda_stream_wait
func gfxcuda_cuda_stream_wait(dev C.uint64_t, waiter, signaler C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if waiter == signaler {
			return nil
		}
		w, wdone, err := sd.stream(uint64(waiter))
		if err != nil {
			return err
		}
		defer wdone()
		s, sdone, err := sd.stream(uint64(signaler))
		if err != nil {
			return err
		}
		defer sdone()
		return w.After(s)
	})
}

// sharedResources resolves handles of shared buffers and textures of one
// shared device: the device, the face's resources and the handle objects,
// in list order. fn names the C function and refusal says what an object
// of another kind cannot be, in the errors.
func sharedResources(list []uint64, fn, refusal string) (*sharedDevice, []gfxcuda.Resource, []any, error) {
	var sd *sharedDevice
	res := make([]gfxcuda.Resource, 0, len(list))
	objs := make([]any, 0, len(list))
	for _, h := range list {
		handles.Lock()
		e, ok := handles.m[h]
		handles.Unlock()
		if !ok {
			return nil, nil, nil, errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
		}
		var d *sharedDevice
		switch o := e.obj.(type) {
		case *sharedBuffer:
			d = o.sd
			res = append(res, o.b)
		case *sharedTexture:
			d = o.sd
			res = append(res, o.t)
		default:
			return nil, nil, nil, errorf(stInvalid, "gfxcuda: a %s %s", kindName(e.obj), refusal)
		}
		if sd != nil && d != sd {
			return nil, nil, nil, errorf(stInvalid, "gfxcuda: %s: the resources belong to different shared devices", fn)
		}
		sd = d
		objs = append(objs, e.obj)
	}
	return sd, res, objs, nil
}
