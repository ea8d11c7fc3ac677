#ifndef GFXCUDA_CAPI_H
#define GFXCUDA_CAPI_H
#include <stddef.h>
#include <stdint.h>
/* The C API's types and constants, declared once (gfxcuda.h); cgo declares
 * the functions cmd/libgfxcuda exports (_cgo_export.h). */
#define GFXCUDA_TYPES_ONLY
#include "gfxcuda.h"
#define GFXCUDA_VERSION_STRING "0.1.0"
void gfx_set_error(const char *msg, size_t n);
void gfxcuda_dlpack_capsule_destructor(void *capsule);
void *gfx_exporter_new(uint64_t owner);
long long gfx_exported_count(void);

// The DLPack exporters of capi.c, for the exchange API (exchange.c).
void *gfx_exporter_build(void *exporter, const gfxcuda_tensor_t *d, int versioned);
int gfx_exporter_check(void *exporter, const gfxcuda_tensor_t *d);
void gfx_exporter_ref(void *exporter);
void gfx_exporter_drop_ref(void *exporter);

#endif
