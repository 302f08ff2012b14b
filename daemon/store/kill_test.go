package store

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// killSteps and killKills size the kill -9 test: the steps of the stream,
// and how many times the writer is killed while it runs them.
const (
	killSteps = 1000
	killKills = 30
)

// killStep is step i of the stream the kill -9 test writes: journalStep
// drawing from a generator seeded by i, so that a writer restarted at any
// step makes the changes an uninterrupted one made. Each step records
// version i+1, which tells a restarted writer where it is.
func killStep(t testing.TB, s *Store, i int) {
	journalStep(t, s, rand.New(rand.NewPCG(77, uint64(i))), i)
}

// TestJournalKill9Writer is the writer the kill -9 test runs in a child
// process (it does nothing otherwise): it opens the store in
// $STORE_KILL_DIR, runs the steps from the one its version says, commits
// after each, and then prints the step's number, which the parent takes as
// the promise that the step is durable.
func TestJournalKill9Writer(t *testing.T) {
	dir := os.Getenv("STORE_KILL_DIR")
	if dir == "" {
		t.Skip("the kill -9 test's writer (TestJournalSurvivesKill9 runs it)")
	}
	s := open(t, dir, journalCfg)
	out := bufio.NewWriter(os.Stdout)
	for i := int(s.Version()); i < killSteps; i++ {
		killStep(t, s, i)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(out, "step", i)
		out.Flush()
	}
}

// TestJournalSurvivesKill9 runs the writer (TestJournalKill9Writer) in a
// child process and kills it with SIGKILL at random moments, restarting it
// each time, then lets a last one finish. After every kill the store on
// disk is exactly the one some step left, at or after the last step the
// writer reported durable (a frame is all or nothing: a batch, its
// evictions, its dual, a forgotten batch, the publication); at the end it
// is the store the uninterrupted stream gives, byte for byte, every batch
// added and every forgotten batch removed once.
func TestJournalSurvivesKill9(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	// The reference: the stream uninterrupted, the snapshot after each step.
	ref := open(t, t.TempDir(), journalCfg)
	want := make([][]byte, killSteps+1)
	want[0] = ref.encode(nil)
	for i := range killSteps {
		killStep(t, ref, i)
		want[i+1] = ref.encode(nil)
	}

	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	acked, midway, torn, stale := -1, 0, 0, 0
	run := func(kill bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestJournalKill9Writer$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STORE_KILL_DIR="+dir)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if kill {
			time.Sleep(time.Duration(2000+rng.IntN(20_000)) * time.Microsecond)
			cmd.Process.Kill()
			cmd.Wait()
		} else if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v\n%s", err, stdout.String())
		}
		sc := bufio.NewScanner(&stdout)
		for sc.Scan() {
			var i int
			if _, err := fmt.Sscanf(sc.Text(), "step %d", &i); err == nil {
				acked = max(acked, i)
			}
		}
		s := open(t, dir, journalCfg)
		v := int(s.Version())
		if kill && v < killSteps {
			midway++
		}
		switch fi, err := os.Stat(filepath.Join(dir, LogName)); {
		case err != nil:
		case len(s.log) == 0:
			stale++ // killed between a compaction's snapshot and its journal
		case fi.Size() > int64(len(s.log)):
			torn++ // killed in the middle of an append
		}
		if v <= acked {
			t.Fatalf("after a kill the store is at step %d, the writer reported step %d durable", v-1, acked)
		}
		if !bytes.Equal(s.encode(nil), want[v]) {
			t.Fatalf("after a kill the store at version %d is not the one step %d left", v, v-1)
		}
	}
	for range killKills {
		run(true)
	}
	run(false)
	s := open(t, dir, journalCfg)
	if s.Version() != killSteps || !bytes.Equal(s.encode(nil), want[killSteps]) {
		t.Fatalf("the final store (version %d) is not the uninterrupted stream's", s.Version())
	}
	if midway < killKills/2 {
		t.Errorf("only %d of %d kills struck before the stream's end", midway, killKills)
	}
	t.Logf("writer killed %d times, %d before the stream's end, %d in the middle of an append, %d in a compaction",
		killKills, midway, torn, stale)
}
