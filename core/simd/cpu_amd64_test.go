package simd

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestX86Features: the features read by x86Features are
// golang.org/x/sys/cpu's, which also checks the OS's register support.
func TestX86Features(t *testing.T) {
	avx2, avx512, vnni := x86Features()
	x := cpu.X86
	wantAVX2 := x.HasAVX2 && x.HasFMA
	wantAVX512 := wantAVX2 && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ
	wantVNNI := wantAVX512 && x.HasAVX512VNNI
	if avx2 != wantAVX2 || avx512 != wantAVX512 || vnni != wantVNNI {
		t.Errorf("x86Features() = %v, %v, %v; x/sys/cpu: %v, %v, %v", avx2, avx512, vnni, wantAVX2, wantAVX512, wantVNNI)
	}
	if hasAVX2 != avx2 || hasAVX512 != avx512 || hasVNNI != vnni {
		t.Errorf("package flags %v, %v, %v differ from x86Features", hasAVX2, hasAVX512, hasVNNI)
	}
}

// TestHasAVX512BMI: the LIBSVM reader's features are golang.org/x/sys/cpu's.
func TestHasAVX512BMI(t *testing.T) {
	x := cpu.X86
	want := hasAVX512 && x.HasPOPCNT && x.HasBMI1 && x.HasBMI2
	if got := HasAVX512BMI(); got != want {
		t.Errorf("HasAVX512BMI() = %v; x/sys/cpu: %v", got, want)
	}
}
