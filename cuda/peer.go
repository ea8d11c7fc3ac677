package cuda

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// Copies and access between the GPUs of one host. A peer copy
// (Stream.CopyPeer) works between any two devices; the driver takes the
// fastest path the topology has (NVLink, PCIe peer-to-peer, or staging
// through host memory). Reading another GPU's memory in place from a
// kernel needs peer access (Device.CanAccessPeer, Context.EnablePeerAccess).

// CanAccessPeer reports whether d can map the memory of peer, so that
// kernels on d read it in place once the context on d enabled access to
// peer's context (cuDeviceCanAccessPeer). A device and itself: true.
func (d Device) CanAccessPeer(peer Device) (bool, error) {
	ok, r := cu.DeviceCanAccessPeer(d.h, peer.h)
	if err := check("cuDeviceCanAccessPeer", r); err != nil {
		return false, err
	}
	return ok || d.ordinal == peer.ordinal, nil
}

// EnablePeerAccess lets kernels and copies in c read and write memory
// allocated in peer (cuCtxEnablePeerAccess). It is a property of the two
// contexts, seen by every user of c (for primary contexts, PyTorch and
// CuPy too) until the contexts are destroyed; gfxcuda never disables it.
// Access enabled already is not an error; contexts of one device need
// none. Errors wrap ErrorPeerAccessUnsupported when the topology has no
// peer path between the devices (CanAccessPeer is false).
func (c *Context) EnablePeerAccess(peer *Context) error {
	if peer == nil {
		return fmt.Errorf("cuda: EnablePeerAccess with a nil peer Context: %w", ErrorInvalidValue)
	}
	if c.dev.ordinal == peer.dev.ordinal {
		return nil
	}
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if err := peer.acquire(); err != nil {
		return err
	}
	defer peer.release()
	err := check("cuCtxEnablePeerAccess", cu.CtxEnablePeerAccess(c.h, peer.h))
	if errors.Is(err, ErrorPeerAccessAlreadyEnabled) {
		return nil
	}
	return err
}

// TryEnablePeerAccess is EnablePeerAccess where the topology has a peer
// path from c's device to peer's (CanAccessPeer), and reports whether it
// enabled it: false, without an error, when there is no path (copies
// between the two are then staged through host memory by the driver).
func (c *Context) TryEnablePeerAccess(peer *Context) (bool, error) {
	if peer == nil {
		return false, fmt.Errorf("cuda: TryEnablePeerAccess with a nil peer Context: %w", ErrorInvalidValue)
	}
	ok, err := c.dev.CanAccessPeer(peer.dev)
	if err != nil || !ok {
		return false, err
	}
	if err := c.EnablePeerAccess(peer); err != nil {
		return false, err
	}
	return true, nil
}

// CanReadPointer reports whether kernels in c can reach the memory at p,
// memory of c or of another context: after EnablePeerAccess, whether
// peer access reached that allocation. It asks the driver for the
// pointer's address in c's device (CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
// with c current), which it gives only for memory that device can reach,
// as CCCL's cuda::is_device_accessible does.
func (c *Context) CanReadPointer(p DevicePtr) (bool, error) {
	if err := c.acquire(); err != nil {
		return false, err
	}
	defer c.release()
	q, r := cu.PointerDevicePointer(c.h, cu.DevicePtr(p))
	switch r {
	case cu.Success:
		return q != 0, nil
	case cu.NotLoaded, cu.MissingEntry:
		return false, check("cuPointerGetAttribute", r)
	}
	return false, nil
}

// CopyPeer queues on s a copy of n bytes from src, memory of srcCtx, to
// dst, memory of dstCtx (cuMemcpyPeerAsync). The contexts may be on
// different devices, or the same one (a plain device-to-device copy); s
// may belong to either. No peer access is needed.
func (s *Stream) CopyPeer(dst DevicePtr, dstCtx *Context, src DevicePtr, srcCtx *Context, n uint64) error {
	if dstCtx == nil || srcCtx == nil {
		return fmt.Errorf("cuda: CopyPeer with a nil Context: %w", ErrorInvalidValue)
	}
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	for _, c := range []*Context{dstCtx, srcCtx} {
		if err := c.acquire(); err != nil {
			return err
		}
		defer c.release()
	}
	if n == 0 {
		return nil
	}
	return check("cuMemcpyPeerAsync", cu.MemcpyPeerAsync(s.ctx.h, cu.DevicePtr(dst), dstCtx.h, cu.DevicePtr(src), srcCtx.h, n, h))
}

// CopyFromArrayPeer queues on s a copy from c.Array, an array of its own
// context on any device, into device memory at c.Ptr of dstCtx
// (cuMemcpy3DPeerAsync): an array's texels moved to another GPU, untiled
// into rows c.Pitch bytes apart (0: tightly packed).
func (s *Stream) CopyFromArrayPeer(c ArrayCopy, dstCtx *Context) error {
	if dstCtx == nil {
		return fmt.Errorf("cuda: CopyFromArrayPeer without a destination Context: %w", ErrorInvalidValue)
	}
	return s.arrayCopy("CopyFromArrayPeer", c, false, func(m *cu.Memcpy3D, h cu.Stream) error {
		if err := dstCtx.acquire(); err != nil {
			return err
		}
		defer dstCtx.release()
		return check("cuMemcpy3DPeerAsync", cu.MemcpyThreeDPeerAsync(s.ctx.h, m, c.Array.ctx.h, dstCtx.h, h))
	})
}
