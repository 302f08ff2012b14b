package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonPath: the batch build finds svmgo-daemon next to itself, and
// says what is missing when it is absent or not executable.
func TestDaemonPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "svmgo")
	want := filepath.Join(dir, daemonName)
	if _, err := daemonPath(exe); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("no svmgo-daemon: err %v, want one naming %s", err, want)
	}
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := daemonPath(exe); err == nil {
		t.Fatal("a svmgo-daemon without execute permission: no error")
	}
	if err := os.Chmod(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := daemonPath(exe); err != nil || got != want {
		t.Fatalf("daemonPath = %q, %v; want %q", got, err, want)
	}
}
