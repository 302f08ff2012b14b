package core

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// CrossValidateKernel runs folds-fold cross-validation as svm-train's -v
// does and returns the prediction of every row of ds, in ds's order, from
// a model trained on the other folds. For C-SVC and ν-SVC the folds are stratified
// as LIBSVM's svm_cross_validation makes them: each class's rows are
// shuffled and dealt out in nearly equal parts to every fold, so each fold
// keeps the class proportions. For ε-SVR and one-class the shuffled rows
// are cut into nearly equal parts. Shuffles come from p.Seed. An automatic
// Gamma is resolved against ds (1/ds.NumFeatures()), not against a fold,
// as svm-train resolves it before splitting. With p.Probability, a C-SVC
// row's prediction is the label of highest probability (svm-predict -b 1's
// choice), and every fold fits its own probability estimates.
//
// More folds than rows run leave-one-out (folds = ds.Len()), whose folds
// are not stratified, as in svm-train.
//
// Errors: ErrParams wrapped when folds < 2, ds has fewer than two rows or
// p is invalid; Train's errors wrapped with the fold (ErrLabels when a fold's
// training part has a single class).
func CrossValidateKernel(ds *data.Dataset, p KernelParams, folds int) ([]float64, error) {
	l := ds.Len()
	folds, err := solve.FoldCount(folds, l)
	if err != nil {
		return nil, err
	}
	p.Kernel = p.ResolvedKernel(ds.NumFeatures())
	t, err := newKernelTrainer(p, l, ds.NumFeatures(), kernelWorkerCount(&p), l, wantsDenseView(ds))
	if err != nil {
		return nil, err
	}
	if p.SVMType == NuSVC {
		// svm-train checks ν on all rows, then trains the folds whatever
		// their counts.
		if err := nuFeasibleOn(ds, p.Nu); err != nil {
			return nil, err
		}
		t.nuUnchecked = true
	}
	perm, foldStart, err := kernelFolds(ds, p, folds)
	if err != nil {
		return nil, err
	}

	var train *data.Dataset
	if ds.IsDense() {
		train = data.NewDense(l, ds.NumFeatures())
	} else {
		train = data.NewSparse(l, ds.Nonzeros(), 0)
	}
	pred := make([]float64, l)
	var prob []float64
	for f := range folds {
		begin, end := foldStart[f], foldStart[f+1]
		train.Reset()
		for _, i := range perm[:begin] {
			solve.AppendRow(train, ds, int(i))
		}
		for _, i := range perm[end:] {
			solve.AppendRow(train, ds, int(i))
		}
		m, _, err := t.Train(train, nil)
		if err != nil {
			return nil, fmt.Errorf("core: cross validation fold %d of %d: %w", f+1, folds, err)
		}
		withProb := m.SVMType.IsSVC() && m.HasProbability()
		if withProb {
			prob = make([]float64, len(m.Labels))
		}
		for _, i := range perm[begin:end] {
			if !withProb {
				pred[i] = predictRow(m, ds, int(i))
				continue
			}
			if ds.IsDense() {
				m.ProbabilityDense(prob, ds.DenseRow(int(i)))
			} else {
				idx, val := ds.SparseRow(int(i))
				m.ProbabilitySparse(prob, idx, val)
			}
			best := 0
			for c, v := range prob {
				if v > prob[best] {
					best = c
				}
			}
			pred[i] = float64(m.Labels[best])
		}
	}
	return pred, nil
}

// kernelFolds returns the rows in fold order and where each fold starts
// (folds+1 offsets): fold f is perm[foldStart[f]:foldStart[f+1]].
func kernelFolds(ds *data.Dataset, p KernelParams, folds int) (perm []int32, foldStart []int, err error) {
	r := solve.NewRNG(p.Seed)
	return kernelFoldsFrom(ds, p, folds, r.Intn)
}

// libsvmFolds is kernelFolds with svm-train -v's random numbers: glibc's
// rand() from its default seed (svm-train never seeds it), rand() % n for
// a number below n. With them the folds are svm-train's, row for row.
func libsvmFolds(ds *data.Dataset, p KernelParams, folds int) (perm []int32, foldStart []int, err error) {
	var g solve.GlibcRand
	g.Seed(1)
	return kernelFoldsFrom(ds, p, folds, func(n int) int { return int(g.Next()) % n })
}

// kernelFoldsFrom is kernelFolds drawing the shuffles' numbers from intn
// (a number in [0, n)).
func kernelFoldsFrom(ds *data.Dataset, p KernelParams, folds int, intn func(n int) int) (perm []int32, foldStart []int, err error) {
	l := ds.Len()
	shuffle := func(s []int32) {
		for i := range s {
			j := i + intn(len(s)-i)
			s[i], s[j] = s[j], s[i]
		}
	}
	perm = make([]int32, l)
	foldStart = make([]int, folds+1)
	// svm_cross_validation stratifies classifiers' folds only when there
	// are fewer folds than rows.
	if !p.SVMType.IsSVC() || folds >= l {
		for i := range perm {
			perm[i] = int32(i)
		}
		shuffle(perm)
		for f := range foldStart {
			foldStart[f] = f * l / folds
		}
		return perm, foldStart, nil
	}

	labels, err := solve.GroupClasses(ds)
	if err != nil {
		return nil, nil, err
	}
	// index: the rows grouped by class (Labels order), each class shuffled.
	nr := len(labels)
	start := make([]int, nr+1)
	cls := make([]int, l)
	for i, v := range ds.Labels() {
		c := 0
		for float64(labels[c]) != v {
			c++
		}
		cls[i] = c
		start[c+1]++
	}
	for c := range nr {
		start[c+1] += start[c]
	}
	index := make([]int32, l)
	next := append([]int(nil), start[:nr]...)
	for i, c := range cls {
		index[next[c]] = int32(i)
		next[c]++
	}
	for c := range nr {
		shuffle(index[start[c]:start[c+1]])
	}
	// Fold f takes part f of every class: count_c·f/folds up to
	// count_c·(f+1)/folds of that class's shuffled rows.
	for f := range folds {
		for c := range nr {
			n := start[c+1] - start[c]
			foldStart[f+1] += (f+1)*n/folds - f*n/folds
		}
		foldStart[f+1] += foldStart[f]
	}
	fill := append([]int(nil), foldStart[:folds]...)
	for c := range nr {
		n := start[c+1] - start[c]
		for f := range folds {
			for _, i := range index[start[c]+f*n/folds : start[c]+(f+1)*n/folds] {
				perm[fill[f]] = i
				fill[f]++
			}
		}
	}
	return perm, foldStart, nil
}
