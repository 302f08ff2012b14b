package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// exportLIBSVM writes the svmgo kernel model file in as a LIBSVM text model
// (svm_save_model's format) at out, so that svm-predict can predict with
// the very model svmgo trained: the predict bench then compares the two
// tools on the same support vectors. Coefficients and ρ are written with
// 17 significant digits, the float32 support vector values with 9: both
// read back exactly.
func exportLIBSVM(in, out string) error {
	m, err := modelfile.ReadFileAs[*core.KernelModel](in)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }
	fmt.Fprintf(w, "svm_type %s\nkernel_type %s\n", m.SVMType, m.Kernel.Type) // LIBSVM's names
	k := m.Kernel
	if k.Type == core.PolyKernel {
		fmt.Fprintf(w, "degree %d\n", k.Degree)
	}
	if k.Type != core.LinearKernel {
		fmt.Fprintf(w, "gamma %s\n", g(k.Gamma))
	}
	if k.Type == core.PolyKernel || k.Type == core.SigmoidKernel {
		fmt.Fprintf(w, "coef0 %s\n", g(k.Coef0))
	}
	l := m.SV.Len()
	fmt.Fprintf(w, "nr_class %d\ntotal_sv %d\nrho", m.NumClasses(), l)
	for _, r := range m.Rho {
		fmt.Fprintf(w, " %s", g(r))
	}
	fmt.Fprintln(w)
	if m.SVMType.IsSVC() {
		fmt.Fprint(w, "label")
		for _, c := range m.Labels {
			fmt.Fprintf(w, " %d", c)
		}
		fmt.Fprintln(w)
	}
	for name, v := range map[string][]float64{"probA": m.ProbA, "probB": m.ProbB} {
		if len(v) > 0 {
			fmt.Fprint(w, name)
			for _, x := range v {
				fmt.Fprintf(w, " %s", g(x))
			}
			fmt.Fprintln(w)
		}
	}
	if m.SVMType.IsSVC() {
		fmt.Fprint(w, "nr_sv")
		for _, n := range m.NumSV {
			fmt.Fprintf(w, " %d", n)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "SV")
	rowsCoef := len(m.Coef) / max(l, 1)
	for i := range l {
		for r := range rowsCoef {
			fmt.Fprintf(w, "%s ", g(m.Coef[r*l+i]))
		}
		if m.SV.IsDense() {
			for j, v := range m.SV.DenseRow(i) {
				if v != 0 {
					fmt.Fprintf(w, "%d:%s ", j+1, strconv.FormatFloat(float64(v), 'g', 9, 32))
				}
			}
		} else {
			idx, val := m.SV.SparseRow(i)
			for p, j := range idx {
				fmt.Fprintf(w, "%d:%s ", j+1, strconv.FormatFloat(float64(val[p]), 'g', 9, 32))
			}
		}
		fmt.Fprintln(w)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
