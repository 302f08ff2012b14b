package watchd

import (
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// request writes a forget request into forget/ as producers must: a
// temporary dot-file renamed to its final name.
func request(t *testing.T, root, name, text string) {
	t.Helper()
	tmp := filepath.Join(root, ForgetDir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, ForgetDir, name)); err != nil {
		t.Fatal(err)
	}
}

func hexHash(text string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(text))) }

// newestModel reads the newest published linear model.
func newestModel(t *testing.T, root string) *linear.LinearModel {
	t.Helper()
	vs := modelVersions(t, root)
	if len(vs) == 0 {
		t.Fatal("no model published")
	}
	m, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(root, ModelsDir, modeldir.FileName(vs[len(vs)-1])))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestForgetRequest ingests batches a, b and c, then forgets b by a
// sha256sum line: b's rows leave the store, a model trained warm without
// them is published and equals a cold solve of a and c (to the tolerance),
// the request is removed and the metrics count one batch and its rows. A
// second request for b (an empty file named by its hash) changes nothing,
// and b dropped again is a duplicate.
func TestForgetRequest(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.TrainOptions = "-s 1 -c 1 -e 0.00001"
	s := newSync(t, cfg)
	a, b, c := batchText(21, 40), batchText(22, 30), batchText(23, 40)
	s.ingest(t, "a.txt", a)
	s.ingest(t, "b.txt", b)
	s.ingest(t, "c.txt", c)
	versions := len(modelVersions(t, cfg.Root))

	request(t, cfg.Root, "req", "# forget b\n"+hexHash(b)+"  b.txt\n")
	if err := s.d.drainForget(); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(cfg.Root, ForgetDir, "req")) {
		t.Error("the request is still in forget/")
	}
	st := s.d.st
	if st.Len() != 80 || !st.Forgotten(store.Hash(sha256.Sum256([]byte(b)))) || st.Published() != st.Generation() {
		t.Fatalf("store: %d rows, forgotten %v, published %d of %d", st.Len(),
			st.Forgotten(store.Hash(sha256.Sum256([]byte(b)))), st.Published(), st.Generation())
	}
	if got := len(modelVersions(t, cfg.Root)); got != versions+1 {
		t.Fatalf("%d versions after the forget, want %d", got, versions+1)
	}
	want, _, ds := trainText(t, cfg, a+c)
	if !slices.Equal(ds.Labels(), st.Dataset().Labels()) {
		t.Fatal("the store's rows are not a's and c's")
	}
	assertClose(t, newestModel(t, cfg.Root), want, st.Dataset(), 1e-3)
	for name, v := range map[string]float64{"batches_forgotten_total": 1, "rows_forgotten_total": 30} {
		if got := (&running{d: s.d}).metric(t, name); got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
	if recs := s.records(t, "retrained"); recs[len(recs)-1]["warm"] != true {
		t.Error("the retrain after the forget was not warm")
	}

	// Again, by an empty file named by the hash: nothing changes.
	request(t, cfg.Root, hexHash(b)+".forget", "")
	if err := s.d.drainForget(); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(cfg.Root, ForgetDir, hexHash(b)+".forget")) || len(modelVersions(t, cfg.Root)) != versions+1 ||
		(&running{d: s.d}).metric(t, "batches_forgotten_total") != 1 {
		t.Error("a second request for b changed something")
	}
	drop(t, cfg.Root, "b-again.txt", b)
	if err := s.d.ingest("b-again.txt"); err != nil {
		t.Fatal(err)
	}
	if st.Len() != 80 || !exists(filepath.Join(cfg.Root, DoneDir, "b-again.txt")) {
		t.Errorf("b again: %d rows", st.Len())
	}
}

// assertClose checks that two models' decision values on ds agree within
// tol, relative to max(1, |want|): two solves of one problem to a
// tolerance, not one solve twice.
func assertClose(t *testing.T, got, want *linear.LinearModel, ds *data.Dataset, tol float64) {
	t.Helper()
	g, w := make([]float64, got.NrW()), make([]float64, want.NrW())
	for i := range ds.Len() {
		idx, val := ds.SparseRow(i)
		gv, wv := got.DecisionSparse(g, idx, val)[0], want.DecisionSparse(w, idx, val)[0]
		if math.Abs(gv-wv) > tol*max(1, math.Abs(wv)) {
			t.Fatalf("row %d: decision %v, want %v", i, gv, wv)
		}
	}
}

// TestForgetRejects: malformed requests and a hash never ingested move to
// rejected/ with a reason and forget nothing; a request for a batch still
// in incoming/ waits for it.
func TestForgetRejects(t *testing.T) {
	cfg := testConfig(t.TempDir())
	s := newSync(t, cfg)
	a := batchText(31, 30)
	s.ingest(t, "a.txt", a)
	cases := map[string]struct{ text, reason string }{
		"short":    {"abc123\n", `"abc123" is not a SHA-256`},
		"unknown":  {hexHash("nothing") + "\n", "no batch with SHA-256"},
		"comments": {"# nothing\n", "names no batch"},
		"empty":    {"", "its name does not start with a SHA-256"},
		"mixed":    {hexHash(a) + "\n" + hexHash("x") + "\n", "no batch with SHA-256"},
	}
	for name, c := range cases {
		request(t, cfg.Root, name, c.text)
	}
	if err := s.d.drainForget(); err != nil {
		t.Fatal(err)
	}
	for name, c := range cases {
		reason, err := os.ReadFile(filepath.Join(cfg.Root, RejectedDir, name+ReasonSuffix))
		if err != nil || !strings.Contains(string(reason), c.reason) {
			t.Errorf("%s: reason %q (%v), want %q", name, reason, err, c.reason)
		}
	}
	if s.d.st.Len() != 30 || s.d.st.Forgotten(store.Hash(sha256.Sum256([]byte(a)))) {
		t.Error("a rejected request forgot rows")
	}

	b := batchText(32, 20)
	drop(t, cfg.Root, "b.txt", b)
	request(t, cfg.Root, "early", hexHash(b)+"\n")
	if err := s.d.drainForget(); err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(cfg.Root, ForgetDir, "early")) {
		t.Fatal("a request for a batch still in incoming/ did not wait")
	}
	if err := s.d.ingest("b.txt"); err != nil {
		t.Fatal(err)
	}
	if err := s.d.drainForget(); err != nil {
		t.Fatal(err)
	}
	if s.d.st.Len() != 30 || exists(filepath.Join(cfg.Root, ForgetDir, "early")) {
		t.Errorf("after b and its request: %d rows", s.d.st.Len())
	}
}

// TestMaxAgeRetrains runs the daemon with a maximum age: a's rows expire
// while nothing arrives (the daemon's timer), the model is retrained on b
// alone, and rows_expired_total counts them.
func TestMaxAgeRetrains(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.Store.MaxAge = 2 * time.Second
	r := start(t, cfg)
	a, b := batchText(41, 30), batchText(42, 40)
	drop(t, r.root, "a.txt", a)
	waitFor(t, "a in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "a.txt")) })
	time.Sleep(time.Second) // b expires a second after a
	drop(t, r.root, "b.txt", b)
	waitFor(t, "b in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "b.txt")) })
	waitFor(t, "a's rows to expire", func() bool { return r.metric(t, "rows_expired_total") == 30 })
	waitFor(t, "the model without a", func() bool { return len(modelVersions(t, r.root)) == 3 })
	r.stop(t)
	want, _, _ := trainText(t, cfg, b)
	st := openStore(t, cfg)
	if st.Len() != 40 {
		t.Fatalf("store holds %d rows after a expired, want b's 40", st.Len())
	}
	assertClose(t, newestModel(t, r.root), want, st.Dataset(), 1e-2)
}

// TestForgetKernel forgets a batch under kernel options (RBF C-SVC with a
// fixed γ): the α of the rows that remain start the retrain (SMO restores
// Σ yᵢαᵢ = 0 itself), which reaches the model a cold core.TrainKernel of
// those rows gives.
func TestForgetKernel(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.TrainOptions = "-t 2 -g 0.5 -c 4 -e 0.0001"
	s := newSync(t, cfg)
	a, b, c := batchText(51, 40), batchText(52, 30), batchText(53, 40)
	s.ingest(t, "a.txt", a)
	s.ingest(t, "b.txt", b)
	s.ingest(t, "c.txt", c)
	request(t, cfg.Root, "req", hexHash(b)+"\n")
	if err := s.d.drainForget(); err != nil {
		t.Fatal(err)
	}
	st := s.d.st
	if st.Len() != 80 || st.Dual() == nil || st.Dual().Kernel == nil {
		t.Fatalf("store: %d rows, dual %+v", st.Len(), st.Dual())
	}
	vs := modelVersions(t, cfg.Root)
	got, err := modelfile.ReadFileAs[*core.KernelModel](filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(vs[len(vs)-1])))
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := options.ParseKernel(strings.Fields(cfg.TrainOptions))
	if err != nil {
		t.Fatal(err)
	}
	want, err := core.TrainKernelModel(st.Dataset(), o.Params)
	if err != nil {
		t.Fatal(err)
	}
	ds := st.Dataset()
	g, w := make([]float64, 1), make([]float64, 1)
	for i := range ds.Len() {
		idx, val := ds.SparseRow(i)
		gv, wv := got.DecisionSparse(g, idx, val)[0], want.DecisionSparse(w, idx, val)[0]
		if math.Abs(gv-wv) > 1e-3*max(1, math.Abs(wv)) {
			t.Fatalf("row %d: decision %v, a cold solve's %v", i, gv, wv)
		}
	}
	if recs := s.records(t, "retrained"); recs[len(recs)-1]["warm"] != true {
		t.Error("the retrain after the forget was not warm")
	}
}
