//go:build !amd64

package data

// vectorFeatures reports whether this machine runs a vector feature loop:
// only amd64 has one.
func vectorFeatures() bool { return false }

// parseFeaturesVector is not reached where vectorFeatures is false.
func (p *lineParser) parseFeaturesVector(line []byte, i int, prev, limit int64) (int, int64) {
	panic("data: no vector feature loop on this architecture")
}
