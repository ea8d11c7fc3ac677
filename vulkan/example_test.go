package vulkan_test

import (
	"errors"
	"fmt"

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
