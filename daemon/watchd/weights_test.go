package watchd

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// weightedCSV turns LIBSVM text lines into CSV batch lines with the
// instance weight in column 2 (label, weight, then nf features), and
// returns beside them the LIBSVM text in which every row of weight 2 is
// written twice: the same problem, by the definition of an instance weight.
func weightedCSV(t *testing.T, libsvm []string, nf int, weight func(i int) int) (csv, twice string) {
	t.Helper()
	var c, d strings.Builder
	for i, line := range libsvm {
		f := strings.Fields(line)
		x := make([]string, nf)
		for k := range x {
			x[k] = "0"
		}
		for _, iv := range f[1:] {
			var j int
			var v string
			if k := strings.IndexByte(iv, ':'); k > 0 {
				fmt.Sscan(iv[:k], &j)
				v = iv[k+1:]
			}
			if j < 1 || j > nf {
				t.Fatalf("line %d: index %d outside 1..%d", i+1, j, nf)
			}
			x[j-1] = v
		}
		w := weight(i)
		fmt.Fprintf(&c, "%s,%d,%s\n", f[0], w, strings.Join(x, ","))
		for range w {
			d.WriteString(line)
		}
	}
	return c.String(), d.String()
}

// TestWeightColumn: with --ingest.weight-column, a CSV batch's weight
// column reaches the store with its rows and the retrain weighs them: the
// published model is the one trained on the data with each row of weight 2
// written twice (objective to 1e-6 at a tight ε), the column is not a
// feature, and a bad weight rejects the batch at its line.
func TestWeightColumn(t *testing.T) {
	const options = "-t 2 -c 1 -g 0.1 -e 1e-7"
	all := lines(t, heartTrain)[:120]
	weight := func(i int) int {
		if i%3 == 0 {
			return 2
		}
		return 1
	}
	csv, twice := weightedCSV(t, all, 13, weight)

	cfg := kernelConfig(t.TempDir(), options, 500, 13)
	cfg.WeightColumn = 2
	s := newSync(t, cfg)
	s.ingest(t, "w.csv", csv)
	st := s.d.st
	if st.Len() != len(all) {
		t.Fatalf("store holds %d rows, want %d", st.Len(), len(all))
	}
	for i := range st.Len() {
		if got, want := st.Dataset().Weight(i), float64(weight(i)); got != want {
			t.Fatalf("stored row %d weighs %v, want %v", i, got, want)
		}
	}
	if nf := st.Dataset().NumFeatures(); nf > 13 {
		t.Errorf("store has %d features: the weight column was read as one", nf)
	}

	got := publishedKernel(t, cfg.Root, 1)
	want := coldKernel(t, options, readText(t, twice))
	if g, w := got.Result.Objective, want.Result.Objective; math.Abs(g-w) > 1e-6*math.Abs(w) {
		t.Errorf("objective %.12g, the duplicated rows' %.12g", g, w)
	}
	unweighted := coldKernel(t, options, readText(t, strings.Join(all, "")))
	if g, u := got.Result.Objective, unweighted.Result.Objective; math.Abs(g-u) < 1e-3*math.Abs(u) {
		t.Errorf("objective %.12g is the unweighted one's %.12g: the weights did not reach the trainer", g, u)
	}
	test := readTest(t, heartTest)
	dg, dw := make([]float64, 1), make([]float64, 1)
	for i := range test.Len() {
		idx, val := test.SparseRow(i)
		got.DecisionSparse(dg, idx, val)
		want.DecisionSparse(dw, idx, val)
		if math.Abs(dg[0]-dw[0]) > 1e-5 {
			t.Fatalf("test row %d: decision value %v, the duplicated rows' %v", i, dg[0], dw[0])
		}
	}

	// A LIBSVM batch has no weight column: its rows weigh 1.
	s.ingest(t, "plain.txt", strings.Join(lines(t, heartTrain)[120:130], ""))
	for i := len(all); i < st.Len(); i++ {
		if w := st.Dataset().Weight(i); w != 1 {
			t.Fatalf("row %d of a LIBSVM batch weighs %v, want 1", i, w)
		}
	}

	// A weight that is not positive rejects the batch at its line.
	bad := strings.SplitAfter(csv, "\n")[:3]
	bad[2] = strings.Replace(bad[2], ",1,", ",0,", 1)
	bad[2] = strings.Replace(bad[2], ",2,", ",0,", 1)
	drop(t, cfg.Root, "bad.csv", strings.Join(bad, ""))
	if err := s.d.ingest("bad.csv"); err != nil {
		t.Fatal(err)
	}
	reason, err := os.ReadFile(filepath.Join(cfg.Root, RejectedDir, "bad.csv"+ReasonSuffix))
	if err != nil {
		t.Fatalf("bad.csv not rejected: %v", err)
	}
	if !strings.Contains(string(reason), "bad.csv:3: ") {
		t.Errorf("reason %q does not name bad.csv:3", reason)
	}

	cfg.WeightColumn = 1
	if err := cfg.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("weight column 1 (the label's): %v, want ErrConfig", err)
	}
}
