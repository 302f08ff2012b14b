package modeldir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/scale"
	"github.com/tinylib/msgp/msgp"
)

// hostileRSSBound is the peak resident memory the loader may reach while
// refusing every hostile body: the test binary itself takes about 10 MiB
// of it.
const hostileRSSBound = 64 << 20

// hostileAddressLimit is the child's address-space limit.
const hostileAddressLimit = 4 << 30

// hostileAllocBound is what decoding one hostile body may allocate.
const hostileAllocBound = 16 << 20

// sizeKeys are the body fields that declare a size: features, support
// vectors, decision functions.
var sizeKeys = []string{"nf", "sr", "nw"}

// hugeSizes are the sizes the hostile bodies declare.
var hugeSizes = []int64{1<<31 - 1, 1 << 31, 1 << 40, 1 << 62}

// hostileBodies returns, by name, model files of every kind (the compat
// fixtures, plus a scaled linear and a scaled kernel model) whose body
// declares a huge size in one field: with the body's blobs as they are,
// emptied, or cut to their first 8 bytes, and its other sizes as they are
// or 0 (a kernel model of no support vectors). Each is a valid frame around a
// well-formed msgpack body, so it reaches the kind's decoder.
func hostileBodies(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	paths, err := filepath.Glob(filepath.Join("testdata", "compat", "*.svmgo"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no compat fixtures: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimSuffix(filepath.Base(p), ".svmgo")] = b
	}
	for _, name := range []string{"linear-svc-binary", "kernel-csvc-sparse"} {
		m, err := modelfile.Decode(files[name])
		if err != nil {
			t.Fatal(err)
		}
		nf := m.Info().NumFeatures
		r := &scale.Ranges{Lower: -1, Upper: 1, Min: make([]float64, nf), Max: make([]float64, nf)}
		for j := range r.Max {
			r.Max[j] = 1
		}
		switch m := m.(type) {
		case *linear.LinearModel:
			m.Scale = r
		case *core.KernelModel:
			m.Scale = r
		}
		if files[name+"-scaled"], err = modelfile.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string][]byte{}
	for name, file := range files {
		payload, _, err := modelfile.Open(file)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		keys, vals, bodyKind := bodyFields(t, payload)
		for _, key := range sizeKeys {
			if !slices.Contains(keys, key) {
				continue
			}
			for _, size := range hugeSizes {
				for _, blobs := range []string{"kept", "empty", "cut"} {
					for _, others := range []string{"kept", "zero"} {
						p := msgp.AppendMapHeader(nil, uint32(len(keys)))
						for i, k := range keys {
							p = msgp.AppendString(p, k)
							switch v := vals[i]; {
							case k == key:
								p = msgp.AppendInt64(p, size)
							case others == "zero" && slices.Contains(sizeKeys, k):
								p = msgp.AppendInt64(p, 0)
							case blobs != "kept" && msgp.NextType(v) == msgp.BinType:
								b, _, err := msgp.ReadBytesZC(v)
								if err != nil {
									t.Fatal(err)
								}
								if blobs == "empty" {
									b = nil
								}
								p = msgp.AppendBytes(p, b[:min(len(b), 8)])
							default:
								p = append(p, v...)
							}
						}
						f := append(make([]byte, modelfile.HeaderSize), p...)
						if err := modelfile.Seal(f, bodyKind); err != nil {
							t.Fatal(err)
						}
						out[fmt.Sprintf("%s-%s-%d-blobs-%s-sizes-%s", name, key, size, blobs, others)] = f
					}
				}
			}
		}
	}
	return out
}

// bodyFields splits a body into its keys and raw values, and returns its
// kind field.
func bodyFields(t testing.TB, payload []byte) (keys []string, vals [][]byte, kind string) {
	n, rest, err := msgp.ReadMapHeaderBytes(payload)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		var k string
		if k, rest, err = msgp.ReadStringBytes(rest); err != nil {
			t.Fatal(err)
		}
		after, err := msgp.Skip(rest)
		if err != nil {
			t.Fatal(err)
		}
		keys, vals = append(keys, k), append(vals, rest[:len(rest)-len(after)])
		if k == "k" {
			if kind, _, err = msgp.ReadStringBytes(rest); err != nil {
				t.Fatal(err)
			}
		}
		rest = after
	}
	return keys, vals, kind
}

// hostileResult is what the child process reports for one body.
type hostileResult struct {
	Name  string
	Err   string
	Alloc uint64
}

// TestHostileBodiesRefusedUnderRSSBound (issue 22, item 5): every body of
// every kind that declares a huge size with a tiny payload is refused by
// modelfile.Decode, the one opener, and the process that decodes them all (a child,
// so that an abort fails this test instead of killing it) stays under
// hostileRSSBound of peak resident memory, each body allocating at most
// hostileAllocBound. Before the bound on a kernel model's feature count, a
// kernel body with no support vectors and 2³¹−1 features loaded.
func TestHostileBodiesRefusedUnderRSSBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector inflates resident memory: make test runs this without it")
	}
	if os.Getenv("SVMGO_HOSTILE_CHILD") == "1" {
		// An address-space limit makes a decoder that tries a huge
		// allocation abort at once instead of taking the machine's
		// memory (16 GiB before the fix).
		lim := syscall.Rlimit{Cur: hostileAddressLimit, Max: hostileAddressLimit}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Fatal(err)
		}
		decodeHostileBodies(t)
		return
	}
	bodies := hostileBodies(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileBodiesRefusedUnderRSSBound$", "-test.v")
	cmd.Env = append(os.Environ(), "SVMGO_HOSTILE_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s\n%s", err, lastLines(out, 5), lastLines(stderr.Bytes(), 20))
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	seen := map[string]bool{}
	var maxAlloc uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "hostile ")
		if !ok {
			continue
		}
		var r hostileResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		seen[r.Name] = true
		maxAlloc = max(maxAlloc, r.Alloc)
		if r.Err == "" {
			t.Errorf("%s: loaded", r.Name)
		}
		if r.Alloc > hostileAllocBound {
			t.Errorf("%s: allocated %d bytes, more than %d", r.Name, r.Alloc, hostileAllocBound)
		}
	}
	if len(seen) != len(bodies) {
		t.Errorf("child decoded %d bodies, want %d", len(seen), len(bodies))
	}
	if rss > hostileRSSBound {
		t.Errorf("peak RSS %d bytes, bound %d", rss, hostileRSSBound)
	}
	t.Logf("%d hostile bodies refused; peak RSS %.1f MiB (bound %d MiB), largest allocation by one body %d bytes",
		len(seen), float64(rss)/(1<<20), hostileRSSBound>>20, maxAlloc)
}

// decodeHostileBodies is the child's side: it decodes every hostile body
// and prints one line of JSON for each.
func decodeHostileBodies(t *testing.T) {
	bodies := hostileBodies(t)
	for _, name := range sortedKeys(bodies) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := modelfile.Decode(bodies[name])
		runtime.ReadMemStats(&after)
		r := hostileResult{Name: name, Alloc: after.TotalAlloc - before.TotalAlloc}
		if err != nil {
			r.Err = err.Error()
		}
		line, _ := json.Marshal(r)
		fmt.Printf("hostile %s\n", line)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// FuzzDecode checks that modelfile.Decode, the one opener, never panics on any
// bytes and that a refusal wraps one of modelfile's sentinels. Its seeds
// are the hostile bodies of every kind (TestHostileBodiesRefusedUnderRSSBound).
func FuzzDecode(f *testing.F) {
	bodies := hostileBodies(f)
	for _, name := range sortedKeys(bodies) {
		f.Add(bodies[name])
	}
	sentinels := []error{modelfile.ErrNotModel, modelfile.ErrVersion, modelfile.ErrTruncated,
		modelfile.ErrChecksum, modelfile.ErrCorrupt, modelfile.ErrKind}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := modelfile.Decode(b)
		if (m == nil) == (err == nil) {
			t.Fatalf("Decode returned the model %v and the error %v", m, err)
		}
		if err != nil && !slices.ContainsFunc(sentinels, func(s error) bool { return errors.Is(err, s) }) {
			t.Fatalf("error %q wraps none of modelfile's sentinels", err)
		}
	})
}
