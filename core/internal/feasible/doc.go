// Package feasible keeps the kernel trainer's dual variables feasible: the
// box 0 ≤ α_t ≤ C_t (BoxOf, Clip), the equality yᵀα = Δ a warm start must
// be moved back onto after rows changed (RepairEquality), and for ν-SVC
// and ν-SVR the feasibility of ν, the cold start and the repair of the two
// sums ν fixes (Feasible, Start, RepairSums).
//
// # Imports
//
// It may import core/data, core/model and core/internal/solve.
package feasible
