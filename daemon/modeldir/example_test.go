package modeldir_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// train returns a linear model of heart_scale and its rows.
func train() (*linear.LinearModel, *data.Dataset) {
	ds, err := data.ReadFile("../../core/testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	m, _, err := linear.TrainLinear(ds, linear.DefaultLinearParams())
	if err != nil {
		log.Fatal(err)
	}
	return m, ds
}

// Save a model to a file and open it again: WriteFile writes any kind
// atomically, ReadFile returns whatever kind the file holds as a
// core.Model, here a float and a quantized (int8) one.
func ExampleReadFile() {
	m, ds := train()
	q, err := quantize.QuantizeLinear(m, 8)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "modeldir-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, saved := range []core.Model{m, q} {
		path := filepath.Join(dir, "heart.svmgo")
		if err := modelfile.WriteFile(path, saved); err != nil {
			log.Fatal(err)
		}
		loaded, err := modelfile.ReadFile(path)
		if err != nil {
			log.Fatal(err)
		}
		info := loaded.Info()
		same := true
		for i := range ds.Len() {
			same = same && loaded.PredictDense(ds.DenseRow(i)) == saved.PredictDense(ds.DenseRow(i))
		}
		fmt.Printf("%s (bits %d): %d features, labels %v, same predictions: %v\n",
			info.Kind, info.Bits, info.NumFeatures, info.Labels, same)
	}
	// Output:
	// linear (bits 0): 13 features, labels [1 -1], same predictions: true
	// qlinear (bits 8): 13 features, labels [1 -1], same predictions: true
}

// Publish versions into a directory while a watcher follows it: a reader
// calls Current for each prediction and gets the newest valid version,
// swapped in atomically (the daemon publishes; C, C++ and Python clients
// watch through svmgo_model_watch, which is this watcher).
func ExampleWatch() {
	m, ds := train()
	dir, err := os.MkdirTemp("", "modeldir-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := modeldir.Watch(dir, modeldir.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	fmt.Println("before any publication:", w.Current() == nil)

	for range 2 {
		v, err := modeldir.Publish(dir, m) // model-1.svmgo, then model-2.svmgo
		if err != nil {
			log.Fatal(err)
		}
		// The watcher swaps the new version in shortly after the rename.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if cur := w.Current(); cur != nil && cur.Version == v {
				break
			}
			if time.Now().After(deadline) {
				log.Fatalf("version %d not seen", v)
			}
		}
		cur := w.Current()
		fmt.Printf("serving %s: row 0 predicted %v\n", filepath.Base(cur.Path), cur.Model.PredictDense(ds.DenseRow(0)))
	}
	// Output:
	// before any publication: true
	// serving model-1.svmgo: row 0 predicted 1
	// serving model-2.svmgo: row 0 predicted 1
}
