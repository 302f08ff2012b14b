package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestVersionMatchesHeader: --version prints the version that svmgo.h's
// SVMGO_VERSION_* macros state (make install names libsvmgo.so.MAJOR.MINOR.PATCH
// after them), and -version, --version and version say the same.
func TestVersionMatchesHeader(t *testing.T) {
	h, err := os.ReadFile("../../../include/svmgo.h")
	if err != nil {
		t.Fatal(err)
	}
	part := func(name string) string {
		m := regexp.MustCompile(`(?m)^#define SVMGO_VERSION_` + name + ` (\d+)$`).FindSubmatch(h)
		if m == nil {
			t.Fatalf("svmgo.h: no SVMGO_VERSION_%s", name)
		}
		return string(m[1])
	}
	want := part("MAJOR") + "." + part("MINOR") + "." + part("PATCH")
	if version != want {
		t.Fatalf("version %q, svmgo.h says %q", version, want)
	}
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, errs := svmgo(t, arg)
		if code != 0 || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, errs)
		}
		if !strings.HasPrefix(out, "svmgo "+want+" (go") || !strings.HasSuffix(out, ")\n") || strings.Count(out, "\n") != 1 {
			t.Errorf("%s printed %q", arg, out)
		}
	}
}
