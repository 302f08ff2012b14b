package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainPandasCSV: a CSV written by pandas' DataFrame.to_csv() with its
// defaults (testdata/pandas_heart.csv: a header line, the index as column
// 1; make-pandas-csv.py) trains, through train and train-linear, the model
// that heart_scale in LIBSVM format trains, byte for byte: without options
// (the header recognised, its empty first field taken for the index), with
// --csv.skip-columns 1, and with the index named and --csv.header yes.
func TestTrainPandasCSV(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/pandas_heart.csv")
	if err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "named.csv")
	if err := os.WriteFile(named, []byte(strings.Replace(string(raw), ",label,", "id,label,", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"train", "-q"}, {"train-linear", "-q", "-s", "2", "-B", "1"}} {
		want := filepath.Join(dir, cmd[0]+".ref")
		if code, _, errs := svmgo(t, append(cmd, dataDir+"heart_scale", want)...); code != 0 {
			t.Fatalf("%v heart_scale: %s", cmd, errs)
		}
		wantBytes, _ := os.ReadFile(want)
		for k, args := range [][]string{
			{"testdata/pandas_heart.csv"},
			{"--csv.skip-columns", "1", "testdata/pandas_heart.csv"},
			{"--csv.header", "yes", "--csv.skip-columns", "1", named},
		} {
			out := filepath.Join(dir, cmd[0]+strings.Repeat("x", k+1))
			full := append(append(append([]string{}, cmd...), args...), out)
			if code, _, errs := svmgo(t, full...); code != 0 {
				t.Fatalf("%v: exit %d: %s", full, code, errs)
			}
			got, _ := os.ReadFile(out)
			if !bytes.Equal(got, wantBytes) {
				t.Errorf("%v: the model differs from heart_scale's", full)
			}
		}
	}
}

// TestTextModelNamesImport: a LIBSVM or LIBLINEAR text model given to
// predict, quantize or export is refused with the svmgo import command
// that converts it.
func TestTextModelNamesImport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct{ model, kind string }{
		{"heart_scale.libsvm.model", "LIBSVM"}, {"heart_scale.liblinear.model", "LIBLINEAR"},
	} {
		for _, args := range [][]string{
			{"predict", dataDir + "heart_scale", dataDir + c.model, out},
			{"quantize", dataDir + c.model, out},
			{"export", "--format", "libsvm", dataDir + c.model, out},
		} {
			code, _, errs := svmgo(t, args...)
			want := "it is a " + c.kind + " text model; convert it with `svmgo import " + dataDir + c.model + " MODEL.svmgo`"
			if code != 1 || !strings.Contains(errs, want) {
				t.Errorf("%v: exit %d, %q; want %q", args, code, errs, want)
			}
		}
	}
}
