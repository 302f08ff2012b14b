package core

import (
	"fmt"
	"math"
	"slices"
)

// checkFinite refuses a non-finite bias or weight: the file format can
// carry them, no training produces them, and every prediction from them
// would be refused as non-finite (issue 10, fault 2).
func (m *LinearModel) checkFinite() error {
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return fmt.Errorf("core: linear model: bias %v is not finite", m.Bias)
	}
	for i, w := range m.W {
		if f := float64(w); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("core: linear model: weight %d is %v", i, f)
		}
	}
	return nil
}

// repeatedLabel returns a label that occurs more than once, in n·log n
// (a file may hold 65536 labels).
func repeatedLabel(labels []int32) (int32, bool) {
	s := slices.Clone(labels)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return s[i], true
		}
	}
	return 0, false
}
