package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// readBoth reads path with ReadFile on one goroutine and on two.
func readBoth(t *testing.T, path string) (one, two *Dataset, errOne, errTwo error) {
	t.Helper()
	old := runtime.GOMAXPROCS(1)
	one, errOne = ReadFile(path, ReadOptions{})
	runtime.GOMAXPROCS(max(old, 2))
	two, errTwo = ReadFile(path, ReadOptions{})
	runtime.GOMAXPROCS(old)
	return one, two, errOne, errTwo
}

// libsvmFile writes a LIBSVM file of rows lines, each made by row from a
// generator seeded by seed, with a blank line and a CRLF ending every 97
// rows, and returns its path and its lines.
func libsvmFile(t *testing.T, rows int, seed uint64, row func(r *rand.Rand, i int, b *strings.Builder)) (string, []string) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	var lines []string
	for i := range rows {
		var b strings.Builder
		row(r, i, &b)
		switch i % 97 {
		case 5:
			lines = append(lines, "") // blank
		case 11:
			b.WriteString("\r")
		}
		lines = append(lines, b.String())
	}
	path := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

// denseFile writes a dense-enough LIBSVM file of rows lines past
// parallelReadBytes.
func denseFile(t *testing.T, rows int) (string, []string) {
	return libsvmFile(t, rows, 7, func(r *rand.Rand, _ int, b *strings.Builder) {
		fmt.Fprintf(b, "%d", r.IntN(10))
		for j := 1; j <= 60; j++ {
			if r.IntN(3) > 0 {
				fmt.Fprintf(b, " %d:%.6g", j, r.Float64()*100-50)
			}
		}
	})
}

// sparseFile writes a sparse LIBSVM file of rows lines past
// parallelReadBytes (a few of thousands of features a row, as
// debdesc_bin), with explicit zeros in the first half (the second half's
// nonzeros then move).
func sparseFile(t *testing.T, rows int) (string, []string) {
	return libsvmFile(t, rows, 9, func(r *rand.Rand, i int, b *strings.Builder) {
		fmt.Fprintf(b, "%d", 2*r.IntN(2)-1)
		for j := 1 + r.IntN(50); j < 9000; j += 1 + r.IntN(1500) {
			v := r.Float64()
			if i < rows/2 && i%7 == 3 {
				v = 0 // explicit: the scan counts it, the data set drops it
			}
			fmt.Fprintf(b, " %d:%.6g", j, v)
		}
	})
}

// The two-goroutine parse of a large dense file gives the sequential
// parse's data set, bit for bit, and its errors, file:line included.
func TestReadDenseHalves(t *testing.T) {
	path, lines := denseFile(t, 12000)
	checkHalves(t, path, lines, true)
}

// So does the two-goroutine parse of a large sparse file.
func TestReadSparseHalves(t *testing.T) {
	path, lines := sparseFile(t, 60000)
	checkHalves(t, path, lines, false)
}

// checkHalves reads path (of lines) on one goroutine and on two, and
// fails unless both give the same data set (dense as asked), bit for bit,
// and the same errors for bad lines in either half.
func checkHalves(t *testing.T, path string, lines []string, dense bool) {
	if fi, _ := os.Stat(path); fi.Size() < parallelReadBytes {
		t.Fatalf("test file of %d bytes: below parallelReadBytes, the halves are not exercised", fi.Size())
	}
	one, two, e1, e2 := readBoth(t, path)
	if e1 != nil || e2 != nil {
		t.Fatal(e1, e2)
	}
	if one.IsDense() != dense || two.IsDense() != dense || one.Len() != two.Len() || one.NumFeatures() != two.NumFeatures() ||
		one.Nonzeros() != two.Nonzeros() {
		t.Fatalf("shapes differ: %d×%d dense %v, %d×%d dense %v", one.Len(), one.NumFeatures(), one.IsDense(), two.Len(), two.NumFeatures(), two.IsDense())
	}
	for i := range one.Len() {
		same := one.Label(i) == two.Label(i)
		if dense {
			same = same && slices.Equal(one.DenseRow(i), two.DenseRow(i))
		} else {
			i1, v1 := one.SparseRow(i)
			i2, v2 := two.SparseRow(i)
			same = same && slices.Equal(i1, i2) && slices.Equal(v1, v2)
		}
		if !same {
			t.Fatalf("row %d differs", i)
		}
	}
	// Bad lines: in the second half only, then in both (the first half's
	// is reported, as the sequential parse stops there).
	bad := func(at ...int) string {
		l := slices.Clone(lines)
		for _, i := range at {
			l[i] = "3 1:0.5 2:x"
		}
		p := filepath.Join(t.TempDir(), "bad.txt")
		if err := os.WriteFile(p, []byte(strings.Join(l, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, at := range [][]int{{len(lines) - 40}, {len(lines) / 2}, {len(lines)/2 + 1}, {100, len(lines) - 40}} {
		_, _, e1, e2 := readBoth(t, bad(at...))
		var p1, p2 *ParseError
		if !errors.As(e1, &p1) || !errors.As(e2, &p2) || e1.Error() != e2.Error() || p1.Line != at[0]+1 {
			t.Fatalf("bad line %v: one goroutine %v, two %v", at, e1, e2)
		}
	}
}
