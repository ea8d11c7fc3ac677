package shader

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/shaderc"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// cacheFormat names the layout of cache entries and everything about a
// compilation that the key does not spell out (target environment, compiler
// flags, debug stripping). Change it when any of those change.
const cacheFormat = "gfxcuda shader cache v1; vulkan1.1; autobind; strip-debug; hlsl-unsized-runtime-arrays"

var cacheMagic = [8]byte{'G', 'F', 'X', 'S', 'P', 'V', 'C', '1'}

// maxCacheEntry bounds what a cache read will accept.
const maxCacheEntry = 64 << 20

type cacheDep struct {
	path string
	sum  [32]byte
}

type cacheEntry struct {
	filename string // Options.Filename of the compilation that made it
	log      string // the compiler's warnings
	deps     []cacheDep
	spirv    []byte
}

type cache struct {
	dir string
}

// cacheDisabled reports whether GFXCUDA_SHADER_CACHE turns the cache off.
func cacheDisabled() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("GFXCUDA_SHADER_CACHE"))) {
	case "off", "0", "false", "no", "disable", "disabled":
		return true
	}
	return false
}

// CacheDir returns the directory Compile caches compiled modules in when
// Options.CacheDir is empty: $GFXCUDA_CACHE_DIR if set, else
// os.UserCacheDir()/gfxcuda/shaders. It returns "" when neither is
// available, and Compile then does not cache.
func CacheDir() string {
	if d := os.Getenv("GFXCUDA_CACHE_DIR"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gfxcuda", "shaders")
}

// openCache returns the cache in dir (or the default directory), or nil
// when caching is off or has no directory.
func openCache(dir string) *cache {
	if cacheDisabled() {
		return nil
	}
	if dir == "" {
		dir = CacheDir()
	}
	if dir == "" {
		return nil
	}
	return &cache{dir: dir}
}

var versionOnce = sync.OnceValue(shaderc.Version)

// CompilerVersion is the version of the GLSL/HLSL compiler linked in
// (shaderc, with glslang's and SPIRV-Tools'): compiled SPIR-V, and the
// cache's keys, depend on it. Generated modules record it, so that a test
// can tell an out-of-date module from one another compiler made.
func CompilerVersion() string { return versionOnce() }

// cacheKey hashes everything that determines the compiler's output; extra
// are fields of the language's own (wgslTranslation.keyFields).
func cacheKey(src []byte, lang Language, stage Stage, entry string, opts Options, includeDirs []string, extra ...string) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(cacheFormat)
	field(versionOnce())
	field(lang.String())
	field(stage.String())
	field(entry)
	if opts.Optimize {
		field("optimize")
	} else {
		field("")
	}
	switch {
	case opts.FlatRegisters && lang == HLSL:
		field("flat-registers")
	case opts.NagaGLSL && lang == GLSL:
		// The source and included files are hashed as written, before
		// the rewrite the option makes.
		field("naga-glsl")
	default:
		field("")
	}
	names := make([]string, 0, len(opts.Defines))
	for k := range opts.Defines {
		names = append(names, k)
	}
	sort.Strings(names)
	field("defines")
	for _, k := range names {
		field(k)
		field(opts.Defines[k])
	}
	field("includes")
	for _, d := range includeDirs {
		field(d)
	}
	if bytes.Contains(src, []byte("#include")) {
		// Relative includes resolve from the source's directory.
		dir := filepath.Dir(displayName(opts.Filename))
		if a, err := filepath.Abs(dir); err == nil {
			dir = a
		}
		field(dir)
	}
	field("source")
	field(string(src))
	for _, f := range extra {
		field(f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sum256(b []byte) [32]byte { return sha256.Sum256(b) }

func (c *cache) path(key string) string { return filepath.Join(c.dir, key+".spvc") }

// get returns the entry stored under key, or nil if there is none or it is
// unreadable, corrupt, or out of date with the files it included.
func (c *cache) get(key string) *cacheEntry {
	data, err := os.ReadFile(c.path(key))
	if err != nil || len(data) > maxCacheEntry {
		return nil
	}
	e, err := decodeEntry(data)
	if err != nil {
		return nil
	}
	for _, d := range e.deps {
		b, err := os.ReadFile(d.path)
		if err != nil || sum256(b) != d.sum {
			return nil
		}
	}
	return e
}

// put stores e under key, atomically: it writes a temporary file in the
// cache directory and renames it into place. Failures are ignored; the
// cache is only an accelerator.
func (c *cache) put(key string, e *cacheEntry) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(c.dir, ".tmp-*.spvc")
	if err != nil {
		return
	}
	tmp := f.Name()
	_, werr := f.Write(encodeEntry(e))
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp)
		return
	}
	_ = os.Chmod(tmp, 0o644)
	if err := os.Rename(tmp, c.path(key)); err != nil {
		os.Remove(tmp)
	}
}

// An entry is: magic, filename, log, dependency count, dependencies (path,
// SHA-256), SPIR-V, then the SHA-256 of everything before it. Strings and
// the SPIR-V carry a little-endian uint32 length.
func encodeEntry(e *cacheEntry) []byte {
	var b []byte
	b = append(b, cacheMagic[:]...)
	str := func(s []byte) {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	str([]byte(e.filename))
	str([]byte(e.log))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(e.deps)))
	for _, d := range e.deps {
		str([]byte(d.path))
		b = append(b, d.sum[:]...)
	}
	str(e.spirv)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

var errCorrupt = errors.New("corrupt cache entry")

func decodeEntry(data []byte) (*cacheEntry, error) {
	if len(data) < len(cacheMagic)+32 || !bytes.Equal(data[:len(cacheMagic)], cacheMagic[:]) {
		return nil, errCorrupt
	}
	body, sum := data[:len(data)-32], data[len(data)-32:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, errCorrupt
	}
	r := body[len(cacheMagic):]
	u32 := func() (uint32, bool) {
		if len(r) < 4 {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(r)
		r = r[4:]
		return v, true
	}
	bytesField := func() ([]byte, bool) {
		n, ok := u32()
		if !ok || uint64(n) > uint64(len(r)) {
			return nil, false
		}
		v := r[:n]
		r = r[n:]
		return v, true
	}
	var e cacheEntry
	fn, ok1 := bytesField()
	log, ok2 := bytesField()
	nd, ok3 := u32()
	if !ok1 || !ok2 || !ok3 || uint64(nd) > uint64(len(r)) {
		return nil, errCorrupt
	}
	e.filename, e.log = string(fn), string(log)
	for i := uint32(0); i < nd; i++ {
		p, ok := bytesField()
		if !ok || len(r) < 32 {
			return nil, errCorrupt
		}
		var d cacheDep
		d.path = string(p)
		copy(d.sum[:], r[:32])
		r = r[32:]
		e.deps = append(e.deps, d)
	}
	code, ok := bytesField()
	if !ok || len(r) != 0 {
		return nil, errCorrupt
	}
	if _, err := spirv.Decode(code); err != nil {
		return nil, errCorrupt
	}
	e.spirv = bytes.Clone(code)
	return &e, nil
}
