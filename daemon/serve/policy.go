package serve

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Policy is the version policy of one model: which of the valid versions
// in its directory are served (Triton's version_policy). The zero value
// serves the newest valid version only.
type Policy struct {
	// Latest serves the newest Latest valid versions; 0 means 1. It is
	// ignored when All or Specific is set.
	Latest int
	// All serves every valid version in the directory.
	All bool
	// Specific serves exactly these versions, those that are valid.
	Specific []uint64
}

// ParsePolicy parses a policy as the command's flags write it: "latest",
// "latest:N" (N ≥ 1), "all" or "specific:V[,V...]".
func ParsePolicy(s string) (Policy, error) {
	name, arg, hasArg := strings.Cut(s, ":")
	switch {
	case name == "latest" && !hasArg:
		return Policy{Latest: 1}, nil
	case name == "latest":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return Policy{}, fmt.Errorf("serve: version policy %q: want latest:N with N ≥ 1", s)
		}
		return Policy{Latest: n}, nil
	case name == "all" && !hasArg:
		return Policy{All: true}, nil
	case name == "specific" && hasArg:
		var p Policy
		for _, f := range strings.Split(arg, ",") {
			v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return Policy{}, fmt.Errorf("serve: version policy %q: version %q is not a decimal number", s, f)
			}
			p.Specific = append(p.Specific, v)
		}
		slices.Sort(p.Specific)
		p.Specific = slices.Compact(p.Specific)
		return p, nil
	}
	return Policy{}, fmt.Errorf("serve: version policy %q: want latest, latest:N, all or specific:V[,V...]", s)
}

// String writes p as ParsePolicy reads it.
func (p Policy) String() string {
	switch {
	case p.All:
		return "all"
	case len(p.Specific) > 0:
		s := make([]string, len(p.Specific))
		for i, v := range p.Specific {
			s[i] = strconv.FormatUint(v, 10)
		}
		return "specific:" + strings.Join(s, ",")
	case p.Latest > 1:
		return "latest:" + strconv.Itoa(p.Latest)
	}
	return "latest"
}

// wants reports whether p serves version v, the count-th newest valid
// version taken so far (0 for the newest).
func (p Policy) wants(v uint64, count int) bool {
	switch {
	case p.All:
		return true
	case len(p.Specific) > 0:
		_, found := slices.BinarySearch(p.Specific, v)
		return found
	}
	return count < max(p.Latest, 1)
}
