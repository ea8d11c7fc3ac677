package compute

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Memory is one allocation on a heap that buffers and textures are placed
// in, several over the same bytes if wanted: they alias and see each
// other's writes, as resources in a compushady Heap do. Sparse buffers and
// textures bind their blocks to it.
type Memory struct {
	d  *Device
	vk *vulkan.Memory
}

// NewMemory allocates size bytes on heap for resources to be placed in
// (compushady's Heap(heap_type, size)).
func (d *Device) NewMemory(size uint64, heap Heap) (*Memory, error) {
	m, err := d.vk.NewMemory(size, heap)
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Memory{d: d, vk: m}, nil
}

// Size is the memory's size in bytes.
func (m *Memory) Size() uint64 { return m.vk.Size() }

// Heap is the heap the memory is on.
func (m *Memory) Heap() Heap { return m.vk.Heap() }

// Vulkan returns the Vulkan memory.
func (m *Memory) Vulkan() *vulkan.Memory { return m.vk }

// Close drops the memory; the allocation lives on until the resources
// placed in or bound to it are closed too. Idempotent.
func (m *Memory) Close() error {
	if m == nil {
		return nil
	}
	return m.vk.Close()
}

// Placement says where a new resource's memory comes from: its own
// allocation (the zero Placement), Offset bytes into Memory, or nowhere
// yet for a Sparse resource, whose blocks BindBlock binds.
type Placement struct {
	Memory *Memory
	Offset uint64
	Sparse bool
}

func (p Placement) vkMemory() *vulkan.Memory { return p.Memory.vulkanOrNil() }

// vulkanOrNil is m's Vulkan memory, or nil for a nil m.
func (m *Memory) vulkanOrNil() *vulkan.Memory {
	if m == nil {
		return nil
	}
	return m.vk
}

// PlacedBuffer creates a buffer of size bytes on heap, placed as p says;
// stride and f make it structured or typed as StructuredBuffer and
// TypedBuffer do (0 and 0: raw). Errors of a placement that cannot be
// made wrap vulkan.ErrPlacement; a sparse buffer on a device without
// sparse binding, vulkan.ErrUnsupported.
func (d *Device) PlacedBuffer(size uint64, heap Heap, stride uint32, f format.Format, p Placement) (*Buffer, error) {
	if f != 0 {
		if _, ok := format.Lookup(f); !ok {
			return nil, fmt.Errorf("compute: PlacedBuffer: unknown format %v", f)
		}
	}
	b, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: size, Heap: heap, Memory: p.vkMemory(), Offset: p.Offset, Sparse: p.Sparse})
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Buffer{d: d, vk: b, own: true, stride: stride, format: f}, nil
}

// PlacedTexture creates a texture as Texture1D…Texture3D do (dim, extent,
// layers, format), placed as p says. Textures live on the default heap:
// memory of another heap is refused with an error wrapping
// vulkan.ErrPlacement, as are placements the memory cannot take; what the
// device cannot make (a format, a sparse texture) wraps another error of
// package vulkan, vulkan.ErrUnsupported or vulkan.ErrFormatNotSupported.
func (d *Device) PlacedTexture(dim vulkan.ImageDim, width, height, depth, layers uint32, f format.Format, p Placement) (*Texture, error) {
	in, ok := format.Lookup(f)
	if !ok {
		return nil, fmt.Errorf("compute: unknown format %v", f)
	}
	if width == 0 || height == 0 || depth == 0 || layers == 0 {
		return nil, fmt.Errorf("compute: texture of %dx%dx%d texels and %d slices", width, height, depth, layers)
	}
	if p.Memory != nil && p.Memory.Heap() != HeapDefault {
		return nil, fmt.Errorf("compute: textures live on HEAP_DEFAULT (HeapDefault): a texture cannot be placed in a %s heap; make the memory with HEAP_DEFAULT: %w",
			map[Heap]string{HeapUpload: "HEAP_UPLOAD", HeapReadback: "HEAP_READBACK"}[p.Memory.Heap()], vulkan.ErrPlacement)
	}
	img, err := d.vk.NewImage(vulkan.ImageOptions{Dim: dim, Format: uint32(f), Width: width, Height: height, Depth: depth,
		Layers: layers, Memory: p.vkMemory(), Offset: p.Offset, Sparse: p.Sparse})
	if err != nil {
		return nil, fmt.Errorf("compute: %s texture of %s: %w", dim, f, err)
	}
	return &Texture{d: d, vk: img, f: f, info: in, own: true}, nil
}

// Sparse returns the block layout of a sparse buffer (a block is
// Block[0] bytes); ok is false when the buffer is not sparse.
func (b *Buffer) Sparse() (vulkan.SparseLayout, bool) { return b.vk.Sparse() }

// BindBlock binds block x of a sparse buffer to m at offset (a multiple
// of the block size), or unbinds it when m is nil, after the work
// submitted before, and returns when it is bound.
func (b *Buffer) BindBlock(x uint32, m *Memory, offset uint64) error {
	if err := blockInside(b.vk.Sparse, x, 0, 0); err != nil {
		return err
	}
	if err := b.vk.BindSparse(vulkan.SparseBind{Block: [3]uint32{x, 0, 0}, Memory: m.vulkanOrNil(), Offset: offset}); err != nil {
		return fmt.Errorf("compute: %w", err)
	}
	return nil
}

// blockInside checks that block (x, y, z) is inside a sparse resource's
// layout (an error wrapping vulkan.ErrPlacement otherwise, in compushady's
// words); a resource that is not sparse is left to BindSparse's error.
func blockInside(layout func() (vulkan.SparseLayout, bool), x, y, z uint32) error {
	l, ok := layout()
	if ok && (x >= l.Blocks[0] || y >= l.Blocks[1] || z >= l.Blocks[2]) {
		return fmt.Errorf("compute: tile (%d, %d, %d) is out of bounds (tiles_x: %d, tiles_y: %d, tiles_z: %d): %w",
			x, y, z, l.Blocks[0], l.Blocks[1], l.Blocks[2], vulkan.ErrPlacement)
	}
	return nil
}

// Sparse returns the block layout of a sparse texture; ok is false when
// the texture is not sparse.
func (t *Texture) Sparse() (vulkan.SparseLayout, bool) { return t.vk.Sparse() }

// BindBlock binds the block at (x, y, z) (in blocks) of array slice layer
// of a sparse texture to m at offset, or unbinds it when m is nil.
func (t *Texture) BindBlock(x, y, z, layer uint32, m *Memory, offset uint64) error {
	if err := blockInside(t.vk.Sparse, x, y, z); err != nil {
		return err
	}
	if err := t.vk.BindSparse(vulkan.SparseBind{Block: [3]uint32{x, y, z}, Layer: layer, Memory: m.vulkanOrNil(), Offset: offset}); err != nil {
		return fmt.Errorf("compute: %w", err)
	}
	return nil
}

// KernelOptions configures KernelWith.
type KernelOptions struct {
	// EntryPoint names the compute entry point; empty means the first.
	EntryPoint string
	// Bindless gives runtime-sized arrays of descriptors (HLSL
	// Buffer<uint> bufs[]) this many elements and lets every array be
	// partially bound: a dispatch binds the elements it uses
	// (Arg.Element). Zero: no bindless arrays.
	Bindless uint32
	// Constants sets specialization constants (shader.Module's
	// SpecConstants): WGSL override declarations, GLSL
	// layout(constant_id = N) const, HLSL [[vk::constant_id(N)]]. A key is
	// the constant's name or its SpecId in decimal ("3": a WGSL @id(3),
	// or the id the compiler gave the override). Values are converted to
	// the constant's type (spirv.SpecConstant.Encode): a bool takes 0 or
	// 1, an integer a whole number in range, a float is rounded. A
	// workgroup size made of constants (WGSL @workgroup_size(wg) with
	// override wg) follows: LocalSize and Groups use the size set. A WGSL
	// override declared without a default must be set here; a key the
	// shader has no constant for is an error.
	Constants map[string]float64
}

// KernelWith makes a kernel as Kernel does, with options.
func (d *Device) KernelWith(m *shader.Module, o KernelOptions) (*Kernel, error) {
	spec, err := SpecValues(m, o.Constants)
	if err != nil {
		return nil, err
	}
	p, err := d.vk.NewComputePipeline(m, vulkan.PipelineOptions{EntryPoint: o.EntryPoint, Bindless: o.Bindless, Specialization: spec})
	if err != nil {
		return nil, fmt.Errorf("compute: %w", err)
	}
	return &Kernel{d: d, m: m, p: p, shifted: shader.ShiftedRegisters(m)}, nil
}

// SpecValues converts constants, as KernelOptions.Constants gives them,
// into value bits by SpecId (vulkan.PipelineOptions.Specialization). It
// fails, naming the shader's constants, on a key the module has no
// constant for and on a value the constant's type cannot hold, and when a
// constant without a default (a WGSL override declared without an
// initializer) is not set.
func SpecValues(m *shader.Module, constants map[string]float64) (map[uint32]uint64, error) {
	keys := make([]string, 0, len(constants))
	for k := range constants {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out map[uint32]uint64
	by := map[uint32]string{}
	for _, k := range keys {
		c := m.SpecConstant(k)
		if c == nil {
			if id, err := strconv.ParseUint(k, 10, 32); err == nil {
				for i := range m.SpecConstants {
					if m.SpecConstants[i].ID == uint32(id) {
						c = &m.SpecConstants[i]
					}
				}
			}
		}
		if c == nil {
			return nil, fmt.Errorf("compute: KernelOptions.Constants[%q]: %w", k, errNoConstant(m, k))
		}
		if prev, dup := by[c.ID]; dup {
			return nil, fmt.Errorf("compute: KernelOptions.Constants sets %s twice, as %q and %q", c, prev, k)
		}
		bits, err := c.Encode(constants[k])
		if err != nil {
			return nil, fmt.Errorf("compute: KernelOptions.Constants[%q]: %w", k, err)
		}
		if out == nil {
			out = map[uint32]uint64{}
		}
		out[c.ID], by[c.ID] = bits, k
	}
	for _, c := range m.SpecConstants {
		if _, set := out[c.ID]; c.Required && !set {
			name := c.Name
			if name == "" {
				name = strconv.Itoa(int(c.ID))
			}
			return nil, fmt.Errorf("compute: override '%s' has no default; set it with KernelOptions.Constants", name)
		}
	}
	return out, nil
}

// errNoConstant says that m has no constant called key, and which it has.
func errNoConstant(m *shader.Module, key string) error {
	if len(m.SpecConstants) == 0 {
		return fmt.Errorf("the shader has no specialization constants (no WGSL override, no GLSL constant_id)")
	}
	parts := make([]string, len(m.SpecConstants))
	for i, c := range m.SpecConstants {
		parts[i] = c.String()
	}
	return fmt.Errorf("the shader has no constant %q; it has %s", key, strings.Join(parts, ", "))
}

// SparseSupported reports whether the device makes sparse buffers and
// textures.
func (d *Device) SparseSupported() bool { return d.vk.SparseSupported() }

// BindlessSupported reports whether the device runs bindless kernels.
func (d *Device) BindlessSupported() bool { return d.vk.BindlessSupported() }

// Shifted reports whether the kernel's bindings follow the HLSL register
// shifts (register t3 at binding 1027, and so on; see
// shader.RegisterBinding), as HLSL compiled by package shader does.
func (k *Kernel) Shifted() bool { return k.shifted }

// SameSlot reports whether a and b bind the same place (the same
// register, binding or name, space and array element), whatever they bind
// there.
func (a Arg) SameSlot(b Arg) bool {
	return !a.isPush && !b.isPush && a.slot == b.slot && a.class == b.class && a.exact == b.exact &&
		a.space == b.space && a.name == b.name && a.elem == b.elem
}
