package watchd

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// TestL1WarmRetrain follows -s 5 and -s 6 through the daemon: each batch
// is trained warm from the previous model's w (the coordinate methods'
// natural start), published, and reaches the optimum a cold run on the
// same rows reaches (the stopping test is scaled at w = 0 either way),
// in fewer coordinate updates over the stream.
func TestL1WarmRetrain(t *testing.T) {
	for _, opts := range []string{"-s 5 -c 4 -e 0.0001", "-s 6 -c 4 -B 1 -e 0.0001"} {
		t.Run(opts, func(t *testing.T) {
			cfg := testConfig(t.TempDir())
			cfg.TrainOptions = opts
			cfg.ColdEvery = 1 // log a cold solve beside each warm one
			s := newSync(t, cfg)
			var text string
			for b := range 4 {
				batch := batchText(uint64(20+b), 50)
				text += batch
				s.ingest(t, "b"+string(rune('0'+b))+".txt", batch)
				got, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(uint64(b+1))))
				if err != nil {
					t.Fatal(err)
				}
				want, _, _ := trainText(t, cfg, text)
				if got.Solver != want.Solver || !got.Result.Converged {
					t.Fatalf("batch %d: solver %v converged %v", b, got.Solver, got.Result.Converged)
				}
				fg, fw := got.Result.PrimalObjective, want.Result.PrimalObjective
				if math.Abs(fg-fw) > 1e-4*fw {
					t.Errorf("batch %d: warm objective %.8g, cold reference %.8g", b, fg, fw)
				}
			}
			var warm, cold float64
			for i, r := range s.records(t, "retrained") {
				if (i > 0) != (r["primal_start"] == true) {
					t.Errorf("retrain %d: primal_start %v", i, r["primal_start"])
				}
			}
			for i, r := range s.records(t, "cold solve for comparison") {
				if i > 0 {
					warm += r["warm_updates"].(float64)
					cold += r["cold_updates"].(float64)
				}
			}
			if !(warm < cold) {
				t.Errorf("warm retrains took %v coordinate updates, cold %v", warm, cold)
			}
			t.Logf("%s: warm/cold coordinate updates over batches 2-4: %.0f/%.0f = %.2f", opts, warm, cold, warm/cold)
		})
	}
}
