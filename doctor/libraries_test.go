package doctor

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mapped lists the files /proc/self/maps shows mapped into this process.
func mapped(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var files []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) >= 6 && strings.HasPrefix(fs[5], "/") {
			files = append(files, fs[5])
		}
	}
	return files
}

// TestProbeLibraries: doctor names the file each library was loaded from:
// the Vulkan loader (lavapipe's machine: Debian's libvulkan1) is a file that
// exists and is the one /proc/self/maps shows mapped, its real name (no
// symbolic link left); libcuda, absent here, is "not found" with the names
// tried and the directories searched, which is no failure of the probe. On
// a machine with the NVIDIA driver libcuda is checked as Vulkan's loader is.
func TestProbeLibraries(t *testing.T) {
	libs := ProbeLibraries()
	byName := map[string]LoadedLibrary{}
	for _, l := range libs {
		byName[l.Name] = l
	}
	maps := mapped(t)
	checkMapped := func(l LoadedLibrary) {
		t.Helper()
		if !filepath.IsAbs(l.Path) {
			t.Errorf("%s: path %q is not absolute", l.Name, l.Path)
		}
		if real, err := filepath.EvalSymlinks(l.Path); err != nil || real != l.Path {
			t.Errorf("%s: path %q is not the real file (%q, %v)", l.Name, l.Path, real, err)
		}
		if !slices.Contains(maps, l.Path) {
			t.Errorf("%s: %s is not mapped into the process; /proc/self/maps has %v", l.Name, l.Path, maps)
		}
		if l.Detail() != l.Path || l.LookedFor != nil || l.LookedIn != nil {
			t.Errorf("%s found, described as %+v: %q", l.Name, l, l.Detail())
		}
	}

	v, ok := byName["libvulkan.so.1"]
	if !ok || v.For != "Vulkan" {
		t.Fatalf("no Vulkan loader in %+v", libs)
	}
	if v.Found() {
		checkMapped(v)
		if !strings.HasPrefix(filepath.Base(v.Path), "libvulkan.so") {
			t.Errorf("Vulkan loader loaded from %s", v.Path)
		}
	} else if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
		t.Errorf("GFXCUDA_REQUIRE_VULKAN=1 but the Vulkan loader: %s", v.Detail())
	}

	c, ok := byName["libcuda.so.1"]
	if !ok || c.For != "CUDA" {
		t.Fatalf("no libcuda in %+v", libs)
	}
	if c.Found() {
		checkMapped(c)
	} else {
		if os.Getenv("GFXCUDA_LIBCUDA") == "" && !slices.Equal(c.LookedFor, []string{"libcuda.so.1", "libcuda.so"}) {
			t.Errorf("libcuda looked for as %v", c.LookedFor)
		}
		if len(c.LookedIn) == 0 || !slices.Contains(c.LookedIn, "/etc/ld.so.cache") {
			t.Errorf("libcuda: where it was looked for is %v", c.LookedIn)
		}
		d := c.Detail()
		if !strings.HasPrefix(d, "not found: looked for libcuda.so.1, libcuda.so in ") || !strings.Contains(d, "/etc/ld.so.cache") {
			t.Errorf("libcuda not found, described as %q", d)
		}
	}

	if e := byName["libEGL.so.1"]; e.Found() {
		checkMapped(e)
	} else if e.For != "OpenGL" {
		t.Errorf("no libEGL in %+v", libs)
	}
	// A test binary is an executable: no library of gfxcuda's own.
	if len(libs) != 3 {
		t.Errorf("%d libraries, want 3: %+v", len(libs), libs)
	}
}

// TestLibraryNotFoundDetail: the text for a library not found names the
// names tried, where they were looked for, a path given by an environment
// variable, and dlerror's reason when it is not a missing file.
func TestLibraryNotFoundDetail(t *testing.T) {
	for _, c := range []struct {
		l    LoadedLibrary
		want string
	}{
		{LoadedLibrary{LookedFor: []string{"libcuda.so.1", "libcuda.so"}, LookedIn: []string{"/opt/x", "/etc/ld.so.cache", "/usr/lib"}},
			"not found: looked for libcuda.so.1, libcuda.so in /opt/x, /etc/ld.so.cache, /usr/lib"},
		{LoadedLibrary{LookedFor: []string{"/opt/nv/libcuda.so"}},
			"not found: looked for /opt/nv/libcuda.so"},
		{LoadedLibrary{LookedFor: []string{"libEGL.so.1"}, LookedIn: []string{"/usr/lib"}, Error: "libEGL.so.1: wrong ELF class: ELFCLASS32"},
			"not found: looked for libEGL.so.1 in /usr/lib (libEGL.so.1: wrong ELF class: ELFCLASS32)"},
		{LoadedLibrary{Path: "/usr/lib/libvulkan.so.1.3.239"}, "/usr/lib/libvulkan.so.1.3.239"},
	} {
		if got := c.l.Detail(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.l, got, c.want)
		}
	}
}
