package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/options"
)

const gridUsage = `usage: svmgo grid [grid_options] [svm-train options] dataset

Cross-validated search over C and gamma, as LIBSVM's grid.py: the same
options, the same progress lines and the same last line (best C, best
gamma, best rate), from parallel C paths trained warm.

grid_options:
-log2c {begin,end,step | "null"} : the range of log2 C (default -5,15,2);
   "null": do not grid with C
-log2g {begin,end,step | "null"} : the range of log2 gamma (default 3,-15,-2);
   "null": do not grid with gamma
-v n : n-fold cross validation (default 5)
-out {pathname | "null"} : the results, one "log2c=... log2g=... rate=..."
   line a point (default dataset.out in the current directory); a pathname
   ending in .svg gets a plot of the grid instead; "null": no file
-workers n : points trained at once (default: one per CPU)
-warm {0|1} : train each C path warm (default 1); 0 trains every point
   from scratch as grid.py does, to measure what the warm path saves
-svmtrain, -gnuplot, -png pathname : accepted for grid.py's scripts, ignored
-c and -g are refused: use -log2c and -log2g.

svm-train options: any of svm-train's (-s 0 or -s 3, -t, -d, -r, -e, -m,
-h, -wi ...); the folds are svm-train -v's. The rate is the accuracy in
percent for C-SVC (highest wins), the mean squared error for epsilon-SVR
(lowest wins; grid.py would maximize it).
` + weightFlagsUsage + readFlagsUsage + `
A last line on standard error reports the work: trainings, SMO iterations
and kernel evaluations.
`

// gridGCPercent is the garbage collector's target during a grid search
// (GOGC, when the environment does not set it): a search keeps little
// (one pair's trainer and columns a worker, the held-out rows' kernel
// values) and drops each training's outputs, so at the default 100 its
// heap grew to twice what it keeps, plus the runtime's 4 MiB floor,
// between collections. At 25, peak RSS on the shared sets' default grids
// is 1.6-1.9 times one svmgo train's (2.0-2.4 at 100), for about the same
// CPU: a collection of so small a heap is short.
const gridGCPercent = 25

// gridAxis is one axis of the grid: grid.py's begin, end, step, and
// whether the values print as Python floats (given with -log2c/-log2g:
// grid.py parses them with float()) or ints (its defaults).
type gridAxis struct {
	on               bool
	begin, end, step float64
	floats           bool
}

// values is grid.py's range_f: begin, begin+step, ... while not past end.
func (a gridAxis) values() []float64 {
	var v []float64
	for x := a.begin; !(a.step > 0 && x > a.end) && !(a.step < 0 && x < a.end); x += a.step {
		v = append(v, x)
		if a.step == 0 || len(v) > 1<<16 {
			break
		}
	}
	return v
}

// format prints a log2 value as grid.py does (str of an int or a float).
func (a gridAxis) format(v float64) string {
	if a.floats {
		return pyFloat(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// permuteSequence is grid.py's order of an axis's values: the middle
// first, then the middles of each half, interleaved, so that early points
// cover the range.
func permuteSequence(seq []float64) []float64 {
	if len(seq) <= 1 {
		return seq
	}
	mid := len(seq) / 2
	left := permuteSequence(append([]float64(nil), seq[:mid]...))
	right := permuteSequence(append([]float64(nil), seq[mid+1:]...))
	out := []float64{seq[mid]}
	for len(left) > 0 || len(right) > 0 {
		if len(left) > 0 {
			out, left = append(out, left[0]), left[1:]
		}
		if len(right) > 0 {
			out, right = append(out, right[0]), right[1:]
		}
	}
	return out
}

// gridJobs returns grid.py's job order over the indices of cs and gs: C
// and gamma resolution raised in turn.
func gridJobs(nc, ng int) [][2]int {
	var jobs [][2]int
	i, j := 0, 0
	for i < nc || j < ng {
		if float64(i)/float64(nc) < float64(j)/float64(ng) {
			for k := range j {
				jobs = append(jobs, [2]int{i, k})
			}
			i++
		} else {
			for k := range i {
				jobs = append(jobs, [2]int{k, j})
			}
			j++
		}
	}
	return jobs
}

// pyFloat formats v as Python's str(float): the shortest repr, with ".0"
// on integral values, and an exponent below 1e-4 or from 1e16.
func pyFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	if a := math.Abs(v); a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(v, 'e', -1, 64)
		return s
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// svmRate is the rate as grid.py reads it from svm-train -v's report:
// printed with %g (six significant digits) and parsed back.
func svmRate(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

// gridFlags are the grid options (grid.py's) and the svm-train options
// passed on (pass).
type gridFlags struct {
	c, g           gridAxis
	folds, workers int
	warm           bool
	out            string // the results file; "" for none
	pass           []string
}

// parseGridFlags reads the grid options of opts, the arguments before the
// data set, and collects the others (svm-train's) in pass.
func parseGridFlags(opts []string, dataset string) (gridFlags, error) {
	f := gridFlags{
		c:     gridAxis{on: true, begin: -5, end: 15, step: 2},
		g:     gridAxis{on: true, begin: 3, end: -15, step: -2},
		folds: 5, warm: true,
		out: filepath.Base(dataset) + ".out",
	}
	for i := 0; i < len(opts); i++ {
		name := opts[i]
		value := func() (string, error) {
			if i+1 >= len(opts) {
				return "", fmt.Errorf("option %s needs a value", name)
			}
			i++
			return opts[i], nil
		}
		var err error
		switch name {
		case "-log2c", "-log2g", "-v", "-workers", "-warm", "-out", "-svmtrain", "-gnuplot", "-png":
			var v string
			if v, err = value(); err == nil {
				err = f.set(name, v)
			}
		case "-resume":
			err = fmt.Errorf("option -resume is not supported: a warm grid search is fast enough to run again")
		case "-c", "-g":
			err = fmt.Errorf("use -log2c and -log2g")
		default:
			f.pass = append(f.pass, name)
		}
		if err != nil {
			return f, err
		}
	}
	if !f.c.on && !f.g.on {
		return f, fmt.Errorf("-log2c and -log2g should not be null simultaneously")
	}
	return f, nil
}

// set sets the grid option name, which takes a value, to v.
func (f *gridFlags) set(name, v string) error {
	switch name {
	case "-log2c":
		return parseGridAxis(&f.c, name, v)
	case "-log2g":
		return parseGridAxis(&f.g, name, v)
	case "-v", "-workers", "-warm":
		n, err := strconv.Atoi(v)
		switch {
		case name == "-v" && (err != nil || n < 2):
			return fmt.Errorf("option -v: %q is not a number of folds (2 or more)", v)
		case name == "-workers" && (err != nil || n < 1):
			return fmt.Errorf("option -workers: %q is not a positive number", v)
		case name == "-warm" && (err != nil || n < 0 || n > 1):
			return fmt.Errorf("option -warm: %q is not 0 or 1", v)
		}
		switch name {
		case "-v":
			f.folds = n
		case "-workers":
			f.workers = n
		default:
			f.warm = n == 1
		}
	case "-out":
		f.out = v
		if v == "null" {
			f.out = ""
		}
	}
	return nil // -svmtrain, -gnuplot, -png: accepted, ignored
}

// parseGridAxis reads -log2c or -log2g's value v into ax: begin,end,step,
// or "null" for an axis not searched.
func parseGridAxis(ax *gridAxis, name, v string) error {
	if v == "null" {
		ax.on = false
		return nil
	}
	parts := strings.Split(v, ",")
	var f [3]float64
	if len(parts) != 3 {
		return fmt.Errorf("option %s: %q is not begin,end,step", name, v)
	}
	for k, s := range parts {
		var err error
		if f[k], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil || math.IsInf(f[k], 0) || math.IsNaN(f[k]) {
			return fmt.Errorf("option %s: %q is not a number", name, s)
		}
	}
	if f[2] == 0 {
		return fmt.Errorf("option %s: the step is 0", name)
	}
	*ax = gridAxis{on: true, begin: f[0], end: f[1], step: f[2], floats: true}
	return nil
}

// gridReport prints the points of a search as grid.py does: in its job
// order, each as soon as the points before it are in (they arrive as
// their folds finish), with the best so far, and records each in the
// results file.
type gridReport struct {
	c, g       gridAxis
	cs, gs     []float64 // the log2 values searched; empty for an axis off
	regression bool
	stdout     io.Writer
	results    *bufio.Writer // nil: no results file
	// writeErr is the first failed write of the results (a full disk,
	// /dev/full): the search goes on, and the command fails at its end
	// instead of reporting success over a short file.
	writeErr error

	jobs  [][2]int
	pos   map[[2]int]int
	done  []*core.GridPoint
	next  int
	best  float64 // the best rate so far, of the point (bestC, bestG)
	bestC int
	bestG int
	found bool // a point has been reported
}

// newGridReport returns the report of a search over cs × gs.
func newGridReport(c, g gridAxis, cs, gs []float64, regression bool, stdout io.Writer, results *bufio.Writer) *gridReport {
	r := &gridReport{c: c, g: g, cs: cs, gs: gs, regression: regression, stdout: stdout, results: results, best: -1}
	if regression {
		r.best = math.Inf(1)
	}
	r.jobs = gridJobs(max(len(cs), 1), max(len(gs), 1))
	r.pos = make(map[[2]int]int, len(r.jobs))
	for k, j := range r.jobs {
		r.pos[j] = k
	}
	r.done = make([]*core.GridPoint, len(r.jobs))
	return r
}

// progress takes a finished point (core.GridOptions.Progress) and reports
// the points now due.
func (r *gridReport) progress(pt core.GridPoint) {
	index := func(vals []float64, v float64) int {
		for k, x := range vals {
			if x == v {
				return k
			}
		}
		return 0
	}
	ci, gi := 0, 0
	if r.c.on {
		ci = index(r.cs, pt.Log2C)
	}
	if r.g.on {
		gi = index(r.gs, pt.Log2G)
	}
	r.done[r.pos[[2]int{ci, gi}]] = &pt
	for r.next < len(r.jobs) && r.done[r.next] != nil {
		r.report(r.jobs[r.next][0], r.jobs[r.next][1], *r.done[r.next])
		r.next++
	}
}

// report prints the point (cs[ci], gs[gi]) and the best so far, and
// records it in the results file.
func (r *gridReport) report(ci, gi int, pt core.GridPoint) {
	rate := svmRate(pt.Rate)
	better := rate > r.best
	if r.regression {
		better = rate < r.best
	}
	// grid.py's tie rule: the same gamma and a smaller C.
	if !r.found || better || rate == r.best && gi == r.bestG && r.c.on && r.cs[ci] < r.cs[r.bestC] {
		r.best, r.bestC, r.bestG, r.found = rate, ci, gi, true
	}
	var line, rec strings.Builder
	line.WriteString("[local]")
	if r.c.on {
		fmt.Fprintf(&line, " %s", r.c.format(r.cs[ci]))
	}
	if r.g.on {
		fmt.Fprintf(&line, " %s", r.g.format(r.gs[gi]))
	}
	fmt.Fprintf(&line, " %s (best ", pyFloat(rate))
	if r.c.on {
		fmt.Fprintf(&line, "c=%s, ", pyFloat(math.Exp2(r.cs[r.bestC])))
		fmt.Fprintf(&rec, "log2c=%s ", r.c.format(r.cs[ci]))
	}
	if r.g.on {
		fmt.Fprintf(&line, "g=%s, ", pyFloat(math.Exp2(r.gs[r.bestG])))
		fmt.Fprintf(&rec, "log2g=%s ", r.g.format(r.gs[gi]))
	}
	fmt.Fprintf(&line, "rate=%s)\n", pyFloat(r.best))
	io.WriteString(r.stdout, line.String())
	if r.results != nil && r.writeErr == nil {
		fmt.Fprintf(r.results, "%srate=%s\n", rec.String(), pyFloat(rate))
		r.writeErr = r.results.Flush()
	}
}

// bestLine is grid.py's last line: the best C and gamma (of the axes
// searched) and the best rate.
func (r *gridReport) bestLine() string {
	var best []string
	if r.c.on {
		best = append(best, pyFloat(math.Exp2(r.cs[r.bestC])))
	}
	if r.g.on {
		best = append(best, pyFloat(math.Exp2(r.gs[r.bestG])))
	}
	return fmt.Sprintf("%s %s\n", strings.Join(best, " "), pyFloat(r.best))
}

func grid(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) || len(args) == 0 {
		fmt.Fprint(stdout, gridUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	args, readOpt, weights, err := takeTrainFlags(args)
	if err != nil {
		return fail(stderr, err)
	}
	dataset := args[len(args)-1]
	f, err := parseGridFlags(args[:len(args)-1], dataset)
	if err != nil {
		return fail(stderr, err)
	}
	o, files, err := options.ParseTrain(append(f.pass, dataset), options.SyntaxKernel)
	if err != nil {
		return fail(stderr, err)
	}
	if len(files) != 1 {
		fmt.Fprint(stderr, gridUsage)
		return 2
	}
	params := o.Kernel.Params
	if o.Kernel.CrossValidation > 0 {
		return fail(stderr, fmt.Errorf("give the folds with -v n among the grid options"))
	}
	if params.Probability {
		return fail(stderr, fmt.Errorf("-b 1 is not supported: the grid rates decision values"))
	}
	regression := params.SVMType == core.EpsSVR
	readOpt.ClassLabels = !regression
	ds, err := data.ReadFile(dataset, readOpt)
	if err != nil {
		return fail(stderr, err)
	}
	if err := weights.apply(ds); err != nil {
		return fail(stderr, err)
	}

	cs, gs := []float64{}, []float64{}
	if f.c.on {
		cs = permuteSequence(f.c.values())
	}
	if f.g.on {
		gs = permuteSequence(f.g.values())
	}
	if f.c.on && len(cs) == 0 || f.g.on && len(gs) == 0 {
		return fail(stderr, fmt.Errorf("an empty range: check begin, end and the step's sign"))
	}
	var resultFile *bufio.Writer
	var outFile *os.File
	var svgPath string
	if f.out != "" && strings.HasSuffix(strings.ToLower(f.out), ".svg") {
		svgPath = f.out
	} else if f.out != "" {
		if outFile, err = os.Create(f.out); err != nil {
			return fail(stderr, err)
		}
		defer outFile.Close() // after an error; closed and checked below
		resultFile = bufio.NewWriter(outFile)
	}
	rep := newGridReport(f.c, f.g, cs, gs, regression, stdout, resultFile)
	folds := f.folds
	if folds > ds.Len() {
		fmt.Fprint(stderr, core.LeaveOneOutWarning) // core runs leave-one-out
		folds = ds.Len()
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(gridGCPercent))
	}
	start := time.Now()
	res, err := core.GridSearch(ds, core.GridOptions{Params: params, Log2C: cs, Log2G: gs, Folds: folds,
		Workers: f.workers, Cold: !f.warm, LIBSVMFolds: true, Progress: rep.progress})
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", dataset, err))
	}
	io.WriteString(stdout, rep.bestLine())
	fmt.Fprintf(stderr, "svmgo grid: %d points × %d folds, %d SMO iterations, %d kernel evaluations, %.2f s (warm %v)\n",
		len(res.Points), folds, res.Iterations, res.KernelEvals, time.Since(start).Seconds(), f.warm)
	if outFile != nil {
		writeErr := rep.writeErr
		if err := outFile.Close(); writeErr == nil {
			writeErr = err
		}
		if writeErr != nil {
			return fail(stderr, fmt.Errorf("%s: %w", f.out, writeErr))
		}
	}
	if svgPath != "" {
		if err := writeGridSVG(svgPath, filepath.Base(dataset), f.c, f.g, res, regression, cs, gs, rep.bestC, rep.bestG, rep.best); err != nil {
			return fail(stderr, err)
		}
	}
	return 0
}
