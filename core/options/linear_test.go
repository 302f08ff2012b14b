package options

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

func TestParseLinear(t *testing.T) {
	o, rest, err := ParseLinear(strings.Fields("-s 3 -c 2.5 -e 0.01 -B 1 -w1 4 -w-1 0.5 -q -n 2 -seed 9 -iter 50 a b"))
	if err != nil {
		t.Fatal(err)
	}
	want := linear.DefaultLinearParams()
	want.Solver, want.C, want.Eps, want.Bias, want.Threads, want.Seed, want.MaxIter = 3, 2.5, 0.01, 1, 2, 9, 50
	want.Weights = []core.ClassWeight{{Label: 1, Weight: 4}, {Label: -1, Weight: 0.5}}
	if !reflect.DeepEqual(o.Params, want) || !o.Quiet || !reflect.DeepEqual(rest, []string{"a", "b"}) {
		t.Errorf("got %+v %v", o, rest)
	}
	for _, s := range []string{"5", "6"} {
		if o, _, err := ParseLinear([]string{"-s", s}); err != nil || o.Params.Eps != 0.01 {
			t.Errorf("-s %s: eps %v, error %v; want LIBLINEAR's default 0.01", s, o.Params.Eps, err)
		}
	}
	for _, bad := range []string{"-s 8", "-s 4", "-s 14", "-twin 2", "-c 0", "-c x", "-e -1", "-p -1", "-v 1", "-w1", "-wx 2", "-z 1", "-c nan", "-iter 0"} {
		if _, _, err := ParseLinear(strings.Fields(bad)); !errors.Is(err, core.ErrParams) {
			t.Errorf("%q: error %v, want core.ErrParams", bad, err)
		}
	}
}
