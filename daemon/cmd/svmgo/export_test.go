package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// headFile writes the first n lines of src to a file in dir and returns
// its path.
func headFile(t *testing.T, dir, src string, n int) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for k := 0; k < n && sc.Scan(); k++ {
		b.WriteString(sc.Text() + "\n")
	}
	out := filepath.Join(dir, filepath.Base(src)+".head")
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportPredictsAsLIBSVM: svmgo export --format libsvm of a kernel
// model and --format liblinear of a linear one, for each shared set, give
// text models that Debian's svm-predict and liblinear-predict read with
// the labels (or values) svmgo predict gives. Kernel models of
// debdesc_bin train on its first 5,000 rows (the whole set takes
// minutes); shuttle comes from ../shared/data.
func TestExportPredictsAsLIBSVM(t *testing.T) {
	svmPredict, err1 := exec.LookPath("svm-predict")
	llPredict, err2 := exec.LookPath("liblinear-predict")
	if err1 != nil || err2 != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("svm-predict or liblinear-predict missing (libsvm-tools, liblinear-tools: make test-deps)")
		}
		t.Skip("svm-predict or liblinear-predict not installed")
	}
	dir := t.TempDir()
	type set struct{ train, test string }
	sets := []set{
		{dataDir + "heart_scale", dataDir + "heart_scale"},
		{dataDir + "breast_cancer.train", dataDir + "breast_cancer.test"},
		{dataDir + "digits.train", dataDir + "digits.test"},
		{dataDir + "diabetes.train", dataDir + "diabetes.test"},
		{dataDir + "debdesc_bin.train", dataDir + "debdesc_bin.test"},
	}
	if _, err := os.Stat("../../../../shared/data/shuttle.train"); err == nil {
		sets = append(sets, set{"../../../../shared/data/shuttle.train", "../../../../shared/data/shuttle.test"})
	} else if os.Getenv("CI") != "" {
		t.Fatal("../shared/data/shuttle.train missing under CI")
	}
	for _, s := range sets {
		regression := strings.Contains(s.train, "diabetes")
		kernelTrain := s.train
		if strings.Contains(s.train, "debdesc") {
			kernelTrain = headFile(t, dir, s.train, 5000)
		}
		cases := []struct {
			train, format, predictor string
			opts                     []string
		}{
			{kernelTrain, "libsvm", svmPredict, []string{"train", "-q", "-b", "1"}},
			{s.train, "liblinear", llPredict, []string{"train-linear", "-q", "-s", "1", "-B", "1"}},
			{s.train, "liblinear", llPredict, []string{"train-linear", "-q", "-s", "40", "-B", "1"}},
		}
		if strings.Contains(s.train, "heart_scale") {
			// The other kernels' parameters (degree, coef0) on one set.
			cases = append(cases, struct {
				train, format, predictor string
				opts                     []string
			}{kernelTrain, "libsvm", svmPredict, []string{"train", "-q", "-t", "1", "-d", "2", "-r", "1"}})
		}
		if regression {
			cases = []struct {
				train, format, predictor string
				opts                     []string
			}{
				{s.train, "libsvm", svmPredict, []string{"train", "-q", "-s", "3", "-c", "100"}},
				{s.train, "liblinear", llPredict, []string{"train-linear", "-q", "-s", "11", "-B", "1"}},
			}
		}
		for k, c := range cases {
			name := filepath.Base(s.train) + "-" + c.format + strings.Repeat("x", k)
			model, text := filepath.Join(dir, name+".svmgo"), filepath.Join(dir, name+".model")
			if code, _, errs := svmgo(t, append(append([]string{}, c.opts...), c.train, model)...); code != 0 {
				t.Fatalf("%v %s: %s", c.opts, c.train, errs)
			}
			if code, _, errs := svmgo(t, "export", "--format", c.format, model, text); code != 0 {
				t.Fatalf("export %s: %s", name, errs)
			}
			ours, theirs := filepath.Join(dir, name+".ours"), filepath.Join(dir, name+".theirs")
			if code, _, errs := svmgo(t, "predict", "-q", s.test, model, ours); code != 0 {
				t.Fatalf("predict %s: %s", name, errs)
			}
			if out, err := exec.Command(c.predictor, s.test, text, theirs).CombinedOutput(); err != nil {
				t.Fatalf("%s %s: %v\n%s", c.predictor, name, err, out)
			}
			a, _ := os.ReadFile(ours)
			b, _ := os.ReadFile(theirs)
			al, bl := strings.Fields(string(a)), strings.Fields(string(b))
			if len(al) != len(bl) {
				t.Fatalf("%s: %d predictions, %s %d", name, len(al), filepath.Base(c.predictor), len(bl))
			}
			differ := 0
			for i := range al {
				if al[i] != bl[i] && !(regression && closeValues(al[i], bl[i])) {
					differ++
				}
			}
			if differ != 0 {
				t.Errorf("%s %v: %d of %d predictions differ from %s's", name, c.opts, differ, len(al), filepath.Base(c.predictor))
			}
		}
	}
	// The wrong format for the kind, and a quantized model, are refused.
	model := filepath.Join(dir, "heart_scale-libsvm.svmgo")
	if code, _, errs := svmgo(t, "export", "--format", "liblinear", model, filepath.Join(dir, "x")); code != 1 || !strings.Contains(errs, "--format libsvm") {
		t.Errorf("liblinear export of a kernel model: exit %d, %q", code, errs)
	}
}

// closeValues reports whether two printed regression values agree to 6
// significant digits (svm-predict prints %.17g of double sums, svmgo %g).
func closeValues(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	d := x - y
	if d < 0 {
		d = -d
	}
	return d <= 1e-5*(1+max(x, -x))
}
