// Command lineartime times the stages of linear SVM training in process, so
// that examples/bench/linear.sh can compare each stage with LIBLINEAR's.
//
// Usage:
//
//	lineartime [liblinear train options] train_file test_file
//
// The options are those of liblinear-train (and svmgo train-linear), for
// example -s 3 -B 1; they are parsed by options.ParseLinear and only
// the training parameters are used (-v and -q are not timing questions and
// are refused or ignored). It measures, with the monotonic clock, one run of
// each stage:
//
//   - parse: data.ReadFile of train_file (size scan, allocation and parse);
//   - train: linear.TrainLinear on the parsed data, the solver alone (trainer
//     buffers included, no I/O);
//   - save: modelfile.Marshal of the model, in memory (no file is written);
//
// then reads test_file (untimed), predicts it with PredictBatch and scores
// the predictions against its labels with core.ScorePredictions.
//
// It prints one machine-readable line of space-separated key=value fields:
//
//	parse_s=0.1234 train_s=0.5678 save_s=0.0012 acc=0.845621 iters=37 updates=1882204 unconverged=0
//
// Times are seconds. acc is the test accuracy as a fraction (NaN for a
// regression model, which gets an extra mse= field). iters is the largest
// outer pass count of any subproblem and updates the total number of
// coordinate steps (TrainResult.Iterations and Updates); unconverged counts
// the subproblems stopped by the -iter cap rather than the -e test.
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
)

const usage = `usage: lineartime [options] train_file test_file
Times parse, train and save of a linear SVM in process and prints
parse_s=… train_s=… save_s=… acc=… iters=… updates=…
` + options.LinearUsage

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and outputs passed in; it returns the
// exit status: 0 on success, 1 on a failed stage, 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	opts, files, err := options.ParseLinear(args)
	if err != nil {
		fmt.Fprintf(stderr, "lineartime: %v\n%s", err, usage)
		return 2
	}
	if opts.CrossValidation > 0 {
		fmt.Fprintf(stderr, "lineartime: -v is not supported: it times training, not cross validation\n")
		return 2
	}
	if len(files) != 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	line, err := measure(opts.Params, files[0], files[1])
	if err != nil {
		fmt.Fprintf(stderr, "lineartime: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, line)
	return 0
}

// measure runs the timed stages and returns the report line.
func measure(p linear.LinearParams, trainFile, testFile string) (string, error) {
	start := time.Now()
	train, err := data.ReadFile(trainFile, data.ReadOptions{})
	if err != nil {
		return "", err
	}
	parse := time.Since(start)

	start = time.Now()
	m, _, err := linear.TrainLinear(train, p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", trainFile, err)
	}
	trainTime := time.Since(start)

	start = time.Now()
	b, err := modelfile.Marshal(m)
	if err != nil {
		return "", err
	}
	save := time.Since(start)
	if len(b) == 0 {
		return "", errors.New("modelfile.Marshal returned no bytes")
	}

	test, err := data.ReadFile(testFile, data.ReadOptions{})
	if err != nil {
		return "", err
	}
	pred := m.PredictBatch(make([]float64, test.Len()), test)
	s := core.ScorePredictions(pred, test.Labels(), m.IsRegression())
	acc := s.Accuracy()
	unconverged := 0
	for _, r := range m.Result.Subproblems {
		if !r.Converged {
			unconverged++
		}
	}
	extra := ""
	if s.Regression {
		acc = math.NaN()
		extra = fmt.Sprintf(" mse=%.6g", s.MSE)
	}
	return fmt.Sprintf("parse_s=%.4f train_s=%.4f save_s=%.4f acc=%.6f iters=%d updates=%d unconverged=%d%s",
		parse.Seconds(), trainTime.Seconds(), save.Seconds(), acc,
		m.Result.Iterations, m.Result.Updates, unconverged, extra), nil
}
