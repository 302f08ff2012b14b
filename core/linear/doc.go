// Package linear is libsvmgo's linear family: LIBLINEAR's solvers (dual
// coordinate descent for the L1- and L2-loss SVC and SVR duals and the
// logistic dual, the primal Newton methods, coordinate descent for
// L1-regularized SVC, newGLMNET for L1-regularized logistic regression,
// multinomial logistic regression), the linear model with its predictors
// and probability estimates, its training parameters, its
// cross-validation and the warm-started search for C (FindLinearC).
//
// Start from DefaultLinearParams and NewLinearTrainer (or TrainLinear for
// one run); a trainer's Train returns a *LinearModel, which implements
// model.Model, and the run's LinearDual, the warm start of the next.
// Package core dispatches to it (core.NewTrainer, core.TrainModel) for a
// program that trains either family.
//
// # Imports
//
// It may import core/data, core/scale, core/simd, core/model and
// core/internal/solve and core/internal/probfit; core imports it, never
// the other way.
package linear
