// Trampolines between shaderc's include callbacks and the Go functions
// exported by include.go.

#include <stdint.h>
#include <shaderc/shaderc.h>
#include "_cgo_export.h"

static shaderc_include_result *gfx_resolve(void *user_data, const char *requested, int type,
                                           const char *requesting, size_t depth) {
	return (shaderc_include_result *)gfxShadercResolve((uintptr_t)user_data, (char *)requested, type,
	                                                   (char *)requesting, depth);
}

static void gfx_release(void *user_data, shaderc_include_result *result) {
	gfxShadercRelease((uintptr_t)user_data, result);
}

void gfx_shaderc_set_includer(shaderc_compile_options_t opts, uintptr_t handle) {
	shaderc_compile_options_set_include_callbacks(opts, gfx_resolve, gfx_release, (void *)handle);
}
