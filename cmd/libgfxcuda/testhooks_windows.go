package main

// The signal half of testhooks.go has no Windows counterpart yet: the
// tests that use it are Linux-only.

func cInstallSignalHandlers() bool { return false }
func cSignalHandlersChanged() int  { return -1 }
func cCaughtSignal() int           { return 0 }
