package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killRun is a `svmgo watch` under kill -9: the real binary, restarted
// over one root, fed batches in incoming/ and requests in forget/ the way a
// producer drops them.
type killRun struct {
	t    *testing.T
	bin  string
	root string
	args []string
	logs *lockedBuffer // the standard error of the newest start
}

// newKillRun builds the binary and makes a root with incoming/ and
// forget/; args follow `watch --root root`.
func newKillRun(t *testing.T, args ...string) *killRun {
	t.Helper()
	k := &killRun{t: t, bin: opsBuild(t), root: t.TempDir()}
	k.args = append([]string{"watch", "--root", k.root}, args...)
	for _, dir := range []string{"incoming", "forget"} {
		if err := os.MkdirAll(filepath.Join(k.root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// start starts the daemon with a fresh log.
func (k *killRun) start() *exec.Cmd {
	k.t.Helper()
	cmd := exec.Command(k.bin, k.args...)
	k.logs = &lockedBuffer{}
	cmd.Stderr = k.logs
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	return cmd
}

// publish drops text as dir/name: written under a dot-name first, then
// renamed, so the daemon never sees a partial file.
func (k *killRun) publish(dir, name, text string) {
	k.t.Helper()
	tmp := filepath.Join(k.root, dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		k.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(k.root, dir, name)); err != nil {
		k.t.Fatal(err)
	}
}

// killThenFinish starts the daemon kills times (kills >= 1); each time,
// once it has started (the first pass may already be retraining), it calls
// step, which drops the next batches and requests and reports whether any
// are left, and kills the daemon with SIGKILL at a moment drawn from r
// within the next 150 ms. Then it drops what is left and lets a last run
// work until done/ holds batches files and forget/ is empty, and stops it
// with SIGTERM; the test fails if that takes over 60 s or the daemon exits
// with an error.
func (k *killRun) killThenFinish(r *rand.Rand, kills, batches int, step func() (left bool)) {
	k.t.Helper()
	left := true
	for range kills {
		cmd := k.start()
		for wait := time.Now().Add(5 * time.Second); !strings.Contains(k.logs.String(), "daemon started") && time.Now().Before(wait); {
			time.Sleep(time.Millisecond)
		}
		left = step()
		time.Sleep(time.Duration(r.IntN(150_000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()
	}
	for left {
		left = step()
	}

	cmd := k.start()
	deadline := time.Now().Add(60 * time.Second)
	for {
		done, _ := os.ReadDir(filepath.Join(k.root, "done"))
		requests, _ := os.ReadDir(filepath.Join(k.root, "forget"))
		// SIGTERM before the handler is installed would kill it.
		if len(done) >= batches && len(requests) == 0 && strings.Contains(k.logs.String(), "daemon started") {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			k.t.Fatalf("%d of %d batches done, %d requests left\n%s", len(done), batches, len(requests), k.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		k.t.Fatalf("daemon after SIGTERM: %v\n%s", err, k.logs.String())
	}
}
