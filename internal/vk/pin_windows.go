package vk

// pinLoadedLibraries does nothing on Windows: the Linux reason for it (a
// driver's static TLS that dlclose does not give back) does not apply to
// DLLs, which the loader unloads and reloads with FreeLibrary/LoadLibrary.
func pinLoadedLibraries() {}

// loadedObjects is not listed on Windows.
func loadedObjects() []string { return nil }
