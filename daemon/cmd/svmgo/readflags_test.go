package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestSpecialAndEndlessInputs: train-linear, train and predict refuse
// /dev/zero, a FIFO (without waiting for a writer) and a line over
// --max-line-bytes with one line naming the file, and write nothing
// (issue 10, fault 7: train-linear /dev/zero grew to gigabytes).
func TestSpecialAndEndlessInputs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.model")
	if code, _, errs := svmgo(t, "train-linear", "-q", dataDir+"heart_scale", good); code != 0 {
		t.Fatal(errs)
	}
	fifo := filepath.Join(dir, "data.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zeros := filepath.Join(dir, "zeros.txt") // 3 MiB without a line break
	if err := os.WriteFile(zeros, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.txt")
	if err := os.WriteFile(short, []byte("1 1:1\n\n-1 1:2 2:0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model, out := filepath.Join(dir, "m"), filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train-linear", "/dev/zero", model}, "/dev/zero is a character device"},
		{[]string{"train", "/dev/zero", model}, "/dev/zero is a character device"},
		{[]string{"predict", "/dev/zero", good, out}, "/dev/zero is a character device"},
		{[]string{"train-linear", fifo, model}, fifo + " is a FIFO"},
		{[]string{"predict", "-q", fifo, good, out}, fifo + " is a FIFO"},
		{[]string{"train-linear", zeros, model}, zeros + ":1: line longer than the limit of 1048576 bytes"},
		{[]string{"predict", zeros, good, out}, zeros + ":1: line longer than the limit of 1048576 bytes"},
		{[]string{"train-linear", "-c", "2", "--max-line-bytes", "10", short, model}, short + ":3: line longer than the limit of 10 bytes"},
		{[]string{"train", "-max-line-bytes=10", "-q", short, model}, short + ":3: line longer than the limit of 10 bytes"},
		{[]string{"predict", "--max-line-bytes", "4", "-q", short, good, out}, short + ":1: line longer than the limit of 4 bytes"},
		{[]string{"quantize", "--max-line-bytes", "4", "--check", short, good, model}, short + ":1: line longer than the limit of 4 bytes"},
		{[]string{"train-linear", "--max-line-bytes", "0", short, model}, "--max-line-bytes: \"0\" is not a positive number"},
		{[]string{"train-linear", "--max-line-bytes"}, "--max-line-bytes needs a value"},
	} {
		type result struct {
			code int
			errs string
		}
		done := make(chan result, 1)
		go func() {
			code, _, errs := svmgo(t, c.args...)
			done <- result{code, errs}
		}()
		select {
		case r := <-done:
			if r.code != 1 || strings.Count(r.errs, "\n") != 1 || !strings.Contains(r.errs, c.want) {
				t.Errorf("%v: exit %d, stderr %q; want 1 and one line with %q", c.args, r.code, r.errs, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: still running after 10 s", c.args)
		}
		for _, f := range []string{model, out} {
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Errorf("%v: %s written", c.args, f)
			}
		}
	}
	// the flag raises the limit as well as lowering it
	long := filepath.Join(dir, "long.txt")
	row := "1 " + strings.Repeat("0", 2<<20) + "1:1\n-1 2:1\n" // index 1 with 2 Mi leading zeros
	if err := os.WriteFile(long, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := svmgo(t, "train-linear", "-q", "--max-line-bytes", "3000000", long, model); code != 0 {
		t.Errorf("a 2 MiB line under --max-line-bytes 3000000: %s", errs)
	}
}

// TestFractionalLabelNamesLine: a classifier's fractional label is refused
// at its file:line, blank lines counted, by train-linear, train, their
// cross-validation, and in CSV (issue 10, fault 8: "label 1.5 of row 4"
// for line 5); a regression trains on it.
func TestFractionalLabelNamesLine(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "frac.txt")
	csv := filepath.Join(dir, "frac.csv")
	os.WriteFile(txt, []byte("1 1:1\n2 1:2\n-1 1:3\n\n1.5 1:4\n"), 0o644)
	os.WriteFile(csv, []byte("1,1\n2,2\n\n1.5,3\n"), 0o644)
	model := filepath.Join(dir, "m")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train-linear", txt, model}, txt + ":5: label 1.5 is not an integer class"},
		{[]string{"train-linear", "-v", "2", txt, model}, txt + ":5: label 1.5 is not an integer class"},
		{[]string{"train", txt, model}, txt + ":5: label 1.5 is not an integer class"},
		{[]string{"train", "-v", "2", txt, model}, txt + ":5: label 1.5 is not an integer class"},
		{[]string{"train-linear", csv, model}, csv + ":4: label 1.5 is not an integer class"},
	} {
		code, _, errs := svmgo(t, c.args...)
		if code != 1 || errs != "svmgo: "+c.want+"\n" {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, errs, c.want)
		}
	}
	for _, args := range [][]string{
		{"train-linear", "-q", "-s", "12", txt, model},
		{"train", "-q", "-s", "3", txt, model},
		{"train", "-q", "-s", "2", txt, model},
	} {
		if code, _, errs := svmgo(t, args...); code != 0 {
			t.Errorf("%v: %s", args, errs)
		}
	}
}

// TestReadFlagsUsageDefault holds the default the constant usage text
// names to the reader's.
func TestReadFlagsUsageDefault(t *testing.T) {
	want := fmt.Sprintf("(default %d)", data.DefaultMaxLineBytes)
	if !strings.Contains(readFlagsUsage, want) {
		t.Errorf("readFlagsUsage does not say %q:\n%s", want, readFlagsUsage)
	}
}
