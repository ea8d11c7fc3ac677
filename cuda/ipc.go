package cuda

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// IPCHandle is CUDA's legacy inter-process handle for device memory
// (CUipcMemHandle): another process on the same machine opens it with
// OpenIPCHandle and sees the same memory.
type IPCHandle [cu.IPCHandleSize]byte

// IPCHandle returns the handle of the allocation containing p (memory from
// Context.Alloc).
func (c *Context) IPCHandle(p DevicePtr) (_ IPCHandle, err error) {
	if err := c.acquire(); err != nil {
		return IPCHandle{}, err
	}
	defer c.leave(&err)
	h, r := cu.IpcGetMemHandle(c.h, cu.DevicePtr(p))
	return IPCHandle(h), check("cuIpcGetMemHandle", r)
}

// OpenIPCHandle maps memory another process exported with IPCHandle. The
// pointer is valid until CloseIPCHandle. A process cannot open its own
// handles (CUDA_ERROR_INVALID_CONTEXT).
func (c *Context) OpenIPCHandle(h IPCHandle) (_ DevicePtr, err error) {
	if err := c.acquire(); err != nil {
		return 0, err
	}
	defer c.leave(&err)
	p, r := cu.IpcOpenMemHandle(c.h, [cu.IPCHandleSize]byte(h))
	if err := check("cuIpcOpenMemHandle", r); err != nil {
		return 0, fmt.Errorf("opening IPC handle: %w", err)
	}
	return DevicePtr(p), nil
}

// CloseIPCHandle unmaps memory opened with OpenIPCHandle.
func (c *Context) CloseIPCHandle(p DevicePtr) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	return check("cuIpcCloseMemHandle", cu.IpcCloseMemHandle(c.h, cu.DevicePtr(p)))
}
