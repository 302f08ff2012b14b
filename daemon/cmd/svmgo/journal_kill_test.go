package main

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// The kernel kill -9 test's stream: journalBatches batches of
// journalRows rows of three classes, through a store whose window keeps
// journalWindow rows, so that every batch retires rows and the store's
// journal holds removals and changes of a multi-class kernel dual whose
// pairs reorder as the classes' first rows leave.
const (
	journalBatches = 30
	journalRows    = 20
	journalWindow  = 150
	journalKills   = 30
)

// journalForgotten are the batches the test asks the daemon to forget;
// the window retires some of their rows before the request comes.
var journalForgotten = []int{3, 8, 15, 22, 27}

// journalBatch returns batch i: rows of three classes by x1 + x2, the
// third feature drawn at random (so every row is told apart by its
// values). The class of the first row turns with i, so the order the
// classes appear in changes as the window slides.
func journalBatch(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 23))
	var b strings.Builder
	for k := range journalRows {
		x1, x2 := 2*r.Float64(), 2*r.Float64()
		y := 1 + int(x1+x2)*3/4
		if k == 0 {
			y = 1 + i%3
		}
		fmt.Fprintf(&b, "%d 1:%.4f 2:%.4f 3:%.6f\n", y, x1, x2, r.Float64())
	}
	return b.String()
}

// TestWatchKernelJournalSurvivesKill9 runs the real binary with a kernel
// C-SVC of three classes and a sliding window, feeds it batches and forget
// requests and kills it with SIGKILL at random moments, restarting it each
// time; then a last run finishes. Every batch is ingested once and every
// named batch forgotten once; the store holds, in order and each once, the
// rows of the batches not forgotten from the oldest row it holds on (the
// window retires the oldest rows first, a forget removes a whole batch),
// at most the window's; and the newest model is the optimum of a cold
// solve of the final store's rows.
func TestWatchKernelJournalSurvivesKill9(t *testing.T) {
	k := newKillRun(t, "--train.options", "-t 2 -c 4 -g 0.5",
		"--store.capacity", fmt.Sprint(journalWindow+journalRows), "--store.window", fmt.Sprint(journalWindow),
		"--store.max-features", "4", "--watch.debounce", "1ms", "--models.keep", "3")
	root := k.root
	hashOf := func(i int) store.Hash { return sha256.Sum256([]byte(journalBatch(i))) }
	r := rand.New(rand.NewPCG(44, 44))
	next, asked := 0, 0
	k.killThenFinish(r, journalKills, journalBatches, func() bool {
		for range 1 + r.IntN(2) {
			if next < journalBatches {
				k.publish("incoming", fmt.Sprintf("batch-%03d.txt", next), journalBatch(next))
				next++
			}
		}
		if asked < len(journalForgotten) && journalForgotten[asked] < next && r.IntN(2) == 0 {
			h := hashOf(journalForgotten[asked])
			k.publish("forget", fmt.Sprintf("forget-%03d", asked), fmt.Sprintf("%x\n", h))
			asked++
		}
		return next < journalBatches || asked < len(journalForgotten)
	})
	if rej, _ := os.ReadDir(filepath.Join(root, "rejected")); len(rej) != 0 {
		t.Errorf("rejected/ holds %d files", len(rej))
	}

	st, err := store.Open(filepath.Join(root, "state"), store.Config{Capacity: journalWindow + journalRows, MaxFeatures: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Hashes()) != journalBatches || st.Published() != st.Generation() {
		t.Errorf("store: %d batches, published %d of generation %d; want %d, all", len(st.Hashes()), st.Published(), st.Generation(), journalBatches)
	}
	// Every row by its values: batch and position.
	type at struct{ batch, pos int }
	where := map[string]at{}
	rowKey := func(y float64, idx []int32, val []float32) string { return fmt.Sprint(y, idx, val) }
	for i := range journalBatches {
		if !slices.Contains(st.Hashes(), hashOf(i)) {
			t.Errorf("batch %d missing from the store", i)
		}
		if gone := slices.Contains(journalForgotten, i); st.Forgotten(hashOf(i)) != gone {
			t.Errorf("batch %d: forgotten %v, want %v", i, st.Forgotten(hashOf(i)), gone)
		}
		b := data.NewSparse(journalRows, journalRows*3, 4)
		if _, err := data.ReadInto(b, strings.NewReader(journalBatch(i)), "batch", data.ReadOptions{MaxFeatures: 4}); err != nil {
			t.Fatal(err)
		}
		for p := range journalRows {
			idx, val := b.SparseRow(p)
			where[rowKey(b.Label(p), idx, val)] = at{i, p}
		}
	}
	ds := st.Dataset()
	if ds.Len() == 0 || ds.Len() > journalWindow {
		t.Fatalf("store holds %d rows, want 1 to %d", ds.Len(), journalWindow)
	}
	var got []at
	for i := range ds.Len() {
		idx, val := ds.SparseRow(i)
		a, ok := where[rowKey(ds.Label(i), idx, val)]
		if !ok {
			t.Fatalf("row %d is no batch's", i)
		}
		got = append(got, a)
	}
	var want []at
	for b := got[0].batch; b < journalBatches; b++ {
		if slices.Contains(journalForgotten, b) {
			continue
		}
		for p := range journalRows {
			if b > got[0].batch || p >= got[0].pos {
				want = append(want, at{b, p})
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the store holds rows %v, want the rows of the batches not forgotten from its oldest on: %v", got, want)
	}

	newest := slices.Max(modelVersionsIn(t, filepath.Join(root, "models")))
	model, err := modelfile.ReadFileAs[*core.KernelModel](filepath.Join(root, "models", modeldir.FileName(newest)))
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := options.ParseKernel([]string{"-t", "2", "-c", "4", "-g", "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	ref, _, err := core.TrainKernel(ds, o.Params)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]hotswapRow, ds.Len())
	for i := range rows {
		idx, val := ds.SparseRow(i)
		rows[i] = hotswapRow{label: ds.Label(i), index: idx, value: val}
	}
	sameKernelOptimum(t, model, ref, rows)
}
