// Package gfxcuda shares GPU memory between Vulkan and CUDA without copies,
// and hands it from one API to the other with explicit, correct
// synchronization.
//
// A Device is one GPU seen by both APIs (paired by UUID, never by index).
// Buffers and textures made by a Device are allocated once and visible to
// both: Vulkan through a VkBuffer or VkImage, CUDA through a device pointer
// or a CUDA array. Which API may use a resource is explicit:
//
//	acc, err := dev.ToCUDA(nil, buf, tex)   // Vulkan releases them; CUDA's stream waits
//	... launch kernels on acc.Stream() using buf.Ptr(), tex.Array() ...
//	err = acc.Done()                        // CUDA signals; Vulkan re-acquires on its next submission
//	err = dev.Run(func(c *vulkan.Commands) error { ... })  // Vulkan work, ordered after CUDA's
//
// Hand-offs never block the host: Vulkan and CUDA wait for each other on the
// GPU through two exported timeline semaphores (one per direction, so each
// is signalled by one queue only and its values always increase). Resources
// move between Vulkan's queue family and VK_QUEUE_FAMILY_EXTERNAL with the
// barriers the Vulkan specification requires, images in the GENERAL layout.
// Buffer.Map and Texture.Map wrap a hand-off around a function, so nothing
// can be left held by CUDA by mistake.
//
// The package is gfxcuda's one face: besides the Device, its buffers,
// textures, hand-offs and rings, it holds
//
//   - device pairing: DiscoverDevices, MatchDevices and PairDevices find the
//     GPUs Vulkan and CUDA see and pair them by UUID (package gpus's);
//   - tensor conversion: NewVulkanConverter records a Vulkan compute pass
//     and NewCUDAConverter launches a CUDA kernel that turn textures into
//     the tensor a learning framework wants (package tensorconv's; layouts:
//     package tensor, TensorLayout); Texture.ToTensor runs them on the
//     Device's textures;
//   - sharing between processes: Export, ExportVulkan and ExportCUDA give a
//     Token that another process opens with Device.OpenBuffer,
//     Device.OpenTexture, OpenVulkanBuffer, OpenCUDABuffer and the others;
//     SharedRing, Producer and Consumer pass frames between processes;
//   - reading frames in CUDA: Reader, one interface over every ring kind
//     (CUDAConsumer, PeerConsumer, Ring.Reader, LinkReceiver.Reader, a link
//     across GPUs or hosts whose transport is a LinkOptions field);
//   - compute: Device.Compute runs compute shaders (package compute) on the
//     Device's Vulkan side.
//
// The layer packages below it (vulkan, cuda, gl, compute, shader, spirv,
// format, dlpack, tensor, tensorconv, gpus, cudapool) stay usable alone;
// the face re-exports the names of the last three. docs/migration.md maps the
// former packages' names (interop, share, devices, compute/cudacompute,
// tensorpass, tensorpass/cudaconv) to this package's; docs/architecture.md
// draws the layers, follows a frame from a render to a tensor and says
// where a change goes.
package gfxcuda
