// Command streamtime measures what a warm retrain costs against a cold
// one when a few rows come and go, as the C ABI trainer retrains (a kernel
// model: core.NewDenseTrainer over a dense data set; a linear one,
// --linear: core.NewTrainer over a sparse one with the incremental
// trainers' parameters, options.LinearOptions.Incremental; its last Dual
// cut where rows were removed and extended in place to the rows added
// since, Dual.ExtendInPlace).
//
// Usage:
//
//	streamtime [-mode add|stream] [-frac 0.01] [-batches 10] [-store n] [-only add|remove] [-runs 3] [-pairs] [-linear] [-test file] [train options] train_file
//
// -mode add trains the first (1 − frac) of the rows, then adds the last
// frac and retrains warm, and trains the same rows cold (runs times each,
// cold and warm alternating). -mode stream keeps a store of -store rows
// (default: 0.99 of the file, at most the file) full: it trains the
// first -store rows, then, per batch, removes the oldest frac of the store
// and appends the next rows of the file (wrapping around), retrains warm,
// and trains the same rows cold once; -frac 0 retrains with nothing
// changed, the fixed cost of a warm Train. -only add appends each batch
// without removing rows (the store grows), -only remove removes them
// without appending (the store shrinks): which of the two a warm
// retrain's iterations and kernel work come from. -pairs prints each C-SVC pair's
// rows, iterations and kernel evaluations, warm against cold.
//
// Times are the process's CPU seconds (user+system) around each Train
// call; run under taskset -c 0 with GOMAXPROCS=1 for one core's figures.
// Work is the model's FitSummary.Work: kernel evaluations for a kernel
// model, rows read for a linear one. The last line gives the totals, the
// largest relative difference of the objective (FitSummary.Objective: the
// dual for a kernel model, the primal for a linear one), warm against
// cold, and with -test the most test rows the warm and the cold model of
// a batch predict differently (changedRows says when values differ).
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type config struct {
	mode    string
	frac    float64
	batches int
	store   int
	runs    int
	pairs   bool
	rows    int
	classes string
	name    string
	options string // the train options, for the total row
	profile string // CPU profile of the warm retrains (stream; no cold ones)
	models  string // directory for each warm retrain's model file (with profile)
	only    string // stream: "add" or "remove" only ("": both)
	linear  bool   // LIBLINEAR options, a sparse store
	test    string // test rows for the drift check
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("streamtime", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.mode, "mode", "add", "add or stream")
	fs.Float64Var(&c.frac, "frac", 0.01, "part of the rows in a batch")
	fs.IntVar(&c.batches, "batches", 10, "batches of a stream")
	fs.IntVar(&c.store, "store", 0, "rows in the store (stream; 0: 0.99 of the file)")
	fs.IntVar(&c.runs, "runs", 3, "cold and warm runs (add)")
	fs.BoolVar(&c.pairs, "pairs", false, "print each pair's figures")
	fs.IntVar(&c.rows, "rows", 0, "use only the file's first rows (after --classes; 0: all)")
	fs.StringVar(&c.classes, "classes", "", "use only rows of these labels (comma-separated)")
	fs.StringVar(&c.name, "name", "", "name of the data in the total row (default: the file's)")
	fs.StringVar(&c.only, "only", "", "stream: add or remove the batches' rows only (the store grows or shrinks)")
	fs.StringVar(&c.profile, "cpuprofile", "", "write a CPU profile of the warm retrains here (stream; skips the cold ones; -: no profile)")
	fs.StringVar(&c.models, "models", "", "with --cpuprofile, write each warm retrain's model to this directory (warm-N.svmgo), to compare builds byte for byte")
	fs.BoolVar(&c.linear, "linear", false, "the options are LIBLINEAR's (train-linear)")
	fs.StringVar(&c.test, "test", "", "LIBSVM file of test rows: count those the warm and cold models predict differently")
	// Our flags come first; the rest are svm-train options and the file.
	var own []string
	for len(args) >= 1 && strings.HasPrefix(args[0], "--") {
		own = append(own, args[0])
		args = args[1:]
		if len(args) > 0 && !strings.Contains(own[len(own)-1], "=") && own[len(own)-1] != "--pairs" && own[len(own)-1] != "--linear" {
			own = append(own, args[0])
			args = args[1:]
		}
	}
	if err := fs.Parse(own); err != nil {
		return 2
	}
	syntax := options.SyntaxKernel
	if c.linear {
		syntax = options.SyntaxLinear
	}
	opts, files, err := options.ParseTrain(args, syntax)
	if c.linear {
		// What the daemon and the C ABI trainer train with (-s 1 through
		// its primal twin unless -twin 0).
		opts.Linear.Params = opts.Linear.Incremental()
	}
	o := opts.Params()
	if err != nil || len(files) != 1 || !(c.frac > 0 && c.frac < 1 || c.frac == 0 && c.mode == "stream") || c.runs < 1 || c.batches < 1 ||
		!(c.only == "" || c.only == "add" || c.only == "remove") {
		fmt.Fprintf(stderr, "usage: streamtime [--mode add|stream] [--frac f] [--batches n] [--store n] [--runs n] [--pairs] [options] train_file (%v)\n", err)
		return 2
	}
	full, err := data.ReadFile(files[0], data.ReadOptions{ClassLabels: o.ClassLabels()})
	if err == nil {
		full, err = subset(full, c.classes, c.rows)
	}
	if err == nil && !c.linear {
		// And the kernel columns kept within -m unless -M is given or
		// the rows are narrow.
		o.Kernel = opts.Kernel.Incremental(full.NumFeatures())
	}
	if c.name == "" {
		c.name = filepath.Base(files[0])
	}
	c.options = strings.Join(args[:len(args)-1], " ")
	var test *data.Dataset
	if err == nil && c.test != "" {
		test, err = data.ReadFile(c.test, data.ReadOptions{ClassLabels: o.ClassLabels()})
	}
	if err == nil {
		err = measure(stdout, o, full, test, c)
	}
	if err != nil {
		fmt.Fprintf(stderr, "streamtime: %v\n", err)
		return 1
	}
	return 0
}

// subset returns the rows of full whose label is one of classes (all when
// empty), the first rows of them (all when 0).
func subset(full *data.Dataset, classes string, rows int) (*data.Dataset, error) {
	var keep []float64
	for _, f := range strings.FieldsFunc(classes, func(r rune) bool { return r == ',' }) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("--classes %q: %w", classes, err)
		}
		keep = append(keep, v)
	}
	if len(keep) == 0 && (rows <= 0 || rows >= full.Len()) {
		return full, nil
	}
	var idx []int
	for i := 0; i < full.Len() && (rows <= 0 || len(idx) < rows); i++ {
		if len(keep) == 0 || slices.Contains(keep, full.Label(i)) {
			idx = append(idx, i)
		}
	}
	out := data.NewSparse(len(idx), full.Nonzeros(), full.NumFeatures())
	for _, i := range idx {
		var err error
		if full.IsDense() {
			err = out.AppendDense(full.Label(i), full.DenseRow(i))
		} else {
			ix, v := full.SparseRow(i)
			err = out.AppendSparse(full.Label(i), ix, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// appendRow appends row i of full to ds, densely when ds is dense.
func appendRow(ds, full *data.Dataset, i int, buf []float32) error {
	switch {
	case full.IsDense():
		// A sparse ds stores the nonzeros alone.
		return ds.AppendDense(full.Label(i), full.DenseRow(i))
	case !ds.IsDense():
		idx, val := full.SparseRow(i)
		return ds.AppendSparse(full.Label(i), idx, val)
	}
	clear(buf)
	idx, val := full.SparseRow(i)
	for k, j := range idx {
		buf[j] = val[k]
	}
	return ds.AppendDense(full.Label(i), buf)
}

// fit is one timed Train call.
type fit struct {
	cpu, wall float64
	m         core.Model
	sum       model.FitSummary
	dual      *core.Dual
}

func train(tr core.Trainer, ds *data.Dataset, warm *core.Dual) (fit, error) {
	t, t0 := cpuSeconds(), time.Now()
	m, dual, err := tr.Train(ds, warm)
	if err != nil {
		return fit{}, err
	}
	return fit{cpuSeconds() - t, time.Since(t0).Seconds(), m, m.Info().Summary, dual}, nil
}

// changedRows counts the rows of test that the models a and b predict
// differently: labels that differ, or for regression values further apart
// than 1e-4 of the value (at least 1e-4): warm and cold solves stop at
// different points within the solver's tolerance, and their float32
// coefficients round differently, so regression values never agree to
// the last bit. The C ABI path (streamcapi.py) counts alike.
func changedRows(a, b core.Model, test *data.Dataset, pa, pb []float64) int {
	if test == nil {
		return 0
	}
	pa, pb = a.PredictBatch(pa, test), b.PredictBatch(pb, test)
	regression := a.Info().Task == model.TaskRegression
	n := 0
	for i := range pa {
		if regression && math.Abs(pa[i]-pb[i]) <= 1e-4*max(1, math.Abs(pb[i])) {
			continue
		}
		if regression || pa[i] != pb[i] {
			n++
		}
	}
	return n
}

func measure(w io.Writer, o core.TrainParams, full, test *data.Dataset, c config) error {
	l, nf := full.Len(), full.NumFeatures()
	buf := make([]float32, nf)
	store := c.store
	if store <= 0 || store > l {
		store = int(0.99 * float64(l))
	}
	batch := max(1, int(math.Round(c.frac*float64(store))))
	if c.frac == 0 {
		batch = 0 // a stream of retrains with nothing changed
	}
	if c.mode == "add" {
		store = l - batch
	}
	// The rows a batch removes and adds (--only), and the most the store
	// holds.
	nDel, nAdd, most := batch, batch, store+batch
	switch c.only {
	case "add":
		nDel, most = 0, store+c.batches*batch
	case "remove":
		nAdd = 0
		if c.batches*batch >= store {
			return fmt.Errorf("--only remove: %d batches of %d rows empty a store of %d", c.batches, batch, store)
		}
	}
	var ds *data.Dataset
	var tr core.Trainer
	var err error
	if c.linear {
		// The C ABI trainer's sparse store: room for the densest rows.
		ds = data.NewSparse(most, most*maxRowNonzeros(full), nf)
		tr, err = core.NewTrainer(o, most, nf)
	} else {
		ds = data.NewDense(most, nf)
		ds.KeepRowHashes() // as the C ABI trainer's
		tr, err = core.NewDenseTrainer(o, most, nf)
	}
	if err != nil {
		return err
	}
	next := 0 // next row of full to append
	add := func(n int) error {
		for range n {
			if err := appendRow(ds, full, next, buf); err != nil {
				return err
			}
			next = (next + 1) % l
		}
		return nil
	}
	if err := add(store); err != nil {
		return err
	}
	first, err := train(tr, ds, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# %s: %d rows, store %d, batch %d, first fit %.3f s CPU, work %d %s\n",
		c.mode, l, store, batch, first.cpu, first.sum.Work, first.sum.WorkUnit)
	unit := strings.ReplaceAll(first.sum.WorkUnit, "_", " ")
	dual := first.dual
	var tc, tw, ec, ew, worst float64
	var pw, pc []float64
	if test != nil {
		pw, pc = make([]float64, test.Len()), make([]float64, test.Len())
	}
	switch c.mode {
	case "add":
		if err := add(batch); err != nil {
			return err
		}
		warm := dual.Extended(ds.Len())
		var cs, ws, cw, ww []float64
		var cold, hot fit
		for range c.runs {
			if cold, err = train(tr, ds, nil); err != nil {
				return err
			}
			if hot, err = train(tr, ds, warm); err != nil {
				return err
			}
			cs, ws = append(cs, cold.cpu), append(ws, hot.cpu)
			cw, ww = append(cw, cold.wall), append(ww, hot.wall)
		}
		tc, tw = median(cs), median(ws)
		ec, ew = float64(cold.sum.Work), float64(hot.sum.Work)
		worst = relDiff(hot.sum.Objective, cold.sum.Objective)
		if c.pairs {
			printPairs(w, cold.m, hot.m)
		}
		fmt.Fprintf(w, "add %d to %d: CPU cold %.4f warm %.4f (%.3f), wall %.3f, %s cold %.0f warm %.0f (%.3f), iterations %d/%d, obj diff %.1e, test rows changed %d\n",
			batch, store, tc, tw, tw/tc, median(ww)/median(cw), unit, ec, ew, ew/ec, hot.sum.Iterations, cold.sum.Iterations, worst,
			changedRows(hot.m, cold.m, test, pw, pc))
		return nil
	case "stream":
		fmt.Fprintf(w, "| batch | cold CPU s | warm CPU s | warm/cold CPU | cold %[1]s | warm %[1]s | warm/cold %[1]s | iter warm/cold | obj rel diff | test rows changed |\n", unit)
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		old := make([]int, nDel)
		if c.profile != "" {
			return profileStream(w, c, ds, dual, tr, old, func() error { return add(nAdd) })
		}
		changed := 0
		for b := range c.batches {
			for k := range old {
				old[k] = k
			}
			if err := ds.DeleteRows(old); err != nil {
				return err
			}
			if err := dual.DeleteRows(old); err != nil {
				return err
			}
			if err := add(nAdd); err != nil {
				return err
			}
			hot, err := train(tr, ds, dual.ExtendInPlace(ds.Len()))
			if err != nil {
				return err
			}
			cold, err := train(tr, ds, nil)
			if err != nil {
				return err
			}
			dual = hot.dual
			e0, e1 := float64(cold.sum.Work), float64(hot.sum.Work)
			d := relDiff(hot.sum.Objective, cold.sum.Objective)
			ch := changedRows(hot.m, cold.m, test, pw, pc)
			worst, changed = max(worst, d), max(changed, ch)
			tc, tw, ec, ew = tc+cold.cpu, tw+hot.cpu, ec+e0, ew+e1
			if c.pairs {
				printPairs(w, cold.m, hot.m)
			}
			fmt.Fprintf(w, "| %d | %.4f | %.4f | %.3f | %.0f | %.0f | %.3f | %d/%d | %.1e | %d |\n", b+1, cold.cpu, hot.cpu, hot.cpu/cold.cpu,
				e0, e1, e1/e0, hot.sum.Iterations, cold.sum.Iterations, d, ch)
		}
		fmt.Fprintf(w, "| total | %.4f | %.4f | %.3f | %.0f | %.0f | %.3f | | %.1e | %d |\n", tc, tw, tw/tc, ec, ew, ew/ec, worst, changed)
		if kept, budget := tr.KeptBytes(); budget > 0 {
			fmt.Fprintf(w, "# kept kernel columns: %.1f MiB of the %.0f MiB budget\n", float64(kept)/(1<<20), float64(budget)/(1<<20))
		}
		drift := ""
		if test != nil {
			drift = fmt.Sprintf("%d of %d", changed, test.Len())
		}
		fmt.Fprintf(w, "TOTAL| %s | `%s` in process | %d | %d × %d | %.3f | %.3f | %.3f | %.1e | %s |\n", c.name, c.options, store, c.batches, batch,
			tc, tw/tc, ew/ec, worst, drift)
		return nil
	}
	return fmt.Errorf("mode %q: want add or stream", c.mode)
}

// maxRowNonzeros returns the most nonzeros a row of ds has.
func maxRowNonzeros(ds *data.Dataset) int {
	if ds.IsDense() {
		return ds.NumFeatures()
	}
	most := 0
	for i := range ds.Len() {
		idx, _ := ds.SparseRow(i)
		most = max(most, len(idx))
	}
	return most
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300) }

// printPairs prints each C-SVC pair's figures of a kernel model's cold and
// warm runs (nothing for a linear model).
func printPairs(w io.Writer, coldModel, hotModel core.Model) {
	cold, ok1 := coldModel.(*core.KernelModel)
	hot, ok2 := hotModel.(*core.KernelModel)
	if !ok1 || !ok2 {
		return
	}
	fmt.Fprintln(w, "| pair | rows | SV | iter cold | iter warm | evals cold | evals warm | warm/cold |")
	for k, cs := range cold.Result.Subproblems {
		hs := hot.Result.Subproblems[k]
		fmt.Fprintf(w, "| %d-%d | %d | %d | %d | %d | %d | %d | %.3f |\n", cs.Pos, cs.Neg, cs.Rows, cs.NumSV, cs.Iterations, hs.Iterations,
			cs.KernelEvals, hs.KernelEvals, float64(hs.KernelEvals)/math.Max(float64(cs.KernelEvals), 1))
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// profileStream runs the stream's warm retrains alone under the CPU
// profiler, so that a profile shows where a warm retrain's time goes
// without the cold solves' (which share the solver's functions), and
// prints each one's CPU seconds, work and iterations, and their totals:
// two builds' warm retrains compared side by side (--cpuprofile /dev/null)
// cost a fifth of the stream with its cold solves. --cpuprofile - runs
// them without the profiler, for an instruction counter (callgrind's
// signal handling fails on the profiler's SIGPROF).
func profileStream(w io.Writer, c config, ds *data.Dataset, dual *core.Dual, tr core.Trainer, old []int, add func() error) error {
	if c.profile != "-" {
		f, err := os.Create(c.profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var tw, ew float64
	for b := range c.batches {
		for k := range old {
			old[k] = k
		}
		if err := ds.DeleteRows(old); err != nil {
			return err
		}
		if err := dual.DeleteRows(old); err != nil {
			return err
		}
		if err := add(); err != nil {
			return err
		}
		hot, err := train(tr, ds, dual.ExtendInPlace(ds.Len()))
		if err != nil {
			return err
		}
		dual = hot.dual
		if c.models != "" {
			// Written after the retrain's CPU is taken: it is not timed.
			if err := modelfile.WriteFile(filepath.Join(c.models, fmt.Sprintf("warm-%d.svmgo", b+1)), hot.m); err != nil {
				return err
			}
		}
		tw, ew = tw+hot.cpu, ew+float64(hot.sum.Work)
		fmt.Fprintf(w, "| %d | | %.4f | | | %.0f | | %d | | |\n", b+1, hot.cpu, float64(hot.sum.Work), hot.sum.Iterations)
	}
	fmt.Fprintf(w, "| warm total | | %.4f | | | %.0f | | | | |\n", tw, ew)
	return nil
}
