"""gfxcuda's version: the same string as python/VERSION, Go's version constant
and the C library's gfxcuda_version() (GFXCUDA_VERSION_STRING). A module of
its own so that `gfxcuda.__version__` does not load the library."""

__version__ = "0.1.0"
