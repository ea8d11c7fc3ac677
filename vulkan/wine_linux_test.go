package vulkan

// underWine is false on Linux.
func underWine() bool { return false }
