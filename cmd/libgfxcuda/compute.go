package main

/*
#include "capi.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
)

// Resource kinds (gfxcuda_kind in gfxcuda.h).
const (
	kindDevice        = 1
	kindBuffer        = 2
	kindTexture       = 3
	kindSampler       = 4
	kindKernel        = 5
	kindCUDAMemory    = 6
	kindSharedDevice  = 7
	kindSharedBuffer  = 8
	kindSharedTexture = 9
	kindImported      = 10
	kindHostMemory    = 11
	kindRing          = 12
	kindRingReader    = 13
	kindAccess        = 14
	kindSemaphore     = 15
)

func kindName(o any) string {
	switch o.(type) {
	case *compute.Device:
		return "device"
	case *buffer:
		return "buffer"
	case *texture:
		return "texture"
	case *compute.Sampler:
		return "sampler"
	case *kernel:
		return "compute pipeline"
	case *sharedDevice:
		return "shared device"
	case *sharedBuffer:
		return "shared buffer"
	case *sharedTexture:
		return "shared texture"
	case *glContext:
		return "GL context"
	case *glSource:
		return "GL source"
	case *cudaMem, *wrappedMem, *glOut:
		return "CUDA memory"
	case *hostSlot:
		return "host-visible ring slot"
	case *ring:
		return "ring"
	case *ringReader:
		return "ring reader"
	case ringCore:
		return "ring's slots"
	case *access:
		return "hand-off"
	case *cudaSemaphore:
		return "CUDA semaphore"
	case *vkSemaphore:
		return "Vulkan semaphore"
	case *imported:
		return "imported tensor"
	}
	return fmt.Sprintf("%T", o)
}

type buffer struct {
	*compute.Buffer
	dev uint64
}

type texture struct {
	*compute.Texture
	slices uint32
	dev    uint64
}

type devInfo struct {
	Index                int    `json:"index"`
	Name                 string `json:"name"`
	DedicatedVideoMemory uint64 `json:"dedicated_video_memory"`
	SharedSystemMemory   uint64 `json:"shared_system_memory"`
	VendorID             uint32 `json:"vendor_id"`
	DeviceID             uint32 `json:"device_id"`
	Hardware             bool   `json:"is_hardware"`
	Discrete             bool   `json:"is_discrete"`
	UUID                 string `json:"uuid"`
	Driver               string `json:"driver"`
	Best                 bool   `json:"best"`
}

func infoJSON(i compute.DeviceInfo) devInfo {
	return devInfo{i.Index, i.Name, i.DedicatedVideoMemory, i.SharedSystemMemory, i.VendorID, i.DeviceID,
		i.Hardware, i.Discrete, i.UUIDString(), i.Driver, false}
}

//export gfxcuda_devices_json
func gfxcuda_devices_json(out *unsafe.Pointer, n *C.size_t) C.int {
	return call(func() error {
		ds, err := compute.Devices()
		if err != nil {
			return &statusError{stNoDevice, err}
		}
		list := make([]devInfo, len(ds))
		best := compute.Best(ds)
		for i, d := range ds {
			list[i] = infoJSON(d)
			list[i].Best = i == best
		}
		b, _ := json.Marshal(list)
		return cBytes(b, out, n)
	})
}

//export gfxcuda_device_open
func gfxcuda_device_open(index C.int, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_device_open: null output")
		}
		spec := ""
		if index >= 0 {
			spec = fmt.Sprint(int(index))
		}
		d, err := compute.Open(compute.Options{Device: spec})
		if err != nil {
			return &statusError{stNoDevice, err}
		}
		return store(out, d, d.Close)
	})
}

//export gfxcuda_device_info_json
func gfxcuda_device_info_json(dev C.uint64_t, out *unsafe.Pointer, n *C.size_t) C.int {
	return call(func() error {
		d, err := get[*compute.Device](uint64(dev), "device")
		if err != nil {
			return err
		}
		b, _ := json.Marshal(infoJSON(d.Info()))
		return cBytes(b, out, n)
	})
}

//export gfxcuda_buffer_new
func gfxcuda_buffer_new(dev C.uint64_t, size C.uint64_t, heap C.int, stride C.uint32_t, f C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		return newBuffer("gfxcuda_buffer_new", dev, size, heap, stride, f, 0, 0, 0, out) // placed.go
	})
}

//export gfxcuda_buffer_upload
func gfxcuda_buffer_upload(buf C.uint64_t, off C.uint64_t, data unsafe.Pointer, n C.uint64_t) C.int {
	return call(func() error {
		b, src, err := bufferRange(buf, data, n)
		if err != nil {
			return err
		}
		return copyStatus(b.UploadAt(uint64(off), src)) // compute.ErrRange: GFXCUDA_ERR_RANGE
	})
}

//export gfxcuda_buffer_readback
func gfxcuda_buffer_readback(buf C.uint64_t, off C.uint64_t, dst unsafe.Pointer, n C.uint64_t) C.int {
	return call(func() error {
		b, out, err := bufferRange(buf, dst, n)
		if err != nil {
			return err
		}
		return copyStatus(b.ReadbackAt(uint64(off), out))
	})
}

// bufferRange returns the buffer of handle buf and the n host bytes at p.
func bufferRange(buf C.uint64_t, p unsafe.Pointer, n C.uint64_t) (*buffer, []byte, error) {
	b, err := get[*buffer](uint64(buf), "buffer")
	if err != nil {
		return nil, nil, err
	}
	host, err := hostBytes(p, uint64(n))
	if err != nil {
		return nil, nil, err
	}
	return b, host, nil
}

//export gfxcuda_buffer_upload2d
func gfxcuda_buffer_upload2d(buf C.uint64_t, data unsafe.Pointer, n C.uint64_t, pitch, rowBytes C.uint64_t, height C.uint32_t) C.int {
	return call(func() error {
		b, err := get[*buffer](uint64(buf), "buffer")
		if err != nil {
			return err
		}
		src, err := hostBytes(data, uint64(n))
		if err != nil {
			return err
		}
		if err := b.Upload2D(src, uint64(pitch), uint64(rowBytes), int(height)); err != nil {
			return &statusError{stRange, err}
		}
		return nil
	})
}

//export gfxcuda_buffer_upload_chunked
func gfxcuda_buffer_upload_chunked(buf C.uint64_t, data unsafe.Pointer, n C.uint64_t, stride C.uint64_t, filler unsafe.Pointer, fillerLen C.uint64_t) C.int {
	return call(func() error {
		b, err := get[*buffer](uint64(buf), "buffer")
		if err != nil {
			return err
		}
		if stride == 0 || uint64(stride) > math.MaxInt32 {
			return errorf(stInvalid, "gfxcuda: upload_chunked with a stride of %d bytes; it must be from 1 to %d", uint64(stride), math.MaxInt32)
		}
		src, err := hostBytes(data, uint64(n))
		if err != nil {
			return err
		}
		fill, err := hostBytes(filler, uint64(fillerLen))
		if err != nil {
			return err
		}
		if err := b.UploadChunked(src, int(stride), fill); err != nil {
			return &statusError{stRange, err}
		}
		return nil
	})
}

//export gfxcuda_buffer_readback2d
func gfxcuda_buffer_readback2d(buf C.uint64_t, dst unsafe.Pointer, n C.uint64_t, pitch, rowBytes C.uint64_t, height C.uint32_t) C.int {
	return call(func() error {
		b, err := get[*buffer](uint64(buf), "buffer")
		if err != nil {
			return err
		}
		out, err := hostBytes(dst, uint64(n))
		if err != nil {
			return err
		}
		if err := b.Readback2DInto(out, uint64(pitch), uint64(rowBytes), int(height)); err != nil {
			return &statusError{stRange, err}
		}
		return nil
	})
}

//export gfxcuda_texture_new
func gfxcuda_texture_new(dev C.uint64_t, dim C.int, w, h, depth, slices C.uint32_t, f C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		return newTexture("gfxcuda_texture_new", dev, dim, w, h, depth, slices, f, 0, 0, 0, out) // placed.go
	})
}

//export gfxcuda_sampler_new
func gfxcuda_sampler_new(dev C.uint64_t, addrU, addrV, addrW, filterMin, filterMag C.int, out *C.uint64_t) C.int {
	return call(func() error {
		d, err := get[*compute.Device](uint64(dev), "device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_sampler_new: null output")
		}
		if addrU != addrV || addrU != addrW {
			return errorf(stUnsupported, "gfxcuda: samplers take one address mode for u, v and w (got %d, %d, %d)", addrU, addrV, addrW)
		}
		if filterMin != filterMag {
			return errorf(stUnsupported, "gfxcuda: samplers take one filter for minification and magnification (got %d, %d)", filterMin, filterMag)
		}
		modes := []compute.AddressMode{compute.AddressWrap, compute.AddressMirror, compute.AddressClamp, compute.AddressBorder}
		if addrU < 0 || int(addrU) >= len(modes) {
			return errorf(stInvalid, "gfxcuda: address mode %d", addrU)
		}
		filters := []compute.Filter{compute.FilterPoint, compute.FilterLinear}
		if filterMin < 0 || int(filterMin) >= len(filters) {
			return errorf(stInvalid, "gfxcuda: filter %d", filterMin)
		}
		s, err := d.Sampler(filters[filterMin], modes[addrU])
		if err != nil {
			return err
		}
		return store(out, s, s.Close, uint64(dev))
	})
}

//export gfxcuda_resource_info
func gfxcuda_resource_info(h C.uint64_t, out *C.gfxcuda_resource_info_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_resource_info: null output")
		}
		handles.Lock()
		e, ok := handles.m[uint64(h)]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
		}
		*out = C.gfxcuda_resource_info_t{cuda_device: -1}
		switch o := e.obj.(type) {
		case *compute.Device:
			out.kind = kindDevice
		case *buffer:
			out.kind, out.size, out.heap = kindBuffer, C.uint64_t(o.Size()), C.uint32_t(o.Heap())
			out.stride, out.format = C.uint32_t(o.Stride()), C.uint32_t(o.Format())
		case *texture:
			out.kind, out.size, out.row_pitch = kindTexture, C.uint64_t(o.Size()), C.uint64_t(o.RowPitch())
			out.format = C.uint32_t(o.Format())
			out.width, out.height, out.depth, out.slices = C.uint32_t(o.Width()), C.uint32_t(o.Height()), C.uint32_t(o.Depth()), C.uint32_t(o.slices)
			out.bytes_per_texel = C.uint32_t(o.Format().Info().BytesPerTexel)
		case *compute.Sampler:
			out.kind = kindSampler
		case *kernel:
			out.kind = kindKernel
		default:
			return cudaInfo(e.obj, out)
		}
		return nil
	})
}

// copyArgs reads a copy's region (zero when r is nil) and looks up its
// source and destination handles; fn names the C function for errors.
func copyArgs(src, dst C.uint64_t, r *C.gfxcuda_copy_region_t, fn string) (C.gfxcuda_copy_region_t, *entry, *entry, error) {
	var reg C.gfxcuda_copy_region_t
	if r != nil {
		reg = *r
	}
	handles.Lock()
	se, ok1 := handles.m[uint64(src)]
	de, ok2 := handles.m[uint64(dst)]
	handles.Unlock()
	if !ok1 || !ok2 {
		return reg, nil, nil, errorf(stBadHandle, "%s: %d or %d is not a live handle", fn, src, dst)
	}
	return reg, se, de, nil
}

//export gfxcuda_copy
func gfxcuda_copy(src, dst C.uint64_t, r *C.gfxcuda_copy_region_t) C.int {
	return call(func() error {
		reg, se, de, err := copyArgs(src, dst, r, "gfxcuda_copy")
		if err != nil {
			return err
		}
		var devH uint64
		var s, d compute.Resource
		switch o := se.obj.(type) {
		case *buffer:
			devH, s = o.dev, o.Buffer
		case *texture:
			devH, s = o.dev, o.Texture
		default:
			return errorf(stInvalid, "gfxcuda: cannot copy from a %s", kindName(se.obj))
		}
		switch o := de.obj.(type) {
		case *buffer:
			d = o.Buffer
		case *texture:
			d = o.Texture
		default:
			return errorf(stInvalid, "gfxcuda: cannot copy a %s into a %s", kindName(se.obj), kindName(de.obj))
		}
		dev, err := get[*compute.Device](devH, "device")
		if err != nil {
			return err
		}
		return copyStatus(dev.Copy(d, s, copyRegion(reg)))
	})
}

// Shader languages (gfxcuda_language in gfxcuda.h).
const (
	langHLSL = 0
	langGLSL = 1
	langWGSL = 2
)

//export gfxcuda_shader_compile
func gfxcuda_shader_compile(src *C.char, n C.size_t, lang C.int, entry *C.char, out *unsafe.Pointer, outLen *C.size_t) C.int {
	return call(func() error {
		code, err := hostBytes(unsafe.Pointer(src), uint64(n))
		if err != nil {
			return err
		}
		o := shader.Options{}
		switch lang {
		case langHLSL:
			o.Language, o.Filename = shader.HLSL, "shader.hlsl"
		case langGLSL:
			// compushady's GLSL is naga's: accept what it accepts.
			o.Language, o.Filename, o.NagaGLSL = shader.GLSL, "shader.comp", true
		case langWGSL:
			o.Language, o.Filename = shader.WGSL, "shader.wgsl"
		default:
			return errorf(stInvalid, "gfxcuda: shader language %d (0: HLSL, 1: GLSL, 2: WGSL)", lang)
		}
		if entry != nil {
			o.EntryPoint = C.GoString(entry)
		}
		m, err := shader.Compile(append([]byte(nil), code...), o)
		if err != nil {
			return err
		}
		return cBytes(m.SPIRV, out, outLen)
	})
}

type kernel struct {
	k    *compute.Kernel
	args []compute.Arg
	dev  uint64
	// bl holds the arguments of a bindless pipeline (placed.go), which
	// gfxcuda_compute_bind replaces; nil otherwise.
	bl *compute.Bindless
	// given is how many entries each list (cbv, srv, uav, samplers) had,
	// for the message of a dispatch with resources left unbound.
	given [4]int
}

// unboundError is a dispatch's failure over resources the lists left
// unbound, told in the lists' words (uav[0], register u0) rather than the
// module's binding numbers; it wraps the dispatch's error.
type unboundError struct {
	msg string
	err error
}

func (e *unboundError) Error() string { return e.msg }
func (e *unboundError) Unwrap() error { return e.err }

// dispatchError returns err, a dispatch's error, as GFXCUDA_ERR_INVALID in
// the lists' words when the lists left resources of the shader unbound.
func (kk *kernel) dispatchError(err error) error {
	if err == nil || kk.bl != nil {
		return err
	}
	if msg := kk.k.Unbound(kk.args, kk.given); msg != "" {
		return &statusError{stInvalid, &unboundError{"gfxcuda: " + msg, err}}
	}
	return err
}

// dispatchArgs returns the kernel's arguments.
func (kk *kernel) dispatchArgs() []compute.Arg {
	if kk.bl != nil {
		return kk.bl.Args()
	}
	return kk.args
}

//export gfxcuda_compute_new
func gfxcuda_compute_new(dev C.uint64_t, spirv unsafe.Pointer, n C.size_t,
	cbv *C.uint64_t, ncbv C.size_t, srv *C.uint64_t, nsrv C.size_t,
	uav *C.uint64_t, nuav C.size_t, samplers *C.uint64_t, nsamplers C.size_t, out *C.uint64_t) C.int {
	return call(func() error {
		return newCompute("gfxcuda_compute_new", dev, spirv, n, [4]handleList{{cbv, ncbv}, {srv, nsrv}, {uav, nuav}, {samplers, nsamplers}}, nil, out)
	})
}

//export gfxcuda_compute_new_constants
func gfxcuda_compute_new_constants(dev C.uint64_t, spirv unsafe.Pointer, n C.size_t,
	cbv *C.uint64_t, ncbv C.size_t, srv *C.uint64_t, nsrv C.size_t,
	uav *C.uint64_t, nuav C.size_t, samplers *C.uint64_t, nsamplers C.size_t,
	names **C.char, values *C.double, nconsts C.size_t, out *C.uint64_t) C.int {
	return call(func() error {
		var consts map[string]float64
		if nconsts > 0 {
			if names == nil || values == nil {
				return errorf(stInvalid, "gfxcuda_compute_new_constants: null names or values for %d constants", nconsts)
			}
			consts = map[string]float64{}
			ns := unsafe.Slice(names, int(nconsts))
			vs := unsafe.Slice(values, int(nconsts))
			for i := range ns {
				if ns[i] == nil {
					return errorf(stInvalid, "gfxcuda_compute_new_constants: constant %d has a null name", i)
				}
				name := C.GoString(ns[i])
				if _, dup := consts[name]; dup {
					return errorf(stInvalid, "gfxcuda: constant %q given twice", name)
				}
				consts[name] = float64(vs[i])
			}
		}
		return newCompute("gfxcuda_compute_new_constants", dev, spirv, n, [4]handleList{{cbv, ncbv}, {srv, nsrv}, {uav, nuav}, {samplers, nsamplers}}, consts, out)
	})
}

// newCompute makes the kernel of gfxcuda_compute_new (fn names the C
// function for messages) with its specialization constants set.
func newCompute(fn string, dev C.uint64_t, spirv unsafe.Pointer, n C.size_t, ls [4]handleList, consts map[string]float64, out *C.uint64_t) error {
	d, err := get[*compute.Device](uint64(dev), "device")
	if err != nil {
		return err
	}
	if out == nil {
		return errorf(stInvalid, "%s: null output", fn)
	}
	code, err := hostBytes(spirv, uint64(n))
	if err != nil {
		return err
	}
	var hs [4][]uint64
	for i, l := range ls {
		if hs[i], err = l.handles(fn); err != nil {
			return err
		}
	}
	m, err := shader.Compile(append([]byte(nil), code...), shader.Options{Language: shader.SPIRV})
	if err != nil {
		return err
	}
	if _, err := compute.SpecValues(m, consts); err != nil {
		// In the Python API's words: Compute(constants=...).
		return errorf(stInvalid, "%s", strings.ReplaceAll(err.Error(), "KernelOptions.Constants", "Compute(constants={...})"))
	}
	k, err := d.KernelWith(m, compute.KernelOptions{Constants: consts})
	if err != nil {
		return err
	}
	l, deps, err := listResources(hs)
	if err != nil {
		k.Close()
		return err
	}
	args, err := k.BindLists(l)
	if err != nil {
		k.Close()
		return &statusError{stInvalid, err}
	}
	given := [4]int{len(hs[0]), len(hs[1]), len(hs[2]), len(hs[3])}
	return store(out, &kernel{k: k, args: args, dev: uint64(dev), given: given}, k.Close, append(deps, uint64(dev))...)
}

//export gfxcuda_compute_dispatch
func gfxcuda_compute_dispatch(k C.uint64_t, x, y, z C.uint32_t, push unsafe.Pointer, npush C.size_t) C.int {
	return call(func() error {
		kk, err := get[*kernel](uint64(k), "compute pipeline")
		if err != nil {
			return err
		}
		args := kk.dispatchArgs()
		if npush > 0 {
			p, err := hostBytes(push, uint64(npush))
			if err != nil {
				return err
			}
			args = append(append([]compute.Arg(nil), args...), compute.Push(append([]byte(nil), p...)))
		}
		return kk.dispatchError(kk.k.Dispatch(uint32(x), uint32(y), uint32(z), args...))
	})
}

type formatJSON struct {
	Value    uint32 `json:"value"`
	Name     string `json:"name"`
	VkName   string `json:"vk_name"`
	Bytes    int    `json:"bytes_per_texel"`
	Channels int    `json:"channels"`
	Code     uint8  `json:"dl_code"`
	Bits     uint8  `json:"dl_bits"`
	Lanes    int    `json:"lanes"`
	CUDA     bool   `json:"cuda_array"`
}

//export gfxcuda_formats_json
func gfxcuda_formats_json(out *unsafe.Pointer, n *C.size_t) C.int {
	return call(func() error {
		var list []formatJSON
		for _, in := range format.All() {
			list = append(list, formatJSON{uint32(in.Format), in.Name, in.VkName, in.BytesPerTexel, in.Channels,
				in.DType.Code, in.DType.Bits, in.DTypeLanes, in.CUDAArrayCapable()})
		}
		b, _ := json.Marshal(list)
		return cBytes(b, out, n)
	})
}
