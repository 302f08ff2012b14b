//go:build !linux

package model

import "math"

// physicalMemory is not known here: no size is refused for want of memory.
func physicalMemory() int64 { return math.MaxInt64 }
