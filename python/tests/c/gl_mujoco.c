#define _POSIX_C_SOURCE 200809L
/* MuJoCo's C library renders a random model offscreen on a headless EGL
 * context of this program's own, and gfxcuda's C API reads its color
 * buffer (issue 32): the multisampled offscreen framebuffer (con.offFBO,
 * which gfxcuda resolves) and MuJoCo's resolved one (con.offFBO_r) into a
 * compute texture, copied into a poisoned HEAP_READBACK buffer, and, when a
 * CUDA driver is there, gfxcuda_gl_to_tensor into CUDA memory (uint8 NHWC,
 * 3 channels, flip_y 0 and 1); its depth (MuJoCo's depth-stencil
 * renderbuffer) the same ways, as float32. Every pixel's RGB and depth must
 * equal what mjr_readPixels returns. Sizes odd and even (97x61 and 256x256,
 * multisampled; 61x97 without multisampling), two frames each (the
 * camera moves: the views follow the framebuffer).
 *
 * Usage: gl_mujoco [seed]. Prints "ok ..." and exits 0; exits 1 with the
 * first differing pixel on a mismatch; 77 (with "skip: ...") when there is
 * no EGL display, no desktop GL context or no Vulkan device to run on.
 * GFXCUDA_REQUIRE_CUDA=1 makes a missing CUDA driver a failure. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gfxcuda.h"

#define GL_COLOR_ATTACHMENT0 0x8CE0
#define GL_DEPTH_ATTACHMENT 0x8D00
#define GL_DRAW_FRAMEBUFFER_BINDING 0x8CA6
#define GL_READ_FRAMEBUFFER_BINDING 0x8CAA
#define GL_VERSION 0x1F02
#define GL_RENDERER 0x1F01
#define SKIP 77

#define CHECK(x) do { int st_ = (x); if (st_ != GFXCUDA_OK) { \
	fprintf(stderr, "%s:%d: %s: status %d: %s\n", __FILE__, __LINE__, #x, st_, gfxcuda_last_error()); exit(1); } } while (0)

typedef void (*get_integerv_fn)(unsigned, int *);
typedef const unsigned char *(*get_string_fn)(unsigned);
static get_integerv_fn glGetIntegerv_;

static uint64_t rng_state;
static double rnd(void) { /* splitmix64 in [0, 1) */
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}
static double uniform(double a, double b) { return a + (b - a) * rnd(); }

/* A headless desktop-GL context, current with no surface: the EGL device
 * platform (MUJOCO_EGL_DEVICE_ID picks the device, as MuJoCo's Python
 * bindings do; default 0), else Mesa's surfaceless platform. */
static int make_egl_context(char *why, size_t n) {
	PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
	PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	EGLDisplay dpy = EGL_NO_DISPLAY;
	const char *platform = "";
	if (query_devices && platform_display) {
		EGLDeviceEXT devs[16];
		EGLint ndev = 0;
		const char *want = getenv("MUJOCO_EGL_DEVICE_ID");
		int idx = want && *want ? atoi(want) : 0;
		if (query_devices(16, devs, &ndev) && idx >= 0 && idx < ndev) {
			dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devs[idx], NULL);
			platform = "device";
			if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL)) dpy = EGL_NO_DISPLAY;
		}
	}
	if (dpy == EGL_NO_DISPLAY && platform_display) {
		dpy = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
		platform = "surfaceless";
		if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL)) dpy = EGL_NO_DISPLAY;
	}
	if (dpy == EGL_NO_DISPLAY) {
		snprintf(why, n, "no EGL display (device or surfaceless platform): EGL error 0x%x", eglGetError());
		return 0;
	}
	if (!eglBindAPI(EGL_OPENGL_API)) {
		snprintf(why, n, "EGL (%s) has no desktop OpenGL: eglBindAPI error 0x%x", platform, eglGetError());
		return 0;
	}
	const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
	                           EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
	EGLConfig cfg = NULL;
	EGLint ncfg = 0;
	if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &ncfg) || ncfg < 1) cfg = NULL; /* EGL_KHR_no_config_context */
	/* MuJoCo 2.x draws with the compatibility profile; gfxcuda needs 4.5
	 * (direct state access). */
	const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
	                           EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT, EGL_NONE};
	EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
	if (ctx == EGL_NO_CONTEXT) {
		snprintf(why, n, "no OpenGL 4.5 compatibility context on EGL (%s platform): error 0x%x", platform, eglGetError());
		return 0;
	}
	if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
		snprintf(why, n, "eglMakeCurrent with no surface failed (%s platform): error 0x%x", platform, eglGetError());
		return 0;
	}
	glGetIntegerv_ = (get_integerv_fn)eglGetProcAddress("glGetIntegerv");
	get_string_fn get_string = (get_string_fn)eglGetProcAddress("glGetString");
	if (!glGetIntegerv_ || !get_string) {
		snprintf(why, n, "eglGetProcAddress gave no glGetIntegerv/glGetString");
		return 0;
	}
	printf("EGL %s platform: %s, OpenGL %s\n", platform, get_string(GL_RENDERER), get_string(GL_VERSION));
	return 1;
}

/* A model of random geoms (types, sizes, positions, colors from the seed)
 * whose offscreen buffer is w x h with samples multisamples. */
static mjModel *random_model(int w, int h, int samples) {
	static const char *types[] = {"box", "sphere", "capsule", "ellipsoid", "cylinder"};
	char xml[16384];
	int n = snprintf(xml, sizeof xml,
		"<mujoco model=\"gfxcuda\">\n"
		" <visual><global offwidth=\"%d\" offheight=\"%d\"/><quality offsamples=\"%d\"/>"
		"<headlight ambient=\"%.3f %.3f %.3f\" diffuse=\".6 .6 .6\"/></visual>\n"
		" <worldbody>\n"
		"  <light pos=\"%.3f %.3f 3\" dir=\"0 0 -1\" diffuse=\".7 .7 .7\"/>\n"
		"  <geom type=\"plane\" size=\"3 3 .1\" rgba=\"%.3f %.3f %.3f 1\"/>\n",
		w, h, samples, uniform(.1, .4), uniform(.1, .4), uniform(.1, .4), uniform(-1, 1), uniform(-1, 1),
		uniform(0, 1), uniform(0, 1), uniform(0, 1));
	int ngeom = 6 + (int)(rnd() * 6);
	for (int i = 0; i < ngeom; i++) {
		n += snprintf(xml + n, sizeof xml - (size_t)n,
			"  <geom type=\"%s\" size=\"%.3f %.3f %.3f\" pos=\"%.3f %.3f %.3f\" euler=\"%.1f %.1f %.1f\" "
			"rgba=\"%.3f %.3f %.3f 1\"/>\n",
			types[(int)(rnd() * 5)], uniform(.08, .35), uniform(.08, .35), uniform(.08, .35),
			uniform(-1, 1), uniform(-1, 1), uniform(.1, .8), uniform(0, 180), uniform(0, 180), uniform(0, 180),
			uniform(0, 1), uniform(0, 1), uniform(0, 1));
	}
	snprintf(xml + n, sizeof xml - (size_t)n, " </worldbody>\n</mujoco>\n");
	char path[] = "/tmp/gfxcuda-mujoco-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, xml, strlen(xml)) != (ssize_t)strlen(xml)) {
		perror("writing the model");
		exit(1);
	}
	close(fd);
	char err[1000] = "";
	mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
	unlink(path);
	if (!m) {
		fprintf(stderr, "mj_loadXML: %s\n%s", err, xml);
		exit(1);
	}
	return m;
}

/* The source's frame through a compute view: copied into a readback
 * buffer poisoned first, read into rgba (w*h*4 bytes, GL's row order). */
static void view_pixels(uint64_t src, uint64_t dev, int w, int h, unsigned char *rgba) {
	size_t n = (size_t)w * h * 4;
	uint64_t tex, rb;
	gfxcuda_resource_info_t ri;
	CHECK(gfxcuda_gl_compute_view(src, dev, &tex));
	CHECK(gfxcuda_resource_info(tex, &ri));
	if (ri.kind != GFXCUDA_KIND_TEXTURE || ri.width != (uint32_t)w || ri.height != (uint32_t)h) {
		fprintf(stderr, "compute view: kind %u, %ux%u; want a texture of %dx%d\n", ri.kind, ri.width, ri.height, w, h);
		exit(1);
	}
	CHECK(gfxcuda_buffer_new(dev, n, GFXCUDA_HEAP_READBACK, 0, 0, &rb));
	memset(rgba, 0xa5, n);
	CHECK(gfxcuda_buffer_upload(rb, 0, rgba, n));
	gfxcuda_copy_region_t region = {0};
	region.width = (uint32_t)w;
	region.height = (uint32_t)h;
	region.depth = 1;
	CHECK(gfxcuda_copy_ex(tex, rb, &region));
	memset(rgba, 0x5a, n);
	CHECK(gfxcuda_buffer_readback(rb, 0, rgba, n));
	CHECK(gfxcuda_release(rb));
	CHECK(gfxcuda_release(tex));
}

/* Compares got (channels per pixel; rows top first when flip) with want
 * (mjr_readPixels: RGB, bottom row first). */
static int compare(const char *what, const unsigned char *got, int channels, int flip, const unsigned char *want,
                   int w, int h) {
	for (int y = 0; y < h; y++) {
		int gy = flip ? h - 1 - y : y;
		for (int x = 0; x < w; x++) {
			const unsigned char *g = got + ((size_t)gy * w + x) * channels, *r = want + ((size_t)y * w + x) * 3;
			if (g[0] != r[0] || g[1] != r[1] || g[2] != r[2]) {
				fprintf(stderr, "%s: %dx%d, first differing pixel (x %d, y %d from the bottom): got %u %u %u, "
				        "mjr_readPixels %u %u %u\n", what, w, h, x, y, g[0], g[1], g[2], r[0], r[1], r[2]);
				return 0;
			}
		}
	}
	return 1;
}

/* Compares depth got (float32 per pixel; rows top first when flip) with
 * want (mjr_readPixels' depth, bottom row first), every value exactly. */
static int compare_depth(const char *what, const float *got, int flip, const float *want, int w, int h) {
	for (int y = 0; y < h; y++) {
		int gy = flip ? h - 1 - y : y;
		for (int x = 0; x < w; x++) {
			float g = got[(size_t)gy * w + x], r = want[(size_t)y * w + x];
			if (memcmp(&g, &r, sizeof g) != 0) {
				fprintf(stderr, "%s: %dx%d, first differing depth (x %d, y %d from the bottom): got %.9g, "
				        "mjr_readPixels %.9g\n", what, w, h, x, y, g, r);
				return 0;
			}
		}
	}
	return 1;
}

/* Distinct depth values (up to 64 counted): the depth is a scene's. */
static int distinct_depth(const float *z, int npix) {
	float seen[64];
	int k = 0;
	for (int i = 0; i < npix && k < 64; i++) {
		int j = 0;
		while (j < k && seen[j] != z[i]) j++;
		if (j == k) seen[k++] = z[i];
	}
	return k;
}

/* Distinct RGB values among the pixels (up to 64 counted): the scene is
 * not blank. */
static int distinct(const unsigned char *rgb, int npix) {
	unsigned seen[64];
	int k = 0;
	for (int i = 0; i < npix && k < 64; i++) {
		unsigned v = (unsigned)rgb[3 * i] << 16 | (unsigned)rgb[3 * i + 1] << 8 | rgb[3 * i + 2];
		int j = 0;
		while (j < k && seen[j] != v) j++;
		if (j == k) seen[k++] = v;
	}
	return k;
}

static int bindings_unchanged(const char *when, int draw, int read) {
	int d = -1, r = -1;
	glGetIntegerv_(GL_DRAW_FRAMEBUFFER_BINDING, &d);
	glGetIntegerv_(GL_READ_FRAMEBUFFER_BINDING, &r);
	if (d != draw || r != read) {
		fprintf(stderr, "%s: framebuffer bindings draw %d read %d; MuJoCo had draw %d read %d\n", when, d, r, draw, read);
		return 0;
	}
	return 1;
}

/* One model: two frames rendered offscreen, each read by mjr_readPixels
 * and by gfxcuda. shared: a shared CUDA device (0: none). */
static int run_case(uint64_t dev, uint64_t shared, int w, int h, int samples) {
	mjModel *m = random_model(w, h, samples);
	mjData *d = mj_makeData(m);
	mj_forward(m, d);
	mjvScene scn;
	mjvCamera cam;
	mjvOption opt;
	mjrContext con;
	mjv_defaultScene(&scn);
	mjv_defaultCamera(&cam);
	mjv_defaultOption(&opt);
	mjr_defaultContext(&con);
	mjv_makeScene(m, &scn, 1000);
	mjr_makeContext(m, &con, mjFONTSCALE_100);
	mjr_setBuffer(mjFB_OFFSCREEN, &con);
	if (con.currentBuffer != mjFB_OFFSCREEN || con.offWidth != w || con.offHeight != h || con.offSamples != samples) {
		fprintf(stderr, "MuJoCo's offscreen buffer: current %d, %dx%d, %d samples; want offscreen %dx%d, %d samples\n",
		        con.currentBuffer, con.offWidth, con.offHeight, con.offSamples, w, h, samples);
		return 0;
	}
	size_t npix = (size_t)w * h;
	unsigned char *want = malloc(npix * 3), *rgba = malloc(npix * 4), *tensor = malloc(npix * 3);
	float *zwant = malloc(npix * 4), *zgot = malloc(npix * 4);
	mjrRect viewport = {0, 0, w, h};

	uint64_t ctx, ms, zsrc, resolved = 0;
	gfxcuda_gl_source_info_t info;
	CHECK(gfxcuda_gl_adopt(&ctx));
	CHECK(gfxcuda_gl_source(ctx, 3, con.offFBO, GL_COLOR_ATTACHMENT0, &ms));
	CHECK(gfxcuda_gl_source_info(ms, &info));
	if (info.width != (uint32_t)w || info.height != (uint32_t)h || info.name != con.offColor || !info.renderbuffer ||
	    info.samples != (uint32_t)samples) {
		fprintf(stderr, "offFBO's color: %ux%u, name %u (renderbuffer %u), %u samples; MuJoCo's: %dx%d, "
		        "renderbuffer %u, %d samples\n", info.width, info.height, info.name, info.renderbuffer, info.samples,
		        w, h, con.offColor, samples);
		return 0;
	}
	/* The depth of the same framebuffer (MuJoCo's depth-stencil
	 * renderbuffer, multisampled like the color). */
	CHECK(gfxcuda_gl_source(ctx, 3, con.offFBO, GL_DEPTH_ATTACHMENT, &zsrc));
	CHECK(gfxcuda_gl_source_info(zsrc, &info));
	if (info.width != (uint32_t)w || info.height != (uint32_t)h || info.name != con.offDepthStencil ||
	    info.samples != (uint32_t)samples || info.format != 100 /* VK_FORMAT_R32_SFLOAT */) {
		fprintf(stderr, "offFBO's depth: %ux%u, name %u, %u samples, format %u; MuJoCo's: %dx%d, %u, %d samples, "
		        "want format R32_SFLOAT\n", info.width, info.height, info.name, info.samples, info.format, w, h,
		        con.offDepthStencil, samples);
		return 0;
	}
	if (samples) {
		CHECK(gfxcuda_gl_source(ctx, 3, con.offFBO_r, GL_COLOR_ATTACHMENT0, &resolved));
		CHECK(gfxcuda_gl_source_info(resolved, &info));
		if (info.name != con.offColor_r || info.samples != 0) {
			fprintf(stderr, "offFBO_r's color: name %u, %u samples; MuJoCo's: %u, not multisampled\n", info.name,
			        info.samples, con.offColor_r);
			return 0;
		}
	}
	uint64_t mem = 0, ptr = 0;
	if (shared) {
		gfxcuda_resource_info_t ri;
		CHECK(gfxcuda_cuda_alloc(0, npix * 4, &mem));
		CHECK(gfxcuda_resource_info(mem, &ri));
		ptr = ri.device_ptr;
	}
	int ok = 1;
	for (int frame = 0; frame < 2 && ok; frame++) {
		cam.type = mjCAMERA_FREE;
		cam.lookat[0] = uniform(-.3, .3);
		cam.lookat[1] = uniform(-.3, .3);
		cam.lookat[2] = .3;
		cam.distance = uniform(2.5, 4);
		cam.azimuth = uniform(0, 360);
		cam.elevation = uniform(-60, -15);
		mjv_updateScene(m, d, &opt, NULL, &cam, mjCAT_ALL, &scn);
		mjr_render(viewport, &scn, &con);
		int draw = -1, read = -1;
		glGetIntegerv_(GL_DRAW_FRAMEBUFFER_BINDING, &draw);
		glGetIntegerv_(GL_READ_FRAMEBUFFER_BINDING, &read);
		/* gfxcuda resolves the multisampled buffer itself, before MuJoCo's
		 * own resolve (in mjr_readPixels) has run. */
		view_pixels(ms, dev, w, h, rgba);
		ok = bindings_unchanged("after gfxcuda_gl_compute_view", draw, read);
		view_pixels(zsrc, dev, w, h, (unsigned char *)zgot);
		ok = ok && bindings_unchanged("after gfxcuda_gl_compute_view of depth", draw, read);
		memset(want, 0xc3, npix * 3);
		memset(zwant, 0xc3, npix * 4);
		mjr_readPixels(want, zwant, viewport, &con);
		if (distinct_depth(zwant, (int)npix) < 6) {
			fprintf(stderr, "%dx%d frame %d: the depth has %d values; a blank render tests nothing\n", w, h, frame,
			        distinct_depth(zwant, (int)npix));
			return 0;
		}
		if (distinct(want, (int)npix) < 6) {
			fprintf(stderr, "%dx%d frame %d: the scene has %d colors; a blank render tests nothing\n", w, h, frame,
			        distinct(want, (int)npix));
			return 0;
		}
		char what[128];
		snprintf(what, sizeof what, "frame %d, offFBO (%d samples) compute view", frame, samples);
		ok = ok && compare(what, rgba, 4, 0, want, w, h);
		if (ok) {
			snprintf(what, sizeof what, "frame %d, offFBO depth (%d samples) compute view", frame, samples);
			ok = compare_depth(what, zgot, 0, zwant, w, h);
		}
		if (ok && resolved) {
			view_pixels(resolved, dev, w, h, rgba);
			snprintf(what, sizeof what, "frame %d, offFBO_r (MuJoCo's resolve) compute view", frame);
			ok = compare(what, rgba, 4, 0, want, w, h);
		}
		for (int flip = 0; ok && shared && flip < 2; flip++) {
			gfxcuda_tensor_layout_t lay = {0};
			lay.dtype_code = 1; /* uint8, NHWC, RGB */
			lay.dtype_bits = 8;
			lay.channels = 3;
			lay.flip_y = flip;
			memset(tensor, 0xa5, npix * 3);
			CHECK(gfxcuda_cuda_memcpy(0, ptr, (uint64_t)(uintptr_t)tensor, npix * 3, GFXCUDA_COPY_HTOD));
			CHECK(gfxcuda_gl_to_tensor(ms, shared, &lay, ptr, npix * 3, 0));
			memset(tensor, 0x5a, npix * 3);
			CHECK(gfxcuda_cuda_memcpy(0, (uint64_t)(uintptr_t)tensor, ptr, npix * 3, GFXCUDA_COPY_DTOH));
			snprintf(what, sizeof what, "frame %d, gfxcuda_gl_to_tensor uint8 HWC RGB flip_y %d", frame, flip);
			ok = compare(what, tensor, 3, flip, want, w, h) && bindings_unchanged("after gfxcuda_gl_to_tensor", draw, read);
			if (!ok) break;
			/* Depth: float32, one value per pixel. */
			gfxcuda_tensor_layout_t zl = {0};
			zl.dtype_code = 2; /* float32 */
			zl.dtype_bits = 32;
			zl.flip_y = flip;
			memset(zgot, 0xa5, npix * 4);
			CHECK(gfxcuda_cuda_memcpy(0, ptr, (uint64_t)(uintptr_t)zgot, npix * 4, GFXCUDA_COPY_HTOD));
			CHECK(gfxcuda_gl_to_tensor(zsrc, shared, &zl, ptr, npix * 4, 0));
			memset(zgot, 0x5a, npix * 4);
			CHECK(gfxcuda_cuda_memcpy(0, (uint64_t)(uintptr_t)zgot, ptr, npix * 4, GFXCUDA_COPY_DTOH));
			snprintf(what, sizeof what, "frame %d, gfxcuda_gl_to_tensor of depth, flip_y %d", frame, flip);
			ok = compare_depth(what, zgot, flip, zwant, w, h) && bindings_unchanged("after gfxcuda_gl_to_tensor of depth", draw, read);
		}
		if (ok) printf("%dx%d, %d samples, frame %d: %d colors, every pixel equal%s\n", w, h, samples, frame,
		               distinct(want, (int)npix), shared ? " (compute view and CUDA tensor)" : " (compute view)");
	}
	if (mem) CHECK(gfxcuda_release(mem));
	if (resolved) CHECK(gfxcuda_release(resolved));
	CHECK(gfxcuda_release(zsrc));
	CHECK(gfxcuda_release(ms));
	CHECK(gfxcuda_release(ctx));
	free(zwant);
	free(zgot);
	free(want);
	free(rgba);
	free(tensor);
	mjr_freeContext(&con);
	mjv_freeScene(&scn);
	mj_deleteData(d);
	mj_deleteModel(m);
	return ok;
}

int main(int argc, char **argv) {
	char why[512];
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0;
	if (!seed) {
		FILE *f = fopen("/dev/urandom", "rb");
		if (!f || fread(&seed, sizeof seed, 1, f) != 1) seed = 12345;
		if (f) fclose(f);
	}
	rng_state = seed;
	printf("seed %llu, MuJoCo %d\n", (unsigned long long)seed, mj_version());
	if (!make_egl_context(why, sizeof why)) {
		printf("skip: %s\n", why);
		return SKIP;
	}
	uint64_t before, after, dev, shared = 0;
	CHECK(gfxcuda_live_handles(&before));
	int st = gfxcuda_device_open(-1, &dev);
	if (st != GFXCUDA_OK) {
		printf("skip: no Vulkan device for the compute view: %s\n", gfxcuda_last_error());
		return SKIP;
	}
	st = gfxcuda_shared_open(0, &shared);
	if (st != GFXCUDA_OK) {
		const char *req = getenv("GFXCUDA_REQUIRE_CUDA");
		if (req && strcmp(req, "1") == 0) {
			fprintf(stderr, "GFXCUDA_REQUIRE_CUDA=1, but gfxcuda_shared_open(0): status %d: %s\n", st, gfxcuda_last_error());
			return 1;
		}
		printf("cuda: skipped (gfxcuda_shared_open(0): %s)\n", gfxcuda_last_error());
		shared = 0;
	}
	static const int cases[][3] = {{97, 61, 4}, {256, 256, 4}, {61, 97, 0}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (!run_case(dev, shared, cases[i][0], cases[i][1], cases[i][2])) {
			fprintf(stderr, "seed %llu\n", (unsigned long long)seed);
			return 1;
		}
	}
	if (shared) CHECK(gfxcuda_release(shared));
	CHECK(gfxcuda_release(dev));
	CHECK(gfxcuda_live_handles(&after));
	if (after != before) {
		fprintf(stderr, "%llu live handles after, %llu before\n", (unsigned long long)after, (unsigned long long)before);
		return 1;
	}
	printf("ok: MuJoCo's offscreen color and depth through gfxcuda equal mjr_readPixels%s\n",
	       shared ? " (compute views and CUDA tensors)" : " (compute views; no CUDA)");
	return 0;
}
