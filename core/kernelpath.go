package core

// Warm starts along a regularization path: the same rows trained at C and
// then at C' = r·C (the C path of a grid search).
//
// The dual of C-SVC and ε-SVR, min ½ αᵀQα + pᵀα over 0 ≤ α_t ≤ C_t,
// yᵀα = 0, changes with C only through the box. Scaling a solution by
// r = C'/C keeps it feasible (yᵀ(rα) = 0, 0 ≤ rα_t ≤ C'_t) and keeps each
// variable's status (free, or at 0, or at its bound), which is why it is
// the seed the path literature uses (Hastie, Rosset, Tibshirani & Zhu,
// "The Entire Regularization Path for the Support Vector Machine", JMLR 5,
// 2004: α grows linearly in C between the path's breakpoints). Its
// gradient follows without a kernel evaluation, Q(rα) = r(G − p):
//
//	G' = r·G + (1 − r)·p,   Gbar' = r·Gbar,
//
// so the next solve starts from the stored gradient (KernelGradient) at
// no cost, where rebuilding it from α costs a kernel column per support
// vector.

// PathStart returns the warm start for training the rows d was trained on
// (ds, unchanged) with the parameters p, which differ from d's run only
// in C, from d scaled by r = p.C / (the C of d's run): α scaled into the
// new box (variables at their bound put on the new bound exactly), and,
// when d carries a gradient for every row of ds, that gradient carried
// over as above, so that Train uses it. For one-class SVM, which has no
// C, it returns d. It panics if d does not cover ds's rows.
func (d *KernelDual) PathStart(ds *Dataset, p KernelParams, r float64) *KernelDual {
	return d.pathStart(ds, p, r, nil)
}

// pathStart is PathStart with the hash of ds's rows (hashRows' second
// result) given, when hAll is not nil: a C path hashes its rows once.
func (d *KernelDual) pathStart(ds *Dataset, p KernelParams, r float64, hAll *uint64) *KernelDual {
	if d == nil || d.SVMType == OneClass {
		return d
	}
	l := ds.Len()
	if len(d.Alpha) == 0 || len(d.Alpha[0]) != l {
		panic("core: KernelDual.PathStart: the dual does not cover the data set's rows")
	}
	wt := rowWeights(ds)
	out := &KernelDual{SVMType: d.SVMType, Pairs: d.Pairs, Alpha: make([][]float64, len(d.Alpha))}
	g := d.Gradient
	if g != nil && (g.Rows != l || len(g.Box) != len(d.Alpha) || len(g.G) != len(d.Alpha) || len(g.Gbar) != len(d.Alpha)) {
		g = nil
	}
	var ng *KernelGradient
	if g != nil {
		ng = &KernelGradient{Kernel: g.Kernel, Box: make([][2]float64, len(g.Box)), Epsilon: g.Epsilon, Rows: l,
			G: make([][]float64, len(g.G)), Gbar: make([][]float64, len(g.Gbar)), First: g.First}
	}
	for k, a := range d.Alpha {
		var box, old [2]float64 // new and old bounds of each side (at weight 1)
		if d.SVMType == CSVC {
			box = [2]float64{p.C * p.weightOf(d.Pairs[k][0]), p.C * p.weightOf(d.Pairs[k][1])}
		} else {
			box = [2]float64{p.C, p.C}
		}
		if g != nil {
			old = g.Box[k]
		}
		na := make([]float64, l)
		for i, v := range a {
			if v == 0 {
				continue
			}
			side := 0
			if d.SVMType == CSVC && int32(ds.Label(i)) != d.Pairs[k][0] {
				side = 1
			}
			if d.SVMType == EpsSVR && v < 0 {
				side = 1
			}
			mag := v
			if mag < 0 {
				mag = -mag
			}
			n := mag * r
			if g != nil && mag >= weighted(old[side], wt, i) {
				n = weighted(box[side], wt, i) // at the bound before: exactly at the new one
			}
			n = min(n, weighted(box[side], wt, i))
			if v < 0 {
				n = -n
			}
			na[i] = n
		}
		out.Alpha[k] = na
		if g == nil {
			continue
		}
		ng.Box[k] = box
		G, Gbar := make([]float64, len(g.G[k])), make([]float64, len(g.Gbar[k]))
		for t, v := range g.G[k] {
			// p_t = −1 for C-SVC; ε − z_t for ε-SVR's α (its stored half).
			pt := -1.0
			if d.SVMType == EpsSVR {
				pt = g.Epsilon - ds.Label(t)
			}
			G[t] = r*v + (1-r)*pt
		}
		for t, v := range g.Gbar[k] {
			Gbar[t] = r * v
		}
		ng.G[k], ng.Gbar[k] = G, Gbar
	}
	if ng != nil {
		if hAll == nil {
			_, h := hashRows(ds, l)
			hAll = &h
		}
		ng.Check = hashAlpha(*hAll, out.Alpha, l)
		out.Gradient = ng
	}
	return out
}
