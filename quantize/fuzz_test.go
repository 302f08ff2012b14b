package quantize

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

var updateCorpus = flag.Bool("update-corpus", false,
	"rewrite the seed files in testdata/fuzz/FuzzUnmarshal")

// corpusDir holds FuzzUnmarshal's seed corpus, which plain go test runs.
var corpusDir = filepath.Join("testdata", "fuzz", "FuzzUnmarshal")

// fuzzSeeds returns FuzzUnmarshal's seeds by name: a valid file of each
// small test model (every kind, width and layout), files damaged in each
// way the frame checks catch, and the inconsistent bodies TestCorruptBodies
// refuses.
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	for name, m := range fileModels(t, false) {
		seeds["valid-"+name] = mustMarshal(t, m)
	}
	valid := seeds["valid-hand-kernel-int8"]
	seeds["truncated-header"] = valid[:modelfile.HeaderSize-5]
	seeds["truncated-payload"] = valid[:len(valid)-7]
	seeds["trailing-byte"] = append(bytes.Clone(valid), 0)
	flipped := bytes.Clone(valid)
	flipped[len(flipped)/2] ^= 0x04
	seeds["bad-crc"] = flipped
	minor := bytes.Clone(valid)
	binary.LittleEndian.PutUint16(minor[10:12], 3)
	seeds["minor-3"] = minor
	fb, err := modelfile.Marshal(handLinear())
	if err != nil {
		t.Fatal(err)
	}
	seeds["float-linear"] = fb
	for name, c := range corruptBodies(t) {
		seeds["corrupt-"+name] = c.file
	}
	return seeds
}

// corpusFile returns the seed corpus file encoding of b.
func corpusFile(b []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
}

// TestFuzzCorpusUpToDate checks that the seed files in testdata, which
// plain go test runs through FuzzUnmarshal, are the current seeds. The
// valid files double as golden files: a change to the encoding fails here
// first. Rewrite them with go test -run FuzzCorpus -update-corpus.
func TestFuzzCorpusUpToDate(t *testing.T) {
	seeds := fuzzSeeds(t)
	if *updateCorpus {
		if err := os.MkdirAll(corpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range seeds {
		path := filepath.Join(corpusDir, "seed-"+name)
		want := corpusFile(b)
		if *updateCorpus {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("seed %s: %v (run go test -run FuzzCorpus -update-corpus)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("seed %s is stale: the encoding changed (run go test -run FuzzCorpus -update-corpus)", name)
		}
	}
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), "seed-")
		if _, known := seeds[name]; ok && !known {
			t.Errorf("%s is not a current seed; remove it", e.Name())
		}
	}
}

// FuzzUnmarshal checks that Unmarshal never panics, that every refusal
// wraps exactly one of modelfile's sentinels, and that every model it
// accepts predicts without panicking and survives Marshal and Unmarshal
// unchanged.
func FuzzUnmarshal(f *testing.F) {
	seeds := fuzzSeeds(f)
	for _, name := range slices.Sorted(mapsKeys(seeds)) {
		f.Add(seeds[name])
	}
	f.Fuzz(checkUnmarshal)
}

// FuzzBody is FuzzUnmarshal with a valid frame around the fuzzed body:
// random mutations nearly always break the CRC, so FuzzUnmarshal seldom
// reaches the body decoder, and this target starts there.
func FuzzBody(f *testing.F) {
	seeds := fuzzSeeds(f)
	for _, name := range slices.Sorted(mapsKeys(seeds)) {
		if b := seeds[name]; len(b) > modelfile.HeaderSize {
			f.Add(b[modelfile.HeaderSize:])
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		b := append(make([]byte, modelfile.HeaderSize), payload...)
		if uint64(len(payload)) > modelfile.MaxPayload {
			return
		}
		// Seal with either quantized kind: the body's own "k" decides.
		if err := modelfile.Seal(b, modelfile.KindQKernel); err != nil {
			t.Fatal(err)
		}
		checkUnmarshal(t, b)
	})
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkUnmarshal is the fuzz targets' property.
func checkUnmarshal(t *testing.T, b []byte) {
	m, err := Unmarshal(b)
	if err != nil {
		if m != nil {
			t.Fatalf("Unmarshal returned a model and the error %v", err)
		}
		wrapsOne(t, err)
		return
	}
	if kind, err := modelfile.Kind(b); err != nil || kind != m.Kind() {
		t.Fatalf("modelfile.Kind = %q, %v for an accepted %s model", kind, err, m.Kind())
	}
	b2, err := Marshal(m)
	if err != nil {
		t.Fatalf("accepted a model Marshal refuses: %v", err)
	}
	m2, err := Unmarshal(b2)
	if err != nil {
		t.Fatalf("re-marshalled model refused: %v", err)
	}
	b3, err := Marshal(m2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b2, b3) {
		t.Fatal("model changed through Marshal and Unmarshal")
	}
	// Predicting with whatever was accepted must not panic.
	if nf := m.NumFeatures(); nf <= 1<<16 {
		x := make([]float32, nf)
		for j := range x {
			x[j] = float32(j%3) - 1
		}
		dec := make([]float64, m.NumDecisionValues())
		m.DecisionDense(dec, x)
		m.LabelOf(dec)
		m.ErrorBoundDense(dec, x)
		m.PredictSparse([]int32{0, 5, 1 << 20}, []float32{1, -2, 3})
		if k, ok := m.(*Kernel); ok && k.HasProbability() && k.SVMType() == 0 {
			k.ProbabilityDense(make([]float64, k.NumClasses()), x)
		}
	}
}
