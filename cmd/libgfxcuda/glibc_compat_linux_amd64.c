// Old glibc versions for what libgfxcuda.so links in (x86_64, glibc).
//
// Built on a new glibc, the library's references bind to the newest version
// of each function, and a system whose glibc is older refuses to load it.
// The definitions below are hidden (never exported), so every reference in
// the library -- Go's runtime/cgo, shaderc and glslang, libstdc++ when it is
// linked statically -- binds to them instead; each gives the same behaviour
// with what every glibc since 2.17 has. python/build_backend/manylinux.py
// checks the result (`make lib` prints the wheel tag it allows) and says
// which symbol pins the tag when something new needs a newer glibc; see
// docs/wheels.md. The pthread, dl and resolver functions glibc 2.34 moved
// into libc are handled at link time instead (manylinux.py's link
// directory), since which library they come from matters to an old glibc.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>

#if defined(__GLIBC__) && defined(__x86_64__)

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GFX_HIDDEN __attribute__((visibility("hidden")))

// GFX_OLD(name, version) makes gfx_glibc_old_name a reference to
// name@version (the .symver directive binds a reference to one version).
#define GFX_OLD(name, version) __asm__(".symver gfx_glibc_old_" #name ", " #name "@" version)

// The math functions: glibc 2.29 gave exp, exp2, log, log2 and pow new
// versions that skip the old SVID error handling (_LIB_VERSION, matherr).
// The GLIBC_2.2.5 versions compute the same results and set errno as POSIX
// says.
GFX_OLD(exp, "GLIBC_2.2.5");
GFX_OLD(exp2, "GLIBC_2.2.5");
GFX_OLD(log, "GLIBC_2.2.5");
GFX_OLD(log2, "GLIBC_2.2.5");
GFX_OLD(pow, "GLIBC_2.2.5");
extern double gfx_glibc_old_exp(double);
extern double gfx_glibc_old_exp2(double);
extern double gfx_glibc_old_log(double);
extern double gfx_glibc_old_log2(double);
extern double gfx_glibc_old_pow(double, double);
GFX_HIDDEN double exp(double x) { return gfx_glibc_old_exp(x); }
GFX_HIDDEN double exp2(double x) { return gfx_glibc_old_exp2(x); }
GFX_HIDDEN double log(double x) { return gfx_glibc_old_log(x); }
GFX_HIDDEN double log2(double x) { return gfx_glibc_old_log2(x); }
GFX_HIDDEN double pow(double x, double y) { return gfx_glibc_old_pow(x, y); }

// res_search (Go's resolver, for host names when cgo resolves them): glibc
// before 2.34 exports it as __res_search only (resolv.h renamed calls), in
// libresolv; 2.34 and later keep __res_search@GLIBC_2.2.5 in libc.
GFX_OLD(__res_search, "GLIBC_2.2.5");
extern int gfx_glibc_old___res_search(const char *, int, int, unsigned char *, int);
GFX_HIDDEN int res_search(const char *dname, int class, int type, unsigned char *answer, int anslen)
{
	return gfx_glibc_old___res_search(dname, class, type, answer, anslen);
}

// fstat64 (libstdc++'s file streams) is a function only since glibc 2.33;
// before, a header inline called __fxstat64. On x86_64 struct stat64 is the
// kernel's struct stat: the system call is the whole of it.
GFX_HIDDEN int fstat64(int fd, struct stat64 *st) { return (int)syscall(SYS_fstat, fd, st); }

// getrandom_all fills buf from the kernel's random source (getrandom(2),
// Linux 3.17 and later): 0, or -1 and errno.
static int getrandom_all(void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		long n = syscall(SYS_getrandom, (char *)buf + got, len - got, 0);
		if (n > 0)
			got += (size_t)n;
		else if (n < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

// getentropy (glibc 2.25; libstdc++'s std::random_device), as glibc has it:
// at most 256 bytes (EIO above), from getrandom(2).
GFX_HIDDEN int getentropy(void *buf, size_t len)
{
	if (len > 256) {
		errno = EIO;
		return -1;
	}
	return getrandom_all(buf, len);
}

// arc4random (glibc 2.36; libstdc++'s std::random_device): 32 random bits
// from the kernel. glibc's own ends the process when the kernel gives none
// (it has no way to report an error); so does this.
GFX_HIDDEN uint32_t arc4random(void)
{
	uint32_t v;
	if (getrandom_all(&v, sizeof v) != 0)
		abort();
	return v;
}

// __libc_single_threaded (glibc 2.32) tells libstdc++ whether the process
// has one thread, so that it may skip atomic operations on reference counts.
// A process that loaded this library runs Go's threads: never one thread.
// Zero makes libstdc++ always use atomic operations, which is always right.
GFX_HIDDEN char __libc_single_threaded = 0;

#endif
