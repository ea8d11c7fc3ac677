package vulkan

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// Version is a Vulkan API version, such as 1.3.230.
type Version struct {
	Major, Minor, Patch uint32
}

// versionOf unpacks a VK_MAKE_API_VERSION value.
func versionOf(v uint32) Version {
	return Version{Major: vk.VersionMajor(v), Minor: vk.VersionMinor(v), Patch: vk.VersionPatch(v)}
}

// packed returns v as VK_MAKE_API_VERSION(0, Major, Minor, Patch).
func (v Version) packed() uint32 { return vk.MakeAPIVersion(0, v.Major, v.Minor, v.Patch) }

// String formats v as "major.minor.patch".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// AtLeast reports whether v is major.minor or later, whatever its patch.
func (v Version) AtLeast(major, minor uint32) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// Less reports whether v is an earlier version than w.
func (v Version) Less(w Version) bool { return v.packed() < w.packed() }
