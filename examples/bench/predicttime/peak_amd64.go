package main

func fmaLoop(n int)

// peakGFLOPS measures one core's float32 FMA peak, per CPU second: the
// best of five runs of 12 × 200M 16-lane FMAs. ok is false where there is
// no probe for the architecture.
func peakGFLOPS() (gflops float64, ok bool) {
	const n = 100_000_000
	for range 5 {
		c := cpuSeconds()
		fmaLoop(n)
		if d := cpuSeconds() - c; d > 0 {
			gflops = max(gflops, float64(n)*12*16*2/d/1e9)
		}
	}
	return gflops, true
}
