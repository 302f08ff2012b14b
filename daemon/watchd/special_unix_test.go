//go:build unix

package watchd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// TestFIFORejected: a FIFO in incoming/, renamed in as a batch, and a
// symbolic link to a FIFO outside the root must neither block the daemon
// (opening a FIFO waits for a writer) nor stay forever (issue 10, fault
// 4): both go to rejected/ unread, and a batch after them is ingested.
func TestFIFORejected(t *testing.T) {
	cfg := testConfig(t.TempDir())
	r := start(t, cfg)
	in := filepath.Join(r.root, IncomingDir)
	if err := syscall.Mkfifo(filepath.Join(in, ".pipe.tmp"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Rename(filepath.Join(in, ".pipe.tmp"), filepath.Join(in, "pipe.txt")); err != nil {
		t.Fatal(err)
	}
	outsidePipe := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(outsidePipe, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outsidePipe, filepath.Join(in, "pipelink.txt")); err != nil {
		t.Fatal(err)
	}
	drop(t, r.root, "z-good.txt", batchText(4, 10))
	waitFor(t, "z-good.txt in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "z-good.txt")) })
	for name, reason := range map[string]string{
		"pipe.txt":     "pipe.txt: a FIFO (named pipe), not a regular file",
		"pipelink.txt": "pipelink.txt: a symbolic link to " + outsidePipe + ", not a regular file",
	} {
		if got := reasonOf(t, r.root, name); !strings.Contains(got, reason) {
			t.Errorf("%s: reason %q lacks %q", name, got, reason)
		}
	}
	if fi, err := os.Lstat(filepath.Join(r.root, RejectedDir, "pipe.txt")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("rejected/pipe.txt: %v, %v; want the FIFO", fi, err)
	}
	if n := r.metric(t, "incoming_special_files_total"); n != 2 {
		t.Errorf("incoming_special_files_total %v, want 2", n)
	}
}

// TestReadBatchRefusesSpecial covers the race ingest's Lstat cannot: a
// name that became a FIFO or a symbolic link between the check and the
// open. readBatch returns at once, without following or blocking.
func TestReadBatchRefusesSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	target := filepath.Join(dir, "target.txt")
	if err := os.WriteFile(target, []byte("1 1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := osDaemon.readBatch(fifo, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		var sp *specialFile
		if !errors.As(err, &sp) || sp.mode&os.ModeNamedPipe == 0 {
			t.Errorf("readBatch(FIFO) = %v, want a *specialFile for a named pipe", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("readBatch blocked on a FIFO")
	}
	if data, err := osDaemon.readBatch(link, 1<<20); err == nil {
		t.Errorf("readBatch followed a symbolic link: read %q", data)
	}
	// A regular file is read whole, and a file past the limit by one
	// byte more than the limit, no further.
	if data, err := osDaemon.readBatch(target, 1<<20); err != nil || string(data) != "1 1:1\n" {
		t.Errorf("osDaemon.readBatch(regular) = %q, %v", data, err)
	}
	if data, err := osDaemon.readBatch(target, 3); err != nil || string(data) != "1 1:" {
		t.Errorf("osDaemon.readBatch(regular, limit 3) = %q, %v; want the first 4 bytes", data, err)
	}
}

// osDaemon reads through the operating system's file system, as a daemon
// does by default.
var osDaemon = &Daemon{fs: fileio.OS}
