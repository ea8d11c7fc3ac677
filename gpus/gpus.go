// Package gpus finds the GPUs that Vulkan and CUDA see and pairs them.
//
// Vulkan and CUDA enumerate GPUs in different orders (and CUDA_VISIBLE_DEVICES
// or a Vulkan device-select layer can hide some), so the only reliable way to
// find "the same GPU" in both is its UUID: Vulkan's deviceUUID equals CUDA's
// cuDeviceGetUuid for the same physical GPU. Every part of gfxcuda that shares
// memory between the APIs picks devices through Match. It also reports
// what a machine check needs: the APIs' versions, why one is unavailable,
// which GPUs reach each other's memory, the NVIDIA driver's parts.
//
// It imports the two API packages (cuda, vulkan) and nothing above them;
// the face (package gfxcuda) opens its Device on a pair and re-exports
// these names (gfxcuda.DiscoverDevices, gfxcuda.MatchDevices, …).
package gpus

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// UUID is a GPU's 16-byte UUID.
type UUID = cuda.UUID

// Pair links a Vulkan physical device and a CUDA device with equal UUIDs.
type Pair struct {
	UUID   UUID
	Vulkan int // index into the Vulkan list given to Match
	CUDA   int // index into the CUDA list given to Match
}

// Match pairs Vulkan and CUDA devices by UUID, never by position. A zero
// UUID (a driver that reports none) pairs with nothing. Each device appears
// in at most one pair; pairs come in Vulkan order.
func Match(vulkanUUIDs, cudaUUIDs []UUID) []Pair {
	byUUID := make(map[UUID]int, len(cudaUUIDs))
	for i, u := range cudaUUIDs {
		if _, dup := byUUID[u]; !dup && !u.IsZero() {
			byUUID[u] = i
		}
	}
	var pairs []Pair
	for i, u := range vulkanUUIDs {
		if j, ok := byUUID[u]; ok {
			pairs = append(pairs, Pair{UUID: u, Vulkan: i, CUDA: j})
			delete(byUUID, u)
		}
	}
	return pairs
}

// Report is what Discover found: every device in both APIs, the pairs, and
// why an API is unavailable when it is.
type Report struct {
	VulkanVersion vulkan.Version           // the Vulkan loader's version
	VulkanErr     error                    // why Vulkan is unavailable, if it is
	Vulkan        []*vulkan.PhysicalDevice // in Vulkan's order
	Validation    bool                     // the Khronos validation layer is installed
	CUDAVersion   cuda.Version             // the CUDA version the driver supports
	CUDAErr       error                    // why CUDA is unavailable, if it is
	CUDA          []cuda.DeviceInfo        // in CUDA's order
	Pairs         []Pair                   // devices seen by both, matched by UUID
	Peers         []PeerPath               // with two CUDA devices or more: which reaches which
	NVIDIA        NVIDIAVersions           // driver component versions, when NVIDIA's driver is installed
}

// PeerPath says whether CUDA device From can map the memory of device To
// (cuDeviceCanAccessPeer: NVLink or PCIe peer to peer). Copies between two
// GPUs go GPU to GPU over such a path (a PeerConsumer's frames, NCCL's
// transfers); without one the driver stages them through host memory.
type PeerPath struct {
	From   int  `json:"from"` // CUDA ordinals
	To     int  `json:"to"`
	Access bool `json:"access"`
}

// Discover enumerates both APIs. It does not fail: what cannot be found is
// recorded in the report's error fields.
func Discover() *Report {
	r := &Report{}
	// Validation on: only to learn whether the layer is installed.
	on := true
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "gfxcuda devices", Validation: &on})
	if err != nil {
		r.VulkanErr = err
	} else {
		r.VulkanVersion = inst.LoaderVersion()
		r.Validation = inst.ValidationEnabled()
		r.Vulkan, r.VulkanErr = inst.PhysicalDevices()
		inst.Close()
	}
	if r.CUDAVersion, r.CUDAErr = cuda.DriverVersion(); r.CUDAErr == nil {
		devs, err := cuda.Devices()
		if err != nil {
			r.CUDAErr = err
		}
		for _, d := range devs {
			in, err := d.Info()
			if err != nil {
				r.CUDAErr = err
				break
			}
			r.CUDA = append(r.CUDA, in)
		}
	peers:
		for _, a := range devs {
			for _, b := range devs {
				if a.Ordinal() == b.Ordinal() {
					continue
				}
				ok, err := a.CanAccessPeer(b)
				if err != nil {
					r.CUDAErr = err
					break peers
				}
				r.Peers = append(r.Peers, PeerPath{From: a.Ordinal(), To: b.Ordinal(), Access: ok})
			}
		}
	}
	r.Pairs = PairDevices(r.Vulkan, r.CUDA)
	r.NVIDIA = nvidiaVersions()
	for _, d := range r.Vulkan {
		if d.VendorID == 0x10de {
			r.NVIDIA.Vulkan = d.DriverVersionString()
			break
		}
	}
	return r
}

// PairDevices is Match for the device descriptions of the two packages.
func PairDevices(vk []*vulkan.PhysicalDevice, cu []cuda.DeviceInfo) []Pair {
	vu := make([]UUID, len(vk))
	for i, d := range vk {
		vu[i] = UUID(d.DeviceUUID)
	}
	cuu := make([]UUID, len(cu))
	for i, d := range cu {
		cuu[i] = d.UUID
	}
	return Match(vu, cuu)
}

// CUDAFor returns the CUDA device paired with Vulkan device i.
func (r *Report) CUDAFor(vulkanIndex int) (cuda.DeviceInfo, bool) {
	for _, p := range r.Pairs {
		if p.Vulkan == vulkanIndex {
			return r.CUDA[p.CUDA], true
		}
	}
	return cuda.DeviceInfo{}, false
}

// VulkanFor returns the Vulkan device paired with CUDA device i.
func (r *Report) VulkanFor(cudaIndex int) (*vulkan.PhysicalDevice, bool) {
	for _, p := range r.Pairs {
		if p.CUDA == cudaIndex {
			return r.Vulkan[p.Vulkan], true
		}
	}
	return nil, false
}

// NVIDIAVersions are the versions of the NVIDIA driver's parts. They must
// agree: a kernel module from one release and user-space libraries from
// another is a common cause of failures after a driver upgrade.
// Its JSON keys are snake_case, as in `gfxcuda devices --json`.
type NVIDIAVersions struct {
	KernelModule string `json:"kernel_module"` // from /proc/driver/nvidia/version
	LibCUDA      string `json:"libcuda"`       // from libcuda.so's file name
	Vulkan       string `json:"vulkan"`        // the NVIDIA Vulkan driver's version, if one is loaded
}

var versionRE = regexp.MustCompile(`\b(\d{3,}\.\d+(?:\.\d+)?)\b`)

func nvidiaVersions() NVIDIAVersions {
	var v NVIDIAVersions
	if b, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		if m := versionRE.FindStringSubmatch(line); m != nil {
			v.KernelModule = m[1]
		}
	}
	if lib := loadedLibrary("libcuda.so"); lib != "" {
		if real, err := filepath.EvalSymlinks(lib); err == nil {
			lib = real
		}
		if m := regexp.MustCompile(`libcuda\.so\.(\d+\.\d+(?:\.\d+)?)$`).FindStringSubmatch(lib); m != nil {
			v.LibCUDA = m[1]
		}
	}
	return v
}

// loadedLibrary returns the path of a mapped shared object whose base name
// starts with prefix, from /proc/self/maps.
func loadedLibrary(prefix string) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		if p := fields[len(fields)-1]; strings.HasPrefix(filepath.Base(p), prefix) {
			return p
		}
	}
	return ""
}
