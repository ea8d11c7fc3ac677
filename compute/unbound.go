package compute

import (
	"fmt"
	"strings"
)

// Unbound describes, in the words of the binding lists, the resources of
// the shader that args leave unbound, where args are what BindLists
// returned for lists of given[i] entries (cbv, srv, uav, samplers): for
// example "the shader uses uav[0] (register u0: b, a read-write buffer),
// but Compute(uav=...) was given 0 resources" (the lists are those of the
// Python package's Compute and of gfxcuda_compute_new). It is "" when
// every resource is bound. A dispatch then fails (nothing is bound to a
// resource the shader uses); this says which list entry is missing, where
// the dispatch's error names the module's binding numbers (HLSL registers
// appear shifted there: u0 is binding 2048).
func (k *Kernel) Unbound(args []Arg, given [4]int) string {
	bound := k.boundSet(args)
	res := k.Resources()
	var parts []string
	for class, name := range ListNames {
		var missing []string
		ordinal := 0
		for i := range res {
			r := &res[i]
			if ClassOf(r) != ListClasses[class] {
				continue
			}
			n := ordinal
			ordinal++
			if bound[[2]uint32{r.Set, r.Binding}] {
				continue
			}
			what := r.Name
			if what == "" {
				what = "(unnamed)"
			}
			if k.shifted {
				missing = append(missing, fmt.Sprintf("%s[%d] (register %s: %s, a %s)", name, k.RegisterNumber(r), k.Register(r), what, KindName(r)))
			} else {
				missing = append(missing, fmt.Sprintf("%s[%d] (%s: %s, a %s, the shader's %s %s resource in binding order)",
					name, n, k.Register(r), what, KindName(r), ordinalWord(n), name))
			}
		}
		if len(missing) == 0 {
			continue
		}
		s := "resources"
		if given[class] == 1 {
			s = "resource"
		}
		parts = append(parts, fmt.Sprintf("the shader uses %s, but Compute(%s=...) was given %d %s", strings.Join(missing, ", "), name, given[class], s))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "; bind a resource at each of these indices"
}

// ordinalWord is "1st", "2nd", "3rd", "4th"... of the zero-based n.
func ordinalWord(n int) string {
	n++
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
