package watchd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// decisionModel is the part of the float and quantized models the bound
// check uses.
type decisionModel interface {
	NumDecisionValues() int
	DecisionSparse(dst []float64, index []int32, value []float32) []float64
}

// withinBound checks that on every row of test the quantized model q's
// decision values are within quantize's bound (ErrorBoundSparse) of those
// of ref, a float model trained independently on the same rows, plus tol:
// the difference between ref and the daemon's own float model, which the
// bound does not cover (0 when both are the same cold solve). It returns
// the largest |q − ref| / (bound + tol) seen.
func withinBound(t *testing.T, what string, q quantize.Model, ref decisionModel, test *data.Dataset, tol float64) float64 {
	t.Helper()
	nd := q.NumDecisionValues()
	if ref.NumDecisionValues() != nd {
		t.Fatalf("%s: %d decision values, the reference %d", what, nd, ref.NumDecisionValues())
	}
	dq, dr, b := make([]float64, nd), make([]float64, nd), make([]float64, nd)
	worst, excess := 0.0, 0.0
	defer func() { t.Logf("%s: largest error past the bound alone %.3g", what, excess) }()
	for i := range test.Len() {
		idx, val := test.SparseRow(i)
		q.DecisionSparse(dq, idx, val)
		ref.DecisionSparse(dr, idx, val)
		q.ErrorBoundSparse(b, idx, val)
		for k := range nd {
			e := math.Abs(dq[k] - dr[k])
			worst, excess = max(worst, e/(b[k]+tol)), max(excess, e-b[k])
			if e > b[k]+tol {
				t.Errorf("%s: test row %d, decision value %d: quantized %v, float %v: error %.3g past the bound %.3g + %.3g",
					what, i, k, dq[k], dr[k], e, b[k], tol)
				return worst
			}
		}
	}
	return worst
}

// TestQuantizedPublish runs the daemon with Config.QuantizeBits = 8 for a
// linear and a kernel option set, with a modeldir watcher (default
// options) on models/. Each batch's model is published quantized: a file
// of kind qlinear or qkernel, int8, that the watcher hot-swaps in
// (Loaded.Quantized, deciding as the file does); its decision values are
// within quantize's error bound of a float model trained cold on the same
// rows by core (after the first batch, a cold solve like the reference: no
// tolerance beyond the bound for the kernel model, decisionTol for the
// linear one; after the second, a warm solve: plus the difference two
// solutions meeting the stopping tolerance may have). The log and /metrics
// record the width and the file's size. Training is unchanged: the store's
// α equal, bit for bit, those of the same batches without quantization.
//
// Measured, largest |quantized − reference| / (bound + tolerance) over
// heart_scale.test: linear 0.23 and 0.26, kernel 0.034 and 0.024; no error
// passes the bound alone, warm versions included.
func TestQuantizedPublish(t *testing.T) {
	all := lines(t, heartTrain)
	test := readTest(t, heartTest)
	cases := []struct {
		name, options, kind string
		warmTol             float64 // reference vs the daemon's warm solve
	}{
		{"linear", "-s 1 -c 1 -e 0.001", modelfile.KindQLinear, 1e-2},
		{"kernel", kernelOptions, modelfile.KindQKernel, kernelDecisionTol},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := kernelConfig(t.TempDir(), c.options, 1000, 13)
			cfg.QuantizeBits = 8
			s := newSync(t, cfg)
			w, err := modeldir.Watch(filepath.Join(cfg.Root, ModelsDir), modeldir.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			plain := newSync(t, kernelConfig(t.TempDir(), c.options, 1000, 13)) // the same, not quantized

			at := 0
			for i, size := range []int{120, 80} {
				v, n := uint64(i+1), at+size
				batch := strings.Join(all[at:n], "")
				at = n
				name := fmt.Sprintf("b%d.txt", i)
				s.ingest(t, name, batch)
				plain.ingest(t, name, batch)

				path := filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(v))
				if kind, err := modelKind(path); err != nil || kind != c.kind {
					t.Fatalf("version %d: kind %q, %v; want %q", v, kind, err, c.kind)
				}
				file, err := modelfile.ReadFileAs[quantize.Model](path)
				if err != nil {
					t.Fatal(err)
				}
				if file.Bits() != 8 || file.Created() == 0 {
					t.Errorf("version %d: %d bits, created %d; want 8 bits and a creation time", v, file.Bits(), file.Created())
				}
				waitFor(t, fmt.Sprintf("the watcher to serve version %d", v), func() bool {
					l := w.Current()
					return l != nil && l.Version == v
				})
				l := w.Current()
				if quantOf(l) == nil || linOf(l) != nil || kerOf(l) != nil {
					t.Fatalf("version %d served as Model %v, Kernel %v, Quantized %v; want Quantized",
						v, linOf(l) != nil, kerOf(l) != nil, quantOf(l) != nil)
				}
				da, db := make([]float64, file.NumDecisionValues()), make([]float64, file.NumDecisionValues())
				for r := range test.Len() {
					idx, val := test.SparseRow(r)
					quantOf(l).DecisionSparse(da, idx, val)
					file.DecisionSparse(db, idx, val)
					if !slices.Equal(da, db) {
						t.Fatalf("version %d, test row %d: served %v, the file %v", v, r, da, db)
					}
				}

				rows := readText(t, strings.Join(all[:n], ""))
				var ref decisionModel
				tol := c.warmTol
				if c.kind == modelfile.KindQKernel {
					ref = coldKernel(t, c.options, rows)
					if i == 0 {
						tol = 0
					}
				} else {
					lm, _, _ := trainText(t, cfg, strings.Join(all[:n], ""))
					ref = lm
					if i == 0 {
						tol = decisionTol
					}
				}
				worst := withinBound(t, fmt.Sprintf("version %d", v), file, ref, test, tol)
				t.Logf("version %d (%d rows, %d bytes): largest error / (bound + %g) %.3g", v, n, fileSize(t, path), tol, worst)

				published := s.records(t, "model published")
				if len(published) != i+1 {
					t.Fatalf("%d models published, want %d", len(published), i+1)
				}
				p := published[i]
				if p["quantized_bits"] != 8.0 || p["bytes"] != float64(fileSize(t, path)) || p["version"] != float64(v) {
					t.Errorf("version %d published as %v; want quantized_bits 8, bytes %d", v, p, fileSize(t, path))
				}
				var m strings.Builder
				s.d.WriteMetrics(&m)
				if b, size := metricValue(t, m.String(), "model_quantized_width"), metricValue(t, m.String(), "model_file_bytes"); b != 8 || size != float64(fileSize(t, path)) {
					t.Errorf("metrics: model_quantized_width %v, model_file_bytes %v; want 8, %d", b, size, fileSize(t, path))
				}
			}
			retrained := s.records(t, "retrained")
			if len(retrained) != 2 || retrained[1]["warm"] != true {
				t.Errorf("retrains %v: want the second warm", retrained)
			}
			// The store holds the float solves' α, as without quantizing.
			if c.kind == modelfile.KindQKernel {
				got, want := kernelDual(s.d.st), kernelDual(plain.d.st)
				for k := range want.Alpha {
					if !slices.Equal(got.Alpha[k], want.Alpha[k]) {
						t.Fatalf("stored α of subproblem %d differs from the unquantized daemon's", k)
					}
				}
			} else {
				got, want := linearDual(s.d.st), linearDual(plain.d.st)
				for k := range want.Alpha {
					if !slices.Equal(got.Alpha[k], want.Alpha[k]) {
						t.Fatalf("stored α of function %d differs from the unquantized daemon's", k)
					}
				}
			}
		})
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestQuantizedGate: with quantization on, the gate scores the quantized
// model, the one published: the logged score is the accuracy of the
// published file's model on the batch's held-back rows, computed here
// from the file and the rows; and a 16-bit reload publishes int16 next.
func TestQuantizedGate(t *testing.T) {
	all := lines(t, heartTrain)
	cfg := kernelConfig(t.TempDir(), "-s 1 -c 1 -e 0.001", 1000, 13)
	cfg.QuantizeBits = 8
	cfg.GateMinAccuracy = 0.5
	s := newSync(t, cfg)
	batches := [][]string{all[:100], all[100:150]}
	for i, b := range batches {
		s.ingest(t, fmt.Sprintf("b%d.txt", i), strings.Join(b, ""))
		passed := s.records(t, "gate passed")
		if len(passed) != i+1 || passed[i]["quantized_bits"] != 8.0 {
			t.Fatalf("gate records %v, want %d passes of an 8-bit model", passed, i+1)
		}
		q, err := modelfile.ReadFileAs[quantize.Model](filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(uint64(i+1))))
		if err != nil {
			t.Fatal(err)
		}
		heldPath := filepath.Join(t.TempDir(), "held.txt")
		if err := os.WriteFile(heldPath, []byte(strings.Join(b[len(b)-heldBack(len(b)):], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		held := readTest(t, heldPath) // sparse rows
		if held.Len() != 20 && held.Len() != 10 {
			t.Fatalf("%d held rows, want 20 then 10", held.Len())
		}
		right := 0
		for r := range held.Len() {
			idx, val := held.SparseRow(r)
			if q.PredictSparse(idx, val) == held.Labels()[r] {
				right++
			}
		}
		want := float64(right) / float64(held.Len())
		if got := passed[i]["score"].(float64); got != want {
			t.Errorf("batch %d: gate score %v, the published int8 model scores %v on the %d held rows", i, got, want, held.Len())
		}
	}
	cfg16 := cfg
	cfg16.QuantizeBits = 16
	if err := s.d.Reload(cfg16); err != nil {
		t.Fatal(err)
	}
	s.d.applyReload() // Run's drain does it before each batch
	s.ingest(t, "b2.txt", strings.Join(all[150:200], ""))
	q, err := modelfile.ReadFileAs[quantize.Model](filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(3)))
	if err != nil || q.Bits() != 16 {
		t.Fatalf("after a reload to 16 bits, version 3 is %v, %v; want an int16 model", q, err)
	}
	bad := cfg
	bad.QuantizeBits = 4
	if err := s.d.Reload(bad); err == nil || !strings.Contains(err.Error(), "quantize bits 4") {
		t.Errorf("Reload with 4 bits: %v, want a configuration error naming them", err)
	}
}

// outlierText returns rows in LIBSVM text whose label follows feature 1
// within [0, 0.02] while two outlying rows (the first batch's) stretch
// that feature to [−1, 1]: shuttle's shape in two features, where int8's
// 255 steps leave the deciding values three codes (quantize's own
// outlierModel).
func outlierText(seed uint64, rows int, outliers bool) string {
	r := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	for range rows {
		x1, x2 := r.Float64()*0.02, r.Float64()
		y := -1
		if x1 > 0.01 {
			y = 1
		}
		fmt.Fprintf(&b, "%+d 1:%.6g 2:%.6g\n", y, x1, x2)
	}
	if outliers {
		b.WriteString("+1 1:-1 2:0.5\n+1 1:1 2:0.5\n")
	}
	return b.String()
}

// TestQuantizeUnfaithfulPublishesFloat: a retrained model whose int8
// codes change the labels of its own support vectors (quantize's
// CheckFaithful refuses it) is published as the float model, not
// quantized, and the batch is ingested: the refusal is logged with its
// reason and counted in /metrics. The same daemon reloaded to 16 bits,
// whose codes keep the labels, publishes the next retrain quantized, and
// the count stays.
func TestQuantizeUnfaithfulPublishesFloat(t *testing.T) {
	cfg := kernelConfig(t.TempDir(), "-t 2 -c 100 -g 1000", 1000, 2)
	cfg.QuantizeBits = 8
	s := newSync(t, cfg)
	s.ingest(t, "b0.txt", outlierText(30, 300, true))
	path := filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(1))
	if kind, err := modelKind(path); err != nil || kind != modelfile.KindKernel {
		t.Fatalf("version 1: kind %q, %v; want the float model, %q", kind, err, modelfile.KindKernel)
	}
	refused := s.records(t, "quantized model refused: publishing the float model")
	if len(refused) != 1 || refused[0]["bits"] != 8.0 || refused[0]["batch"] != "b0.txt" ||
		!strings.Contains(fmt.Sprint(refused[0]["reason"]), "int8 codes change the labels of") {
		t.Fatalf("refusals logged %v; want one for b0.txt, int8, with CheckFaithful's reason", refused)
	}
	published := s.records(t, "model published")
	if len(published) != 1 || published[0]["quantized_bits"] != 0.0 {
		t.Fatalf("published %v; want one float model (quantized_bits 0)", published)
	}
	var m strings.Builder
	s.d.WriteMetrics(&m)
	if n, b := metricValue(t, m.String(), "models_quantize_refused_total"), metricValue(t, m.String(), "model_quantized_width"); n != 1 || b != 0 {
		t.Fatalf("metrics: models_quantize_refused_total %v, model_quantized_width %v; want 1 and 0", n, b)
	}

	cfg16 := cfg
	cfg16.QuantizeBits = 16
	if err := s.d.Reload(cfg16); err != nil {
		t.Fatal(err)
	}
	s.d.applyReload()
	s.ingest(t, "b1.txt", outlierText(31, 60, false))
	q, err := modelfile.ReadFileAs[quantize.Model](filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(2)))
	if err != nil || q.Bits() != 16 {
		t.Fatalf("version 2 at 16 bits: %v, %v; want an int16 model", q, err)
	}
	m.Reset()
	s.d.WriteMetrics(&m)
	if n := metricValue(t, m.String(), "models_quantize_refused_total"); n != 1 || len(s.records(t, "quantized model refused: publishing the float model")) != 1 {
		t.Fatalf("after a faithful int16 model: %v refusals counted; want still 1", n)
	}
}
