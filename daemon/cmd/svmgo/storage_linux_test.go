package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchFullDiskStaysUp is issue 10's fault 3 as it was reported: the
// root's file system is full and batches are waiting when svmgo watch
// starts. The daemon used to exit 1 at once ("daemon failed"), again at
// every restart, and /healthz went with it. Now it stays up: /healthz
// answers 503 "degraded: ...", /metrics storage_degraded 1, the batches
// wait in incoming/; once space is back both are ingested, /healthz says
// ok, and SIGTERM still exits 0.
func TestWatchFullDiskStaysUp(t *testing.T) {
	bin := opsBuild(t)
	root := t.TempDir()
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, fmt.Sprintf("size=%d", 2<<20)); err != nil {
		t.Skipf("cannot mount a tmpfs to fill up (needs root or CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(root, syscall.MNT_DETACH) })
	in := filepath.Join(root, "incoming")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"batch-000.txt", "batch-001.txt"}
	for i, name := range names {
		if err := os.WriteFile(filepath.Join(in, "."+name+".tmp"), []byte(opsBatch(i, 25)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filler := filepath.Join(root, "filler")
	f, err := os.Create(filler)
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
	for _, name := range names { // a rename takes no space
		if err := os.Rename(filepath.Join(in, "."+name+".tmp"), filepath.Join(in, name)); err != nil {
			t.Fatal(err)
		}
	}

	addr := freeLoopbackPort(t)
	d := startOpsDaemon(t, bin, root, "--http", addr, "--watch.debounce", "1ms",
		"--storage.retry-min", "5ms", "--storage.retry-max", "50ms",
		"--store.capacity", "1000", "--store.max-features", "8")
	d.waitRecord(10*time.Second, func(r opsRecord) bool { return r.MsgText() == "storage fault: degraded, retrying" })
	waitMetric(t, addr, "storage_degraded", 1, 5*time.Second)
	// Still failing and still up, a few retries later.
	deadline := time.Now().Add(5 * time.Second)
	for scrapeMetrics(t, addr)["storage_failures_total"] < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than 5 retries in 5s\n%s", d.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code, body := healthz(t, addr); code != http.StatusServiceUnavailable ||
		!strings.HasPrefix(body, "degraded: ") || !strings.Contains(body, "no space left on device") {
		t.Errorf("/healthz on a full disk: %d %q, want 503 \"degraded: ... no space left on device ...\"", code, body)
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(in, name)); err != nil {
			t.Errorf("%s left incoming/ on a full disk: %v", name, err)
		}
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		d.waitDone(name, 10*time.Second)
	}
	m := waitMetric(t, addr, "storage_degraded", 0, 5*time.Second)
	if m["batches_ingested_total"] != 2 || m["samples_stored"] != 50 || m["model_version"] != 2 {
		t.Errorf("after recovery: ingested %v, samples %v, model version %v; want 2, 50, 2",
			m["batches_ingested_total"], m["samples_stored"], m["model_version"])
	}
	if code, body := healthz(t, addr); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz after recovery: %d %q, want 200 \"ok\\n\"", code, body)
	}
	if n := d.countRecords("storage fault: degraded, retrying"); n != 1 {
		t.Errorf("%d \"storage fault\" records, want 1 (the rate is bounded)", n)
	}
	if st := d.stop(10 * time.Second); st != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0\n%s", st, d.logs.String())
	}
}

// healthz returns the status and body of http://addr/healthz.
func healthz(t *testing.T, addr string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
