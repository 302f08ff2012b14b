package modeldir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// TestOpenAnyKind: WriteFile and ReadFile round-trip every kind through
// one pair of calls; ReadFileAs refuses another kind with ErrKind naming
// the path; errors name the path; a failed write leaves nothing.
func TestOpenAnyKind(t *testing.T) {
	dir := t.TempDir()
	lin := testModel(2)
	ker := testKernelModel(t)
	q, err := quantize.QuantizeLinear(lin, 8)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]core.Model{"linear": lin, "kernel": ker, "qlinear": q} {
		path := filepath.Join(dir, name+".svmgo")
		if err := modelfile.WriteFile(path, m); err != nil {
			t.Fatal(err)
		}
		got, err := modelfile.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Info().Kind != name || got.Info().NumFeatures != m.Info().NumFeatures {
			t.Errorf("%s: read back as %+v", name, got.Info())
		}
		want, _ := modelfile.Encode(m)
		back, _ := modelfile.Encode(got)
		if string(want) != string(back) {
			t.Errorf("%s: the model read back encodes to other bytes", name)
		}
	}
	if _, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(dir, "linear.svmgo")); err != nil {
		t.Errorf("ReadFileAs linear: %v", err)
	}
	kp := filepath.Join(dir, "kernel.svmgo")
	if _, err := modelfile.ReadFileAs[*linear.LinearModel](kp); !errors.Is(err, modelfile.ErrKind) || !strings.Contains(err.Error(), kp) {
		t.Errorf("ReadFileAs linear of a kernel file: %v, want ErrKind naming the path", err)
	}
	b, _ := os.ReadFile(kp)
	b[len(b)-1] ^= 1
	damaged := filepath.Join(dir, "damaged.svmgo")
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := modelfile.ReadFile(damaged); !errors.Is(err, modelfile.ErrChecksum) || !strings.Contains(err.Error(), damaged) {
		t.Errorf("damaged file: %v, want ErrChecksum naming the path", err)
	}
	if _, err := modelfile.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := *lin
	bad.W = bad.W[1:]
	if err := modelfile.WriteFile(filepath.Join(dir, "bad.svmgo"), &bad); err == nil {
		t.Error("WriteFile of an invalid model succeeded")
	}
	if err := modelfile.WriteFile(filepath.Join(dir, "x.svmgo"), nil); err == nil {
		t.Error("WriteFile of nil succeeded")
	}
	var nilLinear *linear.LinearModel
	if _, err := modelfile.Encode(nilLinear); err == nil {
		t.Error("Encode of a typed nil succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") || e.Name() == "bad.svmgo" || e.Name() == "x.svmgo" {
			t.Errorf("a failed write left %s", e.Name())
		}
	}
}
