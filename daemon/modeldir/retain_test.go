package modeldir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// TestRetainByFileName: Retain keeps the newest keep versions whatever
// their files are called (model-<v>.svmgo or a dropped-in model-<v>.onnx)
// and removes the older ones by their own names, leaving other files.
func TestRetainByFileName(t *testing.T) {
	dir := t.TempDir()
	names := []string{"model-1.onnx", "model-2.svmgo", "model-3.onnx", "model-4.svmgo", "notes.txt"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := Retain(fileio.OS, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if !slices.Equal(removed, []uint64{1, 2}) {
		t.Errorf("removed versions %v, want [1 2]", removed)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"model-3.onnx", "model-4.svmgo", "notes.txt"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}
