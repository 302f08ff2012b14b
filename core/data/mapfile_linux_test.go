package data

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A page of a mapping whose file was truncated faults (SIGBUS); readMapped
// makes that an error wrapping ErrFileChanged instead of a crash, and lets
// any other panic go on.
func TestReadMappedTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 3<<12), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem, unmap, ok := mapFile(f, 3<<12)
	if !ok {
		t.Fatal("mapFile failed")
	}
	defer unmap()
	if err := readMapped(path, func() error { _ = mem[2<<12]; return nil }); err != nil {
		t.Fatalf("reading the mapped file: %v", err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sink byte
	err = readMapped(path, func() error { sink = mem[2<<12+7]; return nil })
	if !errors.Is(err, ErrFileChanged) {
		t.Fatalf("reading past the truncated end: %v (read %d), want ErrFileChanged", err, sink)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Fatalf("recovered %v, want the panic readMapped let through", r)
		}
	}()
	_ = readMapped(path, func() error { panic("other") })
}

// dropPages gives back only whole pages inside the range, reports how far
// it got, and the bytes read the same afterwards (the pages fault in again
// from the file).
func TestDropPages(t *testing.T) {
	ps := os.Getpagesize()
	want := make([]byte, 5*ps)
	for i := range want {
		want[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem, unmap, ok := mapFile(f, int64(len(want)))
	if !ok {
		t.Fatal("mapFile failed")
	}
	defer unmap()
	half := mem[ps/2:] // not page-aligned, as the second half of a file
	for _, c := range []struct{ from, to, want int64 }{
		{0, int64(ps / 2), 0},                              // no whole page
		{0, int64(ps/2 + ps), int64(ps/2 + ps)},            // mem's second page
		{int64(ps / 2), int64(3 * ps), int64(2*ps + ps/2)}, // its third and fourth
	} {
		if got := dropPages(half, c.from, c.to); got != c.want {
			t.Errorf("dropPages(%d, %d) = %d, want %d", c.from, c.to, got, c.want)
		}
	}
	if string(mem) != string(want) {
		t.Fatal("the bytes changed after dropPages")
	}
}
