package vulkan

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// Semaphore is a VkSemaphore: a timeline semaphore, or a binary one
// imported from a file descriptor. Timeline semaphores order work between
// the host, Vulkan batches (SubmitOptions) and, exported, CUDA streams. Its
// methods are safe for concurrent use.
type Semaphore struct {
	resource
	d          *Device
	h          vk.Semaphore
	timeline   bool
	exportable bool
	signalMu   sync.Mutex // orders SignalAbove's host signals, so its value check holds
}

// ErrNotIncreasing is wrapped by the error of SignalAbove with a value not
// above the timeline semaphore's current one.
var ErrNotIncreasing = errors.New("vulkan: a timeline semaphore only goes up")

// NewTimelineSemaphore creates a timeline semaphore of value initial. With
// exportable, ExportFD can export it as an OPAQUE_FD file descriptor (what
// CUDA imports as a timeline semaphore); where the device cannot do that
// (lavapipe has no VK_KHR_external_semaphore_fd), the error wraps
// ErrUnsupported and says what is missing.
func (d *Device) NewTimelineSemaphore(initial uint64, exportable bool) (*Semaphore, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	if err := d.needTimeline(); err != nil {
		return nil, fmt.Errorf("vulkan: NewTimelineSemaphore: %w", err)
	}
	info := vk.SemaphoreCreateInfo{Timeline: true, Initial: initial}
	if exportable {
		if err := d.semaphoreFDSupport(true, true); err != nil {
			return nil, fmt.Errorf("vulkan: NewTimelineSemaphore: %w", err)
		}
		info.ExportHandleTypes = vk.ExternalSemaphoreHandleTypeOpaqueFD
	}
	h, err := d.raw.CreateSemaphore(info)
	if err != nil {
		return nil, fmt.Errorf("vulkan: NewTimelineSemaphore: %w", err)
	}
	s := &Semaphore{d: d, h: h, timeline: true, exportable: exportable}
	d.register(s)
	return s, nil
}

// needTimeline fails unless the device has timeline semaphores enabled.
func (d *Device) needTimeline() error {
	if d.timeline == 0 {
		return fmt.Errorf("%s: timeline semaphores (Vulkan 1.2 or VK_KHR_timeline_semaphore) missing: %w", d.pd.Name, ErrUnsupported)
	}
	return nil
}

// semaphoreFDSupport fails unless semaphores of the kind can be exported
// (or imported) as OPAQUE_FD.
func (d *Device) semaphoreFDSupport(timeline, export bool) error {
	what := "binary"
	if timeline {
		what = "timeline"
	}
	verb := "import"
	if export {
		verb = "export"
	}
	if !d.raw.HasSemaphoreFD() {
		return d.fdUnsupported(what+" semaphore "+verb+" as OPAQUE_FD", "VK_KHR_external_semaphore_fd is missing")
	}
	s := d.pd.SemaphoreSupport(OpaqueFD, timeline)
	if export && !s.Exportable || !export && !s.Importable {
		return fmt.Errorf("%s: %s semaphore %s as OPAQUE_FD: %w", d.pd.Name, what, verb, ErrUnsupported)
	}
	return nil
}

// ImportSemaphoreFD creates a semaphore from an OPAQUE_FD file descriptor
// exported by CUDA or another Vulkan device (vkImportSemaphoreFdKHR,
// permanent import). timeline says which kind the exporter made. As with
// memory, on success the driver owns fd; on failure it has been closed.
func (d *Device) ImportSemaphoreFD(fd int, timeline bool) (*Semaphore, error) {
	s, err := d.importSemaphore(fd, timeline)
	if err != nil {
		if s == nil {
			closeFD(fd)
		}
		return nil, fmt.Errorf("vulkan: ImportSemaphoreFD: %w", err)
	}
	return s, nil
}

// importSemaphore returns a non-nil Semaphore with its error when the driver
// took the descriptor.
func (d *Device) importSemaphore(fd int, timeline bool) (*Semaphore, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	if fd < 0 {
		return nil, fmt.Errorf("file descriptor %d: %w", fd, ErrorInvalidExternalHandle)
	}
	if timeline {
		if err := d.needTimeline(); err != nil {
			return nil, err
		}
	}
	if err := d.semaphoreFDSupport(timeline, false); err != nil {
		return nil, err
	}
	h, err := d.raw.CreateSemaphore(vk.SemaphoreCreateInfo{Timeline: timeline})
	if err != nil {
		return nil, err
	}
	if err := d.raw.ImportSemaphoreFD(h, vk.ExternalSemaphoreHandleTypeOpaqueFD, fd, false); err != nil {
		d.raw.DestroySemaphore(h)
		return nil, err
	}
	s := &Semaphore{d: d, h: h, timeline: timeline}
	d.register(s)
	return s, nil
}

func (s *Semaphore) acquire() error {
	if s == nil || s.d == nil || !s.life.acquire() {
		return ErrClosed
	}
	return nil
}

// Timeline reports whether s is a timeline semaphore.
func (s *Semaphore) Timeline() bool { return s.timeline }

// handle returns the VkSemaphore, for code of this package.
func (s *Semaphore) handle() vk.Semaphore { return s.h }

var errBinary = errors.New("vulkan: a binary semaphore has no value")

// ExportFD exports the semaphore as a new OPAQUE_FD file descriptor
// (vkGetSemaphoreFdKHR), which the caller owns. The semaphore must have been
// created exportable.
func (s *Semaphore) ExportFD() (int, error) {
	if err := s.acquire(); err != nil {
		return -1, err
	}
	defer s.life.release()
	if !s.exportable {
		return -1, errors.New("vulkan: ExportFD: the semaphore was not created exportable")
	}
	fd, err := s.d.raw.SemaphoreFD(s.h, vk.ExternalSemaphoreHandleTypeOpaqueFD)
	if err != nil {
		return -1, fmt.Errorf("vulkan: ExportFD: %w", err)
	}
	return fd, nil
}

// Value returns the current value of a timeline semaphore.
func (s *Semaphore) Value() (uint64, error) {
	if err := s.acquire(); err != nil {
		return 0, err
	}
	defer s.life.release()
	if !s.timeline {
		return 0, errBinary
	}
	v, err := s.d.raw.SemaphoreCounterValue(s.h)
	if err != nil {
		return 0, fmt.Errorf("vulkan: %w", err)
	}
	return v, nil
}

// Signal sets a timeline semaphore to v from the host (vkSignalSemaphore);
// v must be above its current value and pending signals (SignalAbove
// checks the first for values that come from users).
func (s *Semaphore) Signal(v uint64) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.life.release()
	if !s.timeline {
		return errBinary
	}
	if err := s.d.raw.SignalSemaphore(s.h, v); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	return nil
}

// SignalAbove is Signal for values that come from users (the C library's
// gfxcuda_vk_semaphore_signal): Vulkan requires v to be above the current
// value, and drivers do not all check it (NVIDIA's accepts a lower value),
// so SignalAbove reads the value first and refuses a v at or below it with
// an error wrapping ErrNotIncreasing, the semaphore left as it was. Host
// signals through SignalAbove are serialized so that the check holds.
func (s *Semaphore) SignalAbove(v uint64) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.life.release()
	if !s.timeline {
		return errBinary
	}
	s.signalMu.Lock()
	defer s.signalMu.Unlock()
	cur, err := s.d.raw.SemaphoreCounterValue(s.h)
	if err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	if v <= cur {
		return fmt.Errorf("vulkan: signalling timeline semaphore to %d: its value is %d already; a timeline only goes up, signal a value above %d: %w",
			v, cur, cur, ErrNotIncreasing)
	}
	if err := s.d.raw.SignalSemaphore(s.h, v); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	return nil
}

// Wait waits on the host until a timeline semaphore reaches v. A negative
// timeout waits without limit; when the timeout passes the error wraps
// ErrTimeout. If the semaphore or its device is closed meanwhile, Wait
// returns ErrClosed.
func (s *Semaphore) Wait(v uint64, timeout time.Duration) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.life.release()
	if !s.timeline {
		return errBinary
	}
	return s.d.waitTimeline(s.h, v, timeout, func() bool { return s.life.isClosing() || s.d.life.isClosing() })
}

// Close waits for the batches submitted through Commands that wait on or
// signal the semaphore (so a batch waiting for a value nobody signals
// blocks Close), then destroys it. Close is idempotent and returns nil.
func (s *Semaphore) Close() error {
	if s == nil || s.d == nil {
		return nil
	}
	s.d.closeChild(&s.life, s.free)
	return nil
}

func (s *Semaphore) closeOrder() int { return orderSemaphore }
func (s *Semaphore) destroy()        { s.life.shut(s.free) }

func (s *Semaphore) free() {
	s.d.waitSerial(s.lastUse.Load())
	s.d.raw.DestroySemaphore(s.h)
	s.d.unregister(s)
}
