package main

import (
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// forgetBatches and forgetKills size the forget kill -9 test; forgotten
// are the batches it asks the daemon to forget.
const (
	forgetBatches = 24
	forgetKills   = 40
)

var forgotten = []int{2, 5, 9, 14, 20}

// TestWatchForgetSurvivesKill9 runs the real binary, feeds it batches and
// forget requests for some of them (each request dropped after its batch),
// and kills it with SIGKILL at random moments, restarting it each time. At
// the end every batch was ingested once, every named batch forgotten once:
// the store holds exactly the rows of the others, in order; its generation
// counts each batch and each forget once (a forget repeated after a crash
// removes nothing and does not count); forget/ and rejected/ are empty;
// and the newest model is the one the final store trains to.
func TestWatchForgetSurvivesKill9(t *testing.T) {
	k := newKillRun(t, "--train.options", "-s 1 -e 0.00001",
		"--store.capacity", "2000", "--store.max-features", "8", "--watch.debounce", "1ms", "--models.keep", "3")
	root := k.root
	hashText := func(i int) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(crashBatch(i)))) }
	r := rand.New(rand.NewPCG(43, 43))
	next, asked := 0, 0 // batches dropped; requests dropped (forgotten[:asked])
	k.killThenFinish(r, forgetKills, forgetBatches, func() bool {
		for range 1 + r.IntN(2) {
			if next < forgetBatches {
				k.publish("incoming", fmt.Sprintf("batch-%03d.txt", next), crashBatch(next))
				next++
			}
		}
		if asked < len(forgotten) && forgotten[asked] < next && r.IntN(2) == 0 {
			i := forgotten[asked]
			// Both formats: a sha256sum line, and an empty file named by
			// the hash.
			if asked%2 == 0 {
				k.publish("forget", fmt.Sprintf("forget-%03d", i), hashText(i)+"  batch.txt\n")
			} else {
				k.publish("forget", hashText(i), "")
			}
			asked++
		}
		return next < forgetBatches || asked < len(forgotten)
	})

	if done, _ := os.ReadDir(filepath.Join(root, "done")); len(done) != forgetBatches {
		t.Errorf("done/ holds %d files, want %d", len(done), forgetBatches)
	}
	if rej, _ := os.ReadDir(filepath.Join(root, "rejected")); len(rej) != 0 {
		t.Errorf("rejected/ holds %d files", len(rej))
	}
	st, err := store.Open(filepath.Join(root, "state"), store.Config{Capacity: 2000, MaxFeatures: 8, CapacityNonzeros: 2000 * 8})
	if err != nil {
		t.Fatal(err)
	}
	wantGen := uint64(forgetBatches + len(forgotten))
	if st.Generation() != wantGen || st.Published() != wantGen || len(st.Hashes()) != forgetBatches {
		t.Errorf("store: generation %d, published %d, %d batches; want %d, %d, %d",
			st.Generation(), st.Published(), len(st.Hashes()), wantGen, wantGen, forgetBatches)
	}
	// The rows: those of the batches not forgotten, in order, each once.
	want := data.NewSparse(forgetBatches*crashRows, forgetBatches*crashRows*8, 8)
	for i := range forgetBatches {
		h := store.Hash(sha256.Sum256([]byte(crashBatch(i))))
		if gone := slices.Contains(forgotten, i); st.Forgotten(h) != gone {
			t.Errorf("batch %d: forgotten %v, want %v", i, st.Forgotten(h), gone)
		}
		if slices.Contains(forgotten, i) {
			continue
		}
		if _, err := data.ReadInto(want, strings.NewReader(crashBatch(i)), "batch", data.ReadOptions{MaxFeatures: 8}); err != nil {
			t.Fatal(err)
		}
	}
	got := st.Dataset()
	if got.Len() != want.Len() {
		t.Fatalf("store holds %d rows, want %d", got.Len(), want.Len())
	}
	for i := range want.Len() {
		gi, gv := got.SparseRow(i)
		wi, wv := want.SparseRow(i)
		if got.Label(i) != want.Label(i) || !slices.Equal(gi, wi) || !slices.Equal(gv, wv) {
			t.Fatalf("row %d differs from the batches not forgotten", i)
		}
	}

	newest := slices.Max(modelVersionsIn(t, filepath.Join(root, "models")))
	model, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(root, "models", modeldir.FileName(newest)))
	if err != nil {
		t.Fatal(err)
	}
	opts, _, _ := options.ParseLinear([]string{"-s", "1", "-e", "0.00001"})
	tr, err := linear.NewLinearTrainer(opts.Params, 2000, 8)
	if err != nil {
		t.Fatal(err)
	}
	ref, _, err := tr.Train(got, linearDual(st))
	if err != nil {
		t.Fatal(err)
	}
	g, w := make([]float64, 1), make([]float64, 1)
	worst := 0.0
	for i := range got.Len() {
		idx, val := got.SparseRow(i)
		gv, wv := model.DecisionSparse(g, idx, val)[0], ref.DecisionSparse(w, idx, val)[0]
		worst = max(worst, math.Abs(gv-wv)/max(1, math.Abs(wv)))
	}
	if worst > 1e-6 {
		t.Errorf("newest model differs from the final store's by %g (relative) in decision values", worst)
	}
}

// modelVersionsIn returns the published versions in dir; a file that is
// not a published model fails the test.
func modelVersionsIn(t *testing.T, dir string) []uint64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var vs []uint64
	for _, e := range entries {
		v, ok := modeldir.ParseFileName(e.Name())
		if !ok {
			t.Errorf("models/ holds %s", e.Name())
			continue
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		t.Fatal("no model published")
	}
	return vs
}
