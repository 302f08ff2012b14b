package data

import (
	"math"
	"strings"
	"testing"
)

// TestNewDenseRefusesWrappedCapacity: a capacity whose cell count
// overflows int panics (a caller's bug: sizes come checked) instead of
// wrapping to a small buffer that rows would then run past. On a 32-bit
// platform (make cross-armv7 runs it under qemu-arm) 65,536 rows of 32,769
// features is such a capacity; MaxInt/2+1 rows of 2 features on any.
func TestNewDenseRefusesWrappedCapacity(t *testing.T) {
	sizes := [][2]int{{math.MaxInt/2 + 1, 2}}
	if math.MaxInt == math.MaxInt32 {
		sizes = append(sizes, [2]int{1 << 16, 1<<15 + 1})
	}
	for _, s := range sizes {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "overflows int") {
					t.Errorf("NewDense(%d, %d): recovered %v, want an overflow panic", s[0], s[1], r)
				}
			}()
			NewDense(s[0], s[1])
		}()
	}
}
