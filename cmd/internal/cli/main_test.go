package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run(nil, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "devices") {
		t.Errorf("no args: rc %d, stderr %q", rc, errb.String())
	}
	errb.Reset()
	if rc := run([]string{"bogus"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), `unknown command "bogus"`) {
		t.Errorf("bogus: rc %d, stderr %q", rc, errb.String())
	}
	if rc := run([]string{"devices", "--nope"}, &out, &errb); rc != 2 {
		t.Errorf("bad flag: rc %d", rc)
	}
}

// TestDevicesAndDoctor runs both commands for real on this machine.
func TestDevicesAndDoctor(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"devices"}, &out, &errb); rc != 0 {
		t.Fatalf("devices: rc %d: %s", rc, errb.String())
	}
	text := out.String()
	t.Log("\n" + text)
	out.Reset()
	if rc := run([]string{"devices", "--json"}, &out, &errb); rc != 0 {
		t.Fatalf("devices --json: rc %d", rc)
	}
	var rep reportOut
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("devices --json is not JSON: %v\n%s", err, out.String())
	}
	if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" && len(rep.Vulkan) == 0 {
		t.Fatalf("no Vulkan device listed: %s", rep.VulkanError)
	}
	for _, v := range rep.Vulkan {
		if !strings.Contains(text, v.DeviceUUID) || !strings.Contains(text, v.Name) {
			t.Errorf("table lacks %s %s", v.Name, v.DeviceUUID)
		}
		if v.Software && !strings.Contains(text, "OPAQUE_FD export+import") {
			t.Errorf("table does not show lavapipe's OPAQUE_FD export/import")
		}
	}
	if rep.CUDAError != "" && !strings.Contains(text, "CUDA: unavailable: ") {
		t.Errorf("table does not say why CUDA is unavailable")
	}

	out.Reset()
	rc := run([]string{"doctor"}, &out, &errb)
	t.Log("\n" + out.String())
	if len(rep.Pairs) == 0 && rc == 0 {
		t.Errorf("doctor exited 0 with no GPU usable from both APIs")
	}
	if os.Getenv("GFXCUDA_REQUIRE_HARDWARE") == "1" && rc != 0 {
		t.Errorf("doctor exited %d on the GPU machine", rc)
	}
	if rc != 0 && !strings.Contains(out.String(), "fix: ") {
		t.Errorf("doctor failed without saying how to fix it")
	}
}

// Every command answers -h and --help with its usage and exit status 0,
// and a bad flag with 2.
func TestCommandHelpExitsZero(t *testing.T) {
	for name := range commands {
		for _, h := range []string{"-h", "--help"} {
			var out, errOut bytes.Buffer
			if code := run([]string{name, h}, &out, &errOut); code != 0 {
				t.Errorf("gfxcuda %s %s: exit %d, want 0\n%s", name, h, code, errOut.String())
			}
			if !strings.Contains(strings.ToLower(out.String()+errOut.String()), "usage") {
				t.Errorf("gfxcuda %s %s printed no usage", name, h)
			}
		}
		var out, errOut bytes.Buffer
		if code := run([]string{name, "--no-such-flag"}, &out, &errOut); code != 2 {
			t.Errorf("gfxcuda %s --no-such-flag: exit %d, want 2", name, code)
		}
	}
}
