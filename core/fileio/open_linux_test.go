package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenWithoutPoller: on Linux OpenRegular's descriptor is blocking
// again (os.NewFile leaves a blocking one to the file, not the poller),
// its file reads and a created temporary file writes, with mode 0644, and
// a FIFO without a writer is refused at once, not waited on.
func TestOpenWithoutPoller(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "data")
	if err := os.WriteFile(p, []byte("+1 1:0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, size, err := OpenRegular(p)
	if err != nil || size != 9 {
		t.Fatalf("OpenRegular = %d, %v", size, err)
	}
	if fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0); errno != 0 || fl&syscall.O_NONBLOCK != 0 {
		t.Errorf("OpenRegular's descriptor: flags %#x, %v; want blocking", fl, errno)
	}
	b := make([]byte, 16)
	if n, err := f.Read(b); n != 9 || err != nil || string(b[:n]) != "+1 1:0.5\n" {
		t.Errorf("Read = %d %q, %v", n, b[:n], err)
	}
	f.Close()

	tmp, err := CreateTempFS(OS, dir, "model")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write([]byte("x")); err != nil {
		t.Error(err)
	}
	if fi, err := tmp.Stat(); err != nil || fi.Mode().Perm() != 0o644 || fi.Size() != 1 {
		t.Errorf("temporary file: %v, %v", fi, err)
	}
	tmp.Close()

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := OpenRegular(fifo); done <- err }()
	select {
	case err := <-done:
		var nr *NotRegularError
		if !errors.Is(err, ErrNotRegular) || !errors.As(err, &nr) || nr.Mode&os.ModeNamedPipe == 0 {
			t.Errorf("OpenRegular of a FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenRegular of a FIFO without a writer blocked")
	}
	if _, _, err := OpenRegular(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenRegular of a missing file: %v", err)
	}
}
