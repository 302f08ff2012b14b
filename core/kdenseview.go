package core

import "github.com/libsvmgo/libsvmgo/core/data"

// The dense copy of sparse rows wider than denseViewMaxFeatures, made when
// a Train first needs it.
//
// NewSparseTrainer keeps a dense copy for wide rows when its nonzero
// capacity says they are mostly nonzero (Fashion-MNIST's 784 features in
// the daemon's sparse store: the sparse kernels cost its cold solves 6
// times the CPU). Reserved at construction for the capacity's rows, the
// copy was reserved for any data when the capacity's nonzeros were every
// cell (the daemon with --store.nonzeros unset and up to 250 features:
// capacity × min(features, 100) nonzeros is at least 40% of the cells),
// and counted by the memory check: a daemon whose store and cache were
// accepted before could be refused at start for a copy its rows, sparse in
// fact, never read. So the copy is made by the first Train whose rows are
// mostly nonzero (data.PreferDense of the rows it holds), for those rows
// and a quarter more (at most the capacity), checked then (CheckMemory),
// and made again larger when a later Train holds more rows. A Train whose
// copy the machine cannot hold reads the rows through the sparse kernels,
// as one whose rows are sparse does.

// denseView returns what the kernels read the sparse ds through: t.dense
// holding ds's rows, as wide as ds, when ds is sparse, mostly nonzero and
// t keeps a copy (made or made larger here when t's is lazy); nil
// otherwise (the kernels read ds). Only the kernels read the copy; labels,
// weights, the support vectors and the warm start's hash come from ds.
func (t *KernelTrainer) denseView(ds *data.Dataset) *data.Dataset {
	l := ds.Len()
	if (t.dense == nil && !t.denseLazy) || ds.IsDense() || !data.PreferDense(l, ds.NumFeatures(), ds.Nonzeros()) {
		return nil
	}
	if t.dense == nil || t.dense.CapRows() < l {
		if !t.denseLazy {
			return nil // NewKernelTrainer sized it for every row: not reached
		}
		rows := min(t.capRows, l+l/4)
		if CheckMemory("kernel trainer's dense copy", denseViewBytes(rows, t.capFeatures)) != nil {
			return nil
		}
		t.dense = nil // the smaller copy is garbage before the larger is made
		t.dense = data.NewDense(rows, t.capFeatures)
	}
	t.dense.ResetDenseFrom(ds)
	return t.dense
}

// DenseCopyBytes returns the bytes of the dense copy of sparse rows t's
// kernels read such rows through (NewSparseTrainer): held, what it takes
// now, and most, what it may take (its capacity's rows); 0, 0 for a
// trainer that keeps none. KernelTrainerBytes counts a copy of rows of up
// to 64 features, made by NewKernelTrainer; a wider one is made by the
// first Train whose rows are mostly nonzero, for the rows it holds, and
// is not counted there.
func (t *KernelTrainer) DenseCopyBytes() (held, most int64) {
	if t.dense != nil {
		held = denseViewBytes(t.dense.CapRows(), t.capFeatures)
	}
	if t.dense != nil || t.denseLazy {
		most = denseViewBytes(t.capRows, t.capFeatures)
	}
	return held, most
}
