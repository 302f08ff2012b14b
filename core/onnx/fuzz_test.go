package onnx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzDecode is the fuzz target of the ONNX reader: `go test` runs its
// seeds (exported models of every kind, the graphs in testdata/),
// `go test -fuzz FuzzDecode ./core/onnx` searches further.
//
// What must hold for any bytes: no panic, no hang, memory in proportion
// to the input; an error wraps ErrMalformed or ErrUnsupported; a model
// that is returned validates (Decode's models are Init'ed), exports, and
// its export decodes and exports again to the same bytes.
func FuzzDecode(f *testing.F) {
	for _, c := range exportCases() {
		if c.train == "digits.train" && c.name != "csvc-linear-digits" && c.name != "lr-digits" {
			continue // keep the seed corpus small: one digits model of each family
		}
		m, _ := train(f, c)
		b, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	files, _ := filepath.Glob("testdata/*.onnx")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x08, 0x08})
	f.Fuzz(func(t *testing.T, b []byte) {
		watchdog := time.AfterFunc(10*time.Second, func() { panic("FuzzDecode: a decode hangs") })
		defer watchdog.Stop()
		m, err := Decode(b)
		if err != nil {
			if m != nil {
				t.Fatalf("error %v with a model", err)
			}
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v wraps neither ErrMalformed nor ErrUnsupported", err)
			}
			return
		}
		out, err := Encode(m)
		if err != nil {
			// A decoded model can hold numbers float32 cannot (a Scaler's
			// 1/scale); anything else must export.
			if !errors.Is(err, ErrNotExportable) {
				t.Fatalf("decoded model does not export: %v", err)
			}
			return
		}
		m2, err := Decode(out)
		if err != nil {
			t.Fatalf("an exported model does not decode: %v", err)
		}
		out2, err := Encode(m2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("export → import → export differs (%v)", err)
		}
	})
}
