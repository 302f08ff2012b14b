package linear

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// TestGlibcRand: the first outputs of glibc's rand() from its default
// seed, as printed by a C program calling rand() five times.
func TestGlibcRand(t *testing.T) {
	var g solve.GlibcRand
	g.Seed(1)
	for k, want := range []uint32{1804289383, 846930886, 1681692777, 1714636915, 1957747793} {
		if got := g.Next(); got != want {
			t.Fatalf("rand() #%d = %d, glibc %d", k+1, got, want)
		}
	}
}

// liblinear250CSearch returns the -C search of testdata/liblinear250-ref.txt
// on file with options args (LIBLINEAR 2.50's, liblinear250-ref.sh).
func liblinear250CSearch(t *testing.T, file, args string) liblinear250Case {
	t.Helper()
	for _, c := range readLiblinear250Refs(t) {
		if c.csearch && c.train == file && c.options == args {
			return c
		}
	}
	t.Fatalf("no -C search of %s %s in testdata/liblinear250-ref.txt", file, args)
	return liblinear250Case{}
}

// TestFindLinearCPath: on liblinear-train's folds, with its Newton method
// and warm starts, the whole path of scores is LIBLINEAR 2.50's.
func TestFindLinearCPath(t *testing.T) {
	ds := readTestdata(t, "breast_cancer.train")
	o, _, _ := ParseLinearOptions(strings.Fields("-s 2 -C"))
	res, err := FindLinearC(ds, o.Params, o.CrossValidation, o.StartC, nil)
	if err != nil {
		t.Fatal(err)
	}
	rates := liblinear250CSearch(t, "breast_cancer.train", "-s 2").rates
	if len(res.Steps) != len(rates) || !res.MaxCReached || res.Steps[0].C != math.Pow(2, -15) {
		t.Fatalf("%d steps from C = %g (maximum reached %v), LIBLINEAR %d from 2^-15 to the maximum",
			len(res.Steps), res.Steps[0].C, res.MaxCReached, len(rates))
	}
	for k, want := range rates {
		if got := 100 * res.Steps[k].Score.Accuracy(); math.Abs(got-want) > 1e-4 {
			t.Errorf("C = %g: rate %.6g, LIBLINEAR %.6g", res.Steps[k].C, got, want)
		}
	}
}

func TestFindLinearCParity(t *testing.T) {
	for _, ref := range readLiblinear250Refs(t) {
		if !ref.csearch {
			continue
		}
		t.Run(ref.train+strings.ReplaceAll(ref.options, " ", ""), func(t *testing.T) {
			if testing.Short() && (ref.train == "debdesc_bin.train" || ref.train == "digits.train") {
				t.Skip("large set (-short)")
			}
			ds := readTestdata(t, ref.train)
			o, _, err := ParseLinearOptions(append(strings.Fields(ref.options), "-C"))
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			res, err := FindLinearC(ds, o.Params, o.CrossValidation, o.StartC, func(CSearchStep) { steps++ })
			if err != nil {
				t.Fatal(err)
			}
			if steps != len(res.Steps) {
				t.Errorf("progress called %d times for %d steps", steps, len(res.Steps))
			}
			if math.Abs(res.BestC-ref.bestC) > 1e-6*ref.bestC {
				t.Errorf("best C %g, LIBLINEAR %g", res.BestC, ref.bestC)
			}
			if d := math.Abs(100*res.Best.Accuracy() - ref.accuracy); d > accuracyTol {
				t.Errorf("CV accuracy %.4f%%, LIBLINEAR %.4f%%", 100*res.Best.Accuracy(), ref.accuracy)
			}
			for k, s := range res.Steps {
				if k > 0 && s.C != 2*res.Steps[k-1].C {
					t.Fatalf("step %d: C %g after %g", k, s.C, res.Steps[k-1].C)
				}
				if s.Score.Correct > res.Best.Correct {
					t.Errorf("C %g scores %d correct, more than the best %d", s.C, s.Score.Correct, res.Best.Correct)
				}
			}
		})
	}
}

// TestFindLinearCWarmMatchesCold: a step's score is that of cross-validating
// at its C from scratch, on the same folds, to within a few rows (the warm
// path stops a little elsewhere within the tolerance: three rows of 455 at
// C = 2, where the line-search Newton method's runs, as LIBLINEAR 2.50's,
// end farther inside the test than TRON's did, which kept within two).
func TestFindLinearCWarmMatchesCold(t *testing.T) {
	ds := readTestdata(t, "breast_cancer.train")
	o, _, _ := ParseLinearOptions(strings.Fields("-s 1 -C -v 3"))
	res, err := FindLinearC(ds, o.Params, o.CrossValidation, 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps[0].C != 0.5 || !res.MaxCReached && len(res.Steps) < 5 {
		t.Fatalf("path %+v", res.Steps)
	}
	l := ds.Len()
	perm := liblinearFolds(l)
	for _, s := range res.Steps[:3] {
		p := o.Params
		p.PrimalTwin, p.C = true, s.C
		correct := 0
		for f := range 3 {
			start, end := f*l/3, (f+1)*l/3
			train := data.NewDense(l, ds.NumFeatures())
			for _, i := range append(append([]int(nil), perm[:start]...), perm[end:]...) {
				solve.AppendRow(train, ds, i)
			}
			m, _, err := TrainLinear(train, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range perm[start:end] {
				if m.PredictDense(ds.DenseRow(i)) == ds.Label(i) {
					correct++
				}
			}
		}
		if d := correct - s.Score.Correct; d < -3 || d > 3 {
			t.Errorf("C %g: warm path %d correct, cold cross-validation %d", s.C, s.Score.Correct, correct)
		}
	}
}

func TestFindLinearCRegression(t *testing.T) {
	ds := readTestdata(t, "diabetes.train")
	o, _, _ := ParseLinearOptions(strings.Fields("-s 11 -p 10 -C"))
	res, err := FindLinearC(ds, o.Params, o.CrossValidation, o.StartC, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		if s.Score.MSE < res.Best.MSE {
			t.Errorf("C %g has MSE %g below the best %g", s.C, s.Score.MSE, res.Best.MSE)
		}
	}
	// LIBLINEAR's start for SVR, computed here by its formula.
	var sumY, loss, maxXX float64
	for i := range ds.Len() {
		y := math.Abs(ds.Label(i))
		sumY += y
		loss += max(y-10, 0) * max(y-10, 0)
		maxXX = max(maxXX, ds.SquaredNorm(i))
	}
	want := math.Pow(2, math.Floor(math.Log2(0.01*loss/(8*sumY*sumY*maxXX))))
	if res.Steps[0].C != want {
		t.Errorf("first C %g, want %g", res.Steps[0].C, want)
	}
}

func TestFindLinearCErrors(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	p := DefaultLinearParams()
	p.Solver = L1LossSVCDual
	if _, err := FindLinearC(ds, p, 5, 0, nil); !errors.Is(err, model.ErrParams) {
		t.Errorf("-s 3: %v", err)
	}
	p.Solver = L2LossSVCPrimal
	if _, err := FindLinearC(ds, p, 1, 0, nil); !errors.Is(err, model.ErrParams) {
		t.Errorf("1 fold: %v", err)
	}
	o, rest, err := ParseLinearOptions(strings.Fields("-s 2 -C -c 0.5 -B -1 -q train"))
	if err != nil || !o.FindC || o.StartC != 0.5 || o.CrossValidation != 5 || o.Params.Bias != -1 || !o.Quiet || len(rest) != 1 {
		t.Errorf("parse -C: %+v %v %v", o, rest, err)
	}
}
