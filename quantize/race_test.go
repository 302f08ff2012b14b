//go:build race

package quantize

// raceEnabled: the race detector makes sync.Pool drop a quarter of the
// buffers put back, so allocation counts are not meaningful under it.
const raceEnabled = true
