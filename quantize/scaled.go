package quantize

// Scaling carried by a quantized model (issue 16 item 2): the float
// model's ranges (linear.LinearModel.Scale, core.KernelModel.Scale) survive
// quantization and the file. A quantized model with a scaling carries the
// one scaled form, rowscale.Scaled, around an unscaled twin sharing its
// codes; every predict method hands the raw row to it, which scales it into
// pooled float32 scratch (dense: scaling maps 0 elsewhere in general) and
// predicts it with the twin. The codes
// cannot absorb the scaling as a float linear model's weights do (one
// scale per decision function, not per feature), so the linear kind pays
// O(NumFeatures) a row too.

import (
	"github.com/libsvmgo/libsvmgo/core/rowscale"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// Scale returns the ranges the model scales raw rows by (train --scale),
// nil for none. They must not be modified.
func (m *Linear) Scale() *scale.Ranges {
	if m.sc == nil {
		return nil
	}
	return m.sc.Ranges()
}

// Scale returns the ranges the model scales raw rows by (train --scale),
// nil for none. They must not be modified.
func (m *Kernel) Scale() *scale.Ranges {
	if m.sc == nil {
		return nil
	}
	return m.sc.Ranges()
}

// withScale returns m scaling raw rows by r (m itself for a nil r): a
// twin sharing m's codes whose predict methods hand rows to
// rowscale.Scaled around m. It returns an error for ranges that do not
// fit m.
func (m *Linear) withScale(r *scale.Ranges) (*Linear, error) {
	if r == nil {
		return m, nil
	}
	sc, err := rowscale.NewScaled(m, r)
	if err != nil {
		return nil, err
	}
	c := m.shallowClone()
	c.sc = sc
	return c, nil
}

// unscaled returns the model a scaled m wraps: m's codes without the
// scaling, which predicts the scaled rows.
func (m *Linear) unscaled() *Linear { return m.sc.Inner().(*Linear) }

// shallowClone returns a Linear sharing every field of m but its pool
// (whose New it shares) and sc. TestShallowClones checks, by reflection,
// that no field is missed.
func (m *Linear) shallowClone() *Linear {
	c := &Linear{
		bits: m.bits, solver: m.solver, labels: m.labels, nf: m.nf, nrW: m.nrW,
		bias: m.bias, scale: m.scale, q8: m.q8, qf: m.qf, biasW: m.biasW,
		sourceCRC: m.sourceCRC, created: m.created, probA: m.probA, probB: m.probB,
	}
	c.pool.New = m.pool.New
	return c
}

// withScale is Linear.withScale for a kernel model.
func (m *Kernel) withScale(r *scale.Ranges) (*Kernel, error) {
	if r == nil {
		return m, nil
	}
	sc, err := rowscale.NewScaled(m, r)
	if err != nil {
		return nil, err
	}
	c := m.shallowClone()
	c.sc = sc
	return c, nil
}

// unscaled is Linear.unscaled for a kernel model.
func (m *Kernel) unscaled() *Kernel { return m.sc.Inner().(*Kernel) }

// shallowClone is Linear.shallowClone for a kernel model.
func (m *Kernel) shallowClone() *Kernel {
	c := &Kernel{
		bits: m.bits, svmType: m.svmType, kernel: m.kernel, nf: m.nf, labels: m.labels,
		numSV: m.numSV, l: m.l, start: m.start, fa: m.fa, fo: m.fo, dense: m.dense,
		col8: m.col8, col16: m.col16, colStart: m.colStart, colRow: m.colRow,
		colR8: m.colR8, colR16: m.colR16, maxCode: m.maxCode, coefScale: m.coefScale,
		coef: m.coef, rho: m.rho, probA: m.probA, probB: m.probB, ss: m.ss, g: m.g,
		summary: m.summary, sourceCRC: m.sourceCRC, created: m.created,
		scratch: m.scratch, blk: m.blk,
	}
	c.pool.New = m.pool.New
	return c
}
