//go:build !amd64

package main

func peakGFLOPS() (float64, bool) { return 0, false }

func peakIntGMACs() (float64, float64, bool) { return 0, 0, false }
