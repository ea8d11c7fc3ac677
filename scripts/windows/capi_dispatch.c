// capi_dispatch: what ctypes would do on Windows, in C. It loads
// gfxcuda.dll at run time (LoadLibrary/GetProcAddress, gfxcuda.h's types
// only), compiles an HLSL kernel in process, uploads random numbers,
// dispatches y = 3x + 1 and checks every element of the readback, after
// poisoning the output. Exit 0 when every element matches; 2 with a
// message otherwise. Built with mingw and run under Wine by
// scripts/windows-test.sh --capi.
#define GFXCUDA_TYPES_ONLY
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

typedef int (*device_open_fn)(int, uint64_t *);
typedef int (*buffer_new_fn)(uint64_t, uint64_t, int, uint32_t, uint32_t, uint64_t *);
typedef int (*upload_fn)(uint64_t, uint64_t, const void *, uint64_t);
typedef int (*readback_fn)(uint64_t, uint64_t, void *, uint64_t);
typedef int (*compile_fn)(const char *, size_t, int, const char *, void **, size_t *);
typedef int (*compute_new_fn)(uint64_t, const void *, size_t, const uint64_t *, size_t, const uint64_t *, size_t,
	const uint64_t *, size_t, const uint64_t *, size_t, uint64_t *);
typedef int (*dispatch_fn)(uint64_t, uint32_t, uint32_t, uint32_t, const void *, size_t);
typedef int (*release_fn)(uint64_t);
typedef void (*free_fn)(void *);
typedef const char *(*last_error_fn)(void);

static HMODULE lib;
static last_error_fn last_error;

static void *sym(const char *name) {
	void *p = (void *)GetProcAddress(lib, name);
	if (!p) {
		fprintf(stderr, "capi_dispatch: gfxcuda.dll has no %s\n", name);
		exit(2);
	}
	return p;
}

static void check(int st, const char *what) {
	if (st != 0) {
		fprintf(stderr, "capi_dispatch: %s: status %d: %s\n", what, st, last_error());
		exit(2);
	}
}

static const char src[] =
	"StructuredBuffer<float> x : register(t0);\n"
	"RWStructuredBuffer<float> y : register(u0);\n"
	"[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { y[id.x] = 3 * x[id.x] + 1; }\n";

int main(int argc, char **argv) {
	const char *path = argc > 1 ? argv[1] : "gfxcuda.dll";
	lib = LoadLibraryA(path);
	if (!lib) {
		fprintf(stderr, "capi_dispatch: LoadLibrary(%s) failed: error %lu\n", path, GetLastError());
		return 2;
	}
	last_error = (last_error_fn)sym("gfxcuda_last_error");
	device_open_fn device_open = (device_open_fn)sym("gfxcuda_device_open");
	buffer_new_fn buffer_new = (buffer_new_fn)sym("gfxcuda_buffer_new");
	upload_fn upload = (upload_fn)sym("gfxcuda_buffer_upload");
	readback_fn readback = (readback_fn)sym("gfxcuda_buffer_readback");
	compile_fn compile = (compile_fn)sym("gfxcuda_shader_compile");
	compute_new_fn compute_new = (compute_new_fn)sym("gfxcuda_compute_new");
	dispatch_fn dispatch = (dispatch_fn)sym("gfxcuda_compute_dispatch");
	release_fn release = (release_fn)sym("gfxcuda_release");
	free_fn gfree = (free_fn)sym("gfxcuda_free");

	enum { N = 64 * 37 };
	float *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
	uint32_t seed = 0x9e3779b9u ^ (uint32_t)GetTickCount();
	for (int i = 0; i < N; i++) {
		seed = seed * 1664525u + 1013904223u;
		in[i] = (float)(seed >> 8) / (float)(1u << 24) * 2000.0f - 1000.0f;
	}
	uint64_t dev, xb, yb, k;
	check(device_open(-1, &dev), "gfxcuda_device_open");
	check(buffer_new(dev, N * 4, 0, 4, 0, &xb), "gfxcuda_buffer_new(x)");
	check(buffer_new(dev, N * 4, 0, 4, 0, &yb), "gfxcuda_buffer_new(y)");
	check(upload(xb, 0, in, N * 4), "gfxcuda_buffer_upload(x)");
	memset(out, 0xCD, N * 4); // poison: a dispatch that did not run cannot pass
	check(upload(yb, 0, out, N * 4), "gfxcuda_buffer_upload(y)");
	void *spirv = NULL;
	size_t n = 0;
	check(compile(src, sizeof src - 1, 0 /* GFXCUDA_HLSL */, NULL, &spirv, &n), "gfxcuda_shader_compile");
	check(compute_new(dev, spirv, n, NULL, 0, &xb, 1, &yb, 1, NULL, 0, &k), "gfxcuda_compute_new");
	gfree(spirv);
	check(dispatch(k, N / 64, 1, 1, NULL, 0), "gfxcuda_compute_dispatch");
	check(readback(yb, 0, out, N * 4), "gfxcuda_buffer_readback");
	for (int i = 0; i < N; i++) {
		float want = 3 * in[i] + 1;
		if (memcmp(&out[i], &want, 4) != 0) {
			fprintf(stderr, "capi_dispatch: element %d: got %.9g, want %.9g\n", i, out[i], want);
			return 2;
		}
	}
	check(release(k), "gfxcuda_release(compute)");
	check(release(yb), "gfxcuda_release(y)");
	check(release(xb), "gfxcuda_release(x)");
	check(release(dev), "gfxcuda_release(device)");
	printf("capi_dispatch: %d elements of y = 3x + 1 equal, through gfxcuda.dll's C API\n", N);
	return 0;
}
