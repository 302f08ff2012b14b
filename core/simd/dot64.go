package simd

// Dot64x4 returns Σ x[j]·y[j] over j < len(x) for float32 vectors, each
// product taken in float64 and summed in four float64 accumulators: term j
// into accumulator j mod 4 (the last len(x) mod 4 terms into the first),
// combined as (s0 + s1) + (s2 + s3). This summation order is its rounding
// contract, and it is the one the float models' dense predictors (linear
// decision values, kernel dot products between rows) and the quantized
// linear model's float32 codes share, so their results agree bit for bit.
//
// It is portable Go only. Whether a product is fused into its sum (an FMA)
// is the compiler's choice for the target, as for any Go expression a·b + s:
// never below GOAMD64=v3, possibly with v3 or on arm64 (core's
// trainVectorExact follows this). It panics if y is shorter than x.
func Dot64x4(x, y []float32) float64 {
	y = y[:len(x)] // equal lengths let the compiler drop bounds checks
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += float64(x[j]) * float64(y[j])
		s1 += float64(x[j+1]) * float64(y[j+1])
		s2 += float64(x[j+2]) * float64(y[j+2])
		s3 += float64(x[j+3]) * float64(y[j+3])
	}
	for ; j < len(x); j++ {
		s0 += float64(x[j]) * float64(y[j])
	}
	return (s0 + s1) + (s2 + s3)
}
