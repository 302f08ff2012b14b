package faultfs

import (
	"errors"
	"syscall"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/fileio/memfs"
)

// TestFailAtNth: the nth call of the kind chosen fails with the errno,
// once; the other calls and kinds pass through and are counted; the hook
// sees every call.
func TestFailAtNth(t *testing.T) {
	f := New(memfs.New())
	var hooked []Op
	f.Hook = func(op Op, _ string) { hooked = append(hooked, op) }
	f.FailAt(Sync, 2, syscall.EIO)
	if err := fileio.WriteFileFS(f, "/a", []byte("1")); err != nil { // file sync 1, dir sync 2
		if !errors.Is(err, syscall.EIO) {
			t.Fatalf("WriteFile: %v, want EIO", err)
		}
	} else {
		t.Fatal("the second sync did not fail")
	}
	if !f.Failed() {
		t.Error("Failed() is false after the failure")
	}
	if err := fileio.WriteFileFS(f, "/b", []byte("2")); err != nil {
		t.Fatalf("after the one failure: %v", err)
	}
	c := f.Counts()
	if c[Sync] != 4 || c[Open] != 4 || c[Write] != 2 || c[Rename] != 2 {
		t.Errorf("counts %v: want 4 syncs, 4 opens, 2 writes, 2 renames", c)
	}
	if len(hooked) != c[Sync]+c[Open]+c[Write]+c[Rename] {
		t.Errorf("the hook saw %d calls, the counts say %d", len(hooked), c[Sync]+c[Open]+c[Write]+c[Rename])
	}
	f.FailAt(Rename, 1, syscall.ENOSPC)
	f.Clear()
	if err := f.Rename("/a", "/c"); err != nil {
		t.Errorf("rename after Clear: %v", err)
	}
}
