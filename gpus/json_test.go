package gpus

import (
	"encoding/json"
	"testing"
)

// NVIDIAVersions marshals with the snake_case keys of `gfxcuda devices
// --json`, not its Go field names.
func TestNVIDIAVersionsJSON(t *testing.T) {
	b, err := json.Marshal(NVIDIAVersions{KernelModule: "580.159.04", LibCUDA: "580.159.04", Vulkan: "580.159.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"kernel_module":"580.159.04","libcuda":"580.159.04","vulkan":"580.159.4.0"}`; got != want {
		t.Errorf("JSON %s, want %s", got, want)
	}
}
