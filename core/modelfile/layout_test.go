package modelfile

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/tinylib/msgp/msgp"
)

// binSize is the encoded size of a msgpack bin of n bytes, from the
// msgpack specification: bin8, bin16 or bin32 header, then the bytes.
func binSize(n int) int {
	switch {
	case n < 1<<8:
		return 2 + n
	case n < 1<<16:
		return 3 + n
	}
	return 5 + n
}

// keySize is the encoded size of a short string key: a fixstr.
func keySize(k string) int { return 1 + len(k) }

// checkTiling checks that the parts of bd tile a file of size bytes and
// that each field's key is where Offset says, with a map header of a size
// msgpack allows between a nested field's key and its entries.
func checkTiling(t *testing.T, name string, b []byte, bd Breakdown) {
	t.Helper()
	if bd.Size != len(b) || bd.Frame != HeaderSize {
		t.Fatalf("%s: Size %d, Frame %d; want %d and %d", name, bd.Size, bd.Frame, len(b), HeaderSize)
	}
	if !slices.Contains([]int{1, 3, 5}, bd.Header) {
		t.Errorf("%s: body map header of %d bytes", name, bd.Header)
	}
	var tile func(fields []Field, pos int) int
	tile = func(fields []Field, pos int) int {
		for _, f := range fields {
			if f.Offset != pos {
				t.Fatalf("%s: key %q at offset %d, want %d", name, f.Key, f.Offset, pos)
			}
			key, _, err := msgp.ReadStringZC(b[f.Offset : f.Offset+f.KeySize])
			if err != nil || string(key) != f.Key {
				t.Fatalf("%s: bytes at offset %d (%d) hold key %q (%v), want %q", name, f.Offset, f.KeySize, key, err, f.Key)
			}
			if f.Fields != nil {
				start := f.Offset + f.KeySize
				hdr := f.Size - f.KeySize // an empty map is all header
				if len(f.Fields) > 0 {
					hdr = f.Fields[0].Offset - start
				}
				if !slices.Contains([]int{1, 3, 5}, hdr) {
					t.Fatalf("%s: map %q: entries start %d bytes after the key", name, f.Key, hdr)
				}
				if end := tile(f.Fields, start+hdr); end != f.Offset+f.Size {
					t.Fatalf("%s: map %q: entries end at %d, the field at %d", name, f.Key, end, f.Offset+f.Size)
				}
			}
			pos += f.Size
		}
		return pos
	}
	if end := tile(bd.Fields, bd.Frame+bd.Header); end != len(b) {
		t.Fatalf("%s: fields end at %d of %d bytes", name, end, len(b))
	}
	sum := bd.Frame + bd.Header
	for _, f := range bd.Fields {
		sum += f.Size
	}
	if sum != len(b) {
		t.Errorf("%s: parts add up to %d bytes, the file has %d", name, sum, len(b))
	}
}

// keys returns the keys of fields in order.
func keys(fields []Field) []string {
	var k []string
	for _, f := range fields {
		k = append(k, f.Key)
	}
	return k
}

// field returns the field of fields with key k.
func field(t *testing.T, fields []Field, k string) Field {
	t.Helper()
	for _, f := range fields {
		if f.Key == k {
			return f
		}
	}
	t.Fatalf("no field %q in %v", k, keys(fields))
	return Field{}
}

func TestLayoutLinear(t *testing.T) {
	for _, tc := range testModels() {
		b := marshal(t, tc.m)
		bd, err := Layout(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkTiling(t, tc.name, b, bd)
		if bd.Major != 1 || bd.Minor != 0 {
			t.Errorf("%s: format %d.%d, want 1.0", tc.name, bd.Major, bd.Minor)
		}
		want := []string{"k", "s", "nf", "l", "b", "nw", "w", "p", "r", "t"}
		wBytes := 4 * len(tc.m.W)
		if tc.m.Solver.IsL1() { // stored sparse: no dense weights
			want = []string{"k", "s", "nf", "l", "b", "nw", "w", "wi", "wx", "p", "r", "t"}
			wBytes = 0
		}
		if got := keys(bd.Fields); !slices.Equal(got, want) {
			t.Fatalf("%s: keys %v, want %v", tc.name, got, want)
		}
		// Sizes the msgpack specification gives for these fields.
		for k, want := range map[string]int{
			"k": keySize("k") + keySize(KindLinear),
			"l": keySize("l") + binSize(4*len(tc.m.Labels)),
			"w": keySize("w") + binSize(wBytes),
			"b": keySize("b") + 9, // float64
		} {
			if f := field(t, bd.Fields, k); f.Size != want || f.KeySize != keySize(k) {
				t.Errorf("%s: %q takes %d bytes (key %d), want %d (key %d)", tc.name, k, f.Size, f.KeySize, want, keySize(k))
			}
		}
		if got, want := keys(field(t, bd.Fields, "p").Fields), []string{"s", "c", "e", "ae", "p", "b", "cw", "mi", "sd"}; !slices.Equal(got, want) {
			t.Errorf("%s: p keys %v, want %v", tc.name, got, want)
		}
		if got, want := keys(field(t, bd.Fields, "r").Fields), []string{"it", "up", "do", "po", "gap", "sv", "cv", "sub"}; !slices.Equal(got, want) {
			t.Errorf("%s: r keys %v, want %v", tc.name, got, want)
		}
		for _, f := range bd.Fields {
			if (f.Fields != nil) != (f.Key == "p" || f.Key == "r") {
				t.Errorf("%s: %q broken down: %v", tc.name, f.Key, f.Fields != nil)
			}
		}
	}
}

func TestLayoutKernel(t *testing.T) {
	for _, tc := range kernelTestModels(t) {
		b := marshalKernel(t, tc.m)
		bd, err := Layout(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkTiling(t, tc.name, b, bd)
		if bd.Major != 1 || bd.Minor != 1 {
			t.Errorf("%s: format %d.%d, want 1.1", tc.name, bd.Major, bd.Minor)
		}
		want := []string{"k", "st", "kt", "kd", "kg", "kc", "nf", "l", "ns", "sr", "sd", "sp", "si", "sx", "c", "rho", "pa", "pb", "p", "r", "t"}
		if got := keys(bd.Fields); !slices.Equal(got, want) {
			t.Fatalf("%s: keys %v, want %v", tc.name, got, want)
		}
		// The stored layout is the decoded data set's; count what it holds.
		m, err := UnmarshalKernel(b)
		if err != nil {
			t.Fatal(err)
		}
		l, nf := m.SV.Len(), m.NumFeatures
		values, index, starts := 4*l*nf, 0, 0
		if !m.SV.IsDense() {
			values, index, starts = 4*m.SV.Nonzeros(), 4*m.SV.Nonzeros(), 4*(l+1)
		}
		for k, want := range map[string]int{
			"k":   keySize("k") + keySize(KindKernel),
			"sx":  keySize("sx") + binSize(values),
			"si":  keySize("si") + binSize(index),
			"sp":  keySize("sp") + binSize(starts),
			"c":   keySize("c") + binSize(8*len(tc.m.Coef)),
			"rho": keySize("rho") + binSize(8*len(tc.m.Rho)),
			"pa":  keySize("pa") + binSize(8*len(tc.m.ProbA)),
			"ns":  keySize("ns") + binSize(4*len(tc.m.NumSV)),
		} {
			if f := field(t, bd.Fields, k); f.Size != want {
				t.Errorf("%s: %q takes %d bytes, want %d", tc.name, k, f.Size, want)
			}
		}
		if got, want := keys(field(t, bd.Fields, "p").Fields), []string{"st", "kt", "kd", "kg", "kc", "c", "n", "p", "e", "m", "h", "b", "cw", "sd", "mi"}; !slices.Equal(got, want) {
			t.Errorf("%s: p keys %v, want %v", tc.name, got, want)
		}
		if got, want := keys(field(t, bd.Fields, "r").Fields), []string{"sub", "it", "ke", "obj", "sv", "bsv", "cv"}; !slices.Equal(got, want) {
			t.Errorf("%s: r keys %v, want %v", tc.name, got, want)
		}
	}
}

// TestLayoutUnknownFields: fields and kinds of a later minor version are
// laid out like any other, since Layout reads the encoding only.
func TestLayoutUnknownFields(t *testing.T) {
	payload := marshal(t, testModels()[2].m)[HeaderSize:]
	b := frame(withUnknownFields(t, payload, 70000), Major, Minor+1)
	bd, err := Layout(b)
	if err != nil {
		t.Fatal(err)
	}
	checkTiling(t, "unknown fields", b, bd)
	if bd.Minor != Minor+1 {
		t.Errorf("minor %d, want %d", bd.Minor, Minor+1)
	}
	ks := keys(bd.Fields)
	if ks[0] != "future" || ks[len(ks)-1] != "q8" {
		t.Fatalf("keys %v, want future first and q8 last", ks)
	}
	if got := keys(bd.Fields[0].Fields); !slices.Equal(got, []string{"arr", "s", "i"}) {
		t.Errorf("future's keys %v", got)
	}
	// "s" holds a str32 of 70000 bytes: 2 (key) + 5 (header) + 70000.
	if s := field(t, bd.Fields[0].Fields, "s"); s.Size != 70007 {
		t.Errorf("s takes %d bytes, want 70007", s.Size)
	}
	if q := bd.Fields[len(ks)-1]; q.Size != keySize("q8")+binSize(3) {
		t.Errorf("q8 takes %d bytes, want %d", q.Size, keySize("q8")+binSize(3))
	}
	// "zq" leads p, a float32: 3 bytes of key, 5 of value.
	if zq := field(t, bd.Fields, "p").Fields[0]; zq.Key != "zq" || zq.Size != 8 {
		t.Errorf("p starts with %q of %d bytes, want zq of 8", zq.Key, zq.Size)
	}

	// A nested map with a non-string key is shown whole; an unknown kind
	// is laid out all the same.
	p := msgp.AppendMapHeader(nil, 2)
	p = msgp.AppendString(p, "k")
	p = msgp.AppendString(p, "quantized")
	p = msgp.AppendString(p, "x")
	p = msgp.AppendMapHeader(p, 1)
	p = msgp.AppendInt(p, 1)
	p = msgp.AppendInt(p, 2)
	b = frame(p, Major, Minor+1)
	if bd, err = Layout(b); err != nil {
		t.Fatal(err)
	}
	checkTiling(t, "int key", b, bd)
	if x := bd.Fields[1]; x.Fields != nil || x.Size != 2+3 {
		t.Errorf("x: %d bytes, entries %v; want 5 and none", x.Size, x.Fields)
	}
}

func TestLayoutRefusesDamaged(t *testing.T) {
	valid := marshalKernel(t, kernelTestModels(t)[0].m)
	payload := valid[HeaderSize:]
	flip := func(i int) []byte {
		c := bytes.Clone(valid)
		c[i] ^= 0x04
		return c
	}
	cases := map[string]struct {
		b    []byte
		want error
	}{
		"bad magic":     {flip(3), ErrNotModel},
		"empty":         {nil, ErrTruncated},
		"short header":  {valid[:HeaderSize-1], ErrTruncated},
		"short payload": {valid[:len(valid)-1], ErrTruncated},
		"trailing byte": {append(bytes.Clone(valid), 0), ErrCorrupt},
		"major 2":       {frame(payload, 2, 0), ErrVersion},
		"payload flip":  {flip(len(valid) / 2), ErrChecksum},
		"crc flip":      {flip(21), ErrChecksum},
		"array body":    {frame(msgp.AppendArrayHeader(nil, 0), Major, Minor), ErrCorrupt},
		"int key":       {frame(msgp.AppendInt(msgp.AppendInt(msgp.AppendMapHeader(nil, 1), 1), 0), Major, Minor), ErrCorrupt},
		"bad byte":      {frame([]byte{0xc1}, Major, Minor), ErrCorrupt},
		"two objects":   {frame(append(msgp.AppendMapHeader(nil, 0), 0xc0), Major, Minor), ErrCorrupt},
	}
	for name, tc := range cases {
		bd, err := Layout(tc.b)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
		if bd.Fields != nil || bd.Size != 0 {
			t.Errorf("%s: a refused file gave a breakdown %+v", name, bd)
		}
	}
}

// TestLayoutAllocs: Layout allocates for the keys, not for the values: a
// model with a thousand times the weights costs the same allocations.
func TestLayoutAllocs(t *testing.T) {
	small := marshal(t, newModel(linear.L2LossSVCDual, []int32{1, 2, 3}, 5, 1, 1))
	large := marshal(t, newModel(linear.L2LossSVCDual, []int32{1, 2, 3}, 5000, 1, 1))
	count := func(b []byte) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, err := Layout(b); err != nil {
				t.Fatal(err)
			}
		})
	}
	s, l := count(small), count(large)
	if s != l {
		t.Errorf("%v allocations for %d bytes, %v for %d", s, len(small), l, len(large))
	}
	// One slice per map (body, p, r) and a string per key longer than a
	// byte, which Go allocates (one-byte strings it does not).
	bd, _ := Layout(small)
	limit := 3
	for _, f := range bd.Fields {
		for _, g := range append([]Field{f}, f.Fields...) {
			if len(g.Key) > 1 {
				limit++
			}
		}
	}
	if s > float64(limit) {
		t.Errorf("%v allocations, want at most %d", s, limit)
	}
}

// FuzzLayout: Layout never panics, refuses with modelfile's sentinels only,
// accepts every file a decoder accepts, and its parts always tile the file.
// Plain go test runs the seeds: every seed of FuzzUnmarshal.
func FuzzLayout(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		bd, err := Layout(b)
		if err != nil {
			if !slices.ContainsFunc([]error{ErrNotModel, ErrVersion, ErrTruncated, ErrChecksum, ErrCorrupt},
				func(s error) bool { return errors.Is(err, s) }) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			if _, uerr := Unmarshal(b); uerr == nil {
				t.Fatalf("Layout refuses a file Unmarshal reads: %v", err)
			}
			if _, kerr := UnmarshalKernel(b); kerr == nil {
				t.Fatalf("Layout refuses a file UnmarshalKernel reads: %v", err)
			}
			return
		}
		checkTiling(t, "fuzz", b, bd)
	})
}
