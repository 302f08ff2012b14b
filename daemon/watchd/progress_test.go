package watchd

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestProgressLog: a retrain's progress is logged at most once per
// interval, with its subproblem, iteration, violation and objective when
// known; a real kernel trainer's events reach it.
func TestProgressLog(t *testing.T) {
	var buf bytes.Buffer
	p := &progressLog{log: slog.New(slog.NewJSONHandler(&buf, nil)), interval: time.Hour}
	p.reset(time.Now())
	p.report(core.ProgressEvent{Iteration: 1})
	if buf.Len() != 0 {
		t.Fatalf("logged within the interval: %s", buf.String())
	}
	p.reset(time.Now().Add(-2 * time.Hour))
	p.report(core.ProgressEvent{Classes: 2, Subproblem: 3, Second: 5, Iteration: 4000, Objective: math.NaN(), Violation: 0.25})
	p.report(core.ProgressEvent{Classes: 2, Subproblem: 3, Second: 5, Iteration: 5000, Objective: math.NaN(), Violation: 0.125})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1 (the second within the interval):\n%s", len(lines), buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["msg"] != "training progress" || rec["class"] != 3.0 || rec["versus"] != 5.0 || rec["iteration"] != 4000.0 ||
		rec["violation"] != 0.25 || rec["objective"] != nil {
		t.Errorf("record %v", rec)
	}

	// Interval 0: every event of a real run is logged.
	buf.Reset()
	p = &progressLog{log: slog.New(slog.NewJSONHandler(&buf, nil))}
	ds, err := parseBatch("b.txt", "b.txt", []byte(batchText(3, 60)), batchLimits{capacity: 100, maxFeatures: 10, maxLineBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	lp := linear.DefaultLinearParams()
	lp.Solver = linear.L2LossSVCPrimal
	tr, err := linear.NewLinearTrainer(lp, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	tr.SetProgress(p.report)
	m, _, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"msg":"training progress"`); n != m.Result.NewtonIterations || n == 0 {
		t.Errorf("%d records for %d Newton iterations", n, m.Result.NewtonIterations)
	}
}
