package core_test

import (
	"fmt"
	"log"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// accuracy is the share of rows of ds whose prediction by m is their label.
func accuracy(m core.Model, ds *data.Dataset) string {
	pred := m.PredictBatch(make([]float64, ds.Len()), ds)
	right := 0
	for i, p := range pred {
		if p == ds.Label(i) {
			right++
		}
	}
	return fmt.Sprintf("%.4f%% (%d/%d)", 100*float64(right)/float64(ds.Len()), right, ds.Len())
}

// Train a linear SVM (LIBLINEAR's -s 1, its defaults) on a LIBSVM text file
// and predict with it: the start of every linear use of the library.
func ExampleLinearTrainer_Train() {
	ds, err := data.ReadFile("testdata/heart_scale", data.ReadOptions{}) // sized by a first pass, then parsed
	if err != nil {
		log.Fatal(err)
	}
	p := linear.DefaultLinearParams() // -s 1 -c 1, seed 1
	p.Eps = 0.0001                    // liblinear-train -s 1 -e 0.0001 heart_scale: 84.4444% too
	t, err := linear.NewLinearTrainer(p, ds.CapRows(), ds.NumFeatures())
	if err != nil {
		log.Fatal(err)
	}
	m, _, err := t.Train(ds, nil) // nil: a cold start
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("labels", m.Labels, "features", m.NumFeatures)
	fmt.Println("accuracy on its training rows", accuracy(m, ds))
	// heart_scale is read dense (most of its features are nonzero), so
	// its rows are []float32 of NumFeatures values.
	fmt.Println("row 0: label", ds.Label(0), "predicted", m.PredictDense(ds.DenseRow(0)))
	// Output:
	// labels [1 -1] features 13
	// accuracy on its training rows 84.4444% (228/270)
	// row 0: label 1 predicted 1
}

// Retrain warm: rows arrive in batches into a data set of fixed capacity,
// and each retrain starts from the previous solution, its dual variables:
// kept for the rows trained before, zero for the new rows. (On larger data
// the daemon and the C ABI trainer set LinearParams.PrimalTwin, which
// solves -s 1 by the Newton method from the w those α give and saves more
// when many rows are added; see the README's warm-retraining figures.)
func ExampleLinearTrainer_Train_warmStart() {
	all, err := data.ReadFile("testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	// Capacity for every row, fixed now: appending past it is data.ErrFull.
	ds := data.NewDense(all.Len(), all.NumFeatures())
	p := linear.DefaultLinearParams()
	p.Eps = 0.0001 // each model predicts as liblinear-train -s 1 -e 0.0001 on the same rows
	t, err := linear.NewLinearTrainer(p, ds.CapRows(), ds.NumFeatures())
	if err != nil {
		log.Fatal(err)
	}
	var dual *linear.LinearDual // nil: the first fit is cold
	var warm int64
	for _, end := range []int{150, 210, 270} {
		for i := ds.Len(); i < end; i++ {
			if err := ds.AppendDense(all.Label(i), all.DenseRow(i)); err != nil {
				log.Fatal(err)
			}
		}
		if dual != nil { // the new rows start at α = 0
			for k, a := range dual.Alpha {
				dual.Alpha[k] = append(a, make([]float64, ds.Len()-len(a))...)
			}
		}
		var m *linear.LinearModel
		if m, dual, err = t.Train(ds, dual); err != nil {
			log.Fatal(err)
		}
		if end > 150 {
			warm += m.Result.Updates
		}
		fmt.Printf("%d rows: accuracy %s\n", ds.Len(), accuracy(m, ds))
	}
	// The same two retrains, cold.
	var cold int64
	for _, end := range []int{210, 270} {
		sub := data.NewDense(end, all.NumFeatures())
		for i := 0; i < end; i++ {
			if err := sub.AppendDense(all.Label(i), all.DenseRow(i)); err != nil {
				log.Fatal(err)
			}
		}
		m, _, err := t.Train(sub, nil)
		if err != nil {
			log.Fatal(err)
		}
		cold += m.Result.Updates
	}
	fmt.Println("warm retrains read fewer rows than cold ones:", warm < cold)
	// Output:
	// 150 rows: accuracy 85.3333% (128/150)
	// 210 rows: accuracy 85.2381% (179/210)
	// 270 rows: accuracy 84.4444% (228/270)
	// warm retrains read fewer rows than cold ones: true
}

// Train a kernel SVM (LIBSVM's svm-train: C-SVC, RBF kernel, its defaults)
// and read its description through the one Model interface every kind
// implements.
func ExampleKernelTrainer_Train() {
	ds, err := data.ReadFile("testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	p := core.DefaultKernelParams() // -s 0 -t 2 -c 1, gamma 1/features
	t, err := core.NewKernelTrainer(p, ds.CapRows(), ds.NumFeatures())
	if err != nil {
		log.Fatal(err)
	}
	m, _, err := t.Train(ds, nil)
	if err != nil {
		log.Fatal(err)
	}
	var model core.Model = m
	info := model.Info()
	fmt.Println(info.Kind, info.Task, "labels", info.Labels, "support vectors", m.Result.NumSV)
	fmt.Println("accuracy on its training rows", accuracy(model, ds))
	// Output:
	// kernel classification labels [1 -1] support vectors 132
	// accuracy on its training rows 86.6667% (234/270)
}
