package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
	"github.com/tinylib/msgp/msgp"
)

// report is inspect's output split into its blocks: the unnamed first one
// and one per section, named by its title line without what follows " ("
// or a colon.
type report map[string][]string

// parseReport splits out into blocks: a blank line followed by a line that
// is not indented starts a section; blank lines inside a section (before a
// table) are dropped.
func parseReport(t *testing.T, out string) report {
	t.Helper()
	r := report{}
	title, blank := "", false
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case l == "":
			blank = true
			continue
		case blank && !strings.HasPrefix(l, " "):
			title = l
			if j := strings.Index(title, " ("); j >= 0 {
				title = title[:j]
			}
			title = strings.TrimSuffix(title, ":")
			if _, dup := r[title]; dup {
				t.Fatalf("section %q twice", title)
			}
			r[title] = nil
		default:
			r[title] = append(r[title], l)
		}
		blank = false
	}
	return r
}

// rowPattern is a name/value row: names hold no double space, and two or
// more spaces end them.
var rowPattern = regexp.MustCompile(`^\s*(\S(?:.*?\S)?)\s{2,}(\S.*)$`)

// value returns the value of the row named name in block title.
func (r report) value(t *testing.T, title, name string) string {
	t.Helper()
	for _, l := range r[title] {
		if m := rowPattern.FindStringSubmatch(l); m != nil && m[1] == name {
			return m[2]
		}
	}
	t.Fatalf("no row %q in block %q:\n%s", name, title, strings.Join(r[title], "\n"))
	return ""
}

// number parses the first field of s as a number, ignoring thousands
// separators.
func number(t *testing.T, s string) float64 {
	t.Helper()
	f := strings.Fields(s)
	if len(f) == 0 {
		t.Fatalf("no number in %q", s)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(f[0], ",", ""), 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// near reports whether printed, a rounding of want to digits significant
// digits (or to 6 decimals with digits = 0, as %f prints), is within half
// a unit of its last digit of want.
func near(printed, want float64, digits int) bool {
	tol := 0.5e-6
	if digits > 0 {
		tol = 0.5 * math.Abs(want) * math.Pow(10, 1-float64(digits))
	}
	return math.Abs(printed-want) <= tol*(1+1e-9)
}

// checkBytes checks the byte breakdown: its top-level rows add up to the
// file's size on disk, each share is its bytes over that size, and each
// key's bytes are modelfile.Layout's. It returns the bytes of each key.
func checkBytes(t *testing.T, r report, path string) map[string]int {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := modelfile.Layout(b)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^  (\S+)\s.*?([\d,]+) B\s+([\d.]+)%$`)
	got := map[string]int{}
	sum, total := 0, 0
	for _, l := range r["bytes"] {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("byte breakdown line %q", l)
		}
		n := int(number(t, m[2]))
		if share := number(t, m[3]); math.Abs(share-100*float64(n)/float64(fi.Size())) > 0.05 {
			t.Errorf("%s: %d B shown as %v%% of %d B", m[1], n, share, fi.Size())
		}
		switch {
		case m[1] == "total":
			total = n
		case !strings.Contains(m[1], "."): // p.c and the like break p down
			sum += n
			got[m[1]] = n
		}
	}
	if int64(sum) != fi.Size() || int64(total) != fi.Size() {
		t.Errorf("byte breakdown adds up to %d B, total %d B; the file has %d B", sum, total, fi.Size())
	}
	if got["frame"] != modelfile.HeaderSize || got["map"] != lay.Header {
		t.Errorf("frame %d B, map header %d B; want %d and %d", got["frame"], got["map"], modelfile.HeaderSize, lay.Header)
	}
	for _, f := range lay.Fields {
		if got[f.Key] != f.Size {
			t.Errorf("%s: %d B shown, Layout says %d", f.Key, got[f.Key], f.Size)
		}
	}
	if len(got) != len(lay.Fields)+2 {
		t.Errorf("%d rows for %d fields", len(got), len(lay.Fields))
	}
	return got
}

// table returns the rows of the table under the line head in block title,
// each split into fields; a name made of several fields ("4 vs 0") is
// joined back with spaces by the caller's choice of nameFields.
func (r report) table(t *testing.T, title, head string, nameFields int) [][]string {
	t.Helper()
	lines := r[title]
	norm := func(l string) string { return strings.Join(strings.Fields(l), " ") }
	i := slices.IndexFunc(lines, func(l string) bool { return norm(l) == norm(head) })
	if i < 0 {
		t.Fatalf("no line %q in block %q:\n%s", head, title, strings.Join(lines, "\n"))
	}
	var rows [][]string
	for _, l := range lines[i+1:] {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(l, "  ") {
			break
		}
		rows = append(rows, append([]string{strings.Join(f[:nameFields], " ")}, f[nameFields:]...))
	}
	return rows
}

// TestInspectLinear: inspect of a 10-class one-vs-rest model trained on
// digits prints the model's own fields.
func TestInspectLinear(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	path := filepath.Join(t.TempDir(), "digits.model")
	if code, _, errs := svmgo(t, "train-linear", "-q", "-s", "3", "-B", "1", "-c", "0.5", dataDir+"digits.train", path); code != 0 {
		t.Fatal(errs)
	}
	m, err := modelfile.ReadFileAs[*linear.LinearModel](path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := svmgo(t, "inspect", path)
	if code != 0 || errs != "" {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	r := parseReport(t, out)
	v := func(name string) string { return r.value(t, "", name) }
	if v("kind") != modelfile.KindLinear || v("format") != "1.0" || v("file") != path {
		t.Errorf("kind %q, format %q, file %q", v("kind"), v("format"), v("file"))
	}
	if want := "L2R_L1LOSS_SVC_DUAL (-s 3: "; !strings.HasPrefix(v("solver_type"), want) {
		t.Errorf("solver_type %q, want %q...", v("solver_type"), want)
	}
	var labels []int32
	for _, f := range strings.Fields(v("label")) {
		l, _ := strconv.Atoi(f)
		labels = append(labels, int32(l))
	}
	if !slices.Equal(labels, m.Labels) || number(t, v("nr_class")) != float64(len(m.Labels)) {
		t.Errorf("label %q, nr_class %q; the model has %v", v("label"), v("nr_class"), m.Labels)
	}
	if number(t, v("nr_feature")) != float64(m.NumFeatures) || number(t, v("bias")) != m.Bias {
		t.Errorf("nr_feature %q, bias %q; the model has %d and %v", v("nr_feature"), v("bias"), m.NumFeatures, m.Bias)
	}
	if number(t, v("decision functions")) != float64(m.NrW()) || number(t, v("weights")) != float64(len(m.W)) {
		t.Errorf("decision functions %q, weights %q; the model has %d and %d", v("decision functions"), v("weights"), m.NrW(), len(m.W))
	}
	if v("created") != "2023-11-14T22:13:20Z" { // 1700000000 s after the epoch
		t.Errorf("created %q", v("created"))
	}

	p := func(name string) float64 { return number(t, r.value(t, "training parameters", name)) }
	if p("-s type") != float64(m.Params.Solver) || p("-c cost") != m.Params.C || p("-e epsilon") != m.Params.Eps ||
		p("-B bias") != m.Params.Bias || p("-seed") != float64(m.Params.Seed) || p("-iter") != float64(m.Params.MaxIter) {
		t.Errorf("training parameters:\n%s\nthe model has %+v", strings.Join(r["training parameters"], "\n"), m.Params)
	}

	res := m.Result
	g := func(name string) string { return r.value(t, "training result", name) }
	if number(t, g("iterations")) != float64(res.Iterations) || number(t, g("updates")) != float64(res.Updates) ||
		number(t, g("nSV")) != float64(res.NumSV) || g("converged") != yesNo(res.Converged) {
		t.Errorf("training result:\n%s\nthe model has %+v", strings.Join(r["training result"], "\n"), res)
	}
	if !near(number(t, g("dual objective")), res.DualObjective, 0) || !near(number(t, g("primal objective")), res.PrimalObjective, 0) ||
		!near(number(t, g("duality gap")), res.DualityGap, 3) {
		t.Errorf("objectives %q %q %q; the model has %v %v %v", g("dual objective"), g("primal objective"), g("duality gap"),
			res.DualObjective, res.PrimalObjective, res.DualityGap)
	}
	rows := r.table(t, "training result", "label  iter  updates  dual obj  primal obj  gap  nSV  nBSV  converged", 1)
	if len(rows) != len(res.Subproblems) {
		t.Fatalf("%d subproblem rows, the model has %d", len(rows), len(res.Subproblems))
	}
	for i, row := range rows {
		sp := res.Subproblems[i]
		if row[0] != strconv.Itoa(int(sp.Label)) || number(t, row[1]) != float64(sp.Iterations) || number(t, row[2]) != float64(sp.Updates) ||
			!near(number(t, row[3]), sp.DualObjective, 0) || !near(number(t, row[4]), sp.PrimalObjective, 0) ||
			!near(number(t, row[5]), sp.DualityGap, 3) || number(t, row[6]) != float64(sp.NumSV) ||
			number(t, row[7]) != float64(sp.NumBoundSV) || row[8] != yesNo(sp.Converged) {
			t.Errorf("subproblem row %v; the model has %+v", row, sp)
		}
	}
	if q := r.value(t, "quantization", "scheme"); !strings.HasPrefix(q, "none") {
		t.Errorf("quantization %q", q)
	}
	got := checkBytes(t, r, path)
	// msgpack: key "w" (a fixstr, 2 bytes), then a bin of the float32s.
	if want := 2 + binSize(4*len(m.W)); got["w"] != want {
		t.Errorf("w: %d B, want %d", got["w"], want)
	}
}

// binSize is the encoded size of a msgpack bin of n bytes, from the
// msgpack specification: a bin8, bin16 or bin32 header, then the bytes.
func binSize(n int) int {
	switch {
	case n < 1<<8:
		return 2 + n
	case n < 1<<16:
		return 3 + n
	}
	return 5 + n
}

// TestInspectKernel: inspect of digits' RBF model (svm-train's defaults:
// 10 classes, 45 pairs) prints the model's own fields, a summary of the
// pairs, and with -v every pair and every ρ.
func TestInspectKernel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "digits.model")
	if code, _, errs := svmgo(t, "train", "-q", dataDir+"digits.train", path); code != 0 {
		t.Fatal(errs)
	}
	m, err := modelfile.ReadFileAs[*core.KernelModel](path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := svmgo(t, "inspect", path)
	if code != 0 || errs != "" {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	r := parseReport(t, out)
	v := func(name string) string { return r.value(t, "", name) }
	if v("kind") != modelfile.KindKernel || v("format") != "1.1" {
		t.Errorf("kind %q, format %q", v("kind"), v("format"))
	}
	if !strings.HasPrefix(v("svm_type"), m.SVMType.String()+" (-s 0)") || !strings.HasPrefix(v("kernel_type"), "rbf (-t 2)") {
		t.Errorf("svm_type %q, kernel_type %q", v("svm_type"), v("kernel_type"))
	}
	// svm-train's default γ is 1/num_features: digits has 64 features.
	if number(t, v("gamma")) != m.Kernel.Gamma || m.Kernel.Gamma != 1.0/64 {
		t.Errorf("gamma %q, the model has %v", v("gamma"), m.Kernel.Gamma)
	}
	for _, name := range []string{"degree", "coef0"} { // LIBSVM prints them for poly and sigmoid only
		for _, l := range r[""] {
			if strings.HasPrefix(l, name+" ") {
				t.Errorf("rbf model prints %q", l)
			}
		}
	}
	labels, nsv := strings.Fields(v("label")), strings.Fields(v("nr_sv"))
	if len(labels) != len(m.Labels) || len(nsv) != len(m.NumSV) {
		t.Fatalf("label %q, nr_sv %q; the model has %v and %v", labels, nsv, m.Labels, m.NumSV)
	}
	total := 0
	for i := range labels {
		if labels[i] != strconv.Itoa(int(m.Labels[i])) || nsv[i] != strconv.Itoa(int(m.NumSV[i])) {
			t.Errorf("class %d: label %s nr_sv %s; the model has %d and %d", i, labels[i], nsv[i], m.Labels[i], m.NumSV[i])
		}
		total += int(m.NumSV[i])
	}
	if number(t, v("total_sv")) != float64(m.SV.Len()) || total != m.SV.Len() || number(t, v("nr_class")) != float64(len(m.Labels)) {
		t.Errorf("total_sv %q, nr_class %q; the model has %d support vectors (nr_sv adds up to %d)", v("total_sv"), v("nr_class"), m.SV.Len(), total)
	}
	if number(t, v("nr_feature")) != float64(m.NumFeatures) {
		t.Errorf("nr_feature %q", v("nr_feature"))
	}
	nnz := 0
	for i := range m.SV.Len() {
		for _, x := range m.SV.DenseRow(i) {
			if x != 0 {
				nnz++
			}
		}
	}
	storage := v("SV storage")
	layout := "sparse"
	if m.SV.IsDense() {
		layout = "dense"
	}
	if !strings.HasPrefix(storage, layout+",") || !strings.Contains(storage, " "+commas(nnz)+" nonzeros") {
		t.Errorf("SV storage %q; the model is %s with %d nonzeros", storage, layout, nnz)
	}
	var lo, hi float64
	if n, err := parseRange(v("rho"), &lo, &hi); err != nil || n != len(m.Rho) ||
		!near(lo, slices.Min(m.Rho), 6) || !near(hi, slices.Max(m.Rho), 6) {
		t.Errorf("rho %q (%v); the model has %d from %v to %v", v("rho"), err, len(m.Rho), slices.Min(m.Rho), slices.Max(m.Rho))
	}
	if v("probability") != "no" || m.HasProbability() {
		t.Errorf("probability %q", v("probability"))
	}
	if v("created") != "not recorded" {
		t.Errorf("created %q, the model has %d", v("created"), m.Created)
	}

	pp := m.Params
	p := func(name string) string { return r.value(t, "training parameters", name) }
	if p("-g gamma") != "0 (default: 1/num_features)" || pp.Kernel.Gamma != 0 ||
		number(t, p("-c cost")) != pp.C || number(t, p("-e epsilon")) != pp.Eps || number(t, p("-m cachesize")) != pp.CacheMB ||
		p("-h shrinking") != boolDigit(pp.Shrinking) || p("-b probability_estimates") != boolDigit(pp.Probability) {
		t.Errorf("training parameters:\n%s\nthe model has %+v", strings.Join(r["training parameters"], "\n"), pp)
	}

	res := m.Result
	g := func(name string) string { return r.value(t, "training result", name) }
	if number(t, g("iterations")) != float64(res.Iterations) || number(t, g("kernel evaluations")) != float64(res.KernelEvals) ||
		!near(number(t, g("objective")), res.Objective, 0) || number(t, g("nSV")) != float64(res.NumSV) ||
		number(t, g("nBSV")) != float64(res.NumBoundSV) || g("converged") != yesNo(res.Converged) {
		t.Errorf("training result:\n%s\nthe model has %+v", strings.Join(r["training result"], "\n"), res)
	}
	// 45 pairs: a summary, checked against the subproblems' own numbers.
	summary := r.table(t, "training result", "min      median         max", 1)
	stats := func(f func(core.KernelSubproblem) float64) (lo, med, hi float64) {
		var x []float64
		for _, s := range res.Subproblems {
			x = append(x, f(s))
		}
		slices.Sort(x)
		n := len(x)
		return x[0], (x[(n-1)/2] + x[n/2]) / 2, x[n-1]
	}
	for _, c := range []struct {
		name   string
		f      func(core.KernelSubproblem) float64
		digits int
	}{
		{"rows", func(s core.KernelSubproblem) float64 { return float64(s.Rows) }, 1},
		{"iter", func(s core.KernelSubproblem) float64 { return float64(s.Iterations) }, 1},
		{"kernel evals", func(s core.KernelSubproblem) float64 { return float64(s.KernelEvals) }, 1},
		{"obj", func(s core.KernelSubproblem) float64 { return s.Objective }, 0},
		{"gap", func(s core.KernelSubproblem) float64 { return s.Gap }, 3},
		{"nSV", func(s core.KernelSubproblem) float64 { return float64(s.NumSV) }, 1},
	} {
		i := slices.IndexFunc(summary, func(row []string) bool { return strings.HasPrefix(strings.Join(row, " "), c.name+" ") })
		if i < 0 {
			t.Errorf("no summary row %q", c.name)
			continue
		}
		row := strings.Fields(strings.TrimPrefix(strings.Join(summary[i], " "), c.name))
		lo, med, hi := stats(c.f)
		if c.digits == 1 { // counts print exactly (a median may end in .5)
			if number(t, row[0]) != lo || number(t, row[1]) != med || number(t, row[2]) != hi {
				t.Errorf("%s: %v, want %v %v %v", c.name, row, lo, med, hi)
			}
		} else if !near(number(t, row[0]), lo, c.digits) || !near(number(t, row[1]), med, c.digits) || !near(number(t, row[2]), hi, c.digits) {
			t.Errorf("%s: %v, want %v %v %v", c.name, row, lo, med, hi)
		}
	}
	if nc := g("not converged"); nc != "none" || !res.Converged {
		t.Errorf("not converged %q, converged %v", nc, res.Converged)
	}
	if q := r.value(t, "quantization", "scheme"); !strings.HasPrefix(q, "none") {
		t.Errorf("quantization %q", q)
	}
	got := checkBytes(t, r, path)
	if want := 2 + binSize(8*len(m.Coef)); got["c"] != want {
		t.Errorf("c (sv_coef): %d B, want %d", got["c"], want)
	}

	// -v: every pair and every ρ.
	code, out, errs = svmgo(t, "inspect", "-v", path)
	if code != 0 {
		t.Fatalf("inspect -v: exit %d: %s", code, errs)
	}
	r = parseReport(t, out)
	var rho []float64
	for _, l := range r[""] {
		if m := rowPattern.FindStringSubmatch(l); m != nil && m[1] == "rho" || strings.HasPrefix(l, "      ") {
			for _, f := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "rho")) {
				x, err := strconv.ParseFloat(f, 64)
				if err != nil {
					t.Fatalf("rho line %q: %v", l, err)
				}
				rho = append(rho, x)
			}
		}
	}
	if len(rho) != len(m.Rho) {
		t.Fatalf("-v prints %d rho values, the model has %d", len(rho), len(m.Rho))
	}
	for i := range rho {
		if !near(rho[i], m.Rho[i], 6) {
			t.Errorf("rho[%d] = %v printed, %v in the model", i, rho[i], m.Rho[i])
		}
	}
	rows := r.table(t, "training result", "pair    rows  iter  kernel evals          obj         rho       gap  nSV  nBSV  converged", 3)
	if len(rows) != len(res.Subproblems) {
		t.Fatalf("-v lists %d pairs, the model has %d", len(rows), len(res.Subproblems))
	}
	for i, row := range rows {
		sp := res.Subproblems[i]
		if row[0] != strconv.Itoa(int(sp.Pos))+" vs "+strconv.Itoa(int(sp.Neg)) || number(t, row[1]) != float64(sp.Rows) ||
			number(t, row[2]) != float64(sp.Iterations) || number(t, row[3]) != float64(sp.KernelEvals) ||
			!near(number(t, row[4]), sp.Objective, 0) || !near(number(t, row[5]), sp.Rho, 6) || !near(number(t, row[6]), sp.Gap, 3) ||
			number(t, row[7]) != float64(sp.NumSV) || number(t, row[8]) != float64(sp.NumBoundSV) || row[9] != yesNo(sp.Converged) {
			t.Errorf("pair row %v; the model has %+v", row, sp)
		}
	}
	checkBytes(t, r, path)
}

// parseRange reads "N values from LO to HI ...".
func parseRange(s string, lo, hi *float64) (int, error) {
	f := strings.Fields(s)
	if len(f) < 6 || f[1] != "values" || f[2] != "from" || f[4] != "to" {
		return 0, strconv.ErrSyntax
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, err
	}
	if *lo, err = strconv.ParseFloat(f[3], 64); err != nil {
		return 0, err
	}
	*hi, err = strconv.ParseFloat(f[5], 64)
	return n, err
}

// TestInspectProbabilityAndImport: a model with probability estimates and
// an imported LIBSVM model (which records no training run).
func TestInspectProbabilityAndImport(t *testing.T) {
	dir := t.TempDir()
	prob := filepath.Join(dir, "prob.model")
	if code, _, errs := svmgo(t, "train", "-q", "-b", "1", "-t", "1", "-r", "0.5", dataDir+"heart_scale", prob); code != 0 {
		t.Fatal(errs)
	}
	m, err := modelfile.ReadFileAs[*core.KernelModel](prob)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := svmgo(t, "inspect", prob)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	r := parseReport(t, out)
	if got, want := r.value(t, "", "probability"), "yes: Platt's sigmoid per class pair (probA, probB: 1 each)"; got != want || len(m.ProbA) != 1 {
		t.Errorf("probability %q, want %q (%d pairs)", got, want, len(m.ProbA))
	}
	if number(t, r.value(t, "", "degree")) != float64(m.Kernel.Degree) || number(t, r.value(t, "", "coef0")) != m.Kernel.Coef0 ||
		m.Kernel.Coef0 != 0.5 {
		t.Errorf("degree %q coef0 %q; the model has %+v", r.value(t, "", "degree"), r.value(t, "", "coef0"), m.Kernel)
	}
	if got := r.value(t, "", "rho"); !near(number(t, got), m.Rho[0], 6) || len(m.Rho) != 1 {
		t.Errorf("rho %q, the model has %v", got, m.Rho)
	}
	checkBytes(t, r, prob)

	imported := filepath.Join(dir, "imported.svmgo")
	if code, _, errs := svmgo(t, "import", dataDir+"heart_scale.libsvm.model", imported); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs = svmgo(t, "inspect", imported)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	r = parseReport(t, out)
	if got := r.value(t, "training result", "result"); !strings.HasPrefix(got, "not recorded") {
		t.Errorf("imported model's result %q", got)
	}
	checkBytes(t, r, imported)
}

// frameOf wraps payload in a model file frame of format 1.minor, as the
// format document says: magic, versions, length and CRC-32C, little-endian.
func frameOf(payload []byte, minor uint16) []byte {
	b := append([]byte(modelfile.Magic), 1, 0, 0, 0)
	binary.LittleEndian.PutUint16(b[10:], minor)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
	return append(b, payload...)
}

// TestInspectBadFiles: a file that is not a valid model gives one line
// naming it and what is wrong, exit status 1 and nothing on stdout.
func TestInspectBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.model")
	if code, _, errs := svmgo(t, "train-linear", "-q", dataDir+"heart_scale", good); code != 0 {
		t.Fatal(errs)
	}
	valid, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := slices.Clone(valid)
	flipped[len(flipped)-5] ^= 1
	future := msgp.AppendMapHeader(nil, 1)
	future = msgp.AppendString(future, "k")
	future = msgp.AppendString(future, "hologram")
	for _, tc := range []struct {
		name, path, detail string
	}{
		{"missing", filepath.Join(dir, "none.model"), "no such file"},
		{"directory", dir, "not a regular file"},
		{"text", write("text.model", []byte("solver_type L2R_L2LOSS_SVC_DUAL\n")), "not a model file"},
		{"truncated", write("half.model", valid[:len(valid)/2]), "truncated"},
		{"flipped", write("flipped.model", flipped), "checksum mismatch"},
		{"trailing", write("trailing.model", append(slices.Clone(valid), 0)), "corrupt"},
		{"newer kind", write("future.model", frameOf(future, modelfile.Minor+1)), `unsupported format version: model kind "hologram"`},
		{"empty", write("empty.model", nil), "truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := svmgo(t, "inspect", tc.path)
			if code != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 1 and nothing", code, stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.detail) || !strings.Contains(stderr, tc.path) {
				t.Errorf("stderr %q, want one line naming %s and %q", stderr, tc.path, tc.detail)
			}
		})
	}
	for _, args := range [][]string{{}, {good, good}, {"-x", good}, {"-v"}} {
		if code, stdout, stderr := svmgo(t, append([]string{"inspect"}, args...)...); code != 2 || stdout != "" ||
			!strings.HasPrefix(stderr, "usage: svmgo inspect") {
			t.Errorf("inspect %q: exit %d, stdout %q, stderr %q; want usage and 2", args, code, stdout, stderr)
		}
	}
	if code, stdout, _ := svmgo(t, "inspect", "-h"); code != 0 || !strings.HasPrefix(stdout, "usage: svmgo inspect") {
		t.Errorf("inspect -h: exit %d, %q", code, stdout)
	}
}

// quantizeFile trains a float model with the svmgo arguments train (the
// model file last), quantizes it to bits and returns both paths.
func quantizeFile(t *testing.T, bits int, train ...string) (float, quantized string) {
	t.Helper()
	float = train[len(train)-1]
	if code, _, errs := svmgo(t, train...); code != 0 {
		t.Fatal(errs)
	}
	quantized = fmt.Sprintf("%s.q%d", float, bits)
	if code, _, errs := svmgo(t, "quantize", "--no-timing", "--bits", strconv.Itoa(bits), float, quantized); code != 0 {
		t.Fatal(errs)
	}
	return float, quantized
}

// payloadCRC returns bytes 20–23 of the model file at path, as inspect
// prints a CRC-32C.
func payloadCRC(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < modelfile.HeaderSize {
		t.Fatalf("%s: %d bytes, %v", path, len(b), err)
	}
	return fmt.Sprintf("0x%08x", binary.LittleEndian.Uint32(b[20:24]))
}

// checkRange checks a "N values from LO to HI" row against v, or with a
// list of values (at most rhoPerLine, or any number with -v), each value.
func checkRange(t *testing.T, name, printed string, v []float64) {
	t.Helper()
	var lo, hi float64
	if n, err := parseRange(printed, &lo, &hi); err == nil {
		if n != len(v) || !near(lo, slices.Min(v), 6) || !near(hi, slices.Max(v), 6) {
			t.Errorf("%s %q; the model has %d from %v to %v", name, printed, len(v), slices.Min(v), slices.Max(v))
		}
		return
	}
	f := strings.Fields(printed)
	if len(f) != len(v) {
		t.Fatalf("%s %q; the model has %v", name, printed, v)
	}
	for i := range f {
		if !near(number(t, f[i]), v[i], 6) {
			t.Errorf("%s[%d] printed %s, the model has %v", name, i, f[i], v[i])
		}
	}
}

// TestInspectQLinear: inspect of an int8 one-vs-rest model with a bias
// prints the quantized model's fields, its scales, and the payload CRC-32C
// of the float model it was made from.
func TestInspectQLinear(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	dir := t.TempDir()
	float, path := quantizeFile(t, 8, "train-linear", "-q", "-s", "3", "-B", "1", dataDir+"digits.train", filepath.Join(dir, "digits.svmgo"))
	q, err := modelfile.ReadFileAs[quantize.Model](path)
	if err != nil {
		t.Fatal(err)
	}
	m := q.(*quantize.Linear)
	fm, err := modelfile.ReadFileAs[*linear.LinearModel](float)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := svmgo(t, "inspect", path)
	if code != 0 || errs != "" {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	r := parseReport(t, out)
	v := func(name string) string { return r.value(t, "", name) }
	if v("kind") != modelfile.KindQLinear || v("format") != "1.2" || v("payload CRC-32C") != payloadCRC(t, path) {
		t.Errorf("kind %q, format %q, payload CRC-32C %q", v("kind"), v("format"), v("payload CRC-32C"))
	}
	if want := "L2R_L1LOSS_SVC_DUAL (-s 3: "; !strings.HasPrefix(v("solver_type"), want) || m.Solver() != fm.Solver {
		t.Errorf("solver_type %q, want %q...", v("solver_type"), want)
	}
	if v("label") != joinInt32s(fm.Labels) || number(t, v("nr_class")) != float64(len(fm.Labels)) || !slices.Equal(m.Labels(), fm.Labels) {
		t.Errorf("label %q, nr_class %q; the models have %v and %v", v("label"), v("nr_class"), m.Labels(), fm.Labels)
	}
	nf, nrW := m.NumFeatures(), m.NumDecisionValues()
	if number(t, v("nr_feature")) != float64(fm.NumFeatures) || nf != fm.NumFeatures || number(t, v("bias")) != fm.Bias ||
		number(t, v("decision functions")) != float64(fm.NrW()) || nrW != fm.NrW() {
		t.Errorf("nr_feature %q, bias %q, decision functions %q; the float model has %d, %v, %d",
			v("nr_feature"), v("bias"), v("decision functions"), fm.NumFeatures, fm.Bias, fm.NrW())
	}
	if w := v("weights"); number(t, w) != float64(nf*nrW) || !strings.Contains(w, " int8 codes ") || !strings.HasSuffix(w, fmt.Sprintf("; bias row: %d float32", nrW)) {
		t.Errorf("weights %q; %d × %d codes and a bias row", w, nf, nrW)
	}
	if v("created") != "2023-11-14T22:13:20Z" || m.Created() != fm.Created {
		t.Errorf("created %q; the models have %d and %d", v("created"), m.Created(), fm.Created)
	}
	floatCRC := payloadCRC(t, float)
	if got := r.value(t, "training", "parameters, result"); !strings.Contains(got, floatCRC) {
		t.Errorf("training %q, want the float model's CRC %s", got, floatCRC)
	}
	g := func(name string) string { return r.value(t, "quantization", name) }
	if !strings.Contains(g("scheme"), "[-127, 127]") || number(t, g("bits")) != 8 {
		t.Errorf("scheme %q, bits %q", g("scheme"), g("bits"))
	}
	scales := float32sTo64(m.Scales())
	checkRange(t, "scales s_k", g("scales s_k"), scales)
	if e := strings.Fields(g("weight error")); len(e) < 4 || !near(number(t, e[3]), slices.Max(scales)/2, 6) {
		t.Errorf("weight error %q, the largest scale is %v", g("weight error"), slices.Max(scales))
	}
	if got := g("source CRC-32C"); !strings.HasPrefix(got, floatCRC+" ") || fmt.Sprintf("0x%08x", m.SourceCRC()) != floatCRC {
		t.Errorf("source CRC-32C %q; the float model file's is %s", got, floatCRC)
	}
	got := checkBytes(t, r, path)
	// msgpack: a fixstr key (1 + its length), then a bin of the codes or floats.
	if got["w"] != 2+binSize(nf*nrW) || got["sc"] != 3+binSize(4*nrW) || got["bw"] != 3+binSize(4*nrW) {
		t.Errorf("w %d B, sc %d B, bw %d B; want %d, %d, %d", got["w"], got["sc"], got["bw"], 2+binSize(nf*nrW), 3+binSize(4*nrW), 3+binSize(4*nrW))
	}

	// -v lists every scale.
	code, out, errs = svmgo(t, "inspect", "-v", path)
	if code != 0 {
		t.Fatalf("inspect -v: exit %d: %s", code, errs)
	}
	var listed []string
	for _, l := range parseReport(t, out)["quantization"] {
		if m := rowPattern.FindStringSubmatch(l); m != nil && m[1] == "scales s_k" {
			listed = append(listed, m[2])
		} else if len(listed) > 0 && strings.HasPrefix(l, "    ") && rowPattern.FindStringSubmatch(l) == nil {
			listed = append(listed, strings.TrimSpace(l))
		} else if len(listed) > 0 {
			break
		}
	}
	checkRange(t, "scales s_k (-v)", strings.Join(listed, " "), scales)
}

// TestInspectQKernel: inspect of quantized kernel models — digits' RBF
// model at 8 bits (dense codes) and 16 bits (sparse codes), and a
// polynomial model with probability estimates — prints the quantized
// model's fields, a training summary equal to the float model's result,
// the scales, and a byte breakdown whose SV codes are the number printed.
func TestInspectQKernel(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		bits  int
		train []string
		dense bool
		prob  string
	}{
		{"RBF digits int8", 8, []string{"train", "-q", dataDir + "digits.train"}, true, "no"},
		{"RBF digits int16", 16, []string{"train", "-q", dataDir + "digits.train"}, false, "no"},
		{"poly heart_scale -b 1 int8", 8, []string{"train", "-q", "-b", "1", "-t", "1", "-r", "0.5", dataDir + "heart_scale"}, true,
			"yes: Platt's sigmoid per class pair (probA, probB: 1 each)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			float, path := quantizeFile(t, c.bits, append(c.train, filepath.Join(dir, fmt.Sprintf("m%d.svmgo", c.bits)))...)
			q, err := modelfile.ReadFileAs[quantize.Model](path)
			if err != nil {
				t.Fatal(err)
			}
			m := q.(*quantize.Kernel)
			fm, err := modelfile.ReadFileAs[*core.KernelModel](float)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errs := svmgo(t, "inspect", path)
			if code != 0 || errs != "" {
				t.Fatalf("inspect: exit %d: %s", code, errs)
			}
			r := parseReport(t, out)
			v := func(name string) string { return r.value(t, "", name) }
			if v("kind") != modelfile.KindQKernel || v("format") != "1.2" || v("payload CRC-32C") != payloadCRC(t, path) {
				t.Errorf("kind %q, format %q, payload CRC-32C %q", v("kind"), v("format"), v("payload CRC-32C"))
			}
			k := m.KernelFunc()
			if !strings.HasPrefix(v("svm_type"), fm.SVMType.String()+" (-s 0)") || m.SVMType() != fm.SVMType ||
				!strings.HasPrefix(v("kernel_type"), fmt.Sprintf("%v (-t %d)", fm.Kernel.Type, int(fm.Kernel.Type))) || k != fm.Kernel {
				t.Errorf("svm_type %q, kernel_type %q; the float model has %v, %+v", v("svm_type"), v("kernel_type"), fm.SVMType, fm.Kernel)
			}
			if number(t, v("gamma")) != fm.Kernel.Gamma {
				t.Errorf("gamma %q, the float model has %v", v("gamma"), fm.Kernel.Gamma)
			}
			if k.Type == core.PolyKernel && (number(t, v("degree")) != float64(fm.Kernel.Degree) || number(t, v("coef0")) != fm.Kernel.Coef0) {
				t.Errorf("degree %q, coef0 %q; the float model has %+v", v("degree"), v("coef0"), fm.Kernel)
			}
			labels, nsv := strings.Fields(v("label")), strings.Fields(v("nr_sv"))
			if strings.Join(labels, " ") != joinInt32s(fm.Labels) || strings.Join(nsv, " ") != joinInt32s(fm.NumSV) ||
				!slices.Equal(m.NumSV(), fm.NumSV) || number(t, v("nr_class")) != float64(len(fm.Labels)) {
				t.Errorf("label %q, nr_sv %q; the float model has %v and %v", labels, nsv, fm.Labels, fm.NumSV)
			}
			l, nf := fm.SV.Len(), fm.NumFeatures
			if number(t, v("total_sv")) != float64(l) || m.NumSupportVectors() != l || number(t, v("nr_feature")) != float64(nf) {
				t.Errorf("total_sv %q, nr_feature %q; the float model has %d and %d", v("total_sv"), v("nr_feature"), l, nf)
			}
			checkRange(t, "rho", v("rho"), fm.Rho)
			if v("probability") != c.prob {
				t.Errorf("probability %q, want %q", v("probability"), c.prob)
			}

			// The summary is the float model's training result.
			s := func(name string) string { return r.value(t, "training summary", name) }
			res := fm.Result
			if number(t, s("-c cost")) != fm.Params.C || number(t, s("-e epsilon")) != fm.Params.Eps ||
				number(t, s("iterations")) != float64(res.Iterations) || !near(number(t, s("objective")), res.Objective, 0) ||
				number(t, s("nBSV")) != float64(res.NumBoundSV) || s("converged") != yesNo(res.Converged) {
				t.Errorf("training summary:\n%s\nthe float model has %+v, result %+v", strings.Join(r["training summary"], "\n"), fm.Params, res)
			}
			floatCRC := payloadCRC(t, float)
			if !strings.Contains(s("other parameters"), floatCRC) {
				t.Errorf("other parameters %q, want the float model's CRC %s", s("other parameters"), floatCRC)
			}

			g := func(name string) string { return r.value(t, "quantization", name) }
			if want := fmt.Sprintf("[%d, %d]", -(1 << (c.bits - 1)), 1<<(c.bits-1)-1); !strings.Contains(g("scheme"), want) ||
				number(t, g("bits")) != float64(c.bits) {
				t.Errorf("scheme %q, bits %q; want %s and %d", g("scheme"), g("bits"), want, c.bits)
			}
			a, o := make([]float64, nf), make([]float64, nf)
			constant := 0
			for j := range nf {
				aj, oj := m.FeatureScale(j)
				a[j], o[j] = float64(aj), oj
				if aj == 0 {
					constant++
				}
			}
			var alo, ahi, olo, ohi float64
			var zero, of int
			if _, err := fmt.Sscanf(g("feature scales a_j"), "from %g to %g; %d of %d features", &alo, &ahi, &zero, &of); err != nil ||
				!near(alo, slices.Min(a), 6) || !near(ahi, slices.Max(a), 6) || zero != constant || of != nf {
				t.Errorf("feature scales a_j %q (%v); the model's run from %v to %v, %d of %d zero", g("feature scales a_j"), err,
					slices.Min(a), slices.Max(a), constant, nf)
			}
			if _, err := fmt.Sscanf(g("feature offsets o_j"), "from %g to %g", &olo, &ohi); err != nil ||
				!near(olo, slices.Min(o), 6) || !near(ohi, slices.Max(o), 6) {
				t.Errorf("feature offsets o_j %q (%v); the model's run from %v to %v", g("feature offsets o_j"), err, slices.Min(o), slices.Max(o))
			}
			checkRange(t, "sv_coef scales σ_k", g("sv_coef scales σ_k"), float32sTo64(m.CoefScales()))
			if got := g("source CRC-32C"); !strings.HasPrefix(got, floatCRC+" ") {
				t.Errorf("source CRC-32C %q; the float model file's is %s", got, floatCRC)
			}

			// The codes printed are the ones the file holds: the sq field
			// is its key (a 3-byte fixstr) and a bin of the codes.
			got := checkBytes(t, r, path)
			storage := v("SV storage")
			layout := map[bool]string{true: "dense, ", false: "sparse, "}[c.dense]
			f := strings.Fields(strings.TrimPrefix(storage, layout))
			if !strings.HasPrefix(storage, layout) || m.DenseLayout() != c.dense || len(f) < 2 || f[1] != fmt.Sprintf("int%d", c.bits) {
				t.Fatalf("SV storage %q, want %s… int%d", storage, layout, c.bits)
			}
			codes := int(number(t, f[0]))
			if got["sq"] != 3+binSize(codes*c.bits/8) || (c.dense && codes != l*nf) {
				t.Errorf("SV storage %q: sq holds %d B, %d codes of %d bits would take %d", storage, got["sq"], codes, c.bits, 3+binSize(codes*c.bits/8))
			}
			if rows := len(fm.Coef) / max(l, 1); got["c"] != 2+binSize(2*rows*l) {
				t.Errorf("c (sv_coef codes): %d B, want int16 × %d × %d: %d", got["c"], rows, l, 2+binSize(2*rows*l))
			}
		})
	}
}
