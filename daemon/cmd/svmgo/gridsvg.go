package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/fileio"

	"github.com/libsvmgo/libsvmgo/core"
)

// writeGridSVG writes the grid's rates as a self-contained SVG: one cell
// per point, log2 C across and log2 γ up, shaded from the worst rate
// (light) to the best (dark), each labelled with its rate, the best point
// outlined — what grid.py's contour plot shows, without gnuplot.
func writeGridSVG(path, title string, c, g gridAxis, res core.GridResult, regression bool,
	cs, gs []float64, bestC, bestG int, bestRate float64) error {
	xs := sortedOr(cs, c.on)
	ys := sortedOr(gs, g.on)
	rate := make(map[[2]float64]float64, len(res.Points))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range res.Points {
		x, y := p.Log2C, p.Log2G
		if !c.on {
			x = 0
		}
		if !g.on {
			y = 0
		}
		r := svmRate(p.Rate)
		rate[[2]float64{x, y}] = r
		lo, hi = min(lo, r), max(hi, r)
	}
	const cell, left, top, bottom = 56, 80, 60, 60
	w, h := left+cell*len(xs)+20, top+cell*len(ys)+bottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s</text>`+"\n", left, xmlEscape(title))
	what := "accuracy"
	if regression {
		what = "MSE"
	}
	bc, bg := 0.0, 0.0
	if c.on {
		bc = cs[bestC]
	}
	if g.on {
		bg = gs[bestG]
	}
	fmt.Fprintf(&b, `<text x="%d" y="40">best log2(C) = %s  log2(gamma) = %s  %s = %s</text>`+"\n",
		left, fmtAxis(c, bc), fmtAxis(g, bg), what, pyFloat(bestRate))
	for yi, y := range ys {
		row := len(ys) - 1 - yi // γ grows upwards
		for xi, x := range xs {
			r, ok := rate[[2]float64{x, y}]
			if !ok {
				continue
			}
			t := 0.5
			if hi > lo {
				t = (r - lo) / (hi - lo)
			}
			if regression {
				t = 1 - t
			}
			shade := int(235 - 190*t)
			fill := fmt.Sprintf("rgb(%d,%d,255)", shade, shade)
			px, py := left+xi*cell, top+row*cell
			stroke := `stroke="white"`
			if x == bc && y == bg {
				stroke = `stroke="red" stroke-width="3"`
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" %s/>`+"\n", px, py, cell, cell, fill, stroke)
			ink := "black"
			if t > 0.6 {
				ink = "white"
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="%s">%s</text>`+"\n",
				px+cell/2, py+cell/2+4, ink, strconv6(r))
		}
	}
	for xi, x := range xs {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+xi*cell+cell/2, top+len(ys)*cell+16, fmtAxis(c, x))
	}
	for yi, y := range ys {
		row := len(ys) - 1 - yi
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, top+row*cell+cell/2+4, fmtAxis(g, y))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">log2(C)</text>`+"\n", left+len(xs)*cell/2, top+len(ys)*cell+40)
	fmt.Fprintf(&b, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">log2(gamma)</text>`+"\n",
		top+len(ys)*cell/2, top+len(ys)*cell/2)
	b.WriteString("</svg>\n")
	return fileio.WriteFile(path, []byte(b.String()))
}

// sortedOr returns vals sorted ascending, or {0} for an axis not gridded.
func sortedOr(vals []float64, on bool) []float64 {
	if !on {
		return []float64{0}
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	return s
}

// fmtAxis labels a log2 value of axis a ("-" when a is not gridded).
func fmtAxis(a gridAxis, v float64) string {
	if !a.on {
		return "-"
	}
	return a.format(v)
}

// strconv6 prints a rate with four significant digits for a cell.
func strconv6(v float64) string { return fmt.Sprintf("%.4g", v) }

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
