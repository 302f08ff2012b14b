package modeldir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestPublishFullDiskLeavesNothing publishes into a full file system: the
// write of the temporary file fails with ENOSPC, and the temporary file
// must go with it. (It stayed, one more at each retry of the daemon, when
// writeTemp's deferred cleanup removed its result parameter, "" by then.)
func TestPublishFullDiskLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", 64<<10)); err != nil {
		t.Skipf("cannot mount a tmpfs to fill up (needs root or CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 4096))
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling: %v", err)
	}
	for range 3 {
		if v, err := Publish(dir, testModel(1)); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("Publish on a full disk = %d, %v; want ENOSPC", v, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"filler"}) {
		t.Errorf("after failed publications the directory holds %q, want only the filler", names)
	}
}
