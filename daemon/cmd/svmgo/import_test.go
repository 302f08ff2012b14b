package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/textmodel"
)

// TestImport converts the LIBSVM and LIBLINEAR text models of the test data
// and checks that the written files predict heart_scale and diabetes as the
// text models read by core do, bit for bit (core's tests check those
// against LIBSVM's and LIBLINEAR's own decision values).
func TestImport(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	dir := t.TempDir()
	for _, tc := range []struct{ model, test string }{
		{"heart_scale.libsvm.model", "heart_scale"},
		{"diabetes.libsvm.model", "diabetes.test"},
		{"heart_scale.liblinear.model", "heart_scale"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			out := filepath.Join(dir, tc.model+".svmgo")
			code, stdout, stderr := svmgo(t, "import", dataDir+tc.model, out)
			if code != 0 || stdout != "" || stderr != "" {
				t.Fatalf("import: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			text, err := os.Open(dataDir + tc.model)
			if err != nil {
				t.Fatal(err)
			}
			defer text.Close()
			test, err := data.ReadFile(dataDir+tc.test, data.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			kind, err := fileKind(out)
			if err != nil {
				t.Fatal(err)
			}
			var want, got interface {
				PredictBatch(dst []float64, ds *data.Dataset) []float64
			}
			var created int64
			if strings.Contains(tc.model, "libsvm") {
				if kind != modelfile.KindKernel {
					t.Fatalf("kind %q", kind)
				}
				w, err := textmodel.ReadLIBSVMModel(text, tc.model)
				if err != nil {
					t.Fatal(err)
				}
				g, err := modelfile.ReadFileAs[*core.KernelModel](out)
				if err != nil {
					t.Fatal(err)
				}
				want, got, created = w, g, g.Created
			} else {
				if kind != modelfile.KindLinear {
					t.Fatalf("kind %q", kind)
				}
				w, err := textmodel.ReadLIBLINEARModel(text, tc.model)
				if err != nil {
					t.Fatal(err)
				}
				g, err := modelfile.ReadFileAs[*linear.LinearModel](out)
				if err != nil {
					t.Fatal(err)
				}
				want, got, created = w, g, g.Created
			}
			if created != 1700000000 {
				t.Errorf("created %d, want SOURCE_DATE_EPOCH", created)
			}
			pw := want.PredictBatch(make([]float64, test.Len()), test)
			pg := got.PredictBatch(make([]float64, test.Len()), test)
			for i := range pw {
				if math.Float64bits(pw[i]) != math.Float64bits(pg[i]) {
					t.Fatalf("row %d: imported file predicts %v, text model %v", i+1, pg[i], pw[i])
				}
			}
		})
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pre := write("pre.model", "svm_type nu_svc\nkernel_type precomputed\n")
	garbage := write("garbage.model", "1 1:0.5 2:1\n")
	short := write("short.model", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n0.5\n")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		detail string
	}{
		{"precomputed", []string{pre}, 1, "pre.model:2: "},
		{"not a model", []string{garbage}, 1, "want svm_type or solver_type"},
		{"short weights", []string{short}, 1, "short.model:7: 1 weights, want 2"},
		{"missing", []string{filepath.Join(dir, "none.model")}, 1, "no such file"},
		{"no output", nil, 2, "usage: svmgo import"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.svmgo")
			args := append([]string{"import"}, tc.args...)
			if tc.args != nil {
				args = append(args, out)
			}
			code, _, stderr := svmgo(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.detail) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.detail)
			}
			if tc.code == 1 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q is not one line", stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a failed import left %s (%v)", out, err)
			}
		})
	}
	if code, stdout, _ := svmgo(t, "import", "-h"); code != 0 || !strings.Contains(stdout, "usage: svmgo import") {
		t.Errorf("import -h: exit %d, %q", code, stdout)
	}
}
