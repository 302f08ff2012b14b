package textmodel

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// ErrNotExportable is wrapped by the errors of the writers for a model
// the text format cannot hold: one trained behind --scale (the ranges
// have no place in it: export the model of scaled rows and scale the rows
// with svm-scale), or a kind the format does not have.
var ErrNotExportable = errors.New("textmodel: not exportable")

// svmTypeNames and kernelTypeNames are LIBSVM's names, by core's values
// (which are LIBSVM's numbers).
var (
	svmTypeNames    = [...]string{"c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"}
	kernelTypeNames = [...]string{"linear", "polynomial", "rbf", "sigmoid"}
)

// WriteLIBSVMModel writes m as a LIBSVM text model file, in svm_save_model's
// layout, which svm-predict (and ReadLIBSVMModel) reads with the same
// predictions: the coefficients and ρ at 17 significant digits, the float32
// support vector values exactly (9 digits). Errors: ErrNotExportable for a
// scaled model, and w's.
func WriteLIBSVMModel(w io.Writer, m *core.KernelModel) error {
	if m.Scale != nil {
		return fmt.Errorf("%w: the model scales its input (--scale); LIBSVM's model files have no place for the ranges", ErrNotExportable)
	}
	if int(m.SVMType) >= len(svmTypeNames) || int(m.Kernel.Type) >= len(kernelTypeNames) {
		return fmt.Errorf("%w: svm type %d, kernel %d", ErrNotExportable, m.SVMType, m.Kernel.Type)
	}
	b := bufio.NewWriter(w)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }
	fmt.Fprintf(b, "svm_type %s\nkernel_type %s\n", svmTypeNames[m.SVMType], kernelTypeNames[m.Kernel.Type])
	if m.Kernel.Type == core.PolyKernel {
		fmt.Fprintf(b, "degree %d\n", m.Kernel.Degree)
	}
	if m.Kernel.Type != core.LinearKernel {
		fmt.Fprintf(b, "gamma %s\n", g(m.Kernel.Gamma))
	}
	if m.Kernel.Type == core.PolyKernel || m.Kernel.Type == core.SigmoidKernel {
		fmt.Fprintf(b, "coef0 %s\n", g(m.Kernel.Coef0))
	}
	nrClass := 2
	if m.SVMType.IsSVC() {
		nrClass = len(m.Labels)
	}
	l := m.SV.Len()
	fmt.Fprintf(b, "nr_class %d\ntotal_sv %d\nrho", nrClass, l)
	for _, r := range m.Rho {
		fmt.Fprintf(b, " %s", g(r))
	}
	b.WriteByte('\n')
	if m.SVMType.IsSVC() {
		b.WriteString("label")
		for _, c := range m.Labels {
			fmt.Fprintf(b, " %d", c)
		}
		b.WriteByte('\n')
	}
	if len(m.ProbA) > 0 {
		b.WriteString("probA")
		for _, v := range m.ProbA {
			fmt.Fprintf(b, " %s", g(v))
		}
		b.WriteByte('\n')
	}
	if len(m.ProbB) > 0 {
		b.WriteString("probB")
		for _, v := range m.ProbB {
			fmt.Fprintf(b, " %s", g(v))
		}
		b.WriteByte('\n')
	}
	if m.SVMType.IsSVC() {
		b.WriteString("nr_sv")
		for _, n := range m.NumSV {
			fmt.Fprintf(b, " %d", n)
		}
		b.WriteByte('\n')
	}
	b.WriteString("SV\n")
	rows := len(m.Coef) / max(l, 1)
	for i := range l {
		for k := range rows {
			fmt.Fprintf(b, "%s ", g(m.Coef[k*l+i]))
		}
		if m.SV.IsDense() {
			for j, v := range m.SV.DenseRow(i) {
				if v != 0 {
					fmt.Fprintf(b, "%d:%s ", j+1, strconv.FormatFloat(float64(v), 'g', -1, 32))
				}
			}
		} else {
			idx, val := m.SV.SparseRow(i)
			for q, j := range idx {
				fmt.Fprintf(b, "%d:%s ", j+1, strconv.FormatFloat(float64(val[q]), 'g', -1, 32))
			}
		}
		b.WriteByte('\n')
	}
	return b.Flush()
}

// WriteLIBLINEARModel writes m as a LIBLINEAR text model file, in
// save_model's layout, which liblinear-predict (and ReadLIBLINEARModel)
// reads with the same labels: the weights at 17 significant digits (their
// float32 values exactly). A multinomial model (-s 40) is written as
// L2R_LR with one weight vector per class, whose arg-max is its prediction
// (two classes: the one vector w₁ − w₂, positive for the first label);
// liblinear-predict -b 1 then gives LIBLINEAR's normalized sigmoids, not
// the softmax. Platt parameters (-b 1 of an SVC model) have no place in
// the format and are left out. Errors: ErrNotExportable for a scaled
// model, and w's.
func WriteLIBLINEARModel(w io.Writer, m *linear.LinearModel) error {
	if m.Scale != nil {
		return fmt.Errorf("%w: the model scales its input (--scale); LIBLINEAR's model files have no place for the ranges", ErrNotExportable)
	}
	solver := m.Solver
	nrW, rows := m.NrW(), len(m.W)/max(m.NrW(), 1)
	col := func(j, k int) float64 { return float64(m.W[j*nrW+k]) }
	outW := nrW
	if solver.IsMultinomial() {
		solver = linear.L2Logistic
		if nrW == 2 {
			col = func(j, _ int) float64 { return float64(m.W[j*2]) - float64(m.W[j*2+1]) }
			outW = 1
		}
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "solver_type %s\n", solver)
	if m.IsRegression() {
		b.WriteString("nr_class 2\n")
	} else {
		fmt.Fprintf(b, "nr_class %d\nlabel", len(m.Labels))
		for _, c := range m.Labels {
			fmt.Fprintf(b, " %d", c)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "nr_feature %d\nbias %s\nw\n", m.NumFeatures, strconv.FormatFloat(m.Bias, 'g', 17, 64))
	for j := range rows {
		for k := range outW {
			b.WriteString(strconv.FormatFloat(col(j, k), 'g', 17, 64))
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return b.Flush()
}

// Format names the text format m exports to: "libsvm" for a float kernel
// model, "liblinear" for a float linear one, "" for a kind neither tool
// reads (the quantized kinds: export their float model).
func Format(m core.Model) string {
	switch m.Info().Kind {
	case core.KindKernel:
		return "libsvm"
	case core.KindLinear:
		return "liblinear"
	}
	return ""
}

// Write writes m as a text model in the format Format names, the one
// exporter of every kind the text formats hold. Errors: ErrNotExportable
// for a kind neither format holds, and WriteLIBSVMModel's or
// WriteLIBLINEARModel's.
func Write(w io.Writer, m core.Model) error {
	if km, ok := m.(*core.KernelModel); ok {
		return WriteLIBSVMModel(w, km)
	}
	if lm, ok := m.(*linear.LinearModel); ok {
		return WriteLIBLINEARModel(w, lm)
	}
	return fmt.Errorf("%w: a %s model has no LIBSVM or LIBLINEAR text form", ErrNotExportable, m.Info().Kind)
}
