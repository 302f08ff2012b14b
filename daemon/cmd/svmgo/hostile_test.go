package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFile writes text to name in a new temporary directory and returns
// its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTrainWideIndexRefused: a 4-line file with the index 2³¹−1 made
// train-linear allocate TRON's vectors for 2³¹ features and abort (issue
// 22, fault 6); train and train-linear refuse it with an error naming the
// memory it would take.
func TestTrainWideIndexRefused(t *testing.T) {
	in := writeFile(t, "wide.txt", "1 1:1 2147483647:1\n-1 2:1\n1 3:1\n-1 1:0.5\n")
	for _, args := range [][]string{
		{"train-linear", in},
		{"train-linear", "-s", "2", in},
		{"train-linear", "-s", "0", in},
	} {
		args = append(args, filepath.Join(t.TempDir(), "m"))
		code, _, stderr := svmgo(t, args...)
		if code != 1 || !strings.Contains(stderr, "more memory than the machine has") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the memory it needs", args, code, stderr)
		}
	}
}

// runWithin runs the command in-process and fails t if it has not
// returned within d (a FIFO used to hang svmgo scale for ever).
func runWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(d):
		t.Fatalf("%v: no answer after %v", args, d)
		return 0, "", ""
	}
}

// TestScaleHardenedInputs (issue 22, fault 7): svmgo scale reads its data
// and range files as train and predict read theirs: a FIFO (as data or as
// -r range file), /dev/zero and a line over 1 MiB are refused at once, and
// a feature index of 2³¹−1 costs what its features cost (it took 3 GB): the
// output is svm-scale's, a row of the few features present.
func TestScaleHardenedInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	good := writeFile(t, "good.txt", "1 1:1 3:2\n-1 1:3 2:1\n")
	rng := writeFile(t, "range", "x\n-1 1\n1 1 3\n")
	long := writeFile(t, "long.txt", "1 1:"+strings.Repeat("1", 2<<20)+"\n")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"scale", fifo}, "not a regular file"},
		{[]string{"scale", "-r", fifo, good}, "not a regular file"},
		{[]string{"scale", "/dev/zero"}, "not a regular file"},
		{[]string{"scale", long}, "line longer than 1048576 bytes"},
		{[]string{"scale", "-r", writeFile(t, "bad-range", "x\n-1 1\n1 0 5e-324\n"), good}, "cannot scale"},
		{[]string{"scale", "-r", writeFile(t, "wide-range", "x\n-1 1\n1 -1e308 1e308\n"), good}, "cannot scale"},
		{[]string{"scale", "-l", "-1e300", "-u", "1e300", good}, "interval"},
	} {
		code, _, stderr := runWithin(t, 10*time.Second, c.args...)
		if code != 1 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.msg)
		}
	}
	code, _, stderr := runWithin(t, 10*time.Second, "scale", "-r", rng, good)
	if code != 0 {
		t.Fatalf("restore: exit %d: %s", code, stderr)
	}

	wide := writeFile(t, "wide.txt", "1 1:1 2147483647:4\n-1 2:1 2147483647:2\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, stdout, stderr := runWithin(t, 10*time.Second, "scale", "-l", "0", "-s", filepath.Join(dir, "wide.range"), wide)
	runtime.ReadMemStats(&after)
	// svm-scale -l 0: feature 1 and 2 from [0, 1], feature 2³¹−1 from
	// [2, 4].
	want := "1 1:1 2147483647:1 \n-1 2:1 \n"
	if code != 0 || stdout != want {
		t.Errorf("index 2³¹−1: exit %d, output %q, want %q (%s)", code, stdout, want, stderr)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("index 2³¹−1: allocated %d bytes", alloc)
	}
	gotRange, err := os.ReadFile(filepath.Join(dir, "wide.range"))
	if err != nil {
		t.Fatal(err)
	}
	if wantRange := "x\n0 1\n1 0 1\n2 0 1\n2147483647 2 4\n"; string(gotRange) != wantRange {
		t.Errorf("range file %q, want %q", gotRange, wantRange)
	}
}

// TestGridRefusesBadPointsAndFailedWrites (issue 22, fault 9): a grid
// point with C = 2^−2000 (0) panicked in the solver, one with C = 2^2000
// printed inf as its result, and -out /dev/full reported success; each is
// an error now (exit 1), and a good point still runs.
func TestGridRefusesBadPointsAndFailedWrites(t *testing.T) {
	data := dataDir + "heart_scale"
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-log2c", "-2000,-2000,1", "-log2g", "null"}, "want both positive and finite"},
		{[]string{"-log2c", "2000,2000,1", "-log2g", "null"}, "want both positive and finite"},
		{[]string{"-log2c", "1,1,1", "-log2g", "-2000,-2000,1"}, "want both positive and finite"},
		{[]string{"-log2c", "1,1,1", "-log2g", "-3,-3,1", "-out", "/dev/full"}, "/dev/full: write"},
	} {
		args := append(append([]string{"grid", "-v", "3"}, c.args...), data)
		if !slices.Contains(args, "-out") {
			args = append(args[:len(args)-1], "-out", filepath.Join(dir, "out"), data)
		}
		code, stdout, stderr := runWithin(t, time.Minute, args...)
		if code != 1 || !strings.Contains(stderr, c.msg) || strings.Contains(stdout, "inf") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", args, code, stdout, stderr, c.msg)
		}
	}
	code, stdout, stderr := runWithin(t, time.Minute, "grid", "-v", "3", "-log2c", "1,1,1", "-log2g", "-3,-3,1",
		"-out", filepath.Join(dir, "out"), data)
	if code != 0 || !strings.HasPrefix(stdout, "[local] 1.0 -3.0 ") {
		t.Errorf("good point: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCrossValidationMoreFoldsThanRows (issue 22, fault 11): -v with more
// folds than rows was refused; svm-train and liblinear-train warn and run
// leave-one-out, and so does svmgo. The references are svm-train and
// liblinear-train (Debian libsvm-tools 3.24, liblinear-tools) on the first
// 40 rows of heart_scale with -v 100; regression runs at a tight -e, so
// that the mean squared errors agree to six digits.
func TestCrossValidationMoreFoldsThanRows(t *testing.T) {
	all, err := os.ReadFile(dataDir + "heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.SplitAfter(string(all), "\n")[:40]
	in := writeFile(t, "h40", strings.Join(rows, ""))
	for _, c := range []struct {
		args []string
		want float64 // accuracy in %, or mean squared error
		tol  float64
	}{
		{[]string{"train", "-v", "100"}, 80, 0},
		{[]string{"train", "-s", "1", "-n", "0.3", "-v", "100"}, 80, 0},
		{[]string{"train", "-s", "3", "-e", "0.00001", "-v", "100"}, 0.592997, 1e-5},
		{[]string{"train-linear", "-v", "100", "-e", "0.0001"}, 75, 0},
		{[]string{"train-linear", "-s", "0", "-v", "100"}, 80, 0},
		{[]string{"train-linear", "-s", "11", "-e", "0.000001", "-v", "100"}, 0.671008, 1e-5},
	} {
		code, stdout, stderr := svmgo(t, append(c.args, in)...)
		if code != 0 || !strings.Contains(stderr, "leave-one-out") {
			t.Errorf("%v: exit %d, stderr %q; want 0 and the leave-one-out warning", c.args, code, stderr)
			continue
		}
		var got float64
		for _, line := range strings.Split(stdout, "\n") {
			for _, prefix := range []string{"Cross Validation Accuracy = ", "Cross Validation Mean squared error = "} {
				if v, ok := strings.CutPrefix(line, prefix); ok {
					if got, err = strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if math.Abs(got-c.want) > c.tol*c.want {
			t.Errorf("%v: %v, the reference's %v", c.args, got, c.want)
		}
	}
	// Fewer than two rows cannot be cross-validated.
	one := writeFile(t, "one", rows[0])
	if code, _, stderr := svmgo(t, "train", "-v", "5", one); code != 1 || !strings.Contains(stderr, "cross validation of 1 rows") {
		t.Errorf("one row: exit %d, stderr %q", code, stderr)
	}
}
