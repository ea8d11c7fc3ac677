package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda"
)

// idList is a flag of uids or gids: comma-separated, repeatable.
type idList []int

// String is the list as --allow-uid takes it.
func (l *idList) String() string {
	if l == nil || len(*l) == 0 {
		return ""
	}
	var s []string
	for _, id := range *l {
		s = append(s, strconv.Itoa(id))
	}
	return strings.Join(s, ",")
}

// Set adds comma-separated numeric ids.
func (l *idList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil || n == 1<<32-1 {
			return fmt.Errorf("%q is not a numeric uid or gid", p)
		}
		*l = append(*l, int(n))
	}
	return nil
}

// rendezvousFlag is --rendezvous.
type rendezvousFlag struct{ r gfxcuda.Rendezvous }

// String is the set as --rendezvous takes it.
func (f *rendezvousFlag) String() string {
	if f == nil {
		return ""
	}
	return f.r.String()
}

// Set parses a rendezvous list (gfxcuda.ParseRendezvous).
func (f *rendezvousFlag) Set(v string) error {
	r, err := gfxcuda.ParseRendezvous(v)
	if err != nil {
		return err
	}
	f.r = r
	return nil
}

// exportFlags adds share's rendezvous and access flags to fs; the
// function returned reads them as ExportOptions.
func exportFlags(fs *flag.FlagSet) func() gfxcuda.ExportOptions {
	dir := fs.String("dir", "", "`DIR`ectory of the filesystem socket, which another container mounts (default $"+gfxcuda.EnvShareDir+", else "+gfxcuda.DefaultShareDir()+")")
	var uids, gids idList
	fs.Var(&uids, "allow-uid", "let these other `UIDS` open the ring too (comma-separated; repeatable): containers running as other users")
	fs.Var(&gids, "allow-gid", "let these `GIDS` (primary or supplementary groups) open the ring too")
	var rv rendezvousFlag
	fs.Var(&rv, "rendezvous", "how openers may reach this process: `WAYS` among abstract, fs, pidfd (comma-separated), or auto (abstract socket and filesystem socket) or all")
	return func() gfxcuda.ExportOptions {
		return gfxcuda.ExportOptions{Rendezvous: rv.r, Dir: *dir, AllowUIDs: uids, AllowGIDs: gids}
	}
}

// openFlags adds open's rendezvous flags to fs.
func openFlags(fs *flag.FlagSet) func() gfxcuda.OpenOptions {
	dir := fs.String("dir", "", "where the exporter's socket `DIR`ectory is mounted here, when not at the exporter's path (default: the token's, then $"+gfxcuda.EnvShareDir+")")
	var rv rendezvousFlag
	fs.Var(&rv, "rendezvous", "the `WAYS` to the exporter to try among those the token offers: abstract, fs, pidfd (comma-separated), auto or all")
	return func() gfxcuda.OpenOptions { return gfxcuda.OpenOptions{Rendezvous: rv.r, Dir: *dir} }
}

// describeToken prints how openers reach the exporter of tok and who may.
func describeToken(w io.Writer, tok gfxcuda.Token, o gfxcuda.ExportOptions) {
	eps, err := tok.Endpoints()
	if err != nil {
		return
	}
	var where []string
	for _, e := range eps {
		where = append(where, e.String())
	}
	who := fmt.Sprintf("uid %d", os.Geteuid())
	if len(o.AllowUIDs) > 0 {
		who += fmt.Sprintf(", uids %v", o.AllowUIDs)
	}
	if len(o.AllowGIDs) > 0 {
		who += fmt.Sprintf(", gids %v", o.AllowGIDs)
	}
	fmt.Fprintf(w, "reachable through: %s; open to %s\n", strings.Join(where, ", "), who)
}

// writeTokenFile writes the token to path for an opener in another
// container: 0600, or 0644 when other users are allowed (their uid is
// checked by the exporter anyway; the token is only good for them). It
// goes through a temporary file beside path, renamed over it: readers
// never see half a token. Errors name path, the file the user gave.
func writeTokenFile(path string, tok gfxcuda.Token, o gfxcuda.ExportOptions) error {
	mode := os.FileMode(0o600)
	if len(o.AllowUIDs) > 0 || len(o.AllowGIDs) > 0 {
		mode = 0o644
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, pathErr(err))
	}
	tmp := f.Name()
	_, err = f.WriteString(string(tok) + "\n")
	err = errors.Join(err, f.Chmod(mode), f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", path, pathErr(err))
	}
	return nil
}

// pathErr is err without the path a *os.PathError or *os.LinkError
// names (a temporary file's, which the user never gave).
func pathErr(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// checkSocketDir checks, before any work, that share can make its socket
// in dir (--dir): an absolute path (the token names it to openers), an
// existing directory this user can create files in, or a new one whose
// parent exists and takes it. Whom the directory must belong to is
// gfxcuda.ExportOptions.Dir's rule, checked when the socket is made.
func checkSocketDir(dir string) error {
	if !filepath.IsAbs(dir) {
		abs, _ := filepath.Abs(dir)
		return fmt.Errorf("not an absolute path (the token names it to openers, who run in other directories): give one, e.g. %s", abs)
	}
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkOutput(dir) // it is created: its parent must take it
	case err != nil:
		return pathErr(err)
	case st.Mode()&fs.ModeSymlink != 0:
		return errors.New("a symbolic link (not followed): give the directory it points to")
	case !st.IsDir():
		return errors.New("not a directory")
	}
	if err := writableDir(dir); err != nil {
		return fmt.Errorf("cannot create files in it: %w", err)
	}
	return nil
}

// checkSocketPath checks, before any work, that a Unix socket can be made
// at path (--listen unix:PATH): nothing is there yet and its directory
// takes new files.
func checkSocketPath(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists (the socket of a sender still running, or one that died: remove it)", path)
	}
	return checkOutput(path)
}
