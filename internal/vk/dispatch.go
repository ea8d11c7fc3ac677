package vk

/*
#define VK_NO_PROTOTYPES 1
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <vulkan/vulkan.h>

// gfx_dispatch is one dispatch with what precedes it, recorded by one call
// (gfx_record_dispatch): no pointers, so Go may own it.
typedef struct {
	VkPipeline pipe;            // bound first unless 0
	VkPipelineLayout layout;    // of the sets and push constants
	uint32_t nsets;             // sets bound from 0 unless 0
	uint32_t push;              // bytes of push constants
	VkDescriptorSet sets[8];
	uint32_t barrier;           // 1: a memory barrier first; 2: with vkCmdPipelineBarrier2
	uint32_t stages;            // push constant stages
	uint64_t srcStage, srcAccess, dstStage, dstAccess; // synchronization2 masks
	uint32_t srcStage1, srcAccess1, dstStage1, dstAccess1; // Vulkan 1.0 masks
	VkBuffer indirect;          // vkCmdDispatchIndirect from it unless 0
	VkDeviceSize indirectOffset;
	uint32_t x, y, z;
} gfx_dispatch;

typedef struct {
	PFN_vkCmdPipelineBarrier barrier;
	PFN_vkCmdPipelineBarrier2 barrier2;
	PFN_vkCmdBindPipeline bind;
	PFN_vkCmdBindDescriptorSets sets;
	PFN_vkCmdPushConstants push;
	PFN_vkCmdDispatch dispatch;
	PFN_vkCmdDispatchIndirect indirect;
} gfx_dispatch_fns;

static void gfx_record_dispatch(const gfx_dispatch_fns *f, VkCommandBuffer cb, const gfx_dispatch *d, const void *push) {
	if (d->barrier == 2) {
		VkMemoryBarrier2 m = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
			.srcStageMask = d->srcStage, .srcAccessMask = d->srcAccess,
			.dstStageMask = d->dstStage, .dstAccessMask = d->dstAccess,
		};
		VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &m};
		f->barrier2(cb, &dep);
	} else if (d->barrier == 1) {
		VkMemoryBarrier m = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = d->srcAccess1, .dstAccessMask = d->dstAccess1};
		f->barrier(cb, d->srcStage1, d->dstStage1, 0, 1, &m, 0, NULL, 0, NULL);
	}
	if (d->pipe) {
		f->bind(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe);
	}
	if (d->nsets) {
		f->sets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, d->nsets, d->sets, 0, NULL);
	}
	if (d->push) {
		f->push(cb, d->layout, d->stages, 0, d->push, push);
	}
	if (d->indirect) {
		f->indirect(cb, d->indirect, d->indirectOffset);
	} else {
		f->dispatch(cb, d->x, d->y, d->z);
	}
}

// gfx_submit_one submits one command buffer that signals one timeline
// semaphore at value, with structures on the stack: one call from Go.
static VkResult gfx_submit_one(PFN_vkQueueSubmit submit, PFN_vkQueueSubmit2 submit2, VkQueue q, VkCommandBuffer cb,
		VkSemaphore s, uint64_t value) {
	if (submit2) {
		VkCommandBufferSubmitInfo c = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cb};
		VkSemaphoreSubmitInfo sig = {
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
			.semaphore = s, .value = value, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
		};
		VkSubmitInfo2 si = {
			.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
			.commandBufferInfoCount = 1, .pCommandBufferInfos = &c,
			.signalSemaphoreInfoCount = 1, .pSignalSemaphoreInfos = &sig,
		};
		return submit2(q, 1, &si, VK_NULL_HANDLE);
	}
	VkTimelineSemaphoreSubmitInfo tl = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &value,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &tl,
		.commandBufferCount = 1, .pCommandBuffers = &cb,
		.signalSemaphoreCount = 1, .pSignalSemaphores = &s,
	};
	return submit(q, 1, &si, VK_NULL_HANDLE);
}

static uint64_t gfx_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// gfx_wait_timeline polls a timeline semaphore for up to spin ns (giving
// the core to other threads between polls when yield is set), then blocks
// in vkWaitSemaphores for up to timeout ns: one call from Go.
static VkResult gfx_wait_timeline(PFN_vkGetSemaphoreCounterValue get, PFN_vkWaitSemaphores wait, VkDevice d,
		VkSemaphore s, uint64_t value, uint64_t spin, uint64_t timeout, int yield) {
	if (spin > 0) {
		uint64_t end = gfx_now_ns() + spin;
		for (;;) {
			uint64_t v = 0;
			VkResult r = get(d, s, &v);
			if (r != VK_SUCCESS) {
				return r;
			}
			if (v >= value) {
				return VK_SUCCESS;
			}
			if (gfx_now_ns() >= end) {
				break;
			}
			if (yield) {
				sched_yield();
			}
		}
	}
	VkSemaphoreWaitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1, .pSemaphores = &s, .pValues = &value,
	};
	return wait(d, &info, timeout);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// MaxDispatchSets is the most descriptor sets RecordDispatch binds.
const MaxDispatchSets = 8

// Dispatch is one compute dispatch and what precedes it in the command
// buffer, recorded by RecordDispatch in one call.
type Dispatch struct {
	// Barrier, when Barrier.SrcStage is not 0, is a memory barrier
	// recorded first (with synchronization2 if Sync2).
	Barrier MemoryBarrier
	Sync2   bool
	// Pipeline is bound unless 0.
	Pipeline Pipeline
	// Layout is the pipeline layout of Sets and Push.
	Layout PipelineLayout
	// Sets are bound from set 0 unless empty (at most MaxDispatchSets).
	Sets []DescriptorSet
	// Push are the push constants, for the compute stage, from offset 0.
	Push []byte
	// Indirect, unless 0, is the buffer vkCmdDispatchIndirect reads the
	// workgroup counts from, at IndirectOffset; else X, Y, Z are.
	Indirect       Buffer
	IndirectOffset uint64
	X, Y, Z        uint32
}

// DispatchScratch is the memory RecordDispatch builds its C arguments in:
// keeping one per recording goroutine (per command buffer) spares an
// allocation per dispatch.
type DispatchScratch struct {
	c C.gfx_dispatch
}

// RecordDispatch records d with one call into C: the barrier, pipeline
// and descriptor set bindings, push constants and the dispatch
// (vkCmdPipelineBarrier[2], vkCmdBindPipeline, vkCmdBindDescriptorSets,
// vkCmdPushConstants, vkCmdDispatch[Indirect]). Sets beyond
// MaxDispatchSets are ignored: bind them with CmdBindComputeDescriptorSets.
// s, when not nil, is the scratch memory to use.
func (d *Device) RecordDispatch(cb CommandBuffer, dp *Dispatch, s *DispatchScratch) {
	if s == nil {
		s = new(DispatchScratch)
	}
	c := &s.c
	*c = C.gfx_dispatch{}
	if m := &dp.Barrier; m.SrcStage != 0 {
		if dp.Sync2 {
			c.barrier = 2
			c.srcStage, c.srcAccess = C.uint64_t(m.SrcStage), C.uint64_t(m.SrcAccess)
			c.dstStage, c.dstAccess = C.uint64_t(m.DstStage), C.uint64_t(m.DstAccess)
		} else {
			c.barrier = 1
			c.srcStage1, c.dstStage1 = C.uint32_t(legacyStages(m.SrcStage)), C.uint32_t(legacyStages(m.DstStage))
			c.srcAccess1, c.dstAccess1 = C.uint32_t(legacyAccess(m.SrcAccess)), C.uint32_t(legacyAccess(m.DstAccess))
			if c.srcStage1 == 0 {
				c.srcStage1 = C.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT
			}
			if c.dstStage1 == 0 {
				c.dstStage1 = C.VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT
			}
		}
	}
	c.pipe = C.VkPipeline(dp.Pipeline)
	c.layout = C.VkPipelineLayout(dp.Layout)
	n := min(len(dp.Sets), MaxDispatchSets)
	for i := range n {
		c.sets[i] = C.VkDescriptorSet(dp.Sets[i])
	}
	c.nsets = C.uint32_t(n)
	var push unsafe.Pointer
	if len(dp.Push) > 0 {
		push = unsafe.Pointer(&dp.Push[0])
		c.push = C.uint32_t(len(dp.Push))
		c.stages = C.VK_SHADER_STAGE_COMPUTE_BIT
	}
	c.indirect, c.indirectOffset = C.VkBuffer(dp.Indirect), C.VkDeviceSize(dp.IndirectOffset)
	c.x, c.y, c.z = C.uint32_t(dp.X), C.uint32_t(dp.Y), C.uint32_t(dp.Z)
	C.gfx_record_dispatch(&d.dispatchFns, cb, c, push)
}

// dispatchFns is the table of entry points RecordDispatch calls.
type dispatchFns = C.gfx_dispatch_fns

// initDispatchFns fills the table RecordDispatch calls through.
func (d *Device) initDispatchFns() {
	d.dispatchFns = dispatchFns{
		barrier:  d.fn.cmdPipelineBarrier,
		barrier2: d.fn.cmdPipelineBarrier2,
		bind:     d.fn.cmdBindPipeline,
		sets:     d.fn.cmdBindDescriptorSets,
		push:     d.fn.cmdPushConstants,
		dispatch: d.fn.cmdDispatch,
		indirect: d.fn.cmdDispatchIndirect,
	}
}

// SubmitOne submits cb alone to q, signalling timeline semaphore s at
// value when it finishes: QueueSubmit2 (with sync2) or QueueSubmit with
// VkTimelineSemaphoreSubmitInfo, built on the C stack in one call.
func (d *Device) SubmitOne(q Queue, cb CommandBuffer, s Semaphore, value uint64, sync2 bool) error {
	var f2 C.PFN_vkQueueSubmit2
	if sync2 {
		f2 = d.fn.queueSubmit2
	}
	if r := Result(C.gfx_submit_one(d.fn.queueSubmit, f2, q, cb, C.VkSemaphore(s), C.uint64_t(value))); r != Success {
		if sync2 {
			return fmt.Errorf("vkQueueSubmit2: %w", r)
		}
		return fmt.Errorf("vkQueueSubmit: %w", r)
	}
	return nil
}

// WaitTimeline waits on the host until timeline semaphore s reaches value:
// it polls the counter for up to spinNs nanoseconds (vkGetSemaphoreCounterValue),
// which notices a fast GPU sooner than a blocking wait's wake-up, then
// blocks in vkWaitSemaphores for up to timeoutNs. One call into C. It
// returns Success, Timeout, or an error code.
func (d *Device) WaitTimeline(s Semaphore, value, spinNs, timeoutNs uint64) Result {
	return d.waitTimeline(s, value, spinNs, timeoutNs, 0)
}

// WaitTimelineYielding is WaitTimeline yielding the core (sched_yield)
// between polls: for a CPU device (lavapipe), whose work runs on the cores
// the poll would otherwise take.
func (d *Device) WaitTimelineYielding(s Semaphore, value, spinNs, timeoutNs uint64) Result {
	return d.waitTimeline(s, value, spinNs, timeoutNs, 1)
}

func (d *Device) waitTimeline(s Semaphore, value, spinNs, timeoutNs uint64, yield C.int) Result {
	if d.needTimeline("vkWaitSemaphores") != nil {
		return ErrorFeatureNotPresent
	}
	return Result(C.gfx_wait_timeline(d.fn.getSemaphoreCounterValue, d.fn.waitSemaphores, d.h,
		C.VkSemaphore(s), C.uint64_t(value), C.uint64_t(spinNs), C.uint64_t(timeoutNs), yield))
}
