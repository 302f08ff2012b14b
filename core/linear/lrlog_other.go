//go:build !amd64 || amd64.v3

package linear

import "math"

// lrLog returns math.Log(x) (see lrlog.go: the Go port is used only where
// it rounds as math.Log does).
func lrLog(x float64) float64 { return math.Log(x) }
