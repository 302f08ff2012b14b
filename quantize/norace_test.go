//go:build !race

package quantize

const raceEnabled = false
