//go:build svmgo_batch

package main

import "io"

// The batch build links no C generator: core/cgen's text/template brings
// net/url and net/netip, whose package inits would run at the start of
// every command (2% of svmgo version's CPU, perf). export --format c runs
// in svmgo-daemon, the full build next to it, as watch and serve do.
func exportC(args []string, _, stderr io.Writer) int {
	return execDaemon("export", append([]string{"--format", "c"}, args...), stderr)
}
