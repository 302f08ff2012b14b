//go:build !amd64

package main

func peakGFLOPS() (float64, bool) { return 0, false }
