package simd

import "sync"

// Workspace is the work space of one batch of blocked products: the packed
// panels of B that Pack writes, one block of C that Gemm writes, and a
// float64 row for the caller's epilogue (a row's decision values). The
// linear batch predictors, float and quantized, share it through
// GetWorkspace and PutWorkspace instead of each keeping a pool: a pooled
// Workspace keeps its slices grown to the largest call seen, so a warm
// batch call allocates nothing.
type Workspace struct {
	Panels []float32 // packed B, PackedLen(n, k) values
	C      []float32 // one block of C = A·Bᵀ
	Row    []float64 // one row's values in float64
}

var workspaces = sync.Pool{New: func() any { return new(Workspace) }}

// GetWorkspace returns a Workspace from the pool with len(Panels) = panels,
// len(C) = c and len(Row) = row. The contents are whatever the last user
// left: the caller writes before it reads. Return it with PutWorkspace when
// the call is done; it must not be used after that.
func GetWorkspace(panels, c, row int) *Workspace {
	w := workspaces.Get().(*Workspace)
	w.Panels = grow(w.Panels, panels)
	w.C = grow(w.C, c)
	w.Row = grow(w.Row, row)
	return w
}

// PutWorkspace returns w to the pool.
func PutWorkspace(w *Workspace) { workspaces.Put(w) }

// grow returns b resliced to n values, or a new slice when b holds fewer
// (the contents are not kept).
func grow[T float32 | float64](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
