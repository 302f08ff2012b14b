package modelfile

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

var updateCorpus = flag.Bool("update-corpus", false,
	"rewrite the seed files in testdata/fuzz/FuzzUnmarshal")

// corpusDir holds FuzzUnmarshal's seed corpus, which plain go test runs.
var corpusDir = filepath.Join("testdata", "fuzz", "FuzzUnmarshal")

// fuzzSeeds returns FuzzUnmarshal's seeds by name: a valid file of every
// test model and of the variants a reader must accept, and files damaged in
// each way a reader must refuse.
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	for _, tc := range testModels() {
		seeds["valid-"+tc.name] = marshal(t, tc.m)
	}
	valid := seeds["valid-ovr3-weights"]
	payload := valid[HeaderSize:]
	seeds["valid-minor-1"] = frame(payload, Major, Minor+1)
	seeds["valid-unknown-fields"] = frame(withUnknownFields(t, payload, 40), Major, Minor+1)

	seeds["bad-magic"] = append([]byte("\x89SVM\n\x1a\n"), valid[8:]...)
	seeds["major-2"] = frame(payload, 2, 0)
	seeds["truncated-header"] = valid[:HeaderSize-3]
	seeds["truncated-payload"] = valid[:len(valid)/2]
	seeds["trailing-byte"] = append(bytes.Clone(valid), 0)
	flipped := bytes.Clone(valid)
	flipped[len(flipped)/2] ^= 0x10
	seeds["bad-crc"] = flipped

	bd := toBody(testModels()[2].m)
	bd.NrW = 1
	p, err := bd.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	seeds["wrong-nrw"] = frame(p, Major, Minor)
	bd = toBody(testModels()[2].m)
	bd.W = bd.W[4:]
	if p, err = bd.MarshalMsg(nil); err != nil {
		t.Fatal(err)
	}
	seeds["short-w"] = frame(p, Major, Minor)
	bd = toBody(testModels()[0].m)
	bd.Kind = "quantized"
	if p, err = bd.MarshalMsg(nil); err != nil {
		t.Fatal(err)
	}
	seeds["kind-unknown-minor-next"] = frame(p, Major, Minor+1)
	for name, b := range kernelSeeds(t) {
		seeds[name] = b
	}

	for name, p := range hostilePayloads() {
		if name == "nested 50000 deep" {
			continue // large, and the shape scan's depth test covers it
		}
		seeds["hostile-"+strings.NewReplacer(" ", "-", "^", "_").Replace(name)] = frame(p, Major, Minor)
	}
	return seeds
}

// corpusFile returns the seed corpus file encoding of b.
func corpusFile(b []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
}

// TestFuzzCorpusUpToDate checks that the seed files in testdata, which plain
// go test runs through FuzzUnmarshal, are the current seeds. The valid
// files double as golden files: a change to the encoding of a model fails
// here first. Rewrite them with go test -run FuzzCorpus -update-corpus.
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

var sentinels = []error{ErrNotModel, ErrVersion, ErrTruncated, ErrChecksum, ErrCorrupt, ErrKind}

// FuzzUnmarshal checks that Unmarshal never panics, that every refusal
// wraps exactly one sentinel, and that every model it accepts is valid and
// survives Marshal and Unmarshal unchanged.
func FuzzUnmarshal(f *testing.F) {
	seeds := fuzzSeeds(f)
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f.Add(seeds[name])
	}
	f.Fuzz(checkUnmarshal)
}

// FuzzBody is FuzzUnmarshal with a valid frame around the fuzzed bytes:
// random mutations nearly always break the CRC, so FuzzUnmarshal seldom
// reaches the body decoder, and this target starts there.
func FuzzBody(f *testing.F) {
	seeds := fuzzSeeds(f)
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if b := seeds[name]; len(b) > HeaderSize {
			f.Add(b[HeaderSize:])
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		checkUnmarshal(t, frame(payload, Major, Minor))
	})
}

// wrapsOne fails t unless err wraps exactly one sentinel.
func wrapsOne(t *testing.T, err error) {
	t.Helper()
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("error %q wraps %d sentinels, want 1", err, n)
	}
}

// checkUnmarshal is the fuzz targets' property: Unmarshal, UnmarshalKernel
// and Kind do not panic, every refusal wraps exactly one sentinel, Kind
// agrees with the decoders and with the streaming Check, and every accepted model is valid and survives
// encoding and decoding unchanged.
func checkUnmarshal(t *testing.T, b []byte) {
	kind, kerr := Kind(b)
	if kerr != nil {
		wrapsOne(t, kerr)
	}
	sameVerdict(t, "the streaming check", b, iotest.HalfReader(bytes.NewReader(b)))
	checkUnmarshalKernel(t, b, kind)
	m, err := Unmarshal(b)
	if (err == nil) && kind != KindLinear {
		t.Fatalf("Unmarshal accepted a file Kind calls %q (%v)", kind, kerr)
	}
	if err != nil {
		if m != nil {
			t.Fatalf("Unmarshal returned a model and the error %v", err)
		}
		wrapsOne(t, err)
		return
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("accepted a model core refuses: %v", err)
	}
	b2, err := Marshal(m)
	if err != nil {
		t.Fatalf("accepted a model Marshal refuses: %v", err)
	}
	m2, err := Unmarshal(b2)
	if err != nil {
		t.Fatalf("re-marshalled model refused: %v", err)
	}
	// Marshal writes every stored field bit for bit, so equal bytes
	// mean equal models, NaNs included (which reflect.DeepEqual
	// would call unequal).
	b3, err := Marshal(m2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b2, b3) {
		t.Fatalf("model changed through Marshal and Unmarshal")
	}
}
