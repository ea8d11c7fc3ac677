package gfxcuda

import (
	"errors"
	"fmt"
	"github.com/gfxcuda/gfxcuda/compute"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/kernels"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Errors callers can branch on.
var (
	ErrNoSharedGPU  = errors.New("interop: no GPU is usable from both Vulkan and CUDA (run `gfxcuda doctor`)")
	ErrDifferentGPU = errors.New("interop: the Vulkan device and the CUDA context are on different GPUs")
	ErrClosed       = errors.New("interop: use of closed object")
	ErrHeldByCUDA   = errors.New("interop: resource is held by CUDA (call Access.Done first)")
	ErrNotHeld      = errors.New("interop: resource is not held by CUDA (hand it over with Device.ToCUDA first)")
	ErrUnsupported  = errors.New("interop: not supported by this device")
)

// Options configure Open.
type Options struct {
	// UUID picks the GPU; nil picks the first GPU both APIs see.
	UUID *cuda.UUID
	// Validation switches the Vulkan validation layer on or off; nil follows
	// GFXCUDA_VALIDATION.
	Validation *bool
}

// Device is one GPU used from both Vulkan and CUDA.
type Device struct {
	inst     *vulkan.Instance // owned when Open made it
	vk       *vulkan.Device
	ownVK    bool
	ctx      *cuda.Context // nil with a fake cudaSide (tests)
	ownCtx   bool
	cs       cudaSide     // the CUDA calls of the hand-off state machine
	stream   *cuda.Stream // CUDA side of every hand-off; signals happen here, in order
	toCUDA   timeline     // signalled by Vulkan, waited on by CUDA
	toVK     timeline     // signalled by CUDA, waited on by Vulkan
	cmds     *vulkan.Pool // command batches of hand-offs and rings
	mu       sync.Mutex
	closed   bool
	pending  []Resource // returned by CUDA, to be acquired by the next Vulkan submission
	vkWaited uint64     // the last toVK value a Vulkan submission waited for
	kids     map[closer]struct{}
	rings    map[*Ring]struct{}
	kernMod  *cuda.Module // gfxcuda's own kernels, loaded on first use
	kernels  map[string]*cuda.Function
	compute  *compute.Device  // made by Compute, closed by Close
	convs    tensorConverters // Texture.ToTensor's converters (totensor.go)
}

type closer interface{ closeLocked() error }

// timeline is one exported timeline semaphore, seen by both APIs.
type timeline struct {
	vk    *vulkan.Semaphore
	cu    extSem
	value uint64 // last value the signalling side was asked to signal
}

func newTimeline(vk *vulkan.Device, cs cudaSide) (timeline, error) {
	s, err := vk.NewTimelineSemaphore(0, cs.exportable())
	if err != nil {
		return timeline{}, fmt.Errorf("%w: exportable timeline semaphore: %v", ErrUnsupported, err)
	}
	c, err := cs.importSemaphore(s)
	if err != nil {
		return timeline{}, errors.Join(err, s.Close())
	}
	return timeline{vk: s, cu: c}, nil
}

func (t *timeline) close() error {
	var err error
	if t.cu != nil {
		err = t.cu.close()
		t.cu = nil
	}
	if t.vk != nil {
		err = errors.Join(err, t.vk.Close())
		t.vk = nil
	}
	return err
}

// Open finds a GPU that Vulkan and CUDA both see, opens a Vulkan device
// and CUDA's primary context on it, and sets up the hand-off semaphores.
func Open(opts Options) (*Device, error) {
	if err := cuda.Init(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoSharedGPU, err)
	}
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda", Validation: opts.Validation})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoSharedGPU, err)
	}
	pds, err := inst.PhysicalDevices()
	if err != nil {
		inst.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoSharedGPU, err)
	}
	cds, err := cuda.Devices()
	if err != nil {
		inst.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoSharedGPU, err)
	}
	var vu, cu []cuda.UUID
	for _, p := range pds {
		vu = append(vu, cuda.UUID(p.DeviceUUID))
	}
	for _, c := range cds {
		u, err := c.UUID()
		if err != nil {
			inst.Close()
			return nil, err
		}
		cu = append(cu, u)
	}
	var pick *DevicePair
	for _, p := range MatchDevices(vu, cu) {
		if opts.UUID == nil || *opts.UUID == p.UUID {
			p := p
			pick = &p
			break
		}
	}
	if pick == nil {
		inst.Close()
		if opts.UUID != nil {
			return nil, fmt.Errorf("%w: no GPU with UUID %s in both APIs", ErrNoSharedGPU, *opts.UUID)
		}
		return nil, ErrNoSharedGPU
	}
	vd, err := inst.NewDevice(pds[pick.Vulkan], vulkan.DeviceOptions{})
	if err != nil {
		inst.Close()
		return nil, err
	}
	ctx, err := cds[pick.CUDA].PrimaryContext()
	if err != nil {
		inst.Close()
		return nil, err
	}
	d, err := newDevice(vd, ctx)
	if err != nil {
		ctx.Close()
		inst.Close()
		return nil, err
	}
	d.inst, d.ownVK, d.ownCtx = inst, true, true
	return d, nil
}

// OpenOrdinal opens the GPU that CUDA numbers ordinal (the N of PyTorch's
// "cuda:N", after CUDA_VISIBLE_DEVICES), as Open does with that GPU's UUID
// in opts.UUID, which must be nil. Without a usable CUDA driver the error
// wraps cuda.ErrNoDriver; an ordinal CUDA has no device for gives an
// error wrapping ErrNoSharedGPU, as does a GPU Vulkan does not see.
func OpenOrdinal(ordinal int, opts Options) (*Device, error) {
	if opts.UUID != nil {
		return nil, fmt.Errorf("gfxcuda: OpenOrdinal(%d) with Options.UUID %s: give one or the other", ordinal, *opts.UUID)
	}
	if err := cuda.Init(); err != nil {
		return nil, err
	}
	cd, err := cuda.GetDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoSharedGPU, err)
	}
	u, err := cd.UUID()
	if err != nil {
		return nil, err
	}
	opts.UUID = &u
	return Open(opts)
}

// New uses an existing Vulkan device and CUDA context, which must be on
// the same GPU. The Device borrows them: Close leaves them open.
func New(vk *vulkan.Device, ctx *cuda.Context) (*Device, error) {
	u, err := ctx.Device().UUID()
	if err != nil {
		return nil, err
	}
	if cuda.UUID(vk.Physical().DeviceUUID) != u {
		return nil, fmt.Errorf("%w: Vulkan %s (%s) vs CUDA device %d (%s)", ErrDifferentGPU,
			vk.Physical().Name, cuda.UUID(vk.Physical().DeviceUUID), ctx.Device().Ordinal(), u)
	}
	return newDevice(vk, ctx)
}

func newDevice(vk *vulkan.Device, ctx *cuda.Context) (*Device, error) {
	d, err := newDeviceWith(vk, driverCUDA{ctx})
	if err != nil {
		return nil, err
	}
	d.ctx = ctx
	return d, nil
}

// newDeviceWith makes a Device whose hand-offs go through cs: the driver,
// or a fake in tests of the state machine.
func newDeviceWith(vk *vulkan.Device, cs cudaSide) (*Device, error) {
	d := &Device{vk: vk, cs: cs, kids: map[closer]struct{}{}, rings: map[*Ring]struct{}{}, cmds: vk.NewPool()}
	var err error
	if d.stream, err = cs.newStream(); err != nil {
		return nil, err
	}
	if d.toCUDA, err = newTimeline(vk, cs); err != nil {
		return nil, errors.Join(err, cs.closeStream(d.stream))
	}
	if d.toVK, err = newTimeline(vk, cs); err != nil {
		err = errors.Join(err, d.toCUDA.close())
		return nil, errors.Join(err, cs.closeStream(d.stream))
	}
	return d, nil
}

// Vulkan returns the Vulkan device.
func (d *Device) Vulkan() *vulkan.Device { return d.vk }

// CUDA returns the CUDA context (the device's primary context).
func (d *Device) CUDA() *cuda.Context { return d.ctx }

// Stream returns the Device's own CUDA stream, used when a hand-off is
// given no stream.
func (d *Device) Stream() *cuda.Stream { return d.stream }

// Close closes the Device's rings, waits for outstanding work, closes every
// buffer and texture made by the Device, and releases what the Device
// opened. Idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	cd := d.compute
	rings := make([]*Ring, 0, len(d.rings))
	for r := range d.rings {
		rings = append(rings, r)
	}
	d.mu.Unlock()
	var err error
	if cd != nil {
		err = cd.Close()
	}
	for _, r := range rings {
		err = errors.Join(err, r.Close())
	}
	d.mu.Lock()
	// Let both sides finish before memory goes away.
	err = errors.Join(err, hostWait(d.cs, d.stream))
	err = errors.Join(err, d.cs.syncContext())
	err = errors.Join(err, d.vk.WaitIdle())
	for k := range d.kids {
		err = errors.Join(err, k.closeLocked())
	}
	d.kids = nil
	err = errors.Join(err, d.convs.close())
	err = errors.Join(err, d.cmds.Close())
	if d.kernMod != nil {
		err = errors.Join(err, d.kernMod.Close())
	}
	d.mu.Unlock()
	err = errors.Join(err, d.toVK.close())
	err = errors.Join(err, d.toCUDA.close())
	err = errors.Join(err, d.cs.closeStream(d.stream))
	if d.ownCtx {
		err = errors.Join(err, d.ctx.Close())
	}
	if d.ownVK {
		err = errors.Join(err, d.vk.Close())
		if d.inst != nil {
			err = errors.Join(err, d.inst.Close())
		}
	}
	return err
}

// kernel returns one of gfxcuda's own CUDA kernels, loading their PTX on
// first use (the driver compiles it once per process).
func (d *Device) kernel(name string) (*cuda.Function, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	if f, ok := d.kernels[name]; ok {
		return f, nil
	}
	if d.kernMod == nil {
		m, err := d.ctx.LoadModule(kernels.PTX)
		if err != nil {
			return nil, fmt.Errorf("interop: loading gfxcuda's kernels: %w", err)
		}
		d.kernMod, d.kernels = m, map[string]*cuda.Function{}
	}
	f, err := d.kernMod.Function(name)
	if err != nil {
		return nil, err
	}
	d.kernels[name] = f
	return f, nil
}

// adopt makes r one of the Device's resources: closed with it, and
// guarded against Vulkan work while CUDA holds it. Called with d.mu held.
func (d *Device) adopt(r closer, s *state, setGuard func(guard func(*vulkan.Commands) error)) {
	d.kids[r] = struct{}{}
	setGuard(d.guard(s))
}

// guardBuffer and guardImage are adopt's guard setters for a buffer and an
// image.
func guardBuffer(b *vulkan.Buffer) func(func(*vulkan.Commands) error) {
	return func(g func(*vulkan.Commands) error) { own.SetBufferGuard(b, g) }
}

func guardImage(img *vulkan.Image) func(func(*vulkan.Commands) error) {
	return func(g func(*vulkan.Commands) error) { own.SetImageGuard(img, g) }
}

func (d *Device) live() error {
	if d.closed {
		return ErrClosed
	}
	return nil
}
