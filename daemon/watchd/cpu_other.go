//go:build !unix

package watchd

// processCPU reports no CPU time outside unix: the records then log the
// wall seconds alone.
func processCPU() (float64, bool) { return 0, false }
