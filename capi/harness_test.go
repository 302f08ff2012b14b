package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The C-driven tests build libsvmgo.so once per test binary, compile the C
// programs of testdata/ against include/svmgo.h (as C99 and as C++17), and
// run them with the library on LD_LIBRARY_PATH.

var lib struct {
	once sync.Once
	dir  string // holds libsvmgo.so
	err  error
	out  []byte
}

// libDir builds the library on first use and returns its directory. It
// skips the test when gcc is missing: cgo needs it too.
func libDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the C ABI tests need it")
	}
	lib.once.Do(func() {
		lib.dir, lib.err = os.MkdirTemp("", "svmgo-capi-test-")
		if lib.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(lib.dir, "libsvmgo.so"), ".")
		lib.out, lib.err = cmd.CombinedOutput()
	})
	if lib.err != nil {
		t.Fatalf("building libsvmgo.so: %v\n%s", lib.err, lib.out)
	}
	return lib.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if lib.dir != "" {
		os.RemoveAll(lib.dir)
	}
	os.Exit(code)
}

// includeDir is the directory of svmgo.h.
func includeDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../include")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// envOr returns the environment variable name, or def when it is unset.
// A cross run (make cross-armv7) sets SVMGO_TEST_CC and SVMGO_TEST_CXX to
// the target's compilers, SVMGO_TEST_EXEC to the emulator that runs the
// programs, and GOARCH and CC for the library's build.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// compileC compiles testdata/name.c into an executable in a temporary
// directory and returns its path; cxx compiles it as C++17 instead.
func compileC(t *testing.T, name string, cxx bool) string {
	t.Helper()
	dir := libDir(t)
	exe := filepath.Join(t.TempDir(), name)
	src := filepath.Join("testdata", name+".c")
	var args []string
	compiler := envOr("SVMGO_TEST_CC", "gcc")
	if cxx {
		compiler = envOr("SVMGO_TEST_CXX", "g++")
		exe += "-cxx"
		args = []string{"-std=c++17", "-Wall", "-Wextra", "-Werror", "-x", "c++"}
	} else {
		args = []string{"-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror"}
	}
	args = append(args, "-O1", "-I"+includeDir(t), "-o", exe, src)
	if cxx {
		args = append(args, "-x", "none")
	}
	args = append(args, "-L"+dir, "-lsvmgo", "-lpthread", "-lm")
	if _, err := exec.LookPath(compiler); err != nil {
		t.Skipf("%s not found", compiler)
	}
	out, err := exec.Command(compiler, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, out)
	}
	return exe
}

// runC runs a compiled test program and fails the test when it exits with
// an error; it returns the program's standard output.
func runC(t *testing.T, exe string, args ...string) string {
	t.Helper()
	if pre := strings.Fields(os.Getenv("SVMGO_TEST_EXEC")); len(pre) > 0 {
		args = append(append(pre[1:], exe), args...)
		exe = pre[0]
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+libDir(t))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if testing.Verbose() || err != nil {
		t.Logf("%s stdout:\n%s", filepath.Base(exe), stdout.String())
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(exe), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// writeRaw writes v's values in the machine's byte order (the C programs
// read them with fread), little-endian on every platform Go and this
// library run on.
func writeRaw(t *testing.T, path string, v any) {
	t.Helper()
	var b bytes.Buffer
	if err := binary.Write(&b, binary.NativeEndian, v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readFloat64s reads a file of raw doubles.
func readFloat64s(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, len(b)/8)
	if err := binary.Read(bytes.NewReader(b), binary.NativeEndian, v); err != nil {
		t.Fatal(err)
	}
	return v
}

// readInt64s reads a file of raw int64s.
func readInt64s(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]int64, len(b)/8)
	if err := binary.Read(bytes.NewReader(b), binary.NativeEndian, v); err != nil {
		t.Fatal(err)
	}
	return v
}
