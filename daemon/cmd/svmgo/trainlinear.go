package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

var trainLinearUsage = `usage: svmgo train-linear [options] train_file [model_file]
` + core.LinearUsage + trainFilesUsage

// trainFilesUsage ends both train commands' usage: their file arguments.
var trainFilesUsage = readFlagsUsage + `
train_file is in LIBSVM format (or CSV, label first, when it ends in .csv);
a classifier's labels must be integers.
model_file defaults to the train file's name with .model appended, in the
current directory. Models are written atomically: a failed run leaves none.
SOURCE_DATE_EPOCH, when set, is recorded as the model's creation time;
otherwise none is, so equal inputs give byte-identical files.
`

func trainLinear(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, trainLinearUsage)
		return 0
	}
	args, readOpt, err := takeReadFlags(args)
	if err != nil {
		return fail(stderr, err)
	}
	// LIBLINEAR's syntax, whatever the options: -s 3 is L1-loss SVC here.
	o, files, err := core.ParseTrainOptions(args, core.SyntaxLinear)
	if err != nil {
		return fail(stderr, err)
	}
	opts := o.Linear
	if len(files) < 1 || len(files) > 2 {
		fmt.Fprint(stderr, trainLinearUsage)
		return 2
	}
	trainFile, modelFile := trainFiles(files)
	readOpt.ClassLabels = !opts.Params.Solver.IsRegression()
	ds, err := core.ReadFile(trainFile, readOpt)
	if err != nil {
		return fail(stderr, err)
	}

	if opts.FindC {
		return findC(ds, opts, stdout, stderr)
	}
	if opts.CrossValidation > 0 {
		pred, err := core.CrossValidateLinear(ds, opts.Params, opts.CrossValidation)
		if err != nil {
			return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
		}
		printCVScore(stdout, core.ScorePredictions(pred, ds.Labels(), opts.Params.Solver.IsRegression()))
		return 0
	}

	m, _, err := core.TrainLinear(ds, opts.Params)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
	}
	if t, ok, err := sourceDateEpoch(); err != nil {
		return fail(stderr, err)
	} else if ok {
		m.Created = t
	}
	if !opts.Quiet {
		for k, r := range m.Result.Subproblems {
			if m.Solver.IsPrimal() || m.Params.PrimalTwin {
				// TRON: the primal objective, which LIBLINEAR does not print.
				fmt.Fprintf(stdout, "optimization finished, #Newton iter = %d, #Hessian-vector products = %d\n",
					r.NewtonIterations, r.HessianProducts)
				if !r.Converged {
					fmt.Fprintf(stdout, "\nWARNING: reaching max number of iterations\n")
				}
				fmt.Fprintf(stdout, "Primal objective value = %f\n", r.PrimalObjective)
				continue
			}
			if m.Solver.IsL1() {
				// Coordinate descent over w: the primal objective and the
				// nonzero weights, as LIBLINEAR prints them.
				fmt.Fprintf(stdout, "optimization finished, #iter = %d\n", r.Iterations)
				if !r.Converged {
					fmt.Fprintf(stdout, "\nWARNING: reaching max number of iterations\n")
				}
				nnz, rows := 0, len(m.W)/m.NrW()
				for j := range rows {
					if m.W[j*m.NrW()+k] != 0 {
						nnz++
					}
				}
				fmt.Fprintf(stdout, "Objective value = %f\n#nonzeros/#features = %d/%d\n", r.PrimalObjective, nnz, rows)
				continue
			}
			fmt.Fprintf(stdout, "optimization finished, #iter = %d\n", r.Iterations)
			if !r.Converged {
				fmt.Fprintf(stdout, "\nWARNING: reaching max number of iterations\n")
			}
			fmt.Fprintf(stdout, "Objective value = %f\nnSV = %d\n", r.DualObjective, r.NumSV)
		}
	}
	if err := modeldir.WriteFile(modelFile, m); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// findC runs -C, printing as liblinear-train does: a line per C, then
// the best C and its score.
func findC(ds *core.Dataset, opts core.LinearOptions, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "Doing parameter search with %d-fold cross validation.\n", opts.CrossValidation)
	regression := opts.Params.Solver.IsRegression()
	res, err := core.FindLinearC(ds, opts.Params, opts.CrossValidation, opts.StartC, func(s core.CSearchStep) {
		if regression {
			fmt.Fprintf(stdout, "log2c=%7.2f\tmse=%.6g\n", math.Log2(s.C), s.Score.MSE)
		} else {
			fmt.Fprintf(stdout, "log2c=%7.2f\trate=%.6g\n", math.Log2(s.C), 100*s.Score.Accuracy())
		}
	})
	if err != nil {
		return fail(stderr, err)
	}
	if res.MaxCReached {
		fmt.Fprintf(stdout, "warning: maximum C reached.\n")
	}
	if regression {
		fmt.Fprintf(stdout, "Best C = %.6g  CV MSE = %.6g\n", res.BestC, res.Best.MSE)
	} else {
		fmt.Fprintf(stdout, "Best C = %.6g  CV accuracy = %.6g%%\n", res.BestC, 100*res.Best.Accuracy())
	}
	return 0
}

// trainFiles returns the train file and the model file of a train
// command's one or two file arguments.
func trainFiles(files []string) (trainFile, modelFile string) {
	trainFile = files[0]
	modelFile = filepath.Base(trainFile) + ".model"
	if len(files) == 2 {
		modelFile = files[1]
	}
	return trainFile, modelFile
}

// printCVScore prints a -v run's score as train and svm-train do.
func printCVScore(w io.Writer, s core.Score) {
	if s.Regression {
		fmt.Fprintf(w, "Cross Validation Mean squared error = %.6g\n", s.MSE)
		fmt.Fprintf(w, "Cross Validation Squared correlation coefficient = %.6g\n", s.SquaredCorrelation)
		return
	}
	fmt.Fprintf(w, "Cross Validation Accuracy = %.6g%%\n", 100*s.Accuracy())
}

// sourceDateEpoch reads the reproducible-builds convention's variable.
func sourceDateEpoch() (int64, bool, error) {
	v, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok || v == "" {
		return 0, false, nil
	}
	t, err := strconv.ParseInt(v, 10, 64)
	if err != nil || t < 0 || t > math.MaxInt64/2 {
		return 0, false, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a Unix time", v)
	}
	return t, true, nil
}
