package linear

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestL1ColumnLoops checks the column loops of -s 5 and -s 6 bit for bit
// against the plain formulas they compute (a branch on b_i > 0 instead of
// a mask; every column through its row indices), on columns that hold
// every row (read without indices) and columns that do not, from a start
// w with losses of both signs.
func TestL1ColumnLoops(t *testing.T) {
	_, ds := readTestSets(t, "heart_scale")
	var cols columns
	cols.build(ds, 1) // the bias column holds every row
	l, dim := ds.Len(), cols.cols
	y := make([]int8, l)
	for i := range y {
		y[i] = int8(ds.Label(i))
	}
	r := rand.New(rand.NewPCG(3, 4))
	w0 := make([]float64, dim)
	for j := range w0 {
		w0[j] = 0.3 * r.NormFloat64()
	}
	same := func(what string, j int, got, want float64) {
		t.Helper()
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("column %d: %s = %v, want %v", j, what, got, want)
		}
	}
	full, partial := 0, 0

	svc := newL1SVC(l, dim)
	svc.init(&cols, y, 2, 0.5, nil, 1, w0)
	glm := newGLMNET(l, dim)
	glm.init(&cols, y, 2, 0.5, nil, 1, w0)
	xTd := glm.xTd[:l]
	for i := range xTd {
		xTd[i] = r.NormFloat64()
	}
	for j := range dim {
		idx, val := cols.col(j)
		if len(idx) == l {
			full++
		} else {
			partial++
		}
		// -s 5: the derivatives and the loss, then a move of b.
		var Gloss, H, loss float64
		for q, i := range idx {
			if rw := svc.r[i]; rw.b > 0 {
				v := float64(val[q])
				c := rw.C * v
				Gloss -= c * rw.y * rw.b
				H += c * v
				loss += rw.C * rw.b * rw.b
			}
		}
		g, h, ls := svc.derivatives(idx, val)
		same("Gloss", j, g, Gloss)
		same("H", j, h, H)
		same("loss", j, ls, loss)
		dDiff := 0.7 * r.NormFloat64()
		want := make([]l1svcRow, l)
		copy(want, svc.r[:l])
		loss = 0
		for q, i := range idx {
			want[i].b += dDiff * float64(val[q]) * want[i].y
			if b := want[i].b; b > 0 {
				loss += want[i].C * b * b
			}
		}
		same("loss after", j, svc.moveBLoss(dDiff, idx, val), loss)
		for q, i := range idx {
			want[i].b += -dDiff * float64(val[q]) * want[i].y
		}
		svc.moveB(-dDiff, idx, val)
		for i := range want {
			same("b", j, svc.r[i].b, want[i].b)
		}

		// -s 6: the Hessian's diagonal and gradient, the quadratic
		// model's derivative, a move of Xd.
		hh, tt := glmnetNu, 0.0
		G := 0.25
		for q, i := range idx {
			v := float64(val[q])
			hh += v * v * glm.D[i]
			tt += v * glm.tau[i]
			G += v * glm.D[i] * xTd[i]
		}
		h, tau := glm.curvature(idx, val)
		same("Hdiag", j, h, hh)
		same("Σ x τ", j, tau, tt)
		same("G", j, glm.quadGradient(0.25, idx, val), G)
		z := r.NormFloat64()
		wantXTd := append([]float64(nil), xTd...)
		for q, i := range idx {
			wantXTd[i] += float64(val[q]) * z
		}
		glm.moveXTd(z, idx, val)
		for i := range wantXTd {
			same("xTd", j, xTd[i], wantXTd[i])
		}
	}
	if full == 0 || partial == 0 {
		t.Fatalf("%d full and %d partial columns: both paths must be tested", full, partial)
	}
	pos := 0
	for _, rw := range svc.r[:l] {
		if rw.b > 0 {
			pos++
		}
	}
	if pos == 0 || pos == l {
		t.Fatalf("%d of %d rows with b > 0: the masks must see both signs", pos, l)
	}
}
