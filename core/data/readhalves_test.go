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

// denseFile writes a dense-enough LIBSVM file of rows lines past
// parallelReadBytes, with blank lines, CRLF endings and comments on the
// way, and returns its path and its lines.
func denseFile(t *testing.T, rows int) (string, []string) {
	r := rand.New(rand.NewPCG(7, 8))
	var lines []string
	for i := range rows {
		var b strings.Builder
		fmt.Fprintf(&b, "%d", r.IntN(10))
		for j := 1; j <= 60; j++ {
			if r.IntN(3) > 0 {
				fmt.Fprintf(&b, " %d:%.6g", j, r.Float64()*100-50)
			}
		}
		switch i % 97 {
		case 5:
			lines = append(lines, "") // blank
		case 11:
			b.WriteString("\r")
		}
		lines = append(lines, b.String())
	}
	path := filepath.Join(t.TempDir(), "dense.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

// The two-goroutine parse of a large dense file gives the sequential
// parse's data set, bit for bit, and its errors, file:line included.
func TestReadDenseHalves(t *testing.T) {
	path, lines := denseFile(t, 12000)
	if fi, _ := os.Stat(path); fi.Size() < parallelReadBytes {
		t.Fatalf("test file of %d bytes: below parallelReadBytes, the halves are not exercised", fi.Size())
	}
	one, two, e1, e2 := readBoth(t, path)
	if e1 != nil || e2 != nil {
		t.Fatal(e1, e2)
	}
	if !one.IsDense() || !two.IsDense() || one.Len() != two.Len() || one.NumFeatures() != two.NumFeatures() {
		t.Fatalf("shapes differ: %d×%d dense %v, %d×%d dense %v", one.Len(), one.NumFeatures(), one.IsDense(), two.Len(), two.NumFeatures(), two.IsDense())
	}
	for i := range one.Len() {
		if one.Label(i) != two.Label(i) || !slices.Equal(one.DenseRow(i), two.DenseRow(i)) {
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

// The size query runs on two goroutines too (scanHalves): a line over
// the limit is reported at its line, in either half, the first half's
// before the second's, and where the middle of the file falls inside it
// (lineStart finds no line start within the limit).
func TestScanHalvesLongLine(t *testing.T) {
	_, lines := denseFile(t, 12000)
	long := "1" + strings.Repeat(" 1:0.5", 800) // 4,801 bytes
	opt := ReadOptions{MaxLineBytes: 2000}
	old := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(old)
	// the line the middle byte falls in once it is long
	text := func(l []string) string { return strings.Join(l, "\n") + "\n" }
	mid := 0
	for n, size := 0, len(text(lines)); n+len(lines[mid])+1 <= size/2; mid++ {
		n += len(lines[mid]) + 1
	}
	for _, at := range [][]int{{len(lines) - 40}, {len(lines)/2 + 3}, {10, len(lines) - 40}, {mid}} {
		l := slices.Clone(lines)
		for _, i := range at {
			l[i] = long
		}
		s := text(l)
		if at[0] == mid {
			start := len(text(l[:mid]))
			if size := len(s); start > size/2-1 || start+len(long) < size/2 {
				t.Fatalf("the middle byte %d is not in line %d (%d to %d)", size/2, mid+1, start, start+len(long))
			}
		}
		p := filepath.Join(t.TempDir(), "long.txt")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(p, opt)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrLineTooLong) || pe.Line != at[0]+1 {
			t.Fatalf("long line at %v: %v, want it at line %d", at, err, at[0]+1)
		}
	}
}
