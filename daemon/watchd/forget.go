package watchd

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// Forgetting: rows leave the store by request (a file in forget/ naming
// ingested batches by their hash) or by policy (Config.Store.Window and
// MaxAge); either way the daemon retrains warm from the α of the rows that
// remain and publishes the model without them.
//
// A forget request is a regular file renamed into forget/ (temporary names
// are ignored, as in incoming/). Each non-empty line names one batch by
// the SHA-256 of its file's bytes, 64 hexadecimal digits, optionally
// followed by white space and anything (so `sha256sum batch.txt` output
// works as is); '#' starts a comment line. An empty file names the batch
// by its own name instead: forget/HASH, or forget/HASH.anything. A request
// naming a hash that was never ingested, or malformed, moves to rejected/
// with a reason file and forgets nothing (a producer renames a batch into
// incoming/ before a request that names it: while incoming/ holds files, a
// request naming an unknown hash waits for them). Otherwise the named batches'
// rows leave the store (store.Forget), the store is committed with a model
// retrained without them, and then the request is removed: a crash before
// the removal repeats the request, which finds the batches forgotten and
// removes nothing twice. A forgotten batch stays recorded: the same file
// dropped into incoming/ again is a duplicate.

// maxForgetBytes bounds a forget request's file: over ten thousand
// sha256sum lines.
const maxForgetBytes = 1 << 20

// listDir returns the names in dir that are not temporary names, sorted.
func (d *Daemon) listDir(dir string) ([]string, error) {
	entries, err := d.fs.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("watchd: scan %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !isTempName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// drainForget applies the forget requests in forget/, in name order.
func (d *Daemon) drainForget() error {
	names, err := d.listDir(d.forget)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := d.forgetRequest(name); err != nil {
			return err
		}
	}
	return nil
}

// forgetRequest applies the forget request forget/name; only runtime
// failures are returned, a bad request is rejected.
func (d *Daemon) forgetRequest(name string) error {
	path := filepath.Join(d.forget, name)
	fi, err := d.fs.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("watchd: %w", err)
	case !fi.Mode().IsRegular():
		return d.rejectFrom(d.forget, name, reject("%s: %v: not read (a forget request is a regular file renamed into %s/)",
			shown(name), d.special(path, fi.Mode()), ForgetDir))
	}
	raw, err := d.readBatch(path, maxForgetBytes)
	var sp *specialFile
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case errors.As(err, &sp):
		return d.rejectFrom(d.forget, name, reject("%s: %v: not read", name, sp))
	case err != nil && isResourceFault(err):
		return fmt.Errorf("watchd: read %s: %w", name, err)
	case err != nil:
		return d.rejectFrom(d.forget, name, reject("%s: %v", name, err))
	case len(raw) > maxForgetBytes:
		return d.rejectFrom(d.forget, name, reject("%s: more than the limit of %d bytes", name, maxForgetBytes))
	}
	hashes, err := parseForget(name, raw)
	if err != nil {
		return d.rejectFrom(d.forget, name, err)
	}
	for _, h := range hashes {
		if d.st.Has(h) {
			continue
		}
		// The batch may have been renamed into incoming/ after the last
		// scan: the request waits for the pass that takes it (its event
		// starts one). Only with incoming/ empty is it refused.
		if pending, err := d.listDir(d.incoming); err != nil || len(pending) > 0 {
			d.log.Info("forget request waits for incoming batches", "request", name, "sha256", fmt.Sprintf("%x", h[:8]))
			return err
		}
		return d.rejectFrom(d.forget, name, reject("%s: no batch with SHA-256 %x was ingested", name, h))
	}
	batches, rows := 0, 0
	for _, h := range hashes {
		if d.st.Forgotten(h) {
			continue // forgotten by this request before a crash, or by another
		}
		n, err := d.st.Forget(h)
		if err != nil {
			return fmt.Errorf("watchd: forget %x: %w", h[:8], err) // Has checked it
		}
		batches++
		rows += n
	}
	if batches > 0 {
		// Counted now: a storage fault in what follows retries the
		// request, which then finds the batches forgotten.
		d.metrics.batchesForgotten.Add(batches)
		d.metrics.rowsForgotten.Add(rows)
		d.log.Info("batches forgotten", "request", name, "batches", batches, "rows", rows,
			"samples", d.st.Len(), "generation", d.st.Generation())
		if err := d.rowsRemoved(name, rows); err != nil {
			return err
		}
	}
	if err := d.removeRequest(d.forget, name); err != nil {
		return fmt.Errorf("watchd: remove forget request %s: %w", name, err)
	}
	return nil
}

// rowsRemoved retrains and publishes after rows left the store (why names
// the cause in the logs), or only commits the store when none did (a
// forgotten batch whose rows were gone already).
func (d *Daemon) rowsRemoved(why string, rows int) error {
	d.metrics.samples.Set(float64(d.st.Len()))
	d.metrics.storeGeneration.Set(float64(d.st.Generation()))
	if rows == 0 {
		return d.commit()
	}
	// The kernel gradient follows the rows that are gone; α and w start
	// the run.
	d.followRemovals()
	return d.retrainAndPublish(nil, why)
}

// expire removes the rows outside the window or older than the maximum
// age (store.Expire), and retrains without them.
func (d *Daemon) expire(now time.Time) error {
	rows, err := d.st.Expire(now)
	if err != nil {
		return fmt.Errorf("watchd: expire rows: %w", err)
	}
	if rows == 0 {
		return nil
	}
	d.log.Info("rows expired", "rows", rows, "samples", d.st.Len(), "generation", d.st.Generation())
	d.metrics.rowsExpired.Add(rows)
	return d.rowsRemoved("expiry", rows)
}

// removeRequest removes the applied request dir/name and makes the removal
// durable, so that a crash after it does not bring the request back.
// (Applied twice, a request would forget nothing more; this saves the
// retrain a restart would otherwise find nothing to do for.)
func (d *Daemon) removeRequest(dir, name string) error {
	if err := d.fs.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return fileio.SyncDirFS(d.fs, dir)
}

// parseForget returns the hashes a forget request names (see the top of
// this file), or the *rejection that says which line is wrong.
func parseForget(name string, raw []byte) ([]store.Hash, error) {
	var hashes []store.Hash
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, maxForgetBytes)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		field, _, _ := strings.Cut(text, " ")
		field, _, _ = strings.Cut(field, "\t")
		h, ok := parseHash(field)
		if !ok {
			return nil, reject("%s:%d: %q is not a SHA-256 (64 hexadecimal digits)", name, line, field)
		}
		hashes = append(hashes, h)
	}
	if err := sc.Err(); err != nil {
		return nil, reject("%s: %v", name, err)
	}
	if len(hashes) > 0 {
		return hashes, nil
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		return nil, reject("%s: names no batch (only comments)", name)
	}
	base, _, _ := strings.Cut(name, ".")
	h, ok := parseHash(base)
	if !ok {
		return nil, reject("%s: empty, and its name does not start with a SHA-256 (64 hexadecimal digits)", name)
	}
	return []store.Hash{h}, nil
}

// parseHash parses 64 hexadecimal digits, either case.
func parseHash(s string) (store.Hash, bool) {
	var h store.Hash
	if len(s) != 2*len(h) {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}
