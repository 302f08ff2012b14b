package modelfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// TestReadBytesFIFO (issue 10, fault 1): a FIFO named like a model file,
// with no writer, is refused at once as not a regular file; opening it
// for reading without O_NONBLOCK would block for ever.
func TestReadBytesFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	path := filepath.Join(t.TempDir(), "model-2.svmgo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readFile(path)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, fileio.ErrNotRegular) {
			t.Errorf("ReadFile of a FIFO: %v, want fileio.ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the reader so the test binary can end.
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("ReadFile of a FIFO blocked")
	}
}

// TestReadBytesHugeNonModel (issue 10, fault 6): a large file that is not a
// model is refused after its frame is read, without reading (or
// allocating) the rest; a model frame that claims less or more than the
// file holds is refused before its payload is read.
func TestReadBytesHugeNonModel(t *testing.T) {
	dir := t.TempDir()
	// A sparse file of 1 GiB of zeros costs no disk.
	zeros := filepath.Join(dir, "model-1.svmgo")
	f, err := os.Create(zeros)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	if _, err := ReadBytes(zeros); !errors.Is(err, ErrNotModel) {
		t.Errorf("1 GiB of zeros: %v, want ErrNotModel", err)
	}
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > 1<<20 {
		t.Errorf("refusing 1 GiB of zeros allocated %d bytes", got)
	}

	// A valid frame whose payload length disagrees with the file's size.
	valid := marshal(t, testModels()[0].m)
	long := filepath.Join(dir, "long.svmgo")
	if err := os.WriteFile(long, valid, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(long, 1<<30); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	before = ms.TotalAlloc
	if _, err := ReadBytes(long); !errors.Is(err, ErrCorrupt) {
		t.Errorf("model followed by 1 GiB of zeros: %v, want ErrCorrupt", err)
	}
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; got > 1<<20 {
		t.Errorf("refusing a model with 1 GiB after it allocated %d bytes", got)
	}
	short := filepath.Join(dir, "short.svmgo")
	if err := os.WriteFile(short, valid[:len(valid)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBytes(short); !errors.Is(err, ErrTruncated) {
		t.Errorf("model one byte short: %v, want ErrTruncated", err)
	}
	tiny := filepath.Join(dir, "tiny.svmgo")
	if err := os.WriteFile(tiny, valid[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBytes(tiny); !errors.Is(err, ErrTruncated) {
		t.Errorf("10 bytes of a model: %v, want ErrTruncated", err)
	}
	ok := filepath.Join(dir, "ok.svmgo")
	if err := os.WriteFile(ok, valid, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadBytes(ok); err != nil || string(got) != string(valid) {
		t.Errorf("valid model: %v", err)
	}
}

// TestKernelManyLabelsRefusedByCounts (issue 10, "also"): a kernel model
// file declaring 65536 labels (about 0.5 MB) whose ρ count does not match
// is refused by its counts, before any per-label work: the error names ρ,
// not the label repeated at the end, which a quadratic label check took a
// second to find.
func TestKernelManyLabelsRefusedByCounts(t *testing.T) {
	base := newKernelModel(t, core.CSVC, core.Kernel{Type: core.RBFKernel, Gamma: 0.5},
		[]int32{1, 2}, []int32{1, 1}, 3, 1, true, false, 1)
	bd, err := toKernelBody(base)
	if err != nil {
		t.Fatal(err)
	}
	const nr = maxClasses
	labels := make([]int32, nr)
	nsv := make([]int32, nr)
	for i := range labels {
		labels[i] = int32(i)
	}
	labels[nr-1] = 0 // repeated, at the end
	nsv[0] = int32(base.SV.Len())
	bd.Labels, bd.NumSV = putInt32s(labels), putInt32s(nsv)
	bd.Coef = make([]byte, 8*(nr-1)*base.SV.Len())
	b := kernelReframe(t, bd)
	_, err = UnmarshalKernel(b)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "rho") {
		t.Errorf("%d-byte file with %d labels: %v, want ErrCorrupt naming the rho count", len(b), nr, err)
	}
}
