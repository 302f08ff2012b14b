package model

// FitSummary is what a training run of either kind reports in the same
// terms, for the programs that train both kinds through one Trainer (the
// daemon's log and metrics, the C ABI's svmgo_trainer_fit_info). The full
// per-kind reports are the models' Result fields.
type FitSummary struct {
	// Iterations is TrainResult.Iterations for a linear run (the largest
	// outer pass or Newton iteration count of a subproblem) and
	// KernelTrainResult.Iterations for a kernel run (SMO iterations,
	// summed over the subproblems).
	Iterations int
	// Work is the run's cost in its kind's unit (WorkUnit): rows read for
	// a linear run (TrainResult.Updates), kernel evaluations for a kernel
	// run (KernelTrainResult.KernelEvals). A warm start is measured by it.
	Work int64
	// WorkUnit names Work's unit: WorkRowsRead or WorkKernelEvals.
	WorkUnit string
	// HessianProducts counts a linear run's Hessian-vector products (its
	// Newton method's CG steps); 0 for a kernel run.
	HessianProducts int
	// Objective is the value the run minimized, summed over its
	// subproblems: the primal P(w) for a linear run (a dual coordinate
	// descent run's too, so that warm and cold runs of either method
	// compare), the dual f(α) for a kernel run (svm-train's "obj").
	Objective float64
	// NumSV is the number of support vectors: rows with a nonzero dual
	// variable in some subproblem.
	NumSV int
	// Converged is true when every subproblem met its tolerance before its
	// iteration cap.
	Converged bool
}

// The units of FitSummary.Work, named as the daemon's log fields are.
const (
	// WorkRowsRead counts the training rows a linear solver read: a
	// coordinate step per row for DCD, a row per function, gradient or
	// Hessian-vector pass for a Newton method.
	WorkRowsRead = "updates"
	// WorkKernelEvals counts kernel evaluations (cache hits excluded).
	WorkKernelEvals = "kernel_evals"
)

// SummaryOf returns the training summary of a model (ModelInfo.Summary),
// and false for a model that carries none (a quantized model).
func SummaryOf(m Model) (FitSummary, bool) {
	info := m.Info()
	return info.Summary, info.Trained
}
