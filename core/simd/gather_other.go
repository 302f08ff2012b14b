//go:build !amd64

package simd

func gatherMarked32(dst, src []float32, idx []int32, y []int8, yi int8, marker uint32) bool {
	return gatherMarked32Portable(dst, src, idx, y, yi, marker, 0)
}
