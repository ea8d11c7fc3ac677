#include <stdlib.h>
#include "dlpack.h"
#include "_cgo_export.h"

// The managed tensor, its shape and its strides are one malloc'd block;
// manager_ctx is an integer handle into the package's table, never a Go
// pointer. The deleter drops the handle (releasing the memory's owner in Go)
// and frees the block.
void gfx_dlpack_delete(gfx_DLManagedTensor *m) {
	if (m == NULL) return;
	gfxDLPackRelease((uintptr_t)m->manager_ctx);
	free(m);
}

void gfx_dlpack_delete_versioned(gfx_DLManagedTensorVersioned *m) {
	if (m == NULL) return;
	gfxDLPackRelease((uintptr_t)m->manager_ctx);
	free(m);
}
