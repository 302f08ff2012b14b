// Command warmtime measures what a warm start saves when rows are added to
// a linear training set: it trains on the first part of a file (cold),
// then on all of it twice, cold and warm from the first model, and
// compares the two.
//
// Usage:
//
//	warmtime [-op add|remove] [-frac 0.9] [-runs 5] [-start state|w|alpha] [liblinear train options] train_file
//
// With -op remove (rows leaving, as the daemon's window and forget
// requests remove them) it trains on all of the file first, removes the
// oldest 1 − frac of the rows from the rows and the dual, and compares a
// cold and a warm run on the rest; the start column then says "remove".
//
// The options are those of svmgo train-linear (for example -s 2, or -s 1
// -twin 1 for -s 1 through its primal twin); -frac is the part trained
// first, -runs how many times the cold and warm runs are repeated, cold and
// warm alternating, -start what the warm run starts from: state, the first
// run's dual (α, with the primal Newton method's state for -s 2 and the
// twin, LinearDual.Gradient) and model's w (linear.PrimalOf), what the
// daemon and the C ABI trainer pass, with a trainer that keeps that state
// (KeepGradient) for both runs; w, the model's w alone; alpha, the dual
// variables alone (what a restarted daemon has). It prints one Markdown
// table row:
//
//	| options | start | frac | cold CPU s | warm CPU s | CPU warm/cold | wall warm/cold | Hv cold | Hv warm | Hv warm/cold | rows read warm/cold | (warm − cold)/cold | (cold − f*)/f* | (warm − f*)/f* |
//
// CPU seconds are the process's user+system time around each Train call
// (the medians of the runs), which a loaded machine disturbs less than wall
// time; pin the command to one core (taskset -c 0) for per-core figures.
// The wall ratio is that of the median wall times of the same runs. Hv
// counts Hessian-vector products (TrainResult.HessianProducts); rows read
// is TrainResult.Updates. The last three columns compare primal
// objectives: warm against cold, and each against f*, the objective of a
// cold run at a tolerance 1000 times tighter (-e/1000), which stands for
// the optimum.
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	// -frac, -runs and -start come first; the rest are train options.
	frac, runs, start, op := 0.9, 5, "state", "add"
	for len(args) >= 2 {
		var err error
		switch args[0] {
		case "-op":
			op = args[1]
		case "-frac":
			frac, err = strconv.ParseFloat(args[1], 64)
		case "-runs":
			runs, err = strconv.Atoi(args[1])
		case "-start":
			start = args[1]
		default:
			goto options
		}
		if err != nil {
			fmt.Fprintf(stderr, "warmtime: %s %s: %v\n", args[0], args[1], err)
			return 2
		}
		args = args[2:]
	}
options:
	opts, files, err := options.ParseLinear(args)
	if err != nil || len(files) != 1 || !(frac > 0 && frac < 1) || runs < 1 ||
		(start != "state" && start != "w" && start != "alpha") || (op != "add" && op != "remove") {
		fmt.Fprintf(stderr, "usage: warmtime [-op add|remove] [-frac f] [-runs n] [-start state|w|alpha] [options] train_file (%v)\n", err)
		return 2
	}
	line, err := measure(opts.Params, files[0], frac, runs, start, op == "remove")
	if err != nil {
		fmt.Fprintf(stderr, "warmtime: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, line)
	return 0
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func measure(p linear.LinearParams, file string, frac float64, runs int, start string, remove bool) (string, error) {
	full, err := data.ReadFile(file, data.ReadOptions{})
	if err != nil {
		return "", err
	}
	if remove {
		return measureRemove(p, full, frac, runs, start)
	}
	l := full.Len()
	m0 := int(frac * float64(l))
	first := data.NewSparse(m0, full.Nonzeros(), 0)
	if full.IsDense() {
		first = data.NewDense(m0, full.NumFeatures())
	}
	for i := range m0 {
		if full.IsDense() {
			err = first.AppendDense(full.Label(i), full.DenseRow(i))
		} else {
			idx, val := full.SparseRow(i)
			err = first.AppendSparse(full.Label(i), idx, val)
		}
		if err != nil {
			return "", err
		}
	}
	tr, err := linear.NewLinearTrainer(p, l, full.NumFeatures())
	if err != nil {
		return "", err
	}
	if start == "state" {
		tr.KeepGradient()
	}
	prev, dual, err := tr.Train(first, nil)
	if err != nil {
		return "", err
	}
	var (
		fromW *linear.LinearPrimal
		warm  *linear.LinearDual
	)
	if start != "alpha" {
		fromW = linear.PrimalOf(prev)
	}
	switch start {
	case "state":
		warm = (&core.Dual{Linear: dual}).Extended(l).Linear
	case "alpha":
		warm = &linear.LinearDual{Labels: dual.Labels}
		for _, a := range dual.Alpha {
			warm.Alpha = append(warm.Alpha, append(append([]float64(nil), a...), make([]float64, l-m0)...))
		}
	}
	return coldWarm(p, tr, full, warm, fromW, runs, start, frac)
}

// measureRemove is measure for rows leaving: it trains on all of full
// cold, removes its oldest rows (the first 1 − frac of them) from the rows
// and the dual, and trains on the rest cold and warm (from the first run's
// state, w, or α alone, as start says).
func measureRemove(p linear.LinearParams, full *data.Dataset, frac float64, runs int, start string) (string, error) {
	l := full.Len()
	tr, err := linear.NewLinearTrainer(p, l, full.NumFeatures())
	if err != nil {
		return "", err
	}
	if start == "state" {
		tr.KeepGradient()
	}
	prev, dual, err := tr.Train(full, nil)
	if err != nil {
		return "", err
	}
	gone := make([]int, l-int(frac*float64(l)))
	for i := range gone {
		gone[i] = i
	}
	if err := full.DeleteRows(gone); err != nil {
		return "", err
	}
	var fromW *linear.LinearPrimal
	if start != "alpha" {
		fromW = linear.PrimalOf(prev)
	}
	var warm *linear.LinearDual
	if start != "w" {
		if err := dual.DeleteRows(gone); err != nil { // drops the Newton state, which covers rows that left
			return "", err
		}
		warm = dual
	}
	return coldWarm(p, tr, full, warm, fromW, runs, start+", remove", frac)
}

// coldWarm trains on full cold and warm (from warm and fromW) runs times
// each, alternating, and returns the table row; start and frac label it.
func coldWarm(p linear.LinearParams, tr *linear.LinearTrainer, full *data.Dataset, warm *linear.LinearDual, fromW *linear.LinearPrimal,
	runs int, start string, frac float64) (string, error) {
	var coldT, warmT, coldW, warmW []float64
	var cold, hot *linear.LinearModel
	var err error
	for range runs {
		t, t0 := cpuSeconds(), time.Now()
		if cold, _, err = tr.Train(full, nil); err != nil {
			return "", err
		}
		coldT, coldW = append(coldT, cpuSeconds()-t), append(coldW, time.Since(t0).Seconds())
		t, t0 = cpuSeconds(), time.Now()
		if hot, _, err = tr.TrainFrom(full, warm, fromW); err != nil {
			return "", err
		}
		warmT, warmW = append(warmT, cpuSeconds()-t), append(warmW, time.Since(t0).Seconds())
	}
	// The optimum's stand-in: a cold run at a 1000 times tighter tolerance.
	q := p
	q.Eps /= 1000
	q.MaxIter = max(q.MaxIter, 100000)
	opt, _, err := linear.TrainLinear(full, q)
	if err != nil {
		return "", err
	}
	c, w, fs := cold.Result, hot.Result, opt.Result.PrimalObjective
	ct, wt := median(coldT), median(warmT)
	return fmt.Sprintf("| `%s` | %s | %.2f | %.4f | %.4f | %.3f | %.3f | %d | %d | %s | %.3f | %.1e | %.1e | %.1e |",
		optString(p), start, frac, ct, wt, wt/ct, median(warmW)/median(coldW), c.HessianProducts, w.HessianProducts,
		ratio(w.HessianProducts, c.HessianProducts), float64(w.Updates)/float64(c.Updates),
		(w.PrimalObjective-c.PrimalObjective)/c.PrimalObjective,
		(c.PrimalObjective-fs)/fs, (w.PrimalObjective-fs)/fs), nil
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func optString(p linear.LinearParams) string {
	s := fmt.Sprintf("-s %d -e %g", int(p.Solver), p.Eps)
	if p.PrimalTwin {
		s += " -twin 1"
	}
	if p.Bias >= 0 {
		s += fmt.Sprintf(" -B %g", p.Bias)
	}
	return s
}
