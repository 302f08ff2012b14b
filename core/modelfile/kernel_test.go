package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// svSet returns l rows of nf features, about density of them nonzero, drawn
// from a seeded generator, in a dense or a sparse data set as asked. The
// rows are the same either way for equal arguments.
func svSet(l, nf int, density float64, dense bool, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 3))
	var ds *data.Dataset
	if dense {
		ds = data.NewDense(l, nf)
	} else {
		ds = data.NewSparse(l, l*nf, nf)
	}
	x := make([]float32, nf)
	for range l {
		for j := range x {
			x[j] = 0
			if rng.Float64() < density {
				x[j] = float32(rng.NormFloat64())
			}
		}
		if err := ds.AppendDense(1, x); err != nil {
			panic(err)
		}
	}
	return ds
}

// seqFloats returns n distinct values from a seeded generator.
func seqFloats(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 5))
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

type namedKernelModel struct {
	name string
	m    *core.KernelModel
}

// newKernelModel returns an initialised model with distinct values in
// every field, so that a field dropped or swapped by the codec shows up.
func newKernelModel(t testing.TB, typ core.SVMType, k core.Kernel, labels, nsv []int32,
	nf int, density float64, dense bool, prob bool, seed uint64) *core.KernelModel {
	t.Helper()
	l := 0
	for _, n := range nsv {
		l += int(n)
	}
	nr := 2
	if typ == core.CSVC {
		nr = len(labels)
	} else {
		l = int(nsv[0])
		nsv = nil
	}
	pairs := nr * (nr - 1) / 2
	m := &core.KernelModel{
		SVMType:     typ,
		Kernel:      k,
		NumFeatures: nf,
		Labels:      labels,
		NumSV:       nsv,
		SV:          svSet(l, nf, density, dense, seed),
		Coef:        seqFloats((nr-1)*l, seed+1),
		Rho:         seqFloats(pairs, seed+2),
		Params:      core.DefaultKernelParams(),
		Created:     int64(seed) * 1000,
	}
	m.Params.SVMType = typ
	m.Params.Kernel = k
	m.Params.Seed = seed
	m.Params.Probability = prob
	if prob {
		m.ProbA = seqFloats(pairs, seed+3)
		if typ == core.CSVC {
			m.ProbB = seqFloats(pairs, seed+4)
		} else {
			m.ProbA = m.ProbA[:1]
		}
	}
	m.Result = core.KernelTrainResult{Iterations: 123, KernelEvals: 4567, Objective: -8.5,
		NumSV: l, NumBoundSV: 3, Converged: true}
	for p := range pairs {
		m.Result.Subproblems = append(m.Result.Subproblems, core.KernelSubproblem{
			Pos: int32(p), Neg: int32(p + 1), Rows: 10 + p, Iterations: 20 + p, Objective: -float64(p),
			Rho: m.Rho[p], Gap: 1e-3, KernelEvals: int64(100 * p), NumSV: 5 + p, NumBoundSV: p,
			Converged: p != 1,
		})
	}
	if err := m.Init(); err != nil {
		t.Fatalf("test model invalid: %v", err)
	}
	return m
}

func kernelTestModels(t testing.TB) []namedKernelModel {
	rbf := core.Kernel{Type: core.RBFKernel, Degree: 3, Gamma: 0.25}
	poly := core.Kernel{Type: core.PolyKernel, Degree: 2, Gamma: 0.5, Coef0: 1}
	sig := core.Kernel{Type: core.SigmoidKernel, Degree: 3, Gamma: 0.1, Coef0: -0.5}
	weighted := newKernelModel(t, core.CSVC, rbf, []int32{3, -7, 12}, []int32{4, 2, 5}, 9, 0.3, false, true, 1)
	weighted.Params.Weights = []core.ClassWeight{{Label: 3, Weight: 2}, {Label: 12, Weight: 0.5}}
	return []namedKernelModel{
		{"csvc3-sparse-prob", weighted},
		{"csvc2-dense", newKernelModel(t, core.CSVC, poly, []int32{1, -1}, []int32{3, 4}, 6, 0.9, true, false, 2)},
		{"svr-prob", newKernelModel(t, core.EpsSVR, rbf, nil, []int32{7}, 5, 1, true, true, 3)},
		{"oneclass-sparse", newKernelModel(t, core.OneClass, sig, nil, []int32{6}, 40, 0.1, false, false, 4)},
		{"linear-kernel", newKernelModel(t, core.CSVC, core.Kernel{}, []int32{0, 1, 2, 3}, []int32{1, 1, 2, 1}, 3, 0.6, false, false, 5)},
		{"no-sv", newKernelModel(t, core.OneClass, rbf, nil, []int32{0}, 4, 1, true, false, 6)},
	}
}

func marshalKernel(t testing.TB, m *core.KernelModel) []byte {
	t.Helper()
	b, err := MarshalKernel(m)
	if err != nil {
		t.Fatalf("MarshalKernel: %v", err)
	}
	return b
}

// sameKernelPredictions checks that a and b give bit-identical decision
// values and predictions on random dense and sparse rows.
func sameKernelPredictions(t *testing.T, a, b *core.KernelModel) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	da := make([]float64, a.NumDecisionValues())
	db := make([]float64, b.NumDecisionValues())
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
		if pa, pb := a.PredictDense(x), b.PredictDense(x); math.Float64bits(pa) != math.Float64bits(pb) {
			t.Fatalf("dense prediction: %v before, %v after", pa, pb)
		}
		var index []int32
		var value []float32
		for j := 0; j < a.NumFeatures+3; j++ {
			if rng.IntN(2) == 0 {
				index = append(index, int32(j))
				value = append(value, float32(rng.NormFloat64()))
			}
		}
		va, vb = a.DecisionSparse(da, index, value), b.DecisionSparse(db, index, value)
		for k := range va {
			if math.Float64bits(va[k]) != math.Float64bits(vb[k]) {
				t.Fatalf("sparse decision %d: %v before, %v after", k, va[k], vb[k])
			}
		}
	}
}

func TestKernelRoundTrip(t *testing.T) {
	for _, tc := range kernelTestModels(t) {
		t.Run(tc.name, func(t *testing.T) {
			b := marshalKernel(t, tc.m)
			if got := binary.LittleEndian.Uint16(b[10:12]); got != minorKernel {
				t.Errorf("minor version %d, want %d", got, minorKernel)
			}
			if k, err := Kind(b); err != nil || k != KindKernel {
				t.Errorf("Kind = %q, %v; want %q", k, err, KindKernel)
			}
			got, err := UnmarshalKernel(b)
			if err != nil {
				t.Fatalf("UnmarshalKernel: %v", err)
			}
			sameKernelPredictions(t, tc.m, got)
			want, m := tc.m, got
			if m.SVMType != want.SVMType || m.Kernel != want.Kernel || m.NumFeatures != want.NumFeatures ||
				m.Created != want.Created || m.SV.Len() != want.SV.Len() {
				t.Errorf("header fields changed: got %v %+v %d %d %d", m.SVMType, m.Kernel, m.NumFeatures, m.Created, m.SV.Len())
			}
			if m.Params.Seed != want.Params.Seed || len(m.Params.Weights) != len(want.Params.Weights) ||
				m.Params.Probability != want.Params.Probability || m.Params.C != want.Params.C {
				t.Errorf("params changed: got %+v, want %+v", m.Params, want.Params)
			}
			if len(m.Result.Subproblems) != len(want.Result.Subproblems) || m.Result.KernelEvals != want.Result.KernelEvals {
				t.Errorf("result changed: got %+v, want %+v", m.Result, want.Result)
			}
			for i, s := range want.Result.Subproblems {
				if m.Result.Subproblems[i] != s {
					t.Errorf("subproblem %d: got %+v, want %+v", i, m.Result.Subproblems[i], s)
				}
			}
			if again := marshalKernel(t, got); !bytes.Equal(again, b) {
				t.Fatalf("re-marshalling the decoded model gives different bytes")
			}
		})
	}
}

// TestKernelLayout checks that the support vectors are stored in the
// smaller layout whatever data set holds them, with equal bytes either way.
func TestKernelLayout(t *testing.T) {
	rbf := core.Kernel{Type: core.RBFKernel, Gamma: 0.5}
	for _, tc := range []struct {
		density   float64
		wantDense bool
	}{{0.1, false}, {0.95, true}} {
		var files [2][]byte
		for i, dense := range []bool{false, true} {
			m := newKernelModel(t, core.CSVC, rbf, []int32{1, 2}, []int32{10, 10}, 30, tc.density, dense, false, 9)
			files[i] = marshalKernel(t, m)
			got, err := UnmarshalKernel(files[i])
			if err != nil {
				t.Fatal(err)
			}
			if got.SV.IsDense() != tc.wantDense {
				t.Errorf("density %v held dense=%v: decoded dense=%v, want %v", tc.density, dense, got.SV.IsDense(), tc.wantDense)
			}
			sameKernelPredictions(t, m, got)
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("density %v: sparse and dense holders give different files", tc.density)
		}
	}
	// The sparse layout costs 8 bytes a nonzero and 4 a row, the dense one
	// 4 bytes a cell: 20 rows × 30 features at 10% density take about
	// 4·21 + 8·60 = 564 bytes sparse against 2400 dense.
	m := newKernelModel(t, core.CSVC, rbf, []int32{1, 2}, []int32{10, 10}, 30, 0.1, true, false, 9)
	bd, err := toKernelBody(m)
	if err != nil {
		t.Fatal(err)
	}
	nnz := m.SV.Nonzeros()
	if !m.SV.IsDense() || bd.SVDense || len(bd.SVValues) >= 2400 || len(bd.SVStarts) != 4*21 {
		t.Errorf("sparse layout: dense=%v, %d value bytes, %d start bytes (held %d cells)", bd.SVDense, len(bd.SVValues), len(bd.SVStarts), nnz)
	}
}

func TestKernelTruncatedAndFlipped(t *testing.T) {
	models := kernelTestModels(t)
	orig := models[0].m
	b := marshalKernel(t, orig)
	for n := range len(b) {
		if _, err := UnmarshalKernel(b[:n]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("%d of %d bytes: err = %v, want ErrTruncated", n, len(b), err)
		}
	}
	if _, err := UnmarshalKernel(append(bytes.Clone(b), 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("one trailing byte: err = %v, want ErrCorrupt", err)
	}
	for i := range len(b) {
		for bit := range 8 {
			c := bytes.Clone(b)
			c[i] ^= 1 << bit
			m, err := UnmarshalKernel(c)
			if i == 10 || i == 11 {
				// The minor version is not covered by the CRC and does
				// not change the model.
				if err != nil {
					t.Fatalf("minor version flipped (byte %d bit %d): %v", i, bit, err)
				}
				sameKernelPredictions(t, orig, m)
				continue
			}
			if err == nil {
				t.Fatalf("byte %d bit %d flipped: accepted", i, bit)
			}
		}
	}
}

func TestKernelAndLinearKinds(t *testing.T) {
	kb := marshalKernel(t, kernelTestModels(t)[0].m)
	lb := marshal(t, testModels()[0].m)
	if _, err := Unmarshal(kb); !errors.Is(err, ErrKind) {
		t.Errorf("Unmarshal of a kernel file: err = %v, want ErrKind", err)
	}
	if _, err := UnmarshalKernel(lb); !errors.Is(err, ErrKind) {
		t.Errorf("UnmarshalKernel of a linear file: err = %v, want ErrKind", err)
	}
	if k, err := Kind(lb); err != nil || k != KindLinear {
		t.Errorf("Kind of a linear file = %q, %v", k, err)
	}
	if _, err := Kind(kb[:len(kb)-1]); !errors.Is(err, ErrTruncated) {
		t.Errorf("Kind of a truncated file: err = %v, want ErrTruncated", err)
	}
	if _, err := Kind([]byte("svm_type c_svc\n")); !errors.Is(err, ErrNotModel) {
		t.Errorf("Kind of a LIBSVM text model: err = %v, want ErrNotModel", err)
	}
	if n := testing.AllocsPerRun(10, func() { Kind(kb) }); n != 0 {
		t.Errorf("Kind allocates %v times", n)
	}
}

// kernelReframe encodes bd in a valid frame of format 1.1.
func kernelReframe(t testing.TB, bd *kbody) []byte {
	t.Helper()
	p, err := bd.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	return frame(p, Major, minorKernel)
}

func TestKernelInconsistentBodyRefused(t *testing.T) {
	base := kernelTestModels(t)[0].m // C-SVC, 3 classes, sparse, probabilities
	dense := kernelTestModels(t)[1].m
	cases := []struct {
		name   string
		dense  bool
		mutate func(*kbody)
		detail string
	}{
		{"coef short", false, func(b *kbody) { b.Coef = b.Coef[:len(b.Coef)-8] }, "coefficients"},
		{"coef ragged", false, func(b *kbody) { b.Coef = b.Coef[:len(b.Coef)-1] }, "float64"},
		{"rho short", false, func(b *kbody) { b.Rho = b.Rho[:8] }, "rho"},
		{"probB missing", false, func(b *kbody) { b.ProbB = nil }, "prob"},
		{"nSV wrong", false, func(b *kbody) { b.NumSV[0]++ }, "add up"},
		{"label repeated", false, func(b *kbody) { copy(b.Labels[4:8], b.Labels[0:4]) }, "repeated"},
		{"rows huge", false, func(b *kbody) { b.SVRows = math.MaxInt32 }, "coefficients"},
		{"rows negative", false, func(b *kbody) { b.SVRows = -1 }, "support vector count"},
		{"starts short", false, func(b *kbody) { b.SVStarts = b.SVStarts[4:] }, "row starts"},
		{"starts decrease", false, func(b *kbody) { binary.LittleEndian.PutUint32(b.SVStarts[8:], 0) }, "row start"},
		{"index past features", false, func(b *kbody) { b.NumFeatures = 1 }, "features"},
		{"index order", false, func(b *kbody) { copy(b.SVIndex[4:8], b.SVIndex[0:4]) }, "increase"},
		{"values short", false, func(b *kbody) { b.SVValues = b.SVValues[4:] }, "values"},
		{"value NaN", false, func(b *kbody) { binary.LittleEndian.PutUint32(b.SVValues, 0x7fc00000) }, "finite"},
		{"rho infinite", false, func(b *kbody) { binary.LittleEndian.PutUint64(b.Rho, math.Float64bits(math.Inf(1))) }, "finite"},
		{"svm type unknown", false, func(b *kbody) { b.SVMType = 5 }, "SVM type"},
		{"kernel unknown", false, func(b *kbody) { b.KernelType = 4 }, "kernel type"},
		{"gamma negative", false, func(b *kbody) { b.Gamma = -1 }, "gamma"},
		{"features negative", false, func(b *kbody) { b.NumFeatures = -1 }, "feature count"},
		{"dense blob short", true, func(b *kbody) { b.SVValues = b.SVValues[4:] }, "dense"},
		{"dense with starts", true, func(b *kbody) { b.SVStarts = []byte{0, 0, 0, 0} }, "dense"},
		{"dense features huge", true, func(b *kbody) { b.NumFeatures = math.MaxInt32 }, "dense"},
	}
	for _, tc := range cases {
		m := base
		if tc.dense {
			m = dense
		}
		bd, err := toKernelBody(m)
		if err != nil {
			t.Fatal(err)
		}
		tc.mutate(bd)
		_, err = UnmarshalKernel(kernelReframe(t, bd))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.detail) {
			t.Errorf("%s: error %q does not say %q", tc.name, err, tc.detail)
		}
	}
}

func TestMarshalKernelRefusesInvalid(t *testing.T) {
	if _, err := MarshalKernel(nil); err == nil {
		t.Error("nil model accepted")
	}
	m := *kernelTestModels(t)[0].m
	m.Rho = m.Rho[:1]
	if _, err := MarshalKernel(&m); err == nil || !strings.Contains(err.Error(), "rho") {
		t.Errorf("short rho: err = %v", err)
	}
	m = *kernelTestModels(t)[1].m // dense support vectors
	m.NumFeatures++
	if _, err := MarshalKernel(&m); err == nil || !strings.Contains(err.Error(), "dense") {
		t.Errorf("dense support vectors narrower than the model: err = %v", err)
	}
}

func TestWriteReadKernelFile(t *testing.T) {
	dir := t.TempDir()
	m := kernelTestModels(t)[0].m
	path := filepath.Join(dir, "model-1.svmgo")
	if err := writeKernelFile(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := readKernelFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sameKernelPredictions(t, m, got)
	if k, err := readKind(path); err != nil || k != KindKernel {
		t.Errorf("ReadKind = %q, %v", k, err)
	}
	if _, err := readFile(path); !errors.Is(err, ErrKind) || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadFile of a kernel file: err = %v, want ErrKind naming the path", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("directory holds %v (%v), want the model only", entries, err)
	}
	bad := *m
	bad.Coef = nil
	if err := writeKernelFile(filepath.Join(dir, "model-2.svmgo"), &bad); err == nil {
		t.Error("invalid model written")
	}
	if _, err := readKernelFile(filepath.Join(dir, "model-2.svmgo")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("invalid model left a file: %v", err)
	}
}

// kernelSeeds returns the fuzz seeds of kernel files: every test model, and
// damaged ones.
func kernelSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	models := kernelTestModels(t)
	for _, tc := range models {
		seeds["kernel-valid-"+tc.name] = marshalKernel(t, tc.m)
	}
	bd, err := toKernelBody(models[0].m)
	if err != nil {
		t.Fatal(err)
	}
	bd.SVRows = math.MaxInt32
	seeds["kernel-rows-huge"] = kernelReframe(t, bd)
	bd, _ = toKernelBody(models[1].m)
	bd.NumFeatures = math.MaxInt32
	seeds["kernel-dense-features-huge"] = kernelReframe(t, bd)
	return seeds
}

// checkUnmarshalKernel is checkUnmarshal's property for UnmarshalKernel.
func checkUnmarshalKernel(t *testing.T, b []byte, kind string) {
	m, err := UnmarshalKernel(b)
	if err != nil {
		if m != nil {
			t.Fatalf("UnmarshalKernel returned a model and the error %v", err)
		}
		wrapsOne(t, err)
		return
	}
	if kind != KindKernel {
		t.Fatalf("UnmarshalKernel accepted a file Kind calls %q", kind)
	}
	b2, err := MarshalKernel(m)
	if err != nil {
		t.Fatalf("accepted a kernel model MarshalKernel refuses: %v", err)
	}
	m2, err := UnmarshalKernel(b2)
	if err != nil {
		t.Fatalf("re-marshalled kernel model refused: %v", err)
	}
	b3, err := MarshalKernel(m2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b2, b3) {
		t.Fatalf("kernel model changed through MarshalKernel and UnmarshalKernel")
	}
}

// TestKernelDenseSupportVectorsBothPaths decodes a model's dense support
// vectors by both paths, the one-move copy little-endian machines take and
// the value-at-a-time one: each gives the model's values bit for bit, and
// each refuses a NaN put into the blob.
func TestKernelDenseSupportVectorsBothPaths(t *testing.T) {
	rbf := core.Kernel{Type: core.RBFKernel, Gamma: 0.5}
	m := newKernelModel(t, core.CSVC, rbf, []int32{1, 2}, []int32{10, 10}, 30, 0.95, true, false, 9)
	bd, err := toKernelBody(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bd.SVDense {
		t.Fatal("the model's support vectors are not stored dense")
	}
	defer func(v bool) { nativeLittleEndian = v }(nativeLittleEndian)
	for _, native := range []bool{true, false} {
		nativeLittleEndian = native
		got, err := supportVectors(bd, m.SV.Len(), m.NumFeatures)
		if err != nil {
			t.Fatalf("native=%v: %v", native, err)
		}
		for i := range m.SV.Len() {
			want, row := m.SV.DenseRow(i), got.DenseRow(i)
			for j := range want {
				if math.Float32bits(row[j]) != math.Float32bits(want[j]) {
					t.Fatalf("native=%v: support vector %d value %d: %v, want %v", native, i, j, row[j], want[j])
				}
			}
		}
		bad := *bd
		bad.SVValues = slices.Clone(bd.SVValues)
		binary.LittleEndian.PutUint32(bad.SVValues[4*(2*m.NumFeatures+5):], 0x7fc00000)
		if _, err := supportVectors(&bad, m.SV.Len(), m.NumFeatures); err == nil || !strings.Contains(err.Error(), "support vector 2") {
			t.Errorf("native=%v: a NaN in support vector 2: error %v", native, err)
		}
	}
}
