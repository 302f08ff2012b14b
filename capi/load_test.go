package main

import (
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestLoadSpecialFiles (issue 10, fault 1 and "also"): svmgo_model_load on
// a directory or a FIFO is an I/O error (SVMGO_E_IO: not a regular file),
// not a corrupt model, and a FIFO without a writer does not block.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := loadFile(dir); statusOf(err) != statusIO {
		t.Errorf("load of a directory: %v (status %d), want SVMGO_E_IO", err, statusOf(err))
	}
	if runtime.GOOS == "windows" {
		return
	}
	fifo := filepath.Join(dir, "model-2.svmgo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := loadFile(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if statusOf(err) != statusIO {
			t.Errorf("load of a FIFO: %v (status %d), want SVMGO_E_IO", err, statusOf(err))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("load of a FIFO blocked")
	}
}
