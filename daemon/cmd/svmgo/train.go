package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

var trainUsage = `usage: svmgo train [options] train_file [model_file]
` + core.KernelUsage + trainFilesUsage

// train is svm-train: a kernel SVM from a data file, or with -v the
// cross-validation score.
func train(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, trainUsage)
		return 0
	}
	args, readOpt, err := takeReadFlags(args)
	if err != nil {
		return fail(stderr, err)
	}
	// svm-train's syntax, whatever the options: -s 3 is ε-SVR here.
	o, files, err := core.ParseTrainOptions(args, core.SyntaxKernel)
	if err != nil {
		return fail(stderr, err)
	}
	opts := o.Kernel
	if len(files) < 1 || len(files) > 2 {
		fmt.Fprint(stderr, trainUsage)
		return 2
	}
	trainFile, modelFile := trainFiles(files)
	readOpt.ClassLabels = opts.Params.SVMType.IsSVC()
	ds, err := core.ReadFile(trainFile, readOpt)
	if err != nil {
		return fail(stderr, err)
	}

	if opts.CrossValidation > 0 {
		pred, err := core.CrossValidateKernel(ds, opts.Params, opts.CrossValidation)
		if err != nil {
			return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
		}
		printCVScore(stdout, core.ScorePredictions(pred, ds.Labels(), opts.Params.SVMType.IsRegression()))
		return 0
	}

	m, err := core.TrainKernelModel(ds, opts.Params)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
	}
	// The training rows and the solvers' buffers are garbage from here on,
	// but the heap has grown so far that no collection would come before the
	// model is encoded, whose buffers would then stack on them: collect now
	// (Fashion-MNIST 10k, -m 200, 2 cores: peak RSS 84 MB, svm-train's 78 MB;
	// one core: 107 MB before, 73 MB after).
	runtime.GC()
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
			switch m.SVMType {
			case core.NuSVC:
				fmt.Fprintf(stdout, "C = %f\n", 1/r.R)
			case core.NuSVR:
				fmt.Fprintf(stdout, "epsilon = %f\n", -r.R)
			}
			fmt.Fprintf(stdout, "obj = %f, rho = %f\nnSV = %d, nBSV = %d\n", r.Objective, r.Rho, r.NumSV, r.NumBoundSV)
		}
		if m.SVMType.IsSVC() {
			fmt.Fprintf(stdout, "Total nSV = %d\n", m.SV.Len())
		}
		if m.SVMType.IsRegression() && m.HasProbability() {
			fmt.Fprintf(stdout, laplaceNote, m.ProbA[0])
		}
	}
	if err := modeldir.WriteFile(modelFile, m); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// laplaceNote is LIBSVM's description of ε-SVR's probability model, with σ.
const laplaceNote = "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= %.6g\n"
