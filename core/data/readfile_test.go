package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/libsvmgo/libsvmgo/core/internal/shareddata"
)

// Expected numbers below were computed independently of this package with
// awk over the files (rows, nonzeros = fields after the label, largest
// index, label counts, sums of values).

// rfWrite writes content to a fresh file called name and returns its path.
func rfWrite(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rfRow returns row i of d as dense values over n features.
func rfRow(d *Dataset, i, n int) []float32 {
	row := make([]float32, n)
	if d.IsDense() {
		copy(row, d.DenseRow(i))
		return row
	}
	idx, val := d.SparseRow(i)
	for k, j := range idx {
		row[j] = val[k]
	}
	return row
}

// rfEqual reports whether a and b hold the same rows, labels and values
// bit for bit, whatever their layouts.
func rfEqual(t *testing.T, a, b *Dataset) {
	t.Helper()
	if a.Len() != b.Len() || a.NumFeatures() != b.NumFeatures() {
		t.Fatalf("shapes differ: %d×%d and %d×%d", a.Len(), a.NumFeatures(), b.Len(), b.NumFeatures())
	}
	n := a.NumFeatures()
	for i := range a.Len() {
		if math.Float64bits(a.Label(i)) != math.Float64bits(b.Label(i)) {
			t.Fatalf("row %d: labels %v and %v", i, a.Label(i), b.Label(i))
		}
		ra, rb := rfRow(a, i, n), rfRow(b, i, n)
		for j := range ra {
			if math.Float32bits(ra[j]) != math.Float32bits(rb[j]) {
				t.Fatalf("row %d feature %d: %v and %v", i, j, ra[j], rb[j])
			}
		}
	}
}

func TestReadFileHeartScale(t *testing.T) {
	const path = "../testdata/heart_scale"
	st, err := ScanFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (FileStats{Rows: 270, Nonzeros: 3378, NumFeatures: 13}); st != want {
		t.Fatalf("ScanFile = %+v, want %+v", st, want)
	}
	d, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 4·270·13 = 14040 bytes dense against 8·3378 = 27024 sparse: PreferDense
	if !d.IsDense() || d.Len() != 270 || d.NumFeatures() != 13 || d.CapRows() != 270 {
		t.Fatalf("dense %v, %d rows (cap %d), %d features", d.IsDense(), d.Len(), d.CapRows(), d.NumFeatures())
	}
	// first line: +1 1:0.708333 2:1 3:1 4:-0.320755 5:-0.105023 6:-1 7:1
	// 8:-0.419847 9:-1 10:-0.225806 12:1 13:-1 (feature 11 absent)
	first := []float32{0.708333, 1, 1, -0.320755, -0.105023, -1, 1, -0.419847, -1, -0.225806, 0, 1, -1}
	if d.Label(0) != 1 || !slices.Equal(d.DenseRow(0), first) {
		t.Fatalf("row 0 = %v %v, want 1 %v", d.Label(0), d.DenseRow(0), first)
	}
	// last line: +1 1:0.583333 2:1 3:1 4:0.245283 5:-0.269406 6:-1 7:1
	// 8:-0.435115 9:1 10:-0.516129 12:1 13:-1
	last := []float32{0.583333, 1, 1, 0.245283, -0.269406, -1, 1, -0.435115, 1, -0.516129, 0, 1, -1}
	if d.Label(269) != 1 || !slices.Equal(d.DenseRow(269), last) {
		t.Fatalf("row 269 = %v %v, want 1 %v", d.Label(269), d.DenseRow(269), last)
	}
	pos, nonzeros, sum := 0, 0, 0.0
	for i := range d.Len() {
		if d.Label(i) == 1 {
			pos++
		} else if d.Label(i) != -1 {
			t.Fatalf("row %d: label %v", i, d.Label(i))
		}
		for _, v := range d.DenseRow(i) {
			if v != 0 {
				nonzeros++
			}
			sum += float64(v)
		}
	}
	// awk: 120 × +1, 150 × -1, no explicit zeros, Σ values = -666.4008603;
	// float32 rounding moves each value by < 3e-8, so the sum by < 1e-4.
	if pos != 120 || nonzeros != 3378 || math.Abs(sum-(-666.4008603)) > 1e-4 {
		t.Fatalf("%d positive, %d nonzeros, sum %v; want 120, 3378, -666.4008603", pos, nonzeros, sum)
	}

	// the same file into a sparse data set of exactly the scanned size
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := NewSparse(st.Rows, st.Nonzeros, 0)
	n, err := ReadInto(s, f, path, ReadOptions{})
	if err != nil || n != 270 || s.Nonzeros() != 3378 || s.NumFeatures() != 13 {
		t.Fatalf("ReadInto: %d rows, %d nonzeros, %d features, %v", n, s.Nonzeros(), s.NumFeatures(), err)
	}
	idx, val := s.SparseRow(0)
	if !slices.Equal(idx, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12}) || val[3] != -0.320755 || val[10] != 1 {
		t.Fatalf("sparse row 0 = %v %v", idx, val)
	}
	rfEqual(t, d, s)
}

func TestReadFileDiabetesDense(t *testing.T) {
	const path = "../testdata/diabetes.train"
	st, err := ScanFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (FileStats{Rows: 353, Nonzeros: 3530, NumFeatures: 10}); st != want {
		t.Fatalf("ScanFile = %+v, want %+v", st, want)
	}
	d, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsDense() || d.Len() != 353 || d.NumFeatures() != 10 {
		t.Fatalf("dense %v, %d rows, %d features", d.IsDense(), d.Len(), d.NumFeatures())
	}
	// 17-digit values: the slow path. Go converts these constants to
	// float32 with exact arithmetic, so they are the correctly rounded
	// float32s of the file's text.
	first := []float32{0.02354575262934534, 0.05068011873981862, -0.020217511096257485, -0.03665608107540074,
		-0.013952535544021335, -0.015092409744958261, 0.059685012862409445, -0.03949338287409329,
		-0.09643494994048712, -0.01764612515980379}
	if d.Label(0) != 47 || !slices.Equal(d.DenseRow(0), first) {
		t.Fatalf("row 0 = %v %v, want 47 %v", d.Label(0), d.DenseRow(0), first)
	}
	if d.Label(352) != 199 {
		t.Fatalf("last label %v, want 199", d.Label(352))
	}
	sum := 0.0
	for i := range d.Len() {
		for _, v := range d.DenseRow(i) {
			sum += float64(v)
		}
	}
	if math.Abs(sum-(-3.282958157616)) > 1e-5 { // awk's sum of the text values
		t.Fatalf("sum of values %v, want -3.282958157616", sum)
	}
}

func TestReadFileCSVMatchesLIBSVM(t *testing.T) {
	// heart_scale.csv was made from heart_scale by awk, absent features
	// written as 0.
	st, err := ScanFile("../testdata/heart_scale.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (FileStats{Rows: 270, Nonzeros: 3378, NumFeatures: 13}); st != want {
		t.Fatalf("ScanFile(csv) = %+v, want %+v", st, want)
	}
	lib, err := ReadFile("../testdata/heart_scale", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	csv, err := ReadFile("../testdata/heart_scale.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !csv.IsDense() {
		t.Fatal("CSV heart_scale not dense")
	}
	rfEqual(t, lib, csv)

	// and sparse, where the CSV zeros must be left out
	libS, csvS := NewSparse(270, 3378, 0), NewSparse(270, 3378, 0)
	for _, c := range []struct {
		d    *Dataset
		path string
	}{{libS, "../testdata/heart_scale"}, {csvS, "../testdata/heart_scale.csv"}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadInto(c.d, f, c.path, ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if libS.Nonzeros() != 3378 || csvS.Nonzeros() != 3378 {
		t.Fatalf("nonzeros %d and %d, want 3378", libS.Nonzeros(), csvS.Nonzeros())
	}
	for i := range 270 {
		i1, v1 := libS.SparseRow(i)
		i2, v2 := csvS.SparseRow(i)
		if !slices.Equal(i1, i2) || !slices.Equal(v1, v2) {
			t.Fatalf("row %d: %v %v and %v %v", i, i1, v1, i2, v2)
		}
	}
}

func TestReadFormats(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Format
		want Format
	}{
		{"a.csv", FormatAuto, FormatCSV},
		{"dir.x/A.CSV", FormatAuto, FormatCSV},
		{"a.txt", FormatAuto, FormatLIBSVM},
		{"heart_scale", FormatAuto, FormatLIBSVM},
		{"a.csv", FormatLIBSVM, FormatLIBSVM},
		{"a.txt", FormatCSV, FormatCSV},
	} {
		if got, err := c.f.resolve(c.name); err != nil || got != c.want {
			t.Errorf("%v.resolve(%q) = %v, %v; want %v", c.f, c.name, got, err, c.want)
		}
	}
	if _, err := ReadInto(NewSparse(1, 1, 0), strings.NewReader("1 1:1\n"), "x", ReadOptions{Format: 9}); err == nil {
		t.Error("unknown format accepted")
	}
	if FormatCSV.String() != "csv" || Format(9).String() != "Format(9)" {
		t.Error("Format.String")
	}
}

// rfRead reads content with ReadInto into a roomy sparse data set.
func rfRead(content string, opt ReadOptions) (*Dataset, error) {
	d := NewSparse(100, 1000, 0)
	_, err := ReadInto(d, strings.NewReader(content), "in.txt", opt)
	return d, err
}

func TestReadLIBSVMSyntax(t *testing.T) {
	// blank lines (counted), spaces, tabs, CRLF, trailing blanks, no final
	// newline, zero values, labels in every spelling, a label-only row
	const in = "\n+1 1:0.5 3:-2 \r\n  \n-1\t2:1e-3\t\t4:0 5:0.0  \n151.0\n1e3 7:1E2\r\n-1 \n\t\n0x1p-2 1:+.5 2:5."
	d, err := rfRead(in, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := []float64{1, -1, 151, 1000, -1, 0.25}
	if !slices.Equal(d.Labels(), wantLabels) {
		t.Fatalf("labels %v, want %v", d.Labels(), wantLabels)
	}
	rows := []struct {
		idx []int32
		val []float32
	}{
		{[]int32{0, 2}, []float32{0.5, -2}},
		{[]int32{1}, []float32{1e-3}}, // 4:0 and 5:0.0 dropped
		{nil, nil},
		{[]int32{6}, []float32{100}},
		{nil, nil},
		{[]int32{0, 1}, []float32{0.5, 5}},
	}
	for i, r := range rows {
		idx, val := d.SparseRow(i)
		if !slices.Equal(idx, r.idx) || !slices.Equal(val, r.val) {
			t.Errorf("row %d = %v %v, want %v %v", i, idx, val, r.idx, r.val)
		}
	}
	st, err := Scan(strings.NewReader(in), "in.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 6 rows; 8 pairs counted, explicit zeros included; largest index 7
	if want := (FileStats{Rows: 6, Nonzeros: 8, NumFeatures: 7}); st != want {
		t.Fatalf("Scan = %+v, want %+v", st, want)
	}
	// the largest index int32 allows
	d, err = rfRead("1 2147483647:1\n", ReadOptions{})
	if err != nil || d.NumFeatures() != math.MaxInt32 {
		t.Fatalf("index 2147483647: %v features, %v", d.NumFeatures(), err)
	}
}

func TestReadLIBSVMErrors(t *testing.T) {
	for _, c := range []struct {
		in     string
		opt    ReadOptions
		line   int
		msg    string // the whole message after "in.txt:line: "
		target error
	}{
		{"1 1:0.5\n\n-1 2:0.1 3-0.5\n", ReadOptions{}, 3, `feature 2: missing ':' in "3-0.5"`, ErrSyntax},
		{"1 1:1 2\n", ReadOptions{}, 1, `feature 2: missing ':' in "2"`, ErrSyntax},
		{"1 1:1\n1 0:1\n", ReadOptions{}, 2, `feature 1: index 0 in "0:1": indices start at 1`, ErrSyntax},
		{"1 -1:1\n", ReadOptions{}, 1, `feature 1: index is not a positive integer in "-1:1"`, ErrSyntax},
		{"1 a:1\n", ReadOptions{}, 1, `feature 1: index is not a positive integer in "a:1"`, ErrSyntax},
		{"1 :5\n", ReadOptions{}, 1, `feature 1: empty index in ":5"`, ErrSyntax},
		{"1 2:1 2:1\n", ReadOptions{}, 1, `feature 2: index 2 after 2 in "2:1": indices must increase`, ErrSyntax},
		{"1 3:1 2:1\n", ReadOptions{}, 1, `feature 2: index 2 after 3 in "2:1": indices must increase`, ErrSyntax},
		{"1 5:1\n1 6:1\n", ReadOptions{MaxFeatures: 5}, 2, `feature 1: index 6 is above MaxFeatures 5`, ErrSyntax},
		{"1 2147483648:1\n", ReadOptions{}, 1, `feature 1: index overflows int32 in "2147483648:1"`, ErrSyntax},
		{"1 1:abc\n", ReadOptions{}, 1, `feature 1: value "abc" is not a number`, ErrSyntax},
		{"1 1:1.2.3\n", ReadOptions{}, 1, `feature 1: value "1.2.3" is not a number`, ErrSyntax},
		{"1 1:0.5:2\n", ReadOptions{}, 1, `feature 1: value "0.5:2" is not a number`, ErrSyntax},
		{"1 1:nan\n", ReadOptions{}, 1, `feature 1: value "nan" is not finite`, ErrSyntax},
		{"1 1:1 2:-Inf\n", ReadOptions{}, 1, `feature 2: value "-Inf" is not finite`, ErrSyntax},
		{"1 1:1e39\n", ReadOptions{}, 1, `feature 1: value "1e39" is out of range for float32`, ErrSyntax},
		{"1 1: 2:3\n", ReadOptions{}, 1, `feature 1: empty value in "1:"`, ErrSyntax},
		{"1 1:\n", ReadOptions{}, 1, `feature 1: empty value in "1:"`, ErrSyntax},
		{"1 1:1\n1:0.5 2:1\n", ReadOptions{}, 2, `label missing: the line starts with feature "1:0.5"`, ErrSyntax},
		{"abc 1:1\n", ReadOptions{}, 1, `label: "abc" is not a number`, ErrSyntax},
		{"nan 1:1\n", ReadOptions{}, 1, `label: "nan" is not finite`, ErrSyntax},
		{"1e999 1:1\n", ReadOptions{}, 1, `label: "1e999" is out of range for float64`, ErrSyntax},
		{"1 1:1\r\n\r\n\r\n1 1:x\r\n", ReadOptions{}, 4, `feature 1: value "x" is not a number`, ErrSyntax},
		{"1 1:1\n1 1:" + strings.Repeat("9", 100) + "x\n", ReadOptions{}, 2,
			`feature 1: value "` + strings.Repeat("9", 40) + `"... is not a number`, ErrSyntax},
	} {
		d := NewSparse(100, 1000, 0)
		n, err := ReadInto(d, strings.NewReader(c.in), "in.txt", c.opt)
		want := fmt.Sprintf("in.txt:%d: %s", c.line, c.msg)
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != want || pe.Line != c.line || pe.File != "in.txt" || !errors.Is(err, c.target) {
			t.Errorf("%q:\n got %v\nwant %s", c.in, err, want)
			continue
		}
		if n != 0 || d.Len() != 0 || d.NumFeatures() != 0 {
			t.Errorf("%q: data set changed: n=%d, %d rows, %d features", c.in, n, d.Len(), d.NumFeatures())
		}
		// ReadFile reports the same error, with the path as the name
		p := rfWrite(t, "in.txt", c.in)
		if _, err := ReadFile(p, c.opt); err == nil || err.Error() != p+want[len("in.txt"):] {
			t.Errorf("ReadFile %q: %v", c.in, err)
		}
		// and so does the fast path, which only runs with featureBytes of
		// line left: give the bad line a long tail
		lines := strings.Split(c.in, "\n")
		bad := lines[c.line-1]
		cr := strings.HasSuffix(bad, "\r")
		bad = strings.TrimSuffix(bad, "\r") + strings.Repeat(" 99999:1", 20)
		if cr {
			bad += "\r"
		}
		lines[c.line-1] = bad
		_, err = ReadInto(NewSparse(100, 1000, 0), strings.NewReader(strings.Join(lines, "\n")), "in.txt", c.opt)
		if err == nil || err.Error() != want {
			t.Errorf("%q with a long tail:\n got %v\nwant %s", c.in, err, want)
		}
	}
}

// rfReferenceLine parses a LIBSVM line the obvious way, with strconv: the
// reference the fast parser must agree with. ok = false for a line the
// format does not allow.
func rfReferenceLine(line string, maxFeatures int) (label float64, idx []int32, val []float32, blank, ok bool) {
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(fields) == 0 {
		return 0, nil, nil, true, true
	}
	label, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || math.IsInf(label, 0) || math.IsNaN(label) {
		return 0, nil, nil, false, false
	}
	prev := 0
	for _, f := range fields[1:] {
		is, vs, found := strings.Cut(f, ":")
		if !found || is == "" || strings.Trim(is, "0123456789") != "" {
			return 0, nil, nil, false, false
		}
		j, err := strconv.ParseUint(is, 10, 64)
		if err != nil || j <= uint64(prev) || j > math.MaxInt32 || (maxFeatures > 0 && j > uint64(maxFeatures)) {
			return 0, nil, nil, false, false
		}
		v, err := strconv.ParseFloat(vs, 32)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, nil, nil, false, false
		}
		idx, val = append(idx, int32(j-1)), append(val, float32(v))
		prev = int(j)
	}
	return label, idx, val, false, true
}

// rfCheckLine compares lineParser with rfReferenceLine on one line.
// Where the machine has a vector feature loop it checks both loops.
func rfCheckLine(t testing.TB, line string, maxFeatures int) {
	t.Helper()
	rfCheckLineLoop(t, line, maxFeatures, false)
	if vectorFeatures() {
		rfCheckLineLoop(t, line, maxFeatures, true)
	}
}

func rfCheckLineLoop(t testing.TB, line string, maxFeatures int, vector bool) {
	t.Helper()
	p := lineParser{format: FormatLIBSVM, maxFeatures: maxFeatures, vector: vector}
	label, blank, perr := p.parse([]byte(line))
	wl, wi, wv, wblank, ok := rfReferenceLine(line, maxFeatures)
	if ok != (perr == nil) {
		t.Fatalf("%q: error %v, reference accepts: %v", line, perr, ok)
	}
	if !ok {
		return
	}
	if blank != wblank || math.Float64bits(label) != math.Float64bits(wl) ||
		!slices.Equal(p.index, wi) || len(p.value) != len(wv) {
		t.Fatalf("%q: got %v %v %v, want %v %v %v", line, label, p.index, p.value, wl, wi, wv)
	}
	for k := range wv {
		if math.Float32bits(p.value[k]) != math.Float32bits(wv[k]) {
			t.Fatalf("%q: value %d is %v, want %v", line, k, p.value[k], wv[k])
		}
	}
	if len(wi) == 0 || wi[len(wi)/2] >= 1<<16 {
		return
	}
	// Into a dense row (as for a dense data set) that holds the features
	// up to the middle one: the parser writes those there and leaves the
	// others in index and value.
	width := int(wi[len(wi)/2]) + 1
	p = lineParser{format: FormatLIBSVM, maxFeatures: maxFeatures, vector: vector, row: make([]float32, width)}
	if _, _, perr := p.parse([]byte(line)); perr != nil {
		t.Fatalf("%q into a row of %d: %v", line, width, perr)
	}
	got := make(map[int32]float32)
	for j, v := range p.row {
		if v != 0 || math.Signbit(float64(v)) {
			got[int32(j)] = v
		}
	}
	for k, j := range p.index {
		got[j] = p.value[k]
	}
	for k, j := range wi {
		if v, ok := got[j]; (ok || wv[k] != 0) && math.Float32bits(v) != math.Float32bits(wv[k]) {
			t.Fatalf("%q into a row of %d: feature %d is %v, want %v", line, width, j+1, v, wv[k])
		}
		delete(got, j)
	}
	if len(got) > 0 {
		t.Fatalf("%q into a row of %d: features %v not in the line", line, width, got)
	}
}

// rfRandomValue returns a value token in one of the spellings files use,
// and some they should not.
func rfRandomValue(r *rand.Rand) string {
	switch r.IntN(12) {
	case 0:
		return strconv.FormatFloat(r.NormFloat64(), 'g', -1, 64)
	case 1:
		return strconv.FormatFloat(r.Float64(), 'g', 8, 64)
	case 2:
		return strconv.FormatFloat(r.NormFloat64()*1e6, 'f', r.IntN(12), 64)
	case 3:
		return strconv.FormatFloat(r.Float64()*1e-6, 'e', r.IntN(10), 64)
	case 4:
		return strconv.Itoa(r.IntN(2000) - 1000)
	case 5:
		return string(randomDecimal(r, nil))
	case 6:
		return "0." + strings.Repeat("0", r.IntN(4)) + strconv.FormatUint(r.Uint64()>>r.IntN(64), 10)
	case 7:
		return []string{"0", "-0", "1", "-1", ".5", "5.", "+.5", "0x1p-3", "1e5", "00.25"}[r.IntN(10)]
	case 8:
		return []string{"", "-", ".", "nan", "inf", "1e", "1.2.3", "1:2", "0x", "1e99", "-1e39", "12a"}[r.IntN(12)]
	default:
		return strconv.FormatFloat(float64(r.IntN(256))/255, 'g', 8, 64)
	}
}

// rfRandomLine returns a LIBSVM line of n features with random spellings,
// mostly valid.
func rfRandomLine(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString([]string{"+1", "-1", "3", "151.0", "1e3", "0x10", "-2.5"}[r.IntN(7)])
	j := 0
	for range n {
		b.WriteString([]string{" ", " ", " ", "\t", "  ", " \t "}[r.IntN(6)])
		switch r.IntN(200) {
		case 0:
			j -= r.IntN(3) // not increasing
		case 1:
			b.WriteString("0") // a leading zero
		case 2:
			j += 1 << 24 // 8 digits and more
		case 3:
			j = math.MaxInt32 - r.IntN(2)
		}
		j += 1 + r.IntN(30)
		b.WriteString(strconv.Itoa(j))
		if r.IntN(300) != 0 {
			b.WriteByte(':')
		}
		b.WriteString(rfRandomValue(r))
	}
	if r.IntN(2) == 0 {
		b.WriteString([]string{" ", "\t", "  \t"}[r.IntN(3)])
	}
	return b.String()
}

// TestReadLIBSVMRandomLines checks the line parser, fast path included,
// against strconv on random lines of every length.
func TestReadLIBSVMRandomLines(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		line := rfRandomLine(r, r.IntN(60))
		rfCheckLine(t, line, 0)
		if r.IntN(10) == 0 {
			rfCheckLine(t, line, 1+r.IntN(500))
		}
	}
}

func FuzzParseLIBSVMLine(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 20 {
		f.Add(rfRandomLine(r, r.IntN(20)), 0)
	}
	f.Add("+1 1:0.708333 2:1 3:1 4:-0.320755 5:-0.105023 6:-1 7:1 8:-0.419847 9:-1 10:-0.225806 12:1 13:-1 ", 0)
	f.Add("7 1:0.0039215689 2:0.52156866 3:1 4:0.99999999999999999 5:-1234567.1234567812345678 6:1", 5)
	f.Fuzz(func(t *testing.T, line string, maxFeatures int) {
		rfCheckLine(t, line, max(maxFeatures, 0))
	})
}

func TestReadCSV(t *testing.T) {
	const in = "1,0.5,0,-2\r\n\n-1, 0 ,1e-3 , 0.0\n  \n2.5,0,0,0"
	d := NewSparse(10, 100, 0)
	n, err := ReadInto(d, strings.NewReader(in), "x.csv", ReadOptions{})
	if err != nil || n != 3 {
		t.Fatalf("%d rows, %v", n, err)
	}
	if !slices.Equal(d.Labels(), []float64{1, -1, 2.5}) || d.Nonzeros() != 3 || d.NumFeatures() != 3 {
		t.Fatalf("labels %v, %d nonzeros, %d features", d.Labels(), d.Nonzeros(), d.NumFeatures())
	}
	idx, val := d.SparseRow(1)
	if !slices.Equal(idx, []int32{1}) || !slices.Equal(val, []float32{1e-3}) {
		t.Fatalf("row 1 = %v %v", idx, val)
	}
	st, err := Scan(strings.NewReader(in), "x.csv", ReadOptions{})
	if want := (FileStats{Rows: 3, Nonzeros: 3, NumFeatures: 3}); err != nil || st != want {
		t.Fatalf("Scan = %+v, %v; want %+v", st, err, want)
	}
	// a CSV read as CSV by option whatever its name, into a dense data set
	dd := NewDense(3, 3)
	if _, err := ReadInto(dd, strings.NewReader(in), "x.txt", ReadOptions{Format: FormatCSV}); err != nil {
		t.Fatal(err)
	}
	rfEqual(t, d, dd)
}

func TestReadCSVErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		opt  ReadOptions
		line int
		msg  string
	}{
		{"label,x1,x2\n1,2,3\n", ReadOptions{CSVHeader: CSVHeaderNone}, 1,
			`column 1 (label): "label" is not a number (a CSV file is all numbers after its header line, if any, and the columns skipped)`},
		{"1,2,3\nlabel,x1,x2\n", ReadOptions{}, 2, `column 1 (label): "label" is not a number`},
		{"1,2,3\n\n1,2\n", ReadOptions{}, 3, `2 columns, but the first row has 3`},
		{"1,2,3\n1,2,3,4\n", ReadOptions{}, 2, `4 columns, but the first row has 3`},
		{"1,2\n1,\"2\"\n", ReadOptions{}, 2, `column 2: quoted fields are not supported`},
		{"1,2,3\n1,,3\n", ReadOptions{}, 2, `column 2: empty field`},
		{"1,2,3\n1,2,\n", ReadOptions{}, 2, `column 3: empty field`},
		{"1,2,3\n1,2,nan\n", ReadOptions{}, 2, `column 3: "nan" is not finite`},
		{"1,2\n1,2 3\n", ReadOptions{}, 2, `column 2: "2 3" is not a number`},
		{"1,2,3\nx,2,3\n", ReadOptions{}, 2, `column 1 (label): "x" is not a number`},
		{"1,2,3\n", ReadOptions{MaxFeatures: 1}, 1,
			`column 3: more than MaxFeatures = 1 feature columns`},
	} {
		d := NewSparse(100, 1000, 0)
		_, err := ReadInto(d, strings.NewReader(c.in), "in.csv", c.opt)
		want := fmt.Sprintf("in.csv:%d: %s", c.line, c.msg)
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != want || !errors.Is(err, ErrSyntax) {
			t.Errorf("%q:\n got %v\nwant %s", c.in, err, want)
		}
		if d.Len() != 0 {
			t.Errorf("%q: %d rows left behind", c.in, d.Len())
		}
	}
}

func TestReadIntoFullLeavesDataSetUnchanged(t *testing.T) {
	d := NewSparse(3, 10, 0)
	if err := d.AppendSparse(7, []int32{0, 1}, []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	check := func(err error, line int) {
		t.Helper()
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrFull) || pe.Line != line || pe.File != "batch" {
			t.Fatalf("err = %v, want ErrFull on batch:%d", err, line)
		}
		idx, val := d.SparseRow(0)
		if d.Len() != 1 || d.Nonzeros() != 2 || d.NumFeatures() != 2 || d.Label(0) != 7 ||
			!slices.Equal(idx, []int32{0, 1}) || !slices.Equal(val, []float32{1, 2}) {
			t.Fatalf("data set changed: %d rows, %d nonzeros, %d features", d.Len(), d.Nonzeros(), d.NumFeatures())
		}
	}
	// rows: two fit (widening the data set to 9 features), the third
	// line's row does not
	_, err := ReadInto(d, strings.NewReader("1 9:1\n\n2 1:1\n3 1:1\n"), "batch", ReadOptions{})
	check(err, 4)
	if want := "batch:4: data set is full (capacity 3 rows, 10 nonzeros)"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	// nonzeros: 2 stored + 3 + 6 > 10
	_, err = ReadInto(d, strings.NewReader("1 1:1 2:1 3:1\n1 1:1 2:1 3:1 4:1 5:1 6:1\n"), "batch", ReadOptions{})
	check(err, 2)

	// a syntax error after good rows, and a read error, also roll back
	_, err = ReadInto(d, strings.NewReader("1 5:1\n1 x\n"), "batch", ReadOptions{})
	if !errors.Is(err, ErrSyntax) || d.Len() != 1 || d.NumFeatures() != 2 {
		t.Fatalf("syntax error: %v, %d rows, %d features", err, d.Len(), d.NumFeatures())
	}
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("1 8:1\n"), iotest.ErrReader(boom))
	if _, err := ReadInto(d, r, "batch", ReadOptions{}); !errors.Is(err, boom) || d.Len() != 1 || d.NumFeatures() != 2 {
		t.Fatalf("read error: %v, %d rows, %d features", err, d.Len(), d.NumFeatures())
	}
	if _, err := Scan(r, "batch", ReadOptions{}); !errors.Is(err, boom) {
		t.Fatalf("Scan read error: %v", err)
	}
}

func TestReadIntoBadRowForDataSet(t *testing.T) {
	// a dense data set of width 3 refuses index 4; the error keeps
	// ErrBadRow and gains the line
	d := NewDense(5, 3)
	_, err := ReadInto(d, strings.NewReader("1 1:1 3:1\n1 4:1\n"), "b", ReadOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrBadRow) || pe.Line != 2 || d.Len() != 0 {
		t.Fatalf("err = %v, %d rows", err, d.Len())
	}
	// appending batches: the second read continues after the first
	if n, err := ReadInto(d, strings.NewReader("1 1:1 3:1\n"), "b1", ReadOptions{}); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	if n, err := ReadInto(d, strings.NewReader("-1,0,2,0\n2,1,1,1\n"), "b2.csv", ReadOptions{}); n != 2 || err != nil {
		t.Fatal(n, err)
	}
	if d.Len() != 3 || !slices.Equal(d.DenseRow(1), []float32{0, 2, 0}) || d.Label(2) != 2 {
		t.Fatalf("%d rows, row 1 %v", d.Len(), d.DenseRow(1))
	}
}

func TestReadLongLine(t *testing.T) {
	// one row of 1,000,000 features, about 10 MB, between short lines:
	// far beyond the 256 KiB read buffer in both passes, read under a
	// line limit raised above it
	var b bytes.Buffer
	b.WriteString("1 1:1\n-1")
	const nf = 1_000_000
	for j := 1; j <= nf; j++ {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(j))
		b.WriteString(":0.25")
	}
	b.WriteString("\n\n2 3:2\n")
	if b.Len() < 10<<20 {
		t.Fatalf("long line only %d bytes", b.Len())
	}
	p := rfWrite(t, "long.txt", b.String())
	opt := ReadOptions{MaxLineBytes: 16 << 20}
	st, err := ScanFile(p, opt)
	if want := (FileStats{Rows: 3, Nonzeros: nf + 2, NumFeatures: nf}); err != nil || st != want {
		t.Fatalf("ScanFile = %+v, %v; want %+v", st, err, want)
	}
	d, err := ReadFile(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	idx, val := d.SparseRow(1)
	if d.Len() != 3 || d.NumFeatures() != nf || len(idx) != nf || idx[nf-1] != nf-1 || val[nf-1] != 0.25 || d.Label(2) != 2 {
		t.Fatalf("%d rows, %d features, long row %d nonzeros", d.Len(), d.NumFeatures(), len(idx))
	}
	// line numbers stay right after the long line
	b.WriteString("1 1:q\n")
	_, err = ReadFile(rfWrite(t, "long2.txt", b.String()), opt)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 5 {
		t.Fatalf("error after the long line: %v", err)
	}
}

func TestReadFileMissing(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
	if _, err := ScanFile(filepath.Join(t.TempDir(), "none"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
	// an empty file is an empty data set
	d, err := ReadFile(rfWrite(t, "empty.txt", ""), ReadOptions{})
	if err != nil || d.Len() != 0 {
		t.Fatalf("empty file: %v, %v", d, err)
	}
}

// TestReadFileScanIsUpperBound checks, over every stored data file, that
// ReadFile's data set is exactly as large as the scan said.
func TestReadFileScanIsUpperBound(t *testing.T) {
	files := append(shareddata.Glob(t, "*.t*"), "../testdata/heart_scale.csv")
	for _, p := range files {
		if strings.HasSuffix(p, ".txt") {
			continue
		}
		st, err := ScanFile(p, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadFile(p, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Len() != st.Rows || d.CapRows() != st.Rows || d.NumFeatures() != st.NumFeatures {
			t.Errorf("%s: scan %+v, data set %d rows (cap %d), %d features", p, st, d.Len(), d.CapRows(), d.NumFeatures())
		}
		if d.IsDense() != PreferDense(st.Rows, st.NumFeatures, st.Nonzeros) {
			t.Errorf("%s: scan %+v, dense %v", p, st, d.IsDense())
		}
		if !d.IsDense() && d.Nonzeros() != st.Nonzeros {
			t.Errorf("%s: scan %+v, %d nonzeros stored", p, st, d.Nonzeros())
		}
	}
}

// TestReadParseLineAllocs proves the per-line parse allocates nothing once
// its scratch has grown to the longest row.
func TestReadParseLineAllocs(t *testing.T) {
	lines := []struct {
		f    Format
		line string
	}{
		{FormatLIBSVM, "+1 1:0.708333 2:1 3:1 4:-0.320755 5:-0.105023 6:-1 7:1 8:-0.419847 9:-1 10:-0.225806 12:1 13:-1 "},
		{FormatLIBSVM, "47.0 1:0.02354575262934534 2:0.05068011873981862 3:-0.020217511096257485 4:1e-5 5:0x1p-3"},
		{FormatCSV, "+1,0.708333,1,1,-0.320755,-0.105023,-1,1,-0.419847,-1,-0.225806,0,1,-1"},
	}
	for k := range 2 * len(lines) { // each line on the Go loop, then the vector loop
		c := lines[k%len(lines)]
		p := lineParser{format: c.f, vector: k >= len(lines) && vectorFeatures()}
		line := []byte(c.line)
		if _, _, err := p.parse(line); err != nil { // warm-up: grows the scratch
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(1000, func() {
			if _, _, err := p.parse(line); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%v line: %v allocations per parse", c.f, allocs)
		}
	}
	// and a whole read allocates the same for 270 rows as for 27000: none
	// of it is per line
	heart, err := os.ReadFile("../testdata/heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat(heart, 100)
	d := NewSparse(27000, 337800, 0)
	perRead := func(in []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			d.Reset()
			if _, err := ReadInto(d, bytes.NewReader(in), "h", ReadOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if small, large := perRead(heart), perRead(big); large != small {
		t.Errorf("ReadInto allocations: %v for 270 rows, %v for 27000", small, large)
	}
}

func TestReadFileFashion(t *testing.T) {
	p := rfFashionPath()
	if _, err := os.Stat(p); err != nil || testing.Short() {
		t.Skip("fashion.train absent or -short")
	}
	st, err := ScanFile(p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// awk: 60000 rows, 23423502 pairs, largest index 784
	if want := (FileStats{Rows: 60000, Nonzeros: 23423502, NumFeatures: 784}); st != want {
		t.Fatalf("ScanFile = %+v, want %+v", st, want)
	}
	d, err := ReadFile(p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, 10)
	for _, y := range d.Labels() {
		counts[int(y)]++
	}
	nonzeros, sum := 0, 0.0
	for i := range d.Len() {
		for _, v := range rfRow(d, i, 784) {
			if v != 0 {
				nonzeros++
			}
			sum += float64(v)
		}
	}
	// awk: 6000 rows of each label; Σ values = 13455349.68186 in float64.
	// Values are in [0, 1], so rounding each to float32 moves it by at most
	// 2^-25 ≈ 3e-8, and the sum by at most 23423502·2^-25 ≈ 0.7; the
	// float64 summation adds under 0.05.
	if d.Len() != 60000 || d.NumFeatures() != 784 || d.IsDense() != PreferDense(60000, 784, 23423502) ||
		!slices.Equal(counts, []int{6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000}) ||
		nonzeros != 23423502 || math.Abs(sum-13455349.68186) > 0.75 {
		t.Fatalf("%d rows, %d features, dense %v, label counts %v, %d nonzeros, sum %v",
			d.Len(), d.NumFeatures(), d.IsDense(), counts, nonzeros, sum)
	}
}

func rfFashionPath() string {
	dir := os.Getenv("SVMGO_DATA")
	if dir == "" {
		dir = "/root/.cache/libsvmgo"
	}
	return filepath.Join(dir, "fashion.train")
}

// rfStrconvRead is the benchmark's baseline: the obvious reader, a
// bufio.Scanner, bytes.Fields and strconv, into the same data set.
func rfStrconvRead(d *Dataset, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var idx []int32
	var val []float32
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) == 0 {
			continue
		}
		y, err := strconv.ParseFloat(string(fields[0]), 64)
		if err != nil {
			return err
		}
		idx, val = idx[:0], val[:0]
		for _, fl := range fields[1:] {
			i, v, _ := bytes.Cut(fl, []byte{':'})
			j, err := strconv.Atoi(string(i))
			if err != nil {
				return err
			}
			x, err := strconv.ParseFloat(string(v), 32)
			if err != nil {
				return err
			}
			idx, val = append(idx, int32(j-1)), append(val, float32(x))
		}
		if err := d.AppendSparse(y, idx, val); err != nil {
			return err
		}
	}
	return sc.Err()
}

func BenchmarkReadFile(b *testing.B) {
	heart, err := os.ReadFile("../testdata/heart_scale")
	if err != nil {
		b.Fatal(err)
	}
	// heart_scale-like: the file 400 times over, about 11 MB
	heart400 := filepath.Join(b.TempDir(), "heart400")
	if err := os.WriteFile(heart400, bytes.Repeat(heart, 400), 0o644); err != nil {
		b.Fatal(err)
	}
	files := []struct{ name, path string }{
		{"heart_scale", "../testdata/heart_scale"},
		{"heart_scale_csv", "../testdata/heart_scale.csv"},
		{"heart_scale_x400", heart400},
		{"fashion", rfFashionPath()},
	}
	for _, f := range files {
		fi, err := os.Stat(f.path)
		if err != nil {
			b.Run(f.name, func(b *testing.B) { b.Skip(err) })
			continue
		}
		// the whole job: scan, allocate (first touch of fresh memory
		// included), parse
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadFile(f.path, ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(f.name+"/scan", func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ScanFile(f.path, ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		// the parse alone, into a data set allocated (and touched) once
		b.Run(f.name+"/parse", func(b *testing.B) {
			d := rfBenchDataset(b, f.path)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				d.Reset()
				r, err := os.Open(f.path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = ReadInto(d, r, f.path, ReadOptions{})
				r.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		if strings.HasSuffix(f.path, ".csv") {
			continue
		}
		// baseline: the same into the same, the obvious way
		b.Run(f.name+"/strconv-baseline", func(b *testing.B) {
			d := rfBenchDataset(b, f.path)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				d.Reset()
				if err := rfStrconvRead(d, f.path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// rfBenchDataset returns a data set sized for the file at path.
func rfBenchDataset(b *testing.B, path string) *Dataset {
	st, err := ScanFile(path, ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return NewSparse(st.Rows, st.Nonzeros, 0)
}

// TestReadCSVHeaderAndIndex: pandas' DataFrame.to_csv writes a header
// line and the index as column 1; the header is recognised (its label field
// is not a number) or named, the index dropped by CSVSkipColumns, and the
// rows read as the plain CSV of the same values, by ReadInto, Scan and
// ReadFile alike.
func TestReadCSVHeaderAndIndex(t *testing.T) {
	plain := "1,0.5,0,2\n-1,0,0.25,1\n1,3,0,0\n"
	pandas := ",label,f1,f2,f3\n0,1,0.5,0.0,2\n1,-1,0.0,0.25,1\n2,1,3,0,0\n"
	want := NewSparse(3, 10, 0)
	if _, err := ReadInto(want, strings.NewReader(plain), "p.csv", ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []ReadOptions{
		{}, // the header's empty first field: pandas' index, dropped
		{CSVSkipColumns: []int{1}},
		{CSVSkipColumns: []int{1}, CSVHeader: CSVHeaderPresent},
	} {
		got := NewSparse(3, 10, 0)
		if _, err := ReadInto(got, strings.NewReader(pandas), "d.csv", opt); err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		rfEqual(t, want, got)
		st, err := Scan(strings.NewReader(pandas), "d.csv", opt)
		if w := (FileStats{Rows: 3, Nonzeros: 5, NumFeatures: 3}); err != nil || st != w {
			t.Errorf("%+v: Scan = %+v, %v; want %+v", opt, st, err, w)
		}
	}
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte(pandas), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := ReadFile(path, ReadOptions{CSVSkipColumns: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 3 || ds.NumFeatures() != 3 {
		t.Errorf("ReadFile: %d rows × %d features, want 3 × 3", ds.Len(), ds.NumFeatures())
	}
	// A header of numbers is a row unless named; a weight column counts
	// after the skipped ones.
	numeric := "0,1,2\n1,0.5,2\n"
	got := NewSparse(3, 10, 0)
	if n, err := ReadInto(got, strings.NewReader(numeric), "n.csv", ReadOptions{CSVHeader: CSVHeaderPresent}); err != nil || n != 1 {
		t.Errorf("named numeric header: %d rows, %v", n, err)
	}
	weighted := "i,y,w,x\n7,1,2.5,0.5\n"
	got = NewSparse(3, 10, 0)
	if _, err := ReadInto(got, strings.NewReader(weighted), "w.csv", ReadOptions{CSVSkipColumns: []int{1}, WeightColumn: 2}); err != nil ||
		got.Len() != 1 || got.Weight(0) != 2.5 || got.NumFeatures() != 1 {
		t.Errorf("weight after a skipped column: %v", err)
	}
	if _, err := ReadInto(NewSparse(3, 10, 0), strings.NewReader("1 1:2\n"), "x.txt", ReadOptions{CSVSkipColumns: []int{1}}); err == nil {
		t.Error("skipped columns accepted for a LIBSVM file")
	}
	if _, err := ParseCSVHeader("maybe"); err == nil {
		t.Error(`ParseCSVHeader("maybe") accepted`)
	}
}

// A LIBSVM line read into a dense data set is parsed straight into its
// row (lineParser.row): the values are those a sparse data set gets, and
// a line refused after some of its features were written leaves nothing
// behind, its error naming the feature by its place in the line.
func TestReadIntoDenseInPlace(t *testing.T) {
	const nf = 30
	var b strings.Builder
	line := func(label string, from, to int, last string) string {
		b.Reset()
		b.WriteString(label)
		for j := from; j <= to; j++ {
			fmt.Fprintf(&b, " %d:%.7g", j, float64(j)/7-2)
		}
		b.WriteString(last)
		return b.String()
	}
	good := line("1", 1, nf, "") + "\n" + line("-1", 3, nf-2, "") + "\n" + line("2", 2, 12, " 29:-0") + "\n"
	d := NewDense(10, nf)
	s := NewSparse(10, 1000, 0)
	for _, ds := range []*Dataset{d, s} {
		if n, err := ReadInto(ds, strings.NewReader(good), "good", ReadOptions{}); n != 3 || err != nil {
			t.Fatal(n, err)
		}
	}
	for i := range 3 {
		if d.Label(i) != s.Label(i) {
			t.Fatalf("row %d: label %v dense, %v sparse", i, d.Label(i), s.Label(i))
		}
		want := make([]float32, nf)
		idx, val := s.SparseRow(i)
		for k, j := range idx {
			want[j] = val[k]
		}
		if got := d.DenseRow(i); !slices.Equal(got, want) {
			t.Fatalf("row %d dense %v, sparse %v", i, got, want)
		}
	}
	for _, c := range []struct {
		in  string
		opt ReadOptions
		err error
		msg string
	}{
		{line("1", 1, 20, " 99:1"), ReadOptions{}, ErrBadRow, "index 98 beyond the 30 features allowed"},
		{line("1", 1, 20, " 21:abc 22:1"), ReadOptions{}, ErrSyntax, `feature 21: value "abc" is not a number`},
		{line("1", 1, 20, " 20:1"), ReadOptions{}, ErrSyntax, "feature 21: index 20 after 20"},
		{line("1.5", 1, 20, ""), ReadOptions{ClassLabels: true}, ErrLabels, "label 1.5 is not an integer class"},
	} {
		in := line("3", 1, 5, "") + "\n" + c.in + "\n"
		_, err := ReadInto(d, strings.NewReader(in), "bad", c.opt)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, c.err) || pe.Line != 2 || !strings.Contains(pe.Msg, c.msg) {
			t.Fatalf("%.40q: err = %v, want line 2 and %q (%v)", c.in, err, c.msg, c.err)
		}
		if d.Len() != 3 {
			t.Fatalf("%.40q: %d rows after a failed read, want 3", c.in, d.Len())
		}
		// the rows the failed read wrote into are zero again
		if n, err := ReadInto(d, strings.NewReader("4 30:1\n5\n"), "next", ReadOptions{}); n != 2 || err != nil {
			t.Fatal(n, err)
		}
		want := make([]float32, nf)
		if got := d.DenseRow(4); !slices.Equal(got, want) {
			t.Fatalf("%.40q: a row appended after the failed read holds %v", c.in, got)
		}
		want[nf-1] = 1
		if got := d.DenseRow(3); !slices.Equal(got, want) {
			t.Fatalf("%.40q: a row appended after the failed read holds %v", c.in, got)
		}
		d.Truncate(3)
	}
}

// TestParseFeaturesTokenEnds checks the fast path's token window at its
// edges: every shape of feature it takes (index and integer digits 1 to 7,
// a sign, 0 to 16 fraction digits), followed by a blank or by a byte that
// makes the token invalid, with a line tail long enough for the fast path
// to run, against strconv. Tokens of 24 bytes and more, valid or not,
// must go to the general way.
func TestParseFeaturesTokenEnds(t *testing.T) {
	// The index spelled with leading zeros too ("0000002"), so that the
	// dense row the line is also parsed into stays small.
	var tail, smallTail strings.Builder
	for k := range 8 {
		fmt.Fprintf(&tail, " %d:0.5", 2000000+k)
		fmt.Fprintf(&smallTail, " %d:0.5", 3+k)
	}
	for id := 1; id <= 7; id++ {
		for _, sign := range []string{"", "-"} {
			for in := 1; in <= 7; in++ {
				for fr := -1; fr <= 16; fr++ { // -1: no '.'
					val := ":" + sign + "9876543"[:in]
					if fr >= 0 {
						val += "." + "1234567890123456"[:fr]
					}
					for _, end := range []string{"", "\t", "x", ":", ".", "-", "e5"} {
						rfCheckLine(t, "1 "+"1234567"[:id]+val+end+tail.String(), 0)
						rfCheckLine(t, "1 "+"0000002"[7-id:]+val+end+smallTail.String(), 0)
					}
				}
			}
		}
	}
}

// TestParseFeaturesNearMidpoints: values within a few float64 ulps of a
// float32 rounding midpoint, where m × RN(10^-k) can round to the wrong
// side, must still come out as strconv's; the fast loops refuse them.
func TestParseFeaturesNearMidpoints(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var tail strings.Builder
	for k := range 8 {
		fmt.Fprintf(&tail, " %d:0.5", 3+k)
	}
	for range 3000 {
		a := float32(0.1 + 0.9*r.Float64())
		mid := (float64(a) + float64(math.Nextafter32(a, 1))) / 2
		for _, v := range []string{strconv.FormatFloat(mid, 'f', 15, 64), strconv.FormatFloat(-mid, 'f', 15, 64),
			strconv.FormatFloat(mid*1e6, 'f', 9, 64)} {
			rfCheckLine(t, "1 2:"+v+tail.String(), 0)
		}
	}
}

// TestReadFileMatchesStrconv reads every shared data file with ReadFile
// (both halves, the vector feature loop where the machine has it) and with
// the obvious strconv reader, and wants the same rows bit for bit.
func TestReadFileMatchesStrconv(t *testing.T) {
	for _, p := range append(shareddata.Glob(t, "*.train"), shareddata.Glob(t, "*.test")...) {
		d, err := ReadFile(p, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := NewSparse(d.Len(), d.Len()*max(d.NumFeatures(), 1), 0)
		if err := rfStrconvRead(want, p); err != nil {
			t.Fatal(err)
		}
		if d.IsDense() {
			rfEqual(t, d, want)
			continue
		}
		for i := range d.Len() { // rfEqual's dense rows would take seconds here
			idx, val := d.SparseRow(i)
			wi, wv := want.SparseRow(i)
			if math.Float64bits(d.Label(i)) != math.Float64bits(want.Label(i)) || !slices.Equal(idx, wi) ||
				!slices.EqualFunc(val, wv, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Fatalf("%s row %d: %v %v %v, want %v %v %v", p, i, d.Label(i), idx, val, want.Label(i), wi, wv)
			}
		}
	}
}

// TestParseIntoEmptyRow: a dense row of no features (a dense data set of
// width 0) takes none of a line's features, on every feature loop: they
// stay in index and value for the data set to refuse.
func TestParseIntoEmptyRow(t *testing.T) {
	line := "1" + strings.Repeat(" ", 20)
	for j := range 20 {
		line += fmt.Sprintf(" %d:0.25", j+1)
	}
	for _, vector := range []bool{false, vectorFeatures()} {
		p := lineParser{format: FormatLIBSVM, vector: vector, row: []float32{}}
		if _, _, perr := p.parse([]byte(line)); perr != nil || p.direct != 0 || len(p.index) != 20 {
			t.Fatalf("vector %v: %v, %d direct, %d left", vector, perr, p.direct, len(p.index))
		}
	}
}
