package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// daemonName is the full build of this command, which the batch build
// (batch.go) runs for watch, serve and follow; make builds and installs it
// next to svmgo.
const daemonName = "svmgo-daemon"

// daemonPath returns the path of svmgo-daemon in the directory of exe (the
// running svmgo, as os.Executable gives it: links resolved), or an error
// saying what is missing.
func daemonPath(exe string) (string, error) {
	path := filepath.Join(filepath.Dir(exe), daemonName)
	if st, err := os.Stat(path); err != nil || st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("the long-running commands (watch, serve, follow) are in %s, next to %s: no executable %s "+
			"(make build and make install put both there)", daemonName, exe, path)
	}
	return path, nil
}
