package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

const devicesAbout = `Lists the GPUs that Vulkan and CUDA see and pairs them by UUID (the one
reliable way to find the same GPU in both APIs), with what each can share:
external memory and semaphore handle types, timeline semaphores, memory
heaps and queue families. The EGL column gives each GPU's EGL device index
(eglQueryDevicesEXT's order: what MUJOCO_EGL_DEVICE_ID and pyrender's
EGL_DEVICE_ID take), matched by UUID, else by EGL_NV_device_cuda. Exits 0
even where CUDA, Vulkan or EGL is missing: the output says why. --json prints the same as one JSON object (snake_case
keys, handle types and device types by name).`

func runDevices(args []string, stdout, stderr io.Writer) int {
	cl := newCmdLine("devices", devicesAbout, stdout, stderr)
	asJSON := cl.fs.Bool("json", false, "print JSON instead of a table")
	if _, code, ok := cl.parse(args); !ok {
		return code
	}
	r := gfxcuda.DiscoverDevices()
	e := discoverEGL()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reportJSON(r, e)); err != nil {
			fmt.Fprintln(stderr, "gfxcuda:", err)
			return 1
		}
		return 0
	}
	printDevices(stdout, r, e)
	return 0
}

// eglDevices is what `gfxcuda devices` knows of EGL's devices: the list,
// or why there is none (libEGL missing: the command still succeeds).
type eglDevices struct {
	devs []gl.EGLDevice
	err  error
}

// discoverEGL lists EGL's devices; libEGL is loaded here, by the devices
// command only.
func discoverEGL() eglDevices {
	d, err := gl.EGLDevices()
	return eglDevices{devs: d, err: err}
}

// index is the EGL device index of the GPU with this UUID (cudaOrdinal:
// its CUDA ordinal, -1 where CUDA does not see it), or -1.
func (e eglDevices) index(uuid [16]byte, cudaOrdinal int) int {
	return gl.MatchEGLDevice(e.devs, uuid, cudaOrdinal)
}

// indexOrNil is index for JSON: nil (null) where no EGL device matches.
func (e eglDevices) indexOrNil(uuid [16]byte, cudaOrdinal int) *int {
	if i := e.index(uuid, cudaOrdinal); i >= 0 {
		return &i
	}
	return nil
}

// cell writes an index for a table: "-" for none.
func cell(i int) string {
	if i < 0 {
		return "-"
	}
	return fmt.Sprint(i)
}

func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }

func uuidString(u [16]byte) string { return cuda.UUID(u).String() }

// ways says "export", "import" or "export+import" ("" for neither).
func ways(exportable, importable bool) string {
	var how []string
	if exportable {
		how = append(how, "export")
	}
	if importable {
		how = append(how, "import")
	}
	return strings.Join(how, "+")
}

func joinOrNone(parts []string) string {
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// externalSummary lists which handle types can be exported and imported.
func externalSummary(list []vulkan.ExternalMemorySupport) string {
	var parts []string
	for _, e := range list {
		if w := ways(e.Exportable, e.Importable); w != "" {
			s := e.Handle.String() + " " + w
			if e.DedicatedOnly {
				s += " (dedicated)"
			}
			parts = append(parts, s)
		}
	}
	return joinOrNone(parts)
}

func semaphoreSummary(list []vulkan.ExternalSemaphoreSupport) string {
	var parts []string
	for _, e := range list {
		if w := ways(e.Exportable, e.Importable); w != "" {
			kind := "binary"
			if e.Timeline {
				kind = "timeline"
			}
			parts = append(parts, kind+" "+e.Handle.String()+" "+w)
		}
	}
	return joinOrNone(parts)
}

func printDevices(w io.Writer, r *gfxcuda.DeviceReport, e eglDevices) {
	pairedCUDA := map[int]int{} // vulkan index → cuda ordinal
	pairedVK := map[int]int{}   // cuda index → vulkan index
	for _, p := range r.Pairs {
		pairedCUDA[p.Vulkan] = r.CUDA[p.CUDA].Ordinal
		pairedVK[p.CUDA] = p.Vulkan
	}

	if r.VulkanErr != nil {
		fmt.Fprintf(w, "Vulkan: unavailable: %v\n", r.VulkanErr)
	} else {
		fmt.Fprintf(w, "Vulkan %s: %d physical device(s)\n", r.VulkanVersion, len(r.Vulkan))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tNAME\tTYPE\tVENDOR:DEVICE\tAPI\tDRIVER\tDEVICE UUID\tCUDA\tEGL")
		for i, d := range r.Vulkan {
			o, ok := pairedCUDA[i]
			if !ok {
				o = -1
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%04x:%04x\t%s\t%s %s\t%s\t%s\t%s\n", d.Index, d.Name, d.Type, d.VendorID, d.DeviceID,
				d.APIVersion, d.DriverName, d.DriverVersionString(), uuidString(d.DeviceUUID), cell(o), cell(e.index(d.DeviceUUID, o)))
		}
		tw.Flush()
		for _, d := range r.Vulkan {
			fmt.Fprintf(w, "\n  [%d] %s\n", d.Index, d.Name)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "      driver\t%s (%s), driverUUID %s\n", d.DriverName, d.DriverInfo, uuidString(d.DriverUUID))
			for i, h := range d.MemoryHeaps {
				kind := "host-visible"
				if h.DeviceLocal {
					kind = "device-local"
				}
				fmt.Fprintf(tw, "      memory heap %d\t%s %s\n", i, gib(h.Size), kind)
			}
			for _, q := range d.QueueFamilies {
				var caps []string
				if q.Graphics {
					caps = append(caps, "graphics")
				}
				if q.Compute {
					caps = append(caps, "compute")
				}
				if q.Transfer {
					caps = append(caps, "transfer")
				}
				fmt.Fprintf(tw, "      queue family %d\t%d× %s\n", q.Index, q.Count, strings.Join(caps, " "))
			}
			fmt.Fprintf(tw, "      external memory (buffers)\t%s\n", externalSummary(d.ExternalMemory))
			fmt.Fprintf(tw, "      external memory (images)\t%s\n", externalSummary(d.ExternalImageMemory))
			fmt.Fprintf(tw, "      external semaphores\t%s\n", semaphoreSummary(d.ExternalSemaphore))
			fmt.Fprintf(tw, "      timeline semaphores\t%v, synchronization2 %v\n", d.TimelineSemaphore, d.Synchronization2)
			tw.Flush()
		}
	}
	fmt.Fprintln(w)

	if r.CUDAErr != nil {
		fmt.Fprintf(w, "CUDA: unavailable: %v\n", r.CUDAErr)
		if nd, ok := r.CUDAErr.(*cuda.NoDriverError); ok && nd.Fix != "" {
			fmt.Fprintf(w, "  fix: %s\n", nd.Fix)
		}
	} else {
		fmt.Fprintf(w, "CUDA %s: %d device(s)\n", r.CUDAVersion, len(r.CUDA))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tNAME\tUUID\tPCI\tMEMORY FREE/TOTAL\tSM\tSMS\tFD EXPORT\tTIMELINE SEM\tVULKAN\tEGL")
		for i, d := range r.CUDA {
			v := "-"
			if j, ok := pairedVK[i]; ok {
				v = fmt.Sprint(r.Vulkan[j].Index)
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s / %s\t%d.%d\t%d\t%v\t%v\t%s\t%s\n", d.Ordinal, d.Name, d.UUIDString, d.PCIBusID,
				gib(d.FreeMemory), gib(d.TotalMemory), d.ComputeMajor, d.ComputeMinor, d.Multiprocessors, d.PosixFDHandles, d.TimelineSemaphores, v,
				cell(e.index(d.UUID, d.Ordinal)))
		}
		tw.Flush()
		if len(r.Peers) > 0 {
			var paths []string
			for _, p := range r.Peers {
				how := "no path: copies staged through host memory"
				if p.Access {
					how = "direct"
				}
				paths = append(paths, fmt.Sprintf("%d→%d %s", p.From, p.To, how))
			}
			fmt.Fprintf(w, "  peer paths (cuDeviceCanAccessPeer): %s\n", strings.Join(paths, "; "))
		}
	}
	fmt.Fprintln(w)
	printEGL(w, e)
	fmt.Fprintln(w)
	if len(r.Pairs) == 0 {
		fmt.Fprintln(w, "Paired by UUID: none (run `gfxcuda doctor` to see why)")
	} else {
		fmt.Fprintln(w, "Paired by UUID:")
		for _, p := range r.Pairs {
			fmt.Fprintf(w, "  Vulkan %d = CUDA %d  %s  %s\n", r.Vulkan[p.Vulkan].Index, r.CUDA[p.CUDA].Ordinal, p.UUID, r.CUDA[p.CUDA].Name)
		}
	}
}

// printEGL lists EGL's devices, whose indices the EGL columns give.
func printEGL(w io.Writer, e eglDevices) {
	if e.err != nil {
		fmt.Fprintf(w, "EGL: unavailable: %v\n", e.err)
		return
	}
	fmt.Fprintf(w, "EGL: %d device(s), in eglQueryDevicesEXT's order (the index MUJOCO_EGL_DEVICE_ID and EGL_DEVICE_ID take)\n", len(e.devs))
	if len(e.devs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tDEVICE\tUUID\tCUDA")
	for _, d := range e.devs {
		u := "- (no EGL_EXT_device_persistent_id)"
		if d.UUID != nil {
			u = uuidString(*d.UUID)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", d.Index, d.Description, u, cell(d.CUDADevice))
	}
	tw.Flush()
}

// The JSON of `gfxcuda devices --json`: snake_case keys, enums by name
// ("opaque_fd", "discrete_gpu"), never a Go field name. Tests and scripts
// read these keys; change them with care.

type vulkanJSON struct {
	Index             int                 `json:"index"`
	Name              string              `json:"name"`
	Type              string              `json:"type"`
	Software          bool                `json:"software"`
	VendorID          uint32              `json:"vendor_id"`
	DeviceID          uint32              `json:"device_id"`
	APIVersion        string              `json:"api_version"`
	DriverName        string              `json:"driver_name"`
	DriverInfo        string              `json:"driver_info"`
	DriverVersion     string              `json:"driver_version"`
	DeviceUUID        string              `json:"device_uuid"`
	DriverUUID        string              `json:"driver_uuid"`
	MemoryHeaps       []heapJSON          `json:"memory_heaps"`
	QueueFamilies     []queueFamilyJSON   `json:"queue_families"`
	ExternalMemory    []externalJSON      `json:"external_memory_buffers"`
	ExternalImage     []externalJSON      `json:"external_memory_images"`
	ExternalSemaphore []externalSemaphore `json:"external_semaphores"`
	TimelineSemaphore bool                `json:"timeline_semaphore"`
	Synchronization2  bool                `json:"synchronization2"`
	CUDAOrdinal       *int                `json:"cuda_ordinal"`
	EGLIndex          *int                `json:"egl_index"` // null: no EGL device is this GPU
}

// cudaJSON is a CUDA device with its EGL device index.
type cudaJSON struct {
	cuda.DeviceInfo
	EGLIndex *int `json:"egl_index"` // null: no EGL device is this GPU
}

// eglJSON is one of EGL's devices.
type eglJSON struct {
	Index       int    `json:"index"`
	Description string `json:"description"`
	UUID        string `json:"uuid,omitempty"`         // EGL_EXT_device_persistent_id
	CUDAOrdinal *int   `json:"cuda_ordinal,omitempty"` // EGL_NV_device_cuda
}

type heapJSON struct {
	Index       int    `json:"index"`
	Size        uint64 `json:"size"`
	DeviceLocal bool   `json:"device_local"`
}

type queueFamilyJSON struct {
	Index              uint32 `json:"index"`
	Count              uint32 `json:"count"`
	Graphics           bool   `json:"graphics"`
	Compute            bool   `json:"compute"`
	Transfer           bool   `json:"transfer"`
	SparseBinding      bool   `json:"sparse_binding"`
	TimestampValidBits uint32 `json:"timestamp_valid_bits"`
}

type externalJSON struct {
	Handle        string `json:"handle"`
	Exportable    bool   `json:"exportable"`
	Importable    bool   `json:"importable"`
	DedicatedOnly bool   `json:"dedicated_only"`
}

type externalSemaphore struct {
	Handle     string `json:"handle"`
	Semaphore  string `json:"semaphore"` // "binary" or "timeline"
	Exportable bool   `json:"exportable"`
	Importable bool   `json:"importable"`
}

type pairJSON struct {
	UUID   string `json:"uuid"`
	Vulkan int    `json:"vulkan_index"`
	CUDA   int    `json:"cuda_ordinal"`
}

type reportOut struct {
	VulkanVersion string                 `json:"vulkan_version,omitempty"`
	VulkanError   string                 `json:"vulkan_error,omitempty"`
	Vulkan        []vulkanJSON           `json:"vulkan"`
	CUDAVersion   string                 `json:"cuda_version,omitempty"`
	CUDAError     string                 `json:"cuda_error,omitempty"`
	CUDAFix       string                 `json:"cuda_fix,omitempty"`
	CUDA          []cudaJSON             `json:"cuda"`
	EGLError      string                 `json:"egl_error,omitempty"`
	EGL           []eglJSON              `json:"egl_devices"`
	Pairs         []pairJSON             `json:"pairs"`
	Peers         []gfxcuda.PeerPath     `json:"cuda_peers"`
	NVIDIA        gfxcuda.NVIDIAVersions `json:"nvidia_versions"`
}

// enumName writes an enum's String as a JSON name: "OPAQUE_FD" and
// "discrete GPU" become "opaque_fd" and "discrete_gpu".
func enumName(s fmt.Stringer) string {
	return strings.ReplaceAll(strings.ToLower(s.String()), " ", "_")
}

func externalsJSON(list []vulkan.ExternalMemorySupport) []externalJSON {
	out := make([]externalJSON, 0, len(list))
	for _, e := range list {
		out = append(out, externalJSON{Handle: enumName(e.Handle), Exportable: e.Exportable, Importable: e.Importable, DedicatedOnly: e.DedicatedOnly})
	}
	return out
}

func semaphoresJSON(list []vulkan.ExternalSemaphoreSupport) []externalSemaphore {
	out := make([]externalSemaphore, 0, len(list))
	for _, e := range list {
		kind := "binary"
		if e.Timeline {
			kind = "timeline"
		}
		out = append(out, externalSemaphore{Handle: enumName(e.Handle), Semaphore: kind, Exportable: e.Exportable, Importable: e.Importable})
	}
	return out
}

func reportJSON(r *gfxcuda.DeviceReport, e eglDevices) reportOut {
	out := reportOut{Vulkan: []vulkanJSON{}, CUDA: []cudaJSON{}, EGL: []eglJSON{}, Pairs: []pairJSON{}, Peers: r.Peers, NVIDIA: r.NVIDIA}
	if out.Peers == nil {
		out.Peers = []gfxcuda.PeerPath{}
	}
	for _, d := range r.CUDA {
		out.CUDA = append(out.CUDA, cudaJSON{DeviceInfo: d, EGLIndex: e.indexOrNil(d.UUID, d.Ordinal)})
	}
	if e.err != nil {
		out.EGLError = e.err.Error()
	}
	for _, d := range e.devs {
		j := eglJSON{Index: d.Index, Description: d.Description}
		if d.UUID != nil {
			j.UUID = uuidString(*d.UUID)
		}
		if d.CUDADevice >= 0 {
			o := d.CUDADevice
			j.CUDAOrdinal = &o
		}
		out.EGL = append(out.EGL, j)
	}
	if r.VulkanErr != nil {
		out.VulkanError = r.VulkanErr.Error()
	} else {
		out.VulkanVersion = r.VulkanVersion.String()
	}
	if r.CUDAErr != nil {
		out.CUDAError = r.CUDAErr.Error()
		if nd, ok := r.CUDAErr.(*cuda.NoDriverError); ok {
			out.CUDAFix = nd.Fix
		}
	} else {
		out.CUDAVersion = r.CUDAVersion.String()
	}
	for i, d := range r.Vulkan {
		v := vulkanJSON{
			Index: d.Index, Name: d.Name, Type: enumName(d.Type), Software: d.IsSoftware(), VendorID: d.VendorID, DeviceID: d.DeviceID,
			APIVersion: d.APIVersion.String(), DriverName: d.DriverName, DriverInfo: d.DriverInfo, DriverVersion: d.DriverVersionString(),
			DeviceUUID: uuidString(d.DeviceUUID), DriverUUID: uuidString(d.DriverUUID),
			MemoryHeaps: []heapJSON{}, QueueFamilies: []queueFamilyJSON{},
			ExternalMemory: externalsJSON(d.ExternalMemory), ExternalImage: externalsJSON(d.ExternalImageMemory),
			ExternalSemaphore: semaphoresJSON(d.ExternalSemaphore),
			TimelineSemaphore: d.TimelineSemaphore, Synchronization2: d.Synchronization2,
		}
		for j, h := range d.MemoryHeaps {
			v.MemoryHeaps = append(v.MemoryHeaps, heapJSON{Index: j, Size: h.Size, DeviceLocal: h.DeviceLocal})
		}
		for _, q := range d.QueueFamilies {
			v.QueueFamilies = append(v.QueueFamilies, queueFamilyJSON{Index: q.Index, Count: q.Count, Graphics: q.Graphics,
				Compute: q.Compute, Transfer: q.Transfer, SparseBinding: q.SparseBinding, TimestampValidBits: q.TimestampValidBits})
		}
		ord := -1
		if c, ok := r.CUDAFor(i); ok {
			ord = c.Ordinal
			v.CUDAOrdinal = &ord
		}
		v.EGLIndex = e.indexOrNil(d.DeviceUUID, ord)
		out.Vulkan = append(out.Vulkan, v)
	}
	for _, p := range r.Pairs {
		out.Pairs = append(out.Pairs, pairJSON{UUID: p.UUID.String(), Vulkan: r.Vulkan[p.Vulkan].Index, CUDA: r.CUDA[p.CUDA].Ordinal})
	}
	return out
}
