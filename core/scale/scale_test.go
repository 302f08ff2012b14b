package scale

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svmScaleCase is one fixture of testdata/make.sh: svm-scale's options on
// a train file, then -r with its range file on a test file.
type svmScaleCase struct {
	name, train, test string
	lower, upper      float64
	y                 *[2]float64
}

var svmScaleCases = []svmScaleCase{
	{"heart_scale", "heart_scale", "heart_scale", -1, 1, nil},
	{"heart_scale-y", "heart_scale", "heart_scale", 0, 1, &[2]float64{-2, 3}},
	{"breast_cancer", "breast_cancer.train", "breast_cancer.test", -1, 1, nil},
	{"diabetes", "diabetes.train", "diabetes.test", -1, 1, &[2]float64{-1, 1}},
	{"digits", "digits.train", "digits.test", -1, 1, nil},
	{"digits-l0", "digits.train", "digits.test", 0, 1, nil},
}

// scaleRun is what svm-scale writes for a case: its output, its standard
// error and its range file, for -s on the train file and -r on the test.
type scaleRun struct {
	out, errs, rng, rout, rerrs []byte
}

// runOurs scales the case as svmgo scale does.
func runOurs(t *testing.T, c svmScaleCase, dataDir string) scaleRun {
	t.Helper()
	var r scaleRun
	trainPath := filepath.Join(dataDir, c.train)
	var rangeFile bytes.Buffer
	{
		data := readFile(t, trainPath)
		sum, err := Scan(bytes.NewReader(data), trainPath, LIBSVM)
		if err != nil {
			t.Fatal(err)
		}
		rg := sum.Fit(c.lower, c.upper, c.y)
		if _, err := rg.WriteTo(&rangeFile); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		n, err := Write(&out, bytes.NewReader(data), trainPath, LIBSVM, rg)
		if err != nil {
			t.Fatal(err)
		}
		r.out, r.rng = out.Bytes(), rangeFile.Bytes()
		if n > sum.Nonzeros {
			r.errs = []byte(NonzeroWarning(sum.Nonzeros, n))
		}
	}
	testPath := filepath.Join(dataDir, c.test)
	data := readFile(t, testPath)
	sum, err := Scan(bytes.NewReader(data), testPath, LIBSVM)
	if err != nil {
		t.Fatal(err)
	}
	file, err := ReadRanges(bytes.NewReader(r.rng), "range")
	if err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	rg := sum.Restore(file, nil, func(j int) { errs.WriteString(UnseenWarning(j, testPath, "range")) })
	var out bytes.Buffer
	n, err := Write(&out, bytes.NewReader(data), testPath, LIBSVM, rg)
	if err != nil {
		t.Fatal(err)
	}
	if n > sum.Nonzeros {
		errs.WriteString(NonzeroWarning(sum.Nonzeros, n))
	}
	r.rout, r.rerrs = out.Bytes(), errs.Bytes()
	return r
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]) + " " + strconv.Itoa(len(b))
}

// TestSVMScaleFixtures checks svmgo's scaling byte for byte against the
// outputs Debian's svm-scale 3.24 wrote (testdata/make.sh): range files
// and the small outputs whole, the others by SHA-256 and size.
func TestSVMScaleFixtures(t *testing.T) {
	want := map[string]string{} // "case stream" → "sha256 size"
	f, err := os.Open("testdata/outputs.sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		want[w[2]+" "+w[3]] = w[0] + " " + w[1]
	}
	for _, c := range svmScaleCases {
		t.Run(c.name, func(t *testing.T) {
			got := runOurs(t, c, "../testdata")
			if wantRange := readFile(t, "testdata/"+c.name+".range"); !bytes.Equal(got.rng, wantRange) {
				t.Errorf("range file:\n%s\nsvm-scale's:\n%s", got.rng, wantRange)
			}
			if whole, err := os.ReadFile("testdata/" + c.name + ".out"); err == nil {
				if !bytes.Equal(got.out, whole) {
					t.Errorf("output differs from svm-scale's at byte %d", firstDiff(got.out, whole))
				}
			}
			for stream, b := range map[string][]byte{"out": got.out, "err": got.errs, "restore": got.rout, "restore-err": got.rerrs} {
				w, ok := want[c.name+" "+stream]
				if !ok {
					t.Fatalf("no fixture for %s %s", c.name, stream)
				}
				if stream == "restore-err" || stream == "err" {
					// The warnings name the files; the fixtures' paths are
					// make.sh's, which are ours too except for the range file.
					b = bytes.ReplaceAll(b, []byte(" range."), []byte(" "+c.name+".range."))
				}
				if g := digest(b); g != w {
					t.Errorf("%s: sha256 and size %s, svm-scale's %s", stream, g, w)
				}
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSVMScaleLive runs Debian's svm-scale, when installed, on the cases
// and compares every byte; it skips otherwise.
func TestSVMScaleLive(t *testing.T) {
	exe, err := exec.LookPath("svm-scale")
	if err != nil {
		t.Skip("svm-scale not installed")
	}
	dir := t.TempDir()
	for _, c := range svmScaleCases {
		t.Run(c.name, func(t *testing.T) {
			rangePath := filepath.Join(dir, c.name+".range")
			args := []string{"-l", fmtG(c.lower), "-u", fmtG(c.upper)}
			if c.y != nil {
				args = append(args, "-y", fmtG(c.y[0]), fmtG(c.y[1]))
			}
			out, errs := svmScale(t, exe, append(args, "-s", rangePath, filepath.Join("../testdata", c.train))...)
			rout, rerrs := svmScale(t, exe, "-r", rangePath, filepath.Join("../testdata", c.test))
			got := runOurs(t, c, "../testdata")
			rerrs = bytes.ReplaceAll(rerrs, []byte(rangePath), []byte("range"))
			for _, x := range []struct {
				what      string
				got, want []byte
			}{
				{"output", got.out, out}, {"warnings", got.errs, errs},
				{"range file", got.rng, readFile(t, rangePath)},
				{"restored output", got.rout, rout}, {"restore warnings", got.rerrs, rerrs},
			} {
				if !bytes.Equal(x.got, x.want) {
					t.Errorf("%s differs from svm-scale's at byte %d of %d", x.what, firstDiff(x.got, x.want), len(x.want))
				}
			}
		})
	}
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func svmScale(t *testing.T, exe string, args ...string) (stdout, stderr []byte) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("svm-scale %v: %v: %s", args, err, e.Bytes())
	}
	return o.Bytes(), e.Bytes()
}

// TestRestoreHandDerived checks -r's rules on a case worked by hand (and
// by svm-scale 3.24, whose output and warnings these are): features the
// range file does not list are dropped with a warning when the rows vary
// them, values outside a range are not clipped, and 0 scales like any
// value.
func TestRestoreHandDerived(t *testing.T) {
	const rangeFile = "x\n-1 1\n1 0 5\n3 -2 2\n6 1 4\n"
	const data = "1 1:5 2:2 3:1 4:9 5:1 6:3\n3 2:4 5:2 6:8 8:1\n"
	// Feature 1 [0,5]: 5 → 1, absent 0 → −1. Feature 3 [−2,2]: 1 → 0.5,
	// absent 0 → 0 (not written). Feature 6 [1,4]: 3 → 1/3, 8 → 11/3
	// (outside, not clipped). Features 2, 4, 5, 8: dropped, warned.
	const want = "1 1:1 3:0.5 6:0.333333 \n3 1:-1 6:3.66667 \n"
	file, err := ReadRanges(strings.NewReader(rangeFile), "r")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Scan(strings.NewReader(data), "t", LIBSVM)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 2 || sum.Nonzeros != 10 || sum.Index[len(sum.Index)-1] != 7 {
		t.Fatalf("summary rows %d nonzeros %d features %d, want 2 10 8", sum.Rows, sum.Nonzeros, len(sum.Min))
	}
	var warned []int
	rg := sum.Restore(file, nil, func(j int) { warned = append(warned, j) })
	var out bytes.Buffer
	n, err := Write(&out, strings.NewReader(data), "t", LIBSVM, rg)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != want || n != 5 {
		t.Errorf("output %q (%d pairs), want %q (5)", out.String(), n, want)
	}
	if len(warned) != 4 || warned[0] != 2 || warned[1] != 4 || warned[2] != 5 || warned[3] != 8 {
		t.Errorf("warned for %v, want [2 4 5 8]", warned)
	}
}

// TestReadRangesErrors checks that malformed range files are refused with
// the line that was wrong.
func TestReadRangesErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "r:0: want the line \"x\""},
		{"x\n", "x section without its limits"},
		{"x\n1 -1\n", "invalid ranges"},
		{"x\n-1 1\n2 0 1\n1 0 1\n", "r:4: feature index 1 after 2"},
		{"x\n-1 1\n0 0 1\n", "r:3: feature index \"0\""},
		{"x\n-1 1\n1 0\n", "r:3: want \"index min max\""},
		{"x\n-1 1\n1 3 1\n", "feature 1: range [3, 1]"},
		{"y\n0 1\n", "y section without its range"},
		{"x\n-1 1\n1 a 1\n", "\"a\" is not a number"},
	} {
		_, err := ReadRanges(strings.NewReader(c.in), "r")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadRanges(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
	if _, err := ReadRanges(strings.NewReader("x\n1 -1\n"), "r"); !errors.Is(err, ErrRanges) {
		t.Errorf("inverted interval: %v, want ErrRanges", err)
	}
}

// TestScanErrors checks that malformed data lines are refused with file
// and line.
func TestScanErrors(t *testing.T) {
	for _, c := range []struct {
		in     string
		format Format
		want   string
	}{
		{"1 1:1\n\n", LIBSVM, "d:2: blank line"},
		{"1 2:1 1:1\n", LIBSVM, "d:1: feature index 1 after 2"},
		{"1 x\n", LIBSVM, "d:1: \"x\" is not index:value"},
		{"1 1:nan\n", LIBSVM, "not a finite number"},
		{"a 1:1\n", LIBSVM, "label \"a\""},
		{"1,2,\"3\"\n", CSV, "quoted"},
		{"1,,3\n", CSV, "column 2: empty field"},
	} {
		_, err := Scan(strings.NewReader(c.in), "d", c.format)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Scan(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestCSVMatchesLIBSVM checks that a CSV file scales as the LIBSVM file
// with the same nonzeros.
func TestCSVMatchesLIBSVM(t *testing.T) {
	const csv = "1,0,2.5,-1\n-1,3,0,4\n2,1,1,0\n"
	const text = "1 2:2.5 3:-1\n-1 1:3 3:4\n2 1:1 2:1\n"
	scaled := func(in string, f Format) string {
		sum, err := Scan(strings.NewReader(in), "d", f)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := Write(&out, strings.NewReader(in), "d", f, sum.Fit(-1, 1, nil)); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	a, b := scaled(csv, CSV), scaled(text, LIBSVM)
	// Feature 1 [0,3]: 0 → −1, 3 → 1, 1 → −1/3; feature 2 [0,2.5]: 1 →
	// −0.2; feature 3 [−1,4]: 0 → −0.6.
	const want = "1 1:-1 2:1 3:-1 \n-1 1:1 2:-1 3:1 \n2 1:-0.333333 2:-0.2 3:-0.6 \n"
	if a != want || b != want {
		t.Errorf("CSV %q, LIBSVM %q, want %q", a, b, want)
	}
}
