package core

import (
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/libsvmref"
)

func TestDefaultKernelParams(t *testing.T) {
	// svm-train's usage text, option by option.
	want := KernelParams{
		SVMType:   CSVC,
		Kernel:    Kernel{Type: RBFKernel, Degree: 3, Gamma: 0, Coef0: 0},
		C:         1,
		Nu:        0.5,
		P:         0.1,
		Eps:       0.001,
		CacheMB:   100,
		Shrinking: true,
		Seed:      1,
	}
	if got := DefaultKernelParams(); !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultKernelParams() = %+v, want %+v", got, want)
	}
	for label, w := range map[int32]float64{1: 2, -1: 0.5, 7: 3, 2: 1} {
		p := want
		p.Weights = []ClassWeight{{Label: 1, Weight: 2}, {Label: -1, Weight: 0.5}, {Label: 7, Weight: 3}}
		if got := p.weightOf(label); got != w {
			t.Errorf("weightOf(%d) = %v, want %v", label, got, w)
		}
	}
	if got := want.cacheBytes(); got != 100<<20 {
		t.Errorf("cacheBytes = %d, want %d", got, 100<<20)
	}
}

// LIBSVM checks only the parameters a formulation uses (svm_check_parameter):
// one-class ignores C and p, C-SVC ignores ν and p, and so on.
func TestKernelParamsValidateByType(t *testing.T) {
	ok := func(mod func(p *KernelParams)) KernelParams {
		p := DefaultKernelParams()
		mod(&p)
		return p
	}
	for name, p := range map[string]KernelParams{
		"one-class ignores C":   ok(func(p *KernelParams) { p.SVMType, p.C = OneClass, 0 }),
		"one-class ignores p":   ok(func(p *KernelParams) { p.SVMType, p.P = OneClass, -1 }),
		"C-SVC ignores nu":      ok(func(p *KernelParams) { p.Nu = 7 }),
		"C-SVC ignores p":       ok(func(p *KernelParams) { p.P = -1 }),
		"SVR ignores nu":        ok(func(p *KernelParams) { p.SVMType, p.Nu = EpsSVR, 0 }),
		"SVR probability":       ok(func(p *KernelParams) { p.SVMType, p.Probability = EpsSVR, true }),
		"nu-SVC ignores C":      ok(func(p *KernelParams) { p.SVMType, p.C = NuSVC, 0 }),
		"nu-SVC ignores p":      ok(func(p *KernelParams) { p.SVMType, p.P = NuSVC, -1 }),
		"nu-SVC probability":    ok(func(p *KernelParams) { p.SVMType, p.Probability = NuSVC, true }),
		"nu-SVR ignores p":      ok(func(p *KernelParams) { p.SVMType, p.P = NuSVR, -1 }),
		"nu-SVR probability":    ok(func(p *KernelParams) { p.SVMType, p.Probability = NuSVR, true }),
		"nu 1":                  ok(func(p *KernelParams) { p.SVMType, p.Nu = NuSVR, 1 }),
		"linear ignores gamma":  ok(func(p *KernelParams) { p.Kernel = Kernel{Type: LinearKernel, Gamma: -1, Degree: -1} }),
		"rbf ignores degree":    ok(func(p *KernelParams) { p.Kernel.Degree = -3 }),
		"fractional cache":      ok(func(p *KernelParams) { p.CacheMB = 0.01 }),
		"unseen class weighted": ok(func(p *KernelParams) { p.Weights = []ClassWeight{{Label: 42, Weight: 3}} }),
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, p := range map[string]KernelParams{
		"SVR C":           ok(func(p *KernelParams) { p.SVMType, p.C = EpsSVR, 0 }),
		"SVR p":           ok(func(p *KernelParams) { p.SVMType, p.P = EpsSVR, math.NaN() }),
		"one-class nu":    ok(func(p *KernelParams) { p.SVMType, p.Nu = OneClass, math.NaN() }),
		"poly degree":     ok(func(p *KernelParams) { p.Kernel = Kernel{Type: PolyKernel, Degree: -1} }),
		"sigmoid coef0":   ok(func(p *KernelParams) { p.Kernel = Kernel{Type: SigmoidKernel, Coef0: math.Inf(1)} }),
		"nu-SVC nu":       ok(func(p *KernelParams) { p.SVMType, p.Nu = NuSVC, 0 }),
		"nu-SVR nu":       ok(func(p *KernelParams) { p.SVMType, p.Nu = NuSVR, 1.5 }),
		"nu-SVR C":        ok(func(p *KernelParams) { p.SVMType, p.C = NuSVR, -1 }),
		"nu-SVC weights":  ok(func(p *KernelParams) { p.SVMType, p.Weights = NuSVC, []ClassWeight{{Label: 1, Weight: 2}} }),
		"type 5":          ok(func(p *KernelParams) { p.SVMType = 5 }),
		"weight infinite": ok(func(p *KernelParams) { p.Weights = []ClassWeight{{Label: 1, Weight: math.Inf(1)}} }),
		"cache NaN":       ok(func(p *KernelParams) { p.CacheMB = math.NaN() }),
		"eps infinite":    ok(func(p *KernelParams) { p.Eps = math.Inf(1) }),
		"max iter":        ok(func(p *KernelParams) { p.MaxIter = -1 }),
	} {
		if err := p.Validate(); !errors.Is(err, ErrParams) {
			t.Errorf("%s: error %v, want ErrParams", name, err)
		}
	}
}

func TestSVMTypeNames(t *testing.T) {
	// LIBSVM's svm_type_table, as its model files spell them.
	for typ, want := range map[SVMType]string{CSVC: "c_svc", NuSVC: "nu_svc", OneClass: "one_class", EpsSVR: "epsilon_svr",
		NuSVR: "nu_svr", 5: "SVMType(5)"} {
		if got := typ.String(); got != want {
			t.Errorf("SVMType(%d).String() = %q, want %q", int(typ), got, want)
		}
	}
	if CSVC.IsRegression() || NuSVC.IsRegression() || OneClass.IsRegression() || !EpsSVR.IsRegression() || !NuSVR.IsRegression() {
		t.Error("IsRegression: only ε-SVR and ν-SVR are regression")
	}
	if !CSVC.IsSVC() || !NuSVC.IsSVC() || OneClass.IsSVC() || EpsSVR.IsSVC() || NuSVR.IsSVC() {
		t.Error("IsSVC: only C-SVC and ν-SVC are one-vs-one classifiers")
	}
}

func TestResolvedKernel(t *testing.T) {
	p := DefaultKernelParams()
	if k := p.ResolvedKernel(13); k.Gamma != 1.0/13 || k.Type != RBFKernel || k.Degree != 3 {
		t.Errorf("ResolvedKernel(13) = %+v", k)
	}
	if k := p.ResolvedKernel(0); k.Gamma != 0 {
		t.Errorf("ResolvedKernel(0) = %+v, want gamma 0", k)
	}
	p.Kernel.Gamma = 0.5
	if k := p.ResolvedKernel(13); k.Gamma != 0.5 {
		t.Errorf("explicit gamma: %+v", k)
	}
	if p.Kernel.Gamma != 0.5 {
		t.Error("ResolvedKernel changed its receiver")
	}
}

// libsvmRef, libsvmRefSub and libsvmRefImport are the records of
// testdata/libsvm-ref.txt (package libsvmref, shared with core/textmodel's
// import tests).
type (
	libsvmRef       = libsvmref.Case
	libsvmRefSub    = libsvmref.Sub
	libsvmRefImport = libsvmref.Import
)

// readLibsvmRef parses testdata/libsvm-ref.txt, failing t on any line it
// does not understand.
func readLibsvmRef(t testing.TB) (versions map[string]string, cases []libsvmRef, imports []libsvmRefImport) {
	t.Helper()
	return libsvmref.Read(t, "testdata/libsvm-ref.txt")
}

// TestLibsvmRefWellFormed checks that the recorded figures are complete and
// agree with each other and with the data files, so the parity tests can
// trust them: counts add up, rounded printouts match full-precision values,
// and every recorded option is one ParseKernelOptions accepts with the
// meaning svm-train gave it.
func TestLibsvmRefWellFormed(t *testing.T) {
	versions, cases, imports := readLibsvmRef(t)
	if versions["libsvm"] == "" || versions["liblinear"] == "" {
		t.Errorf("tool versions missing: %v", versions)
	}
	names := map[string]bool{}
	for _, c := range cases {
		names[c.Name] = true
	}
	for _, want := range []string{"heart_scale", "breast_cancer", "digits", "diabetes",
		"breast_cancer_prob", "digits_prob", "heart_scale_poly", "heart_scale_sigmoid", "heart_scale_oneclass",
		"heart_scale_nu", "digits_nu", "shuttle_nu", "diabetes_nu"} {
		if !names[want] {
			t.Errorf("no case %s", want)
		}
	}
	kernelNames := map[KernelType]string{LinearKernel: "linear", PolyKernel: "polynomial", RBFKernel: "rbf", SigmoidKernel: "sigmoid"}
	rows := map[string]*data.Dataset{}
	data := func(name string) *data.Dataset {
		if rows[name] == nil {
			rows[name] = readTestdata(t, name)
		}
		return rows[name]
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, k := range []string{"train", "test", "options", "svm_type", "kernel_type", "nr_class", "total_sv", "rho"} {
				if !c.Has[k] && c.Model[k] == nil {
					t.Fatalf("missing %s", k)
				}
			}
			o, rest, err := ParseKernelOptions(c.ReadOptions())
			if err != nil || len(rest) != 0 {
				t.Fatalf("options %q: %v, rest %q", c.Options, err, rest)
			}
			p := o.Params
			if got := c.Model["svm_type"][0]; got != p.SVMType.String() {
				t.Errorf("svm_type %s, options say %s", got, p.SVMType)
			}
			if got := c.Model["kernel_type"][0]; got != kernelNames[p.Kernel.Type] {
				t.Errorf("kernel_type %s, options say %s", got, kernelNames[p.Kernel.Type])
			}
			train, test := data(c.Train), data(c.Test)
			// Debian's svm-train reads an explicit -g as float32 (0.1 is
			// written 0.10000000149011612; ReadOptions); the automatic
			// gamma is the double 1/features.
			k := p.ResolvedKernel(train.NumFeatures())
			if p.Kernel.Type != LinearKernel {
				if got := c.Floats(t, "gamma")[0]; got != k.Gamma {
					t.Errorf("gamma %v, ResolvedKernel(%d) gives %v", got, train.NumFeatures(), k.Gamma)
				}
			}
			if p.Kernel.Type == PolyKernel {
				if d := c.Floats(t, "degree")[0]; d != float64(k.Degree) {
					t.Errorf("degree %v, options say %d", d, k.Degree)
				}
			}
			if p.Kernel.Type == PolyKernel || p.Kernel.Type == SigmoidKernel {
				if r := c.Floats(t, "coef0")[0]; r != k.Coef0 {
					t.Errorf("coef0 %v, options say %v", r, k.Coef0)
				}
			}

			pairs := 1
			classes := 0
			if p.SVMType.IsSVC() {
				// The classes of the training set, as LIBSVM lists them.
				seen := map[float64]bool{}
				for i := range train.Len() {
					seen[train.Label(i)] = true
				}
				classes = len(seen)
				pairs = classes * (classes - 1) / 2
				if got := int(c.Floats(t, "nr_class")[0]); got != classes {
					t.Errorf("nr_class %d, training set has %d classes", got, classes)
				}
				labels := c.Floats(t, "label")
				for _, l := range labels {
					if !seen[l] {
						t.Errorf("label %v not in the training set", l)
					}
				}
				if len(labels) != classes {
					t.Errorf("%d labels, want %d", len(labels), classes)
				}
				nrSV, sum := c.Floats(t, "nr_sv"), 0.0
				for _, v := range nrSV {
					sum += v
				}
				if len(nrSV) != classes || int(sum) != int(c.Floats(t, "total_sv")[0]) {
					t.Errorf("nr_sv %v does not add up to total_sv %v", nrSV, c.Model["total_sv"])
				}
			}
			rho := c.Floats(t, "rho")
			if len(rho) != pairs {
				t.Fatalf("%d rho values, want %d", len(rho), pairs)
			}
			totalSV := int(c.Floats(t, "total_sv")[0])
			if !(totalSV > 0 && totalSV <= train.Len()) {
				t.Errorf("total_sv %d out of range (%d rows)", totalSV, train.Len())
			}
			if p.Probability {
				if len(c.Subs) != 0 || c.Has["total_nsv"] {
					t.Error("-b 1 run records subproblems")
				}
				if len(c.Floats(t, "probA")) != pairs || len(c.Floats(t, "probB")) != pairs {
					t.Errorf("probA/probB: %d/%d values, want %d", len(c.Model["probA"]), len(c.Model["probB"]), pairs)
				}
				if !c.Has["logloss"] || !(c.LogLoss > 0 && c.LogLoss < math.Log(float64(classes))) {
					t.Errorf("log-loss %v: want one better than uniform guessing (%v)", c.LogLoss, math.Log(float64(classes)))
				}
			} else {
				if len(c.Subs) != pairs {
					t.Fatalf("%d subproblems, want %d", len(c.Subs), pairs)
				}
				if p.SVMType.IsSVC() && c.TotalNSV != totalSV {
					t.Errorf("Total nSV %d, model total_sv %d", c.TotalNSV, totalSV)
				}
				if !p.SVMType.IsSVC() && (c.Has["total_nsv"] || c.Subs[0].NSV != totalSV) {
					t.Errorf("nSV %d, model total_sv %d", c.Subs[0].NSV, totalSV)
				}
				for s, sub := range c.Subs {
					// svm-train prints rho with %f; the model keeps all digits.
					if math.Abs(sub.Rho-rho[s]) > 5e-7 {
						t.Errorf("sub %d: rho %v, model %v", s, sub.Rho, rho[s])
					}
					// A ν-SVC pair may start optimal (shuttle's small pairs,
					// one α per class).
					if !(sub.NBSV <= sub.NSV && sub.NSV <= totalSV && (sub.Iter > 0 || p.SVMType == NuSVC && sub.Iter == 0)) {
						t.Errorf("sub %d: inconsistent %+v", s, sub)
					}
					// Dual objectives: C-SVC and ε-SVR minimize
					// ½αᵀQα − eᵀα (or its SVR form) from 0, so the optimum
					// is negative; one-class's and ν-SVC's ½αᵀQα is
					// positive; ν-SVR's ½αᵀQα − zᵀ(α − α*) negative.
					if (p.SVMType == OneClass || p.SVMType == NuSVC) != (sub.Obj > 0) {
						t.Errorf("sub %d: objective %v has the wrong sign", s, sub.Obj)
					}
				}
			}
			switch p.SVMType {
			case EpsSVR, NuSVR:
				if !c.Has["mse"] || !c.Has["scc"] || !(c.MSE > 0) || !(c.SCC >= 0 && c.SCC <= 1) {
					t.Errorf("mse %v, scc %v", c.MSE, c.SCC)
				}
			default:
				if c.Total != test.Len() || c.Correct > c.Total {
					t.Errorf("accuracy %d/%d on %d test rows", c.Correct, c.Total, test.Len())
				}
				// svm-predict prints %g: six significant digits.
				if pct := 100 * float64(c.Correct) / float64(c.Total); math.Abs(pct-c.Accuracy) > 5e-4*math.Max(1, pct/100) {
					t.Errorf("accuracy %v%%, %d/%d is %v%%", c.Accuracy, c.Correct, c.Total, pct)
				}
			}
			if p.SVMType == OneClass {
				// ν bounds the fraction of training outliers from above.
				if !c.Has["pred_pos"] || c.Test == c.Train && float64(c.Total-c.PredPos) > p.Nu*float64(c.Total)+1 {
					t.Errorf("%d of %d rows predicted inside with nu %v", c.PredPos, c.Total, p.Nu)
				}
			}
			// The predictions give back the figures svm-predict printed.
			if c.Has["pred"] == p.Probability {
				t.Fatalf("pred recorded: %v, -b 1: %v", c.Has["pred"], p.Probability)
			}
			if c.Pred != nil {
				if len(c.Pred) != test.Len() {
					t.Fatalf("%d predictions for %d test rows", len(c.Pred), test.Len())
				}
				var se float64
				correct, pos := 0, 0
				for i, v := range c.Pred {
					y := test.Label(i)
					se += (v - y) * (v - y)
					if v == y {
						correct++
					}
					if v == 1 {
						pos++
					}
				}
				switch {
				case p.SVMType.IsRegression():
					if mse := se / float64(test.Len()); math.Abs(mse-c.MSE) > 1e-9*c.MSE {
						t.Errorf("predictions' MSE %.10g, recorded %.10g", mse, c.MSE)
					}
				case correct != c.Correct:
					t.Errorf("%d predictions correct, recorded %d", correct, c.Correct)
				case p.SVMType == OneClass && pos != c.PredPos:
					t.Errorf("%d predictions +1, recorded %d", pos, c.PredPos)
				}
			}
		})
	}

	if len(imports) != 5 {
		t.Errorf("%d import cases, want 5", len(imports))
	}
	for _, im := range imports {
		t.Run("import_"+im.Name, func(t *testing.T) {
			if _, err := os.Stat("testdata/" + im.Model); err != nil {
				t.Fatal(err)
			}
			test := data(im.Test)
			if len(im.Labels) != test.Len() {
				t.Fatalf("%d rows recorded, test set has %d", len(im.Labels), test.Len())
			}
			for i, d := range im.Dec {
				if len(d) != 1 {
					t.Fatalf("row %d: %d decision values, want 1 (binary or regression)", i, len(d))
				}
				// Binary models predict their first label (1 in these
				// files) on a positive decision value; SVR predicts it.
				switch {
				case im.Tool == "libsvm" && strings.HasPrefix(im.Name, "diabetes"):
					if im.Labels[i] != d[0] {
						t.Errorf("row %d: SVR label %v, decision value %v", i, im.Labels[i], d[0])
					}
				case (d[0] > 0) != (im.Labels[i] == 1):
					t.Errorf("row %d: label %v, decision value %v", i, im.Labels[i], d[0])
				}
			}
		})
	}
}
