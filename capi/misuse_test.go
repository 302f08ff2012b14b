package main

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// heartModel trains the binary heart_scale model (13 features, labels +1
// and −1, -B 1) the misuse fixtures are made of.
func heartModel(t *testing.T) *linear.LinearModel {
	t.Helper()
	ds, err := data.ReadFile("../core/testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := linear.DefaultLinearParams()
	p.Bias = 1
	m, _, err := linear.TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMisuseFromC runs testdata/misuse.c, compiled as C and as C++: NULL
// pointers, wrong sizes, stale and wrong-kind handles, non-finite inputs,
// damaged model files, bad directories and options, full trainers,
// quantized models (the same checks, and save, publish and watch), and
// per-thread messages.
func TestMisuseFromC(t *testing.T) {
	dir := t.TempDir()
	good, err := modelfile.Marshal(heartModel(t))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good.svmgo", good)
	flipped := append([]byte(nil), good...)
	flipped[modelfile.HeaderSize+10] ^= 0x04
	write("flipped.svmgo", flipped)
	write("truncated.svmgo", good[:len(good)-5])
	random := make([]byte, 200)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	write("random.svmgo", random)
	major2 := append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(major2[8:], 2)
	write("major2.svmgo", major2)
	write("notadir", []byte("a file"))
	for _, d := range []string{"empty", "qdir"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, m := range map[string]quantize.Model{
		"q8.svmgo":     quantizeLinear(t, heartModel(t), 8),
		"rbf_q8.svmgo": quantizeKernel(t, trainKernelFile(t, "heart_scale", "-t 2 -c 10"), 8),
	} {
		b, err := quantize.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		write(name, b)
	}

	for _, cxx := range []bool{false, true} {
		runC(t, compileC(t, "misuse", cxx), dir)
	}
}
