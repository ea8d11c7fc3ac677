package main

// The signal half of testhooks.go (POSIX signals: Linux only).

/*
#include <signal.h>
#include <string.h>

// A caller's own handler for SIGINT and SIGTERM, as Python installs its
// KeyboardInterrupt's (SA_ONSTACK, no SA_RESTART), with SIGUSR1 in its mask.
static volatile sig_atomic_t gfx_test_caught;
static void gfx_test_handler(int sig) { gfx_test_caught = sig; }
static struct sigaction gfx_test_act[2];
static const int gfx_test_sigs[2] = {SIGINT, SIGTERM};

static int gfx_test_install(void) {
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_handler = gfx_test_handler;
	a.sa_flags = SA_ONSTACK;
	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, SIGUSR1);
	for (int i = 0; i < 2; i++) {
		if (sigaction(gfx_test_sigs[i], &a, NULL) != 0) return -1;
		// As the kernel reports it back (glibc adds its restorer).
		if (sigaction(gfx_test_sigs[i], NULL, &gfx_test_act[i]) != 0) return -1;
	}
	return 0;
}

// 0 when both signals' handling is what gfx_test_install set; else a bit
// per difference: 1 handler, 2 flags, 4 mask (SIGINT); 8, 16, 32 (SIGTERM).
static int gfx_test_changed(void) {
	int bits = 0;
	for (int i = 0; i < 2; i++) {
		struct sigaction now;
		if (sigaction(gfx_test_sigs[i], NULL, &now) != 0) return -1;
		if (now.sa_handler != gfx_test_act[i].sa_handler) bits |= 1 << (3 * i);
		if (now.sa_flags != gfx_test_act[i].sa_flags) bits |= 2 << (3 * i);
		for (int s = 1; s < 32; s++) {
			if (sigismember(&now.sa_mask, s) != sigismember(&gfx_test_act[i].sa_mask, s)) bits |= 4 << (3 * i);
		}
	}
	return bits;
}

static int gfx_test_caught_sig(void) { return gfx_test_caught; }
*/
import "C"

// cInstallSignalHandlers installs a caller's own handler for SIGINT and
// SIGTERM (gfx_test_install); cSignalHandlersChanged says what differs
// from it now (0: nothing); cCaughtSignal is the signal it caught (0: none).
func cInstallSignalHandlers() bool { return C.gfx_test_install() == 0 }
func cSignalHandlersChanged() int  { return int(C.gfx_test_changed()) }
func cCaughtSignal() int           { return int(C.gfx_test_caught_sig()) }
