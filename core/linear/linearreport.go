package linear

import (
	"fmt"
	"io"
)

// WriteTrainingReport writes LIBLINEAR train's report of the training run
// that made m (svmgo train-linear prints it); for the Newton method its
// iteration counts and the primal objective, which LIBLINEAR does not print.
func (m *LinearModel) WriteTrainingReport(w io.Writer) {
	for k, r := range m.Result.Subproblems {
		if m.Solver.IsL1() {
			// Coordinate descent over w: the primal objective and the
			// nonzero weights, as LIBLINEAR prints them.
			fmt.Fprintf(w, "optimization finished, #iter = %d\n", r.Iterations)
			if !r.Converged {
				fmt.Fprintf(w, "\nWARNING: reaching max number of iterations\n")
			}
			nnz, rows := 0, len(m.W)/m.NrW()
			for j := range rows {
				if m.W[j*m.NrW()+k] != 0 {
					nnz++
				}
			}
			fmt.Fprintf(w, "Objective value = %f\n#nonzeros/#features = %d/%d\n", r.PrimalObjective, nnz, rows)
			continue
		}
		if m.Solver.IsPrimal() || m.Params.PrimalTwin || m.Solver.IsMultinomial() {
			fmt.Fprintf(w, "optimization finished, #Newton iter = %d, #Hessian-vector products = %d\n",
				r.NewtonIterations, r.HessianProducts)
			if !r.Converged {
				fmt.Fprintf(w, "\nWARNING: reaching max number of iterations\n")
			}
			fmt.Fprintf(w, "Primal objective value = %f\n", r.PrimalObjective)
			continue
		}
		fmt.Fprintf(w, "optimization finished, #iter = %d\n", r.Iterations)
		if !r.Converged {
			fmt.Fprintf(w, "\nWARNING: reaching max number of iterations\n")
		}
		fmt.Fprintf(w, "Objective value = %f\n", r.DualObjective)
		if m.Solver != L2LogisticDual { // every α of -s 7 is positive: LIBLINEAR prints no count
			fmt.Fprintf(w, "nSV = %d\n", r.NumSV)
		}
	}
}
