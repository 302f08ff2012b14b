package textmodel

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// readProbabilities reads liblinear-predict -b 1's output: the "labels"
// header, then a predicted label and one probability per class a row.
func readProbabilities(t *testing.T, path string) (labels []int32, pred []float64, prob [][]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if fields[0] == "labels" {
			for _, v := range fields[1:] {
				n, _ := strconv.Atoi(v)
				labels = append(labels, int32(n))
			}
			continue
		}
		row := make([]float64, len(fields))
		for k, v := range fields {
			if row[k], err = strconv.ParseFloat(v, 64); err != nil {
				t.Fatal(err)
			}
		}
		pred = append(pred, row[0])
		prob = append(prob, row[1:])
	}
	return labels, pred, prob
}

// TestLRProbabilitiesOfImportedModels checks, row by row, the
// probabilities of LIBLINEAR logistic regression models (binary -s 0 with
// a bias, one-vs-rest -s 7) against liblinear-predict -b 1's output on the
// same rows, printed to 6 significant digits.
func TestLRProbabilitiesOfImportedModels(t *testing.T) {
	for _, c := range []struct{ model, data, probs string }{
		{"heart_scale.lr.model", "heart_scale", "heart_scale.lr.prob"},
		{"digits.lr7.model", "digits.test", "digits.lr7.prob"},
	} {
		t.Run(c.model, func(t *testing.T) {
			f, err := os.Open("../testdata/" + c.model)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := ReadLIBLINEARModel(f, c.model)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Info().Probability || !m.Solver.IsLogistic() {
				t.Fatalf("imported %v model: Probability %v", m.Solver, m.Info().Probability)
			}
			labels, pred, want := readProbabilities(t, "../testdata/"+c.probs)
			ds, err := data.ReadFile("../testdata/"+c.data, data.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(labels) != len(m.Labels) {
				t.Fatalf("%d labels, LIBLINEAR %d", len(m.Labels), len(labels))
			}
			got := make([]float64, len(m.Labels))
			for i := range want {
				if ds.IsDense() {
					m.ProbabilityDense(got, ds.DenseRow(i)[:m.NumFeatures])
				} else {
					idx, val := ds.SparseRow(i)
					m.ProbabilitySparse(got, idx, val)
				}
				sum := 0.0
				best := 0
				for k, p := range got {
					if labels[k] != m.Labels[k] {
						t.Fatalf("label order %v, LIBLINEAR %v", m.Labels, labels)
					}
					// 6 significant digits printed, float32 weights.
					if math.Abs(p-want[i][k]) > 1e-5*want[i][k]+1e-9 {
						t.Errorf("row %d class %d: probability %.8g, LIBLINEAR %g", i+1, labels[k], p, want[i][k])
					}
					sum += p
					if p > got[best] {
						best = k
					}
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("row %d: probabilities sum to %.15g", i+1, sum)
				}
				if float64(m.Labels[best]) != pred[i] {
					t.Errorf("row %d: most probable class %d, LIBLINEAR predicts %g", i+1, m.Labels[best], pred[i])
				}
			}
		})
	}
}
