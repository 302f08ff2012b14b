package core

import (
	"errors"
	"testing"
)

// TestNuRefusesWeights: ν-SVC and ν-SVR refuse instance weights (their
// starts assume one bound per side) instead of ignoring them.
func TestNuRefusesWeights(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	if err := ds.SetWeight(0, 2); err != nil {
		t.Fatal(err)
	}
	for _, svm := range []SVMType{NuSVC, NuSVR} {
		p := DefaultKernelParams()
		p.SVMType, p.Nu = svm, 0.5
		if _, _, err := TrainKernel(ds, p); !errors.Is(err, ErrParams) {
			t.Errorf("%v with a weight 2: err %v, want ErrParams", svm, err)
		}
	}
}
