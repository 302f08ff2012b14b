package quantize

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// handSparseKernel is a one-class model of five support vectors over eight
// features with two nonzeros each: the sparse layout is the smaller.
func handSparseKernel(t testing.TB) *core.KernelModel {
	sv := data.NewSparse(5, 10, 8)
	rows := [][2][2]float32{{{1, 0.5}, {4, -1}}, {{0, 2}, {7, 0.25}}, {{1, -0.5}, {5, 1}}, {{3, 1.5}, {4, 0.75}}, {{2, 3}, {6, -2}}}
	for _, r := range rows {
		if err := sv.AppendSparse(0, []int32{int32(r[0][0]), int32(r[1][0])}, []float32{r[0][1], r[1][1]}); err != nil {
			t.Fatal(err)
		}
	}
	m := &core.KernelModel{
		SVMType:     core.OneClass,
		Kernel:      core.Kernel{Type: core.RBFKernel, Gamma: 0.3},
		NumFeatures: 8,
		SV:          sv,
		Coef:        []float64{0.2, 0.2, 0.2, 0.2, 0.2},
		Rho:         []float64{0.1},
		Params:      core.DefaultKernelParams(),
	}
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	return m
}

// fileModels returns quantized models of every kind and layout, small
// ones first (they seed the fuzz corpus).
func fileModels(t testing.TB, large bool) map[string]Model {
	out := map[string]Model{}
	add := func(name string, m Model, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = m
	}
	for _, bits := range []int{8, 16} {
		suffix := map[int]string{8: "-int8", 16: "-int16"}[bits]
		q, err := QuantizeLinear(handLinear(), bits)
		add("hand-linear"+suffix, q, err)
		k, err := QuantizeKernel(handKernel(t), bits)
		add("hand-kernel"+suffix, k, err)
		k, err = QuantizeKernel(handSparseKernel(t), bits)
		add("hand-sparse-kernel"+suffix, k, err)
		q, err = QuantizeLinear(linearCases[0].model(t), bits)
		add("breast_cancer-linear"+suffix, q, err)
		q, err = QuantizeLinear(linearCases[5].model(t), bits)
		add("diabetes-s13-B1"+suffix, q, err)
		q, err = QuantizeLinear(linearCases[6].model(t), bits)
		add("breast_cancer-s6"+suffix, q, err)
		if large {
			for _, c := range kernelCases {
				k, err := QuantizeKernel(c.model(t), bits)
				add("kernel-"+c.name+suffix, k, err)
			}
			for _, c := range linearCases {
				q, err := QuantizeLinear(c.model(t), bits)
				add("linear-"+c.name+suffix, q, err)
			}
		}
	}
	return out
}

// sameDecisions checks that a and b give bit-identical decision values on
// some rows.
func sameDecisions(t *testing.T, name string, a, b Model) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	nf, nd := a.NumFeatures(), a.NumDecisionValues()
	da, db := make([]float64, nd), make([]float64, nd)
	for range 5 {
		x := make([]float32, nf)
		for j := range x {
			if r.IntN(3) == 0 {
				x[j] = float32(r.NormFloat64())
			}
		}
		a.DecisionDense(da, x)
		b.DecisionDense(db, x)
		for k := range da {
			if math.Float64bits(da[k]) != math.Float64bits(db[k]) {
				t.Fatalf("%s: decision value %d: %v after the round trip, %v before", name, k, db[k], da[k])
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for name, q := range fileModels(t, true) {
		b := mustMarshal(t, q)
		if minor := binary.LittleEndian.Uint16(b[10:12]); minor != 2 {
			t.Errorf("%s: format minor version %d, want 2", name, minor)
		}
		if kind, err := modelfile.Kind(b); err != nil || kind != q.Kind() {
			t.Errorf("%s: modelfile.Kind = %q, %v; want %q", name, kind, err, q.Kind())
		}
		if _, err := modelfile.Unmarshal(b); !errors.Is(err, modelfile.ErrKind) {
			t.Errorf("%s: modelfile.Unmarshal: %v, want ErrKind", name, err)
		}
		if _, err := modelfile.UnmarshalKernel(b); !errors.Is(err, modelfile.ErrKind) {
			t.Errorf("%s: modelfile.UnmarshalKernel: %v, want ErrKind", name, err)
		}
		q2, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b2 := mustMarshal(t, q2); !bytes.Equal(b, b2) {
			t.Fatalf("%s: the decoded model marshals to other bytes", name)
		}
		sameDecisions(t, name, q, q2)
		// Metadata survives.
		if q2.SourceCRC() != q.SourceCRC() || q2.Created() != q.Created() || q2.Bits() != q.Bits() {
			t.Errorf("%s: metadata changed", name)
		}
		if k, ok := q.(*Kernel); ok {
			k2 := q2.(*Kernel)
			if k2.Summary() != k.Summary() || k2.KernelFunc() != k.KernelFunc() || k2.DenseLayout() != k.DenseLayout() {
				t.Errorf("%s: kernel metadata changed", name)
			}
		}
	}
}

func TestProvenance(t *testing.T) {
	m := linearCases[0].model(t)
	fb, err := modelfile.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	q, err := QuantizeLinear(m, 8)
	if err != nil {
		t.Fatal(err)
	}
	if want := binary.LittleEndian.Uint32(fb[20:24]); q.SourceCRC() != want {
		t.Errorf("SourceCRC %08x, the float file's CRC %08x", q.SourceCRC(), want)
	}
	km := kernelCases[0].model(t)
	kb, err := modelfile.MarshalKernel(km)
	if err != nil {
		t.Fatal(err)
	}
	k, err := QuantizeKernel(km, 8)
	if err != nil {
		t.Fatal(err)
	}
	if want := binary.LittleEndian.Uint32(kb[20:24]); k.SourceCRC() != want {
		t.Errorf("kernel SourceCRC %08x, the float file's CRC %08x", k.SourceCRC(), want)
	}
	s := k.Summary()
	if s.C != km.Params.C || s.Eps != km.Params.Eps || s.Iterations != km.Result.Iterations ||
		s.Objective != km.Result.Objective || s.Converged != km.Result.Converged {
		t.Errorf("summary %+v does not match the float model", s)
	}
	// A creation time travels along.
	m2 := *m
	m2.Created = 1_700_000_000
	q2, err := QuantizeLinear(&m2, 8)
	if err != nil {
		t.Fatal(err)
	}
	q3, err := Unmarshal(mustMarshal(t, q2))
	if err != nil || q3.Created() != 1_700_000_000 {
		t.Errorf("creation time %v, %v", q3, err)
	}
}

func TestDeterministic(t *testing.T) {
	for _, c := range []kernelCase{kernelCases[0], kernelCases[7]} {
		a, err := QuantizeKernel(c.model(t), 8)
		if err != nil {
			t.Fatal(err)
		}
		b, err := QuantizeKernel(c.model(t), 8)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustMarshal(t, a), mustMarshal(t, b)) {
			t.Errorf("%s: two quantizations give different files", c.name)
		}
	}
	a, _ := QuantizeLinear(linearCases[2].model(t), 8)
	b, _ := QuantizeLinear(linearCases[2].model(t), 8)
	if !bytes.Equal(mustMarshal(t, a), mustMarshal(t, b)) {
		t.Error("debdesc_bin: two quantizations give different files")
	}
}

func TestUnmarshalFloatFiles(t *testing.T) {
	fb, err := modelfile.Marshal(handLinear())
	if err != nil {
		t.Fatal(err)
	}
	kb, err := modelfile.MarshalKernel(handKernel(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{fb, kb} {
		if _, err := Unmarshal(b); !errors.Is(err, modelfile.ErrKind) {
			t.Errorf("float file: %v, want ErrKind", err)
		}
	}
}

// wrapsOne fails t unless err wraps exactly one of modelfile's sentinels.
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

var sentinels = []error{modelfile.ErrNotModel, modelfile.ErrVersion, modelfile.ErrTruncated,
	modelfile.ErrChecksum, modelfile.ErrCorrupt, modelfile.ErrKind}

// TestDamagedFiles refuses every truncation, every bit flip outside the
// minor version, trailing bytes and random bytes.
func TestDamagedFiles(t *testing.T) {
	models := fileModels(t, false)
	for _, name := range []string{"hand-linear-int8", "hand-kernel-int16", "hand-sparse-kernel-int8"} {
		b := mustMarshal(t, models[name])
		for n := range len(b) {
			_, err := Unmarshal(b[:n])
			if err == nil {
				t.Fatalf("%s: %d of %d bytes accepted", name, n, len(b))
			}
			wrapsOne(t, err)
		}
		for bit := range 8 * len(b) {
			c := bytes.Clone(b)
			c[bit/8] ^= 1 << (bit % 8)
			m, err := Unmarshal(c)
			if bit/8 == 10 || bit/8 == 11 { // the minor version: accepted by design
				if err != nil && !errors.Is(err, modelfile.ErrVersion) {
					t.Fatalf("%s: minor version flip: %v", name, err)
				}
				if err == nil {
					sameDecisions(t, name, models[name], m)
				}
				continue
			}
			if err == nil {
				t.Fatalf("%s: bit %d flipped, accepted", name, bit)
			}
			wrapsOne(t, err)
		}
		if _, err := Unmarshal(append(bytes.Clone(b), 0)); !errors.Is(err, modelfile.ErrCorrupt) {
			t.Errorf("%s: trailing byte: %v", name, err)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if r.IntN(2) == 0 && len(b) >= 8 {
			copy(b, modelfile.Magic)
		}
		if _, err := Unmarshal(b); err == nil {
			t.Fatalf("random bytes %x accepted", b)
		} else {
			wrapsOne(t, err)
		}
	}
}

// sealed frames a body of kind.
func sealed(t testing.TB, kind string, bd interface {
	MarshalMsg([]byte) ([]byte, error)
}) []byte {
	t.Helper()
	out, err := bd.MarshalMsg(make([]byte, modelfile.HeaderSize))
	if err != nil {
		t.Fatal(err)
	}
	if err := modelfile.Seal(out, kind); err != nil {
		t.Fatal(err)
	}
	return out
}

func linearBodyOf(t testing.TB, m Model) *modelfile.QLinearBody {
	t.Helper()
	payload, _, err := modelfile.Open(mustMarshal(t, m))
	if err != nil {
		t.Fatal(err)
	}
	var bd modelfile.QLinearBody
	if _, err := bd.UnmarshalMsg(bytes.Clone(payload)); err != nil {
		t.Fatal(err)
	}
	return &bd
}

func kernelBodyOf(t testing.TB, m Model) *modelfile.QKernelBody {
	t.Helper()
	payload, _, err := modelfile.Open(mustMarshal(t, m))
	if err != nil {
		t.Fatal(err)
	}
	var bd modelfile.QKernelBody
	if _, err := bd.UnmarshalMsg(bytes.Clone(payload)); err != nil {
		t.Fatal(err)
	}
	return &bd
}

func f32(v float32) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)) }
func f64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

// corruptBodies returns files with well-formed frames and bodies whose
// fields disagree, each with a word its error must contain.
func corruptBodies(t testing.TB) map[string]struct {
	file []byte
	word string
} {
	models := fileModels(t, false)
	out := map[string]struct {
		file []byte
		word string
	}{}
	lin := func(name, word string, from string, mutate func(*modelfile.QLinearBody)) {
		bd := linearBodyOf(t, models[from])
		mutate(bd)
		out["qlinear-"+name] = struct {
			file []byte
			word string
		}{sealed(t, modelfile.KindQLinear, bd), word}
	}
	ker := func(name, word string, from string, mutate func(*modelfile.QKernelBody)) {
		bd := kernelBodyOf(t, models[from])
		mutate(bd)
		out["qkernel-"+name] = struct {
			file []byte
			word string
		}{sealed(t, modelfile.KindQKernel, bd), word}
	}
	const hl, hk, hs = "hand-linear-int8", "hand-kernel-int8", "hand-sparse-kernel-int8"
	nan, inf := math.NaN(), math.Inf(1)
	lin("bits-7", "bits", hl, func(b *modelfile.QLinearBody) { b.Bits = 7 })
	lin("solver-9", "solver", hl, func(b *modelfile.QLinearBody) { b.Solver = 9 })
	lin("features-negative", "feature count", hl, func(b *modelfile.QLinearBody) { b.NumFeatures = -1 })
	lin("features-more", "weight blob", hl, func(b *modelfile.QLinearBody) { b.NumFeatures = 4 })
	lin("labels-repeated", "repeated", hl, func(b *modelfile.QLinearBody) { b.Labels = []int32{1, 1} })
	lin("labels-one", "labels", hl, func(b *modelfile.QLinearBody) { b.Labels = []int32{1} })
	lin("labels-for-svr", "labels", "diabetes-s13-B1-int8", func(b *modelfile.QLinearBody) { b.Labels = []int32{1, 2} })
	lin("scale-nan", "scale", hl, func(b *modelfile.QLinearBody) { b.Scales = f32(float32(nan)) })
	lin("scale-inf", "scale", hl, func(b *modelfile.QLinearBody) { b.Scales = f32(float32(inf)) })
	lin("scale-negative", "scale", hl, func(b *modelfile.QLinearBody) { b.Scales = f32(-1) })
	lin("scale-zero-codes", "weight code", hl, func(b *modelfile.QLinearBody) { b.Scales = f32(0) })
	lin("scales-short", "scale blob", hl, func(b *modelfile.QLinearBody) { b.Scales = nil })
	lin("weights-short", "weight blob", hl, func(b *modelfile.QLinearBody) { b.W = b.W[1:] })
	lin("weight-code-128", "weight code", hl, func(b *modelfile.QLinearBody) { b.W[0] = 0x80 })
	lin("weight-code-16-min", "weight code", "hand-linear-int16", func(b *modelfile.QLinearBody) { b.W[0], b.W[1] = 0, 0x80 })
	lin("bias-negative", "bias", hl, func(b *modelfile.QLinearBody) { v := -1.0; b.Bias = &v })
	lin("bias-nan", "bias", hl, func(b *modelfile.QLinearBody) { b.Bias = &nan })
	lin("bias-weights-without-bias", "bias weights", hl, func(b *modelfile.QLinearBody) { b.Bias = nil })
	lin("bias-weights-short", "bias weight", hl, func(b *modelfile.QLinearBody) { b.BiasW = nil })
	lin("bias-weight-inf", "bias weight", hl, func(b *modelfile.QLinearBody) { b.BiasW = f32(float32(inf)) })
	const sl = "breast_cancer-s6-int8" // codes stored sparse
	lin("sparse-count", "entry count", sl, func(b *modelfile.QLinearBody) { b.WI[0] = 31 })
	lin("sparse-gap-zero", "gap", sl, func(b *modelfile.QLinearBody) { b.WI[1] = 0 })
	lin("sparse-past-features", "gap", sl, func(b *modelfile.QLinearBody) { b.WI[1] = 30 })
	lin("sparse-trailing-index", "left over", sl, func(b *modelfile.QLinearBody) { b.WI = append(b.WI, 1) })
	lin("sparse-codes-long", "stored", sl, func(b *modelfile.QLinearBody) { b.W = append(b.W, 1) })
	lin("sparse-codes-short", "entry count", sl, func(b *modelfile.QLinearBody) { b.W = b.W[1:] })
	lin("sparse-code-zero", "weight code", sl, func(b *modelfile.QLinearBody) { b.W[0] = 0 })
	lin("sparse-code-16-odd", "whole number", "breast_cancer-s6-int16", func(b *modelfile.QLinearBody) { b.W = b.W[1:] })

	ker("bits-12", "bits", hk, func(b *modelfile.QKernelBody) { b.Bits = 12 })
	ker("svm-type-9", "SVM type", hk, func(b *modelfile.QKernelBody) { b.SVMType = 9 })
	ker("kernel-type-7", "kernel", hk, func(b *modelfile.QKernelBody) { b.KernelType = 7 })
	ker("gamma-negative", "gamma", hk, func(b *modelfile.QKernelBody) { b.Gamma = -1 })
	ker("degree-negative", "degree", hk, func(b *modelfile.QKernelBody) { b.Degree = -1 })
	ker("rows-negative", "support vector count", hk, func(b *modelfile.QKernelBody) { b.SVRows = -1 })
	ker("rows-huge", "support vector count", hk, func(b *modelfile.QKernelBody) { b.SVRows = math.MaxInt32 })
	ker("labels-repeated", "repeated", hk, func(b *modelfile.QKernelBody) { b.Labels = []int32{3, 3} })
	ker("labels-one", "classes", hk, func(b *modelfile.QKernelBody) { b.Labels, b.NumSV = []int32{3}, []int32{3} })
	ker("nsv-sum", "add up", hk, func(b *modelfile.QKernelBody) { b.NumSV = []int32{2, 2} })
	ker("nsv-negative", "negative", hk, func(b *modelfile.QKernelBody) { b.NumSV = []int32{4, -1} })
	ker("nsv-count", "counts", hk, func(b *modelfile.QKernelBody) { b.NumSV = []int32{3} })
	ker("labels-one-class", "labels", hs, func(b *modelfile.QKernelBody) { b.Labels = []int32{1, 2} })
	ker("rho-short", "rho", hk, func(b *modelfile.QKernelBody) { b.Rho = nil })
	ker("rho-nan", "rho", hk, func(b *modelfile.QKernelBody) { b.Rho = f64(nan) })
	ker("coef-scale-negative", "coefficient scale", hk, func(b *modelfile.QKernelBody) { b.CoefScale = f32(-2) })
	ker("coef-scale-nan", "coefficient scale", hk, func(b *modelfile.QKernelBody) { b.CoefScale = f32(float32(nan)) })
	ker("coef-scale-zero", "coefficient code", hk, func(b *modelfile.QKernelBody) { b.CoefScale = f32(0) })
	ker("coef-short", "coefficient blob", hk, func(b *modelfile.QKernelBody) { b.Coef = b.Coef[2:] })
	ker("coef-code-min", "coefficient code", hk, func(b *modelfile.QKernelBody) { b.Coef[0], b.Coef[1] = 0, 0x80 })
	ker("prob-a-only", "probB", hk, func(b *modelfile.QKernelBody) { b.ProbA = f64(1) })
	ker("prob-nan", "probA", hk, func(b *modelfile.QKernelBody) { b.ProbA, b.ProbB = f64(nan), f64(1) })
	ker("prob-one-class", "probA", hs, func(b *modelfile.QKernelBody) { b.ProbA = f64(1) })
	ker("feature-scale-nan", "feature scale", hk, func(b *modelfile.QKernelBody) { copy(b.FScale, f32(float32(nan))) })
	ker("feature-scale-negative", "feature scale", hk, func(b *modelfile.QKernelBody) { copy(b.FScale, f32(-0.5)) })
	ker("feature-scale-short", "feature scale", hk, func(b *modelfile.QKernelBody) { b.FScale = b.FScale[4:] })
	ker("feature-offset-inf", "feature offset", hk, func(b *modelfile.QKernelBody) { copy(b.FOffset, f64(inf)) })
	ker("features-more", "feature scale", hk, func(b *modelfile.QKernelBody) { b.NumFeatures = 3 })
	ker("dense-with-index", "sparse index", hk, func(b *modelfile.QKernelBody) { b.SVIndex = []byte{1} })
	ker("dense-codes-short", "support vector blob", hk, func(b *modelfile.QKernelBody) { b.SVCodes = b.SVCodes[1:] })
	ker("dense-code-zero-scale", "scale is 0", hk, func(b *modelfile.QKernelBody) { copy(b.FScale, f32(0)) })
	ker("sparse-offset", "zero point", hs, func(b *modelfile.QKernelBody) { copy(b.FOffset, f64(0.123)) })
	ker("sparse-count", "entry count", hs, func(b *modelfile.QKernelBody) { b.SVIndex[0] = 100 })
	ker("sparse-gap-zero", "gap", hs, func(b *modelfile.QKernelBody) { b.SVIndex[1] = 0 })
	ker("sparse-past-features", "gap", hs, func(b *modelfile.QKernelBody) { b.SVIndex[2] = 8 })
	ker("sparse-trailing-index", "leaves", hs, func(b *modelfile.QKernelBody) { b.SVIndex = append(b.SVIndex, 0) })
	ker("sparse-codes-extra", "entries", hs, func(b *modelfile.QKernelBody) { b.SVCodes = append(b.SVCodes, 1) })
	ker("sparse-stored-zero", "decodes to 0", hs, func(b *modelfile.QKernelBody) {
		a := math.Float32frombits(binary.LittleEndian.Uint32(b.FScale[4:]))
		o := math.Float64frombits(binary.LittleEndian.Uint64(b.FOffset[8:]))
		b.SVCodes[0] = byte(int8(-o / float64(a))) // feature 1's zero point
	})
	return out
}

func TestCorruptBodies(t *testing.T) {
	for name, c := range corruptBodies(t) {
		_, err := Unmarshal(c.file)
		if !errors.Is(err, modelfile.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
			continue
		}
		wrapsOne(t, err)
		if !strings.Contains(err.Error(), c.word) {
			t.Errorf("%s: error %q does not mention %q", name, err, c.word)
		}
	}
}

func TestWriteReadFile(t *testing.T) {
	dir := t.TempDir()
	for name, q := range fileModels(t, false) {
		path := filepath.Join(dir, name+".svmgo")
		if err := writeFile(path, q); err != nil {
			t.Fatal(err)
		}
		got, err := readFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustMarshal(t, got), mustMarshal(t, q)) {
			t.Errorf("%s: file reads back as another model", name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if _, err := readFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	float := filepath.Join(dir, "float.svmgo")
	if err := writeFloatFile(float, handLinear()); err != nil {
		t.Fatal(err)
	}
	if _, err := readFile(float); !errors.Is(err, modelfile.ErrKind) || !strings.Contains(err.Error(), float) {
		t.Errorf("float file: %v, want ErrKind naming the path", err)
	}
	if err := writeFile(filepath.Join(dir, "no", "such", "dir"), fileModels(t, false)["hand-linear-int8"]); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if _, err := Marshal(nil); err == nil {
		t.Error("Marshal(nil) succeeded")
	}
	if _, err := Marshal((*Linear)(nil)); err == nil {
		t.Error("Marshal of a nil *Linear succeeded")
	}
}

// writeFile, readFile and writeFloatFile do what daemon/modeldir's
// WriteFile and ReadFile do, with this package's and modelfile's codecs.
func writeFile(path string, m Model) error {
	data, err := Marshal(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return modelfile.WriteBytes(path, data)
}

func readFile(path string) (Model, error) {
	data, err := modelfile.ReadBytes(path)
	if err != nil {
		return nil, err
	}
	m, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return m, nil
}

func writeFloatFile(path string, m *linear.LinearModel) error {
	data, err := modelfile.Marshal(m)
	if err != nil {
		return err
	}
	return modelfile.WriteBytes(path, data)
}

// TestQuantizeEitherKind: Quantize is QuantizeLinear or QuantizeKernel as
// the float model's kind says, byte for byte, and refuses a quantized model
// and a bad width with an untyped nil model.
func TestQuantizeEitherKind(t *testing.T) {
	lin, ker := linearCases[0].model(t), kernelCases[0].model(t)
	for _, bits := range []int{8, 16} {
		wantL, err := QuantizeLinear(lin, bits)
		if err != nil {
			t.Fatal(err)
		}
		wantK, err := QuantizeKernel(ker, bits)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			float core.Model
			want  Model
		}{{lin, wantL}, {ker, wantK}} {
			got, err := Quantize(c.float, bits)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mustMarshal(t, got), mustMarshal(t, c.want)) {
				t.Errorf("int%d %s: Quantize's file differs from the kind's own quantizer's", bits, c.float.Info().Kind)
			}
			if _, err := Quantize(got, bits); err == nil {
				t.Errorf("int%d %s: a quantized model was quantized again", bits, c.float.Info().Kind)
			}
		}
	}
	if q, err := Quantize(lin, 4); err == nil || q != nil {
		t.Errorf("Quantize(4 bits) = %v, %v; want an error and an untyped nil", q, err)
	}
}
