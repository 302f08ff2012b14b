package cgen

import (
	"errors"
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/scale"
	"github.com/libsvmgo/libsvmgo/core/simd"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// ErrNotGeneratable is wrapped by Generate's errors for a model the
// generated C cannot reproduce: a kind without a generator, or a model
// beyond the integer path's limits.
var ErrNotGeneratable = errors.New("cgen: model not generatable")

// form is a model lowered to what the C templates print: the kinds meet
// here, and the templates know only a linear and a kernel shape, each
// float or quantized.
type form struct {
	nf       int
	task     core.Task
	labels   []int32 // classification only
	numDec   int
	kind     string
	bits     int       // 0: float
	scaleF   []float64 // the row's scaling x' = float32(o + f·x), nil for none
	scaleO   []float64
	folded   bool // a float linear model's scaling, folded into w
	lin      *linForm
	ker      *kerForm
	settings string // the training options, for the provenance comment
}

// linForm is a linear model: dec_k = [s_k·] Σ_j x_j·w_jk + bias·bw_k.
type linForm struct {
	nrW  int
	w    []float32 // float: feature-major, w[j*nrW+k]
	q    []int32   // quantized codes, same layout
	s    []float32 // quantized: one scale per function
	bias float64   // < 0: no bias term
	bw   []float32
}

// kerForm is a kernel model: LIBSVM's support vectors, sv_coef, ρ.
type kerForm struct {
	kernel core.Kernel
	l      int
	start  []int // C-SVC: class c's support vectors are start[c]..start[c+1]−1
	rho    []float64
	coef   []float64 // float: LIBSVM's sv_coef, coef[k*l+i]
	sv     []float32 // float: dense support vectors, sv[i*nf+j]
	ss     []float64 // float RBF: ‖sv_i‖² as the library computes it
	// quantized: codes u_ij (sv'_ij = o_j + a_j·u_ij, o_j = 0 when fo is
	// nil), per-feature a_j, coefficient codes p_ki with row scales σ_k.
	q  []int32
	fa []float32
	fo []float64
	p  []int32
	cs []float32
}

// lower turns m into its form, reaching each kind by its exported
// accessors, as core/textmodel does.
func lower(m core.Model) (*form, error) {
	info := m.Info()
	f := &form{nf: info.NumFeatures, task: info.Task, numDec: info.NumDecisionValues, kind: info.Kind, bits: info.Bits}
	if info.Task == core.TaskClassification {
		f.labels = append([]int32(nil), info.Labels...)
	}
	var err error
	if lm, ok := m.(*linear.LinearModel); ok {
		err = f.lowerLinear(lm)
	} else if km, ok := m.(*core.KernelModel); ok {
		err = f.lowerKernel(km)
	} else if ql, ok := m.(*quantize.Linear); ok {
		err = f.lowerQLinear(ql)
	} else if qk, ok := m.(*quantize.Kernel); ok {
		err = f.lowerQKernel(qk)
	} else {
		err = fmt.Errorf("%w: a %s model has no C generator", ErrNotGeneratable, info.Kind)
	}
	return f, err
}

// setScale records r's affine map of each feature, applied to the row.
func (f *form) setScale(r *scale.Ranges) {
	if r == nil {
		return
	}
	f.scaleF, f.scaleO = make([]float64, f.nf), make([]float64, f.nf)
	for j := range f.nf {
		f.scaleF[j], f.scaleO[j] = r.Affine(j)
	}
}

func (f *form) lowerLinear(m *linear.LinearModel) error {
	nrW, n := m.NrW(), m.NumFeatures
	lf := &linForm{nrW: nrW, w: m.W[:n*nrW], bias: m.Bias}
	if m.Bias >= 0 {
		lf.bw = m.W[n*nrW : (n+1)*nrW]
	}
	if m.Scale != nil {
		// Folded as core's LinearModel.foldScale folds: w_jk·s_j rounded to
		// float32, the constant b_k + Σ_j w_jk·o_j summed in float64 in
		// feature order and rounded to float32, with bias 1.
		w := make([]float32, n*nrW)
		c := make([]float64, nrW)
		for k := range c {
			if m.Bias >= 0 {
				c[k] = m.Bias * float64(lf.bw[k])
			}
		}
		for j := range n {
			s, o := m.Scale.Affine(j)
			for k := range nrW {
				wj := float64(m.W[j*nrW+k])
				w[j*nrW+k] = float32(wj * s)
				c[k] += wj * o
			}
		}
		lf.w, lf.bias, lf.bw = w, 1, make([]float32, nrW)
		for k := range c {
			lf.bw[k] = float32(c[k])
		}
		f.folded = true
	}
	f.lin = lf
	f.settings = fmt.Sprintf("%s, C=%g, eps=%g, bias=%g", m.Formulation(), m.Params.C, m.Params.Eps, m.Bias)
	return nil
}

func (f *form) lowerQLinear(m *quantize.Linear) error {
	nrW, n := m.NumDecisionValues(), m.NumFeatures()
	lf := &linForm{nrW: nrW, s: m.Scales(), bias: m.Bias(), bw: m.BiasWeights(), q: make([]int32, n*nrW)}
	for j := range n {
		for k := range nrW {
			// Weight is s_k·q_jk exactly: the quotient is the code.
			c := int32(math.Round(m.Weight(j, k) / float64(lf.s[k])))
			if lf.s[k] == 0 {
				c = 0
			}
			if float64(lf.s[k])*float64(c) != m.Weight(j, k) {
				return fmt.Errorf("cgen: quantized weight (%d, %d) is not its scale times a code", j, k)
			}
			lf.q[j*nrW+k] = c
		}
	}
	f.setScale(m.Scale())
	f.lin = lf
	f.settings = fmt.Sprintf("%s, int%d from the float model of CRC-32C %08x", m.Solver(), m.Bits(), m.SourceCRC())
	return nil
}

// kernelStart returns the first support vector of each class (C-SVC) and
// the end, from the counts per class; nil for the other tasks.
func kernelStart(task core.Task, numSV []int32) []int {
	if task != core.TaskClassification {
		return nil
	}
	start := make([]int, len(numSV)+1)
	for c, n := range numSV {
		start[c+1] = start[c] + int(n)
	}
	return start
}

func (f *form) lowerKernel(m *core.KernelModel) error {
	l, nf := m.SV.Len(), m.NumFeatures
	kf := &kerForm{kernel: m.Kernel, l: l, start: kernelStart(f.task, m.NumSV), rho: m.Rho, coef: m.Coef,
		sv: make([]float32, l*nf)}
	if m.Kernel.Type == core.RBFKernel {
		kf.ss = make([]float64, l)
	}
	for i := range l {
		row := kf.sv[i*nf : (i+1)*nf]
		if m.SV.IsDense() {
			x := m.SV.DenseRow(i)
			copy(row, x)
			if kf.ss != nil {
				kf.ss[i] = simd.Dot64x4(x, x) // core's KernelModel.Init
			}
			continue
		}
		idx, val := m.SV.SparseRow(i)
		for p, j := range idx {
			if int(j) < nf {
				row[j] = val[p]
			}
		}
		if kf.ss != nil {
			kf.ss[i] = simd.Dot64x4(val, val)
		}
	}
	f.setScale(m.Scale)
	f.ker = kf
	f.settings = fmt.Sprintf("%s, C=%g, nu=%g, p=%g, eps=%g", m.Formulation(), m.Params.C, m.Params.Nu, m.Params.P, m.Params.Eps)
	return nil
}

// maxQKernelFeatures bounds the features of a quantized kernel model: up to
// it the library quantizes every row with Q = 2^24 steps (the sums
// n·Q·max|code| stay below 2^62), which the generated code assumes.
const maxQKernelFeatures = 1 << 22

func (f *form) lowerQKernel(m *quantize.Kernel) error {
	l, nf := m.NumSupportVectors(), m.NumFeatures()
	if nf > maxQKernelFeatures {
		return fmt.Errorf("%w: a quantized kernel model of %d features (at most %d)", ErrNotGeneratable, nf, maxQKernelFeatures)
	}
	kf := &kerForm{kernel: m.KernelFunc(), l: l, start: kernelStart(f.task, m.NumSV()), rho: m.Rho(),
		q: make([]int32, l*nf), fa: make([]float32, nf), cs: m.CoefScales()}
	dense := m.DenseLayout()
	if dense {
		kf.fo = make([]float64, nf)
	}
	for j := range nf {
		a, o := m.FeatureScale(j)
		kf.fa[j] = a
		if dense {
			kf.fo[j] = o
		}
	}
	sv := make([]float64, nf)
	for i := range l {
		m.SupportVector(sv, i)
		for j, v := range sv {
			// The code the library's sums use: q_ij in the dense layout
			// (sv' = o + a·q), the centred q_ij − z_j in the sparse one
			// (sv' = a·u); a constant feature (a = 0) adds nothing.
			a := float64(kf.fa[j])
			var u int32
			var back float64
			if dense {
				if a != 0 {
					u = int32(math.Round((v - kf.fo[j]) / a))
				}
				back = kf.fo[j] + a*float64(u)
			} else {
				if a != 0 {
					u = int32(math.Round(v / a))
				}
				back = a * float64(u)
			}
			if back != v {
				return fmt.Errorf("cgen: support vector %d feature %d decodes to %g, not %g", i, j, back, v)
			}
			kf.q[i*nf+j] = u // the C sums ‖sv'_i‖² from back, which is v
		}
	}
	rows := len(kf.cs)
	kf.p = make([]int32, rows*l)
	for k := range rows {
		s := float64(kf.cs[k])
		for i := range l {
			c := m.Coef(k, i)
			var p int32
			if s != 0 {
				p = int32(math.Round(c / s))
			}
			if s*float64(p) != c {
				return fmt.Errorf("cgen: coefficient (%d, %d) is not its scale times a code", k, i)
			}
			kf.p[k*l+i] = p
		}
	}
	f.setScale(m.Scale())
	f.ker = kf
	sum := m.Summary()
	f.settings = fmt.Sprintf("%s, %s kernel, C=%g, nu=%g, p=%g, eps=%g, int%d from the float model of CRC-32C %08x",
		m.SVMType(), kf.kernel.Type, sum.C, sum.Nu, sum.P, sum.Eps, m.Bits(), m.SourceCRC())
	return nil
}
