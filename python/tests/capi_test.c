#define _POSIX_C_SOURCE 200809L
/* A small C program over libgfxcuda: uploads random data, runs a compute
 * shader, reads the result back and checks every element; checks error
 * paths and that the last error is per thread. Prints "ok" on success. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gfxcuda.h"

#define CHECK(x) do { int st_ = (x); if (st_ != GFXCUDA_OK) { \
	fprintf(stderr, "%s:%d: %s: status %d: %s\n", __FILE__, __LINE__, #x, st_, gfxcuda_last_error()); exit(1); } } while (0)

static const char *src =
	"StructuredBuffer<uint> a : register(t0);\n"
	"RWStructuredBuffer<uint> b : register(u1);\n"
	"struct P { uint k; }; [[vk::push_constant]] ConstantBuffer<P> p;\n"
	"[numthreads(64, 1, 1)] void main(uint3 t : SV_DispatchThreadID) { b[t.x] = a[t.x] * 3u + p.k; }\n";

/* WGSL: bound as GLSL is (each class list by binding order), its override
 * set through gfxcuda_compute_new_constants. */
static const char *wgsl_src =
	"@group(0) @binding(0) var<storage, read> src: array<u32>;\n"
	"@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
	"override k: u32 = 1u;\n"
	"@compute @workgroup_size(64)\n"
	"fn scaled(@builtin(global_invocation_id) t: vec3<u32>) { dst[t.x] = src[t.x] * 5u + k; }\n";

static void *bad_handle_thread(void *arg) {
	uint64_t h = (uint64_t)(uintptr_t)arg;
	int st = gfxcuda_release(h);
	char *msg = strdup(gfxcuda_last_error());
	(void)st;
	return msg;
}

int main(void) {
	enum { N = 4096 };
	uint64_t dev, a, b, rb, k, k2, k3, before, after;
	uint32_t in[N], out[N], key = (uint32_t)rand() ^ 0x5bd1e995u;
	void *spirv; size_t spirv_len;
	srand(12345);
	for (int i = 0; i < N; i++) in[i] = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
	CHECK(gfxcuda_live_handles(&before));
	CHECK(gfxcuda_device_open(-1, &dev));
	CHECK(gfxcuda_buffer_new(dev, sizeof in, GFXCUDA_HEAP_DEFAULT, 4, 0, &a));
	CHECK(gfxcuda_buffer_new(dev, sizeof in, GFXCUDA_HEAP_DEFAULT, 4, 0, &b));
	CHECK(gfxcuda_buffer_new(dev, sizeof in, GFXCUDA_HEAP_READBACK, 0, 0, &rb));
	CHECK(gfxcuda_buffer_upload(a, 0, in, sizeof in));
	memset(out, 0xee, sizeof out);
	CHECK(gfxcuda_buffer_upload(rb, 0, out, sizeof out));
	CHECK(gfxcuda_shader_compile(src, strlen(src), GFXCUDA_HLSL, NULL, &spirv, &spirv_len));
	uint64_t uav[2] = {a, b};
	CHECK(gfxcuda_compute_new(dev, spirv, spirv_len, NULL, 0, &a, 1, uav, 2, NULL, 0, &k));
	gfxcuda_free(spirv);
	CHECK(gfxcuda_compute_dispatch(k, N / 64, 1, 1, &key, sizeof key));
	CHECK(gfxcuda_copy(b, rb, NULL));
	CHECK(gfxcuda_buffer_readback(rb, 0, out, sizeof out));
	for (int i = 0; i < N; i++) {
		if (out[i] != in[i] * 3u + key) { fprintf(stderr, "element %d: %u, want %u\n", i, out[i], in[i] * 3u + key); return 1; }
	}
	/* The same in WGSL, k set to key. */
	CHECK(gfxcuda_shader_compile(wgsl_src, strlen(wgsl_src), GFXCUDA_WGSL, NULL, &spirv, &spirv_len));
	const char *names[1] = {"k"};
	double values[1] = {(double)key};
	CHECK(gfxcuda_compute_new_constants(dev, spirv, spirv_len, NULL, 0, &a, 1, &b, 1, NULL, 0, names, values, 1, &k2));
	names[0] = "q";
	if (gfxcuda_compute_new_constants(dev, spirv, spirv_len, NULL, 0, &a, 1, &b, 1, NULL, 0, names, values, 1, &k3) != GFXCUDA_ERR_INVALID ||
	    !strstr(gfxcuda_last_error(), "no constant \"q\"")) {
		fprintf(stderr, "unknown constant: %s\n", gfxcuda_last_error()); return 1;
	}
	gfxcuda_free(spirv);
	CHECK(gfxcuda_compute_dispatch(k2, N / 64, 1, 1, NULL, 0));
	CHECK(gfxcuda_copy(b, rb, NULL));
	CHECK(gfxcuda_buffer_readback(rb, 0, out, sizeof out));
	for (int i = 0; i < N; i++) {
		if (out[i] != in[i] * 5u + key) { fprintf(stderr, "WGSL element %d: %u, want %u\n", i, out[i], in[i] * 5u + key); return 1; }
	}
	const char *bad = "@compute @workgroup_size(1)\nfn main() {\n  let x: u32 = nope;\n}\n";
	if (gfxcuda_shader_compile(bad, strlen(bad), GFXCUDA_WGSL, NULL, &spirv, &spirv_len) != GFXCUDA_ERR_COMPILE ||
	    !strstr(gfxcuda_last_error(), "shader.wgsl:3:")) {
		fprintf(stderr, "WGSL error: %s\n", gfxcuda_last_error()); return 1;
	}
	/* Errors: a range error names the sizes; a bad handle is refused. */
	if (gfxcuda_buffer_upload(a, sizeof in, in, 4) != GFXCUDA_ERR_RANGE || !strstr(gfxcuda_last_error(), "16384")) {
		fprintf(stderr, "range error: %s\n", gfxcuda_last_error()); return 1;
	}
	if (gfxcuda_compute_dispatch(a, 1, 1, 1, NULL, 0) != GFXCUDA_ERR_INVALID) { fprintf(stderr, "kind check\n"); return 1; }
	/* The last error is per thread. */
	pthread_t th;
	void *msg;
	gfxcuda_buffer_upload(a, sizeof in, in, 4);
	pthread_create(&th, NULL, bad_handle_thread, (void *)(uintptr_t)999999999);
	pthread_join(th, &msg);
	if (!strstr((char *)msg, "999999999") || !strstr(gfxcuda_last_error(), "16384")) {
		fprintf(stderr, "thread-local errors: '%s' / '%s'\n", (char *)msg, gfxcuda_last_error()); return 1;
	}
	free(msg);
	/* Releasing the device first is fine: its resources keep it alive. */
	CHECK(gfxcuda_release(dev));
	CHECK(gfxcuda_release(k));
	CHECK(gfxcuda_release(k2));
	CHECK(gfxcuda_release(a));
	CHECK(gfxcuda_release(b));
	CHECK(gfxcuda_release(rb));
	if (gfxcuda_release(rb) != GFXCUDA_ERR_BAD_HANDLE) { fprintf(stderr, "double release accepted\n"); return 1; }
	CHECK(gfxcuda_live_handles(&after));
	if (after != before) { fprintf(stderr, "%llu handles leaked\n", (unsigned long long)(after - before)); return 1; }
	printf("ok %s\n", gfxcuda_version());
	return 0;
}
