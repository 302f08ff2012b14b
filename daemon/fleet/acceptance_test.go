package fleet

// The fleet's acceptance (issue 28) with real processes: nats-server (a
// JetStream hub, two leaf nodes), svmgo watch and svmgo follow. make
// test-fleet runs it at a small scale, make fleet-soak (FLEET_SCALE=full)
// at the issue's. Each test prints its figures on lines starting "fleet".
// They are skipped under -short (make test's race pass).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// fleetScale is the size of the acceptance runs.
type fleetScale struct {
	batches, kills     int
	followers, version int
	cut                time.Duration
	transfers          int
}

func scale() fleetScale {
	if os.Getenv("FLEET_SCALE") == "full" {
		return fleetScale{batches: 1000, kills: 50, followers: 100, version: 200, cut: 30 * time.Second, transfers: 3}
	}
	return fleetScale{batches: 80, kills: 6, followers: 9, version: 30, cut: 5 * time.Second, transfers: 2}
}

var (
	svmgoOnce sync.Once
	svmgoPath string
	svmgoErr  error
)

// svmgoBin returns the svmgo command: FLEET_SVMGO (make's bin/svmgo), or
// one built for the test run.
func svmgoBin(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("FLEET_SVMGO"); p != "" {
		return p
	}
	svmgoOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fleet-svmgo")
		if err != nil {
			svmgoErr = err
			return
		}
		svmgoPath = filepath.Join(dir, "svmgo")
		out, err := exec.Command("go", "build", "-o", svmgoPath, "../cmd/svmgo").CombinedOutput()
		if err != nil {
			svmgoErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if svmgoErr != nil {
		t.Fatal(svmgoErr)
	}
	return svmgoPath
}

func acceptance(t *testing.T) fleetScale {
	if testing.Short() {
		t.Skip("acceptance run: make test-fleet")
	}
	natsServerBin(t)
	return scale()
}

// The sample store the trainer runs with: 5 rows a batch, 3 features.
const (
	rowsPerBatch = 5
	storeFlags   = "--store.capacity=20000 --store.max-features=8 --store.nonzeros=160000"
)

// trainer is one svmgo watch process.
type trainer struct {
	cmd *exec.Cmd
	out *bytes.Buffer
}

func startTrainer(t testing.TB, root string, args ...string) *trainer {
	t.Helper()
	all := append([]string{"watch", "--root", root, "--watch.debounce=20ms"}, strings.Fields(storeFlags)...)
	cmd := exec.Command(svmgoBin(t), append(all, args...)...)
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = &syncWriter{w: out}, &syncWriter{w: out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tr := &trainer{cmd: cmd, out: out}
	t.Cleanup(func() {
		tr.signal(syscall.SIGKILL)
		if t.Failed() {
			t.Logf("svmgo watch's last output:\n%s", lastLines(out.String(), 30))
		}
	})
	return tr
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// signal sends sig and waits for the process to end.
func (tr *trainer) signal(sig syscall.Signal) {
	if tr.cmd.ProcessState != nil {
		return
	}
	tr.cmd.Process.Signal(sig)
	tr.cmd.Wait()
}

// streamBatch is one message of the stream the test publishes.
type streamBatch struct {
	text   string
	poison bool
	seq    uint64
}

// TestFleetIngestKill9: batches are published to the stream while svmgo
// watch is killed with SIGKILL at random moments and restarted. After
// each kill, every message at or below the consumer's acknowledgement
// floor is durable: a good batch's hash in the store (which opens), a
// poison one in rejected/ with its reason. At the end the store holds
// every good batch exactly once (duplicates of content once), 5 rows
// each, and nothing else.
func TestFleetIngestKill9(t *testing.T) {
	sc := acceptance(t)
	hub := startHub(t)
	_, js := connect(t, hub.URL())
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "BATCHES", Subjects: []string{"batches.>"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(28, 9))
	batches := make([]*streamBatch, sc.batches)
	for i := range batches {
		b := &streamBatch{text: testBatch(i, rowsPerBatch)}
		switch {
		case i%17 == 5:
			b.text, b.poison = testBatch(i, 2)+"+1 3:0.5 1:0.25\n", true // indices out of order
		case i%23 == 11:
			b.text = batches[i-3].text // a duplicate, poison or not
			b.poison = batches[i-3].poison
		}
		batches[i] = b
	}
	// The producer paces the batches over the kill phase.
	killPhase := time.Duration(sc.kills) * 700 * time.Millisecond
	published := make(chan struct{})
	var pubMu sync.Mutex
	bySeq := map[uint64]*streamBatch{}
	go func() {
		defer close(published)
		for _, b := range batches {
			ack, err := js.Publish(ctx, "batches.in", []byte(b.text))
			if err != nil {
				t.Errorf("publish: %v", err)
				return
			}
			pubMu.Lock()
			b.seq = ack.Sequence
			bySeq[ack.Sequence] = b
			pubMu.Unlock()
			time.Sleep(killPhase / time.Duration(len(batches)))
		}
	}()

	root := t.TempDir()
	args := []string{"--ingest.nats", hub.URL(), "--ingest.stream", "BATCHES", "--models.keep=2", "--ingest.ack-wait=1s"}
	storeCfg := store.Config{Capacity: 20000, MaxFeatures: 8, CapacityNonzeros: 160000, Policy: store.EvictNonSVOldest}
	checked := 0
	check := func(when string) {
		t.Helper()
		cons, err := js.Consumer(ctx, "BATCHES", DefaultDurable)
		if err != nil {
			return // not made yet: nothing acknowledged
		}
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(filepath.Join(root, "state"), storeCfg)
		if err != nil {
			t.Fatalf("%s: the store does not open: %v", when, err)
		}
		stored := map[store.Hash]bool{}
		for _, h := range st.Hashes() {
			stored[h] = true
		}
		pubMu.Lock()
		defer pubMu.Unlock()
		for seq := uint64(1); seq <= info.AckFloor.Stream; seq++ {
			b := bySeq[seq]
			if b == nil {
				t.Fatalf("%s: message %d acknowledged, never published", when, seq)
			}
			h := store.Hash(sha256.Sum256([]byte(b.text)))
			name := "BATCHES-" + strconv.FormatUint(seq, 10) + ".txt"
			switch {
			case !b.poison && !stored[h]:
				t.Errorf("%s: message %d acknowledged, its rows not in the durable store", when, seq)
			case b.poison && stored[h]:
				t.Errorf("%s: poison message %d in the store", when, seq)
			case b.poison:
				if _, err := os.Stat(filepath.Join(root, "rejected", name+".reason")); err != nil {
					t.Errorf("%s: poison message %d terminated without its reason in rejected/: %v", when, seq, err)
				}
			}
			checked++
		}
		if st.Len() != rowsPerBatch*len(stored) {
			t.Errorf("%s: store holds %d rows for %d batches", when, st.Len(), len(stored))
		}
	}

	start := time.Now()
	for k := range sc.kills {
		tr := startTrainer(t, root, args...)
		time.Sleep(time.Duration(50+rng.IntN(900)) * time.Millisecond)
		tr.signal(syscall.SIGKILL)
		check(fmt.Sprintf("kill %d", k+1))
	}
	<-published
	tr := startTrainer(t, root, args...)
	waitDrainedTo(t, js, uint64(len(batches)), 2*time.Minute)
	tr.signal(syscall.SIGTERM)
	check("end")

	st, err := store.Open(filepath.Join(root, "state"), storeCfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[store.Hash]bool{}
	poison := 0
	for _, b := range batches {
		if b.poison {
			poison++
		} else {
			want[store.Hash(sha256.Sum256([]byte(b.text)))] = true
		}
	}
	got := st.Hashes()
	if len(got) != len(want) || st.Len() != rowsPerBatch*len(want) {
		t.Errorf("store holds %d batches, %d rows; want %d batches, %d rows", len(got), st.Len(), len(want), rowsPerBatch*len(want))
	}
	for _, h := range got {
		if !want[h] {
			t.Errorf("store holds %x, no good batch", h[:8])
		}
	}
	reasons, _ := filepath.Glob(filepath.Join(root, "rejected", "*.reason"))
	if len(reasons) != poison {
		t.Errorf("%d reasons in rejected/, want %d (one a poison message)", len(reasons), poison)
	}
	fmt.Printf("fleet ingest: %d batches (%d good, %d distinct, %d poison), %d kills -9, %d acknowledgements checked against the durable store, %d rows stored exactly once, %.1f s\n",
		len(batches), len(batches)-poison, len(want), poison, sc.kills, checked, st.Len(), time.Since(start).Seconds())
}

// waitDrainedTo waits until the consumer acknowledged every message up to
// seq.
func waitDrainedTo(t testing.TB, js jetstream.JetStream, seq uint64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		cons, err := js.Consumer(context.Background(), "BATCHES", DefaultDurable)
		var info *jetstream.ConsumerInfo
		if err == nil {
			info, err = cons.Info(context.Background())
		}
		if err == nil && info.AckFloor.Stream >= seq {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not drained to %d after %v: %+v %v", seq, timeout, info, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// renames collects each follower's publications, in order.
type renames struct {
	mu sync.Mutex
	by [][]rename // by follower
}

type rename struct {
	v  uint64
	at time.Time
}

func (r *renames) recorder(i int) func(uint64, time.Time) {
	return func(v uint64, at time.Time) {
		r.mu.Lock()
		r.by[i] = append(r.by[i], rename{v, at})
		r.mu.Unlock()
	}
}

// latencies returns, over the versions put at putAt up to until, each
// follower's time from a version's put to its rename of that version or
// a newer one (a follower catching up skips versions), the time until
// the last follower had it or a newer one, and the time from put to
// rename of each version a follower installed (not skipped).
func (r *renames) latencies(putAt map[uint64]time.Time, until uint64) (each, last, installed []time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range r.by {
		for _, x := range rs {
			if put, ok := putAt[x.v]; ok && x.v <= until {
				installed = append(installed, x.at.Sub(put))
			}
		}
	}
	for v, put := range putAt {
		if v > until {
			continue
		}
		var worst time.Duration
		for _, rs := range r.by {
			i := slices.IndexFunc(rs, func(x rename) bool { return x.v >= v })
			if i < 0 {
				worst = -1
				break
			}
			d := rs[i].at.Sub(put)
			each = append(each, d)
			worst = max(worst, d)
		}
		if worst >= 0 {
			last = append(last, worst)
		}
	}
	slices.Sort(each)
	slices.Sort(last)
	slices.Sort(installed)
	return each, last, installed
}

// partialChecker decodes every model file in the directories, over and
// over, until stopped: a follower must never expose a partial or corrupt
// file.
func partialChecker(t testing.TB, dirs []string) (stop func() int) {
	done := make(chan struct{})
	var reads int
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			dir := dirs[i%len(dirs)]
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if _, ok := modeldir.ParseFileName(e.Name()); !ok {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					continue // removed by retention meanwhile
				}
				reads++
				if _, err := modelfile.Decode(b); err != nil {
					t.Errorf("%s/%s exposed and not a valid model: %v", dir, e.Name(), err)
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return func() int { close(done); <-finished; return reads }
}

// percentile returns the p-quantile (nearest rank) of sorted ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(p*float64(len(ds))+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// TestFleetFollowers: svmgo watch, fed by the stream, puts each version
// into a bucket; followers on separate connections to the hub and to two
// leaf nodes mirror it. Midway the hub is killed and restarted, later a
// leaf node is cut off from the hub, while versions keep coming. Every
// follower ends at the newest version, byte-identical to the trainer's,
// and no follower directory ever exposes an invalid file; a C client
// watching one follower's directory serves versions as they arrive with
// no failed call. It prints the publish-to-rename latency.
func TestFleetFollowers(t *testing.T) {
	sc := acceptance(t)
	hub := startHub(t)
	proxy := newCutProxy(t, fmt.Sprintf("127.0.0.1:%d", hub.leafPort))
	leaf1 := startLeaf(t, "leaf1", proxy.Addr())
	leaf2 := startLeaf(t, "leaf2", fmt.Sprintf("127.0.0.1:%d", hub.leafPort))
	_, js := connect(t, hub.URL())
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "BATCHES", Subjects: []string{"batches.>"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	tr := startTrainer(t, root, "--ingest.nats", hub.URL(), "--ingest.stream", "BATCHES",
		"--publish.nats-bucket", "models", "--publish.nats-keep=5", "--models.keep=5", "--nats.reconnect-wait=50ms")

	// Followers, each on its own connection: a third on each server.
	urls := []string{hub.URL(), leaf1.URL(), leaf2.URL()}
	rn := &renames{by: make([][]rename, sc.followers)}
	base := t.TempDir()
	var followers []*Follower
	var dirs []string
	for i := range sc.followers {
		dir := filepath.Join(base, fmt.Sprintf("f%03d", i))
		dirs = append(dirs, dir)
		followers = append(followers, startFollower(t, urls[i%3], "models", dir, rn.recorder(i)))
	}
	stopCheck := partialChecker(t, dirs)

	// The C client on a leaf-1 follower's directory (leaf 1 is cut).
	var client *exec.Cmd
	var clientOut bytes.Buffer
	stopFile := filepath.Join(t.TempDir(), "stop")
	if bin := os.Getenv("FLEET_C_CLIENT"); bin != "" {
		client = exec.Command(bin, dirs[1], stopFile)
		client.Stdout, client.Stderr = &syncWriter{w: &clientOut}, &syncWriter{w: &clientOut}
		if err := client.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Process.Kill(); client.Wait() })
	} else if os.Getenv("CI") != "" {
		t.Fatal("FLEET_C_CLIENT not set (make test-fleet builds bin/fleet_client_c)")
	}

	// The object's time in the bucket, by version: an observer's watch.
	putAt := map[uint64]time.Time{}
	var putMu sync.Mutex
	obsCtx, obsCancel := context.WithCancel(ctx)
	defer obsCancel()
	go func() {
		for obsCtx.Err() == nil {
			obs, err := js.ObjectStore(obsCtx, "models")
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			w, err := obs.Watch(obsCtx, jetstream.IgnoreDeletes())
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			for info := range w.Updates() {
				if info == nil {
					continue
				}
				if v, ok := modeldir.ParseFileName(info.Name); ok {
					putMu.Lock()
					if _, seen := putAt[v]; !seen {
						putAt[v] = info.ModTime
					}
					putMu.Unlock()
				}
			}
		}
	}()

	publish := func(i int) {
		for {
			if _, err := js.Publish(ctx, "batches.in", []byte(testBatch(i, rowsPerBatch))); err == nil {
				return
			}
			time.Sleep(50 * time.Millisecond) // the hub is restarting
		}
	}
	newest := func() uint64 {
		v, _, _ := modeldir.HighestVersion(fileio.OS, filepath.Join(root, "models"))
		return v
	}
	steadyUntil := uint64(sc.version / 2)
	var hubDown, cutStart time.Time
	// CPU seconds of each process over the steady phase: this one (the
	// followers, and the test's own checker and observer), the three
	// servers and the trainer.
	pids := []int{0, hub.pid(), leaf1.pid(), leaf2.pid(), tr.cmd.Process.Pid}
	cpuStart := make([]float64, len(pids))
	for i, pid := range pids {
		cpuStart[i] = cpuSeconds(pid)
	}
	steadyStart := time.Now()
	var cpuSteady []float64
	var steadyWall time.Duration
	for i := range sc.version {
		publish(i)
		// One version a batch: wait for it, so versions come at the
		// trainer's pace, as a stream of batches would make them.
		waitFor(t, 60*time.Second, func() bool { return newest() >= uint64(i+1) })
		switch i + 1 {
		case sc.version / 2:
			// The steady phase ends once every follower has its last version.
			waitFor(t, 60*time.Second, func() bool {
				return !slices.ContainsFunc(followers, func(f *Follower) bool { return f.Version() < steadyUntil })
			})
			steadyWall = time.Since(steadyStart)
			for i, pid := range pids {
				cpuSteady = append(cpuSteady, cpuSeconds(pid)-cpuStart[i])
			}
			hubDown = time.Now()
			hub.restart() // mid-transfer for whichever follower is fetching
		case 3 * sc.version / 4:
			cutStart = time.Now()
			proxy.setCut(true)
			go func() { time.Sleep(sc.cut); proxy.setCut(false) }()
		}
		time.Sleep(20 * time.Millisecond)
	}
	final := newest()
	want, err := os.ReadFile(filepath.Join(root, "models", modeldir.FileName(final)))
	if err != nil {
		t.Fatal(err)
	}
	if wait := sc.cut - time.Since(cutStart); wait > 0 {
		time.Sleep(wait)
	}
	convergeStart := time.Now()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var behind []string
		for i, f := range followers {
			if f.Version() != final {
				behind = append(behind, fmt.Sprintf("%d on %s at %d", i, []string{"hub", "leaf1", "leaf2"}[i%3], f.Version()))
			}
		}
		if behind == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("followers not at version %d: %s", final, strings.Join(behind, ", "))
		}
	}
	converged := time.Since(convergeStart)
	reads := stopCheck()
	for _, dir := range dirs {
		sameFile(t, filepath.Join(dir, modeldir.FileName(final)), want)
		onlyModels(t, dir, final)
	}
	tr.signal(syscall.SIGTERM)

	// Latency from the object's time in the bucket, in the steady phase
	// (before the hub restart).
	putMu.Lock()
	each, last, inst := rn.latencies(putAt, steadyUntil)
	putMu.Unlock()
	fmt.Printf("fleet follow: %d followers (hub, leaf1, leaf2), %d versions, all at version %d byte-identical; %d file reads never saw a partial file\n",
		len(followers), sc.version, final, reads)
	ms := func(ds []time.Duration, p float64) time.Duration { return percentile(ds, p).Round(time.Millisecond) }
	fmt.Printf("fleet follow: publish->rename (of that version or newer) latency, steady phase, %d versions: each follower p50 %v p99 %v; last follower p50 %v p99 %v; versions installed (%d, the rest skipped): p50 %v p99 %v; load %s\n",
		len(last), ms(each, 0.5), ms(each, 0.99), ms(last, 0.5), ms(last, 0.99), len(inst), ms(inst, 0.5), ms(inst, 0.99), loadavg())
	rn.mu.Lock()
	installed := 0
	for _, rs := range rn.by {
		installed += slices.IndexFunc(rs, func(x rename) bool { return x.v > steadyUntil })
	}
	rn.mu.Unlock()
	perV := func(sec float64) float64 { return 1000 * sec / float64(steadyUntil) }
	fmt.Printf("fleet follow: steady phase, %d versions in %.1f s: CPU ms per version: test process (%d followers, checker, observer) %.1f (%.2f a follower), hub %.1f, leaf1 %.1f, leaf2 %.1f, trainer %.1f; all %.1f of the %.0f wall ms a version; each follower installed %.1f of the %d versions on average (the rest skipped, superseded)\n",
		steadyUntil, steadyWall.Seconds(), len(followers), perV(cpuSteady[0]), perV(cpuSteady[0])/float64(len(followers)),
		perV(cpuSteady[1]), perV(cpuSteady[2]), perV(cpuSteady[3]), perV(cpuSteady[4]),
		perV(cpuSteady[0]+cpuSteady[1]+cpuSteady[2]+cpuSteady[3]+cpuSteady[4]), 1000*steadyWall.Seconds()/float64(steadyUntil),
		float64(installed)/float64(len(followers)), steadyUntil)
	fmt.Printf("fleet follow: hub killed and restarted at %s, leaf1 cut for %v at %s; all converged %v after the cut healed\n",
		hubDown.Format("15:04:05"), sc.cut, cutStart.Format("15:04:05"), converged.Round(time.Millisecond))

	if client != nil {
		os.WriteFile(stopFile, nil, 0o644)
		if err := client.Wait(); err != nil {
			t.Errorf("C client: %v\n%s", err, clientOut.String())
		}
		out := clientOut.String()
		served := strings.Count(out, "served ")
		lastLine := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
		if !strings.HasSuffix(strings.TrimSpace(lastLine), "last "+strconv.FormatUint(final, 10)) || !strings.Contains(lastLine, "failed 0") {
			t.Errorf("C client did not end serving version %d with no failed call: %q", final, lastLine)
		}
		fmt.Printf("fleet follow: C client on a leaf-1 follower served %d versions as they arrived: %s", served, lastLine)
	}
}

// loadavg returns /proc/loadavg's first three fields.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// cpuSeconds returns the user+system CPU time a process has used so far
// (/proc/PID/stat; pid 0 is this process), 0 when it is gone.
func cpuSeconds(pid int) float64 {
	name := "/proc/self/stat"
	if pid != 0 {
		name = fmt.Sprintf("/proc/%d/stat", pid)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ, 100 on Linux
}

// memKB is a process's memory in kB, from /proc/PID/status.
type memKB struct {
	rss, peak  int // VmRSS, VmHWM
	anon, file int // RssAnon (the heap, stacks), RssFile (the binary's pages)
}

// rss returns a process's memory.
func rss(pid int) memKB {
	var m memKB
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		switch k {
		case "VmRSS":
			m.rss = n
		case "VmHWM":
			m.peak = n
		case "RssAnon":
			m.anon = n
		case "RssFile":
			m.file = n
		}
	}
	return m
}

// TestFleetTransferRestart: a svmgo follow process fetches 10 MB model
// versions while the hub is killed with SIGKILL during the transfer and
// restarted; the follower converges on the newest version, byte-identical,
// its directory never exposing a partial file. It prints the follower's
// RSS at rest and its peak over the transfers.
func TestFleetTransferRestart(t *testing.T) {
	sc := acceptance(t)
	hub := startHub(t)
	_, js := connect(t, hub.URL())
	ctx := context.Background()
	if _, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "big", Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "models")
	cmd := exec.Command(svmgoBin(t), "follow", "--nats", hub.URL(), "--bucket", "big", "--models", dir,
		"--resync=2s", "--nats.reconnect-wait=50ms")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &syncWriter{w: &out}, &syncWriter{w: &out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	stopCheck := partialChecker(t, []string{dir})

	put := func(v uint64, file []byte) { t.Helper(); putVersion(t, js, "big", v, file) }
	has := func(v uint64, want []byte) bool { return hasVersion(dir, v, want) }
	small := testModelFile(t, 1000, 1)
	put(1, small)
	waitFor(t, 30*time.Second, func() bool { return has(1, small) })
	time.Sleep(500 * time.Millisecond)
	restKB := rss(cmd.Process.Pid).rss

	const features = 10 << 20 / 4 // a 10 MB model
	var last []byte
	for i := range sc.transfers {
		v := uint64(2 + i)
		last = testModelFile(t, features, v)
		put(v, last)
		// Kill the hub while the follower fetches the version.
		time.Sleep(time.Duration(20+40*i) * time.Millisecond)
		hub.restart()
		waitFor(t, 90*time.Second, func() bool { return has(v, last) })
	}
	peakKB := rss(cmd.Process.Pid).peak
	reads := stopCheck()
	onlyModels(t, dir, uint64(1+sc.transfers))
	fmt.Printf("fleet transfer: %d versions of %.1f MB, the hub killed -9 during each transfer and restarted (%d fetches or watches interrupted): converged byte-identical, %d file reads never saw a partial file\n",
		sc.transfers, float64(len(last))/(1<<20), strings.Count(out.String(), "interrupted: retrying"), reads)
	fmt.Printf("fleet transfer: svmgo follow RSS at rest %.1f MB, peak over the transfers %.1f MB (model %.1f MB; goal 15 MB + model); load %s\n",
		float64(restKB)/1024, float64(peakKB)/1024, float64(len(last))/(1<<20), loadavg())
	if strings.Contains(out.String(), "panic") {
		t.Errorf("svmgo follow panicked:\n%s", out.String())
	}
}

// putVersion puts file as version v into bucket, retrying for up to a
// minute while the server is away.
func putVersion(t testing.TB, js jetstream.JetStream, bucket string, v uint64, file []byte) {
	t.Helper()
	ctx := context.Background()
	meta, err := objectMeta(v, file)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		obs, err := js.ObjectStore(ctx, bucket)
		if err == nil {
			if _, err = obs.Put(ctx, meta, bytes.NewReader(file)); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("put version %d: %v", v, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hasVersion reports whether dir holds version v with the bytes want.
func hasVersion(dir string, v uint64, want []byte) bool {
	b, err := os.ReadFile(filepath.Join(dir, modeldir.FileName(v)))
	return err == nil && bytes.Equal(b, want)
}

// TestFleetFollowMemory measures a svmgo follow process (make's bin/svmgo,
// or FLEET_SVMGO: point it at another build to compare) at rest and over
// two 10 MB model transfers in a row, and prints its VmRSS at rest (its
// heap and stacks, and the binary's pages) and its VmHWM (peak RSS) after
// each transfer. The goal is 15 MB plus the model. The chunks
// pass one at a time through the hash and the streaming check into a
// temporary file: nothing the follower holds grows with the model. So the
// test fails when the peak exceeds the RSS at rest by more than 8 MB (the
// GC's heap goal over chunk-sized garbage, the client's buffers): a
// client queue of the whole object, a copy of the file or a decoded model
// would each add the model's 10 MB (the build that decoded it peaked 24
// MB above its rest).
func TestFleetFollowMemory(t *testing.T) {
	acceptance(t)
	hub := startHub(t)
	_, js := connect(t, hub.URL())
	if _, err := js.CreateObjectStore(context.Background(), jetstream.ObjectStoreConfig{Bucket: "mem", Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "models")
	cmd := exec.Command(svmgoBin(t), "follow", "--nats", hub.URL(), "--bucket", "mem", "--models", dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &syncWriter{w: &out}, &syncWriter{w: &out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	small := testModelFile(t, 1000, 1)
	putVersion(t, js, "mem", 1, small)
	waitFor(t, 30*time.Second, func() bool { return hasVersion(dir, 1, small) })
	time.Sleep(500 * time.Millisecond)
	rest := rss(cmd.Process.Pid)

	const features = 10 << 20 / 4 // a 10 MB model
	var peaks []string
	var peakKB, modelBytes int
	for v := uint64(2); v <= 3; v++ {
		file := testModelFile(t, features, v)
		modelBytes = len(file)
		putVersion(t, js, "mem", v, file)
		waitFor(t, 60*time.Second, func() bool { return hasVersion(dir, v, file) })
		peakKB = rss(cmd.Process.Pid).peak
		peaks = append(peaks, fmt.Sprintf("%.1f MB", float64(peakKB)/1024))
	}
	mb := func(b int) float64 { return float64(b) / (1 << 20) }
	fmt.Printf("fleet memory: svmgo follow VmRSS at rest %.1f MB (anon %.1f, binary and other files %.1f); VmHWM after each of 2 transfers of %.1f MB: %s (goal 15 MB + model = %.1f MB); load %s\n",
		float64(rest.rss)/1024, float64(rest.anon)/1024, float64(rest.file)/1024, mb(modelBytes), strings.Join(peaks, ", "), 15+mb(modelBytes), loadavg())
	if limit := rest.rss + 8<<10; peakKB > limit {
		t.Errorf("svmgo follow peaked at %d kB, more than its %d kB at rest + 8 MB (%d kB): something holds the %d-byte model", peakKB, rest.rss, limit, modelBytes)
	}
}
