// Package modeldir is a directory of versioned model files: atomic publishing
// and a watcher that follows the newest valid version (DESIGN.md §6).
//
// A published model is named "model-<version>.svmgo" with a decimal version
// that strictly increases. Publish (linear models), PublishKernel (kernel
// models) and PublishQuantized (package quantize's int8 and int16 models)
// write a temporary dot-file ending in ".tmp", sync it, give it its final
// name and sync the directory, so a reader sees either no file or a
// complete one. Watch loads the newest valid version, of any kind, and then
// follows the directory with fsnotify, swapping each newer valid version in
// with one atomic pointer store; a version that fails to load is logged and
// skipped while the current model keeps serving. Loaded holds the model in
// the field of its kind; a caller that serves linear float models only sets
// Options.LinearOnly.
package modeldir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

const (
	filePrefix = "model-"
	fileSuffix = ".svmgo"
)

// FileName returns the name a published model of the given version has:
// "model-<version>.svmgo", the version in decimal without leading zeros.
func FileName(version uint64) string {
	return filePrefix + strconv.FormatUint(version, 10) + fileSuffix
}

// ParseFileName returns the version of a published model file name (a base
// name, not a path), and ok=false for any other name: temporary files,
// dot-files, "*.tmp", other extensions, and versions that are not canonical
// decimals (signs, leading zeros, overflow), so that each version has exactly
// one name and FileName(v) round-trips.
func ParseFileName(name string) (version uint64, ok bool) {
	digits, found := strings.CutPrefix(name, filePrefix)
	if !found {
		return 0, false
	}
	digits, found = strings.CutSuffix(digits, fileSuffix)
	if !found || len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	// Base 10 refuses signs, underscores and overflow.
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// highestVersion returns the highest version published in dir, and
// found=false when there is none.
func highestVersion(dir string) (highest uint64, found bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false, err
	}
	for _, e := range entries {
		if v, ok := ParseFileName(e.Name()); ok && (!found || v > highest) {
			highest, found = v, true
		}
	}
	return highest, found, nil
}

// Publish writes m into dir as the next version: one above the highest
// "model-<v>.svmgo" present (whether or not that file is a valid model), 1
// when there is none. It returns the version written.
//
// The model is written to a temporary ".model-*.tmp" file in dir, synced,
// then given its final name and the directory synced (DESIGN.md §6), so a
// watcher never sees a partial file. The final name is taken with a hard
// link, which fails rather than replaces when the name exists: two
// publishers racing for the same version do not overwrite each other, the
// loser takes the next version. On a file system without hard links Publish
// falls back to a rename, and concurrent publishers to one directory must
// then be serialised by the caller.
//
// When m.Created is 0 the file records the time of publishing; m itself is
// not modified. An error after the final name exists (syncing the directory)
// is returned with the version, the file complete but not known durable.
func Publish(dir string, m *core.LinearModel) (uint64, error) {
	if m.Created == 0 {
		stamped := *m // shallow: the slices are shared, read only
		stamped.Created = time.Now().Unix()
		m = &stamped
	}
	data, err := modelfile.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	return publishBytes(dir, data)
}

// PublishKernel is Publish for a kernel model: the same versioning, the
// same atomic steps, the same errors, and the same version sequence, so a
// directory may hold both kinds (a publisher may switch kinds). Watchers
// load kernel versions unless their Options.LinearOnly is set.
func PublishKernel(dir string, m *core.KernelModel) (uint64, error) {
	if m.Created == 0 {
		m = stampedKernel(m, time.Now().Unix())
	}
	data, err := modelfile.MarshalKernel(m)
	if err != nil {
		return 0, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	return publishBytes(dir, data)
}

// PublishQuantized is Publish for a quantized model (a *quantize.Linear or
// a *quantize.Kernel, file format 1.2): the same versioning, atomic steps,
// errors and version sequence, so one directory may hold float and
// quantized versions alike. Watchers load them unless their
// Options.LinearOnly is set.
//
// Unlike Publish it does not stamp a creation time: a quantized model
// records its float model's (quantize.Model.Created), which cannot change
// after quantizing, so a publisher sets the float model's Created before
// quantizing it (svmgo watch does).
func PublishQuantized(dir string, m quantize.Model) (uint64, error) {
	data, err := quantize.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	return publishBytes(dir, data)
}

// stampedKernel returns a copy of m with its creation time set. Only the
// exported fields are copied (a KernelModel's prediction tables are
// unexported and built by Init), which is all marshalling reads; the
// slices and support vectors are shared, read only.
func stampedKernel(m *core.KernelModel, created int64) *core.KernelModel {
	return &core.KernelModel{
		SVMType: m.SVMType, Kernel: m.Kernel, NumFeatures: m.NumFeatures,
		Labels: m.Labels, NumSV: m.NumSV, SV: m.SV, Coef: m.Coef, Rho: m.Rho,
		ProbA: m.ProbA, ProbB: m.ProbB, Params: m.Params, Result: m.Result,
		Created: created,
	}
}

// publishBytes gives the model file data the next version in dir (see
// Publish).
func publishBytes(dir string, data []byte) (uint64, error) {
	tmp, err := fileio.WriteTemp(dir, "model", data)
	if err != nil {
		return 0, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	// The temporary name is ignored by watchers, so a failure to remove it
	// leaves only a stray file; the link (or rename) below is what matters.
	defer os.Remove(tmp)

	for {
		highest, found, err := highestVersion(dir)
		if err != nil {
			return 0, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
		}
		next := uint64(1)
		if found {
			if highest == ^uint64(0) {
				return 0, fmt.Errorf("modeldir: publish in %s: version %d is the highest possible", dir, highest)
			}
			next = highest + 1
		}
		final := filepath.Join(dir, FileName(next))
		err = os.Link(tmp, final)
		if errors.Is(err, os.ErrExist) {
			continue // another publisher took this version first
		}
		if err != nil {
			// No hard links here (some FAT-like file systems): rename, which
			// replaces silently, so the no-clobber guarantee is lost.
			if rerr := os.Rename(tmp, final); rerr != nil {
				return 0, fmt.Errorf("modeldir: publish %s: %w", final, rerr)
			}
		}
		if err := fileio.SyncDir(dir); err != nil {
			return next, fmt.Errorf("modeldir: publish %s: sync directory: %w", final, err)
		}
		return next, nil
	}
}
