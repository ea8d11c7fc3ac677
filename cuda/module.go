package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// Module is loaded GPU code: PTX text (compiled by the driver's JIT, so no
// CUDA toolkit is needed) or a cubin. It is safe for concurrent use; Close
// waits for calls in progress on it (lookups, launches) to return.
type Module struct {
	ctx  *Context
	life life
	h    cu.Module
}

// LoadModule loads PTX or cubin code.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("cuda: empty module image: %w", ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		return nil, err
	}
	h, r := cu.ModuleLoadData(c.h, image)
	if err := check("cuModuleLoadData", r); err != nil {
		return nil, errors.Join(err, c.release())
	}
	return &Module{ctx: c, h: h}, nil
}

// Handle returns the raw CUmodule. It is borrowed: valid until Close; never
// unload it.
func (m *Module) Handle() uintptr { return m.h.Handle() }

// Function looks up a kernel by its (extern "C", so unmangled) name.
func (m *Module) Function(name string) (*Function, error) {
	if err := m.life.acquire(); err != nil {
		return nil, err
	}
	defer m.life.release()
	f, r := cu.ModuleGetFunction(m.ctx.h, m.h, name)
	if err := check("cuModuleGetFunction", r); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", name, err)
	}
	return &Function{mod: m, h: f, name: name}, nil
}

// Close unloads the module once calls in progress have returned; its
// functions become unusable. Idempotent.
func (m *Module) Close() error {
	return m.life.shut(func() error {
		return errors.Join(check("cuModuleUnload", cu.ModuleUnload(m.ctx.h, m.h)), m.ctx.release())
	})
}

// Function is a kernel in a Module.
type Function struct {
	mod  *Module
	h    cu.Function
	name string
}

// Dim3 is a grid or block size.
type Dim3 struct{ X, Y, Z uint32 }

func (d Dim3) norm() [3]uint32 {
	v := [3]uint32{d.X, d.Y, d.Z}
	for i := range v {
		if v[i] == 0 {
			v[i] = 1
		}
	}
	return v
}

// Launch queues the kernel on stream s (nil: the legacy default stream).
// Arguments are encoded by their Go type, which must match the kernel's
// parameters: DevicePtr, SurfObject, uint64, int64, uintptr, float64
// (8 bytes); uint32, int32, int, float32 (4 bytes; int is sent as int32);
// uint16, int16, uint8, int8, bool.
func (f *Function) Launch(s *Stream, grid, block Dim3, sharedMem uint32, args ...any) error {
	if err := f.mod.life.acquire(); err != nil {
		return err
	}
	defer f.mod.life.release()
	var sh cu.Stream
	if s != nil {
		var err error
		if sh, err = s.use(); err != nil {
			return err
		}
		defer s.done()
	}
	buf, offs, err := packArgs(args)
	if err != nil {
		return fmt.Errorf("cuda: launching %s: %w", f.name, err)
	}
	if err := check("cuLaunchKernel", cu.LaunchKernel(f.mod.ctx.h, f.h, grid.norm(), block.norm(), sharedMem, sh, buf, offs)); err != nil {
		return fmt.Errorf("launching %s grid %v block %v: %w", f.name, grid, block, err)
	}
	return nil
}

// packArgs lays the arguments out with natural alignment.
func packArgs(args []any) ([]byte, []uint64, error) {
	if len(args) > 64 {
		return nil, nil, fmt.Errorf("%d arguments, at most 64: %w", len(args), ErrorInvalidValue)
	}
	var buf []byte
	offs := make([]uint64, 0, len(args))
	put := func(size int, v uint64) {
		for len(buf)%size != 0 {
			buf = append(buf, 0)
		}
		offs = append(offs, uint64(len(buf)))
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		buf = append(buf, b[:size]...)
	}
	for i, a := range args {
		switch v := a.(type) {
		case DevicePtr:
			put(8, uint64(v))
		case SurfObject:
			put(8, uint64(v))
		case uint64:
			put(8, v)
		case int64:
			put(8, uint64(v))
		case uintptr:
			put(8, uint64(v))
		case float64:
			put(8, math.Float64bits(v))
		case uint32:
			put(4, uint64(v))
		case int32:
			put(4, uint64(uint32(v)))
		case int:
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, nil, fmt.Errorf("argument %d: int %d does not fit the int32 it is sent as", i, v)
			}
			put(4, uint64(uint32(int32(v))))
		case float32:
			put(4, uint64(math.Float32bits(v)))
		case uint16:
			put(2, uint64(v))
		case int16:
			put(2, uint64(uint16(v)))
		case uint8:
			put(1, uint64(v))
		case int8:
			put(1, uint64(uint8(v)))
		case bool:
			b := uint64(0)
			if v {
				b = 1
			}
			put(1, b)
		default:
			return nil, nil, fmt.Errorf("argument %d: unsupported type %T", i, a)
		}
	}
	return buf, offs, nil
}
