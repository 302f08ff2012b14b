package modeldir

import (
	"github.com/libsvmgo/libsvmgo/core/fileio"

	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRemoveStaleTemps plants what a publisher killed mid-publish leaves
// (a temporary file made by fileio.WriteTemp as Publish makes it, so the rule cannot drift from
// the names publishing uses) among files that are not the publisher's to
// remove, and checks that exactly the publisher's temporary files go.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	crashed, err := fileio.WriteTemp(dir, publishBase, []byte("partial"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".model-7.tmp") // the name in issue 10's report
	keep := []string{
		"model-1.svmgo",         // the published version
		"model-2.svmgo.tmp",     // not a dot-file: someone else's
		".other-3.tmp",          // another writer's temporary file
		".model-4.svmgo",        // no .tmp suffix
		".model-.tmpx",          // no .tmp suffix
		"notes.txt",             // unrelated
		".model-dir.tmp",        // a directory, below
		".model-link.tmp",       // a symbolic link, below
		"model-5.svmgo.partial", // unrelated
	}
	for _, name := range keep {
		switch name {
		case "model-1.svmgo":
		case ".model-dir.tmp":
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
		case ".model-link.tmp":
			if err := os.Symlink(filepath.Join(dir, "notes.txt"), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		default:
			write(name)
		}
	}

	removed, err := RemoveStaleTemps(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{".model-7.tmp", filepath.Base(crashed)}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	slices.Sort(keep)
	if !slices.Equal(left, keep) {
		t.Errorf("left %q, want %q", left, keep)
	}
	// Nothing to do the second time.
	if again, err := RemoveStaleTemps(dir); err != nil || len(again) != 0 {
		t.Errorf("second call: removed %q, err %v; want nothing", again, err)
	}
	if _, err := RemoveStaleTemps(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory is not an error")
	}
}
