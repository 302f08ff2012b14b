package durable

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFile: the file holds the data, replaces an older one, and no
// temporary file stays behind; writing into a missing directory fails and
// creates nothing.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	for _, data := range [][]byte{[]byte("first\n"), []byte("second, longer\n")} {
		if err := WriteFile(path, data); err != nil {
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
	if err := WriteFile(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed write left %d entries", len(entries))
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
