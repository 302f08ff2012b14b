package watchd

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// TestScaledModelsTakeTheRowsWidth (issue 22, fault 8): with --scale the
// daemon's models are as wide as the rows it holds, as `svmgo train
// --scale` makes them, not as wide as --store.max-features: the ranges
// used to cover the store's capacity, which made an RBF model 16 MB wide
// at 10⁶ features with an automatic γ of 10⁻⁶ (24% accuracy where train
// --scale has 84%), and a -s 1 model 40 MB a version. The published
// models predict the test rows as core's models trained with --scale on
// the same rows do.
func TestScaledModelsTakeTheRowsWidth(t *testing.T) {
	const maxFeatures = 100000
	all := lines(t, digitsTrain)
	rows := strings.Join(all[:300], "")
	held := readText(t, rows)
	test := readTest(t, digitsTest)
	for _, opts := range []string{"-t 2 -c 4 --scale", "-s 1 --scale"} {
		t.Run(opts, func(t *testing.T) {
			cfg := kernelConfig(t.TempDir(), opts, 2000, maxFeatures)
			s := newSync(t, cfg)
			s.ingest(t, "b00.txt", rows)
			got, err := modelfile.ReadFile(filepath.Join(cfg.Root, ModelsDir, modeldir.FileName(1)))
			if err != nil {
				t.Fatal(err)
			}
			if nf := got.Info().NumFeatures; nf != held.NumFeatures() {
				t.Fatalf("published model of %d features, the rows have %d (store max %d)", nf, held.NumFeatures(), maxFeatures)
			}
			o, _, err := options.ParseTrain(strings.Fields(opts), options.SyntaxAuto)
			if err != nil {
				t.Fatal(err)
			}
			want, err := core.TrainModel(held, o.Params())
			if err != nil {
				t.Fatal(err)
			}
			p := got.PredictBatch(make([]float64, test.Len()), test)
			q := want.PredictBatch(make([]float64, test.Len()), test)
			agree, correct := 0, 0
			for i := range p {
				if p[i] == q[i] {
					agree++
				}
				if p[i] == test.Label(i) {
					correct++
				}
			}
			accuracy := float64(correct) / float64(test.Len())
			t.Logf("%s: %d features, accuracy %.1f%%, %d of %d predictions as train --scale's", opts,
				got.Info().NumFeatures, 100*accuracy, agree, test.Len())
			if agree < test.Len()*99/100 || accuracy < 0.8 {
				t.Errorf("%s: %d of %d predictions agree with train --scale's, accuracy %s", opts, agree, test.Len(), fmt.Sprintf("%.1f%%", 100*accuracy))
			}
		})
	}
}
