// Package shareddata finds the large data sets the tests read from
// ../shared/data (beside the repository root; DESIGN keeps them out of
// the repository). A test that needs one calls Path or Glob: without the
// data it is skipped on a developer's machine, but fails when the
// environment variable CI is set, so that a CI run without the data cannot
// pass without running it. Only tests import it.
//
// # Imports
//
// It may import nothing of this module.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared data directory: ../shared/data relative to the
// repository root, the nearest directory above the working directory (a
// test's package directory) holding go.mod. It calls Missing when no
// repository root or no such directory is found.
func Dir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dir := filepath.Join(d, "..", "shared", "data")
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				Missing(t, dir)
			}
			return dir
		}
		if filepath.Dir(d) == d {
			Missing(t, "../shared/data (no go.mod above "+wd+")")
			return ""
		}
	}
}

// Path returns the path of the shared data file name, calling Missing when
// it is not there.
func Path(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Dir(t), name)
	if _, err := os.Stat(p); err != nil {
		Missing(t, p)
	}
	return p
}

// Glob returns the shared data files that match pattern (filepath.Match
// syntax), calling Missing when none does.
func Glob(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Dir(t), pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		Missing(t, filepath.Join(Dir(t), pattern))
	}
	return files
}

// Missing ends the test for want of what: it fails it when the
// environment variable CI is set (non-empty), and skips it otherwise.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("shared test data missing: %s (CI is set: a test that needs ../shared/data fails without it)", what)
	}
	t.Skipf("shared test data missing: %s (set CI to make this a failure)", what)
}
