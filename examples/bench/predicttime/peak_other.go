//go:build !amd64

package main

func peakGFLOPS() (float64, bool) { return 0, false }

func peakSample() float64 { return 0 }

func peakIntGMACs() (float64, float64, bool) { return 0, 0, false }
