package core

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// Family is the kind of model a training produces: a linear model
// (LinearParams, LIBLINEAR's solvers) or a kernel model (KernelParams,
// LIBSVM's SMO). A caller names it; nothing in core guesses it.
type Family int

// The model families.
const (
	// LinearFamily trains a LinearModel with LinearParams.
	LinearFamily Family = iota + 1
	// KernelFamily trains a KernelModel with KernelParams.
	KernelFamily
)

// String names the family: "linear" or "kernel".
func (f Family) String() string {
	switch f {
	case LinearFamily:
		return "linear"
	case KernelFamily:
		return "kernel"
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// TrainParams are the parameters of a training of either family: what
// NewTrainer, TrainModel and CrossValidate take. Package options builds
// them from LIBLINEAR's or svm-train's options.
type TrainParams struct {
	// Family is the kind of model trained; it selects Linear or Kernel.
	Family Family
	// Linear holds the parameters of a linear training (LinearFamily).
	Linear linear.LinearParams
	// Kernel holds the parameters of a kernel training (KernelFamily).
	Kernel KernelParams
	// Scale is the scaling trained into the model, in either family.
	Scale ScaleParams
}

// IsKernel reports whether p trains a kernel model.
func (p *TrainParams) IsKernel() bool { return p.Family == KernelFamily }

// ClassLabels reports whether p trains a classifier whose labels must be
// integer classes (C-SVC, ν-SVC, the LIBLINEAR classifiers), as a reader
// checks them (ReadOptions.ClassLabels); false for regression and for a
// one-class SVM, whose labels are targets or ignored.
func (p *TrainParams) ClassLabels() bool {
	if p.IsKernel() {
		return p.Kernel.SVMType.IsSVC()
	}
	return !p.Linear.Solver.IsRegression()
}

// IsRegression reports whether p trains a model that predicts real
// values: ε-SVR, ν-SVR, or LIBLINEAR's SVR solvers.
func (p *TrainParams) IsRegression() bool {
	if p.IsKernel() {
		return p.Kernel.SVMType.IsRegression()
	}
	return p.Linear.Solver.IsRegression()
}

// ScaleParams are the parameters of a scaling stored in the model
// (--scale): svm-scale's per-feature ranges fitted on the training rows,
// the model trained on the rows scaled to [Lower, Upper], and the ranges
// stored in the model, whose predict methods then take raw rows
// (scaling.go).
type ScaleParams struct {
	// Enabled is --scale.
	Enabled bool
	// Lower and Upper are --scale-lower and --scale-upper, svm-scale's
	// -l and -u: -1 and 1 by default.
	Lower, Upper float64
}
