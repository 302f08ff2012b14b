package textmodel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/libsvmref"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// decTol is the agreement asked of decision values with LIBSVM's and
// LIBLINEAR's, relative to values above 1 in magnitude: the support
// vectors and weights are rounded to float32 on import (and the text
// rounds them to 8 or 17 significant digits).
const decTol = 1e-5

// decClose reports whether a decision value is within decTol of the
// reference, relative to its magnitude when that is above 1 (SVR values of
// ~150, as ν-SVR's on diabetes with 176 coefficients of ±10, differ from
// LIBSVM's double rows by float32 rounding, ~1e-7 relative).
func decClose(got, ref float64) bool {
	return math.Abs(got-ref) <= decTol*max(1, math.Abs(ref))
}

// importedModel is a model read by ReadLIBSVMModel or ReadLIBLINEARModel,
// seen through what the tests compare.
type importedModel interface {
	DecisionSparse(dst []float64, index []int32, value []float32) []float64
	PredictSparse(index []int32, value []float32) float64
	NumDecisionValues() int
}

// isRegression reports whether m predicts values rather than labels, which
// then match the reference within decTol only.
func isRegression(m importedModel) bool {
	r, ok := m.(interface{ IsRegression() bool })
	return ok && r.IsRegression()
}

// readTextModel reads a LIBSVM or LIBLINEAR text model from text.
func readTextModel(t *testing.T, tool, name, text string) importedModel {
	t.Helper()
	var m importedModel
	var err error
	if tool == "libsvm" {
		m, err = ReadLIBSVMModel(strings.NewReader(text), name)
	} else {
		m, err = ReadLIBLINEARModel(strings.NewReader(text), name)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// sparseRow returns row i of ds as 0-based indices and values, whatever
// its layout.
func sparseRow(ds *data.Dataset, i int) ([]int32, []float32) {
	if !ds.IsDense() {
		return ds.SparseRow(i)
	}
	var idx []int32
	var val []float32
	for j, v := range ds.DenseRow(i) {
		if v != 0 {
			idx, val = append(idx, int32(j)), append(val, v)
		}
	}
	return idx, val
}

// checkDecisions compares m's labels and decision values on the rows of ds
// with the reference's, row by row.
func checkDecisions(t *testing.T, m importedModel, ds *data.Dataset, labels []float64, dec [][]float64) {
	t.Helper()
	if ds.Len() != len(labels) {
		t.Fatalf("%d test rows, %d reference predictions", ds.Len(), len(labels))
	}
	buf := make([]float64, m.NumDecisionValues())
	for i := range ds.Len() {
		idx, val := sparseRow(ds, i)
		if got := m.PredictSparse(idx, val); got != labels[i] && !(isRegression(m) && decClose(got, labels[i])) {
			t.Errorf("row %d: predicted %v, reference %v", i+1, got, labels[i])
		}
		got := m.DecisionSparse(buf, idx, val)
		if len(got) != len(dec[i]) {
			t.Fatalf("row %d: %d decision values, reference %d", i+1, len(got), len(dec[i]))
		}
		for k := range got {
			if !decClose(got[k], dec[i][k]) {
				t.Errorf("row %d value %d: %.17g, reference %.17g (off by %.3g)", i+1, k, got[k], dec[i][k], math.Abs(got[k]-dec[i][k]))
			}
		}
	}
}

// TestImportAgainstReference reads the saved text models of
// testdata/libsvm-ref.txt's import records and checks every test row's
// label and decision values against svm_predict_values and
// predict_values.
func TestImportAgainstReference(t *testing.T) {
	_, _, imports := libsvmref.Read(t, "../testdata/libsvm-ref.txt")
	if len(imports) < 5 {
		t.Fatalf("%d import records, want 5", len(imports))
	}
	for _, im := range imports {
		t.Run(im.Name, func(t *testing.T) {
			text, err := os.ReadFile("../testdata/" + im.Model)
			if err != nil {
				t.Fatal(err)
			}
			m := readTextModel(t, im.Tool, im.Model, string(text))
			test := readTestdata(t, im.Test)
			checkDecisions(t, m, test, im.Labels, im.Dec)
			km, ok := m.(*core.KernelModel)
			if !ok || test.NumFeatures() > km.NumFeatures {
				return
			}
			// Dense rows of the model's width give the same values.
			x := make([]float32, km.NumFeatures)
			buf := make([]float64, km.NumDecisionValues())
			for i := range test.Len() {
				clear(x)
				idx, val := sparseRow(test, i)
				for k, j := range idx {
					x[j] = val[k]
				}
				if got := km.PredictDense(x); got != im.Labels[i] && !(km.IsRegression() && decClose(got, im.Labels[i])) {
					t.Errorf("dense row %d: predicted %v, reference %v", i+1, got, im.Labels[i])
				}
				if got := km.DecisionDense(buf, x); !decClose(got[0], im.Dec[i][0]) {
					t.Errorf("dense row %d: %.17g, reference %.17g", i+1, got[0], im.Dec[i][0])
				}
			}
		})
	}
}

func TestImportHeader(t *testing.T) {
	f, err := os.Open("../testdata/heart_scale.libsvm.model")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ReadLIBSVMModel(f, "heart_scale.libsvm.model")
	if err != nil {
		t.Fatal(err)
	}
	// The figures of the file's header and its first support vector.
	if m.SVMType != core.CSVC || m.Kernel.Type != core.RBFKernel || m.Kernel.Gamma != 0.076923076923076927 ||
		m.NumFeatures != 13 || m.SV.Len() != 132 || len(m.Rho) != 1 || m.Rho[0] != 0.42446205176771579 {
		t.Errorf("header: %v %+v nf=%d sv=%d rho=%v", m.SVMType, m.Kernel, m.NumFeatures, m.SV.Len(), m.Rho)
	}
	if len(m.Labels) != 2 || m.Labels[0] != 1 || m.Labels[1] != -1 || m.NumSV[0] != 64 || m.NumSV[1] != 68 {
		t.Errorf("labels %v, nr_sv %v", m.Labels, m.NumSV)
	}
	if m.Coef[0] != 1 || m.Coef[1] != 0.51048321289851639 {
		t.Errorf("first coefficients %v", m.Coef[:2])
	}
	var idx []int32
	var val []float32
	if m.SV.IsDense() {
		for j, v := range m.SV.DenseRow(0) {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
	} else {
		idx, val = m.SV.SparseRow(0)
	}
	if len(idx) != 13 || idx[0] != 0 || val[0] != float32(0.166667) || idx[12] != 12 || val[12] != 1 {
		t.Errorf("first support vector %v %v", idx, val)
	}
	if m.Params.SVMType != core.CSVC || m.Params.Kernel != m.Kernel || m.Params.Probability {
		t.Errorf("params %+v", m.Params)
	}
}

// smallFixtures holds text models trained on trainSmall by svm-train and
// LIBLINEAR's train (libsvm 3.24, liblinear 2.3.0; Debian) with the
// options below, each followed by "-- dec" and, for every row of testSmall,
// the label and the decision values that svm_predict_values or
// predict_values gave (the decvals program of testdata/libsvm-ref.sh). For
// LIBLINEAR, whose liblinear-predict drops indices past nr_feature before
// predicting (decvals does not), the rows were given without them; the
// labels equal liblinear-predict's on testSmall itself.
//
//	m3poly  svm-train -s 0 -t 1 -d 2 -g 0.5 -r 1 -c 10   (3 classes, polynomial)
//	m1sig   svm-train -s 2 -t 3 -g 0.3 -r -0.2 -n 0.3     (one-class, sigmoid)
//	m3prob  svm-train -s 0 -t 2 -g 0.7 -b 1               (3 classes, RBF, probA/probB)
//	l3cs    train -s 4                                    (Crammer–Singer, 3 classes)
//	l2cs    train -s 4, classes 1 and 2 only               (Crammer–Singer, 2 classes)
//	l3lr    train -s 0 -B 1                               (logistic regression, bias)
//	lsvr    train -s 12 -B 0.5                            (L2-loss SVR dual, bias)
//
// trainSmall (not needed here) has 15 rows of 3 classes in 4 features;
// testSmall's rows include an index past the models' features (6) and a
// row with no feature the models know (5:1.5).
const smallFixtures = `== m3poly
svm_type c_svc
kernel_type polynomial
degree 2
gamma 0.5
coef0 1
nr_class 3
total_sv 7
rho 0.25809157447648795 0.17313358401347267 -0.032864920300425433
label 1 2 3
nr_sv 2 2 3
SV
0 0.40259529365862973 1:0.9 2:-0.5 3:0.6 
1.0283800537827328 0.30221901078637348 1:0.4 2:0.1 3:0.9 4:0.2 
-0.72737556490088862 0.31862782698877279 2:0.9 4:0.1 
-0.30100448888184417 0.59617996004162632 1:-0.6 2:0.4 4:0.6 
-0.57999756992803853 -0.69064579544984928 1:-0.2 2:-0.7 3:-0.5 
-0 -0.2241619915805497 1:0.2 3:-1.1 4:-0.4 
-0.12481673451696454 -0 1:0.05 2:-0.4 3:-0.6 4:-0.9 
-- dec
1 1.2814448569921919 1.2016652891109934 0.30618687540139666
2 -1.2048943446994222 -0.10389860906857451 1.2356644179676213
3 -0.50107715835552546 -1.1848152375268413 -1.332501808472349
2 -0.17368571028020863 0.018802481379595337 0.2111101644087747
2 -0.25809157447648795 -0.17313358401347248 0.032864920300425572
3 -0.16820637720410667 -0.35212751205614223 -0.53147774523006519
== m1sig
svm_type one_class
kernel_type sigmoid
gamma 0.30000001192092896
coef0 -0.20000000298023224
nr_class 2
total_sv 8
rho -0.86388535351000717
SV
0.74148465032881528 1:0.5 2:-0.25 3:1 
0.11709802575719776 1:0.75 3:0.8 4:-0.1 
0.18250924862646026 1:0.9 2:-0.5 3:0.6 
1 2:0.9 4:0.1 
0.79774784282892508 1:-0.6 2:0.4 4:0.6 
1 1:-0.2 2:-0.7 3:-0.5 
0.060458381560646909 1:0.2 3:-1.1 4:-0.4 
0.6007020297118888 1:0.05 2:-0.4 3:-0.6 4:-0.9 
-- dec
1 0.0024845014008531008
1 0.0058295349062740254
1 0.0027138932678585359
-1 -0.022869666642095554
-1 -0.024303635684109537
-1 -0.021885776277993707
== m3prob
svm_type c_svc
kernel_type rbf
gamma 0.69999998807907104
nr_class 3
total_sv 10
rho 0.079621820261945281 0.091337312762199349 0.062256478766601203
label 1 2 3
probA -1.900960438700678 -2.0066302131039278 -1.9241220837153481
probB -0.074260946222761803 0.058069871999154261 0.15734071996312984
nr_sv 3 4 3
SV
0.059306149553626175 0 1:0.75 3:0.8 4:-0.1 
0.58461445673127799 0.8905461252399941 1:0.9 2:-0.5 3:0.6 
1 0.70181966127409934 1:0.4 2:0.1 3:0.9 4:0.2 
-0 0.46205297679168017 1:-0.8 2:0.5 3:-0.1 4:0.5 
-0.84528938497017325 0.85140729840369733 2:0.9 4:0.1 
-0.11479806422951332 0 1:-0.3 2:1.1 3:0.2 
-0.68383315708521752 0.46843491958144157 1:-0.6 2:0.4 4:0.6 
-0.75703697830298067 -0.83306046270041989 1:-0.2 2:-0.7 3:-0.5 
-0.39855836623569252 -0.69168822212899572 1:0.2 3:-1.1 4:-0.4 
-0.43677044197541998 -0.25714650994740351 1:0.05 2:-0.4 3:-0.6 4:-0.9 
-- dec
1 1.0419079590719782 1.0979359293891622 0.084128743369777215
2 -1.1591365819036836 -0.059265295354419871 1.1866285781153512
3 -0.12526256463991725 -1.1652901011246524 -1.1946919703152266
2 -0.17430928246016811 0.095487300458568306 0.26742891465078167
3 -0.11253034350960359 -0.10907075672760747 -0.042047728994315817
3 -0.011277815289005927 -0.36310434885777371 -0.48348923796205767
== l3cs
solver_type MCSVM_CS
nr_class 3
label 1 2 3
nr_feature 4
bias -1
w
0.38521489721687935 -0.40163152075391989 0.016416623537041004 
-0.30059483424553329 0.78326617842421631 -0.4826713441786834 
0.84036330598643549 -0.083153035351216181 -0.75721027063521873 
0.0039724757571905798 0.21888606344895645 -0.22285853920614723 
-- dec
1 1.0259774034396074 -0.35597979634383847 -0.66999760709576817
2 -0.39297283598030214 0.87481997642052356 -0.48184714044022203
3 -0.52437671312069611 -0.45644229900050909 0.98081901212120504
1 0.09289558447149722 0.05173676857680367 -0.14463235304830083
1 0 0 0
3 -0.046366072357206856 -0.33052339914807599 0.37688947150528296
== l2cs
solver_type MCSVM_CS
nr_class 2
label 1 2
nr_feature 4
bias -1
w
0.36703451250634561 -0.36703451250634561 
-0.54394190772718043 0.54394190772718054 
0.4759612518006972 -0.47596125180069732 
-0.10452283045537586 0.10452283045537586 
-- dec
1 0.68528928537506939
2 -0.62377646336643289
2 -0.046084349303742084
1 0.019453102612448654
2 0
1 0.13050455052984863
== l3lr
solver_type L2R_LR
nr_class 3
label 1 2 3
nr_feature 4
bias 1
w
1.0420653763162566 -1.0704627442528079 -0.088202278287702787 
-0.42093232564024563 1.3691304422587403 -0.98597382695198121 
1.4797492251540125 -0.14104930648301903 -1.3945123109988879 
0.1651337518097635 0.72677805662187855 -0.77287796765558947 
-0.72904794461775768 -0.57522172555486506 -0.60180944878049691 
-- dec
1 1.3321721214422331 -1.4514900223665477 -1.9186121234808882
2 -1.4165664549325516 1.2389789486020018 -1.6644587860892366
3 -1.8014614130067033 -1.5830143354709472 1.4705140940879575
2 -0.50244634185377901 -0.48678208074038587 -0.92596608716991313
2 -0.72904794461775768 -0.57522172555486506 -0.60180944878049691
3 -0.73407340157701073 -1.2647848895634239 0.085875709118452992
== lsvr
solver_type L2R_L2LOSS_SVR_DUAL
nr_class 2
nr_feature 4
bias 0.5
w
-0.3728093067470562 
-0.080906640274385294 
-0.8909919657313139 
-0.44445456803047151 
3.4165639150999003 
-- dec
0.64542267366882844 0.64542267366882844
1.6148985408170757 1.6148985408170757
2.7282015910904769 2.7282015910904769
1.5293657094716275 1.5293657094716275
1.7082819575499502 1.7082819575499502
1.8880087473275431 1.8880087473275431
`

const testSmall = `1 1:0.7 3:0.9
2 1:-0.4 2:0.8 4:0.4
3 2:-0.5 3:-0.8 4:-0.6
1 1:0.1 2:0.1 3:0.1 4:0.1
2 5:1.5
3 1:0.3 2:-0.3 3:-0.3 6:0.7
`

// fixture is one model of smallFixtures.
type fixture struct {
	model  string
	labels []float64
	dec    [][]float64
}

func parseFixtures(t *testing.T) map[string]fixture {
	t.Helper()
	out := map[string]fixture{}
	for _, part := range strings.Split(smallFixtures, "== ")[1:] {
		name, rest, _ := strings.Cut(part, "\n")
		model, decs, ok := strings.Cut(rest, "-- dec\n")
		if !ok {
			t.Fatalf("fixture %s has no dec section", name)
		}
		fx := fixture{model: model}
		for _, line := range strings.Split(strings.TrimSpace(decs), "\n") {
			f := strings.Fields(line)
			v := make([]float64, len(f))
			for i, s := range f {
				var err error
				if v[i], err = strconv.ParseFloat(s, 64); err != nil {
					t.Fatal(err)
				}
			}
			fx.labels = append(fx.labels, v[0])
			fx.dec = append(fx.dec, v[1:])
		}
		out[name] = fx
	}
	return out
}

func readSmallTest(t *testing.T) *data.Dataset {
	t.Helper()
	opt := data.ReadOptions{Format: data.FormatLIBSVM}
	st, err := data.Scan(strings.NewReader(testSmall), "testSmall", opt)
	if err != nil {
		t.Fatal(err)
	}
	ds := data.NewSparse(st.Rows, st.Nonzeros, 0)
	if _, err := data.ReadInto(ds, strings.NewReader(testSmall), "testSmall", opt); err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestImportSmallFixtures(t *testing.T) {
	fixtures := parseFixtures(t)
	test := readSmallTest(t)
	for _, name := range []string{"m3poly", "m1sig", "m3prob", "l3cs", "l3lr", "lsvr"} {
		t.Run(name, func(t *testing.T) {
			fx, ok := fixtures[name]
			if !ok {
				t.Fatalf("no fixture %s", name)
			}
			tool := "liblinear"
			if name[0] == 'm' {
				tool = "libsvm"
			}
			m := readTextModel(t, tool, name, fx.model)
			checkDecisions(t, m, test, fx.labels, fx.dec)
		})
	}
	t.Run("m3prob-header", func(t *testing.T) {
		m, err := ReadLIBSVMModel(strings.NewReader(fixtures["m3prob"].model), "m3prob")
		if err != nil {
			t.Fatal(err)
		}
		if len(m.ProbA) != 3 || m.ProbA[0] != -1.900960438700678 || len(m.ProbB) != 3 || m.ProbB[2] != 0.15734071996312984 || !m.Params.Probability {
			t.Errorf("probA %v probB %v probability %v", m.ProbA, m.ProbB, m.Params.Probability)
		}
		if m.Kernel.Gamma != 0.69999998807907104 {
			t.Errorf("gamma %v", m.Kernel.Gamma)
		}
	})
	t.Run("l3lr-header", func(t *testing.T) {
		m, err := ReadLIBLINEARModel(strings.NewReader(fixtures["l3lr"].model), "l3lr")
		if err != nil {
			t.Fatal(err)
		}
		if m.Solver != linear.L2Logistic || m.Bias != 1 || m.NumFeatures != 4 || len(m.W) != 15 ||
			m.W[0] != float32(1.0420653763162566) || m.W[14] != float32(-0.60180944878049691) {
			t.Errorf("solver %v bias %v nf %d w %v", m.Solver, m.Bias, m.NumFeatures, m.W)
		}
	})
}

// TestImportCrammerSingerBinary checks a two-class Crammer–Singer model,
// whose file holds two weight vectors of which LIBLINEAR predicts with the
// first, ties included (row 5 meets no weight: decision value 0, label 2).
func TestImportCrammerSingerBinary(t *testing.T) {
	fx := parseFixtures(t)["l2cs"]
	m := readTextModel(t, "liblinear", "l2cs", fx.model)
	if lm := m.(*linear.LinearModel); lm.NrW() != 1 || len(lm.W) != 4 || lm.W[1] != float32(-0.54394190772718043) {
		t.Errorf("weights %v, want the first column", lm.W)
	}
	if fx.dec[4][0] != 0 || fx.labels[4] != 2 {
		t.Fatalf("fixture row 5: %v %v, want the tie", fx.labels[4], fx.dec[4])
	}
	checkDecisions(t, m, readSmallTest(t), fx.labels, fx.dec)
}

func TestImportErrors(t *testing.T) {
	fixtures := parseFixtures(t)
	poly := fixtures["m3poly"].model
	lr := fixtures["l3lr"].model
	replace := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("fixture has no %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	cases := []struct {
		name, tool, text string
		cause            error
		line             int
		detail           string
	}{
		{"precomputed", "libsvm", replace(poly, "polynomial", "precomputed"), core.ErrParams, 2, "precomputed"},
		{"unknown key", "libsvm", replace(poly, "coef0 1\n", "coef0 1\nfoo 2\n"), data.ErrSyntax, 6, "foo"},
		{"repeated key", "libsvm", replace(poly, "coef0 1\n", "coef0 1\ncoef0 1\n"), data.ErrSyntax, 6, "repeated"},
		{"no degree", "libsvm", replace(poly, "degree 2\n", ""), data.ErrSyntax, 10, "degree"},
		{"rho count", "libsvm", replace(poly, "rho 0.25809157447648795 ", "rho "), data.ErrSyntax, 8, "rho"},
		{"nr_sv sum", "libsvm", replace(poly, "nr_sv 2 2 3", "nr_sv 2 2 4"), data.ErrSyntax, 10, "total_sv"},
		{"bad index", "libsvm", replace(poly, "1:0.9 2:-0.5", "1:0.9 x:-0.5"), data.ErrSyntax, 12, "index"},
		{"index order", "libsvm", replace(poly, "1:0.9 2:-0.5", "2:0.9 1:-0.5"), data.ErrSyntax, 12, "increase"},
		{"missing colon", "libsvm", replace(poly, "1:0.9 2:-0.5", "1:0.9 2-0.5"), data.ErrSyntax, 12, "':'"},
		{"NaN coef", "libsvm", replace(poly, "0 0.40259529365862973", "nan 0.40259529365862973"), data.ErrSyntax, 12, "finite"},
		{"too few SVs", "libsvm", poly[:strings.LastIndex(strings.TrimRight(poly, "\n"), "\n")+1], data.ErrSyntax, 17, "total_sv"},
		{"no SV line", "libsvm", poly[:strings.Index(poly, "SV\n")], data.ErrSyntax, 10, "SV line"},
		{"empty", "libsvm", "", data.ErrSyntax, 0, "SV line"},
		{"one-class liblinear", "liblinear", replace(lr, "L2R_LR", "ONECLASS_SVM"), core.ErrParams, 1, "ONECLASS_SVM"},
		{"unknown solver", "liblinear", replace(lr, "L2R_LR", "L3R_LR"), data.ErrSyntax, 1, "L3R_LR"},
		{"weights short", "liblinear", replace(lr, "-0.60180944878049691 \n", "\n"), data.ErrSyntax, 11, "14 weights, want 15"},
		{"weights long", "liblinear", lr + "1\n", data.ErrSyntax, 12, "more than"},
		{"labels", "liblinear", replace(lr, "label 1 2 3", "label 1 2"), data.ErrSyntax, 6, "labels"},
		{"no w", "liblinear", lr[:strings.Index(lr, "w\n")], data.ErrSyntax, 5, "w line"},
		{"weight NaN", "liblinear", replace(lr, "1.0420653763162566", "NaN"), data.ErrSyntax, 7, "finite"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.tool == "libsvm" {
				_, err = ReadLIBSVMModel(strings.NewReader(tc.text), "f.model")
			} else {
				_, err = ReadLIBLINEARModel(strings.NewReader(tc.text), "f.model")
			}
			var pe *data.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tc.cause) {
				t.Fatalf("err = %v, want a ParseError wrapping %v", err, tc.cause)
			}
			if pe.File != "f.model" || pe.Line != tc.line || !strings.Contains(pe.Msg, tc.detail) {
				t.Errorf("err = %q, want f.model:%d: ...%s...", err, tc.line, tc.detail)
			}
		})
	}
}

func TestDetectTextModel(t *testing.T) {
	for _, tc := range []struct {
		line string
		want TextModelKind
	}{
		{"svm_type c_svc\n", LIBSVMText},
		{"solver_type L2R_LR", LIBLINEARText},
		{"svm_type\tc_svc\r\n", LIBSVMText},
	} {
		if got, err := DetectTextModel([]byte(tc.line)); err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.line, got, err, tc.want)
		}
	}
	for _, line := range []string{"", "\x89SVM\r\n", "1 1:0.5", "kernel_type rbf"} {
		if _, err := DetectTextModel([]byte(line)); !errors.Is(err, ErrNotTextModel) {
			t.Errorf("%q: err = %v, want ErrNotTextModel", line, err)
		}
	}
	// A text model's bytes start with its first line.
	if b, err := os.ReadFile("../testdata/heart_scale.liblinear.model"); err != nil {
		t.Fatal(err)
	} else if k, err := DetectTextModel(b[:bytes.IndexByte(b, '\n')]); err != nil || k != LIBLINEARText {
		t.Errorf("heart_scale.liblinear.model: %v, %v", k, err)
	}
}

// endlessReader is an input without line breaks (as /dev/zero is): it
// returns fill bytes until limit bytes are read, then an error, so that a
// reader that does not bound its lines fails the test instead of eating
// the machine's memory.
type endlessReader struct {
	fill  byte
	n     int64
	limit int64
}

var errEndless = errors.New("endless input read past the test's limit")

func (r *endlessReader) Read(p []byte) (int, error) {
	if r.n >= r.limit {
		return 0, errEndless
	}
	p = p[:min(int64(len(p)), r.limit-r.n)]
	for i := range p {
		p[i] = r.fill
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestTextModelLineLimit: the text model readers share the data readers'
// line limit: a model whose support vectors run on without a line break is
// refused at that line.
func TestTextModelLineLimit(t *testing.T) {
	header := "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\nnr_sv 1 0\nSV\n"
	r := io.MultiReader(strings.NewReader(header), &endlessReader{fill: ' ', limit: 64 << 20})
	_, err := ReadLIBSVMModel(r, "m.txt")
	if want := fmt.Sprintf("m.txt:9: line longer than the limit of %d bytes", data.DefaultMaxLineBytes); err == nil ||
		err.Error() != want || !errors.Is(err, data.ErrLineTooLong) {
		t.Errorf("LIBSVM: %v, want %q", err, want)
	}
	header = "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n"
	r = io.MultiReader(strings.NewReader(header), &endlessReader{fill: '1', limit: 64 << 20})
	_, err = ReadLIBLINEARModel(r, "m.txt")
	if want := fmt.Sprintf("m.txt:7: line longer than the limit of %d bytes", data.DefaultMaxLineBytes); err == nil ||
		err.Error() != want || !errors.Is(err, data.ErrLineTooLong) {
		t.Errorf("LIBLINEAR: %v, want %q", err, want)
	}
}

// readTestdata reads core/testdata's data file name.
func readTestdata(t testing.TB, name string) *data.Dataset {
	t.Helper()
	ds, err := data.ReadFile("../testdata/"+name, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
