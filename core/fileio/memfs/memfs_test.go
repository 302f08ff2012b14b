package memfs

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

func write(t *testing.T, m *FS, path, text string, sync bool) {
	t.Helper()
	f, err := m.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
}

func read(m *FS, path string) (string, error) {
	b, err := fileio.ReadFileFS(m, path)
	return string(b), err
}

// TestCrashKeepsOnlyWhatWasSynced: what a crash clone keeps, over many
// draws: a file whose bytes and name were synced is always there, whole; a
// name whose directory was not synced is sometimes lost; bytes not synced
// are sometimes lost or torn, never other bytes; and syncing one directory
// does not make another's names durable.
func TestCrashKeepsOnlyWhatWasSynced(t *testing.T) {
	m := New()
	if err := fileio.MkdirAllSynced(m, "/a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := m.MkdirAll("/c", 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, m, "/a/b/durable", "synced bytes", true)
	if err := fileio.SyncDirFS(m, "/a/b"); err != nil {
		t.Fatal(err)
	}
	write(t, m, "/a/b/unsynced", "new bytes", false)
	write(t, m, "/c/other", "x", true)
	if err := fileio.SyncDirFS(m, "/a/b"); err != nil { // not /, so /c may go
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	lostC, torn, whole := 0, 0, 0
	for range 200 {
		c := m.CrashClone(rng)
		if got, err := read(c, "/a/b/durable"); err != nil || got != "synced bytes" {
			t.Fatalf("the synced file after a crash: %q, %v", got, err)
		}
		switch got, err := read(c, "/a/b/unsynced"); {
		case err != nil:
			t.Fatalf("a name whose directory was synced is gone: %v", err)
		case got == "new bytes":
			whole++
		case strings.HasPrefix("new bytes", got):
			torn++
		default:
			t.Fatalf("unsynced file holds %q", got)
		}
		if _, err := c.Lstat("/c"); errors.Is(err, os.ErrNotExist) {
			lostC++
		}
	}
	if lostC == 0 || torn == 0 || whole == 0 {
		t.Errorf("over 200 crashes: /c lost %d times, unsynced bytes torn %d times, whole %d; want each at least once",
			lostC, torn, whole)
	}
	// The original goes on unchanged.
	if got, err := read(m, "/a/b/unsynced"); err != nil || got != "new bytes" {
		t.Errorf("the original after cloning: %q, %v", got, err)
	}
}

// TestRenameRulesAndNameLimit: rename(2)'s refusals and ENAMETOOLONG past
// 255 bytes; a hard link shares its bytes.
func TestRenameRulesAndNameLimit(t *testing.T) {
	m := New()
	m.MkdirAll("/d/sub", 0o755)
	write(t, m, "/d/f", "f", true)
	for _, c := range []struct {
		old, new string
		errno    syscall.Errno
	}{
		{"/d/f", "/d/sub", syscall.EISDIR},
		{"/d/sub", "/d/f", syscall.ENOTDIR},
		{"/d", "/d/sub/x", syscall.EINVAL},
		{"/d/none", "/d/g", syscall.ENOENT},
		{"/d/f", "/d/" + strings.Repeat("x", 256), syscall.ENAMETOOLONG},
		{"/d/f", "/missing/f", syscall.ENOENT},
	} {
		if err := m.Rename(c.old, c.new); !errors.Is(err, c.errno) {
			t.Errorf("rename %s %s: %v, want %v", c.old, c.new, err, c.errno)
		}
	}
	if _, err := m.OpenFile("/d/"+strings.Repeat("y", 256), os.O_CREATE|os.O_WRONLY, 0o644); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("create of a 256-byte name: %v", err)
	}
	if err := m.Link("/d/f", "/d/g"); err != nil {
		t.Fatal(err)
	}
	if err := m.Link("/d/f", "/d/g"); !errors.Is(err, syscall.EEXIST) {
		t.Errorf("link over a name: %v", err)
	}
	if err := m.Rename("/d/f", "/d/sub/f"); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(m, "/d/g"); got != "f" {
		t.Errorf("the link reads %q", got)
	}
	if err := m.Remove("/d"); !errors.Is(err, syscall.ENOTEMPTY) {
		t.Errorf("remove of a full directory: %v", err)
	}
	entries, err := m.ReadDir("/d")
	if err != nil || len(entries) != 2 || entries[0].Name() != "g" || !entries[1].IsDir() {
		t.Errorf("ReadDir: %v, %v", entries, err)
	}
}
