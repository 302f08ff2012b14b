package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

var updateCorpus = flag.Bool("update-corpus", false,
	"rewrite the seed files in testdata/fuzz/FuzzDecode")

// corpusDir holds FuzzDecode's seed corpus, which plain go test runs.
var corpusDir = filepath.Join("testdata", "fuzz", "FuzzDecode")

// fuzzCfg is the configuration FuzzDecode decodes under.
var fuzzCfg = Config{Capacity: 8, CapacityNonzeros: 24, MaxFeatures: 8}

// rawSnap is a snapshot's fields, written by the test's own encoder from
// the format documented in snapshot.go, so that tests can build snapshots
// the store would never write.
type rawSnap struct {
	major, minor        uint16
	capacity, nzCap, mf uint64
	policy              uint32
	gen, published      uint64
	nHashes             uint64 // len(hashes) unless set
	hashes              []Hash
	rows, nnz, known    uint64
	ages                []uint64
	labels              []float64
	starts              []uint64
	idx                 []int32
	val                 []float32
	hasDual             byte // the dual kind: 0 none, 1 linear, 2 kernel
	svmType             uint32
	nvec, nlab          uint32
	dualLabels          []int32    // linear
	pairs               [][2]int32 // kernel C-SVC
	alpha               []float64  // vector-major
	trailing            []byte
}

// validRaw returns a valid snapshot for fuzzCfg: three batches, four rows,
// a two-vector linear dual known for the first three rows.
func validRaw() rawSnap {
	return rawSnap{
		major: 2, capacity: 8, nzCap: 24, mf: 8, policy: 0,
		gen: 3, published: 2,
		nHashes: 3, hashes: []Hash{hashOf("a"), hashOf("b"), hashOf("c")},
		rows: 4, nnz: 6, known: 3,
		ages:    []uint64{1, 2, 2, 3},
		labels:  []float64{1, -1, 2, 1},
		starts:  []uint64{0, 2, 2, 5, 6},
		idx:     []int32{0, 7, 1, 2, 3, 4},
		val:     []float32{.5, -1, 2, 3, 4, 5},
		hasDual: 1, nvec: 2, nlab: 2,
		dualLabels: []int32{1, 2},
		alpha:      []float64{0.5, 0, 1, 0, 0, 0, 0.25, 0},
	}
}

// validKernelRaw is validRaw's rows with a C-SVC kernel dual: classes 1,
// −1 and 2 give three one-vs-one pairs, α known for the first three rows
// (0 for rows outside a pair, as core returns them).
func validKernelRaw() rawSnap {
	r := validRaw()
	r.hasDual, r.svmType, r.nvec, r.nlab, r.dualLabels = 2, uint32(core.CSVC), 3, 0, nil
	r.pairs = [][2]int32{{1, -1}, {1, 2}, {-1, 2}}
	r.alpha = []float64{
		0.5, 0.5, 0, 0, // (1, −1): rows 0, 1
		0.25, 0, 0.25, 0, // (1, 2): rows 0, 2
		0, 1, 1, 0, // (−1, 2): rows 1, 2
	}
	return r
}

// validSVRRaw is validRaw's rows with an ε-SVR kernel dual: one vector of
// signed β.
func validSVRRaw() rawSnap {
	r := validRaw()
	r.hasDual, r.svmType, r.nvec, r.nlab, r.dualLabels = 2, uint32(core.EpsSVR), 1, 0, nil
	r.alpha = []float64{0.75, -0.75, 0, 0}
	return r
}

func (r rawSnap) bytes() []byte {
	le := binary.LittleEndian
	p := le.AppendUint64(nil, r.capacity)
	p = le.AppendUint64(p, r.nzCap)
	p = le.AppendUint64(p, r.mf)
	p = le.AppendUint32(p, r.policy)
	p = le.AppendUint64(p, r.gen)
	p = le.AppendUint64(p, r.published)
	p = le.AppendUint64(p, r.nHashes)
	for _, h := range r.hashes {
		p = append(p, h[:]...)
	}
	p = le.AppendUint64(p, r.rows)
	p = le.AppendUint64(p, r.nnz)
	p = le.AppendUint64(p, r.known)
	for _, a := range r.ages {
		p = le.AppendUint64(p, a)
	}
	for _, y := range r.labels {
		p = le.AppendUint64(p, math.Float64bits(y))
	}
	for _, s := range r.starts {
		p = le.AppendUint64(p, s)
	}
	for _, j := range r.idx {
		p = le.AppendUint32(p, uint32(j))
	}
	for _, v := range r.val {
		p = le.AppendUint32(p, math.Float32bits(v))
	}
	p = append(p, r.hasDual)
	switch r.hasDual {
	case 0:
	case 2:
		p = le.AppendUint32(p, r.svmType)
		p = le.AppendUint32(p, r.nvec)
		for _, pr := range r.pairs {
			p = le.AppendUint32(p, uint32(pr[0]))
			p = le.AppendUint32(p, uint32(pr[1]))
		}
		for _, a := range r.alpha {
			p = le.AppendUint64(p, math.Float64bits(a))
		}
	default:
		p = le.AppendUint32(p, r.nvec)
		p = le.AppendUint32(p, r.nlab)
		for _, l := range r.dualLabels {
			p = le.AppendUint32(p, uint32(l))
		}
		for _, a := range r.alpha {
			p = le.AppendUint64(p, math.Float64bits(a))
		}
	}
	p = append(p, r.trailing...)
	h := []byte(snapMagic)
	h = le.AppendUint16(h, r.major)
	h = le.AppendUint16(h, r.minor)
	h = le.AppendUint64(h, uint64(len(p)))
	h = le.AppendUint32(h, crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)))
	return append(h, p...)
}

// inconsistentSnapshots returns snapshots with a valid frame (so the CRC
// passes) whose contents are wrong, each in one way.
func inconsistentSnapshots(t testing.TB) map[string][]byte {
	edits := map[string]func(r *rawSnap){
		"major-0":             func(r *rawSnap) { r.major = 0 },
		"major-4":             func(r *rawSnap) { r.major = 4 },
		"published-ahead":     func(r *rawSnap) { r.published = 4 },
		"duplicate-hash":      func(r *rawSnap) { r.hashes[2] = r.hashes[0] },
		"hashes-huge":         func(r *rawSnap) { r.nHashes = 1 << 60 },
		"hashes-short":        func(r *rawSnap) { r.nHashes = 4 },
		"ages-decrease":       func(r *rawSnap) { r.ages[0] = 3 },
		"age-zero":            func(r *rawSnap) { r.ages[0] = 0 },
		"age-ahead":           func(r *rawSnap) { r.ages[3] = 4 },
		"label-nan":           func(r *rawSnap) { r.labels[1] = math.NaN() },
		"label-inf":           func(r *rawSnap) { r.labels[1] = math.Inf(1) },
		"start-not-zero":      func(r *rawSnap) { r.starts[0] = 1 },
		"starts-decrease":     func(r *rawSnap) { r.starts[2] = 1 },
		"starts-past-end":     func(r *rawSnap) { r.starts[3] = 7 },
		"last-start":          func(r *rawSnap) { r.starts[4] = 5 },
		"index-order":         func(r *rawSnap) { r.idx[3] = 1 },
		"index-negative":      func(r *rawSnap) { r.idx[0] = -1 },
		"index-past-written":  func(r *rawSnap) { r.mf = 7 },
		"value-zero":          func(r *rawSnap) { r.val[2] = 0 },
		"value-inf":           func(r *rawSnap) { r.val[2] = float32(math.Inf(-1)) },
		"value-nan":           func(r *rawSnap) { r.val[2] = float32(math.NaN()) },
		"rows-huge":           func(r *rawSnap) { r.rows = 1 << 62 },
		"nonzeros-huge":       func(r *rawSnap) { r.nnz = 1 << 61 },
		"rows-over-written":   func(r *rawSnap) { r.capacity = 3 },
		"nnz-over-written":    func(r *rawSnap) { r.nzCap = 5 },
		"capacity-zero":       func(r *rawSnap) { r.capacity = 0 },
		"max-features-zero":   func(r *rawSnap) { r.mf = 0 },
		"policy-unknown":      func(r *rawSnap) { r.policy = 5 },
		"known-past-rows":     func(r *rawSnap) { r.known = 5 },
		"known-without-dual":  func(r *rawSnap) { r.hasDual = 0 },
		"dual-flag":           func(r *rawSnap) { r.hasDual = 2 },
		"dual-vectors-huge":   func(r *rawSnap) { r.nvec = 1 << 31 },
		"dual-vectors-rows":   func(r *rawSnap) { r.nvec = 5; r.alpha = make([]float64, 20) },
		"dual-labels-huge":    func(r *rawSnap) { r.nlab = 1 << 30 },
		"dual-short":          func(r *rawSnap) { r.alpha = r.alpha[:7] },
		"alpha-nan":           func(r *rawSnap) { r.alpha[5] = math.NaN() },
		"trailing":            func(r *rawSnap) { r.trailing = []byte{0} },
		"rows-short":          func(r *rawSnap) { r.rows = 3 },
		"dual-missing":        func(r *rawSnap) { r.hasDual = 0; r.known = 0; r.trailing = []byte{1} },
		"empty-rows-two-dual": func(r *rawSnap) { *r = emptyRaw(); r.hasDual, r.nvec = 1, 2 },
	}
	// Kernel duals, from validKernelRaw.
	kernelEdits := map[string]func(r *rawSnap){
		"v1-kernel-dual":          func(r *rawSnap) { r.major = 1 },
		"kernel-svm-type-5":       func(r *rawSnap) { r.svmType = 5 },
		"kernel-svm-type":         func(r *rawSnap) { r.svmType = 4 },
		"kernel-no-vectors":       func(r *rawSnap) { r.nvec, r.pairs, r.alpha = 0, nil, nil },
		"kernel-pair-self":        func(r *rawSnap) { r.pairs[1] = [2]int32{2, 2} },
		"kernel-pair-twice":       func(r *rawSnap) { r.pairs[2] = [2]int32{2, 1} },
		"kernel-alpha-negative":   func(r *rawSnap) { r.alpha[4] = -0.25 },
		"kernel-alpha-nan":        func(r *rawSnap) { r.alpha[11] = math.NaN() },
		"kernel-alpha-inf":        func(r *rawSnap) { r.alpha[0] = math.Inf(1) },
		"kernel-vectors-huge":     func(r *rawSnap) { r.nvec = 1 << 31 },
		"kernel-vectors-rows":     func(r *rawSnap) { r.nvec, r.pairs, r.alpha = 7, make([][2]int32, 7), make([]float64, 28) },
		"kernel-short":            func(r *rawSnap) { r.alpha = r.alpha[:11] },
		"kernel-pairs-short":      func(r *rawSnap) { r.pairs, r.alpha = r.pairs[:2], nil },
		"svr-two-vectors":         func(r *rawSnap) { *r = validSVRRaw(); r.nvec, r.alpha = 2, make([]float64, 8) },
		"one-class-negative":      func(r *rawSnap) { *r = validSVRRaw(); r.svmType = uint32(core.OneClass) },
		"kernel-dual-kind":        func(r *rawSnap) { r.hasDual = 3 },
		"kernel-empty-two-vector": func(r *rawSnap) { *r = emptyRaw(); r.hasDual, r.svmType, r.nvec = 2, uint32(core.EpsSVR), 2 },
	}
	// The batches section, from validBatchesRaw.
	batchEdits := map[string]func(r *rawSnap){
		"batches-in-v2":  func(r *rawSnap) { r.major = 2 },
		"batches-order":  func(r *rawSnap) { r.trailing = batchSection([]uint64{1, 3, 2, 5}, 0) },
		"batches-ahead":  func(r *rawSnap) { r.trailing = batchSection([]uint64{1, 2, 3, 6}, 0) },
		"batches-zero":   func(r *rawSnap) { r.trailing = batchSection([]uint64{0, 2, 3, 5}, 0) },
		"batches-flags":  func(r *rawSnap) { r.trailing = batchSection([]uint64{1, 2, 3, 5}, 2) },
		"batches-short":  func(r *rawSnap) { r.trailing = r.trailing[:len(r.trailing)-1] },
		"batches-twice":  func(r *rawSnap) { r.trailing = append(r.trailing, r.trailing...) },
		"batches-before": func(r *rawSnap) { r.trailing = append(r.trailing, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f) },
	}
	out := map[string][]byte{}
	for name, edit := range batchEdits {
		r := validBatchesRaw()
		edit(&r)
		out[name] = r.bytes()
	}
	for name, edit := range edits {
		r := validRaw()
		edit(&r)
		out[name] = r.bytes()
	}
	for name, edit := range kernelEdits {
		r := validKernelRaw()
		edit(&r)
		out[name] = r.bytes()
	}
	return out
}

// validBatchesRaw is a version 3 snapshot with the batches section: batches
// a, b, d and c added generations 1, 2, 3 and 5, d's rows forgotten
// (generation 4), at known times.
func validBatchesRaw() rawSnap {
	r := validRaw()
	r.major, r.gen, r.published = 3, 5, 5
	r.nHashes, r.hashes = 4, []Hash{hashOf("a"), hashOf("b"), hashOf("d"), hashOf("c")}
	r.ages = []uint64{1, 2, 2, 5}
	r.trailing = batchSection([]uint64{1, 2, 3, 5}, 0)
	return r
}

// batchSection returns the batches section for batches added at the given
// generations, the third forgotten, each at a time of its own; flags is
// or'ed into the first record's flags.
func batchSection(gens []uint64, flags byte) []byte {
	le := binary.LittleEndian
	p := []byte{sectionBatches}
	for i, g := range gens {
		p = le.AppendUint64(p, g)
		p = le.AppendUint64(p, uint64(1_700_000_000_000_000_000+int64(i)*1e9))
		f := byte(0)
		if i == 2 {
			f = batchFlagForgotten
		}
		if i == 0 {
			f |= flags
		}
		p = append(p, f)
	}
	return p
}

// emptyRaw is a valid snapshot of a store that has ingested one empty
// batch and holds no rows.
func emptyRaw() rawSnap {
	return rawSnap{major: 2, capacity: 8, nzCap: 24, mf: 8, gen: 1, nHashes: 1,
		hashes: []Hash{hashOf("empty")}, starts: []uint64{0}}
}

// fuzzSeeds returns FuzzDecode's seeds by name: valid snapshots and the
// damaged and inconsistent ones Open must refuse.
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := inconsistentSnapshots(t)
	valid := validRaw().bytes()
	seeds["valid"] = valid
	seeds["valid-empty"] = emptyRaw().bytes()
	minor := validRaw()
	minor.minor = 3
	seeds["valid-minor-3"] = minor.bytes()
	noDual := validRaw()
	noDual.hasDual, noDual.known = 0, 0
	seeds["valid-no-dual"] = noDual.bytes()
	seeds["valid-kernel"] = validKernelRaw().bytes()
	seeds["valid-batches"] = validBatchesRaw().bytes()
	seeds["valid-svr"] = validSVRRaw().bytes()
	oneClass := validSVRRaw()
	oneClass.svmType, oneClass.alpha = uint32(core.OneClass), []float64{1, 0.5, 0, 0}
	seeds["valid-one-class"] = oneClass.bytes()
	v1 := validRaw()
	v1.major = 1
	seeds["valid-v1"] = v1.bytes()
	v1Empty := emptyRaw()
	v1Empty.major = 1
	seeds["valid-v1-empty"] = v1Empty.bytes()
	seeds["truncated-header"] = valid[:snapHeaderSize-1]
	seeds["truncated-payload"] = valid[:len(valid)/2]
	flipped := slices.Clone(valid)
	flipped[len(flipped)/2] ^= 4
	seeds["bad-crc"] = flipped
	seeds["bad-magic"] = append([]byte("\x89SVM\r\n\x1a\n"), valid[8:]...)
	cfgRows := emptyRaw() // nine empty rows
	cfgRows.capacity, cfgRows.rows = 9, 9
	for range 9 {
		cfgRows.ages = append(cfgRows.ages, 1)
		cfgRows.labels = append(cfgRows.labels, 1)
		cfgRows.starts = append(cfgRows.starts, 0)
	}
	seeds["config-rows"] = cfgRows.bytes() // ErrConfig before the rest is read
	cfgIdx := validRaw()
	cfgIdx.mf, cfgIdx.idx[1] = 9, 8
	seeds["config-index"] = cfgIdx.bytes()
	return seeds
}

func TestRawEncoderAgrees(t *testing.T) {
	// The store's encoder writes what the documented format says: decode
	// the test's own bytes and write them back.
	for name, raw := range map[string]rawSnap{"valid": validRaw(), "empty": emptyRaw(),
		"kernel": validKernelRaw(), "svr": validSVRRaw(), "batches": validBatchesRaw()} {
		data := raw.bytes()
		s := newStore("", fuzzCfg)
		if err := s.decode(data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := s.encode(nil); !bytes.Equal(got, data) {
			t.Errorf("%s: re-encoded snapshot differs", name)
		}
	}
	s := newStore("", fuzzCfg)
	if err := s.decode(validRaw().bytes()); err != nil {
		t.Fatal(err)
	}
	wantLabels(t, s, 1, -1, 2, 1)
	wantAlpha(t, s, []float64{0.5, 0, 1, 0}, []float64{0, 0, 0.25, 0})
	if idx, val := s.Dataset().SparseRow(2); !slices.Equal(idx, []int32{1, 2, 3}) || !slices.Equal(val, []float32{2, 3, 4}) {
		t.Errorf("row 2: %v %v", idx, val)
	}
	if s.Generation() != 3 || s.Published() != 2 || s.known != 3 || !s.Has(hashOf("b")) {
		t.Error("counters differ")
	}
	// A snapshot of an empty batch: the hash is kept, no rows.
	e := newStore("", fuzzCfg)
	if err := e.decode(emptyRaw().bytes()); err != nil || e.Len() != 0 || !e.Has(hashOf("empty")) {
		t.Errorf("empty: %v", err)
	}
	// The kernel dual: formulation, pairs and vectors as written.
	k := newStore("", fuzzCfg)
	if err := k.decode(validKernelRaw().bytes()); err != nil {
		t.Fatal(err)
	}
	kd := kernelDual(k)
	if linearDual(k) != nil || kd == nil || kd.SVMType != core.CSVC || kd.Gradient != nil ||
		!slices.Equal(kd.Pairs, [][2]int32{{1, -1}, {1, 2}, {-1, 2}}) {
		t.Fatalf("kernel dual %+v, linear %v", kd, linearDual(k))
	}
	wantKernelAlpha(t, k, []float64{0.5, 0.5, 0, 0}, []float64{0.25, 0, 0.25, 0}, []float64{0, 1, 1, 0})
}

// TestReadsVersion1 checks that a version 1 snapshot, the format before
// kernel duals, still reads, and that the next Commit rewrites it as
// version 2 with the same payload (version 2 only added the kernel dual
// kind).
func TestReadsVersion1(t *testing.T) {
	for name, raw := range map[string]rawSnap{"linear": validRaw(), "empty": emptyRaw()} {
		raw.major = 1
		data := raw.bytes()
		s := newStore("", fuzzCfg)
		if err := s.decode(data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		enc := s.encode(nil)
		if got := binary.LittleEndian.Uint16(enc[8:10]); got != 2 {
			t.Errorf("%s: rewritten as version %d, want 2", name, got)
		}
		if !bytes.Equal(enc[:8], data[:8]) || !bytes.Equal(enc[10:], data[10:]) {
			t.Errorf("%s: the version 2 rewrite changed more than the version", name)
		}
	}
}

func TestInconsistentSnapshots(t *testing.T) {
	for name, data := range inconsistentSnapshots(t) {
		if err := newStore("", fuzzCfg).decode(data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	seeds := fuzzSeeds(t)
	for _, name := range []string{"config-rows", "config-index"} {
		if err := newStore("", fuzzCfg).decode(seeds[name]); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	if err := newStore("", fuzzCfg).decode(seeds["valid-minor-3"]); err != nil {
		t.Errorf("minor version 3: %v", err)
	}
}

// TestDecodeAllocations checks that hostile counts do not allocate: the
// inconsistent snapshots cost no more than the valid one.
func TestDecodeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: make test runs this without it")
	}
	valid := validRaw().bytes()
	base := testing.AllocsPerRun(20, func() {
		s := &Store{cfg: fuzzCfg, seen: map[Hash]struct{}{}}
		s.ds = data.NewSparse(8, 24, 8)
		s.age = make([]uint64, 8)
		_ = s.decode(valid)
	})
	for _, name := range []string{"hashes-huge", "rows-huge", "nonzeros-huge", "dual-vectors-huge", "dual-labels-huge",
		"kernel-vectors-huge", "kernel-vectors-rows"} {
		snap := inconsistentSnapshots(t)[name]
		got := testing.AllocsPerRun(20, func() {
			s := &Store{cfg: fuzzCfg, seen: map[Hash]struct{}{}}
			s.ds = data.NewSparse(8, 24, 8)
			s.age = make([]uint64, 8)
			_ = s.decode(snap)
		})
		if got > base {
			t.Errorf("%s: %v allocations, the valid snapshot takes %v", name, got, base)
		}
	}
}

// FuzzDecode checks that decoding never panics, that every error wraps
// ErrCorrupt or ErrConfig, and that whatever decodes encodes back to the
// same bytes (when written under fuzzCfg; a version 1 snapshot comes back as
// version 2) and decodes again.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newStore("", fuzzCfg)
		if err := s.decode(data); err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrConfig) {
				t.Fatalf("error wraps neither ErrCorrupt nor ErrConfig: %v", err)
			}
			return
		}
		if s.Len() > fuzzCfg.Capacity || s.Dataset().Nonzeros() > fuzzCfg.CapacityNonzeros {
			t.Fatalf("decoded %d rows, %d nonzeros", s.Len(), s.Dataset().Nonzeros())
		}
		enc := s.encode(nil)
		if v := binary.LittleEndian.Uint16(enc[8:10]); v != snapMajorKernel && v != snapMajorBatches {
			t.Fatalf("re-encoded as version %d", binary.LittleEndian.Uint16(enc[8:10]))
		}
		if bytes.Equal(data[24:24+28], enc[24:24+28]) {
			// Same configuration echo: same bytes, but for the version,
			// which is always the current major and minor.
			if !bytes.Equal(data[:8], enc[:8]) || !bytes.Equal(data[12:], enc[12:]) {
				t.Fatal("re-encoded snapshot differs")
			}
		}
		s2 := newStore("", fuzzCfg)
		if err := s2.decode(enc); err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v", err)
		}
		if !bytes.Equal(s2.encode(nil), enc) {
			t.Fatal("second round trip differs")
		}
	})
}

// TestFuzzCorpus keeps testdata/fuzz/FuzzDecode equal to fuzzSeeds (run
// with -update-corpus to rewrite it), so that plain go test runs every seed.
func TestFuzzCorpus(t *testing.T) {
	seeds := fuzzSeeds(t)
	if *updateCorpus {
		if err := os.RemoveAll(corpusDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(corpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range seeds {
			if err := os.WriteFile(filepath.Join(corpusDir, name), corpusFile(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := make([]string, 0, len(seeds))
	for name := range seeds {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("corpus files %v, want %v (go test -run TestFuzzCorpus -update-corpus)", names, want)
	}
	for name, data := range seeds {
		got, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, corpusFile(data)) {
			t.Errorf("%s is stale (go test -run TestFuzzCorpus -update-corpus)", name)
		}
	}
}

// corpusFile is data in the go fuzz corpus file format.
func corpusFile(data []byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "go test fuzz v1\n[]byte(%q)\n", data)
	return []byte(b.String())
}
