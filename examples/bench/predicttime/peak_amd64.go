package main

import "github.com/libsvmgo/libsvmgo/core/simd"

func fmaLoop(n int)

func dpwssdLoop(n int)

func dpbusdLoop(n int)

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

// peakSample measures the float32 FMA peak once, shortly (12 × 20M
// 16-lane FMAs, about 40 ms): the -peak figure taken beside each timed
// round, so that a round's share of the peak sees the same clock.
func peakSample() float64 {
	const n = 20_000_000
	c := cpuSeconds()
	fmaLoop(n)
	if d := cpuSeconds() - c; d > 0 {
		return float64(n) * 12 * 16 * 2 / d / 1e9
	}
	return 0
}

// peakIntGMACs measures one core's integer multiply-add peaks of AVX-512
// VNNI, per CPU second as peakGFLOPS does: int16 pairs (VPDPWSSD) and
// u8·s8 quadruples (VPDPBUSD), in billions of products a second. ok is
// false without VNNI.
func peakIntGMACs() (int16GMACs, int8GMACs float64, ok bool) {
	if !simd.FastInt8() {
		return 0, 0, false
	}
	const n = 100_000_000
	for range 5 {
		c := cpuSeconds()
		dpwssdLoop(n)
		if d := cpuSeconds() - c; d > 0 {
			int16GMACs = max(int16GMACs, float64(n)*12*32/d/1e9)
		}
		c = cpuSeconds()
		dpbusdLoop(n)
		if d := cpuSeconds() - c; d > 0 {
			int8GMACs = max(int8GMACs, float64(n)*12*64/d/1e9)
		}
	}
	return int16GMACs, int8GMACs, true
}
