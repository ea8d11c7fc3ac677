package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The bench warns when the validation layer is on, and only then: on
// lavapipe, an instance with the layer and one without.
func TestBenchValidationWarning(t *testing.T) {
	for _, on := range []bool{false, true} {
		in, err := vulkan.NewInstance(vulkan.InstanceOptions{Validation: &on})
		if err != nil {
			if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
				t.Fatal(err)
			}
			t.Skipf("no Vulkan: %v", err)
		}
		if on && in.ValidationMissing() {
			in.Close()
			t.Skip("the validation layer is not installed")
		}
		m := validationWarning(in)
		in.Close()
		if on && !strings.Contains(m, "validation layer is on") {
			t.Errorf("validation on: warning %q", m)
		}
		if !on && m != "" {
			t.Errorf("validation off: warning %q, want none", m)
		}
	}
	if validationWarning(nil) != "" {
		t.Error("a nil instance gave a warning")
	}
}
