package main

import "testing"

// TestConcurrencyFromC runs testdata/concurrency.c: 8 threads predict
// through a watched handle while 200 versions are published into its
// directory; every call must succeed and match one published version.
func TestConcurrencyFromC(t *testing.T) {
	exe := compileC(t, "concurrency", false)
	runC(t, exe, t.TempDir(), "200", "8")
}
