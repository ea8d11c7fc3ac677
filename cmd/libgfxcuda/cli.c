// gfxcuda_cli_main: gfxcuda's command line, run in the calling process
// (gfxCLIMain in cli.go), with SIGINT and SIGTERM given their default
// actions while it runs, as in the gfxcuda binary, and the caller's
// handlers put back, exactly as they were, before it returns. See gfxcuda.h.
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include "_cgo_export.h"

static pthread_mutex_t gfx_cli_mu = PTHREAD_MUTEX_INITIALIZER;

int gfxcuda_cli_main(int argc, char **argv) {
#ifdef _WIN32
	// Windows has no sigaction: Ctrl-C reaches the command through the
	// console's control handler, which Go installs and removes itself.
	pthread_mutex_lock(&gfx_cli_mu);
	int rc = gfxCLIMain(argc, argv);
	pthread_mutex_unlock(&gfx_cli_mu);
	return rc;
#else
	static const int sigs[2] = {SIGINT, SIGTERM};
	struct sigaction saved[2];
	int have[2] = {0, 0};
	pthread_mutex_lock(&gfx_cli_mu);
	for (int i = 0; i < 2; i++) {
		if (sigaction(sigs[i], NULL, &saved[i]) != 0) continue;
		have[i] = 1;
		// An ignored signal stays ignored (nohup), as the binary leaves it;
		// any other handler (Python's KeyboardInterrupt) gives way to the
		// default action: Ctrl-C ends a command as it ends the binary, and
		// share/open, which catch the signal (Go's signal.Notify), end at the
		// first one with their summary and at a second one at once.
		if (!(saved[i].sa_flags & SA_SIGINFO) && saved[i].sa_handler == SIG_IGN) continue;
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(sigs[i], &dfl, NULL);
	}
	int rc = gfxCLIMain(argc, argv);
	// Go puts back the handler it found when a command stops catching a
	// signal, but with flags of its own (SA_RESTART, SA_ONSTACK): the
	// caller's exact sigaction goes back here.
	for (int i = 0; i < 2; i++) {
		if (have[i]) sigaction(sigs[i], &saved[i], NULL);
	}
	pthread_mutex_unlock(&gfx_cli_mu);
	return rc;
#endif
}
