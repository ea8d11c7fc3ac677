package vulkan

// closeFD does nothing on Windows: no Vulkan memory or semaphore file
// descriptor can be obtained there (OPAQUE_FD is refused before any is
// made), and a Windows HANDLE is no int file descriptor to close.
func closeFD(int) {}
