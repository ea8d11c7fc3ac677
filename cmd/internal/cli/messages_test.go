package cli

// Regression tests of issue #31's item 6: messages that misled. Each
// mistake is refused (exit status 2) with what was wrong in the user's
// words and how to fix it.

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/compute"
)

// messageCase is a gfxcuda run command line, its exit status, the words
// the first line of its stderr must have and those no line may have.
type messageCase struct {
	args   []string
	rc     int
	want   []string
	reject []string
}

// checkMessages runs each case in dir and checks it.
func checkMessages(t *testing.T, dir string, cases []messageCase) {
	t.Helper()
	for _, c := range cases {
		rc, _, stderr := runCLI(t, dir, append(c.args, "-q")...)
		if rc != c.rc {
			t.Errorf("run %s: exit %d, want %d\n%s", strings.Join(c.args, " "), rc, c.rc, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(firstLine(stderr), w) {
				t.Errorf("run %s: the first line lacks %q:\n%s", strings.Join(c.args, " "), w, stderr)
			}
		}
		for _, r := range c.reject {
			if strings.Contains(stderr, r) {
				t.Errorf("run %s: says %q:\n%s", strings.Join(c.args, " "), r, stderr)
			}
		}
	}
}

// A buffer's SIZE: a suggestion the command then accepts, a size with a
// fraction, 0, a unit it does not know, a size larger than the device's
// memory or than it binds as one storage buffer: each is named as the
// size it is, never "neither a size nor an existing file" nor a bare
// Vulkan error.
func TestRunSizeMessages(t *testing.T) {
	needVulkan(t)
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		t.Fatal(err)
	}
	heap, onlyHeap := deviceHeap(dev)
	maxRange := uint64(dev.Limits().MaxStorageBufferRange)
	maxUniform := uint64(dev.Limits().MaxUniformBufferRange)
	dev.Close()
	dir := t.TempDir()
	writeFile(t, dir, "k.hlsl", "RWStructuredBuffer<float> o : register(u0);\n[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n")
	writeFile(t, dir, "cb.hlsl", "cbuffer P : register(b0) { float4 k; };\nRWStructuredBuffer<float> o : register(u0);\n"+
		"[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = k.x; }\n")
	writeFile(t, dir, "tb.hlsl", "RWBuffer<float4> o : register(u0);\n[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n")
	notSize := "neither a size nor an existing file"
	heapWords := fmt.Sprintf("its largest memory heap holds %d bytes (%s)", heap, humanBytes(heap))
	cases := []messageCase{
		{[]string{"k.hlsl", "--uav", "0:3"}, 2, []string{"--uav 0:3: o holds 4-byte elements; 3 bytes is not a whole number of them (use 4)"}, []string{"use 0"}},
		{[]string{"k.hlsl", "--uav", "0:4"}, 0, nil, nil}, // the size suggested
		{[]string{"tb.hlsl", "--uav", "0:3:rgba32_float"}, 2, []string{"3 bytes is not a multiple of 16 (use 16)"}, []string{"use 0"}},
		{[]string{"k.hlsl", "--uav", "0:0"}, 2, []string{"--uav 0:0: a buffer of 0 bytes holds nothing", "such as 4096"}, []string{notSize}},
		{[]string{"k.hlsl", "--uav", "0:1.5G"}, 2, []string{"--uav 0:1.5G: 1.5G: a size is a whole number of bytes, k, M or G; give 1536M (1610612736 bytes)"}, []string{notSize}},
		{[]string{"k.hlsl", "--uav", "0:2.5"}, 2, []string{"2.5 is not a whole number of bytes"}, []string{notSize}},
		{[]string{"k.hlsl", "--uav", "0:-4"}, 2, []string{"-4: a size cannot be negative"}, []string{notSize}},
		{[]string{"k.hlsl", "--uav", "0:100T"}, 2, []string{`100T: "T" is not a unit of size`, "k, M or G"}, []string{notSize}},
		{[]string{"k.hlsl", "--uav", "0:99999999999999999999"}, 2, []string{"a buffer of 99999999999999999999 bytes does not fit", heapWords}, []string{notSize}},
		// Larger than the device's memory: refused before it is made,
		// with the heap's size, not VK_ERROR_OUT_OF_DEVICE_MEMORY.
		{[]string{"k.hlsl", "--uav", "0:" + strconv.FormatUint(2*heap, 10)}, 2, []string{heapWords, "give a smaller size"}, []string{"VK_ERROR"}},
		{[]string{"k.hlsl", "--uav", fmt.Sprintf("0:%dG", 2*heap>>30)}, 2, []string{fmt.Sprintf("(%d bytes) does not fit", 2*heap>>30<<30), heapWords}, []string{"VK_ERROR"}},
		{[]string{"tb.hlsl", "--uav", "0:100T:r8_unorm"}, 2, []string{`"T" is not a unit of size`}, []string{notSize}},
		{[]string{"k.hlsl", "--uav", "0:nofile.npy"}, 2, []string{`"nofile.npy" is neither a size nor an existing file`}, nil},
	}
	if r := (maxRange/4 + 1) * 4; maxRange > 0 && r < heap/2 {
		// More than the device binds as one storage buffer: refused
		// before it is made, not when dispatched (or, on lavapipe from
		// 2 GiB, by a crash in its copy).
		cases = append(cases, messageCase{[]string{"k.hlsl", "--uav", "0:" + strconv.FormatUint(r, 10)}, 2,
			[]string{fmt.Sprintf("binds as one storage buffer (maxStorageBufferRange %d bytes", maxRange), fmt.Sprintf("give at most %d bytes", maxRange/4*4)}, []string{"binding 2048"}})
	}
	if maxUniform > 0 && maxUniform+16 < heap/2 {
		// A constant buffer the shader would see only the start of.
		cases = append(cases, messageCase{[]string{"cb.hlsl", "--uav", "0:256", "--cbv", "0:" + strconv.FormatUint(maxUniform+16, 10)}, 2,
			[]string{fmt.Sprintf("binds as one constant buffer (maxUniformBufferRange %d bytes", maxUniform)}, nil})
	}
	if onlyHeap {
		// A buffer of the whole of a device's only heap, which its
		// staging buffers need too (lavapipe's copy crashed at 2 GiB).
		cases = append(cases, messageCase{[]string{"cb.hlsl", "--uav", "0:256", "--cbv", "0:" + strconv.FormatUint(heap, 10)}, 2,
			[]string{"takes all of", fmt.Sprintf("its only memory heap holds %d bytes", heap)}, nil})
	}
	checkMessages(t, dir, cases)
}

// --dispatch and --threads: negative, zero, too large and malformed counts
// are named as what they are, in the flag the user gave.
func TestRunDispatchMessages(t *testing.T) {
	needVulkan(t)
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		t.Fatal(err)
	}
	maxX := uint64(dev.Limits().MaxComputeWorkGroupCount[0])
	dev.Close()
	dir := t.TempDir()
	writeFile(t, dir, "k.hlsl", "RWStructuredBuffer<float> o : register(u0);\n[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n")
	notNumber := "is not a number"
	// One workgroup of 64 more than the device runs in x.
	tooMany := strconv.FormatUint((maxX+1)*64, 10)
	cases := []messageCase{
		{[]string{"k.hlsl", "--uav", "0:256", "--dispatch", "-1"}, 2, []string{"--dispatch -1: -1 workgroups in x: a count cannot be negative"}, []string{notNumber}},
		{[]string{"k.hlsl", "--uav", "0:256", "--dispatch", "99999999999"}, 2,
			[]string{"--dispatch 99999999999: 99999999999 workgroups in x exceed", "maxComputeWorkGroupCount"}, []string{notNumber}},
		{[]string{"k.hlsl", "--uav", "0:256", "--dispatch", "1,99999999999999999999999"}, 2, []string{"workgroups in y is more than any device runs"}, []string{notNumber}},
		{[]string{"k.hlsl", "--uav", "0:256", "--dispatch", "1.5"}, 2, []string{"1.5 in x is not a whole number"}, nil},
		{[]string{"k.hlsl", "--uav", "0:256", "--dispatch", "4,,1"}, 2, []string{"no number in y"}, nil},
		// A dispatch of nothing is refused, not run silently.
		{[]string{"k.hlsl", "--uav", "0:256", "--dispatch", "0"}, 2, []string{"--dispatch 0: 0 workgroups in x run nothing"}, nil},
		{[]string{"k.hlsl", "--uav", "0:256", "--dispatch", "4,1,0"}, 2, []string{"--dispatch 4,1,0: 0 workgroups in z run nothing"}, nil},
		{[]string{"k.hlsl", "--uav", "0:256", "--threads", "0"}, 2, []string{"--threads 0: 0 threads in x run nothing"}, nil},
		// --threads is named, not a --dispatch the user did not give.
		{[]string{"k.hlsl", "--uav", "0:256", "--threads", tooMany}, 2,
			[]string{fmt.Sprintf("--threads %s: %s threads in x take %d workgroups of 64", tooMany, tooMany, maxX+1), fmt.Sprintf("cover at most %d threads in x", maxX*64)},
			[]string{"--dispatch"}},
		{[]string{"k.hlsl", "--uav", "0:256", "--threads", "-5,1"}, 2, []string{"--threads -5,1: -5 threads in x: a count cannot be negative"}, []string{notNumber}},
	}
	if maxX < 1<<26 {
		// 2^32-1 threads do not wrap round to 0 workgroups (and run
		// nothing) where 2^26 workgroups are too many.
		cases = append(cases, messageCase{[]string{"k.hlsl", "--uav", "0:256", "--threads", "4294967295"}, 2,
			[]string{"--threads 4294967295: 4294967295 threads in x take 67108864 workgroups"}, nil})
	}
	checkMessages(t, dir, cases)
}

// --entry that names no entry point, and a shader without main and no
// --entry, are usage errors listing the entry points the shader has, in
// every language.
func TestRunEntryMessages(t *testing.T) {
	needVulkan(t)
	dir := t.TempDir()
	writeFile(t, dir, "k.hlsl", "RWStructuredBuffer<float> o : register(u0);\n[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n")
	writeFile(t, dir, "two.hlsl", "RWStructuredBuffer<float> o : register(u0);\n// [numthreads(1,1,1)] void commented(uint3 id : SV_DispatchThreadID) {}\n"+
		"[numthreads(64,1,1)] void fill(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n[numthreads(64, 1, 1)]\nvoid other(uint3 id : SV_DispatchThreadID) { o[id.x] = 2; }\n")
	writeFile(t, dir, "k.comp", "#version 450\nlayout(local_size_x = 64) in;\nlayout(binding = 0) buffer B { float o[]; };\nvoid main() { o[gl_GlobalInvocationID.x] = 1.0; }\n")
	writeFile(t, dir, "k.wgsl", "@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n"+
		"@compute @workgroup_size(64) fn fill(@builtin(global_invocation_id) id: vec3<u32>) { o[id.x] = 1.0; }\n"+
		"@workgroup_size(64) @compute fn other(@builtin(global_invocation_id) id: vec3<u32>) { o[id.x] = 2.0; }\n")
	checkMessages(t, dir, []messageCase{
		{[]string{"k.hlsl", "--uav", "0:256", "--entry", "nope"}, 2,
			[]string{"--entry nope: k.hlsl has no compute entry point nope; its [numthreads] functions: main; leave --entry out"}, []string{"warning"}},
		{[]string{"two.hlsl", "--uav", "0:256", "--entry", "nope"}, 2,
			[]string{"--entry nope: two.hlsl has no compute entry point nope; its [numthreads] functions: fill, other; choose one with --entry, such as --entry fill"}, nil},
		{[]string{"two.hlsl", "--uav", "0:256"}, 2, []string{"two.hlsl has 2 [numthreads] functions (fill, other) and none is named main"}, []string{"warning"}},
		{[]string{"two.hlsl", "--uav", "0:256", "--entry", "other"}, 0, nil, nil},
		{[]string{"k.comp", "--uav", "0:256", "--entry", "nope"}, 2, []string{"--entry nope: k.comp has no compute entry point nope", "main"}, []string{"NewComputePipeline"}},
		{[]string{"k.wgsl", "--uav", "0:256"}, 2, []string{"k.wgsl has 2 @compute functions (fill, other)", "--entry fill"}, []string{"Options.EntryPoint"}},
		{[]string{"k.wgsl", "--uav", "0:256", "--entry", "nope"}, 2, []string{"--entry nope: k.wgsl has no compute entry point nope; its @compute functions: fill, other"}, nil},
		{[]string{"k.wgsl", "--uav", "0:256", "--entry", "other"}, 0, nil, nil},
	})
}

// bench's --reps and --frames are refused out of their range, naming the
// flag, the value and the range, --quick or not; --png refuses a name that
// is not a .png before any work.
func TestBenchFlagRanges(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reps", "0"}, "--reps 0: give 1 to 1000 repetitions"},
		{[]string{"--reps", "-3"}, "--reps -3: give 1 to 1000 repetitions"},
		{[]string{"--reps", "0", "--quick"}, "--reps 0: give 1 to 1000 repetitions"},
		{[]string{"--reps", "1001"}, "--reps 1001: give 1 to 1000"},
		{[]string{"--frames", "-5"}, "--frames -5: give 8 to 1048576 frames"},
		{[]string{"--frames", "0", "--quick"}, "--frames 0: give 8 to 1048576 frames"},
	} {
		// --only nosuch after: a flag that passed would be refused there.
		args := append(append([]string{"bench"}, c.args...), "--only", "nosuch")
		checkUsageError(t, "bench", args, c.want)
	}
	dir := t.TempDir()
	for _, name := range []string{"out.jpg", "chart", "out.png.gif"} {
		stderr := checkUsageError(t, "bench", []string{"bench", "--only", "compute", "--quick", "--png", filepath.Join(dir, name)},
			"--png "+filepath.Join(dir, name)+": the chart is a PNG; give a file name ending in .png")
		if strings.Contains(stderr, "░") {
			t.Errorf("bench --png %s: refused after the work began:\n%s", name, stderr)
		}
	}
}
