//go:build !unix

package main

// processCPU reports no CPU time outside unix: quantize's batch timing then
// compares wall times.
func processCPU() (float64, bool) { return 0, false }
