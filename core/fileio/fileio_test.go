package fileio

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFile: the file holds the data, replaces an older one, and no
// temporary file stays behind; writing into a missing directory fails and
// creates nothing. ReplaceFile, the same without syncs, behaves the same.
func TestWriteFile(t *testing.T) {
	for _, w := range []struct {
		name  string
		write func(string, []byte) error
	}{{"WriteFile", WriteFile}, {"ReplaceFile", ReplaceFile}} {
		t.Run(w.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.txt")
			for _, data := range [][]byte{[]byte("first\n"), []byte("second, longer\n")} {
				if err := w.write(path, data); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("read back %q, %v; want %q", got, err, data)
				}
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only out.txt", len(entries))
			}
			if err := w.write(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
				t.Error("writing into a missing directory succeeded")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("a failed write left %d entries", len(entries))
			}
		})
	}
}

// TestRename moves a file between directories; a missing source fails.
func TestRename(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	src, dst := filepath.Join(a, "f"), filepath.Join(b, "f")
	if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Rename(src, dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("source still there: %v", err)
	}
	if got, err := os.ReadFile(dst); err != nil || string(got) != "x" {
		t.Errorf("destination %q, %v", got, err)
	}
	if err := Rename(src, dst); err == nil {
		t.Error("renaming a missing file succeeded")
	}
}

// TestTempNames: the names writers use while a file is incomplete.
func TestTempNames(t *testing.T) {
	for name, want := range map[string]bool{
		".model-123.tmp": true, ".hidden": true, "batch.tmp": true,
		"model-1.svmgo": false, "batch.libsvm": false, "tmp": false,
	} {
		if got := IsTempName(name); got != want {
			t.Errorf("IsTempName(%q) = %v, want %v", name, got, want)
		}
	}
	if !IsTempOf(".store.snap-42.tmp", "store.snap") || IsTempOf(".store.snap-42", "store.snap") ||
		IsTempOf(".model-1.tmp", "store.snap") {
		t.Error("IsTempOf misjudges a name")
	}
}

// TestWriteTempAndRemoveTemps: WriteTemp leaves a complete temporary file
// with the temporary name rules; RemoveTemps removes those of one base
// name only.
func TestWriteTempAndRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	a, err := WriteTemp(dir, "model", []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(a); err != nil || string(got) != "abc" || !IsTempOf(filepath.Base(a), "model") {
		t.Fatalf("WriteTemp wrote %q (%v) at %s", got, err, a)
	}
	other := filepath.Join(dir, TempPrefix("store.snap")+"1"+TempSuffix)
	keep := filepath.Join(dir, "model-1.svmgo")
	for _, p := range []string{other, keep} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if removed, err := RemoveTemps(dir, "model"); err != nil || len(removed) != 1 || removed[0] != filepath.Base(a) {
		t.Fatalf("RemoveTemps = %v, %v; want [%s]", removed, err, filepath.Base(a))
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("temporary model file still there: %v", err)
	}
	for _, p := range []string{other, keep} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// TestOpenRegular: a regular file opens with its size; a directory is a
// path error wrapping ErrNotRegular.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, size, err := OpenRegular(p)
	if err != nil || size != 5 {
		t.Fatalf("OpenRegular = %d, %v", size, err)
	}
	f.Close()
	var pe *fs.PathError
	var nr *NotRegularError
	if _, _, err := OpenRegular(dir); !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) ||
		!errors.As(err, &nr) || !nr.Mode.IsDir() || err.Error() != "open "+dir+": a directory, not a regular file" {
		t.Errorf("OpenRegular of a directory: %v", err)
	}
}
