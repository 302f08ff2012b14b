package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

const trainUsage = `usage: svmgo train [options] train_file [model_file]
` + core.KernelUsage + `
train_file is in LIBSVM format (or CSV, label first, when it ends in .csv).
model_file defaults to the train file's name with .model appended, in the
current directory. Models are written atomically: a failed run leaves none.
SOURCE_DATE_EPOCH, when set, is recorded as the model's creation time;
otherwise none is, so equal inputs give byte-identical files.
`

// train is svm-train: a kernel SVM from a data file, or with -v the
// cross-validation score.
func train(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, trainUsage)
		return 0
	}
	opts, files, err := core.ParseKernelOptions(args)
	if err != nil {
		return fail(stderr, err)
	}
	if len(files) < 1 || len(files) > 2 {
		fmt.Fprint(stderr, trainUsage)
		return 2
	}
	trainFile := files[0]
	modelFile := filepath.Base(trainFile) + ".model"
	if len(files) == 2 {
		modelFile = files[1]
	}
	ds, err := core.ReadFile(trainFile, core.ReadOptions{})
	if err != nil {
		return fail(stderr, err)
	}

	if opts.CrossValidation > 0 {
		pred, err := core.CrossValidateKernel(ds, opts.Params, opts.CrossValidation)
		if err != nil {
			return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
		}
		s := core.ScorePredictions(pred, ds.Labels(), opts.Params.SVMType.IsRegression())
		if s.Regression {
			fmt.Fprintf(stdout, "Cross Validation Mean squared error = %.6g\n", s.MSE)
			fmt.Fprintf(stdout, "Cross Validation Squared correlation coefficient = %.6g\n", s.SquaredCorrelation)
		} else {
			fmt.Fprintf(stdout, "Cross Validation Accuracy = %.6g%%\n", 100*s.Accuracy())
		}
		return 0
	}

	m, _, err := core.TrainKernel(ds, opts.Params)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
	}
	if t, ok, err := sourceDateEpoch(); err != nil {
		return fail(stderr, err)
	} else if ok {
		m.Created = t
	}
	if !opts.Quiet {
		// svm-train's report, without its shrinking dots and ν line.
		for _, r := range m.Result.Subproblems {
			fmt.Fprintf(stdout, "optimization finished, #iter = %d\n", r.Iterations)
			if !r.Converged {
				fmt.Fprintf(stdout, "\nWARNING: reaching max number of iterations\n")
			}
			fmt.Fprintf(stdout, "obj = %f, rho = %f\nnSV = %d, nBSV = %d\n", r.Objective, r.Rho, r.NumSV, r.NumBoundSV)
		}
		if m.SVMType == core.CSVC {
			fmt.Fprintf(stdout, "Total nSV = %d\n", m.SV.Len())
		}
		if m.SVMType == core.EpsSVR && m.HasProbability() {
			fmt.Fprintf(stdout, laplaceNote, m.ProbA[0])
		}
	}
	if err := modelfile.WriteKernelFile(modelFile, m); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// laplaceNote is LIBSVM's description of ε-SVR's probability model, with σ.
const laplaceNote = "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= %.6g\n"
