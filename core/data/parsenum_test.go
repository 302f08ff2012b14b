package data

import (
	"bufio"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/internal/shareddata"
)

// The reference for every number parser here is strconv.ParseFloat: ours
// must accept exactly the text it accepts with a finite result and return
// the same bits (so -0 stays -0). float32Prefix may decline anything, but
// what it accepts must be right.

// checkParseNumber compares all our parse paths on s with strconv.
func checkParseNumber(t testing.TB, s string) {
	t.Helper()
	b := []byte(s)
	for _, bits := range []int{32, 64} {
		want, err := strconv.ParseFloat(s, bits)
		wantOK := err == nil && !math.IsInf(want, 0) && !math.IsNaN(want)
		var got float64
		var ok bool
		if bits == 32 {
			var g float32
			g, ok = parseFloat32(b)
			got = float64(g)
		} else {
			got, ok = parseFloat64(b)
		}
		if ok != wantOK || (ok && math.Float64bits(got) != math.Float64bits(want)) {
			t.Fatalf("parseFloat%d(%q) = %v, %v; strconv gives %v, %v", bits, s, got, ok, want, err)
		}
	}
	if f, n, ok := float32Prefix(b); ok && n == len(b) {
		want, err := strconv.ParseFloat(s, 32)
		if err != nil || math.Float32bits(f) != math.Float32bits(float32(want)) {
			t.Fatalf("float32Prefix(%q) = %v; strconv gives %v, %v", s, f, want, err)
		}
	}
}

func TestParseFloatCases(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "+0", "0.0", "-0.0", ".5", "5.", "-.5", "+1", "-1", "151.0", "1e3", "1E3", "1e+3", "1e-3",
		"0.708333", "-0.320755", "0.0039215689", "0.52156866", "1", "0.023545752629345340",
		"123456789012345678", "1234567890123456789", "12345678901234567890", "9007199254740993",
		"0.000000000000000000000000000001", "1e22", "1e23", "1e-22", "1e-23", "123e30", "1e37", "1e38",
		"3.4028235e38", "3.4028236e38", "3.5e38", "1e39", "1e308", "1e309", "1.17549435e-38", "1e-40",
		"1e-45", "1e-46", "4.9e-324", "1e-400", "0e999999", "1e99999999999999999999", "1e-99999999999",
		"0x1p-2", "0x1.8p1", "0X10", "inf", "-Inf", "+infinity", "nan", "NaN", "infx",
		"", "+", "-", ".", "e5", "1e", "1e+", "1e-", "1ee5", "1..2", "1.2.3", "--1", "+-1", "1_000", "0x_1p0",
		" 1", "1 ", "1,", "1:2", "12345678a", "1234567890123456789012345", "0.00000000000000000000000001",
		"16777217", "16777216.5", "33554431", "8388608.5", "0.1", "0.2", "0.3",
		// float32 rounding midpoints, exactly and nearby
		"16777217.0", "1.00000005960464477539062500", "1.0000000596046448", "1.0000000596046447",
		"7.038531e-26", "3.40282356779733661637539395458142568448e38",
	} {
		checkParseNumber(t, s)
	}
}

// TestFloat32PrefixLongSignificands checks that float32Prefix takes the
// values %.17g and numpy write (17 to 19 digits, significands past 2^53:
// diabetes.train's, a third of which went to strconv) and gets them right,
// midpoints and the 19-digit edge included.
func TestFloat32PrefixLongSignificands(t *testing.T) {
	for _, s := range []string{"0.059685012862409445", "-0.020217511096257485", "9007199254740993",
		"0.899999999999999999", "9223372036854775807", "3.14159265358979323"} {
		if _, n, ok := float32Prefix([]byte(s)); !ok || n != len(s) {
			t.Errorf("float32Prefix(%q) declined it", s)
		}
		checkParseNumber(t, s)
	}
	r := rand.New(rand.NewPCG(7, 25))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for range n {
		x := math.Float32frombits(r.Uint32() & 0x7f7fffff)
		if r.IntN(2) == 0 { // at and around a midpoint
			mid := (float64(x) + float64(math.Nextafter32(x, float32(math.Inf(1))))) / 2
			x64 := math.Float64frombits(math.Float64bits(mid) + uint64(r.IntN(41)) - 20)
			checkParseNumber(t, strconv.FormatFloat(x64, 'f', -1, 64))
			checkParseNumber(t, strconv.FormatFloat(x64, 'g', 17, 64))
		}
		v := float64(x) * math.Pow(10, float64(-r.IntN(6)))
		checkParseNumber(t, strconv.FormatFloat(v, 'f', 17+r.IntN(3), 64))
	}
}

func TestParseFloatMidpoints(t *testing.T) {
	// Every decimal that lands on a float32 midpoint after rounding to
	// float64 must reach strconv, which breaks the tie from the full text.
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		x := math.Float32frombits(r.Uint32() & 0x7f7fffff) // finite, positive
		next := math.Nextafter32(x, float32(math.Inf(1)))
		mid := (float64(x) + float64(next)) / 2 // exact: 25 bits
		exact := new(big.Float).SetFloat64(mid).Text('g', 1000)
		checkParseNumber(t, exact)
		checkParseNumber(t, strconv.FormatFloat(mid, 'g', -1, 64))
		checkParseNumber(t, strconv.FormatFloat(math.Nextafter(mid, 0), 'g', -1, 64))
		checkParseNumber(t, strconv.FormatFloat(math.Nextafter(mid, 2*mid), 'g', -1, 64))
		for _, prec := range []int{8, 9, 10, 17} {
			checkParseNumber(t, strconv.FormatFloat(mid, 'g', prec, 64))
			checkParseNumber(t, strconv.FormatFloat(mid, 'f', prec, 64))
		}
	}
}

// randomDecimal returns a decimal string with 1 to 25 digits, maybe a
// sign, a point anywhere, leading zeros and an exponent.
func randomDecimal(r *rand.Rand, buf []byte) []byte {
	buf = buf[:0]
	switch r.IntN(4) {
	case 0:
		buf = append(buf, '-')
	case 1:
		buf = append(buf, '+')
	}
	nd := 1 + r.IntN(25)
	if r.IntN(3) == 0 {
		nd = 1 + r.IntN(9)
	}
	point := -1
	if r.IntN(4) != 0 {
		point = r.IntN(nd + 1)
	}
	lead := 0
	if r.IntN(4) == 0 {
		lead = r.IntN(12)
	}
	for k := 0; k < nd; k++ {
		if k == point {
			buf = append(buf, '.')
		}
		c := byte('0' + r.IntN(10))
		if k < lead {
			c = '0'
		}
		buf = append(buf, c)
	}
	if point == nd {
		buf = append(buf, '.')
	}
	if r.IntN(3) == 0 {
		buf = append(buf, "eE"[r.IntN(2)])
		if r.IntN(2) == 0 {
			buf = append(buf, "+-"[r.IntN(2)])
		}
		e := r.IntN(50)
		if r.IntN(10) == 0 {
			e = r.IntN(400)
		}
		buf = strconv.AppendInt(buf, int64(e), 10)
	}
	return buf
}

func TestParseFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 1_000_000
	if testing.Short() {
		n = 50_000
	}
	var buf []byte
	for range n {
		buf = randomDecimal(r, buf)
		checkParseNumber(t, string(buf))
	}
	// %.8g of random float32s and float64s: the way data files are written
	for range n / 4 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		checkParseNumber(t, strconv.FormatFloat(f, 'g', 8, 64))
		g := float64(math.Float32frombits(r.Uint32()))
		checkParseNumber(t, strconv.FormatFloat(g, 'g', 8, 64))
		checkParseNumber(t, strconv.FormatFloat(r.Float64(), 'f', 1+r.IntN(17), 64))
	}
}

// TestParseFloatDataFiles checks every label and value token of the
// benchmark data files.
func TestParseFloatDataFiles(t *testing.T) {
	files := append(shareddata.Glob(t, "*.train"), shareddata.Glob(t, "*.test")...)
	seen := map[string]bool{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			for k, tok := range strings.Fields(sc.Text()) {
				if k > 0 {
					_, tok, _ = strings.Cut(tok, ":")
				}
				if !seen[tok] {
					seen[tok] = true
					checkParseNumber(t, tok)
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files, %d distinct tokens", len(files), len(seen))
}

// TestParseDigitRun checks the SWAR digit runs against a byte loop, on
// runs of every length followed by every kind of byte.
func TestParseDigitRun(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		b := make([]byte, r.IntN(30))
		nd := r.IntN(len(b) + 1)
		for k := range b {
			if k < nd {
				b[k] = byte('0' + r.IntN(10))
			} else if r.IntN(2) == 0 {
				b[k] = byte(r.Uint32()) // any byte, 0x2F, 0x3A and 0xFA..0xFF included
			} else {
				const seps = "/:.e ,\xff\xfa9"
				b[k] = seps[r.IntN(len(seps))]
			}
		}
		var want uint64
		n := 0
		for n < len(b) && b[n] >= '0' && b[n] <= '9' {
			want = want*10 + uint64(b[n]-'0')
			n++
		}
		if n > 19 {
			continue // m wraps; callers refuse such runs
		}
		if m, i := digitRun(b, 0, 0); m != want || i != n {
			t.Fatalf("digitRun(%q) = %d, %d; want %d, %d", b, m, i, want, n)
		}
	}
}

func TestParseIndex(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int64
		n    int
		rest string
	}{
		{"1:", 1, 1, ":"},
		{"784:0.5", 784, 3, ":0.5"},
		{"0007:", 7, 4, ":"},
		{"2147483647:", maxIndex, 10, ":"},
		{"2147483648:", maxIndex + 1, 10, ":"},
		{"99999999999999999999999999:", maxIndex + 1, 26, ":"},
		{":", 0, 0, ":"},
		{"-1:", 0, 0, "-1:"},
	} {
		v, n := scanIndex([]byte(c.in))
		if v != c.v || n != c.n || c.in[n:] != c.rest {
			t.Errorf("scanIndex(%q) = %d, %d; want %d, %d", c.in, v, n, c.v, c.n)
		}
	}
}

func FuzzParseFloat32(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "1", "+1", "-1.5", "0.0039215689", "1e3", "1e-45", "3.4028235e38", "1e39",
		"16777217", "1.0000000596046448", "0x1p-2", "inf", "nan", "", ".", "1e", "1_0",
		"12345678901234567890123", "0.000000000000000000000000000000000001", "7.038531e-26",
		"1e-99999999999", "0e10000000", "00000000000000000000000000000001",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkParseNumber(t, string(b))
	})
}

func BenchmarkParseFloat32(b *testing.B) {
	vals := [][]byte{[]byte("0.0039215689"), []byte("0.52156866"), []byte("-0.320755"), []byte("1")}
	b.Run("float32Prefix", func(b *testing.B) {
		for b.Loop() {
			for _, v := range vals {
				float32Prefix(v)
			}
		}
	})
	b.Run("parseFloat32", func(b *testing.B) {
		for b.Loop() {
			for _, v := range vals {
				parseFloat32(v)
			}
		}
	})
	b.Run("strconv", func(b *testing.B) { // baseline
		for b.Loop() {
			for _, v := range vals {
				strconv.ParseFloat(bytesString(v), 32)
			}
		}
	})
}
