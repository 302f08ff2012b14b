package core

import (
	"io"

	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// The vocabulary every model family shares lives in package core/model,
// below the families, so that they can sit below core's Trainer; these
// names keep it reachable as core's, where the programs that train and
// predict have always found it.
type (
	// Model is model.Model, the one interface every model kind implements.
	Model = model.Model
	// ProbabilityModel is model.ProbabilityModel.
	ProbabilityModel = model.ProbabilityModel
	// ModelInfo is model.ModelInfo.
	ModelInfo = model.ModelInfo
	// Task is model.Task.
	Task = model.Task
	// FitSummary is model.FitSummary.
	FitSummary = model.FitSummary
	// ProgressEvent is model.ProgressEvent.
	ProgressEvent = model.ProgressEvent
	// ProgressFunc is model.ProgressFunc.
	ProgressFunc = model.ProgressFunc
	// ClassWeight is model.ClassWeight.
	ClassWeight = model.ClassWeight
	// Score is model.Score.
	Score = model.Score
)

// The model kinds, tasks and work units of package core/model.
const (
	KindLinear         = model.KindLinear
	KindKernel         = model.KindKernel
	KindQLinear        = model.KindQLinear
	KindQKernel        = model.KindQKernel
	TaskClassification = model.TaskClassification
	TaskRegression     = model.TaskRegression
	TaskOneClass       = model.TaskOneClass
	WorkRowsRead       = model.WorkRowsRead
	WorkKernelEvals    = model.WorkKernelEvals
	LeaveOneOutWarning = model.LeaveOneOutWarning
)

// The errors of package core/model.
var (
	// ErrParams is model.ErrParams.
	ErrParams = model.ErrParams
	// ErrTooLarge is model.ErrTooLarge.
	ErrTooLarge = model.ErrTooLarge
)

// CheckMemory is model.CheckMemory.
func CheckMemory(what string, bytes int64) error { return model.CheckMemory(what, bytes) }

// CheckModelScale is model.CheckScale: the check of the ranges r a model
// of numFeatures features carries (package quantize checks its models'
// ranges with it).
func CheckModelScale(r *scale.Ranges, numFeatures int) error { return model.CheckScale(r, numFeatures) }

// BatchRows is model.BatchRows.
func BatchRows(dst []float64, x []float32, nf int, fn string) []float64 {
	return model.BatchRows(dst, x, nf, fn)
}

// WithCreated is model.WithCreated.
func WithCreated(m Model, t int64) Model { return model.WithCreated(m, t) }

// WriteTrainingReport is model.WriteTrainingReport.
func WriteTrainingReport(w io.Writer, m Model) { model.WriteTrainingReport(w, m) }

// Widen is model.Widen.
func Widen(m Model, n int) error { return model.Widen(m, n) }

// SummaryOf is model.SummaryOf.
func SummaryOf(m Model) (FitSummary, bool) { return model.SummaryOf(m) }

// ScorePredictions is model.ScorePredictions.
func ScorePredictions(pred, truth []float64, regression bool) Score {
	return model.ScorePredictions(pred, truth, regression)
}
