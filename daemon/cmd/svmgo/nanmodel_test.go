package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// TestPredictRefusesNaNModel (issue 10, fault 2): svmgo predict refuses a
// model file whose weights are NaN (checksum valid), as the C ABI's loader
// and the watchers do, instead of scoring it.
func TestPredictRefusesNaNModel(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "heart.model")
	if code, _, errs := svmgo(t, "train-linear", "-q", dataDir+"heart_scale", model); code != 0 {
		t.Fatalf("train-linear: %s", errs)
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	m, err := modelfile.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	p := b[modelfile.HeaderSize:]
	at := bytes.Index(p, binary.LittleEndian.AppendUint32(nil, math.Float32bits(m.W[0])))
	if at < 0 {
		t.Fatal("weight not found in the file")
	}
	binary.LittleEndian.PutUint32(p[at:], math.Float32bits(float32(math.NaN())))
	binary.LittleEndian.PutUint32(b[20:24], crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)))
	nan := filepath.Join(dir, "nan.model")
	if err := os.WriteFile(nan, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := svmgo(t, "predict", dataDir+"heart_scale", nan, filepath.Join(dir, "out"))
	if code == 0 || !strings.Contains(errs, "corrupt") || !strings.Contains(errs, "weight 0") {
		t.Errorf("predict with a NaN model: exit %d, stdout %q, stderr %q; want a failure naming weight 0", code, out, errs)
	}
}
