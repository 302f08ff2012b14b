package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaleCommand runs svmgo scale as svm-scale is run and compares its
// output and range file with svm-scale 3.24's (core/scale/testdata), then
// restores the range file; and checks svm-scale's usage errors.
func TestScaleCommand(t *testing.T) {
	dir := t.TempDir()
	rng := filepath.Join(dir, "range")
	data := "../../../core/testdata/heart_scale"
	var out, errs bytes.Buffer
	if code := run([]string{"scale", "-l", "0", "-u", "1", "-y", "-2", "3", "-s", rng, data}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	want, err := os.ReadFile("../../../core/scale/testdata/heart_scale-y.out")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) || errs.Len() != 0 {
		t.Errorf("output differs from svm-scale's (%d bytes, want %d); stderr %q", out.Len(), len(want), errs.String())
	}
	gotRange, _ := os.ReadFile(rng)
	wantRange, _ := os.ReadFile("../../../core/scale/testdata/heart_scale-y.range")
	if !bytes.Equal(gotRange, wantRange) {
		t.Errorf("range file:\n%s\nsvm-scale's:\n%s", gotRange, wantRange)
	}
	out.Reset()
	if code := run([]string{"scale", "-r", rng, data}, &out, &errs); code != 0 || !bytes.Equal(out.Bytes(), want) {
		t.Errorf("restore: exit %d, output equal %v", code, bytes.Equal(out.Bytes(), want))
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"scale", "-l", "1", "-u", "1", data}, 1, "inconsistent lower/upper specification"},
		{[]string{"scale", "-y", "1", "0", data}, 1, "inconsistent lower/upper specification"},
		{[]string{"scale", "-s", rng, "-r", rng, data}, 1, "cannot use -r and -s simultaneously"},
		{[]string{"scale", "-x", "1", data}, 2, "unknown option -x"},
		{[]string{"scale"}, 2, "usage: svmgo scale"},
		{[]string{"scale", filepath.Join(dir, "missing")}, 1, "no such file"},
	} {
		out.Reset()
		errs.Reset()
		if code := run(c.args, &out, &errs); code != c.code || !strings.Contains(errs.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs.String(), c.code, c.msg)
		}
	}
}

// TestTrainScaleCommand: train and train-linear --scale write a model that
// carries its ranges (inspect shows them) and predicts the raw test file
// as LIBSVM predicts the svm-scale'd one (core/testdata/scaled, made by
// its make.sh with the same options).
func TestTrainScaleCommand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cmd, options, train, test, ref string
	}{
		{"train", "-s 0 -t 2 -c 1 --scale", "digits.train", "digits.test", "digits-rbf"},
		{"train-linear", "-s 2 -c 1 --scale --scale-lower 0", "breast_cancer.train", "breast_cancer.test", "breast-linear"},
	} {
		model := filepath.Join(dir, c.ref+".model")
		pred := filepath.Join(dir, c.ref+".pred")
		var out, errs bytes.Buffer
		args := append(append([]string{c.cmd, "-q"}, strings.Fields(c.options)...), "../../../core/testdata/"+c.train, model)
		if code := run(args, &out, &errs); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs.String())
		}
		if code := run([]string{"inspect", model}, &out, &errs); code != 0 || !strings.Contains(out.String(), "from their training ranges (train --scale)") {
			t.Errorf("%s: inspect (exit %d) shows no scaling:\n%s", c.ref, code, out.String())
		}
		if code := run([]string{"predict", "-q", "../../../core/testdata/" + c.test, model, pred}, &out, &errs); code != 0 {
			t.Fatalf("predict: exit %d: %s", code, errs.String())
		}
		got, _ := os.ReadFile(pred)
		want, _ := os.ReadFile("../../../core/testdata/scaled/" + c.ref + ".pred")
		g, w := strings.Fields(string(got)), strings.Fields(string(want))
		differ := 0
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				differ++
			}
		}
		if len(g) != len(w) || differ > 0 {
			t.Errorf("%s: %d of %d predictions differ from LIBSVM's on svm-scale'd files", c.ref, differ, len(w))
		}
	}
}
