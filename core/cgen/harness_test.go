package cgen

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// strictFlags are the acceptance's: the generated code must compile clean
// under them, on the host and for each Cortex-M.
var strictFlags = []string{"-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2"}

// driverDefines point testdata/driver.c at the model called name.
func driverDefines(name string) []string {
	return []string{
		`-DMODEL_H="` + name + `.h"`, "-DNUM_FEATURES=" + name + "_NUM_FEATURES",
		"-DNUM_DECISIONS=" + name + "_NUM_DECISIONS", "-DPREDICT=" + name + "_predict", "-DDECISION=" + name + "_decision",
	}
}

func driverPath(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "driver.c"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

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

func run(t testing.TB, dir, prog string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return out
}

// hostBuild compiles dir/name.c (strict flags) with the driver on the
// host, after checking that the file alone compiles with -ffreestanding
// -nostdlib into an object that references no symbol it does not define
// (nm -u): no library call, not even a compiler helper.
func hostBuild(t testing.TB, dir, name string) string {
	t.Helper()
	run(t, dir, "gcc", append(append([]string{}, strictFlags...), "-ffreestanding", "-nostdlib", "-c", "-o", name+".o", name+".c")...)
	if u := strings.TrimSpace(string(run(t, dir, "nm", "-u", name+".o"))); u != "" {
		t.Errorf("%s.c references symbols it does not define:\n%s", name, u)
	}
	run(t, dir, "gcc", append(driverDefines(name), "-O2", "-I", dir, "-o", name, driverPath(t), name+".o")...)
	return filepath.Join(dir, name)
}

// encodeRows writes rows of ds in the driver's input form: features past
// nf dropped (the generated code takes rows of the model's width).
func encodeRows(ds *data.Dataset, rows []int, nf int) []byte {
	var b []byte
	var idx []int32
	var val []float32
	for _, i := range rows {
		idx, val = idx[:0], val[:0]
		if ds.IsDense() {
			for j, v := range ds.DenseRow(i)[:min(nf, ds.NumFeatures())] {
				if v != 0 {
					idx, val = append(idx, int32(j)), append(val, v)
				}
			}
		} else {
			si, sv := ds.SparseRow(i)
			for p, j := range si {
				if int(j) < nf {
					idx, val = append(idx, j), append(val, sv[p])
				}
			}
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(idx)))
		for _, j := range idx {
			b = binary.LittleEndian.AppendUint32(b, uint32(j))
		}
		for _, v := range val {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	return b
}

// cResult is what the driver wrote for a row.
type cResult struct {
	pred float64
	dec  []float32
}

func decodeResults(t testing.TB, out []byte, rows, nd int) []cResult {
	t.Helper()
	size := 8 + 4*nd
	if len(out) != rows*size {
		t.Fatalf("driver wrote %d bytes, want %d rows of %d", len(out), rows, size)
	}
	res := make([]cResult, rows)
	for i := range res {
		b := out[i*size:]
		res[i].pred = math.Float64frombits(binary.LittleEndian.Uint64(b))
		res[i].dec = make([]float32, nd)
		for k := range nd {
			res[i].dec[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[8+4*k:]))
		}
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
)

// reference is the library's answer for a test set: svmgo predict's
// (PredictBatch) and the decision values and their prediction.
type reference struct {
	batch []float64
	dec   [][]float64
	pred  []float64
}

func newReference(m core.Model, ds *data.Dataset) *reference {
	info := m.Info()
	r := &reference{batch: m.PredictBatch(make([]float64, ds.Len()), ds), dec: make([][]float64, ds.Len()), pred: make([]float64, ds.Len())}
	row := make([]float32, info.NumFeatures)
	for i := range ds.Len() {
		clear(row)
		if ds.IsDense() {
			copy(row, ds.DenseRow(i))
		} else {
			si, sv := ds.SparseRow(i)
			for p, j := range si {
				if int(j) < len(row) {
					row[j] = sv[p]
				}
			}
		}
		r.dec[i] = m.DecisionDense(make([]float64, info.NumDecisionValues), row)
		r.pred[i] = m.LabelOf(r.dec[i])
	}
	return r
}

// compare checks the C results of rows against the library: each
// prediction equals both the one of the library's decision values and
// svmgo predict's (its batch path: the label exactly, a regression value
// to decisionTol), and each decision value the library's to decisionTol.
// It returns the largest relative decision difference.
func (ref *reference) compare(t testing.TB, what string, info core.ModelInfo, rows []int, res []cResult) (worst float64) {
	t.Helper()
	bad := 0
	reg := info.Task == core.TaskRegression
	same := func(a, b float64) bool {
		if reg {
			return math.Abs(a-b) <= decisionTol*math.Abs(b)
		}
		return a == b
	}
	for q, i := range rows {
		r := res[q]
		if want := ref.pred[i]; !same(r.pred, want) {
			t.Errorf("%s row %d: C predicts %.17g, the library's decision values %.17g", what, i, r.pred, want)
			bad++
		}
		if want := ref.batch[i]; !same(r.pred, want) {
			t.Errorf("%s row %d: C predicts %.17g, svmgo predict %.17g", what, i, r.pred, want)
			bad++
		}
		big := 0.0
		for _, v := range ref.dec[i] {
			big = max(big, math.Abs(v))
		}
		for k, g := range ref.dec[i] {
			d := math.Abs(float64(r.dec[k]) - g)
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
	return worst
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// spread returns k rows spread evenly over n (all of them when k is 0 or
// at least n).
func spread(n, k int) []int {
	if k <= 0 || k >= n {
		return allRows(n)
	}
	rows := make([]int, k)
	for q := range rows {
		rows[q] = q * n / k
	}
	return rows
}

// mcuTarget is a Cortex-M the tests run under qemu-system-arm.
type mcuTarget struct {
	Target
	machine string
}

var mcuTargets = []mcuTarget{{CortexM4F, "mps2-an386"}, {CortexM3, "mps2-an385"}}

// haveMCU reports whether the Cortex-M toolchain and qemu are installed;
// without them the qemu half is skipped, or fails when CI is set.
func haveMCU(t testing.TB) bool {
	for _, p := range []string{MCUCompiler, "qemu-system-arm"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s not installed (make test-deps-mcu)", p)
			}
			return false
		}
	}
	return true
}

// mcuRun cross-compiles dir/name.c (strict flags) with the driver for tg
// and runs it under qemu on the encoded rows.
func mcuRun(t testing.TB, dir, name string, tg mcuTarget, in []byte, arrays int) ([]byte, Size, time.Duration) {
	t.Helper()
	sub := filepath.Join(dir, tg.Name)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, name+".c")
	ld, err := filepath.Abs(filepath.Join("testdata", "mps2.ld"))
	if err != nil {
		t.Fatal(err)
	}
	// The object is the one measured: -Os after the strict flags' -O2.
	cc := append(append(append([]string{}, strictFlags...), MeasureFlags(tg.Target)...), "-I", dir, "-c", "-o", name+".o", src)
	run(t, sub, MCUCompiler, cc...)
	link := append(append(append([]string{}, tg.Flags...), driverDefines(name)...),
		"-DMCU", "-O2", "-ffreestanding", "-nostdlib", "-I", dir, "-T", ld, "-o", "prog.elf", driverPath(t), name+".o", "-lgcc")
	run(t, sub, MCUCompiler, link...)
	if err := os.WriteFile(filepath.Join(sub, "rows.bin"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour) // every row of shuttle under qemu on a loaded machine: minutes
	defer cancel()
	cmd := exec.CommandContext(ctx, "qemu-system-arm", "-M", tg.machine, "-nographic", "-monitor", "none", "-serial", "none",
		"-semihosting-config", "enable=on,target=native", "-kernel", "prog.elf")
	cmd.Dir = sub
	began := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("qemu-system-arm -M %s: %v\n%s", tg.machine, err, out)
	}
	took := time.Since(began)
	out, err := os.ReadFile(filepath.Join(sub, "out.bin"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := MeasureObject(sub, name, arrays)
	if err != nil {
		t.Fatal(err)
	}
	return out, s, took
}

// mcuRows is the number of test rows of each set the qemu runs on tg
// predict (spread over the set; 0 for all): SVMGO_MCU_ROWS, 24 by default,
// which keeps make test's share short; on the Cortex-M3
// SVMGO_MCU_M3_ROWS instead when it is set (make test-mcu-full: every row
// on the Cortex-M4F, 2,000 on the M3; emulated soft double takes 6
// minutes for shuttle's 14,500 rows a RBF model and target at load 20).
func mcuRows(t testing.TB, tg mcuTarget) int {
	s := os.Getenv("SVMGO_MCU_ROWS")
	if m3 := os.Getenv("SVMGO_MCU_M3_ROWS"); m3 != "" && tg.Target.Name == CortexM3.Name {
		s = m3
	}
	if s == "" {
		return 24
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("SVMGO_MCU_ROWS or SVMGO_MCU_M3_ROWS=%q: %v", s, err)
	}
	return n
}

// checkGenerated generates m's C and checks it against the library: on
// the host over every test row, and, when mcu is set, for each Cortex-M
// under qemu over the rows mcuRows spreads, with the sizes logged.
func checkGenerated(t *testing.T, c modelCase, name string, m core.Model, ds *data.Dataset, mcu bool) {
	t.Helper()
	src, err := Generate(m, Options{Name: name, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeSource(t, dir, name, src)
	exe := hostBuild(t, dir, name)
	info := m.Info()
	ref := newReference(m, ds)
	rows := allRows(ds.Len())
	cmd := exec.Command(exe)
	cmd.Stdin = bytes.NewReader(encodeRows(ds, rows, info.NumFeatures))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, stderr.Bytes())
	}
	worst := ref.compare(t, name, info, rows, decodeResults(t, out, len(rows), info.NumDecisionValues))
	t.Logf("%s host: %d rows equal, largest relative decision difference %.3g (float output)", name, len(rows), worst)
	if !mcu {
		return
	}
	for _, tg := range mcuTargets {
		rows := spread(ds.Len(), mcuRows(t, tg))
		in := encodeRows(ds, rows, info.NumFeatures)
		out, s, took := mcuRun(t, dir, name, tg, in, src.ArrayBytes)
		worst := ref.compare(t, name+" "+tg.Name, info, rows, decodeResults(t, out, len(rows), info.NumDecisionValues))
		t.Logf("%s %s under qemu (%.1f s): %d rows equal, largest relative decision difference %.3g; %s",
			name, tg.Name, took.Seconds(), len(rows), worst, s)
		fmt.Fprintf(sizeLog, "%s\t%s\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", name, c.set, c.what, info.Bits, tg.Name,
			len(rows), s.Flash(), s.Arrays, s.Code(), s.RAM(), 4*info.NumFeatures)
	}
}
