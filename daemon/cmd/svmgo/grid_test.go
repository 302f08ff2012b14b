package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGridLikeGridPy: svmgo grid prints what Debian's svm-grid prints for
// the same options (svm-grid -svmtrain /usr/bin/svm-train -gnuplot null
// -out null -log2c -1,3,2 -log2g -7,-5,2 heart_scale): the same points in
// the same order with the same rates (svm-train's folds), the same best.
func TestGridLikeGridPy(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "heart.out")
	code, stdout, errs := svmgo(t, "grid", "-out", out, "-log2c", "-1,3,2", "-log2g", "-7,-5,2", dataDir+"heart_scale")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `[local] 1.0 -5.0 83.3333 (best c=2.0, g=0.03125, rate=83.3333)
[local] -1.0 -5.0 83.7037 (best c=0.5, g=0.03125, rate=83.7037)
[local] 1.0 -7.0 84.0741 (best c=2.0, g=0.0078125, rate=84.0741)
[local] -1.0 -7.0 83.3333 (best c=2.0, g=0.0078125, rate=84.0741)
[local] 3.0 -5.0 82.5926 (best c=2.0, g=0.0078125, rate=84.0741)
[local] 3.0 -7.0 84.0741 (best c=2.0, g=0.0078125, rate=84.0741)
2.0 0.0078125 84.0741
`
	// The same points in the same order and the same best; each rate
	// within a row of svm-grid's (100/270 points): a warm start stops at
	// another point within the tolerance (-e 0.001), which may put a row
	// on the other side.
	got, exp := strings.Split(stdout, "\n"), strings.Split(want, "\n")
	if len(got) != len(exp) || got[len(got)-2] != exp[len(exp)-2] {
		t.Fatalf("output:\n%s\nwant svm-grid's:\n%s", stdout, want)
	}
	for k := range len(exp) - 2 {
		g, e := strings.Fields(got[k]), strings.Fields(exp[k])
		gr, _ := strconv.ParseFloat(g[3], 64)
		er, _ := strconv.ParseFloat(e[3], 64)
		if g[1] != e[1] || g[2] != e[2] || math.Abs(gr-er) > 100.0/270+1e-4 {
			t.Errorf("line %d: %q, svm-grid %q", k+1, got[k], exp[k])
		}
	}
	if !strings.Contains(errs, "6 points × 5 folds") {
		t.Errorf("no work report: %q", errs)
	}
	rec, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(rec), "log2c=1.0 log2g=-5.0 rate=83.3333\n") || strings.Count(string(rec), "\n") != 6 {
		t.Errorf("result file %q, %v", rec, err)
	}
	// Without a gamma grid; the default C range prints as ints.
	_, stdout, _ = svmgo(t, "grid", "-out", "null", "-log2g", "null", dataDir+"heart_scale")
	if !strings.HasSuffix(stdout, "[local] 13 75.1852 (best c=0.5, rate=84.0741)\n0.5 84.0741\n") {
		t.Errorf("C-only grid ends %q", stdout[max(0, len(stdout)-120):])
	}
	svg := filepath.Join(dir, "heart.svg")
	if code, _, errs := svmgo(t, "grid", "-out", svg, "-log2c", "-1,3,2", "-log2g", "-7,-5,2", dataDir+"heart_scale"); code != 0 {
		t.Fatalf("svg: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg") || strings.Count(string(b), "<rect") != 6 {
		t.Errorf("svg file: %v\n%.300s", err, b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "1"}, "use -log2c and -log2g"},
		{[]string{"-log2c", "null", "-log2g", "null"}, "should not be null simultaneously"},
		{[]string{"-log2c", "1,2"}, "is not begin,end,step"},
		{[]string{"-s", "2"}, "has no C to search"},
	} {
		code, _, errs := svmgo(t, append(append([]string{"grid"}, c.args...), "-out", "null", dataDir+"heart_scale")...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q, want %q", c.args, code, errs, c.want)
		}
	}
}
