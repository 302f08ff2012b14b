package core

import (
	"fmt"
	"io"
)

// WriteTrainingReport writes svm-train's report of the training run that
// made m, without its shrinking dots and ν line (svmgo train prints it).
func (m *KernelModel) WriteTrainingReport(w io.Writer) {
	for _, r := range m.Result.Subproblems {
		fmt.Fprintf(w, "optimization finished, #iter = %d\n", r.Iterations)
		if !r.Converged {
			fmt.Fprintf(w, "\nWARNING: reaching max number of iterations\n")
		}
		switch m.SVMType {
		case NuSVC:
			fmt.Fprintf(w, "C = %f\n", 1/r.R)
		case NuSVR:
			fmt.Fprintf(w, "epsilon = %f\n", -r.R)
		}
		fmt.Fprintf(w, "obj = %f, rho = %f\nnSV = %d, nBSV = %d\n", r.Objective, r.Rho, r.NumSV, r.NumBoundSV)
	}
	if m.SVMType.IsSVC() {
		fmt.Fprintf(w, "Total nSV = %d\n", m.SV.Len())
	}
	if m.SVMType.IsRegression() && m.HasProbability() {
		fmt.Fprintf(w, laplaceNote, m.ProbA[0])
	}
}

// laplaceNote is LIBSVM's description of ε-SVR's probability model, with σ.
const laplaceNote = "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= %.6g\n"
