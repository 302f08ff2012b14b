package simd

// Dot64x4 returns Σ x[j]·y[j] over j < len(x) for float32 vectors, each
// product taken in float64 and summed in four float64 accumulators: term j
// into accumulator j mod 4 (the last len(x) mod 4 terms into the first),
// combined as (s0 + s1) + (s2 + s3). This summation order is its rounding
// contract, and it is the one the float models' dense predictors (linear
// decision values, kernel dot products between rows) and the quantized
// linear model's float32 codes share, so their results agree bit for bit.
//
// Whether a product is fused into its sum (an FMA) is the compiler's
// choice for the target, as for any Go expression a·b + s: never below
// GOAMD64=v3, possibly with v3 or on arm64 (core's trainVectorExact
// follows this); a product of two float32 values is exact in float64, so
// the sums are the same either way. On amd64 with AVX2 the four
// accumulators are the lanes of one vector (dot64_amd64.s). It panics if y
// is shorter than x.
func Dot64x4(x, y []float32) float64 {
	y = y[:len(x)] // equal lengths let the compiler drop bounds checks
	// The whole groups of four in vector lanes where there are some
	// (dot64x4Lanes, the same sums); the loop below then starts past them.
	var lanes [4]float64
	j := dot64x4Lanes(x, y, &lanes)
	s0, s1, s2, s3 := lanes[0], lanes[1], lanes[2], lanes[3]
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
