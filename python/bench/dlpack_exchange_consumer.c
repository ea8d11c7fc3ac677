// A consumer of DLPack 1.3's C exchange API, written as a C extension
// would write one: it finds type(obj).__dlpack_c_exchange_api__, checks
// the table's major version and calls its function pointers. The tests
// (python/tests/test_dlpack_exchange.py) and the benchmark
// (python/bench/dlpack_exchange.py) compile it with
//   gcc -shared -fPIC -O2 -o consumer.so dlpack_exchange_consumer.c
// and load it with ctypes.PyDLL (the GIL stays held; a Python exception
// set here is raised there). The CPython functions come from the process
// (the interpreter exports them), declared here without Python.h.
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <string.h>
#include <time.h>

typedef void PyObject;
PyObject *PyObject_Type(PyObject *);
PyObject *PyObject_GetAttrString(PyObject *, const char *);
void *PyCapsule_GetPointer(PyObject *, const char *);
int PyCapsule_IsValid(PyObject *, const char *);
void Py_DecRef(PyObject *);
void PyErr_Clear(void);
void PyErr_SetString(PyObject *, const char *);
extern PyObject *PyExc_RuntimeError;

typedef struct { uint32_t major, minor; } DLPackVersion;
typedef struct { int32_t device_type, device_id; } DLDevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct {
	void *data;
	DLDevice device;
	int32_t ndim;
	DLDataType dtype;
	int64_t *shape, *strides;
	uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensorVersioned {
	DLPackVersion version;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensorVersioned *);
	uint64_t flags;
	DLTensor dl_tensor;
} DLManagedTensorVersioned;
typedef struct DLPackExchangeAPIHeader {
	DLPackVersion version;
	struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;
typedef struct {
	DLPackExchangeAPIHeader header;
	int (*managed_tensor_allocator)(DLTensor *, DLManagedTensorVersioned **, void *,
		void (*)(void *, const char *, const char *));
	int (*managed_tensor_from_py_object_no_sync)(void *, DLManagedTensorVersioned **);
	int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned *, void **);
	int (*dltensor_from_py_object_no_sync)(void *, DLTensor *);
	int (*current_work_stream)(int32_t, int32_t, void **);
} DLPackExchangeAPI;

// consumer_api: the exchange API of obj's type (major version 1, walking
// prev_api), or NULL when the type has none (no error set).
const DLPackExchangeAPI *consumer_api(PyObject *obj) {
	PyObject *type = PyObject_Type(obj);
	PyObject *cap = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__");
	Py_DecRef(type);
	if (cap == NULL) {
		PyErr_Clear();
		return NULL;
	}
	const DLPackExchangeAPIHeader *h = NULL;
	if (PyCapsule_IsValid(cap, "dlpack_exchange_api")) h = PyCapsule_GetPointer(cap, "dlpack_exchange_api");
	Py_DecRef(cap); // the type keeps the capsule; the table is static
	while (h != NULL && h->version.major != 1) h = h->prev_api;
	return (const DLPackExchangeAPI *)h;
}

static void put(int64_t *out, const DLTensor *t) {
	out[0] = (int64_t)(uintptr_t)t->data;
	out[1] = t->device.device_type;
	out[2] = t->device.device_id;
	out[3] = t->ndim;
	out[4] = t->dtype.code;
	out[5] = t->dtype.bits;
	out[6] = t->dtype.lanes;
	out[7] = (int64_t)t->byte_offset;
	out[8] = t->strides != NULL;
	for (int i = 0; i < t->ndim && i < 32; i++) {
		out[12 + i] = t->shape[i];
		out[44 + i] = t->strides ? t->strides[i] : 0;
	}
}

// consumer_describe writes what managed_tensor_from_py_object_no_sync gives
// for obj into out (76 int64: data, device type, device id, ndim, code,
// bits, lanes, byte offset, has strides, flags, version major, minor,
// shape[32], strides[32]) and calls the tensor's deleter unless keep, in
// which case *managed gets the tensor. 0, -1 (exception set), -2 (no API).
int consumer_describe(PyObject *obj, int64_t *out, int keep, void **managed) {
	const DLPackExchangeAPI *api = consumer_api(obj);
	if (api == NULL) return -2;
	DLManagedTensorVersioned *m = NULL;
	if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0) return -1;
	memset(out, 0, 76 * sizeof *out);
	put(out, &m->dl_tensor);
	out[9] = (int64_t)m->flags;
	out[10] = m->version.major;
	out[11] = m->version.minor;
	if (keep) *managed = m;
	else m->deleter(m);
	return 0;
}

// consumer_view writes what dltensor_from_py_object_no_sync gives into out
// (as consumer_describe; flags and version 0) and the shape and strides
// pointers into ptrs[0..1].
int consumer_view(PyObject *obj, int64_t *out, int64_t *ptrs) {
	const DLPackExchangeAPI *api = consumer_api(obj);
	if (api == NULL) return -2;
	if (api->dltensor_from_py_object_no_sync == NULL) return -3;
	DLTensor t;
	memset(&t, 0xA5, sizeof t); // poisoned: every field must be written
	if (api->dltensor_from_py_object_no_sync(obj, &t) != 0) return -1;
	memset(out, 0, 76 * sizeof *out);
	put(out, &t);
	ptrs[0] = (int64_t)(uintptr_t)t.shape;
	ptrs[1] = (int64_t)(uintptr_t)t.strides;
	return 0;
}

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

// consumer_loop runs n exchanges of obj and returns the nanoseconds per
// exchange (negative on error, with an exception set). mode 0: managed
// tensor and its deleter; 1: DLTensor view; 2: as a consumer meeting obj
// for the first time each call: the type's capsule lookup, the version
// check and a DLTensor view; 3: the table's current_work_stream.
double consumer_loop(PyObject *obj, int64_t n, int mode) {
	const DLPackExchangeAPI *api = consumer_api(obj);
	if (api == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "consumer_loop: the object's type has no DLPack exchange API");
		return -1;
	}
	double t0 = now_ns();
	for (int64_t i = 0; i < n; i++) {
		if (mode == 0) {
			DLManagedTensorVersioned *m;
			if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0) return -1;
			m->deleter(m);
		} else if (mode == 1 || mode == 2) {
			const DLPackExchangeAPI *a = mode == 2 ? consumer_api(obj) : api;
			DLTensor t;
			if (a == NULL || a->dltensor_from_py_object_no_sync(obj, &t) != 0) return -1;
		} else {
			void *s;
			if (api->current_work_stream(2, 0, &s) != 0) return -1;
		}
	}
	return (now_ns() - t0) / (double)(n > 0 ? n : 1);
}

// consumer_convert hands obj to another library through both tables:
// obj's managed_tensor_from_py_object_no_sync, then dst's
// managed_tensor_to_py_object_no_sync (dst: an object of the other
// library's type, e.g. a torch.Tensor). Returns the new object (a new
// reference) or NULL with an exception set.
PyObject *consumer_convert(PyObject *obj, PyObject *dst) {
	const DLPackExchangeAPI *src = consumer_api(obj), *to = consumer_api(dst);
	if (src == NULL || to == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "consumer_convert: a type without a DLPack exchange API");
		return NULL;
	}
	DLManagedTensorVersioned *m;
	if (src->managed_tensor_from_py_object_no_sync(obj, &m) != 0) return NULL;
	void *out = NULL;
	if (to->managed_tensor_to_py_object_no_sync(m, &out) != 0) return NULL;
	return out;
}

// consumer_convert_loop: consumer_convert n times, the result dropped each
// time; nanoseconds per conversion (negative on error).
double consumer_convert_loop(PyObject *obj, PyObject *dst, int64_t n) {
	double t0 = now_ns();
	for (int64_t i = 0; i < n; i++) {
		PyObject *r = consumer_convert(obj, dst);
		if (r == NULL) return -1;
		Py_DecRef(r);
	}
	return (now_ns() - t0) / (double)(n > 0 ? n : 1);
}

// consumer_allocate calls obj's table's managed_tensor_allocator for a
// C-contiguous tensor (ndim, shape, dtype, device) and returns it in
// *managed; on failure the error's kind and message (from set_error) are
// copied into kind and msg (128 bytes each) and -1 returned.
static void record_error(void *ctx, const char *kind, const char *message) {
	char *buf = ctx;
	strncpy(buf, kind, 127);
	buf[127] = 0;
	strncpy(buf + 128, message, 127);
	buf[255] = 0;
}

int consumer_allocate(PyObject *obj, int32_t ndim, const int64_t *shape, int32_t code, int32_t bits,
	int32_t device_type, int32_t device_id, void **managed, char *err256) {
	const DLPackExchangeAPI *api = consumer_api(obj);
	if (api == NULL) return -2;
	DLTensor proto;
	memset(&proto, 0, sizeof proto);
	proto.ndim = ndim;
	proto.shape = (int64_t *)shape;
	proto.dtype.code = (uint8_t)code;
	proto.dtype.bits = (uint8_t)bits;
	proto.dtype.lanes = 1;
	proto.device.device_type = device_type;
	proto.device.device_id = device_id;
	memset(err256, 0, 256);
	return api->managed_tensor_allocator(&proto, (DLManagedTensorVersioned **)managed, err256, record_error);
}

// consumer_delete calls a managed tensor's deleter.
void consumer_delete(void *managed) {
	DLManagedTensorVersioned *m = managed;
	if (m != NULL && m->deleter != NULL) m->deleter(m);
}
