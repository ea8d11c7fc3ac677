package vk

/*
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

static VkResult gfx_vkCreateSemaphore(PFN_vkCreateSemaphore f, VkDevice d, const VkSemaphoreCreateInfo *info, VkSemaphore *s) {
	return f(d, info, NULL, s);
}
static void gfx_vkDestroySemaphore(PFN_vkDestroySemaphore f, VkDevice d, VkSemaphore s) {
	f(d, s, NULL);
}
static VkResult gfx_vkGetSemaphoreCounterValue(PFN_vkGetSemaphoreCounterValue f, VkDevice d, VkSemaphore s, uint64_t *v) {
	return f(d, s, v);
}
static VkResult gfx_vkWaitSemaphores(PFN_vkWaitSemaphores f, VkDevice d, const VkSemaphoreWaitInfo *info, uint64_t timeout) {
	return f(d, info, timeout);
}
static VkResult gfx_vkSignalSemaphore(PFN_vkSignalSemaphore f, VkDevice d, const VkSemaphoreSignalInfo *info) {
	return f(d, info);
}
static VkResult gfx_vkGetSemaphoreFdKHR(PFN_vkGetSemaphoreFdKHR f, VkDevice d, const VkSemaphoreGetFdInfoKHR *info, int *fd) {
	return f(d, info, fd);
}
static VkResult gfx_vkImportSemaphoreFdKHR(PFN_vkImportSemaphoreFdKHR f, VkDevice d, const VkImportSemaphoreFdInfoKHR *info) {
	return f(d, info);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Semaphore is a VkSemaphore.
type Semaphore uint64

// HasTimelineCalls reports whether vkGetSemaphoreCounterValue,
// vkWaitSemaphores and vkSignalSemaphore were loaded.
func (d *Device) HasTimelineCalls() bool {
	return d.fn.getSemaphoreCounterValue != nil && d.fn.waitSemaphores != nil && d.fn.signalSemaphore != nil
}

// HasSemaphoreFD reports whether vkGetSemaphoreFdKHR and
// vkImportSemaphoreFdKHR were loaded, that is whether
// VK_KHR_external_semaphore_fd is enabled.
func (d *Device) HasSemaphoreFD() bool {
	return d.fn.getSemaphoreFdKHR != nil && d.fn.importSemaphoreFdKHR != nil
}

// SemaphoreCreateInfo describes a binary or timeline semaphore.
type SemaphoreCreateInfo struct {
	// Timeline chains VkSemaphoreTypeCreateInfo of type TIMELINE with
	// Initial as the initial value.
	Timeline bool
	Initial  uint64
	// ExportHandleTypes chains VkExportSemaphoreCreateInfo when not zero.
	ExportHandleTypes uint32
}

// CreateSemaphore calls vkCreateSemaphore.
func (d *Device) CreateSemaphore(info SemaphoreCreateInfo) (Semaphore, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkSemaphoreCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
	next := &ci.pNext
	if info.Timeline {
		t := alloc[C.VkSemaphoreTypeCreateInfo](&a)
		t.sType = C.VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO
		t.semaphoreType = C.VK_SEMAPHORE_TYPE_TIMELINE
		t.initialValue = C.uint64_t(info.Initial)
		*next = unsafe.Pointer(t)
		next = &t.pNext
	}
	if info.ExportHandleTypes != 0 {
		e := alloc[C.VkExportSemaphoreCreateInfo](&a)
		e.sType = C.VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO
		e.handleTypes = C.VkExternalSemaphoreHandleTypeFlags(info.ExportHandleTypes)
		*next = unsafe.Pointer(e)
	}
	var s C.VkSemaphore
	if r := Result(C.gfx_vkCreateSemaphore(d.fn.createSemaphore, d.h, ci, &s)); r != Success {
		return 0, fmt.Errorf("vkCreateSemaphore: %w", r)
	}
	return Semaphore(s), nil
}

// DestroySemaphore calls vkDestroySemaphore; a null handle is ignored.
func (d *Device) DestroySemaphore(s Semaphore) {
	if s != 0 {
		C.gfx_vkDestroySemaphore(d.fn.destroySemaphore, d.h, C.VkSemaphore(s))
	}
}

func (d *Device) needTimeline(name string) error {
	if !d.HasTimelineCalls() {
		return fmt.Errorf("%w: %s (timeline semaphores not enabled)", ErrProcNotFound, name)
	}
	return nil
}

// SemaphoreCounterValue returns a timeline semaphore's current value
// (vkGetSemaphoreCounterValue).
func (d *Device) SemaphoreCounterValue(s Semaphore) (uint64, error) {
	if err := d.needTimeline("vkGetSemaphoreCounterValue"); err != nil {
		return 0, err
	}
	var v C.uint64_t
	if r := Result(C.gfx_vkGetSemaphoreCounterValue(d.fn.getSemaphoreCounterValue, d.h, C.VkSemaphore(s), &v)); r != Success {
		return 0, fmt.Errorf("vkGetSemaphoreCounterValue: %w", r)
	}
	return uint64(v), nil
}

// SignalSemaphore sets a timeline semaphore to value from the host
// (vkSignalSemaphore).
func (d *Device) SignalSemaphore(s Semaphore, value uint64) error {
	if err := d.needTimeline("vkSignalSemaphore"); err != nil {
		return err
	}
	var a arena
	defer a.free()
	info := alloc[C.VkSemaphoreSignalInfo](&a)
	info.sType = C.VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO
	info.semaphore = C.VkSemaphore(s)
	info.value = C.uint64_t(value)
	if r := Result(C.gfx_vkSignalSemaphore(d.fn.signalSemaphore, d.h, info)); r != Success {
		return fmt.Errorf("vkSignalSemaphore: %w", r)
	}
	return nil
}

// WaitSemaphores waits on the host until every (or, with any, one) timeline
// semaphore reaches its value, or timeoutNs nanoseconds pass
// (vkWaitSemaphores). It returns Success, Timeout, or an error code.
func (d *Device) WaitSemaphores(sems []Semaphore, values []uint64, any bool, timeoutNs uint64) Result {
	if d.needTimeline("vkWaitSemaphores") != nil {
		return ErrorFeatureNotPresent
	}
	if len(sems) == 0 || len(sems) != len(values) {
		return Success
	}
	var a arena
	defer a.free()
	info := alloc[C.VkSemaphoreWaitInfo](&a)
	info.sType = C.VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO
	if any {
		info.flags = C.VK_SEMAPHORE_WAIT_ANY_BIT
	}
	ss := allocN[C.VkSemaphore](&a, len(sems))
	vs := allocN[C.uint64_t](&a, len(sems))
	for i := range sems {
		ss[i] = C.VkSemaphore(sems[i])
		vs[i] = C.uint64_t(values[i])
	}
	info.semaphoreCount = C.uint32_t(len(sems))
	info.pSemaphores = &ss[0]
	info.pValues = &vs[0]
	return Result(C.gfx_vkWaitSemaphores(d.fn.waitSemaphores, d.h, info, C.uint64_t(timeoutNs)))
}

// SemaphoreFD exports s as a new file descriptor of handleType
// (vkGetSemaphoreFdKHR); the caller owns it.
func (d *Device) SemaphoreFD(s Semaphore, handleType uint32) (int, error) {
	if !d.HasSemaphoreFD() {
		return -1, fmt.Errorf("%w: vkGetSemaphoreFdKHR (VK_KHR_external_semaphore_fd not enabled)", ErrProcNotFound)
	}
	var a arena
	defer a.free()
	info := alloc[C.VkSemaphoreGetFdInfoKHR](&a)
	info.sType = C.VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR
	info.semaphore = C.VkSemaphore(s)
	info.handleType = C.VkExternalSemaphoreHandleTypeFlagBits(handleType)
	fd := C.int(-1)
	if r := Result(C.gfx_vkGetSemaphoreFdKHR(d.fn.getSemaphoreFdKHR, d.h, info, &fd)); r != Success {
		return -1, fmt.Errorf("vkGetSemaphoreFdKHR: %w", r)
	}
	return int(fd), nil
}

// ImportSemaphoreFD imports a file descriptor of handleType into s
// (vkImportSemaphoreFdKHR), permanently unless temporary. On success the
// implementation owns fd; on failure the caller still does.
func (d *Device) ImportSemaphoreFD(s Semaphore, handleType uint32, fd int, temporary bool) error {
	if !d.HasSemaphoreFD() {
		return fmt.Errorf("%w: vkImportSemaphoreFdKHR (VK_KHR_external_semaphore_fd not enabled)", ErrProcNotFound)
	}
	var a arena
	defer a.free()
	info := alloc[C.VkImportSemaphoreFdInfoKHR](&a)
	info.sType = C.VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR
	info.semaphore = C.VkSemaphore(s)
	info.handleType = C.VkExternalSemaphoreHandleTypeFlagBits(handleType)
	info.fd = C.int(fd)
	if temporary {
		info.flags = C.VK_SEMAPHORE_IMPORT_TEMPORARY_BIT
	}
	if r := Result(C.gfx_vkImportSemaphoreFdKHR(d.fn.importSemaphoreFdKHR, d.h, info)); r != Success {
		return fmt.Errorf("vkImportSemaphoreFdKHR: %w", r)
	}
	return nil
}
