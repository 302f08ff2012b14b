package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// headerFunctions returns the function names include/svmgo.h declares.
func headerFunctions(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("../include/svmgo.h")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^SVMGO_API\s[^;(]*?\b(svmgo_\w+)\s*\(`).FindAllSubmatch(src, -1) {
		names = append(names, string(m[1]))
	}
	slices.Sort(names)
	if len(names) < 20 {
		t.Fatalf("found only %d declarations in svmgo.h: %v", len(names), names)
	}
	return names
}

// TestExportsMatchHeader: the library exports exactly the functions the
// header declares, and none of its internal C symbols.
func TestExportsMatchHeader(t *testing.T) {
	so := filepath.Join(libDir(t), "libsvmgo.so")
	if _, err := exec.LookPath("nm"); err != nil {
		t.Skip("nm not found")
	}
	out, err := exec.Command("nm", "-D", "--defined-only", so).Output()
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		name := f[len(f)-1]
		if strings.HasPrefix(name, "capi_") {
			t.Errorf("internal symbol %s is exported", name)
		}
		if strings.HasPrefix(name, "svmgo_") {
			exported = append(exported, name)
		}
	}
	slices.Sort(exported)
	declared := headerFunctions(t)
	if !slices.Equal(exported, declared) {
		for _, n := range exported {
			if !slices.Contains(declared, n) {
				t.Errorf("%s is exported but not declared in svmgo.h", n)
			}
		}
		for _, n := range declared {
			if !slices.Contains(exported, n) {
				t.Errorf("%s is declared in svmgo.h but not exported", n)
			}
		}
	}
}

// TestVersionMatchesHeader: the Go constants behind svmgo_version_number
// and svmgo_version_string are the header's macros.
func TestVersionMatchesHeader(t *testing.T) {
	src, err := os.ReadFile("../include/svmgo.h")
	if err != nil {
		t.Fatal(err)
	}
	macro := func(name string) int {
		m := regexp.MustCompile(`(?m)^#define ` + name + `\s+(\d+)\s*$`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("svmgo.h does not define %s as a number", name)
		}
		v, _ := strconv.Atoi(string(m[1]))
		return v
	}
	major, minor, patch := macro("SVMGO_VERSION_MAJOR"), macro("SVMGO_VERSION_MINOR"), macro("SVMGO_VERSION_PATCH")
	if major != versionMajor || minor != versionMinor || patch != versionPatch {
		t.Errorf("svmgo.h says %d.%d.%d, the library %d.%d.%d", major, minor, patch, versionMajor, versionMinor, versionPatch)
	}
	if want := major*10000 + minor*100 + patch; versionNumber != want {
		t.Errorf("versionNumber = %d, want %d", versionNumber, want)
	}
	if want := strconv.Itoa(major) + "." + strconv.Itoa(minor) + "." + strconv.Itoa(patch); versionString != want {
		t.Errorf("versionString = %q, want %q", versionString, want)
	}
}

// TestProgramsCompileAsCxx: the header serves C++ too; every test program
// is valid C++17 against it (misuse also runs as C++ in its own test).
func TestProgramsCompileAsCxx(t *testing.T) {
	for _, name := range []string{"parity", "trainer", "concurrency"} {
		compileC(t, name, true)
	}
}

// TestInternalCIsStrict compiles the library's own C (the last-error
// buffer, the status names, the internal header with the public one) as
// strict C11 with every warning an error.
func TestInternalCIsStrict(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	obj := filepath.Join(t.TempDir(), "lasterror.o")
	args := []string{"-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fPIC", "-c", "-o", obj, "lasterror.c"}
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
