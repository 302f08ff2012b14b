// Command soak kills the real daemon at random, many times, over a stream
// of batches, and checks after each kill that nothing was lost or taken
// twice (issue 22, item 6; `make soak`, not part of `make test`).
//
// Each cycle drops one to three new batches into incoming/ as a producer
// does (write a dot-file, rename), now and then a poison batch (a bad
// line: rejected) or a copy of an earlier batch under a new name (a
// duplicate: moved to done/, not stored again), starts `svmgo watch` on the
// root, kills it with SIGKILL after a random delay (0 to -max-delay: during
// start, ingestion, retraining, publishing or idle) and, the daemon dead,
// checks:
//
//   - every batch dropped is in exactly one of incoming/, done/, rejected/,
//     under its own name;
//   - the store's snapshot opens; it holds each good batch's hash at most
//     once, every good batch in done/ among them (a duplicate's content
//     once), no poison; its generation equals its number of batches and its
//     rows are exactly 5 per batch (nothing added twice, nothing half);
//   - every rejected batch is a poison one and has its reason file;
//   - every published model file decodes, and the highest version never
//     goes back from one cycle to the next (nor below the store's record);
//   - the daemon did not exit on its own before the kill.
//
// Every -drain-every cycles the daemon instead runs until incoming/ is
// empty and stops by SIGTERM, so the stream makes progress whatever the
// kills. It prints cycles, batches and violations; it exits 1 on any
// violation.
package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

const rowsPerBatch = 5

// The store's configuration, as the daemon is started with it.
var storeCfg = store.Config{Capacity: 200000, MaxFeatures: 8, CapacityNonzeros: 200000 * 8}

type batch struct {
	name   string
	text   string
	poison bool
}

type soak struct {
	bin, root string
	rng       *rand.Rand
	batches   []batch
	byName    map[string]*batch
	seq       int
	highest   uint64
	bad       int
	log       io.Writer
}

func main() {
	bin := flag.String("bin", "bin/svmgo", "the svmgo command")
	root := flag.String("root", "", "the daemon's root (default: a new temporary directory, removed at the end unless a violation was found)")
	cycles := flag.Int("cycles", 10000, "kill -9 cycles")
	maxDelay := flag.Duration("max-delay", 150*time.Millisecond, "longest time the daemon runs before it is killed")
	drainEvery := flag.Int("drain-every", 50, "every this many cycles, let the daemon drain incoming/ and stop it by SIGTERM")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	s := &soak{bin: *bin, root: *root, rng: rand.New(rand.NewPCG(*seed, 22)), byName: map[string]*batch{}, log: os.Stderr}
	if s.root == "" {
		dir, err := os.MkdirTemp("", "svmgo-soak-")
		if err != nil {
			fatal(err)
		}
		s.root = dir
	}
	for _, d := range []string{"incoming", "done", "rejected", "models", "state"} {
		if err := os.MkdirAll(filepath.Join(s.root, d), 0o755); err != nil {
			fatal(err)
		}
	}
	start := time.Now()
	kills := 0
	for c := 1; c <= *cycles; c++ {
		s.feed()
		if c%*drainEvery == 0 {
			s.drain()
		} else {
			s.killAfter(time.Duration(s.rng.Int64N(int64(*maxDelay) + 1)))
			kills++
		}
		s.check(c)
		if c%500 == 0 {
			fmt.Fprintf(s.log, "soak: %d cycles (%d kills), %d batches, %d violations, highest version %d, %s\n",
				c, kills, len(s.batches), s.bad, s.highest, time.Since(start).Round(time.Second))
		}
	}
	s.drain()
	s.check(*cycles + 1)
	left, _ := os.ReadDir(filepath.Join(s.root, "incoming"))
	if len(left) != 0 {
		s.violation("after the final drain incoming/ still holds %d entries", len(left))
	}
	fmt.Printf("soak: %d cycles, %d kill -9, %d batches (%d poison), highest model version %d, %d violations, %s\n",
		*cycles, kills, len(s.batches), s.poisonCount(), s.highest, s.bad, time.Since(start).Round(time.Second))
	if s.bad > 0 {
		fmt.Printf("soak: root kept at %s\n", s.root)
		os.Exit(1)
	}
	if *root == "" {
		os.RemoveAll(s.root)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "soak:", err)
	os.Exit(2)
}

func (s *soak) violation(format string, a ...any) {
	s.bad++
	fmt.Fprintf(s.log, "soak: VIOLATION: "+format+"\n", a...)
}

func (s *soak) poisonCount() int {
	n := 0
	for _, b := range s.batches {
		if b.poison {
			n++
		}
	}
	return n
}

// feed drops one to three batches.
func (s *soak) feed() {
	for range 1 + s.rng.IntN(3) {
		s.seq++
		b := batch{name: fmt.Sprintf("b%06d.txt", s.seq)}
		switch r := s.rng.IntN(20); {
		case r == 0:
			b.poison = true
			b.text = "1 1:0.5\nnot a row\n"
		case r == 1 && len(s.batches) > 0:
			// A duplicate of an earlier good batch (its bytes, so its hash).
			src := s.batches[s.rng.IntN(len(s.batches))]
			if src.poison {
				continue
			}
			b.text = src.text
		default:
			var t strings.Builder
			for i := range rowsPerBatch {
				x1, x2 := 2*s.rng.Float64(), 2*s.rng.Float64()
				y := 1
				if x1+x2 < 2 {
					y = -1
				}
				// Feature 7 makes the batch unique.
				fmt.Fprintf(&t, "%d 1:%.5f 2:%.5f 7:%.7f\n", y, x1, x2, float64(s.seq*rowsPerBatch+i+1)/1e7)
			}
			b.text = t.String()
		}
		tmp := filepath.Join(s.root, "incoming", "."+b.name+".tmp")
		if err := os.WriteFile(tmp, []byte(b.text), 0o644); err != nil {
			fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(s.root, "incoming", b.name)); err != nil {
			fatal(err)
		}
		s.batches = append(s.batches, b)
		s.byName[b.name] = &s.batches[len(s.batches)-1]
	}
	// byName points into batches, which append may have moved.
	for i := range s.batches {
		s.byName[s.batches[i].name] = &s.batches[i]
	}
}

func (s *soak) command() *exec.Cmd {
	cmd := exec.Command(s.bin, "watch", "-root", s.root, "-train.options", "-s 2 -c 1",
		"-store.capacity", fmt.Sprint(storeCfg.Capacity), "-store.max-features", fmt.Sprint(storeCfg.MaxFeatures),
		"-store.nonzeros", fmt.Sprint(storeCfg.CapacityNonzeros), "-watch.debounce", "1ms",
		"-storage.retry-min", "10ms", "-storage.retry-max", "100ms", "-models.keep", "3", "-log.format", "json")
	cmd.Stderr = io.Discard
	return cmd
}

// killAfter runs the daemon for d, then kills it with SIGKILL; a daemon
// that exited by itself first is a violation.
func (s *soak) killAfter(d time.Duration) {
	cmd := s.command()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		s.violation("the daemon exited by itself: %v\n%s", err, lastLines(stderr.String(), 5))
	case <-time.After(d):
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
}

// logBuffer is the daemon's standard error, read while it runs.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// drain runs the daemon until it has started and incoming/ is empty, then
// stops it by SIGTERM (its handler is installed once it logs its start).
func (s *soak) drain() {
	cmd := s.command()
	var stderr logBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case err := <-done:
			s.violation("the daemon exited by itself while draining: %v\n%s", err, lastLines(stderr.String(), 5))
			return
		case <-time.After(20 * time.Millisecond):
		}
		left, err := os.ReadDir(filepath.Join(s.root, "incoming"))
		started := strings.Contains(stderr.String(), `"msg":"daemon started"`)
		if started && err == nil && len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	// Idle now, but a publication may be finishing: SIGTERM waits for it.
	cmd.Process.Signal(syscall.SIGTERM)
	if err := <-done; err != nil {
		s.violation("the daemon stopped by SIGTERM returned %v\n%s", err, lastLines(stderr.String(), 5))
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// check verifies the invariants of the package documentation.
func (s *soak) check(cycle int) {
	where := map[string][]string{}
	for _, dir := range []string{"incoming", "done", "rejected"} {
		entries, err := os.ReadDir(filepath.Join(s.root, dir))
		if err != nil {
			s.violation("cycle %d: %v", cycle, err)
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue // a temporary file (the daemon's reason files, the producer's)
			}
			if dir == "rejected" && strings.HasSuffix(name, ".reason") {
				if _, ok := s.byName[strings.TrimSuffix(name, ".reason")]; ok {
					continue
				}
			}
			if _, ok := s.byName[name]; !ok {
				s.violation("cycle %d: %s/%s is no batch of the stream", cycle, dir, name)
				continue
			}
			where[name] = append(where[name], dir)
		}
	}
	st, err := store.Open(filepath.Join(s.root, "state"), storeCfg)
	if err != nil {
		s.violation("cycle %d: the store does not open: %v", cycle, err)
		return
	}
	stored := map[store.Hash]bool{}
	for _, h := range st.Hashes() {
		stored[h] = true
	}
	good := map[store.Hash]bool{}
	for _, b := range s.batches {
		h := store.Hash(sha256.Sum256([]byte(b.text)))
		dirs := where[b.name]
		switch {
		case len(dirs) != 1:
			s.violation("cycle %d: %s is in %v, want exactly one of incoming, done, rejected", cycle, b.name, dirs)
		case b.poison && stored[h]:
			s.violation("cycle %d: poison %s is in the store", cycle, b.name)
		case b.poison && dirs[0] == "done":
			s.violation("cycle %d: poison %s is in done/", cycle, b.name)
		case !b.poison && dirs[0] == "rejected":
			s.violation("cycle %d: good batch %s was rejected", cycle, b.name)
		case dirs[0] == "done" && !stored[h]:
			s.violation("cycle %d: %s is in done/ but its rows are not in the store", cycle, b.name)
		case dirs[0] == "rejected":
			if _, err := os.Stat(filepath.Join(s.root, "rejected", b.name+".reason")); err != nil {
				s.violation("cycle %d: rejected %s has no reason: %v", cycle, b.name, err)
			}
		}
		if !b.poison {
			good[h] = true
		}
	}
	for h := range stored {
		if !good[h] {
			s.violation("cycle %d: the store holds a batch %x the stream never had", cycle, h[:8])
		}
	}
	if n := uint64(len(st.Hashes())); st.Generation() != n || st.Len() != rowsPerBatch*int(n) {
		s.violation("cycle %d: the store holds %d batches, generation %d, %d rows; want %d rows",
			cycle, n, st.Generation(), st.Len(), rowsPerBatch*n)
	}
	s.checkModels(cycle, st.Version())
}

// checkModels decodes every published model and checks the highest version
// never goes back.
func (s *soak) checkModels(cycle int, recorded uint64) {
	dir := filepath.Join(s.root, "models")
	entries, err := os.ReadDir(dir)
	if err != nil {
		s.violation("cycle %d: %v", cycle, err)
		return
	}
	var highest uint64
	for _, e := range entries {
		v, ok := modeldir.ParseFileName(e.Name())
		if !ok {
			continue
		}
		highest = max(highest, v)
		if _, err := modelfile.ReadFile(filepath.Join(dir, e.Name())); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // removed by retention since the listing: impossible with the daemon dead
			}
			s.violation("cycle %d: %s does not load: %v", cycle, e.Name(), err)
		}
	}
	if highest < s.highest {
		s.violation("cycle %d: highest model version %d, below the %d seen before", cycle, highest, s.highest)
	}
	if highest < recorded {
		s.violation("cycle %d: highest model version %d, below the %d the store records", cycle, highest, recorded)
	}
	s.highest = max(s.highest, highest)
}
