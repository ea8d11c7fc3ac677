package gfxcuda

// Version is gfxcuda's version, in semantic versioning: what `gfxcuda
// version` prints, what the C library's gfxcuda_version() returns
// (GFXCUDA_VERSION_STRING in cmd/libgfxcuda/capi.h) and Python's
// gfxcuda.__version__ (python/VERSION, python/gfxcuda/_version.py). A test
// (TestVersionAgrees) fails when they differ: change them together.
const Version = "0.1.0"
