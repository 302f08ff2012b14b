package core

// Summary returns r in FitSummary's terms.
func (r *KernelTrainResult) Summary() FitSummary {
	return FitSummary{Iterations: r.Iterations, Work: r.KernelEvals, WorkUnit: WorkKernelEvals,
		Objective: r.Objective, NumSV: r.NumSV, Converged: r.Converged}
}
