package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
)

const trainUsage = `usage: svmgo train [options] train_file [model_file]
` + options.KernelUsage + options.ScaleUsage + trainFilesUsage

const trainLinearUsage = `usage: svmgo train-linear [options] train_file [model_file]
` + options.LinearUsage + options.ScaleUsage + trainFilesUsage

// train is svm-train: a kernel SVM from a data file, or with -v the
// cross-validation score. Its options are svm-train's whatever they are:
// -s 3 is ε-SVR here.
func train(args []string, stdout, stderr io.Writer) int {
	return trainCommand(args, options.SyntaxKernel, trainUsage, stdout, stderr)
}

// trainLinear is LIBLINEAR's train: a linear model from a data file, with
// -v the cross-validation score, with -C the search for C. Its options
// are LIBLINEAR's whatever they are: -s 3 is L1-loss SVC here.
func trainLinear(args []string, stdout, stderr io.Writer) int {
	return trainCommand(args, options.SyntaxLinear, trainLinearUsage, stdout, stderr)
}

// trainCommand is both train commands, with options in syntax: it reads
// the train file, then runs -C (linear), -v, or trains a model, prints the
// report of the program it stands for and writes the model file.
func trainCommand(args []string, syntax options.Syntax, usage string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	args, showProgress := takeProgressFlag(args)
	args, readOpt, weights, err := takeTrainFlags(args)
	if err != nil {
		return fail(stderr, err)
	}
	o, files, err := options.ParseTrain(args, syntax)
	if err != nil {
		return fail(stderr, err)
	}
	if len(files) < 1 || len(files) > 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	trainFile, modelFile := trainFiles(files)
	p := o.Params()
	readOpt.ClassLabels = p.ClassLabels()
	ds, err := data.ReadFile(trainFile, readOpt)
	if err != nil {
		return fail(stderr, err)
	}
	if err := weights.apply(ds); err != nil {
		return fail(stderr, err)
	}

	if o.CrossValidation() > ds.Len() {
		fmt.Fprint(stderr, core.LeaveOneOutWarning) // core runs leave-one-out
	}
	// --scale: core.TrainModel and CrossValidate train on the scaled rows
	// (the model keeps the ranges); the C search is given them scaled.
	switch {
	case !o.IsKernel() && o.Linear.FindC:
		if _, ds, err = core.ScaleTrainingRows(ds, o.Scale); err != nil {
			return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
		}
		return findC(ds, o.Linear, stdout, stderr)
	case o.CrossValidation() > 0:
		pred, err := core.CrossValidate(ds, p, o.CrossValidation())
		if err != nil {
			return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
		}
		printCVScore(stdout, core.ScorePredictions(pred, ds.Labels(), p.IsRegression()))
		return 0
	}

	progress := newProgressPrinter(stderr, showProgress, o.Kernel.Quiet || o.Linear.Quiet)
	if core.BestOnOneP(ds, p) {
		// One solver and nothing else to run: a second P only hands the
		// solver between threads (and CPUs) at every preemption. One P
		// runs it as pinned to a CPU would, without pinning it. The file
		// was read on every CPU. The rest of the command (the collection
		// below, the model's encoding and write) stays on one P: restoring
		// two first costs a stop of the world, and a collection on two Ps
		// wakes the idle P's thread for a mark worker and waits for it at
		// each stop (spamlike -c 4, 12 alternated runs at load 13: the
		// command's part after the solve took 23.5 ms, median, restoring
		// first, 3.3 ms without; 10 of 12 pairs lower).
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	m, err := core.TrainModelReporting(ds, p, progress.fn())
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", trainFile, err))
	}
	// The training rows and the solvers' buffers are garbage from here on,
	// but the heap has grown so far that no collection would come before the
	// model is encoded, whose buffers would then stack on them: collect now
	// (Fashion-MNIST 10k, -m 200, 2 cores: peak RSS 84 MB, svm-train's 78 MB;
	// one core: 107 MB before, 73 MB after). Below the runtime's smallest
	// heap goal (4 MiB) nothing has grown and the model is small: a forced
	// collection would cost a third of a small set's whole run (heart_scale).
	if heapGrown() {
		runtime.GC()
	}
	if t, ok, err := sourceDateEpoch(); err != nil {
		return fail(stderr, err)
	} else if ok {
		m = core.WithCreated(m, t)
	}
	if !o.Kernel.Quiet && !o.Linear.Quiet {
		// One write, not one a line (a line or two a decision function).
		// As the reference tools do, a report that cannot be written does
		// not stop the model's.
		w := bufio.NewWriter(stdout)
		core.WriteTrainingReport(w, m)
		w.Flush()
	}
	// Unsynced, as LIBSVM's and LIBLINEAR's train write theirs: the run can
	// be repeated, and the syncs were half of a small set's wall.
	if err := modelfile.ReplaceFile(modelFile, m); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// heapGrown reports whether the heap has grown past the runtime's smallest
// goal, which its first collection marks. debug.ReadGCStats neither stops
// the world nor flushes every allocation cache as runtime.ReadMemStats
// does (heart_scale train-linear: 110 page faults of 420 fewer), and
// runtime/metrics' package init alone costs every start 0.07 ms.
func heapGrown() bool {
	var s debug.GCStats
	debug.ReadGCStats(&s)
	return s.NumGC > 0
}

// trainFilesUsage ends both train commands' usage: their file arguments.
const trainFilesUsage = readFlagsUsage + weightFlagsUsage + progressUsage + `
train_file is in LIBSVM format (or CSV, label first, when it ends in .csv);
a classifier's labels must be integers.
model_file defaults to the train file's name with .svmgo appended, in the
current directory (not LIBSVM's .model, which names its text models:
svmgo export writes those). Models are written atomically: a failed run leaves none.
SOURCE_DATE_EPOCH, when set, is recorded as the model's creation time;
otherwise none is, so equal inputs give byte-identical files.
`

// findC runs -C, printing as liblinear-train does: a line per C, then
// the best C and its score.
func findC(ds *data.Dataset, opts options.LinearOptions, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "Doing parameter search with %d-fold cross validation.\n", opts.CrossValidation)
	regression := opts.Params.Solver.IsRegression()
	res, err := linear.FindLinearC(ds, opts.Params, opts.CrossValidation, opts.StartC, func(s linear.CSearchStep) {
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
// defaultModelExt names the model file train writes when none is given:
// TRAIN.svmgo, never LIBSVM's TRAIN.model, whose name svm-predict users
// expect to hold a text model (and which a libsvmgo file would silently
// replace). The model directory's files are model-N.svmgo alike.
const defaultModelExt = ".svmgo"

func trainFiles(files []string) (trainFile, modelFile string) {
	trainFile = files[0]
	modelFile = filepath.Base(trainFile) + defaultModelExt
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
