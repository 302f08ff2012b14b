package data

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParseLines times the LIBSVM line parser alone on fashion.test's
// lines held in memory, each parsed into one reused dense row (as ReadFile
// parses a dense file): no I/O, page faults or line splitting, so its
// ns/op follow the parser's code. It reports CPU ns a feature too (the
// process's CPU time over the loop), which holds better than wall time on a
// loaded machine.
func BenchmarkParseLines(b *testing.B) {
	dir := os.Getenv("SVMGO_DATA")
	if dir == "" {
		dir = "/root/.cache/libsvmgo"
	}
	buf, err := os.ReadFile(filepath.Join(dir, "fashion.test"))
	if err != nil {
		b.Skip(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf, []byte{'\n'}), []byte{'\n'})
	features := bytes.Count(buf, []byte{':'})
	for _, vector := range []bool{false, true} {
		name := "go"
		if vector {
			name = "vector"
			if !vectorFeatures() {
				b.Run(name, func(b *testing.B) { b.Skip("no vector feature loop on this machine") })
				continue
			}
		}
		b.Run(name, func(b *testing.B) {
			row := make([]float32, 784)
			p := lineParser{format: FormatLIBSVM, vector: vector}
			b.SetBytes(int64(len(buf)))
			cpu0 := processCPU(b)
			for b.Loop() {
				for _, line := range lines {
					p.row = row
					if _, _, perr := p.parse(line); perr != nil {
						b.Fatal(perr)
					}
					clear(row)
				}
			}
			cpu := processCPU(b) - cpu0
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(features), "cpu-ns/feature")
		})
	}
}
