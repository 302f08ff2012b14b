package core

// RBF kernel columns for the SMO trainer: the dot products of a column
// first, then their exponentials in one batch (kexp.go), a chunk at a
// time so the arguments stay in a small stack buffer.

// rbfChunk is how many kernel values columnRBF computes per batch of
// exponentials.
const rbfChunk = 256

// columnRBF is column for the RBF kernel: dst[t] = float32(K(x_i,
// x_rows[t])), each value bit for bit float32(r.eval(i, rows[t])).
func (r *kernelRows) columnRBF(dst []float32, i int, rows []int32) {
	var arg [rbfChunk]float64
	g := -r.k.Gamma
	sq := r.sqnorm
	sqi := sq[i]
	dense := r.ds.IsDense()
	var x []float32
	w := r.scratch
	var xi []int32
	if dense {
		x = r.ds.DenseRow(i)
		if len(w) >= len(x) {
			// x_i widened once: each dot then converts one operand, not two.
			w = w[:len(x)]
			for k, v := range x {
				w[k] = float64(v)
			}
		} else {
			w = nil
		}
	} else {
		var xv []float32
		xi, xv = r.ds.SparseRow(i)
		for a, j := range xi {
			w[j] = float64(xv[a])
		}
	}
	for lo := 0; lo < len(rows); lo += rbfChunk {
		blk := rows[lo:min(lo+rbfChunk, len(rows))]
		a := arg[:len(blk)]
		if dense && w != nil {
			rbfArgsDense(a, w, r.ds.x, blk, sq, sqi, g)
			expBatch32(dst[lo:lo+len(blk)], a)
			continue
		}
		for t, j := range blk {
			var dot float64
			switch {
			case dense:
				dot = dotDense32(x, r.ds.DenseRow(int(j)))
			default:
				yi, yv := r.ds.SparseRow(int(j))
				dot = dotGather32(w, yi, yv)
			}
			a[t] = g * rbfDist(sqi, sq[j], dot)
		}
		expBatch32(dst[lo:lo+len(blk)], a)
	}
	// The scratch is all zeros between calls (the sparse scatter needs it).
	if dense {
		clear(w)
	} else {
		for _, j := range xi {
			w[j] = 0
		}
	}
}

// rbfDist returns ‖u−v‖² = u'u + v'v − 2u'v, clamped at 0 as Kernel.rbf
// clamps it.
func rbfDist(uu, vv, uv float64) float64 {
	d := uu + vv - 2*uv
	if d < 0 {
		return 0
	}
	return d
}

// rbfTrain is the RBF kernel value of the trainer, from the same
// arguments as Kernel.rbf: exp through expFast, as columnRBF computes it.
func rbfTrain(gamma, uu, vv, uv float64) float64 {
	return expFast(-gamma * rbfDist(uu, vv, uv))
}

// rbfArgsDense sets a[t] = g·‖x − x_{rows[t]}‖² for dense rows of len(x)
// features stored back to back in data, x widened to float64, sq the rows'
// squared norms and sqi x's: columnRBF's arguments of exp, the dot product
// summed as dot32 sums it (bit for bit), written out here because the
// compiler inlines neither dot32 nor dotWide32.
func rbfArgsDense(a, x []float64, data []float32, rows []int32, sq []float64, sqi, g float64) {
	n := len(x)
	a = a[:len(rows)]
	for t, j := range rows {
		o := int(j) * n
		y := data[o : o+n : o+n]
		y = y[:len(x)] // equal lengths let the compiler drop bounds checks
		var s0, s1, s2, s3 float64
		k := 0
		for ; k+4 <= len(x); k += 4 {
			s0 += x[k] * float64(y[k])
			s1 += x[k+1] * float64(y[k+1])
			s2 += x[k+2] * float64(y[k+2])
			s3 += x[k+3] * float64(y[k+3])
		}
		for ; k < len(x); k++ {
			s0 += x[k] * float64(y[k])
		}
		d := sqi + sq[j] - 2*((s0+s1)+(s2+s3))
		if d < 0 {
			d = 0
		}
		a[t] = g * d
	}
}
