package shader

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/gfxcuda/gfxcuda/shader/wgsl"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// WGSL compiles in two steps: package wgsl checks the source and
// translates it to GLSL (with #line directives to the WGSL lines), which
// shaderc compiles as any GLSL; then the module is renamed back to the
// WGSL's names (spirv.Rewrite): the entry point from main to the @compute
// function's name, and the identifiers the GLSL had to rename. Overrides
// without a default are marked so that pipelines insist on a value, and
// device features the GLSL needs beyond its capabilities so that
// pipelines check them.

// wgslTranslation is a WGSL source translated to GLSL.
type wgslTranslation struct {
	res *wgsl.Result
}

// wgslPostFormat names how the SPIR-V compiled from the GLSL is rewritten;
// change it when rewrites changes, to leave older cache entries behind.
const wgslPostFormat = "wgsl rewrite v1"

// translateWGSL translates src; a program the WGSL checker rejects yields
// a *CompileError whose diagnostics carry file, line and column.
func translateWGSL(src []byte, opts Options) (t *wgslTranslation, err error) {
	name := displayName(opts.Filename)
	defer func() {
		// Translate promises not to panic; should it, the program gets an
		// error rather than a crash.
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("shader: %s: the WGSL compiler failed: %v", name, r)
		}
	}()
	res, err := wgsl.Translate(src, wgsl.Options{Filename: name, EntryPoint: opts.EntryPoint})
	if err != nil {
		var list wgsl.ErrorList
		var one *wgsl.Error
		switch {
		case errors.As(err, &list):
			return nil, wgslCompileError(list)
		case errors.As(err, &one):
			return nil, wgslCompileError(wgsl.ErrorList{one})
		}
		return nil, fmt.Errorf("shader: %s: %w", name, err)
	}
	if res == nil {
		return nil, fmt.Errorf("shader: %s: the WGSL compiler returned nothing", name)
	}
	return &wgslTranslation{res: res}, nil
}

// wgslCompileError converts the WGSL checker's errors into a CompileError:
// one diagnostic each, whose message ends with the rule broken in
// brackets, as wgsl.Error formats it.
func wgslCompileError(list wgsl.ErrorList) *CompileError {
	ce := &CompileError{Log: list.Error()}
	for _, e := range list {
		if e == nil {
			continue
		}
		msg := e.Msg
		if e.Rule != "" {
			msg += " [" + e.Rule + "]"
		}
		ce.Diagnostics = append(ce.Diagnostics, Diagnostic{File: e.File, Line: e.Line, Column: e.Col,
			Severity: SeverityError, Message: msg})
	}
	return ce
}

// rewrites are the changes that give the compiled module the WGSL names.
func (t *wgslTranslation) rewrites() spirv.Rewrites {
	r := spirv.Rewrites{Names: t.res.Names, Required: requiredOverrides(t.res), Features: t.res.Features}
	for _, o := range t.res.Overrides {
		if o.Specializable {
			if r.SpecNames == nil {
				r.SpecNames = map[uint32]string{}
			}
			r.SpecNames[o.ID] = o.Name
		}
	}
	if t.res.EntryPoint != "" && t.res.EntryPoint != "main" {
		r.EntryPoints = map[string]string{"main": t.res.EntryPoint}
	}
	return r
}

// keyFields are what the cache key needs beyond the GLSL source: what
// rewrites uses.
func (t *wgslTranslation) keyFields() []string {
	if t == nil {
		return nil
	}
	f := []string{wgslPostFormat, "entry", t.res.EntryPoint, "names"}
	names := make([]string, 0, len(t.res.Names))
	for k := range t.res.Names {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		f = append(f, k, t.res.Names[k])
	}
	f = append(f, "required")
	for _, id := range requiredOverrides(t.res) {
		f = append(f, strconv.FormatUint(uint64(id), 10))
	}
	f = append(f, "features")
	f = append(f, t.res.Features...)
	f = append(f, "overrides")
	for _, o := range t.res.Overrides {
		if o.Specializable {
			f = append(f, strconv.FormatUint(uint64(o.ID), 10), o.Name)
		}
	}
	return f
}

// requiredOverrides returns the SpecIds of the overrides declared without
// a default, which a pipeline must set.
func requiredOverrides(res *wgsl.Result) []uint32 {
	var ids []uint32
	for _, o := range res.Overrides {
		if !o.HasDefault && o.Specializable {
			ids = append(ids, o.ID)
		}
	}
	return ids
}
