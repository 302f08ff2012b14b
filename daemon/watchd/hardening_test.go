package watchd

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// dirNames returns the sorted names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestStaleTempsRemovedAtStart plants what a kill -9 during a publication
// or a rejection leaves (issue 10, fault 5) among files that are not the
// daemon's temporary files: New removes the former and nothing else.
func TestStaleTempsRemovedAtStart(t *testing.T) {
	cfg := testConfig(t.TempDir())
	models := filepath.Join(cfg.Root, ModelsDir)
	rejected := filepath.Join(cfg.Root, RejectedDir)
	for _, dir := range []string{models, rejected} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := modeldir.Publish(models, testLinearModel()); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(models, ".model-123.tmp"):                    "a publication's",
		filepath.Join(models, ".model-9876543.tmp"):                "a publication's",
		filepath.Join(models, ".notes.tmp"):                        "",
		filepath.Join(models, "model-2.svmgo.tmp"):                 "",
		filepath.Join(rejected, ".bad.txt.reason-4242.tmp"):        "a reason file's",
		filepath.Join(rejected, "bad.txt"):                         "",
		filepath.Join(rejected, "bad.txt.reason"):                  "",
		filepath.Join(rejected, "x.txt.reason-1.tmp"):              "", // not a dot-file
		filepath.Join(cfg.Root, IncomingDir, ".producer-1.tmp"):    "", // a producer's: never the daemon's to remove
		filepath.Join(cfg.Root, IncomingDir, ".b.txt.reason-.tmp"): "",
	}
	if err := os.MkdirAll(filepath.Join(cfg.Root, IncomingDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for path := range files {
		if err := os.WriteFile(path, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(cfg, nil); err != nil {
		t.Fatal(err)
	}
	for path, whose := range files {
		switch gone := !exists(path); {
		case whose != "" && !gone:
			t.Errorf("%s (%s temporary file) left behind", path, whose)
		case whose == "" && gone:
			t.Errorf("%s removed: not the daemon's temporary file", path)
		}
	}
	if got := dirNames(t, models); !slices.Contains(got, modeldir.FileName(1)) {
		t.Errorf("models/ holds %q: the published version is gone", got)
	}
}

// testLinearModel returns a small valid linear model to publish.
func testLinearModel() *core.LinearModel {
	return &core.LinearModel{
		Solver: core.L2LossSVCDual, Labels: []int32{1, -1}, NumFeatures: 2, Bias: -1,
		W: []float32{0.5, -0.25},
	}
}
