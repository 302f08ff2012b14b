package watchd

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// hostile is one batch of the catalogue.
type hostile struct {
	name, text string
}

// hostileCatalogue returns the hostile batches for a ν-SVC daemon (ν = 0.5,
// weight column 2 of CSV batches, 13 features), the good rows being
// heart_scale's: bad and extreme weights, bad and extreme labels, bad
// features, a batch of one class, one that makes ν infeasible, bytes that
// are no text. Some are acceptable (a tiny weight), most are rejected;
// none may stop the daemon or unseat the model it serves.
func hostileCatalogue(t *testing.T) []hostile {
	pos, neg := heartOf(t, "+1", 0, 80), heartOf(t, "-1", 0, 40)
	mixed := append(slices.Clone(pos[20:30]), neg[20:30]...)
	var c []hostile
	for i, w := range []string{"1e6", "1e-300", "5e-324", "1.797e308", "1e309", "0", "-1", "-0", "nan", "NaN", "inf",
		"-inf", "", "abc", "0x10", "1e-400", "4.9e-324"} {
		c = append(c, hostile{fmt.Sprintf("weight-%02d.csv", i), weighted(t, mixed, 3, w)})
	}
	label := func(l string) string { return l + strings.TrimLeft(mixed[0], "+-1") }
	for i, l := range []string{"nan", "inf", "-inf", "1e309", "1.5", "2147483648", "-2147483649", "1e300", "", "x", "0x1"} {
		c = append(c, hostile{fmt.Sprintf("label-%02d.txt", i), strings.Join(mixed[1:], "") + label(l)})
	}
	for i, row := range []string{"+1 0:1", "+1 -1:1", "+1 14:1", "+1 99999999999:1", "+1 2:1 2:1", "+1 3:1 2:1",
		"+1 1:nan", "+1 1:inf", "+1 1:1e39", "+1 1:", "+1 :1", "+1 1:1:1", "+1 1 2"} {
		c = append(c, hostile{fmt.Sprintf("feature-%02d.txt", i), strings.Join(mixed, "") + row + "\n"})
	}
	c = append(c,
		hostile{"one-class.txt", strings.Join(pos[30:40], "")},
		hostile{"nu-infeasible.txt", strings.Join(pos[20:70], "")},
		hostile{"empty.txt", ""},
		hostile{"newlines.txt", "\n\n\n"},
		hostile{"nul.txt", "\x00\x00\x00\n"},
		hostile{"binary.txt", string([]byte{0xff, 0xfe, 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'})},
		hostile{"bom.txt", "\ufeff" + strings.Join(mixed, "")},
		hostile{"crlf.txt", strings.ReplaceAll(strings.Join(mixed, ""), "\n", "\r\n")},
		hostile{"long-line.txt", "+1 " + strings.Repeat("1:1 ", 1<<15) + "\n"},
		hostile{"wide.csv", "1" + strings.Repeat(",1", 1000) + "\n"},
	)
	return c
}

// servingCheck asserts that the daemon is alive and healthy, and that the
// model watcher serves the newest published version, whole, predicting a
// finite value; it returns that version, which must never go back.
func servingCheck(t *testing.T, r *running, w *modeldir.Watcher, after string, prev uint64) uint64 {
	t.Helper()
	r.alive(t)
	if code, body := r.health(t); code != 200 {
		t.Fatalf("after %s: /healthz %d %q", after, code, body)
	}
	vs := modelVersions(t, r.root)
	newest := vs[len(vs)-1]
	if newest < prev {
		t.Fatalf("after %s: newest version %d, below %d", after, newest, prev)
	}
	waitFor(t, fmt.Sprintf("the watcher at version %d", newest), func() bool {
		cur := w.Current()
		return cur != nil && cur.Version == newest
	})
	m := w.Current().Model
	dec := make([]float64, m.Info().NumDecisionValues)
	for _, v := range m.DecisionSparse(dec, []int32{0, 1, 2}, []float32{0.5, -1, 0.25}) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("after %s: version %d gives decision value %v", after, newest, v)
		}
	}
	return newest
}

// TestHostileBatchCatalogue (item 4) feeds a ν-SVC daemon the hostile
// catalogue, then batches named with every length from 1 to 255 bytes and
// with every byte a file name may hold; after each, the daemon is alive and
// healthy, incoming/ is empty, and the newest model (never an older one)
// is served. The rejected count and the stored rows are checked at the end.
func TestHostileBatchCatalogue(t *testing.T) {
	cfg := kernelConfig(t.TempDir(), nuOptions, 2000, 13)
	cfg.WeightColumn = 2
	cfg.MaxLineBytes = 1 << 16
	r := start(t, cfg)
	pos, neg := heartOf(t, "+1", 0, 20), heartOf(t, "-1", 0, 20)
	good := strings.Join(append(slices.Clone(pos), neg...), "")
	drop(t, r.root, "good.txt", good)
	waitFor(t, "good.txt in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "good.txt")) })
	w, err := modeldir.Watch(filepath.Join(r.root, ModelsDir), modeldir.Options{Debounce: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	version := servingCheck(t, r, w, "good.txt", 0)

	in := filepath.Join(r.root, IncomingDir)
	feed := func(name, text string) {
		t.Helper()
		dropAs(t, r.root, name, text)
		waitFor(t, fmt.Sprintf("%q taken from incoming/", name), func() bool { return len(dirNames(t, in)) == 0 })
		version = servingCheck(t, r, w, fmt.Sprintf("%q", name), version)
	}
	catalogue := hostileCatalogue(t)
	for _, h := range catalogue {
		feed(h.name, h.text)
	}
	// Names of every length (the good batch's bytes again: a duplicate,
	// moved to done/) and with every byte (a bad line: rejected, a reason
	// file beside it). A leading dot or a ".tmp" end would make a
	// temporary name, which the daemon leaves alone.
	for n := 1; n <= 255; n++ {
		feed(strings.Repeat("L", n), good)
	}
	bytesFed := 0
	for b := 1; b < 256; b++ {
		if b == '/' {
			continue
		}
		feed("n"+string([]byte{byte(b)})+".txt", "+1 1:x\n")
		bytesFed++
	}
	r.stop(t)

	rejected := 0
	for _, n := range dirNames(t, filepath.Join(r.root, RejectedDir)) {
		if !strings.HasSuffix(n, ReasonSuffix) {
			rejected++
		}
	}
	done := len(dirNames(t, filepath.Join(r.root, DoneDir)))
	if rejected+done != 1+len(catalogue)+255+bytesFed {
		t.Errorf("%d rejected + %d done, want the %d batches fed", rejected, done, 1+len(catalogue)+255+bytesFed)
	}
	st := openStore(t, cfg)
	t.Logf("catalogue: %d hostile batches, %d named by length, %d by byte; %d rejected, %d in done/; %d rows stored, newest version %d",
		len(catalogue), 255, bytesFed, rejected, done, st.Len(), version)
	if st.Len() > 40+len(catalogue)*30 {
		t.Errorf("store holds %d rows", st.Len())
	}
}
