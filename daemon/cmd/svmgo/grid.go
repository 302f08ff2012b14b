package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/options"
)

var gridUsage = `usage: svmgo grid [grid_options] [svm-train options] dataset

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
	c := gridAxis{on: true, begin: -5, end: 15, step: 2}
	g := gridAxis{on: true, begin: 3, end: -15, step: -2}
	folds, workers, warm := 5, 0, true
	out := filepath.Base(dataset) + ".out"
	var pass []string
	opts := args[:len(args)-1]
	for i := 0; i < len(opts); i++ {
		name := opts[i]
		value := func() (string, error) {
			if i+1 >= len(opts) {
				return "", fmt.Errorf("option %s needs a value", name)
			}
			i++
			return opts[i], nil
		}
		switch name {
		case "-log2c", "-log2g":
			v, err := value()
			if err != nil {
				return fail(stderr, err)
			}
			ax := &c
			if name == "-log2g" {
				ax = &g
			}
			if v == "null" {
				ax.on = false
				continue
			}
			parts := strings.Split(v, ",")
			var f [3]float64
			if len(parts) != 3 {
				return fail(stderr, fmt.Errorf("option %s: %q is not begin,end,step", name, v))
			}
			for k, s := range parts {
				if f[k], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil || math.IsInf(f[k], 0) || math.IsNaN(f[k]) {
					return fail(stderr, fmt.Errorf("option %s: %q is not a number", name, s))
				}
			}
			if f[2] == 0 {
				return fail(stderr, fmt.Errorf("option %s: the step is 0", name))
			}
			*ax = gridAxis{on: true, begin: f[0], end: f[1], step: f[2], floats: true}
		case "-v", "-workers", "-warm":
			v, err := value()
			if err != nil {
				return fail(stderr, err)
			}
			n, err := strconv.Atoi(v)
			switch {
			case name == "-v" && (err != nil || n < 2):
				return fail(stderr, fmt.Errorf("option -v: %q is not a number of folds (2 or more)", v))
			case name == "-workers" && (err != nil || n < 1):
				return fail(stderr, fmt.Errorf("option -workers: %q is not a positive number", v))
			case name == "-warm" && (err != nil || n < 0 || n > 1):
				return fail(stderr, fmt.Errorf("option -warm: %q is not 0 or 1", v))
			}
			switch name {
			case "-v":
				folds = n
			case "-workers":
				workers = n
			default:
				warm = n == 1
			}
		case "-out":
			v, err := value()
			if err != nil {
				return fail(stderr, err)
			}
			out = v
			if v == "null" {
				out = ""
			}
		case "-svmtrain", "-gnuplot", "-png":
			if _, err := value(); err != nil {
				return fail(stderr, err)
			}
		case "-resume":
			return fail(stderr, fmt.Errorf("option -resume is not supported: a warm grid search is fast enough to run again"))
		case "-c", "-g":
			return fail(stderr, fmt.Errorf("use -log2c and -log2g"))
		default:
			pass = append(pass, name)
		}
	}
	if !c.on && !g.on {
		return fail(stderr, fmt.Errorf("-log2c and -log2g should not be null simultaneously"))
	}
	o, files, err := options.ParseTrain(append(pass, dataset), options.SyntaxKernel)
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
	if c.on {
		cs = permuteSequence(c.values())
	}
	if g.on {
		gs = permuteSequence(g.values())
	}
	nc, ng := max(len(cs), 1), max(len(gs), 1)
	if c.on && len(cs) == 0 || g.on && len(gs) == 0 {
		return fail(stderr, fmt.Errorf("an empty range: check begin, end and the step's sign"))
	}
	var resultFile *bufio.Writer
	var outFile *os.File
	var svgPath string
	if out != "" && strings.HasSuffix(strings.ToLower(out), ".svg") {
		svgPath = out
	} else if out != "" {
		if outFile, err = os.Create(out); err != nil {
			return fail(stderr, err)
		}
		defer outFile.Close() // after an error; closed and checked below
		resultFile = bufio.NewWriter(outFile)
	}
	// writeErr is the first failed write of the results (a full disk,
	// /dev/full): the search goes on, and the command fails at its end
	// instead of reporting success over a short file.
	var writeErr error

	// Points arrive as their folds finish; they are reported in grid.py's
	// job order, each as soon as the points before it are in.
	jobs := gridJobs(nc, ng)
	pos := make(map[[2]int]int, len(jobs))
	for k, j := range jobs {
		pos[j] = k
	}
	done := make([]*core.GridPoint, len(jobs))
	next := 0
	bestRate, bestC, bestG := -1.0, 0, 0
	if regression {
		bestRate = math.Inf(1)
	}
	haveBest := false
	index := func(vals []float64, v float64) int {
		for k, x := range vals {
			if x == v {
				return k
			}
		}
		return 0
	}
	report := func(ci, gi int, pt core.GridPoint) {
		rate := svmRate(pt.Rate)
		better := rate > bestRate
		if regression {
			better = rate < bestRate
		}
		// grid.py's tie rule: the same gamma and a smaller C.
		if !haveBest || better || rate == bestRate && gi == bestG && c.on && cs[ci] < cs[bestC] {
			bestRate, bestC, bestG, haveBest = rate, ci, gi, true
		}
		var line, rec strings.Builder
		line.WriteString("[local]")
		if c.on {
			fmt.Fprintf(&line, " %s", c.format(cs[ci]))
		}
		if g.on {
			fmt.Fprintf(&line, " %s", g.format(gs[gi]))
		}
		fmt.Fprintf(&line, " %s (best ", pyFloat(rate))
		if c.on {
			fmt.Fprintf(&line, "c=%s, ", pyFloat(math.Exp2(cs[bestC])))
			fmt.Fprintf(&rec, "log2c=%s ", c.format(cs[ci]))
		}
		if g.on {
			fmt.Fprintf(&line, "g=%s, ", pyFloat(math.Exp2(gs[bestG])))
			fmt.Fprintf(&rec, "log2g=%s ", g.format(gs[gi]))
		}
		fmt.Fprintf(&line, "rate=%s)\n", pyFloat(bestRate))
		io.WriteString(stdout, line.String())
		if resultFile != nil && writeErr == nil {
			fmt.Fprintf(resultFile, "%srate=%s\n", rec.String(), pyFloat(rate))
			writeErr = resultFile.Flush()
		}
	}
	progress := func(pt core.GridPoint) {
		ci, gi := 0, 0
		if c.on {
			ci = index(cs, pt.Log2C)
		}
		if g.on {
			gi = index(gs, pt.Log2G)
		}
		done[pos[[2]int{ci, gi}]] = &pt
		for next < len(jobs) && done[next] != nil {
			report(jobs[next][0], jobs[next][1], *done[next])
			next++
		}
	}
	if folds > ds.Len() {
		fmt.Fprint(stderr, core.LeaveOneOutWarning) // core runs leave-one-out
		folds = ds.Len()
	}
	start := time.Now()
	res, err := core.GridSearch(ds, core.GridOptions{Params: params, Log2C: cs, Log2G: gs, Folds: folds,
		Workers: workers, Cold: !warm, LIBSVMFolds: true, Progress: progress})
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", dataset, err))
	}
	var best []string
	if c.on {
		best = append(best, pyFloat(math.Exp2(cs[bestC])))
	}
	if g.on {
		best = append(best, pyFloat(math.Exp2(gs[bestG])))
	}
	fmt.Fprintf(stdout, "%s %s\n", strings.Join(best, " "), pyFloat(bestRate))
	fmt.Fprintf(stderr, "svmgo grid: %d points × %d folds, %d SMO iterations, %d kernel evaluations, %.2f s (warm %v)\n",
		len(res.Points), folds, res.Iterations, res.KernelEvals, time.Since(start).Seconds(), warm)
	if outFile != nil {
		if err := outFile.Close(); writeErr == nil {
			writeErr = err
		}
		if writeErr != nil {
			return fail(stderr, fmt.Errorf("%s: %w", out, writeErr))
		}
	}
	if svgPath != "" {
		if err := writeGridSVG(svgPath, filepath.Base(dataset), c, g, res, regression, cs, gs, bestC, bestG, bestRate); err != nil {
			return fail(stderr, err)
		}
	}
	return 0
}
