package modeldir

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	// The quantized kinds' codecs: a watcher serves every kind.
	_ "github.com/libsvmgo/libsvmgo/quantize"
)

const (
	filePrefix = "model-"
	fileSuffix = ".svmgo"
	// onnxSuffix names an ONNX-ML file dropped into a directory by
	// another pipeline (skl2onnx, svmgo export --format onnx): the opener
	// reads it by content, so the watcher serves it as a version too.
	onnxSuffix = ".onnx"
)

// FileName returns the name a published model of the given version has:
// "model-<version>.svmgo", the version in decimal without leading zeros.
func FileName(version uint64) string {
	return filePrefix + strconv.FormatUint(version, 10) + fileSuffix
}

// ParseFileName returns the version of a published model file name (a base
// name, not a path): "model-<version>.svmgo", or "model-<version>.onnx"
// for an ONNX-ML file dropped in (the watcher serves both; when both names
// of one version exist, the .svmgo one). It returns ok=false for any other
// name: temporary files, dot-files, "*.tmp", other extensions, and
// versions that are not canonical decimals (signs, leading zeros,
// overflow), so that each version has one name per extension and
// FileName(v) round-trips.
func ParseFileName(name string) (version uint64, ok bool) {
	digits, found := strings.CutPrefix(name, filePrefix)
	if !found {
		return 0, false
	}
	if d, onnx := strings.CutSuffix(digits, onnxSuffix); onnx {
		digits = d
	} else {
		digits, found = strings.CutSuffix(digits, fileSuffix)
	}
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

// HighestVersion returns the highest version published in dir on fsys (the
// highest "model-<v>.svmgo" name, whether or not the file is a valid
// model), and found=false when there is none.
func HighestVersion(fsys fileio.FS, dir string) (highest uint64, found bool, err error) {
	entries, err := fsys.ReadDir(dir)
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

// Publish writes m, a model of any kind, into dir as the next version: one
// above the highest "model-<v>.svmgo" present (whether or not that file is
// a valid model), 1 when there is none. It returns the version written.
// One directory may hold versions of every kind (a publisher may switch
// kinds); watchers load them all unless Options.LinearOnly is set.
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
// A float model whose Created is 0 is written with the time of publishing;
// m itself is not modified. A quantized model records its float model's
// creation time, which cannot change after quantizing, so a publisher sets
// the float model's Created before quantizing it (svmgo watch does). An
// error after the final name exists (syncing the directory) is returned
// with the version, the file complete but not known durable.
func Publish(dir string, m core.Model) (uint64, error) {
	data, err := modelfile.Encode(stamped(m, time.Now().Unix()))
	if err != nil {
		return 0, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	return PublishEncoded(fileio.OS, dir, data, 0)
}

// stamped returns m, or for a model without a creation time a copy with
// created set (core.WithCreated: the kinds that record one after training).
func stamped(m core.Model, created int64) core.Model {
	if v := reflect.ValueOf(m); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() || m.Info().Created != 0 {
		return m
	}
	return core.WithCreated(m, created)
}

// PublishEncoded publishes data, a model file modelfile.Encode made, into dir on
// the file system fsys as Publish does, as a version above both the
// highest one in dir and after: a publisher that recorded the versions it
// gave out (the daemon, in its store) passes the last, so that the
// sequence never goes back when the directory lost its files. A caller
// that encodes first learns of a model that cannot be written before it
// commits to publishing it.
func PublishEncoded(fsys fileio.FS, dir string, data []byte, after uint64) (uint64, error) {
	v, _, err := PublishEncodedKeep(fsys, dir, data, after, 0)
	return v, err
}

// PublishEncodedKeep is PublishEncoded followed by Retain(keep) (keep 0:
// no retention), at one listing and one sync of dir where PublishEncoded
// then Retain take two of each: the versions retention removes are
// unlinked before the directory sync that makes the new name durable.
// That is safe because a removal needs no sync of its own (a crash that
// undoes one leaves an old version the next retention removes) and none
// of them is the newest version dir held before: should the crash keep
// the removals and lose the new name, that version still serves. With
// keep 1 the newest before is removed too, so it goes after the sync (and
// a second one, as Retain does). It returns the version written and the
// versions removed; an error after the final name exists is returned with
// the version, as PublishEncoded's is.
func PublishEncodedKeep(fsys fileio.FS, dir string, data []byte, after uint64, keep int) (uint64, []uint64, error) {
	tmp, err := fileio.WriteTempFS(fsys, dir, publishBase, data)
	if err != nil {
		return 0, nil, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	// The temporary name is ignored by watchers, so a failure to remove it
	// leaves only a stray file; the link (or rename) below is what matters.
	defer fsys.Remove(tmp)

	for {
		entries, err := fsys.ReadDir(dir)
		if err != nil {
			return 0, nil, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
		}
		versions := publishedVersions(entries)
		highest := after
		if len(versions) > 0 {
			highest = max(highest, versions[0].v)
		}
		if highest == ^uint64(0) {
			return 0, nil, fmt.Errorf("modeldir: publish in %s: version %d is the highest possible", dir, highest)
		}
		next := highest + 1
		err = name(fsys, dir, tmp, next)
		if errors.Is(err, os.ErrExist) {
			continue // another publisher took this version first
		}
		if err != nil {
			return 0, nil, err
		}
		// Retention counts the new version as the newest: versions[keep-1:]
		// go, all but the newest of them before the sync.
		var removed []uint64
		var rerr error
		if keep >= 2 && len(versions) >= keep {
			removed, rerr = removeVersions(fsys, dir, versions[keep-1:])
		}
		if err := fileio.SyncDirFS(fsys, dir); err != nil {
			return next, removed, fmt.Errorf("modeldir: publish %s: sync directory: %w", filepath.Join(dir, FileName(next)), err)
		}
		if rerr != nil {
			return next, removed, rerr
		}
		if keep == 1 {
			removed, err = Retain(fsys, dir, 1)
		}
		return next, removed, err
	}
}

// name gives the synced temporary file tmp in dir the final name of
// version, by a hard link that fails with os.ErrExist (unwrapped) when the
// name is taken, or on a file system without hard links (some FAT-like
// ones) by a rename, which replaces silently.
func name(fsys fileio.FS, dir, tmp string, version uint64) error {
	final := filepath.Join(dir, FileName(version))
	err := fsys.Link(tmp, final)
	if err == nil || errors.Is(err, os.ErrExist) {
		return err
	}
	if rerr := fsys.Rename(tmp, final); rerr != nil {
		return fmt.Errorf("modeldir: publish %s: %w", final, rerr)
	}
	return nil
}

// PublishVersion publishes data, a model file, into dir on fsys under the
// name of the given version, as PublishEncoded does (a temporary file
// synced, its final name taken by a hard link, the directory synced): for
// a mirror of another publisher's versions (svmgo follow), which names
// each file by the version its publisher gave it. It returns an error
// wrapping os.ErrExist, and leaves dir as it was, when that version is
// there already.
func PublishVersion(fsys fileio.FS, dir string, data []byte, version uint64) error {
	tmp, err := fileio.WriteTempFS(fsys, dir, publishBase, data)
	if err != nil {
		return fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	defer fsys.Remove(tmp)
	return PublishTempVersion(fsys, dir, tmp, version)
}

// CreateTemp creates a temporary file in dir on fsys named as Publish's
// (IsPublishTemp: watchers ignore it, RemoveStaleTemps removes it after a
// crash), open for writing, for a publisher that streams a model file
// into it and then names it with PublishTempVersion; the caller removes
// it in any case (harmless once named).
func CreateTemp(fsys fileio.FS, dir string) (fileio.File, error) {
	f, err := fileio.CreateTempFS(fsys, dir, publishBase)
	if err != nil {
		return nil, fmt.Errorf("modeldir: publish in %s: %w", dir, err)
	}
	return f, nil
}

// PublishTempVersion is PublishVersion for a model file already written,
// synced and closed as tmp, a CreateTemp file in dir: it gives tmp the
// name of version and syncs dir, or returns an error wrapping os.ErrExist
// when that version is there already.
func PublishTempVersion(fsys fileio.FS, dir, tmp string, version uint64) error {
	if err := name(fsys, dir, tmp, version); err != nil {
		return fmt.Errorf("modeldir: publish version %d in %s: %w", version, dir, err)
	}
	if err := fileio.SyncDirFS(fsys, dir); err != nil {
		return fmt.Errorf("modeldir: publish version %d in %s: sync directory: %w", version, dir, err)
	}
	return nil
}

// Retain removes from dir on fsys all but the newest keep published models
// (keep >= 1: the newest is never removed) and syncs the directory when it
// removed any. Files that are not published models are left alone. It
// returns the versions removed.
func Retain(fsys fileio.FS, dir string, keep int) (removed []uint64, err error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	versions := publishedVersions(entries)
	if len(versions) <= max(keep, 1) {
		return nil, nil
	}
	removed, err = removeVersions(fsys, dir, versions[max(keep, 1):])
	if err != nil {
		return removed, err
	}
	return removed, fileio.SyncDirFS(fsys, dir)
}

// version is a published model file of a directory: its version and its
// own name (model-<v>.svmgo or model-<v>.onnx).
type version struct {
	v    uint64
	name string
}

// publishedVersions returns the published model files among entries,
// newest first.
func publishedVersions(entries []os.DirEntry) []version {
	var versions []version
	for _, e := range entries {
		if v, ok := ParseFileName(e.Name()); ok {
			versions = append(versions, version{v, e.Name()})
		}
	}
	slices.SortFunc(versions, func(a, b version) int { return cmp.Compare(b.v, a.v) })
	return versions
}

// removeVersions removes the files of versions from dir, unsynced, and
// returns the versions removed (one already gone counts as removed).
func removeVersions(fsys fileio.FS, dir string, versions []version) (removed []uint64, err error) {
	for _, ver := range versions {
		if err := fsys.Remove(filepath.Join(dir, ver.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, ver.v)
	}
	return removed, nil
}
