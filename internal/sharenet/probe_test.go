//go:build linux

package sharenet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProbeRendezvous: doctor's view of the ways to an exporter.
func TestProbeRendezvous(t *testing.T) {
	cs := ProbeRendezvous()
	if len(cs) != 3 || !cs[0].OK || cs[0].Rendezvous != RendezvousAbstract {
		t.Fatalf("%+v", cs)
	}
	base := t.TempDir()
	if c := probeFS(filepath.Join(base, "new")); !c.OK || !strings.Contains(c.Detail, "will be created") {
		t.Errorf("a directory to create: %+v", c)
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	unix.Chmod(open, 0o777)
	if c := probeFS(open); c.OK || !strings.Contains(c.Detail, "not trusted") || c.Fix == "" {
		t.Errorf("a world-writable directory: %+v", c)
	}
	unix.Chmod(open, 0o700)
	if c := probeFS(open); !c.OK {
		t.Errorf("this user's directory: %+v", c)
	}
	if os.Geteuid() == 0 {
		os.Chown(open, 1000, 1000)
		if c := probeFS(open); c.OK || !strings.Contains(c.Detail, "belongs to uid 1000") {
			t.Errorf("another user's directory: %+v", c)
		}
	}
}
