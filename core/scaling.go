package core

// Scaling carried inside a model (issue 16 item 2): training with a scale
// fits svm-scale's per-feature ranges on the training rows (rowscale.FitScale),
// trains on the scaled rows (rowscale.ScaleDataset), and stores the ranges in the
// model (LinearModel.Scale, KernelModel.Scale, and the quantized kinds),
// whose predict paths then take raw rows:
//
//   - a linear model folds the affine map into its weights once: with
//     x'_j = o_j + s_j·x_j, w·x' + b = Σ_j (w_j·s_j)·x_j + (b + Σ_j w_j·o_j),
//     so it predicts raw dense and sparse rows at the cost of an unscaled
//     model (a sparse row's absent features are in the constant term);
//   - a kernel model scales each row into a pooled float32 row (dense,
//     since scaling maps 0 to o_j ≠ 0 in general) and predicts that with
//     the unscaled model it wraps (rowscale.Scaled), an O(NumFeatures) step in
//     front of O(nSV·NumFeatures) kernel work.

import (
	"fmt"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// SetScale sets the scaling m was trained behind (its support vectors are
// rows scaled by r; nil for none) and initialises m again (Init). Call it
// before the model is shared or predicts.
func (m *KernelModel) SetScale(r *scale.Ranges) error {
	m.Scale = r
	return m.Init()
}

// SetModelScale sets the scaling of a model of a kind that takes one (the
// float kinds, by their SetScale method); it returns an error for another
// kind.
func SetModelScale(m Model, r *scale.Ranges) error {
	if s, ok := m.(interface{ SetScale(*scale.Ranges) error }); ok {
		return s.SetScale(r)
	}
	return fmt.Errorf("core: SetModelScale: a %s model cannot take a scaling", m.Info().Kind)
}

// ScaleTrainingRows fits o's ranges on ds and returns them with ds scaled,
// for a training run with --scale; it returns nil ranges and ds itself
// when o is not enabled.
func ScaleTrainingRows(ds *data.Dataset, o ScaleParams) (*scale.Ranges, *data.Dataset, error) {
	if !o.Enabled {
		return nil, ds, nil
	}
	r, err := rowscale.FitScale(ds, o.Lower, o.Upper)
	if err != nil {
		return nil, nil, err
	}
	sds, err := rowscale.ScaleDataset(ds, r)
	if err != nil {
		return nil, nil, err
	}
	return r, sds, nil
}

// scaledTrainer is a Trainer with --scale: every run fits the ranges on
// the rows it trains on, so the model's scaling always matches its data.
// A warm start is used only when the ranges are those of the run that
// left it (Dual.Scale): α and a kernel gradient belong to the scaled rows
// they were computed on. While new rows stay inside the ranges (the usual
// case once the first batches have set them) every retrain is warm; a row
// beyond a range refits it and that retrain starts cold. Fixing the ranges
// at the first fit instead would keep every retrain warm but scale later
// rows by the first batch's extremes, however unrepresentative.
//
// The ranges cover the features of the rows trained on (the width of ds),
// so its models are as wide as an unscaled trainer's on the same rows, and
// the automatic γ is 1/that width: covering the trainer's capacity instead
// made the daemon's models as wide as --store.max-features (16 MB, γ 10⁻⁶
// and 24% accuracy where svmgo train --scale has 84%). A caller that wants
// its own width (the C ABI's trainer) widens the model.
type scaledTrainer struct {
	inner Trainer
	opt   ScaleParams
}

func (t scaledTrainer) Family() Family { return t.inner.Family() }

func (t scaledTrainer) SetProgress(fn ProgressFunc) { t.inner.SetProgress(fn) }

func (t scaledTrainer) KeptBytes() (kept, budget int64) { return t.inner.KeptBytes() }

func (t scaledTrainer) DenseCopyBytes() (held, most int64) { return t.inner.DenseCopyBytes() }

func (t scaledTrainer) WarmStart(stored, last *Dual, rows int) (*Dual, error) {
	return t.inner.WarmStart(stored, last, rows)
}

func (t scaledTrainer) Train(ds *data.Dataset, warm *Dual) (Model, *Dual, error) {
	r, err := rowscale.FitScale(ds, t.opt.Lower, t.opt.Upper)
	if err != nil {
		return nil, nil, err
	}
	sds, err := rowscale.ScaleDataset(ds, r)
	if err != nil {
		return nil, nil, err
	}
	if warm != nil && !SameScale(warm.Scale, r) {
		warm = nil
	}
	m, d, err := t.inner.Train(sds, warm)
	if err != nil {
		return nil, nil, err
	}
	if err := SetModelScale(m, r); err != nil {
		return nil, nil, err
	}
	d.Scale = r
	return m, d, nil
}

// SameScale reports whether a and b scale every row alike (both nil, or
// equal intervals and ranges): a trainer with --scale starts warm from a
// Dual only when its Scale and the run's ranges are the same.
func SameScale(a, b *scale.Ranges) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Lower == b.Lower && a.Upper == b.Upper && slices.Equal(a.Min, b.Min) && slices.Equal(a.Max, b.Max)
}
