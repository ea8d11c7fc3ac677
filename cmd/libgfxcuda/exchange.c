// DLPack 1.3's C exchange API (__dlpack_c_exchange_api__) for gfxcuda's
// Python arrays: a static DLPackExchangeAPI whose functions a consumer
// (tvm-ffi, cuda.compute, a C extension) calls with a Python array object
// instead of calling its __dlpack__ through the interpreter.
//
// The library is not linked to libpython: the few CPython functions used
// here (all of the stable ABI) are looked up once in the process with
// dlsym, when Python asks for the table. The consumer holds the GIL when it
// calls the *_py_object functions; the allocator touches no Python.
//
// An array object carries its export in the attribute "_gfxcuda_dlpack": a
// PyCapsule named "gfxcuda.dlpack_binding" over a gfx_binding, which holds
// a reference on the array's DLPack exporter (capi.c) and the tensor
// description Go checked once. An exchange reads it and builds the same
// managed tensor __dlpack__ builds (gfx_exporter_build), without Go.
#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capi.h"
#include "../../dlpack/dlpack.h"
#include "_cgo_export.h"

typedef void PyObject;

const char *gfxcuda_last_error(void);

// The CPython functions and exception types the exchange uses.
static struct {
	PyObject *(*GetAttrString)(PyObject *, const char *);
	void *(*CapsuleGetPointer)(PyObject *, const char *);
	int (*CapsuleIsValid)(PyObject *, const char *);
	void (*ErrSetString)(PyObject *, const char *);
	int (*ErrExceptionMatches)(PyObject *);
	void (*DecRef)(PyObject *);
	PyObject *(*CallFunctionObjArgs)(PyObject *, ...);
	PyObject *(*LongFromVoidPtr)(void *);
	PyObject **TypeError, **BufferError, **RuntimeError, **AttributeError, **MemoryError;
} py;
static int py_ok;
static const char *py_missing;
static pthread_once_t py_once = PTHREAD_ONCE_INIT;
static atomic_int gfx_forked;

static void *py_sym(const char *name) {
#ifdef _WIN32
	// The interpreter's DLL (python3X.dll, with python3.dll forwarding the
	// stable ABI) is loaded already when Python asks for the table.
	HMODULE h = GetModuleHandleA("python3.dll");
	void *p = h ? (void *)GetProcAddress(h, name) : NULL;
#else
	void *p = dlsym(RTLD_DEFAULT, name);
#endif
	if (p == NULL && py_missing == NULL) py_missing = name;
	return p;
}

static void gfx_after_fork_child(void) { atomic_store(&gfx_forked, 1); }

static void py_resolve(void) {
	py.GetAttrString = py_sym("PyObject_GetAttrString");
	py.CapsuleGetPointer = py_sym("PyCapsule_GetPointer");
	py.CapsuleIsValid = py_sym("PyCapsule_IsValid");
	py.ErrSetString = py_sym("PyErr_SetString");
	py.ErrExceptionMatches = py_sym("PyErr_ExceptionMatches");
	py.DecRef = py_sym("Py_DecRef");
	py.CallFunctionObjArgs = py_sym("PyObject_CallFunctionObjArgs");
	py.LongFromVoidPtr = py_sym("PyLong_FromVoidPtr");
	py.TypeError = py_sym("PyExc_TypeError");
	py.BufferError = py_sym("PyExc_BufferError");
	py.RuntimeError = py_sym("PyExc_RuntimeError");
	py.AttributeError = py_sym("PyExc_AttributeError");
	py.MemoryError = py_sym("PyExc_MemoryError");
	py_ok = py_missing == NULL;
	// A child forked after this never drops exporter references (that can
	// enter the Go runtime, which does not survive fork).
	pthread_atfork(NULL, NULL, gfx_after_fork_child);
}

// Calls of each exchange function, for tests and benchmarks (which
// consumer uses which function): allocator, managed from object, managed to
// object, DLTensor from object, current work stream.
enum { x_alloc_i, x_from_i, x_to_i, x_dltensor_i, x_stream_i, x_count };
static atomic_uint_fast64_t x_calls[x_count];

static inline void x_count_call(int i) { atomic_fetch_add_explicit(&x_calls[i], 1, memory_order_relaxed); }

// The Python callable that makes a gfxcuda array of a managed tensor's
// address (it takes the tensor over); the package keeps it alive.
static PyObject *x_to_py_callable;

#define GFX_BINDING_NAME "gfxcuda.dlpack_binding"

typedef struct {
	void *exporter;       // one reference
	gfx_dlpack_desc desc; // Go's description of the checked tensor
} gfx_binding;

int gfxcuda_dlpack_binding_new(void *exporter, const gfxcuda_tensor_t *d, void **out) {
	if (exporter == NULL || d == NULL || out == NULL) {
		static const char m[] = "gfxcuda_dlpack_binding_new: null exporter, description or output";
		gfx_set_error(m, sizeof m - 1);
		return 1;
	}
	gfx_binding *b = malloc(sizeof *b);
	if (b == NULL) {
		static const char m[] = "gfxcuda: out of host memory for a DLPack binding";
		gfx_set_error(m, sizeof m - 1);
		return 9;
	}
	// The tensor lies in the exporter's memory (Go, once), as Go describes it.
	int st = gfx_exporter_check(exporter, d, &b->desc);
	if (st != 0) {
		free(b);
		return st;
	}
	b->exporter = exporter;
	gfx_exporter_ref(exporter);
	*out = b;
	return 0;
}

void gfxcuda_dlpack_binding_capsule_destructor(void *capsule) {
	pthread_once(&py_once, py_resolve);
	if (!py_ok || !py.CapsuleIsValid(capsule, GFX_BINDING_NAME)) return;
	gfx_binding *b = py.CapsuleGetPointer(capsule, GFX_BINDING_NAME);
	if (b == NULL) return;
	if (!atomic_load(&gfx_forked)) gfx_exporter_drop_ref(b->exporter);
	free(b);
}

// x_binding_of returns the binding of a gfxcuda array and, in *cap, the
// reference to its capsule the caller drops; NULL with TypeError set for
// anything else (or the object's own error, e.g. a released array's).
static gfx_binding *x_binding_of(PyObject *obj, PyObject **cap) {
	if (obj == NULL) {
		py.ErrSetString(*py.TypeError, "gfxcuda: the DLPack exchange API got a NULL object");
		return NULL;
	}
	PyObject *c = py.GetAttrString(obj, "_gfxcuda_dlpack");
	if (c == NULL) {
		if (py.ErrExceptionMatches(*py.AttributeError))
			py.ErrSetString(*py.TypeError,
				"gfxcuda: the DLPack exchange API of gfxcuda's arrays takes a gfxcuda array "
				"(CudaBuffer, SharedBuffer, a ring Slot or Frame); use the object's own type's "
				"__dlpack_c_exchange_api__ or its __dlpack__");
		return NULL;
	}
	gfx_binding *b = py.CapsuleIsValid(c, GFX_BINDING_NAME) ? py.CapsuleGetPointer(c, GFX_BINDING_NAME) : NULL;
	if (b == NULL) {
		py.DecRef(c);
		py.ErrSetString(*py.TypeError, "gfxcuda: the object's _gfxcuda_dlpack is not a gfxcuda DLPack binding");
		return NULL;
	}
	*cap = c;
	return b;
}

// managed_tensor_from_py_object_no_sync: the managed tensor __dlpack__
// would return (DLManagedTensorVersioned), with no stream ordering.
static int x_from_py(void *obj, gfx_DLManagedTensorVersioned **out) {
	x_count_call(x_from_i);
	if (out == NULL) {
		py.ErrSetString(*py.RuntimeError, "gfxcuda: managed_tensor_from_py_object_no_sync: NULL output");
		return -1;
	}
	*out = NULL;
	PyObject *cap;
	gfx_binding *b = x_binding_of(obj, &cap);
	if (b == NULL) return -1;
	void *p = gfx_exporter_build(b->exporter, &b->desc, 1);
	py.DecRef(cap);
	if (p == NULL) {
		py.ErrSetString(*py.MemoryError, "gfxcuda: out of host memory for a DLPack tensor header");
		return -1;
	}
	*out = p;
	return 0;
}

// dltensor_from_py_object_no_sync: a view of the description the array
// holds (shape and strides are the binding's), valid while the array is.
static int x_dltensor(void *obj, gfx_DLTensor *out) {
	x_count_call(x_dltensor_i);
	if (out == NULL) {
		py.ErrSetString(*py.RuntimeError, "gfxcuda: dltensor_from_py_object_no_sync: NULL output");
		return -1;
	}
	PyObject *cap;
	gfx_binding *b = x_binding_of(obj, &cap);
	if (b == NULL) return -1;
	gfx_dlpack_view(&b->desc, out);
	py.DecRef(cap); // the array keeps the binding
	return 0;
}

// managed_tensor_to_py_object_no_sync: a gfxcuda array (CudaBuffer) over
// another library's managed tensor, which it takes over (its deleter runs
// when the array and its exports are gone, or now on failure).
static int x_to_py(gfx_DLManagedTensorVersioned *t, void **out) {
	x_count_call(x_to_i);
	if (t == NULL || out == NULL || x_to_py_callable == NULL) {
		if (t != NULL && t->deleter != NULL) t->deleter(t);
		py.ErrSetString(*py.RuntimeError, "gfxcuda: managed_tensor_to_py_object_no_sync: NULL tensor or output");
		return -1;
	}
	*out = NULL;
	PyObject *addr = py.LongFromVoidPtr(t);
	if (addr == NULL) {
		if (t->deleter != NULL) t->deleter(t);
		return -1;
	}
	// The callable owns t from here on, on success and on error.
	PyObject *r = py.CallFunctionObjArgs(x_to_py_callable, addr, NULL);
	py.DecRef(addr);
	if (r == NULL) return -1;
	*out = r;
	return 0;
}

// managed_tensor_allocator: a new C-contiguous tensor of the prototype's
// dtype, shape and device (CUDA memory, or host memory for kDLCPU).
static int x_alloc(gfx_DLTensor *proto, gfx_DLManagedTensorVersioned **out, void *ctx,
	void (*set_error)(void *, const char *, const char *)) {
	x_count_call(x_alloc_i);
	if (out != NULL) *out = NULL;
	const char *msg = NULL;
	if (proto == NULL || out == NULL)
		msg = "gfxcuda: managed_tensor_allocator: NULL prototype or output";
	else if (proto->ndim < 0 || proto->ndim > 32 || (proto->ndim > 0 && proto->shape == NULL))
		msg = "gfxcuda: managed_tensor_allocator: a prototype of 0 to 32 dimensions with a shape";
	if (msg != NULL) {
		if (set_error != NULL) set_error(ctx, "ValueError", msg);
		return -1;
	}
	gfxcuda_tensor_t d;
	memset(&d, 0, sizeof d);
	d.device_type = proto->device.device_type;
	d.device_id = proto->device.device_id;
	d.code = proto->dtype.code;
	d.bits = proto->dtype.bits;
	d.lanes = proto->dtype.lanes;
	d.ndim = proto->ndim;
	d.shape = proto->shape;
	void *p = NULL;
	int st = gfxDLPackAlloc(&d, &p);
	if (st != 0) {
		if (set_error != NULL)
			set_error(ctx, st == 9 ? "MemoryError" : (st == 1 || st == 2) ? "ValueError" : "RuntimeError",
				gfxcuda_last_error());
		return -1;
	}
	*out = p;
	return 0;
}

// current_work_stream: gfxcuda has no stream context; NULL (CUDA's legacy
// default stream) for every device.
static int x_stream(int32_t device_type, int32_t device_id, void **out) {
	(void)device_type;
	(void)device_id;
	x_count_call(x_stream_i);
	if (out == NULL) {
		py.ErrSetString(*py.RuntimeError, "gfxcuda: current_work_stream: NULL output");
		return -1;
	}
	*out = NULL;
	return 0;
}

static gfx_DLPackExchangeAPI gfx_exchange_api = {
	.header = {.version = {1, 3}, .prev_api = NULL},
	.managed_tensor_allocator = x_alloc,
	.managed_tensor_from_py_object_no_sync = x_from_py,
	.managed_tensor_to_py_object_no_sync = x_to_py,
	.dltensor_from_py_object_no_sync = x_dltensor,
	.current_work_stream = x_stream,
};

int gfxcuda_dlpack_exchange_api(void *to_py_object, void **api) {
	if (api == NULL) {
		static const char m[] = "gfxcuda_dlpack_exchange_api: null output";
		gfx_set_error(m, sizeof m - 1);
		return 1;
	}
	pthread_once(&py_once, py_resolve);
	if (!py_ok) {
		char m[200];
		int n = snprintf(m, sizeof m,
			"gfxcuda: the DLPack C exchange API needs the CPython C API in the process (%s not found); "
			"Python's __dlpack__ still works",
			py_missing);
		gfx_set_error(m, n > 0 && n < (int)sizeof m ? (size_t)n : strlen(m));
		return 4;
	}
	if (to_py_object != NULL) x_to_py_callable = to_py_object;
	*api = &gfx_exchange_api;
	return 0;
}

int gfxcuda_dlpack_exchange_calls(uint64_t *out, size_t n) {
	if (out == NULL && n > 0) {
		static const char m[] = "gfxcuda_dlpack_exchange_calls: null output";
		gfx_set_error(m, sizeof m - 1);
		return 1;
	}
	for (size_t i = 0; i < n && i < x_count; i++) out[i] = atomic_load_explicit(&x_calls[i], memory_order_relaxed);
	for (size_t i = x_count; i < n; i++) out[i] = 0;
	return 0;
}
