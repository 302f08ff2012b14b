package cgen

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// hostFlags are the acceptance's: the generated code must compile clean
// under them.
var hostFlags = []string{"-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2"}

// driverC reads rows of float32 (little-endian, the host's) from stdin and
// prints, per row, the prediction and the decision values.
const driverC = `#include <stdio.h>
#include "NAME.h"
int main(void)
{
	float x[NAME_NUM_FEATURES], d[NAME_NUM_DECISIONS];
	int k;
	while (fread(x, sizeof x, 1, stdin) == 1) {
		printf("%.17g", NAME_predict(x));
		NAME_decision(x, d);
		for (k = 0; k < NAME_NUM_DECISIONS; k++)
			printf(" %.9g", d[k]);
		printf("\n");
	}
	return 0;
}
`

// writeSource writes src as dir/name.h and dir/name.c.
func writeSource(t testing.TB, dir, name string, src *Source) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name+".h"), src.Header, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".c"), src.Code, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostBuild compiles src with the test driver on the host.
func hostBuild(t testing.TB, dir, name string, src *Source) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	writeSource(t, dir, name, src)
	drv := filepath.Join(dir, name+"_main.c")
	if err := os.WriteFile(drv, []byte(strings.ReplaceAll(driverC, "NAME", name)), 0o644); err != nil {
		t.Fatal(err)
	}
	checkFreestanding(t, dir, name)
	exe := filepath.Join(dir, name)
	args := append(append([]string{}, hostFlags...), "-o", exe, filepath.Join(dir, name+".c"), drv)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return exe
}

// checkFreestanding compiles dir/name.c alone with -ffreestanding
// -nostdlib and checks with nm that the object references no symbol it
// does not define: no library call, not even a compiler helper, on the
// host.
func checkFreestanding(t testing.TB, dir, name string) {
	t.Helper()
	obj := filepath.Join(dir, name+".o")
	args := append(append([]string{}, hostFlags...), "-ffreestanding", "-nostdlib", "-c", "-o", obj, filepath.Join(dir, name+".c"))
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	out, err := exec.Command("nm", "-u", obj).CombinedOutput()
	if err != nil {
		t.Fatalf("nm -u %s: %v\n%s", obj, err, out)
	}
	if u := strings.TrimSpace(string(out)); u != "" {
		t.Errorf("%s.c references symbols it does not define:\n%s", name, u)
	}
}

// denseRows returns the rows of ds as float32 rows of nf features
// (features past nf dropped: the generated code takes rows of the model's
// width), little-endian.
func denseRows(ds *data.Dataset, nf int) []byte {
	b := make([]byte, 0, ds.Len()*nf*4)
	row := make([]float32, nf)
	for i := range ds.Len() {
		denseRow(row, ds, i)
		for _, v := range row {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	return b
}

func denseRow(row []float32, ds *data.Dataset, i int) {
	clear(row)
	if ds.IsDense() {
		copy(row, ds.DenseRow(i))
		return
	}
	idx, val := ds.SparseRow(i)
	for p, j := range idx {
		if int(j) < len(row) {
			row[j] = val[p]
		}
	}
}

// cResult is what the driver printed for a row.
type cResult struct {
	pred float64
	dec  []float64
}

func parseResults(t testing.TB, out []byte, rows, nd int) []cResult {
	t.Helper()
	res := make([]cResult, 0, rows)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 1+nd {
			t.Fatalf("driver line %d: %q: want %d fields", len(res)+1, sc.Text(), 1+nd)
		}
		r := cResult{dec: make([]float64, nd)}
		var err error
		if r.pred, err = strconv.ParseFloat(f[0], 64); err != nil {
			t.Fatal(err)
		}
		for k := range nd {
			if r.dec[k], err = strconv.ParseFloat(f[1+k], 64); err != nil {
				t.Fatal(err)
			}
		}
		res = append(res, r)
	}
	if len(res) != rows {
		t.Fatalf("driver printed %d rows, want %d", len(res), rows)
	}
	return res
}

// decisionTol is the acceptance's bound on a decision value's relative
// difference, |c − g| ≤ decisionTol·|g|, with an absolute floor at
// decisionFloor times the row's largest decision value for values that
// cancel to near 0 (where a relative bound says nothing about the sum).
const (
	decisionTol   = 1e-6
	decisionFloor = 1e-9
	// vnniRegressionTol bounds an 8-bit kernel ε-SVR's batch values from
	// its exact ones: float32 rounding (package quantize measured 1.6e-5).
	vnniRegressionTol = 3e-5
)

// compareResults checks the C results against the library's decision
// values (DecisionDense, to decisionTol) and the prediction they give
// (LabelOf: the label exactly, a regression value to decisionTol), and
// counts the rows where svmgo predict's batch path (PredictBatch) gives
// another prediction. Those are the library's own: on CPUs with AVX-512
// VNNI an 8-bit quantized kernel model's batches take float32 blocked sums
// whose labels are the exact sums' but at near-ties, and whose ε-SVR
// values lie within float32 rounding (package quantize); every other path
// gives the exact sums' predictions, and so must the C. It returns the
// largest relative decision difference and the rows of the batch path's
// own.
func compareResults(t testing.TB, what string, m core.Model, ds *data.Dataset, res []cResult) (worst float64, batchOwn int) {
	t.Helper()
	info := m.Info()
	pred := m.PredictBatch(make([]float64, ds.Len()), ds)
	dec := make([]float64, info.NumDecisionValues)
	row := make([]float32, info.NumFeatures)
	bad := 0
	same := func(a, b float64) bool {
		if info.Task == core.TaskRegression {
			return math.Abs(a-b) <= decisionTol*math.Abs(b)
		}
		return a == b
	}
	for i, r := range res {
		denseRow(row, ds, i)
		m.DecisionDense(dec, row)
		if want := m.LabelOf(dec); !same(r.pred, want) {
			t.Errorf("%s row %d: C predicts %.17g, the library %.17g", what, i, r.pred, want)
			bad++
		} else if !same(r.pred, pred[i]) {
			batchOwn++
			if info.Task == core.TaskRegression && math.Abs(r.pred-pred[i]) > vnniRegressionTol*math.Abs(pred[i]) {
				t.Errorf("%s row %d: C predicts %.17g, svmgo predict %.17g", what, i, r.pred, pred[i])
				bad++
			}
		}
		big := 0.0
		for _, v := range dec {
			big = max(big, math.Abs(v))
		}
		for k, g := range dec {
			d := math.Abs(r.dec[k] - g)
			if d > decisionTol*math.Abs(g) && d > decisionFloor*big {
				t.Errorf("%s row %d: decision value %d: C %.9g, the library %.17g", what, i, k, r.dec[k], g)
				bad++
			}
			if g != 0 {
				worst = max(worst, d/math.Abs(g))
			}
		}
		if bad > 10 {
			t.Fatalf("%s: too many differences", what)
		}
	}
	regOK := info.Task == core.TaskRegression
	if batchOwn > 0 && (info.Bits != 8 || !info.Kernel || (!regOK && batchOwn*1000 > ds.Len())) {
		t.Errorf("%s: svmgo predict's batch path differs from the library's decision values on %d of %d rows", what, batchOwn, ds.Len())
	}
	return worst, batchOwn
}

// runHost generates m's C, compiles and runs it on the test rows and
// compares with the library.
func runHost(t *testing.T, name string, m core.Model, ds *data.Dataset) {
	t.Helper()
	src, err := Generate(m, Options{Name: name, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe := hostBuild(t, dir, name, src)
	cmd := exec.Command(exe)
	cmd.Stdin = bytes.NewReader(denseRows(ds, m.Info().NumFeatures))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	res := parseResults(t, out, ds.Len(), m.Info().NumDecisionValues)
	worst, own := compareResults(t, name, m, ds, res)
	t.Logf("%s: %d rows, predictions equal, largest relative decision difference %.3g, svmgo predict's VNNI batch path apart on %d rows, arrays %d B",
		name, ds.Len(), worst, own, src.ArrayBytes)
}
