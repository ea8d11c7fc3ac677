package vulkan_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// ExampleNewInstance lists the Vulkan devices and what they can share.
func ExampleNewInstance() {
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "example"})
	if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
		fmt.Println("no Vulkan:", err)
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()

	pds, err := in.PhysicalDevices()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pd := range pds {
		fmt.Printf("%d: %s, driver %s %s, software %v\n", pd.Index, pd, pd.DriverName, pd.DriverVersionString(), pd.IsSoftware())
		fmt.Printf("   device UUID %x\n", pd.DeviceUUID)
		fmt.Printf("   memory export/import as opaque fd: %v/%v, timeline semaphore fd export: %v\n",
			pd.CanExportOpaqueFD(), pd.CanImportOpaqueFD(), pd.CanExportSemaphoreFD())

		d, err := in.NewDevice(pd, vulkan.DeviceOptions{})
		if err != nil {
			fmt.Println("  ", err)
			continue
		}
		fmt.Printf("   queue family %d, missing %v\n", d.QueueFamily(), d.Missing())
		d.Close()
	}
}

// ExampleDevice_Run uploads bytes to a host-visible buffer, copies them
// into device-local memory, overwrites a word there on the GPU, and reads
// the result back.
func ExampleDevice_Run() {
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	pds, err := in.PhysicalDevices()
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := in.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()

	msg := []byte("hello, vulkan!!!")
	src, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(len(msg)), Heap: vulkan.HeapUpload})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	gpu, err := d.NewBuffer(vulkan.BufferOptions{Size: uint64(len(msg))}) // HeapDefault: device-local
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Close()
	if err := src.Upload(0, msg); err != nil {
		fmt.Println(err)
		return
	}

	err = d.Run(func(c *vulkan.Commands) error {
		c.CopyBuffer(gpu, src, 0, 0, uint64(len(msg)))
		c.MemoryBarrier()
		c.FillBuffer(gpu, 0, 4, 0x4c4c4548) // "HELL", little-endian
		c.MemoryBarrier()
		return c.Err()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]byte, len(msg))
	if err := gpu.Readback(0, out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", out)
	// Output: HELLo, vulkan!!!
}

// ExampleDevice_Completed gives each submitted batch back to a Pool at
// once (the pool reuses it when it has finished) and still tells when the
// work is done, by the batches' serials.
func ExampleDevice_Completed() {
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	pds, err := in.PhysicalDevices()
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := in.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	buf, err := d.NewBuffer(vulkan.BufferOptions{Size: 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer buf.Close()

	pool := d.NewPool()
	defer pool.Close()
	var serials []uint64
	for step := range 3 {
		c, err := pool.Get()
		if err != nil {
			fmt.Println(err)
			return
		}
		c.FillBuffer(buf, 0, 16, uint32(step))
		err = c.Submit(vulkan.SubmitOptions{})
		serials = append(serials, c.Serial()) // before the pool may reuse c
		pool.Put(c)
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	// The last serial reached means every batch before it finished too.
	last := serials[len(serials)-1]
	if err := d.WaitCompleted(last, 10*time.Second); err != nil {
		fmt.Println(err)
		return
	}
	done, err := d.Completed()
	fmt.Println("serials in submission order:", serials[1] == serials[0]+1 && serials[2] == serials[1]+1)
	fmt.Println("all done:", err == nil && done >= last)
	// Output:
	// serials in submission order: true
	// all done: true
}
