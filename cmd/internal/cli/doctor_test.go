package cli

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/doctor"
)

// TestDoctorYouCanUse: doctor lists what works here, in text and in JSON
// (you_can_use: what and try), with the same exit status either way. Where
// Vulkan runs (lavapipe included) the list names compute shaders.
func TestDoctorYouCanUse(t *testing.T) {
	var text, js, errb bytes.Buffer
	rc := run([]string{"doctor"}, &text, &errb)
	rcJSON := run([]string{"doctor", "--json"}, &js, &errb)
	if rc != rcJSON {
		t.Errorf("exit %d as text, %d as JSON", rc, rcJSON)
	}
	var res struct {
		Checks []map[string]string `json:"checks"`
		OK     bool                `json:"ok"`
		Uses   []map[string]string `json:"you_can_use"`
	}
	if err := json.Unmarshal(js.Bytes(), &res); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, js.String())
	}
	if res.OK != (rc == 0) {
		t.Errorf("ok %v, exit %d", res.OK, rc)
	}
	if res.Uses == nil {
		t.Fatalf("no you_can_use list: %s", js.String())
	}
	for _, u := range res.Uses {
		if u["what"] == "" || u["try"] == "" || len(u) != 2 {
			t.Errorf("you_can_use entry %v", u)
		}
		if !strings.Contains(text.String(), "  - "+u["what"]+"\n      try: "+u["try"]+"\n") {
			t.Errorf("text lacks %v:\n%s", u, text.String())
		}
	}
	if r := gfxcuda.DiscoverDevices(); r.VulkanErr == nil && len(r.Vulkan) > 0 {
		if !strings.Contains(text.String(), "\nYou can use here:\n  - compute shaders") {
			t.Errorf("Vulkan runs but doctor does not say compute shaders do:\n%s", text.String())
		}
	}
	checkDoctorLibraries(t, text.String(), js.Bytes())
	var none bytes.Buffer
	printYouCanUse(&none, []doctor.Use{})
	if !strings.Contains(none.String(), "nothing yet") {
		t.Errorf("empty list printed as %q", none.String())
	}
}

// checkDoctorLibraries: doctor's text says, under "Libraries loaded:", the
// file each run-time library was loaded from or where it was looked for,
// as its JSON's libraries do (name, for, path; looked_for and looked_in
// when not found): the Vulkan loader, libcuda and libEGL, in that order.
func checkDoctorLibraries(t *testing.T, text string, js []byte) {
	t.Helper()
	var res struct {
		Libraries []doctor.LoadedLibrary `json:"libraries"`
	}
	if err := json.Unmarshal(js, &res); err != nil {
		t.Fatalf("doctor --json: %v", err)
	}
	var names []string
	want := "\nLibraries loaded:\n"
	for _, l := range res.Libraries {
		names = append(names, l.Name)
		want += "  - " + l.Name + " (" + l.For + "): " + l.Detail() + "\n"
		if l.Path == "" && len(l.LookedFor) == 0 && l.Error == "" {
			t.Errorf("library %s neither found nor looked for: %+v", l.Name, l)
		}
	}
	wantNames := "libvulkan.so.1 libcuda.so.1 libEGL.so.1"
	if runtime.GOOS == "windows" {
		wantNames = "vulkan-1.dll nvcuda.dll EGL (not on Windows yet)"
	}
	if strings.Join(names, " ") != wantNames {
		t.Errorf("doctor --json libraries: %v", names)
	}
	if !strings.Contains(text, want+"\nYou can use") {
		t.Errorf("doctor's text lacks\n%s\n%s", want, text)
	}
	if !strings.Contains(string(js), `"libraries": [`) || !strings.Contains(string(js), `"path": "`) {
		t.Errorf("doctor --json lacks libraries' paths:\n%s", js)
	}
}
