package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is libsvmgo's version, the command's and the library's alike; a
// test holds include/svmgo.h's SVMGO_VERSION_* macros to it, as capi's
// test does for the library.
const version = "0.6.0"

// printVersion writes "svmgo VERSION" and what the binary was built from:
// the Go release, the platform and, when the build recorded it, the
// commit (with "+modified" for a dirty tree).
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "svmgo %s (%s %s/%s", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = "+modified"
				}
			}
		}
		if rev != "" {
			fmt.Fprintf(w, ", commit %.12s%s", rev, modified)
		}
	}
	fmt.Fprintln(w, ")")
}
