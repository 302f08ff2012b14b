package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/libsvmgo/libsvmgo/daemon/buildinfo"
)

// version is libsvmgo's version, the command's and the library's alike; a
// test holds include/svmgo.h's SVMGO_VERSION_* macros to it, as capi's
// test does for the library.
const version = buildinfo.Version

// printVersion writes "svmgo VERSION" and what the binary was built from:
// the Go release, the platform and, when the build recorded it, the
// commit (with "+modified" for a dirty tree).
func printVersion(w io.Writer) {
	in := buildinfo.Read()
	fmt.Fprintf(w, "svmgo %s (%s %s/%s", version, in.GoVersion, runtime.GOOS, runtime.GOARCH)
	if r := in.ShortRevision(); r != "" {
		fmt.Fprintf(w, ", commit %s", r)
	}
	fmt.Fprintln(w, ")")
}
