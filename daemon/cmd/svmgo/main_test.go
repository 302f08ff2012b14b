package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const dataDir = "../../../core/testdata/"

// svmgo runs the command in-process and returns its exit status and output.
func svmgo(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestTrainPredict trains on heart_scale and checks the printed reports
// against liblinear-train -s 1 -e 0.0001 heart_scale: objective -121.134724,
// 84.4444% (228/270) on its own training data. (At the default eps the
// accuracy depends on the permutation seed by a row either way, in
// LIBLINEAR and here alike.)
func TestTrainPredict(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "heart.model")
	code, out, errs := svmgo(t, "train-linear", "-s", "1", "-e", "0.0001", dataDir+"heart_scale", model)
	if code != 0 {
		t.Fatalf("train-linear: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "optimization finished, #iter = ") || !strings.Contains(out, "Objective value = -121.1347") {
		t.Errorf("train report:\n%s", out)
	}
	pred := filepath.Join(dir, "heart.out")
	code, out, errs = svmgo(t, "predict", dataDir+"heart_scale", model, pred)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errs)
	}
	if out != "Accuracy = 84.4444% (228/270)\n" {
		t.Errorf("predict printed %q", out)
	}
	lines, err := os.ReadFile(pred)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(lines, []byte("\n")); n != 270 {
		t.Errorf("%d prediction lines, want 270", n)
	}
	if !bytes.HasPrefix(lines, []byte("1\n")) && !bytes.HasPrefix(lines, []byte("-1\n")) {
		t.Errorf("predictions start %q", lines[:min(10, len(lines))])
	}
}

// TestRegressionReport: liblinear-predict prints MSE 27059.6 and squared
// correlation 0.487122 for -s 12 on diabetes (testdata/liblinear-ref.sh).
func TestRegressionReport(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "d.model")
	if code, _, errs := svmgo(t, "train-linear", "-q", "-s", "12", "-e", "0.0001", dataDir+"diabetes.train", model); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := svmgo(t, "predict", dataDir+"diabetes.test", model, filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.HasPrefix(out, "Mean squared error = 2705") || !strings.Contains(out, "Squared correlation coefficient = 0.487") {
		t.Errorf("predict printed %q", out)
	}
}

// TestByteIdenticalModels: two runs with the same seed write the same bytes.
func TestByteIdenticalModels(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for i := range 2 {
		model := filepath.Join(dir, "m"+string(rune('0'+i)))
		if code, _, errs := svmgo(t, "train-linear", "-q", "-s", "3", "-B", "1", dataDir+"digits.train", model); code != 0 {
			t.Fatal(errs)
		}
		b, err := os.ReadFile(model)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two runs wrote different model files")
	}
}

func TestCrossValidationReport(t *testing.T) {
	code, out, errs := svmgo(t, "train-linear", "-v", "5", "-q", dataDir+"heart_scale")
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.HasPrefix(out, "Cross Validation Accuracy = ") {
		t.Errorf("printed %q", out)
	}
	code, out, _ = svmgo(t, "train-linear", "-s", "12", "-v", "3", dataDir+"diabetes.train")
	if code != 0 || !strings.Contains(out, "Cross Validation Mean squared error = ") ||
		!strings.Contains(out, "Cross Validation Squared correlation coefficient = ") {
		t.Errorf("exit %d, printed %q", code, out)
	}
}

// TestBadInput: bad arguments and files give one line, exit status 1, and
// leave no model or output file behind.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("1 1:0.5 2:1\n-1 3:x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "out.model")
	good := filepath.Join(dir, "good.model")
	if code, _, errs := svmgo(t, "train-linear", "-q", dataDir+"heart_scale", good); code != 0 {
		t.Fatal(errs)
	}
	notModel := filepath.Join(dir, "not.model")
	os.WriteFile(notModel, []byte("solver_type L2R_L2LOSS_SVC_DUAL\n"), 0o644)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train-linear", "-c", "0", dataDir + "heart_scale", model}, "C = 0"},
		{[]string{"train-linear", "-s", "8", dataDir + "heart_scale", model}, "unknown solver -s 8"},
		{[]string{"train-linear", "-e", dataDir + "heart_scale"}, "option -e"},
		{[]string{"train-linear", bad, model}, "bad.txt:2:"},
		{[]string{"train-linear", filepath.Join(dir, "missing"), model}, "missing"},
		{[]string{"predict", bad, good, filepath.Join(dir, "p.out")}, "bad.txt:2:"},
		{[]string{"predict", dataDir + "heart_scale", notModel, filepath.Join(dir, "p.out")}, "not.model"},
		{[]string{"predict", dataDir + "heart_scale", good, filepath.Join(dir, "nodir", "p.out")}, "nodir"},
	} {
		code, _, errs := svmgo(t, c.args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1", c.args, code)
		}
		if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: stderr %q, want one line naming %q", c.args, errs, c.want)
		}
	}
	for _, f := range []string{model, filepath.Join(dir, "p.out")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s left behind", f)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if code, _, _ := svmgo(t, "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code, _, _ := svmgo(t, "train-linear"); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
}
