// Command smotime times svmgo's kernel training in-process, the Go
// counterpart of examples/bench/smotime.c (LIBSVM's svm_train through
// libsvm-dev), for data sets whose runs are too short for a process
// timing:
//
//	smotime [svm-train options] FILE
//
// It reads FILE, builds one trainer, trains repeatedly until at least one
// second of CPU time (user+sys of the process, so pin it to one core for a
// per-core figure) has passed, and prints "ns_per_train runs nSV".
package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/options"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) * 1e-9
}

func main() {
	opts, files, err := options.ParseKernel(os.Args[1:])
	if err != nil || len(files) != 1 {
		fmt.Fprintln(os.Stderr, "usage: smotime [svm-train options] FILE", err)
		os.Exit(2)
	}
	ds, err := data.ReadFile(files[0], data.ReadOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "smotime:", err)
		os.Exit(1)
	}
	t, err := core.NewKernelTrainer(opts.Params, ds.Len(), ds.NumFeatures())
	if err != nil {
		fmt.Fprintln(os.Stderr, "smotime:", err)
		os.Exit(1)
	}
	runs, nSV := 0, 0
	t0 := cpuSeconds()
	var el float64
	for el < 1 {
		m, _, err := t.Train(ds, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "smotime:", err)
			os.Exit(1)
		}
		nSV = m.SV.Len()
		runs++
		el = cpuSeconds() - t0
	}
	fmt.Printf("%.0f %d %d\n", el/float64(runs)*1e9, runs, nSV)
}
