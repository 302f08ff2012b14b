package model

// ProgressEvent is what a solver reports, through an optional callback,
// as it goes: nothing in core prints (DESIGN.md §4). A callback runs on the
// solver's goroutine, between iterations; it must be quick and must not
// keep the event's address.
type ProgressEvent struct {
	// Classes says which classes the subproblem is over: 0 for the whole
	// problem (regression, one-class, multinomial), 1 for a one-vs-rest or
	// binary subproblem whose positive class is Subproblem, 2 for the
	// one-vs-one kernel subproblem of Subproblem against Second.
	Classes int
	// Subproblem is the subproblem's (positive or first) class when
	// Classes ≥ 1.
	Subproblem int32
	// Second is the other class of a one-vs-one subproblem (Classes 2).
	Second int32
	// Iteration counts the solver's iterations so far: Newton iterations
	// for the primal solvers, outer passes for dual coordinate descent,
	// SMO steps for the kernel solvers.
	Iteration int
	// Objective is the objective the solver minimizes at this point (the
	// primal for the Newton solvers, the dual for DCD and SMO).
	Objective float64
	// Violation is the quantity the stopping test compares with eps: the
	// gradient norm relative to its value at 0 (Newton), the largest
	// projected-gradient violation (DCD), the maximal KKT violation
	// m(α) − M(α) (SMO).
	Violation float64
}

// ProgressFunc receives a solver's ProgressEvents.
type ProgressFunc func(ProgressEvent)
