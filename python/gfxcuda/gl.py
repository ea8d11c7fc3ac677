"""Frames from your own OpenGL renderer: its textures, renderbuffers and
framebuffers, as compute-shader textures and CUDA tensors, without a trip
through host memory.

Call these on the thread where the renderer's context is current (EGL:
pyrender, MuJoCo, moderngl standalone, PyOpenGL; the context needs GL 4.5
or ARB_direct_state_access, as Mesa and NVIDIA give)::

    import gfxcuda.gl
    src = gfxcuda.gl.texture(tex_name)      # or renderbuffer(name), framebuffer(fbo)
    t = src.to_tensor()                     # (H, W, 4) uint8 on CUDA, top row first
    x = torch.from_dlpack(t)
    view = src.compute_view()               # a gfxcuda Texture2D for compute shaders

Size and format are asked from GL; each call copies the object's current
contents on the GPU (multisampled ones resolved) into memory gfxcuda shares
with Vulkan and CUDA: made once per object, reused for every frame.
Nothing of the renderer's changes (no binding, no object). See
docs/opengl.md for each renderer."""

import ctypes

from . import _check, _lib, errors, formats

__all__ = ["Source", "texture", "renderbuffer", "framebuffer", "to_tensors", "cuda_device", "egl_device_index"]

_KIND_TEXTURE, _KIND_RENDERBUFFER, _KIND_FRAMEBUFFER = 1, 2, 3
GL_COLOR_ATTACHMENT0 = 0x8CE0
GL_DEPTH_ATTACHMENT = 0x8D00
GL_RENDERBUFFER = 0x8D41


def _context():
    """A new handle of the GL context current on this thread (adopted)."""
    return _lib.new_handle("gfxcuda_gl_adopt")


def _source(kind, name, attachment, what):
    ctx = _context()
    try:
        h = _lib.new_handle("gfxcuda_gl_source", ctx, kind, name, attachment)
    finally:
        _lib.lib.gfxcuda_release(ctx)  # the source holds the context
    return Source(h, what)


def texture(name, target=None):
    """The texture `name` (an int, as the renderer's glGenTextures gave it)
    of the GL context current on this thread: level 0 of a 2D, rectangle,
    array (layer 0) or multisampled 2D texture. target, when given (e.g.
    GL_TEXTURE_2D, 0x0DE1), must be the texture's. Returns a Source.
    Raises gfxcuda.InvalidArgumentError (a ValueError) naming the object
    when no context is current, name is not a texture of it, or its format
    or target cannot be copied; gfxcuda.ArgumentTypeError for a name that
    is not an int."""
    name = _check.integer(name, "gfxcuda.gl.texture", "name", 1, _check.U32, what="a GL texture name")
    s = _source(_KIND_TEXTURE, name, 0, "texture %d" % name)
    if target is not None:
        target = _check.integer(target, "gfxcuda.gl.texture", "target", 0, _check.U32, what="a GL texture target")
        if target != s.target:
            s.release()
            raise errors.InvalidArgumentError("gfxcuda: gfxcuda.gl.texture(%d, target=0x%x): the texture's target is "
                                              "0x%x" % (name, target, s.target))
    return s


def renderbuffer(name):
    """The renderbuffer `name` of the GL context current on this thread.
    Returns a Source; raises as texture()."""
    name = _check.integer(name, "gfxcuda.gl.renderbuffer", "name", 1, _check.U32, what="a GL renderbuffer name")
    return _source(_KIND_RENDERBUFFER, name, 0, "renderbuffer %d" % name)


def framebuffer(name=None, attachment="color", index=0):
    """What a framebuffer of the GL context current on this thread has
    attached: name None, the framebuffer bound for reading now; an int, that
    framebuffer object. attachment "color" (index: which color attachment)
    or "depth" (depth as float32 in [0, 1]: compute_view gives an
    R32_FLOAT texture, to_tensor a float32 tensor with one channel).
    The texture or renderbuffer attached is looked up now: a renderer that
    attaches another one later needs a new Source. Returns a Source;
    raises as texture(), and for an attachment with nothing attached."""
    if name is None:
        n = -1
    else:
        n = _check.integer(name, "gfxcuda.gl.framebuffer", "name", 0, _check.U32, what="a GL framebuffer name")
    fb = "bound for reading" if n < 0 else n
    if attachment == "depth":
        return _source(_KIND_FRAMEBUFFER, n, GL_DEPTH_ATTACHMENT, "framebuffer %s, depth attachment" % fb)
    if attachment != "color":
        raise errors.InvalidArgumentError("gfxcuda: gfxcuda.gl.framebuffer(attachment=%r): use 'color' or 'depth'"
                                          % (attachment,))
    index = _check.integer(index, "gfxcuda.gl.framebuffer", "index", 0, 31, what="a color attachment index")
    return _source(_KIND_FRAMEBUFFER, n, GL_COLOR_ATTACHMENT0 + index, "framebuffer %s, color attachment %d" % (fb, index))


def cuda_device():
    """The CUDA ordinal of the GPU the GL context current on this thread
    runs on (its GL device UUID matched against CUDA's devices): pass it as
    device= to to_tensor. Raises gfxcuda.InvalidArgumentError naming both
    GPUs when CUDA does not see the context's GPU (another GPU, or one
    CUDA_VISIBLE_DEVICES hides), gfxcuda.NoCUDAError without CUDA."""
    ctx = _context()
    try:
        n = ctypes.c_int()
        _lib.call("gfxcuda_gl_cuda_device", ctx, ctypes.byref(n))
        return n.value
    finally:
        _lib.lib.gfxcuda_release(ctx)


def egl_device_index(cuda_device=None):
    """The index among EGL's devices (eglQueryDevicesEXT's order) of CUDA
    device cuda_device's GPU (None: torch's current device when torch is
    imported, else 0): what MUJOCO_EGL_DEVICE_ID and PyOpenGL's EGL device
    selection take, so that the renderer draws on the GPU your tensors live
    on. Raises gfxcuda.InvalidArgumentError naming EGL's devices when none
    is that GPU, gfxcuda.NoCUDAError without CUDA."""
    if cuda_device is None:
        import sys
        torch = sys.modules.get("torch")
        cuda_device = 0
        if torch is not None:
            try:
                if torch.cuda.is_available():
                    cuda_device = torch.cuda.current_device()
            except Exception:
                pass
    cuda_device = _check.integer(cuda_device, "gfxcuda.gl.egl_device_index", "cuda_device", 0, 0x7FFFFFFF,
                                 what="a CUDA device ordinal")
    n = ctypes.c_int()
    _lib.call("gfxcuda_gl_egl_device_index", cuda_device, ctypes.byref(n))
    return n.value


def to_tensors(sources, dtype=None, layout="hwc", flip_y=True, mean=None, std=None, out=None, stream=None,
               channels=4, device=0):
    """Source.to_tensor of many sources at once (of one context, size and
    format: a renderer's cameras or environments), into one tensor of shape
    (N, H, W, C) ("hwc") or (N, C, H, W) ("chw"), with one GL-to-CUDA
    synchronization for them all. Arguments as Source.to_tensor's. Returns
    the tensor (out, or a new CudaBuffer)."""
    try:
        sources = list(sources)
    except TypeError:
        raise errors.ArgumentTypeError("gfxcuda: gfxcuda.gl.to_tensors(sources=...): expected a list of "
                                       "gfxcuda.gl.Source, got %s" % _check.kind(sources)) from None
    if not sources:
        raise errors.InvalidArgumentError("gfxcuda: gfxcuda.gl.to_tensors: no sources")
    for i, s in enumerate(sources):
        if not isinstance(s, Source):
            raise errors.ArgumentTypeError("gfxcuda: gfxcuda.gl.to_tensors: sources[%d] is %s; expected a "
                                           "gfxcuda.gl.Source" % (i, _check.kind(s)))
    return _to_tensors(sources, "gfxcuda.gl.to_tensors", True, dtype, layout, flip_y, mean, std, out, stream,
                       channels, device)


# Whether the library's GL-written tensors (gfxcuda_gl_write_tensors) are
# to be tried: off for good once it says it cannot here (GFXCUDA_GL_WRITE=0,
# a GL without GL_EXT_memory_object_fd); per call for a depth source.
_gl_write_on = True


# to_torch's per-frame path: the C call, ctypes' helpers and the capsule's
# constructor bound once (_fast_torch), and torch's current stream's raw
# handle by device ordinal (torch._C._cuda_getCurrentRawStream where torch
# has it, after torch's CUDA is initialized; None: the public path).
_c_void_p, _byref = ctypes.c_void_p, ctypes.byref
_write_dlpack = _capsule_new = _destructor = _raw_stream = None


def _fast_torch(torch):
    global _write_dlpack, _capsule_new, _destructor, _raw_stream
    if _capsule_new is None:
        from ._cuda import _capsule_new as new, _destructor as d
        _write_dlpack, _capsule_new, _destructor = _lib.lib.gfxcuda_gl_write_dlpack, new, d
    if _raw_stream is None:
        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _gl_write_refused(st, what):
    """After a GL-written tensor's call failed with status st: returns when
    the library cannot write it (unsupported: off for good unless it was
    for a depth source; the caller falls back to CUDA's converter), raises
    any other error."""
    global _gl_write_on
    if errors.BY_STATUS.get(st) is errors.UnsupportedError:
        if b"depth" not in _lib.lib.gfxcuda_last_error():
            _gl_write_on = False
        return
    _lib.raise_status(what, st)


def _gl_write(handles, n, dev, lay, need, shape, dtype, device, stream):
    """A CudaBuffer of n frames that GL converted itself into memory CUDA
    shares, complete already (no CUDA work queued for it: the first CUDA
    work after a GL frame waits for the GPU to switch contexts, and this
    leaves that to the caller's own first kernel), or None when the library
    cannot (then the CUDA converter writes the tensor, as before)."""
    if not _gl_write_on:
        return None
    from . import _cuda
    h = ctypes.c_uint64()
    st = _lib.lib.gfxcuda_gl_write_tensors(handles, n, dev, lay, need, ctypes.byref(h))
    if st:
        _gl_write_refused(st, "gfxcuda_gl_write_tensors")
        return None
    return _cuda.CudaBuffer._from_handle_cached(h.value, shape, dtype, device, stream)


def _to_tensors(sources, where, batch, dtype, layout, flip_y, mean, std, out, stream, channels, device, plans=None,
                key=None):
    from . import _cuda
    lay, shape, need, dtype = _plan(sources, where, batch, dtype, layout, flip_y, mean, std, channels)
    st = _cuda._stream_int(stream, where)
    handles = (ctypes.c_uint64 * len(sources))(*[s.handle for s in sources])
    if out is None:
        device = _check.device(device, where)
        dev = _cuda._shared_device(device, where)
        written = _gl_write(handles, len(sources), dev, lay, need, shape, dtype, device, st)
        if written is not None:
            if plans is not None:
                if len(plans) >= 16:
                    plans.clear()
                plans[key] = (lay, shape, need, dev, dtype)
            return written
        # Per-frame memory: from the device's cache (reused once the
        # streams that used it pass), not cuMemAlloc/cuMemFree each call.
        out = _cuda.CudaBuffer._from_cache(shape, dtype, device, st, need)
        ptr, size = out.ptr, need
    else:
        ptr, size = _cuda_pointer(out, where, need)
        dev = _cuda._shared_device(device, where)
    _lib.call("gfxcuda_gl_to_tensors", handles, len(sources), dev, ctypes.byref(lay), ptr, size, st)
    if plans is not None:  # it worked: the next call with these arguments takes the short path
        if len(plans) >= 16:
            plans.clear()
        plans[key] = (lay, shape, need, dev, dtype)
    return out


def _plan(sources, where, batch, dtype, layout, flip_y, mean, std, channels):
    """What a conversion's arguments decide, checked: (the C layout, the
    tensor's shape, its bytes, its dtype's name)."""
    from . import _cuda
    if layout not in ("hwc", "chw"):
        raise errors.InvalidArgumentError("gfxcuda: %s(layout=%r): use 'hwc' or 'chw'" % (where, layout))
    s0 = sources[0]
    if s0.depth:
        # Depth: float32 in [0, 1], one channel; the library checks the
        # rest (the same size and kind for every source).
        if dtype is None:
            dtype = "float32"
        if str(dtype).replace("torch.", "") not in ("float32", "<f4", "f4", "float"):
            raise errors.InvalidArgumentError("gfxcuda: %s(dtype=%r): %r is depth, read as float32 in [0, 1]; "
                                              "pass dtype='float32' (or leave it out)" % (where, dtype, s0))
        if mean is not None or std is not None:
            raise errors.InvalidArgumentError("gfxcuda: %s: %r is depth: mean and std apply to colour channels only"
                                              % (where, s0))
        dtype = "float32"
        lay, _ = _cuda._tensor_layout(where, dtype, layout == "chw", 4, flip_y, None, None)
        channels = 1
    else:
        if dtype is None:
            dtype = "uint8"
        channels = _check.integer(channels, where, "channels", 3, 4, what="3 or 4")
        lay, _ = _cuda._tensor_layout(where, dtype, layout == "chw", channels, flip_y, mean, std)
    shape, need = _tensor_shape(s0, lay, len(sources) if batch else 0)
    return lay, shape, need, dtype


class Source:
    """An object of your renderer's GL context that frames are copied from
    (made by gfxcuda.gl.texture, renderbuffer or framebuffer). Attributes:
    width, height, samples (0: not multisampled), internal_format (GL's),
    format (a gfxcuda.formats value: what frames are copied into; R32_FLOAT
    for depth), depth (a bool: a depth or depth-stencil object, read as
    float32 in [0, 1]), name, target, renderbuffer (a bool)."""

    def __init__(self, handle, what="GL source"):
        self._h = _lib.Handle(handle)
        info = _lib.GLSourceInfo()
        _lib.call("gfxcuda_gl_source_info", handle, ctypes.byref(info))
        self.width, self.height, self.samples = info.width, info.height, info.samples
        self.internal_format, self.format, self.name = info.internal_format, info.format, info.name
        self.target, self.renderbuffer = info.target, bool(info.renderbuffer)
        self.depth = info.format == formats.R32_FLOAT
        self._what = what
        self._plans = {}  # to_tensor's arguments -> what they decide (to_tensor)
        self._one = (ctypes.c_uint64 * 1)(handle)

    @property
    def handle(self):
        """The library's handle (an int), for gfxcuda's C API."""
        return self._h.handle

    @property
    def shape(self):
        """(height, width)."""
        return (self.height, self.width)

    def release(self):
        """Frees what gfxcuda made for this source (views; on the context's
        thread). Idempotent."""
        self._h.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        return "<gfxcuda.gl.Source %s: %dx%d, %s%s>" % (self._what, self.width, self.height,
                                                       formats.name(self.format),
                                                       ", %d samples" % self.samples if self.samples else "")

    def compute_view(self, device=None):
        """Copies the object's current contents into a Texture2D of compute
        device `device` (None: gfxcuda's current one) and returns it, for
        Compute pipelines and copies: the same texture on every call (made
        on the first), so bind it once. No CUDA involved (GL imports the
        texture's Vulkan memory: NVIDIA, Mesa's llvmpipe/lavapipe). Vulkan
        work that reads the texture must have finished before the next
        call (compushady's dispatch and copies wait)."""
        from . import _compute
        dev = _compute._device(device, "Source.compute_view")
        h = _lib.new_handle("gfxcuda_gl_compute_view", self.handle, dev.handle)
        return _compute._view(_compute.Texture2D, h, dev, self.format)

    def to_tensor(self, dtype=None, layout="hwc", flip_y=True, mean=None, std=None, out=None, stream=None,
                  channels=4, device=0, tiles=None):
        """Copies the object's current contents into a CUDA tensor and
        returns it: shape (H, W, C) for layout "hwc", (C, H, W) for "chw";
        dtype uint8 (None: uint8; depth: float32), float16 or float32
        (8-bit sources read as v / 255 for floats); a depth source (depth
        attribute) gives float32 depth in [0, 1], GL's values, with C = 1
        and no mean or std; channels 4 (RGBA) or 3 (RGB); mean and std per channel
        ((v - mean) / std, floats only); flip_y puts the top row first (GL's
        first row is the bottom). out: where to write (a gfxcuda.CudaBuffer
        or SharedBuffer, or any C-contiguous CUDA array with
        __cuda_array_interface__, such as a torch tensor, of at least the
        bytes needed); None makes a CudaBuffer (it has __dlpack__ and
        __cuda_array_interface__). Queued on stream (None: the legacy
        default stream; a torch/CuPy stream or a cudaStream_t; use one
        stream per source); device, the CUDA device (the renderer's GPU).
        The first call makes the source's CUDA view; later ones copy and
        convert only. tiles=(cols, rows) or (cols, rows, n): the frame is
        an atlas of cols x rows tiles of equal size, row by row from its
        first row and column (a tiled renderer's environments), and the
        tensor holds its first n tiles (all by default): shape (n, H, W, C)
        or (n, C, H, W) of a tile's size, flip_y flipping each tile; GL
        writes it (colour sources; no out=), and stream is then the one
        that will read it (its memory is reused once that stream and the
        legacy default one pass the work queued when it is dropped).
        Raises gfxcuda.InvalidArgumentError for a layout, dtype, out or
        tiles that does not fit; gfxcuda.NoCUDAError without CUDA."""
        if tiles is not None:
            return self._write_tiles("Source.to_tensor", tiles, dtype, layout, flip_y, mean, std, out, stream,
                                     channels, device, None)
        # Per frame, the arguments are those of the last call: what they
        # decide (the C layout, the shape, the bytes, the device's handle,
        # the output's dtype) is kept, keyed by them.
        try:
            key = (dtype, layout, bool(flip_y), channels, device, None if mean is None else tuple(mean),
                   None if std is None else tuple(std))
            plan = self._plans.get(key)
        except TypeError:  # unhashable arguments: the checking path
            key, plan = None, None
        if plan is None or _lib._forked:
            return _to_tensors([self], "Source.to_tensor", False, dtype, layout, flip_y, mean, std, out, stream,
                               channels, device, self._plans if key is not None else None, key)
        lay, shape, need, dev, out_dtype = plan
        if stream is not None:
            from ._cuda import _stream_int
            stream = _stream_int(stream, "Source.to_tensor")
        if out is None:
            written = _gl_write(self._one, 1, dev, lay, need, shape, out_dtype, device, stream or 0)
            if written is not None:
                return written
            from ._cuda import CudaBuffer
            out = CudaBuffer._from_cache(shape, out_dtype, device, stream or 0, need)
            ptr = out.ptr
        elif getattr(out, "is_cuda", False) and hasattr(out, "data_ptr"):  # a torch tensor: no interface dict to build
            if not out.is_contiguous() or out.numel() * out.element_size() < need:
                _cuda_pointer(out, "Source.to_tensor", need)  # raises, saying why
            ptr = out.data_ptr()
        else:
            ptr, need = _cuda_pointer(out, "Source.to_tensor", need)
        st = _lib.lib.gfxcuda_gl_to_tensors(self._one, 1, dev, lay, ptr, need, stream or 0)
        if st:
            _lib.raise_status("gfxcuda_gl_to_tensor", st)
        return out

    def to_torch(self, dtype=None, layout="hwc", flip_y=True, mean=None, std=None, stream=None, channels=4,
                 device=0, tiles=None):
        """Source.to_tensor into a new torch tensor on CUDA device
        `device`, which it returns, complete for any stream: GL's compute
        shaders convert the frame into memory GL and CUDA share and the
        call waits for GL on the host, so no CUDA work is queued at all
        (the first CUDA work after a GL frame waits for the GPU to switch
        contexts: this leaves that to your own first kernel). The memory
        comes from gfxcuda's pool, not torch's allocator: once the tensor
        is freed it is reused after stream (None: torch's current stream of
        that device; the legacy default stream always) has passed the work
        queued on it by then, so read it on that stream or synchronize.
        Where GL cannot write it (a depth source; a GL without
        GL_EXT_memory_object_fd; GFXCUDA_GL_WRITE=0), the tensor is
        torch.empty's, written by CUDA on stream. The fastest per-frame
        call for torch users (BENCHMARKS.md). Other arguments as
        Source.to_tensor's."""
        from ._torch import _torch, _torch_stream
        torch = _torch()
        if tiles is not None:
            return self._write_tiles("Source.to_torch", tiles, dtype, layout, flip_y, mean, std, None, stream,
                                     channels, device, torch)
        try:
            key = (dtype, layout, bool(flip_y), channels, device, None if mean is None else tuple(mean),
                   None if std is None else tuple(std))
            plan = self._plans.get(key)
        except TypeError:
            key, plan = None, None
        if plan is None or _lib._forked:
            from . import _cuda
            lay, shape, need, name = _plan([self], "Source.to_torch", False, dtype, layout, flip_y, mean, std,
                                           channels)
            device = _check.device(device, "Source.to_torch")
            dev = _cuda._shared_device(device, "Source.to_torch")
        else:
            lay, shape, need, dev, name = plan
            if _gl_write_on and stream is None and _raw_stream is not None:
                # The per-frame path: torch's current stream's raw handle
                # (torch.cuda.current_stream makes a Stream object per call).
                m = _c_void_p()
                st = _write_dlpack(self._one, 1, 0, dev, lay, _raw_stream(device), 0, _byref(m))
                if not st:
                    return torch.from_dlpack(_capsule_new(m, b"dltensor", _destructor))
                _gl_write_refused(st, "gfxcuda_gl_write_dlpack")
        ts = _torch_stream(torch, stream, torch.device("cuda", device))
        if _gl_write_on:
            # GL converts into memory CUDA shares, complete on return; the
            # tensor is a DLPack capsule of it (no CUDA work queued at all).
            _fast_torch(torch)
            m = _c_void_p()
            st = _write_dlpack(self._one, 1, 0, dev, lay, ts.cuda_stream, 0, _byref(m))
            if not st:
                out = torch.from_dlpack(_capsule_new(m, b"dltensor", _destructor))
                if plan is None and key is not None:
                    if len(self._plans) >= 16:
                        self._plans.clear()
                    self._plans[key] = (lay, shape, need, dev, name)
                return out
            _gl_write_refused(st, "gfxcuda_gl_write_dlpack")
        # The converter's dtypes (DLPack code, bits): uint8, float16, float32.
        tdtype = {(1, 8): torch.uint8, (2, 16): torch.float16, (2, 32): torch.float32}[(lay.dtype_code, lay.dtype_bits)]
        if stream is None:  # ts is the device's current stream: torch.empty allocates for it
            out = torch.empty(shape, dtype=tdtype, device=ts.device)
        else:
            with torch.cuda.stream(ts):
                out = torch.empty(shape, dtype=tdtype, device=ts.device)
        st = _lib.lib.gfxcuda_gl_to_tensors(self._one, 1, dev, lay, out.data_ptr(), need, ts.cuda_stream)
        if st:
            _lib.raise_status("gfxcuda_gl_to_tensor", st)
        if plan is None and key is not None:  # it worked: the next call takes the short path
            if len(self._plans) >= 16:
                self._plans.clear()
            self._plans[key] = (lay, shape, need, dev, name)
        return out

    def _tiles(self, tiles, where):
        """(cols, rows, n) of a tiles argument, checked against the frame's
        size."""
        return _check.tiles(tiles, where, self.width, self.height,
                            "the %dx%d frame of %r" % (self.width, self.height, self))

    def _write_tiles(self, where, tiles, dtype, layout, flip_y, mean, std, out, stream, channels, device, torch):
        """to_tensor's and to_torch's tiles=: GL writes the first n tiles
        of the frame into memory CUDA shares (gfxcuda_gl_write_tiles_dlpack);
        a torch tensor when torch is given, else a CudaBuffer."""
        from . import _cuda
        if out is not None:
            raise errors.InvalidArgumentError("gfxcuda: %s(tiles=...): GL writes a new tensor of the tiles; leave out= "
                                              "unset" % where)
        cols, rows, n = self._tiles(tiles, where)
        lay, _, _, _ = _plan([self], where, False, dtype, layout, flip_y, mean, std, channels)
        device = _check.device(device, where)
        dev = _cuda._shared_device(device, where)
        if torch is not None:
            from ._torch import _torch_stream
            st = _torch_stream(torch, stream, torch.device("cuda", device)).cuda_stream
        else:
            st = _cuda._stream_int(stream, where)
        versioned = 0 if torch is not None else 1
        m = ctypes.c_void_p()
        _lib.call("gfxcuda_gl_write_tiles_dlpack", self.handle, dev, ctypes.byref(lay), cols, rows, n, st, versioned,
                  ctypes.byref(m))
        if torch is not None:
            _fast_torch(torch)
            return torch.from_dlpack(_capsule_new(m, b"dltensor", _destructor))
        return _cuda._array_from_managed(m.value)

    def copy_to(self, dst, stream=None, device=0):
        """Copies the frame into dst, a CUDA array of shape (H, W, 4) and
        dtype uint8 (8-bit sources), float16 or float32, rows as GL stores
        them (bottom first): Gfx2Cuda's copy_to. Returns dst."""
        dtype = getattr(dst, "dtype", None)
        name = str(dtype).replace("torch.", "")
        return self.to_tensor(dtype=name, layout="hwc", flip_y=False, out=dst, stream=stream, device=device)


def _tensor_shape(source, lay, n):
    """(shape, bytes) of the tensor gfxcuda_gl_to_tensors writes of n
    sources like source under the C layout lay (n 0: one source, without
    the N dimension), as the library computes them."""
    shape, ndim, nbytes = (ctypes.c_int64 * 4)(), ctypes.c_int32(), ctypes.c_uint64()
    _lib.call("gfxcuda_gl_tensor_shape", source.handle, ctypes.byref(lay), n, shape, ctypes.byref(ndim),
              ctypes.byref(nbytes))
    return tuple(shape[:ndim.value]), nbytes.value


def _cuda_pointer(obj, where, need):
    """(pointer, bytes) of a C-contiguous CUDA array of at least need bytes."""
    ptr = getattr(obj, "ptr", None)
    nbytes = getattr(obj, "nbytes", None)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        from ._cuda import _dtype_of
        ptr = cai["data"][0]
        shape = tuple(cai["shape"])
        try:
            code, bits, itemsize = _dtype_of(cai["typestr"])
        except (errors.GfxcudaError, TypeError, ValueError):
            raise errors.ArgumentTypeError("gfxcuda: %s(out=...): out's __cuda_array_interface__ has typestr %r"
                                           % (where, cai.get("typestr"))) from None
        strides = cai.get("strides")
        # Bytes and contiguity as the library computes them (strides in
        # bytes that are not whole elements are not C-contiguous).
        whole = strides is None or all(st % itemsize == 0 for st in strides)
        info = _lib.info_of(shape, code, bits, None if strides is None or not whole else
                            [st // itemsize for st in strides])
        nbytes = info.nbytes
        if (not whole or not info.contiguous) and nbytes:
            raise errors.InvalidArgumentError("gfxcuda: %s(out=...): out is not C-contiguous (strides %s)"
                                              % (where, tuple(strides)))
    if not isinstance(ptr, int) or not isinstance(nbytes, int):
        raise errors.ArgumentTypeError("gfxcuda: %s(out=...): out is %s; pass a CUDA array (__cuda_array_interface__, "
                                       "e.g. a torch tensor) or a gfxcuda CudaBuffer" % (where, _check.kind(obj)))
    if nbytes < need:
        raise errors.OutOfRangeError("gfxcuda: %s(out=...): out has %d bytes; the frame needs %d" % (where, nbytes, need))
    return ptr, nbytes
