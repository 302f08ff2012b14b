package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/tinylib/msgp/msgp"
)

// namedModel is a hand-built model for the tests.
type namedModel struct {
	name string
	m    *linear.LinearModel
}

// newModel returns a model with labels, features and bias as given, its
// weights drawn from a seeded generator and its params and result filled
// with distinct values, so that a field dropped or swapped by the codec
// shows up as a difference.
func newModel(solver linear.LinearSolver, labels []int32, nf int, bias float64, seed uint64) *linear.LinearModel {
	m := &linear.LinearModel{
		Solver:      solver,
		Labels:      labels,
		NumFeatures: nf,
		Bias:        bias,
		Params:      linear.DefaultLinearParams(),
	}
	m.Params.Solver = solver
	m.Params.Bias = bias
	m.Params.Seed = seed
	m.Params.Threads = 3 // not stored: round trips as 0
	rows := nf
	if bias >= 0 {
		rows++
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	m.W = make([]float32, rows*m.NrW())
	for i := range m.W {
		m.W[i] = float32(rng.NormFloat64())
	}
	m.Result = linear.TrainResult{
		Iterations:      17,
		Updates:         12345,
		DualObjective:   -1.25,
		PrimalObjective: 1.5,
		DualityGap:      0.25,
		NumSV:           9,
		Converged:       true,
	}
	for k := 0; k < m.NrW(); k++ {
		var l int32
		if !solver.IsRegression() {
			l = labels[k]
		}
		m.Result.Subproblems = append(m.Result.Subproblems, linear.SolveResult{
			Label:           l,
			Iterations:      10 + k,
			Updates:         int64(1000 * (k + 1)),
			DualObjective:   -float64(k) - 0.5,
			PrimalObjective: float64(k) + 0.75,
			DualityGap:      0.25,
			NumSV:           3 + k,
			NumBoundSV:      k,
			Converged:       k != 1,
		})
	}
	return m
}

func testModels() []namedModel {
	weighted := newModel(linear.L1LossSVCDual, []int32{2, 0, 5}, 4, 1, 3)
	weighted.Params.Weights = []core.ClassWeight{{Label: 2, Weight: 0.5}, {Label: 5, Weight: 3}}
	weighted.Params.C = 10
	weighted.Created = 1_700_000_000

	svr := newModel(linear.L2LossSVRDual, nil, 6, -1, 4)
	svr.Params.P = 0.2
	svr.Params.AbsoluteEps = true
	svr.Params.Eps = 1e-3

	special := newModel(linear.L2LossSVCDual, []int32{math.MaxInt32, math.MinInt32}, 5, 0, 6)
	copy(special.W, []float32{float32(math.Copysign(0, -1)), -math.MaxFloat32,
		math.Float32frombits(0x807fffff), math.SmallestNonzeroFloat32, math.MaxFloat32, -1})
	special.Created = -1
	special.Result.Converged = false
	special.Params.Seed = math.MaxUint64

	// An L1-regularized model with most weights zero, stored sparse: one
	// function's nonzeros at its first and last rows.
	l1 := newModel(linear.L1L2LossSVC, []int32{3, 1, 2}, 40, 1, 9)
	for i := range l1.W {
		if i%7 != 0 && i != 1 && i != len(l1.W)-1 {
			l1.W[i] = 0
		}
	}

	return []namedModel{
		{"binary", newModel(linear.L2LossSVCDual, []int32{1, -1}, 5, -1, 1)},
		{"binary-bias", newModel(linear.L2LossSVCDual, []int32{7, 3}, 8, 1, 2)},
		{"ovr3-weights", weighted},
		{"ovr4", newModel(linear.L2LossSVCDual, []int32{4, 3, 2, 1}, 20, -1, 5)},
		{"svr", svr},
		{"svr-bias", newModel(linear.L1LossSVRDual, nil, 3, 2.5, 7)},
		{"no-features", newModel(linear.L2LossSVCDual, []int32{1, 2, 3}, 0, 1, 8)},
		{"special-floats", special},
		{"l1-sparse", l1},
	}
}

// stored returns the model Unmarshal should give back for m: m without
// Params.Threads.
func stored(m *linear.LinearModel) *linear.LinearModel {
	c := *m
	c.Params.Threads = 0
	if c.Solver.IsL1() {
		c.IndexNonzeroRows() // the reader indexes an L1 model's nonzero rows
	}
	return &c
}

// frame wraps payload in a header with a correct length and CRC.
func frame(payload []byte, major, minor uint16) []byte {
	b := make([]byte, HeaderSize, HeaderSize+len(payload))
	putHeader(b, major, minor, payload)
	return append(b, payload...)
}

// marshal is Marshal that fails the test on error.
func marshal(t testing.TB, m *linear.LinearModel) []byte {
	t.Helper()
	b, err := Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return b
}

// samePredictions checks that a and b give bit-identical decision values
// and predictions on random dense and sparse rows.
func samePredictions(t *testing.T, a, b *linear.LinearModel) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	da := make([]float64, a.NrW())
	db := make([]float64, b.NrW())
	for range 20 {
		x := make([]float32, a.NumFeatures)
		for j := range x {
			x[j] = float32(rng.NormFloat64())
		}
		va, vb := a.DecisionDense(da, x), b.DecisionDense(db, x)
		for k := range va {
			if math.Float64bits(va[k]) != math.Float64bits(vb[k]) {
				t.Fatalf("dense decision %d: %v before, %v after", k, va[k], vb[k])
			}
		}
		// Sparse rows reach past NumFeatures, which both must ignore.
		var index []int32
		var value []float32
		for j := 0; j < a.NumFeatures+3; j++ {
			if rng.IntN(2) == 0 {
				index = append(index, int32(j))
				value = append(value, float32(rng.NormFloat64()))
			}
		}
		pa, pb := a.PredictSparse(index, value), b.PredictSparse(index, value)
		if math.Float64bits(pa) != math.Float64bits(pb) {
			t.Fatalf("sparse prediction: %v before, %v after", pa, pb)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range testModels() {
		t.Run(tc.name, func(t *testing.T) {
			b := marshal(t, tc.m)
			got, err := Unmarshal(b)
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if want := stored(tc.m); !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip changed the model:\n got %+v\nwant %+v", got, want)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("decoded model invalid: %v", err)
			}
			samePredictions(t, tc.m, got)
			if again := marshal(t, got); !bytes.Equal(again, b) {
				t.Fatalf("re-marshalling the decoded model gives different bytes")
			}
		})
	}
}

// TestNonFiniteWeightsRefused (issue 10, fault 2): a linear model whose
// weights are NaN or infinite is refused by Marshal and, with a valid
// checksum, by Unmarshal, as core's Validate refuses it: the decoder is the
// one validation every loading path shares. A NaN in the training result
// (metadata no prediction reads) still round-trips.
func TestNonFiniteWeightsRefused(t *testing.T) {
	for _, bits := range []uint32{0x7fc00123, 0x7f800000, 0xff800000} {
		m := newModel(linear.L2LossSVCDual, []int32{1, -1}, 3, -1, 1)
		m.W[1] = math.Float32frombits(bits)
		if _, err := Marshal(m); err == nil {
			t.Errorf("Marshal of weight bits %#x succeeded", bits)
		}
		bd := toBody(newModel(linear.L2LossSVCDual, []int32{1, -1}, 3, -1, 1))
		binary.LittleEndian.PutUint32(bd.W[4:], bits)
		p, err := bd.MarshalMsg(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Unmarshal(frame(p, Major, 0)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "weight 1") {
			t.Errorf("Unmarshal of weight bits %#x: %v, want ErrCorrupt naming weight 1", bits, err)
		}
	}
	m := newModel(linear.L2LossSVCDual, []int32{1, -1}, 3, -1, 1)
	m.Result.DualityGap = math.NaN()
	got, err := Unmarshal(marshal(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(got.Result.DualityGap) {
		t.Errorf("duality gap %v, want NaN", got.Result.DualityGap)
	}
}

func TestDeterministic(t *testing.T) {
	for _, tc := range testModels() {
		a := marshal(t, tc.m)
		b := marshal(t, tc.m)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two Marshal calls differ", tc.name)
		}
		// Threads does not change the model, so it must not change the file.
		c := *tc.m
		c.Params.Threads = 64
		if !bytes.Equal(a, marshal(t, &c)) {
			t.Errorf("%s: Params.Threads changes the bytes", tc.name)
		}
		// A field that does change the model changes the bytes.
		c.Created++
		if bytes.Equal(a, marshal(t, &c)) {
			t.Errorf("%s: Created does not change the bytes", tc.name)
		}
	}
}

// crc32cBitwise is an independent CRC-32C: the reflected polynomial
// 0x82F63B78 applied one bit at a time.
func crc32cBitwise(b []byte) uint32 {
	crc := ^uint32(0)
	for _, c := range b {
		crc ^= uint32(c)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestHeaderGolden(t *testing.T) {
	if got := crc32cBitwise([]byte("123456789")); got != 0xE3069283 {
		t.Fatalf("reference CRC-32C check value %#x, want 0xE3069283", got)
	}
	b := marshal(t, testModels()[0].m)
	h := b[:HeaderSize]
	if want := []byte{0x89, 'S', 'V', 'M', '\r', '\n', 0x1a, '\n'}; !bytes.Equal(h[0:8], want) {
		t.Errorf("magic % x, want % x", h[0:8], want)
	}
	if !bytes.Equal(h[8:12], []byte{1, 0, 0, 0}) {
		t.Errorf("version bytes % x, want 01 00 00 00 (1.0)", h[8:12])
	}
	n := uint64(len(b) - HeaderSize)
	var want [8]byte
	for i := range want {
		want[i] = byte(n >> (8 * i))
	}
	if !bytes.Equal(h[12:20], want[:]) {
		t.Errorf("length bytes % x, want % x (%d little-endian)", h[12:20], want, n)
	}
	crc := crc32cBitwise(b[HeaderSize:])
	if got := uint32(h[20]) | uint32(h[21])<<8 | uint32(h[22])<<16 | uint32(h[23])<<24; got != crc {
		t.Errorf("CRC field %#08x, want %#08x", got, crc)
	}
	if b[HeaderSize]&0xf0 != 0x80 {
		t.Errorf("payload starts with %#02x, want a msgpack fixmap", b[HeaderSize])
	}
}

func TestTruncated(t *testing.T) {
	for _, tc := range testModels()[:3] {
		b := marshal(t, tc.m)
		for n := range len(b) {
			_, err := Unmarshal(b[:n])
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: %d of %d bytes: err = %v, want ErrTruncated", tc.name, n, len(b), err)
			}
		}
		_, err := Unmarshal(append(b, 0))
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: one trailing byte: err = %v, want ErrCorrupt", tc.name, err)
		}
	}
}

func TestBitFlips(t *testing.T) {
	orig := testModels()[2].m // 3 classes, bias, class weights
	b := marshal(t, orig)
	have := uint64(len(b) - HeaderSize)
	for i := range len(b) {
		for bit := range 8 {
			c := bytes.Clone(b)
			c[i] ^= 1 << bit
			m, err := Unmarshal(c)
			var want error
			switch {
			case i < 8:
				want = ErrNotModel
			case i < 10:
				want = ErrVersion
			case i < 12:
				// A changed minor version is accepted by design and
				// must not change the model.
				if err != nil {
					t.Fatalf("byte %d bit %d (minor version): %v", i, bit, err)
				}
				if !reflect.DeepEqual(m, stored(orig)) {
					t.Fatalf("byte %d bit %d (minor version): model changed", i, bit)
				}
				continue
			case i < 20:
				switch n := binary.LittleEndian.Uint64(c[12:20]); {
				case n > MaxPayload:
					want = ErrCorrupt
				case n > have:
					want = ErrTruncated
				default:
					want = ErrCorrupt // trailing bytes
				}
			default:
				want = ErrChecksum // CRC field or payload
			}
			if !errors.Is(err, want) {
				t.Fatalf("byte %d bit %d: err = %v, want %v", i, bit, err, want)
			}
		}
	}
}

func TestRandomBytesRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		n := rng.IntN(200)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if _, err := Unmarshal(b); err == nil {
			t.Fatalf("random bytes %x accepted", b)
		}
		// The same bytes as a payload with a valid frame reach the body
		// decoder.
		_, err := Unmarshal(frame(b, Major, Minor))
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("random payload %d (%x): err = %v, want ErrCorrupt", i, b, err)
		}
	}
	// Random payloads that are msgpack maps with the body's keys get past
	// the shape scan into the decoder and the model checks.
	keys := []string{"k", "s", "nf", "l", "b", "nw", "w", "p", "r", "t"}
	for range 5000 {
		var p []byte
		p = msgp.AppendMapHeader(p, uint32(len(keys)))
		for _, k := range keys {
			p = msgp.AppendString(p, k)
			switch rng.IntN(6) {
			case 0:
				p = msgp.AppendInt64(p, rng.Int64N(8)-2)
			case 1:
				p = msgp.AppendBytes(p, make([]byte, rng.IntN(40)))
			case 2:
				p = msgp.AppendString(p, "linear")
			case 3:
				p = msgp.AppendFloat64(p, rng.NormFloat64())
			case 4:
				p = msgp.AppendMapHeader(p, 0)
			default:
				p = msgp.AppendArrayHeader(p, 0)
			}
		}
		m, err := Unmarshal(frame(p, Major, Minor))
		if err == nil {
			// Possible in principle; then it must be a valid model.
			if verr := m.Validate(); verr != nil {
				t.Fatalf("accepted an invalid model: %v", verr)
			}
			continue
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want ErrCorrupt", err)
		}
	}
}

// reframe encodes bd as a payload with a valid frame.
func reframe(t *testing.T, bd *body, minor uint16) []byte {
	t.Helper()
	p, err := bd.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	return frame(p, Major, minor)
}

func TestInconsistentBodyRefused(t *testing.T) {
	base := testModels()[2].m // 3 classes, 4 features, bias
	cases := []struct {
		name   string
		mutate func(*body)
		detail string // a word the error must contain
	}{
		{"nrW too small", func(b *body) { b.NrW = 1 }, "decision functions"},
		{"nrW too large", func(b *body) { b.NrW = 4 }, "decision functions"},
		{"W one weight short", func(b *body) { b.W = b.W[:len(b.W)-4] }, "weights"},
		{"W one weight long", func(b *body) { b.W = append(b.W, 0, 0, 0, 0) }, "weights"},
		{"W ragged", func(b *body) { b.W = b.W[:len(b.W)-1] }, "float32"},
		{"W missing", func(b *body) { b.W = nil }, "weights"},
		{"labels ragged", func(b *body) { b.Labels = append(b.Labels, 1) }, "int32"},
		{"label dropped", func(b *body) { b.Labels = b.Labels[:8] }, "weights"},
		{"label repeated", func(b *body) { copy(b.Labels[4:8], b.Labels[0:4]) }, "repeated"},
		{"features negative", func(b *body) { b.NumFeatures = -1 }, "feature count"},
		{"features past int32", func(b *body) { b.NumFeatures = math.MaxInt32 + 1 }, "feature count"},
		{"features changed", func(b *body) { b.NumFeatures++ }, "weights"},
		{"bias removed", func(b *body) { b.Bias = -1 }, "weights"},
		{"bias NaN", func(b *body) { b.Bias = math.NaN() }, "weights"},
		{"bias infinite", func(b *body) { b.Bias = math.Inf(1) }, "finite"},
		{"solver unknown", func(b *body) { b.Solver = 99 }, "solver"},
		{"solver past int", func(b *body) { b.Solver = math.MaxInt64 }, ""},
		{"regression with labels", func(b *body) { b.Solver = int64(linear.L2LossSVRDual); b.NrW = 1 }, "labels"},
		{"kind empty", func(b *body) { b.Kind = "" }, "kind"},
		{"kind unknown", func(b *body) { b.Kind = "quantized" }, "kind"},
	}
	for _, tc := range cases {
		bd := toBody(base)
		tc.mutate(bd)
		_, err := Unmarshal(reframe(t, bd, Minor))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.detail) {
			t.Errorf("%s: error %q does not say %q", tc.name, err, tc.detail)
		}
	}
	// core's own complaint is wrapped, not replaced.
	bd := toBody(base)
	copy(bd.Labels[4:8], bd.Labels[0:4])
	_, err := Unmarshal(reframe(t, bd, Minor))
	if !strings.Contains(err.Error(), "core: linear model") {
		t.Errorf("error %q does not carry core's Validate message", err)
	}
}

func TestVersions(t *testing.T) {
	m := testModels()[1].m
	b := marshal(t, m)
	payload := b[HeaderSize:]
	for _, minor := range []uint16{1, 7, math.MaxUint16} {
		got, err := Unmarshal(frame(payload, Major, minor))
		if err != nil {
			t.Errorf("minor %d refused: %v", minor, err)
		} else if !reflect.DeepEqual(got, stored(m)) {
			t.Errorf("minor %d: model changed", minor)
		}
	}
	for _, major := range []uint16{0, 2, math.MaxUint16} {
		if _, err := Unmarshal(frame(payload, major, 0)); !errors.Is(err, ErrVersion) {
			t.Errorf("major %d: err = %v, want ErrVersion", major, err)
		}
	}
	// A kind this reader does not know is a newer format's when the minor
	// version is newer, and corruption when it is not.
	bd := toBody(m)
	bd.Kind = "quantized"
	if _, err := Unmarshal(reframe(t, bd, Minor+1)); !errors.Is(err, ErrVersion) {
		t.Errorf("kind quantized at minor %d: err = %v, want ErrVersion", Minor+1, err)
	}
	if _, err := Unmarshal(reframe(t, bd, Minor)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("kind quantized at minor %d: err = %v, want ErrCorrupt", Minor, err)
	}
	if _, err := Kind(reframe(t, bd, Minor+1)); !errors.Is(err, ErrVersion) {
		t.Errorf("Kind of kind quantized at minor %d: err = %v, want ErrVersion", Minor+1, err)
	}
}

// withUnknownFields returns payload (a body) with extra fields a later minor
// version might add: one at the top level holding nested containers of
// every msgpack kind (with a string of strLen bytes), and one inside the
// params map.
func withUnknownFields(t testing.TB, payload []byte, strLen int) []byte {
	t.Helper()
	n, rest, err := msgp.ReadMapHeaderBytes(payload)
	if err != nil {
		t.Fatal(err)
	}
	// Insert "zq" into the params map: find its key and header.
	pkey := []byte{0xa1, 'p', 0x89} // key "p", fixmap of 9 fields
	if bytes.Count(rest, pkey) != 1 {
		t.Fatalf("params key found %d times", bytes.Count(rest, pkey))
	}
	i := bytes.Index(rest, pkey) + 2
	var mid []byte
	mid = append(mid, rest[:i]...)
	mid = append(mid, 0x8a) // 10 fields
	mid = msgp.AppendString(mid, "zq")
	mid = msgp.AppendFloat32(mid, 0.5)
	mid = append(mid, rest[i+1:]...)

	var out []byte
	out = msgp.AppendMapHeader(out, n+2)
	out = msgp.AppendString(out, "future")
	out = msgp.AppendMapHeader(out, 3)
	out = msgp.AppendString(out, "arr")
	out = msgp.AppendArrayHeader(out, 4)
	out = msgp.AppendNil(out)
	out = msgp.AppendBytes(out, make([]byte, 300))
	out, err = msgp.AppendExtension(out, &msgp.RawExtension{Type: 42, Data: []byte("xyz")})
	if err != nil {
		t.Fatal(err)
	}
	out = msgp.AppendArrayHeader(out, 1)
	out = msgp.AppendMapHeader(out, 0)
	out = msgp.AppendString(out, "s")
	out = msgp.AppendString(out, strings.Repeat("x", strLen))
	out = msgp.AppendString(out, "i")
	out = msgp.AppendInt64(out, -1<<40)
	out = append(out, mid...)
	out = msgp.AppendString(out, "q8") // a quantized-weights-like blob
	out = msgp.AppendBytes(out, []byte{1, 2, 3})
	return out
}

func TestUnknownFieldsSkipped(t *testing.T) {
	m := testModels()[2].m
	payload := marshal(t, m)[HeaderSize:]
	extended := withUnknownFields(t, payload, 70000) // a str32
	for _, minor := range []uint16{Minor, Minor + 1} {
		got, err := Unmarshal(frame(extended, Major, minor))
		if err != nil {
			t.Fatalf("minor %d: body with unknown fields refused: %v", minor, err)
		}
		if !reflect.DeepEqual(got, stored(m)) {
			t.Fatalf("minor %d: unknown fields changed the model", minor)
		}
	}
}

// hostilePayloads are bodies (with valid frames once wrapped) whose headers
// claim far more data than they hold.
func hostilePayloads() map[string][]byte {
	arr32 := func(key string) []byte {
		p := msgp.AppendMapHeader(nil, 1)
		p = msgp.AppendString(p, "r")
		p = msgp.AppendMapHeader(p, 1)
		p = msgp.AppendString(p, key)
		return append(p, 0xdd, 0xff, 0xff, 0xff, 0xff) // array32, 2^32-1 elements
	}
	weights := msgp.AppendMapHeader(nil, 1)
	weights = msgp.AppendString(weights, "p")
	weights = msgp.AppendMapHeader(weights, 1)
	weights = msgp.AppendString(weights, "cw")
	weights = append(weights, 0xdd, 0xff, 0xff, 0xff, 0xff)

	bin := func(key string, n uint32) []byte {
		p := msgp.AppendMapHeader(nil, 1)
		p = msgp.AppendString(p, key)
		p = append(p, 0xc6, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		return append(p, 1, 2, 3, 4)
	}
	str := msgp.AppendMapHeader(nil, 1)
	str = msgp.AppendString(str, "k")
	str = append(str, 0xdb, 0x7f, 0xff, 0xff, 0xff, 'l')

	deep := msgp.AppendMapHeader(nil, 1)
	deep = msgp.AppendString(deep, "zz")
	for range 50000 {
		deep = append(deep, 0x91) // fixarray of one
	}
	deep = append(deep, 0xc0)

	return map[string][]byte{
		"subproblems array 2^32-1": arr32("sub"),
		// Within the decoder's limit, but 65535 elements of a few bytes
		// each cannot fit in the bytes that follow.
		"subproblems array 65535":    append(arr32("sub")[:8], 0xdc, 0xff, 0xff, 0x80),
		"class weights array 2^32-1": weights,
		"W bin 2^32-1":               bin("w", math.MaxUint32),
		"W bin 2^31":                 bin("w", 1<<31),
		"labels bin 2^32-1":          bin("l", math.MaxUint32),
		"map 2^32-1": append(msgp.AppendMapHeader(nil, 1),
			0xa1, 'r', 0xdf, 0xff, 0xff, 0xff, 0xff),
		"string 2^31-1":     str,
		"nested 50000 deep": deep,
	}
}

func TestHostileHeadersRefusedCheaply(t *testing.T) {
	for name, p := range hostilePayloads() {
		b := frame(p, Major, Minor)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Unmarshal(b)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: Unmarshal allocated %d bytes", name, alloc)
		}
	}
}

// TestGeneratedDecoderLimits checks the msgp:limit directive on its own,
// without the shape scan in front of it: the generated decoder refuses a
// huge array header before allocating, and accepts maxClasses elements.
func TestGeneratedDecoderLimits(t *testing.T) {
	for _, name := range []string{"subproblems array 2^32-1", "class weights array 2^32-1", "W bin 2^32-1"} {
		p := hostilePayloads()[name]
		var bd body
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := bd.UnmarshalMsg(p)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, msgp.ErrLimitExceeded) {
			t.Errorf("%s: generated decoder err = %v, want msgp.ErrLimitExceeded", name, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: generated decoder allocated %d bytes", name, alloc)
		}
	}
	// The limit is maxClasses, which check applies to what Marshal writes.
	for _, n := range []int{maxClasses, maxClasses + 1} {
		r := result{Subproblems: make([]subproblem, n)}
		p, err := r.MarshalMsg(nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = new(result).UnmarshalMsg(p)
		if ok := n <= maxClasses; (err == nil) != ok {
			t.Errorf("%d subproblem results: err = %v, want success %v", n, err, ok)
		}
	}
}

func TestMarshalRefusesInvalid(t *testing.T) {
	good := func() *linear.LinearModel { return newModel(linear.L2LossSVCDual, []int32{1, 2, 3}, 4, -1, 1) }
	cases := map[string]func(*linear.LinearModel){
		"W short":        func(m *linear.LinearModel) { m.W = m.W[1:] },
		"one label":      func(m *linear.LinearModel) { m.Labels = m.Labels[:1] },
		"unknown solver": func(m *linear.LinearModel) { m.Solver = 4 },
		"NaN bias":       func(m *linear.LinearModel) { m.Bias = math.NaN() },
		"too many labels": func(m *linear.LinearModel) {
			m.NumFeatures, m.Bias, m.W = 0, -1, nil
			m.Labels = make([]int32, maxClasses+1)
			for i := range m.Labels {
				m.Labels[i] = int32(i)
			}
		},
		"too many class weights": func(m *linear.LinearModel) {
			m.Params.Weights = make([]core.ClassWeight, maxClasses+1)
		},
	}
	for name, mutate := range cases {
		m := good()
		mutate(m)
		if b, err := Marshal(m); err == nil {
			t.Errorf("%s: Marshal wrote %d bytes", name, len(b))
		}
	}
	if _, err := Marshal(nil); err == nil {
		t.Error("Marshal(nil) succeeded")
	}
	// The largest label count is accepted both ways.
	m := good()
	m.NumFeatures, m.Bias, m.W = 0, -1, nil
	m.Labels = make([]int32, maxClasses)
	for i := range m.Labels {
		m.Labels[i] = int32(i) - maxClasses/2
	}
	m.Result.Subproblems = nil
	got, err := Unmarshal(marshal(t, m))
	if err != nil {
		t.Fatalf("%d labels: %v", maxClasses, err)
	}
	if !reflect.DeepEqual(got, stored(m)) {
		t.Fatalf("%d labels: model changed", maxClasses)
	}
}

func TestWriteReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model-1.svmgo")
	ms := testModels()
	for _, tc := range ms[:2] { // the second write replaces the first
		if err := writeFile(path, tc.m); err != nil {
			t.Fatalf("WriteFile: %v", err)
		}
		got, err := readFile(path)
		if err != nil {
			t.Fatalf("ReadFile: %v", err)
		}
		if !reflect.DeepEqual(got, stored(tc.m)) {
			t.Fatalf("%s: file round trip changed the model", tc.name)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, marshal(t, tc.m)) {
			t.Fatalf("%s: file bytes differ from Marshal", tc.name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "model-1.svmgo" {
		t.Errorf("directory holds %v, want only model-1.svmgo", entries)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// TestReplaceFile: the unsynced writer leaves the bytes WriteFile would,
// replaces an older file, leaves no temporary file and names the path of a
// failed write.
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.svmgo")
	for _, tc := range testModels()[:2] {
		if err := ReplaceFile(path, tc.m); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, marshal(t, tc.m)) {
			t.Fatalf("%s: file bytes differ from Marshal", tc.name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v, want only model.svmgo", entries)
	}
	missing := filepath.Join(dir, "no-such-dir", "model.svmgo")
	if err := ReplaceFile(missing, testModels()[0].m); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("ReplaceFile into a missing directory: err = %v, want one naming the path", err)
	}
}

func TestWriteFileFailuresLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	m := testModels()[0].m

	missing := filepath.Join(dir, "no-such-dir", "model.svmgo")
	err := writeFile(missing, m)
	if err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
	if !strings.Contains(err.Error(), missing) {
		t.Errorf("error %q does not name the path", err)
	}

	bad := *m
	bad.W = bad.W[1:]
	path := filepath.Join(dir, "bad.svmgo")
	if err := writeFile(path, &bad); err == nil {
		t.Fatal("WriteFile of an invalid model succeeded")
	}

	// Renaming over a directory fails after the temporary file is written.
	occupied := filepath.Join(dir, "occupied")
	if err := os.Mkdir(occupied, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(occupied, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(occupied, m); err == nil {
		t.Fatal("WriteFile over a non-empty directory succeeded")
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "occupied" {
		t.Errorf("failed writes left %v behind", entries)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.svmgo")
	_, err := readFile(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: err = %v, want fs.ErrNotExist naming the path", err)
	}

	b := marshal(t, testModels()[0].m)
	b[len(b)-1] ^= 0xff
	damaged := filepath.Join(dir, "damaged.svmgo")
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = readFile(damaged)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), damaged) {
		t.Errorf("damaged file: err = %v, want ErrChecksum naming the path", err)
	}

	text := filepath.Join(dir, "model.txt")
	if err := os.WriteFile(text, []byte("solver_type L2R_L2LOSS_SVC_DUAL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readFile(text); !errors.Is(err, ErrNotModel) {
		t.Errorf("text model: err = %v, want ErrNotModel", err)
	}
	if _, err := readFile(dir); !errors.Is(err, fileio.ErrNotRegular) || errors.Is(err, ErrNotModel) {
		t.Errorf("directory: err = %v, want fileio.ErrNotRegular", err)
	}
}

// TestTextModeMangling checks what the magic is for: the usual ways text
// transfers damage binary files are caught as ErrNotModel.
func TestTextModeMangling(t *testing.T) {
	b := marshal(t, testModels()[0].m)
	mangled := map[string][]byte{
		"CRLF to LF":   bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")),
		"LF to CRLF":   bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")),
		"high bit off": append([]byte{b[0] & 0x7f}, b[1:]...),
	}
	for name, c := range mangled {
		if _, err := Unmarshal(c); !errors.Is(err, ErrNotModel) {
			t.Errorf("%s: err = %v, want ErrNotModel", name, err)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	for _, err := range []error{ErrNotModel, ErrVersion, ErrTruncated, ErrChecksum, ErrCorrupt} {
		if !strings.HasPrefix(err.Error(), "modelfile: ") {
			t.Errorf("sentinel %q lacks the package prefix", err)
		}
	}
	_, err := Unmarshal(frame([]byte{0xc1}, Major, Minor))
	if err == nil || !strings.Contains(err.Error(), "0xc1") {
		t.Errorf("err = %v, want the bad byte named", err)
	}
}

// TestSizeMNIST reports (and bounds) the size of a 784-feature, 10-class
// model: the weights are 4 bytes each, the rest is a small overhead.
func TestSizeMNIST(t *testing.T) {
	labels := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, bias := range []float64{-1, 1} {
		m := newModel(linear.L2LossSVCDual, labels, 784, bias, 1)
		b := marshal(t, m)
		weights := 4 * len(m.W)
		t.Logf("784 features × 10 classes, bias %v: %d bytes (%d of weights)", bias, len(b), weights)
		if overhead := len(b) - weights; overhead < 0 || overhead > 1500 {
			t.Errorf("bias %v: %d bytes of overhead", bias, overhead)
		}
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	labels := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	data := marshal(b, newModel(linear.L2LossSVCDual, labels, 784, 1, 1))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	labels := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	m := newModel(linear.L2LossSVCDual, labels, 784, 1, 1)
	b.SetBytes(int64(len(marshal(b, m))))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}
