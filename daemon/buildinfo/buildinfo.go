// Package buildinfo says which libsvmgo a binary is: its version (the
// command's, the library's and the model tools' alike) and what the Go
// toolchain recorded about its build (the commit). The command's --version
// and the daemon's svmgo_build_info metric read it; it imports nothing of
// libsvmgo.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is libsvmgo's version without the "v" of its tag (v0.6.0: module
// versions are tagged vMAJOR.MINOR.PATCH so that the Go module system
// resolves them). Tests hold include/svmgo.h's SVMGO_VERSION_* macros, the
// library's and the Python package's versions to it.
const Version = "0.6.0"

// commit is the commit a build was made from when the Go toolchain did
// not record one (GOFLAGS=-buildvcs=false, a tree without .git): the
// Makefile sets it with -ldflags "-X ...buildinfo.commit=$(git rev-parse
// HEAD)".
var commit string

// Info is what a binary was built from.
type Info struct {
	// Version is libsvmgo's version (the constant Version).
	Version string
	// GoVersion is the Go release that built the binary.
	GoVersion string
	// Revision is the commit the build recorded (go build in a Git
	// checkout with -buildvcs, the default); "" when none was recorded.
	Revision string
	// Modified reports that the checkout had uncommitted changes.
	Modified bool
}

// Read returns the binary's build information.
func Read() Info {
	in := Info{Version: Version, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if in.Revision == "" {
		in.Revision = commit
	}
	return in
}

// ShortRevision is Revision cut to 12 hex digits with "+modified" for a
// dirty checkout; "" when no commit was recorded.
func (in Info) ShortRevision() string {
	if in.Revision == "" {
		return ""
	}
	r, dirty := strings.CutSuffix(in.Revision, "+modified") // the Makefile's form
	if len(r) > 12 {
		r = r[:12]
	}
	if in.Modified || dirty {
		r += "+modified"
	}
	return r
}
