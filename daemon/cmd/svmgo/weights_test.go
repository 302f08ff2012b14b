package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// TestTrainWeightFile: -W weights each row of the train file; a row of
// weight 2 trains as the row written twice (svm-train reports the same
// objective), and bad weight files are refused with their file and line.
func TestTrainWeightFile(t *testing.T) {
	dir := t.TempDir()
	text, err := os.ReadFile(dataDir + "heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(text), "\n"), "\n")
	var wgt, dup strings.Builder
	for i, l := range lines {
		if !strings.HasSuffix(l, "\n") {
			l += "\n"
		}
		dup.WriteString(l)
		if i%3 == 0 {
			wgt.WriteString("2\n")
			dup.WriteString(l)
		} else {
			wgt.WriteString("1\n")
		}
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wfile, dfile := write("heart.wgt", wgt.String()), write("heart.dup", dup.String())
	obj := regexp.MustCompile(`obj = (\S+)`)
	_, ow, errs := svmgo(t, "train", "-e", "0.00001", "-W", wfile, dataDir+"heart_scale", filepath.Join(dir, "w.model"))
	_, od, _ := svmgo(t, "train", "-e", "0.00001", dfile, filepath.Join(dir, "d.model"))
	_, ou, _ := svmgo(t, "train", "-e", "0.00001", dataDir+"heart_scale", filepath.Join(dir, "u.model"))
	mw, md, mu := obj.FindStringSubmatch(ow), obj.FindStringSubmatch(od), obj.FindStringSubmatch(ou)
	if mw == nil || md == nil || mw[1] != md[1] || mw[1] == mu[1] {
		t.Errorf("train: objective with -W %v, duplicated rows %v, unweighted %v (%s)", mw, md, mu, errs)
	}
	// ν-SVC and ν-SVR (on heart_scale's ±1 as targets): the weights count
	// in ν's sums too. svm-train's report rounds obj to 6 decimals: equal
	// to 1e-6 relative.
	for _, s := range []string{"1", "4"} {
		objOf := func(out string) float64 {
			m := obj.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("-s %s: no objective in %q", s, out)
			}
			v, err := strconv.ParseFloat(strings.TrimSuffix(m[1], ","), 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		_, ow, errs := svmgo(t, "train", "-s", s, "-n", "0.4", "-e", "0.0000001", "-W", wfile, dataDir+"heart_scale", filepath.Join(dir, "w.model"))
		_, od, _ := svmgo(t, "train", "-s", s, "-n", "0.4", "-e", "0.0000001", dfile, filepath.Join(dir, "d.model"))
		_, ou, _ := svmgo(t, "train", "-s", s, "-n", "0.4", "-e", "0.0000001", dataDir+"heart_scale", filepath.Join(dir, "u.model"))
		fw, fd, fu := objOf(ow+errs), objOf(od), objOf(ou)
		t.Logf("-s %s: objective with -W %v, duplicated rows %v, unweighted %v", s, fw, fd, fu)
		if math.Abs(fw-fd) > 1e-6*math.Abs(fd)+1e-6 || math.Abs(fu-fd) < 1e-3*math.Abs(fd) {
			t.Errorf("train -s %s: objective with -W %v, duplicated rows %v, unweighted %v", s, fw, fd, fu)
		}
	}
	// train-linear prints no objective: compare the weights of the models.
	svmgo(t, "train-linear", "-s", "1", "-e", "0.000001", "-W", wfile, dataDir+"heart_scale", filepath.Join(dir, "lw.model"))
	svmgo(t, "train-linear", "-s", "1", "-e", "0.000001", dfile, filepath.Join(dir, "ld.model"))
	lw, err1 := modelfile.ReadFile(filepath.Join(dir, "lw.model"))
	ld, err2 := modelfile.ReadFile(filepath.Join(dir, "ld.model"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	a, b := lw.(*linear.LinearModel).W, ld.(*linear.LinearModel).W
	for j := range a {
		if math.Abs(float64(a[j]-b[j])) > 1e-4*(1+math.Abs(float64(b[j]))) {
			t.Errorf("train-linear -W: w[%d] = %v, duplicated rows %v", j, a[j], b[j])
		}
	}
	for _, c := range []struct{ text, want string }{
		{strings.Repeat("1\n", 5), "has 5 weights for 270 rows"},
		{"1\n0.5\nx\n", "bad.wgt:3: weight \"x\" is not a number"},
		{"1\n-0.5\n", "bad.wgt:2: weight -0.5 is not positive and finite"},
	} {
		code, _, errs := svmgo(t, "train", "-W", write("bad.wgt", c.text), dataDir+"heart_scale", filepath.Join(dir, "x.model"))
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("weights %q: exit %d, %q, want %q", c.text, code, errs, c.want)
		}
	}
	// A CSV weight column.
	csv := write("w.csv", "1,2,0.5\n-1,1,-0.5\n1,1,1\n")
	if code, _, errs := svmgo(t, "train-linear", "--weight-column", "2", csv, filepath.Join(dir, "c.model")); code != 0 {
		t.Errorf("--weight-column: exit %d: %s", code, errs)
	}
	if code, _, errs := svmgo(t, "train", "--weight-column", "2", "-W", wfile, csv); code == 0 || !strings.Contains(errs, "one way") {
		t.Errorf("-W with --weight-column: exit %d, %s", code, errs)
	}
}
