package simd

// DotStrided sets dst[r] = Dot(x, y[r·ldy : r·ldy+len(x)]) for
// r < len(dst), each the bits Dot returns: one vector against rows of a
// matrix ldy apart, as a kernel model's decision values take one class's
// kernel values against each of its rows of coefficients. On AVX-512 it
// takes three rows a call, which share the loads of x and overlap their
// reductions. It panics if ldy is negative or y does not hold the rows.
func DotStrided(dst, x, y []float32, ldy int) {
	if len(dst) == 0 {
		return
	}
	if ldy < 0 || (len(dst)-1)*ldy+len(x) > len(y) {
		panic("simd: DotStrided: y does not hold the rows")
	}
	dotStrided(dst, x, y, ldy)
}

// dotStridedEach is DotStrided one Dot a row from row r on.
func dotStridedEach(dst, x, y []float32, ldy, r int) {
	for ; r < len(dst); r++ {
		dst[r] = dot(x, y[r*ldy:][:len(x)])
	}
}
