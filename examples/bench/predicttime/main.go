// Command predicttime times svmgo's kernel prediction in process, split
// into its parts, so that examples/bench/predict.sh can set it beside
// svm-predict and beside LIBSVM's svm_predict timed in process
// (svmpredicttime.c).
//
// Usage:
//
//	predicttime [-repeat 5] [-workers 0] [-out labels.txt] [-cpuprofile file] [-peak] test_file model_file...
//
// Each model_file is a kernel model file, float (kernel) or int8/int16
// quantized (qkernel), or a LIBSVM text model (svm-train's output,
// imported as svmgo import reads it). For the test file it measures, with
// the monotonic clock:
//
//   - parse: data.ReadFile of test_file (once);
//   - load: reading each model file (once);
//   - predict: PredictBatchParallel over every row with -workers goroutines
//     (0: every CPU), repeated -repeat times after one untimed call, the
//     models in turn in each round; the median is reported, with rows per second and, for float models, the
//     kernel evaluation's GFLOP/s counted as 2·rows·SVs·features (the dot
//     products; exp and the pair sums are not counted).
//
// With -export-libsvm it writes an svmgo kernel model file as a LIBSVM text
// model instead (predicttime -export-libsvm model.svmgo model.libsvm), so
// that svm-predict can predict with the model svmgo trained.
//
// -peak first measures one core's float32 peak (16-lane FMAs in
// independent chains, per CPU second) and prints peak_gflops_per_core=;
// on AVX-512 VNNI CPUs also the integer multiply-add peaks the quantized
// kernel products run on, in products a second beside the FMA's
// (peak_fp32_gmacs_per_core=, peak_int16_gmacs_per_core= for VPDPWSSD,
// peak_int8_gmacs_per_core= for VPDPBUSD).
//
// With -peak each timed round also takes a short peak sample first, and a
// float model's line adds pct_of_peak=, the median over the rounds of its
// GFLOP/s per CPU second against that round's sample, and
// peak_round_gflops=, the samples' median, and pct_of_peak_lo= and
// pct_of_peak_hi=, the lowest and highest round: the spread a table quotes
// beside the median. The share moves less than one
// against the peak measured once at the start: the core's clock follows
// the host's load (this 2-vCPU VM: 2.9–3.3 GHz by a dependent-add probe,
// the FMA peak 172–188 GFLOP/s from run to run), and so does the product.
//
// It prints one line of key=value fields per model, and checks that every
// model gives the same labels as the first (a difference is reported as
// differ=N, not an error: quantized models may differ). -out writes the
// first model's predictions, one a line.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/simd"
	"github.com/libsvmgo/libsvmgo/core/textmodel"
	_ "github.com/libsvmgo/libsvmgo/quantize" // the quantized kinds' codecs
)

// batchModel is what both kernel model kinds offer.
type batchModel interface {
	PredictBatchParallel(dst []float64, ds *data.Dataset, workers int) []float64
}

func main() {
	repeat := flag.Int("repeat", 5, "timed predict calls; the median is reported")
	workers := flag.Int("workers", 0, "goroutines of the batch call (0: every CPU)")
	out := flag.String("out", "", "file for the first model's predictions")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	peak := flag.Bool("peak", false, "also measure one core's float32 FMA peak (AVX-512, amd64)")
	export := flag.Bool("export-libsvm", false, "write the svmgo kernel model file ARG1 as a LIBSVM text model at ARG2, and exit")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: predicttime [-repeat 5] [-workers 0] [-out labels.txt] [-cpuprofile file] [-peak] test_file model_file...\n       predicttime -export-libsvm svmgo_model libsvm_model_out")
	}
	flag.Parse()
	if *export {
		if flag.NArg() != 2 {
			flag.Usage()
			os.Exit(2)
		}
		if err := exportLIBSVM(flag.Arg(0), flag.Arg(1)); err != nil {
			fmt.Fprintln(os.Stderr, "predicttime:", err)
			os.Exit(1)
		}
		return
	}
	if *peak {
		if g, ok := peakGFLOPS(); ok {
			fmt.Printf("peak_gflops_per_core=%.1f\n", g)
			if i16, i8, ok := peakIntGMACs(); ok {
				// Products a second, against the float32 FMA's g/2.
				fmt.Printf("peak_fp32_gmacs_per_core=%.1f peak_int16_gmacs_per_core=%.1f peak_int8_gmacs_per_core=%.1f\n", g/2, i16, i8)
			}
		}
	}
	if flag.NArg() < 2 || *repeat < 1 || *workers < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "predicttime:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "predicttime:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(flag.Arg(0), flag.Args()[1:], *repeat, *workers, *out, *peak); err != nil {
		fmt.Fprintln(os.Stderr, "predicttime:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(testFile string, models []string, repeat, workers int, out string, peak bool) error {
	t0 := time.Now()
	ds, err := data.ReadFile(testFile, data.ReadOptions{})
	if err != nil {
		return err
	}
	parse := time.Since(t0)
	fmt.Printf("test=%s rows=%d parse_ms=%.1f simd=%q\n", testFile, ds.Len(), ms(parse), simd.Info())
	type entry struct {
		path, kind string
		m          batchModel
		flops      float64
		load       time.Duration
		times      []float64
		cpu        []float64
		pct        []float64 // -peak: GFLOP/s per CPU second / the round's peak sample
		dst        []float64
	}
	var es []*entry
	for _, path := range models {
		t1 := time.Now()
		m, kind, flops, err := load(path)
		if err != nil {
			return err
		}
		e := &entry{path: path, kind: kind, m: m, flops: flops, load: time.Since(t1), dst: make([]float64, ds.Len())}
		m.PredictBatchParallel(e.dst, ds, workers) // warm: pools, pages
		es = append(es, e)
	}
	// Rounds time the models in turn, so that a change of load hits all alike.
	var peaks []float64
	for range repeat {
		p := 0.0
		if peak {
			p = peakSample()
			peaks = append(peaks, p)
		}
		for _, e := range es {
			c := cpuSeconds()
			t := time.Now()
			e.m.PredictBatchParallel(e.dst, ds, workers)
			e.times = append(e.times, time.Since(t).Seconds())
			e.cpu = append(e.cpu, cpuSeconds()-c)
			if d := e.cpu[len(e.cpu)-1]; p > 0 && e.flops > 0 && d > 0 {
				e.pct = append(e.pct, e.flops*float64(ds.Len())/d/1e9/p)
			}
		}
	}
	for k, e := range es {
		slices.Sort(e.times)
		slices.Sort(e.cpu)
		med, cpu := e.times[len(e.times)/2], e.cpu[len(e.cpu)/2]
		line := fmt.Sprintf("model=%s kind=%s load_ms=%.1f predict_ms=%.2f cpu_ms=%.2f rows_per_s=%.0f acc=%.4f",
			e.path, e.kind, ms(e.load), med*1e3, cpu*1e3, float64(ds.Len())/med, accuracy(e.dst, ds.Labels()))
		if e.flops > 0 {
			// Per CPU second: with one worker, what a core does unshared.
			line += fmt.Sprintf(" gflops=%.1f gflops_per_cpu_s=%.1f", e.flops*float64(ds.Len())/med/1e9, e.flops*float64(ds.Len())/cpu/1e9)
			if len(e.pct) > 0 {
				slices.Sort(e.pct)
				slices.Sort(peaks)
				line += fmt.Sprintf(" pct_of_peak=%.1f pct_of_peak_lo=%.1f pct_of_peak_hi=%.1f peak_round_gflops=%.1f",
					100*e.pct[len(e.pct)/2], 100*e.pct[0], 100*e.pct[len(e.pct)-1], peaks[len(peaks)/2])
			}
		}
		if k > 0 {
			differ := 0
			for i := range e.dst {
				if e.dst[i] != es[0].dst[i] {
					differ++
				}
			}
			line += fmt.Sprintf(" differ=%d", differ)
		}
		fmt.Println(line)
	}
	if out != "" {
		return writeLines(out, es[0].dst)
	}
	return nil
}

// load reads a model file and returns it with its kind and the FLOPs of
// one row's dot products (0 for quantized models).
func load(path string) (batchModel, string, float64, error) {
	m, err := modelfile.ReadFile(path)
	if errors.Is(err, modelfile.ErrNotModel) {
		// Not an svmgo model file: a LIBSVM text model.
		f, ferr := os.Open(path)
		if ferr != nil {
			return nil, "", 0, ferr
		}
		defer f.Close()
		m, lerr := textmodel.ReadLIBSVMModel(f, path)
		if lerr != nil {
			return nil, "", 0, errors.Join(err, lerr)
		}
		return m, "libsvm-text", 2 * float64(m.SV.Len()*m.NumFeatures), nil
	}
	if err != nil {
		return nil, "", 0, err
	}
	info := m.Info()
	bm, ok := m.(batchModel)
	if !info.Kernel || !ok {
		return nil, "", 0, fmt.Errorf("%s: a %s model, want a kernel model", path, info.Kind)
	}
	if info.Bits != 0 {
		return bm, fmt.Sprintf("%s-int%d", info.Kind, info.Bits), 0, nil
	}
	flops := 0.0
	if km, ok := m.(*core.KernelModel); ok {
		flops = 2 * float64(km.SV.Len()*km.NumFeatures)
	}
	return bm, info.Kind, flops, nil
}

func accuracy(pred, truth []float64) float64 {
	ok := 0
	for i := range pred {
		if pred[i] == truth[i] {
			ok++
		}
	}
	return float64(ok) / float64(max(len(pred), 1))
}

func writeLines(path string, v []float64) error {
	var b strings.Builder
	for _, x := range v {
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// cpuSeconds returns the process's user + system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }
