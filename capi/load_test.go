package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// TestLoadSpecialFiles (issue 10, fault 1 and "also"): svmgo_model_load on
// a directory or a FIFO is an I/O error (SVMGO_E_IO: not a regular file),
// not a corrupt model, and a FIFO without a writer does not block.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := loadFile(dir); statusOf(err) != statusIO {
		t.Errorf("load of a directory: %v (status %d), want SVMGO_E_IO", err, statusOf(err))
	}
	if runtime.GOOS == "windows" {
		return
	}
	fifo := filepath.Join(dir, "model-2.svmgo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := loadFile(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if statusOf(err) != statusIO {
			t.Errorf("load of a FIFO: %v (status %d), want SVMGO_E_IO", err, statusOf(err))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("load of a FIFO blocked")
	}
}

// withNaNWeight returns the model file of m with weight i NaN and a valid
// checksum, as a damaged or hostile publisher could write it (Marshal
// refuses such a model).
func withNaNWeight(t *testing.T, m *linear.LinearModel, i int) []byte {
	t.Helper()
	c := *m
	c.W = slices.Clone(m.W)
	c.W[i] = 0.123456789
	b, err := modelfile.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	p := b[modelfile.HeaderSize:]
	at := bytes.Index(p, binary.LittleEndian.AppendUint32(nil, math.Float32bits(c.W[i])))
	if at < 0 {
		t.Fatal("weight not found in the file")
	}
	binary.LittleEndian.PutUint32(p[at:], math.Float32bits(float32(math.NaN())))
	binary.LittleEndian.PutUint32(b[20:24], crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// TestWatchSkipsNaNModel (issue 10, fault 2): a watched handle skips a
// version that svmgo_model_load refuses (NaN weights, checksum valid) and
// keeps serving the version before it, which predicts.
func TestWatchSkipsNaNModel(t *testing.T) {
	dir := t.TempDir()
	lm := wideModel(rand.New(rand.NewPCG(4, 4)), 3, 4)
	good, err := modelfile.Marshal(lm)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model-1.svmgo"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model-2.svmgo"), withNaNWeight(t, lm, 5), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadFile(filepath.Join(dir, "model-2.svmgo")); statusOf(err) != statusCorrupt {
		t.Errorf("load of the NaN model: %v, want SVMGO_E_CORRUPT", err)
	}
	h, err := watch(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.watcher.Close()
	if _, v, err := h.current(); err != nil || v != 1 {
		t.Fatalf("watched handle serves version %d (%v), want 1", v, err)
	}
	p, _, _ := h.current()
	dst := make([]float64, 2)
	if err := predictDenseF32(p, outputLabel, dst, []float32{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4); err != nil {
		t.Errorf("predict with the served model: %v", err)
	}
}
