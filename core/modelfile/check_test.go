package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/tinylib/msgp/msgp"
)

// sameVerdict fails t unless Check, reading b through r, says what Kind
// says of b: the same kind, or errors wrapping the same sentinel.
func sameVerdict(t *testing.T, name string, b []byte, r io.Reader) {
	t.Helper()
	want, werr := Kind(b)
	got, err := Check(r, int64(len(b)))
	switch {
	case werr == nil && err == nil:
		if got != want {
			t.Errorf("%s: Check says kind %q, Kind %q", name, got, want)
		}
	case werr == nil || err == nil:
		t.Errorf("%s: Check says %q, %v; Kind says %q, %v", name, got, err, want, werr)
	default:
		for _, s := range sentinels {
			if errors.Is(werr, s) != errors.Is(err, s) {
				t.Errorf("%s: Check refuses with %v, Kind with %v", name, err, werr)
				break
			}
		}
	}
}

// checkInputs returns the fuzz seeds (every kind, valid and damaged in
// every way a reader must refuse), every prefix of a valid linear and a
// valid kernel file, and files whose payload has one byte changed under a
// recomputed CRC, so that the body's checks are reached.
func checkInputs(t *testing.T) map[string][]byte {
	in := fuzzSeeds(t)
	rng := rand.New(rand.NewPCG(28, 1))
	for _, name := range []string{"valid-ovr3-weights", "kernel-valid-csvc3-sparse-prob"} {
		valid, ok := in[name]
		if !ok {
			t.Fatalf("no seed %q", name)
		}
		for n := range len(valid) {
			in[fmt.Sprintf("%s-prefix-%d", name, n)] = valid[:n]
		}
		for i := range 200 {
			p := bytes.Clone(valid[HeaderSize:])
			p[rng.IntN(len(p))] = byte(rng.Uint32())
			in[fmt.Sprintf("%s-changed-%d", name, i)] = frame(p, Major, Minor)
		}
	}
	return in
}

// TestCheckAgreesWithKind: for every input, read whole, one byte at a
// time and in halves, Check refuses what Kind refuses, with the same
// sentinel, and finds the same kind in what both accept.
func TestCheckAgreesWithKind(t *testing.T) {
	in := checkInputs(t)
	accepted := 0
	for _, name := range slices.Sorted(maps.Keys(in)) {
		b := in[name]
		sameVerdict(t, name, b, bytes.NewReader(b))
		sameVerdict(t, name+" (bytes one at a time)", b, iotest.OneByteReader(bytes.NewReader(b)))
		sameVerdict(t, name+" (halves)", b, iotest.HalfReader(bytes.NewReader(b)))
		if _, err := Kind(b); err == nil {
			accepted++
		}
	}
	if accepted < 10 || accepted == len(in) {
		t.Errorf("%d of %d inputs are model files: the inputs test too little", accepted, len(in))
	}
}

// TestCheckBodyShapes runs Check on framed bodies that are valid msgpack
// but no body Kind accepts: not a map, a "k" that is no string, a key
// that is no string, no "k" at all, an over-long kind, the kind after
// nested containers.
func TestCheckBodyShapes(t *testing.T) {
	kv := func(kvs ...[]byte) []byte {
		b := msgp.AppendMapHeader(nil, uint32(len(kvs)/2))
		for _, x := range kvs {
			b = append(b, x...)
		}
		return b
	}
	str := func(s string) []byte { return msgp.AppendString(nil, s) }
	nested := msgp.AppendArrayHeader(nil, 2)
	nested = msgp.AppendMapHeader(nested, 1)
	nested = append(nested, str("k")...)
	nested = append(nested, str("kernel")...)
	nested = msgp.AppendInt(nested, 7)
	for name, body := range map[string][]byte{
		"array":          append(append(msgp.AppendArrayHeader(nil, 2), str("k")...), str("linear")...),
		"k int":          kv(str("k"), msgp.AppendInt(nil, 3)),
		"int key":        kv(msgp.AppendInt(nil, 3), str("linear")),
		"bin key":        kv(msgp.AppendBytes(nil, []byte("k")), str("linear")),
		"no k":           kv(str("kk"), str("linear")),
		"empty k":        kv(str("k"), str("")),
		"long kind":      kv(str("k"), str(string(bytes.Repeat([]byte("linear"), 20)))),
		"second k":       kv(str("k"), str("kernel"), str("k"), str("linear")),
		"k after nested": kv(str("p"), nested, str("k"), str("linear")),
		"scaled":         kv(str("k"), str(KindLinear+ScaledKindSuffix)),
		"unknown kind":   kv(str("k"), str("forest")),
	} {
		b := frame(body, Major, Minor)
		sameVerdict(t, name, b, iotest.OneByteReader(bytes.NewReader(b)))
	}
}

// TestCheckInputLength: a reader that ends early is ErrTruncated, one
// with more than size bytes ErrCorrupt, and a reader's own error is
// returned as is.
func TestCheckInputLength(t *testing.T) {
	b := marshal(t, testModels()[2].m)
	if _, err := Check(bytes.NewReader(b[:len(b)-1]), int64(len(b))); !errors.Is(err, ErrTruncated) {
		t.Errorf("short reader: %v, want ErrTruncated", err)
	}
	if _, err := Check(bytes.NewReader(append(bytes.Clone(b), 0)), int64(len(b))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("long reader: %v, want ErrCorrupt", err)
	}
	boom := errors.New("boom")
	if _, err := Check(io.MultiReader(bytes.NewReader(b[:30]), iotest.ErrReader(boom)), int64(len(b))); !errors.Is(err, boom) {
		t.Errorf("failing reader: %v, want its error", err)
	}
	// A bad magic stops the transfer at its first write.
	c := NewChecker(int64(len(b)))
	if _, err := c.Write([]byte("PK\x03\x04")); !errors.Is(err, ErrNotModel) {
		t.Errorf("first write of a zip file: %v, want ErrNotModel", err)
	}
}

// TestCheckerMemory: checking a 16 MB model file allocates the Checker and
// Check's buffer, and Write allocates nothing: the memory does not grow
// with the file.
func TestCheckerMemory(t *testing.T) {
	w := make([]float32, 4<<20)
	for i := range w {
		w[i] = float32(i%1000) / 1000
	}
	m := &linear.LinearModel{Solver: linear.L2LossSVCDual, Labels: []int32{1, -1}, NumFeatures: len(w), Bias: -1, W: w}
	b := marshal(t, m)
	c := NewChecker(int64(len(b)))
	const piece = 128 << 10
	pieces := (len(b) + piece - 1) / piece
	i := 0
	allocs := testing.AllocsPerRun(pieces-1, func() {
		if _, err := c.Write(b[i*piece : min(len(b), (i+1)*piece)]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("Write allocates %v times a call", allocs)
	}
	if i != pieces {
		t.Fatalf("wrote %d pieces of %d", i, pieces)
	}
	if kind, err := c.Close(); err != nil || kind != KindLinear {
		t.Fatalf("Close: %q, %v", kind, err)
	}
	if c.CRC() != binary.LittleEndian.Uint32(b[20:24]) {
		t.Errorf("CRC %08x is not the frame's", c.CRC())
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Check(bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("Check of a %d-byte file allocated %d bytes", len(b), got)
	}
}
