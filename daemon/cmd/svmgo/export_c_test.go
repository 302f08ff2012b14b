package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// textDriver reads dense rows as text from stdin and prints each row's
// prediction as svmgo predict writes a number (%.17g parses back exactly).
const textDriver = `#include <stdio.h>
#include "NAME.h"
int main(void)
{
	float x[NAME_NUM_FEATURES];
	for (;;) {
		int j;
		for (j = 0; j < NAME_NUM_FEATURES; j++)
			if (scanf("%f", &x[j]) != 1)
				return 0;
		printf("%.17g\n", NAME_predict(x));
	}
}
`

// TestExportCPredictsAsPredict: svmgo export --format c of a kernel model,
// its int8 quantization and a linear model, compiled strict on the host,
// predicts heart_scale as svmgo predict does, row for row; the command
// prints the sizes (or that the Cortex-M compiler is missing). core/cgen's
// tests cover every shared set and kind.
func TestExportCPredictsAsPredict(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	test := dataDir + "heart_scale"
	ds, err := data.ReadFile(test, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows bytes.Buffer
	for i := range ds.Len() {
		for _, v := range ds.DenseRow(i) {
			fmt.Fprintf(&rows, "%s ", strconv.FormatFloat(float64(v), 'g', -1, 32))
		}
		rows.WriteByte('\n')
	}
	kernel, q8, linear := filepath.Join(dir, "heart.svmgo"), filepath.Join(dir, "heart-q8.svmgo"), filepath.Join(dir, "heart-lin.svmgo")
	for _, args := range [][]string{
		{"train", "-q", "-t", "2", "-c", "4", test, kernel},
		{"quantize", "--bits", "8", kernel, q8},
		{"train-linear", "-q", "-s", "1", "-B", "1", test, linear},
	} {
		if code, _, errs := svmgo(t, args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	for _, c := range []struct{ model, name string }{{kernel, "heart"}, {q8, "hq8"}, {linear, "heart_lin"}} {
		args := []string{"export", "--format", "c", c.model, dir}
		if c.name != "heart" { // the default name is the file's
			args = append(args, "--name", c.name)
		}
		code, out, errs := svmgo(t, args...)
		if code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
		if !strings.Contains(out, "cortex-m4f: flash") && !strings.Contains(out, "not installed") {
			t.Errorf("%v printed no sizes: %q", args, out)
		}
		drv := filepath.Join(dir, c.name+"_main.c")
		if err := os.WriteFile(drv, []byte(strings.ReplaceAll(textDriver, "NAME", c.name)), 0o644); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, c.name)
		if b, err := exec.Command("gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", "-o", exe,
			filepath.Join(dir, c.name+".c"), drv).CombinedOutput(); err != nil {
			t.Fatalf("gcc %s: %v\n%s", c.name, err, b)
		}
		cmd := exec.Command(exe)
		cmd.Stdin = bytes.NewReader(rows.Bytes())
		got, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(dir, c.name+".predict")
		if code, _, errs := svmgo(t, "predict", "-q", test, c.model, want); code != 0 {
			t.Fatalf("predict %s: %s", c.model, errs)
		}
		w, _ := os.ReadFile(want)
		gl, wl := strings.Fields(string(got)), strings.Fields(string(w))
		if len(gl) != ds.Len() || len(wl) != ds.Len() {
			t.Fatalf("%s: %d C predictions, %d of svmgo predict, want %d", c.name, len(gl), len(wl), ds.Len())
		}
		for i := range gl {
			a, _ := strconv.ParseFloat(gl[i], 64)
			b, _ := strconv.ParseFloat(wl[i], 64)
			if a != b {
				t.Errorf("%s row %d: C predicts %s, svmgo predict %s", c.name, i, gl[i], wl[i])
			}
		}
	}
}

// TestExportCRefuses: usage errors exit 2, a name that is not a C
// identifier 1, and a file name becomes one.
func TestExportCRefuses(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "9 heart.svmgo")
	if code, _, errs := svmgo(t, "train-linear", "-q", dataDir+"heart_scale", model); code != 0 {
		t.Fatal(errs)
	}
	if code, _, _ := svmgo(t, "export", "--format", "c", model); code != 2 {
		t.Errorf("export --format c without a directory: exit %d, want 2", code)
	}
	if code, _, _ := svmgo(t, "export", "--format", "c", model, dir, "--name"); code != 2 {
		t.Errorf("--name without a value: exit %d, want 2", code)
	}
	if code, _, errs := svmgo(t, "export", "--format", "c", model, dir, "--name=no-dash"); code != 1 || !strings.Contains(errs, "C identifier") {
		t.Errorf("--name=no-dash: exit %d, %q", code, errs)
	}
	if code, _, errs := svmgo(t, "export", "--format=c", model, dir); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "m_9_heart.h")); err != nil {
		t.Errorf("the default name of %q: %v", model, err)
	}
}
