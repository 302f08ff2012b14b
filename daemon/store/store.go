package store

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// Hash is the SHA-256 of a batch file's bytes, which identifies the batch
// for exactly-once ingestion.
type Hash [32]byte

// Policy chooses the rows Add evicts when a batch does not fit.
type Policy int

const (
	// EvictNonSVOldest, the default, evicts first the rows whose α is 0 in
	// every stored vector (they do not shape the model: non-support
	// vectors, of a linear or a kernel dual alike; for ε-SVR β = 0),
	// oldest first, then the oldest rows. A row whose α is unknown — added
	// since the last SetDual, or any row before the first
	// — counts as a support vector, so without a dual this policy is
	// EvictOldest.
	EvictNonSVOldest Policy = iota
	// EvictOldest evicts the oldest rows: lowest batch sequence number,
	// then lowest position within the batch.
	EvictOldest
)

// ParsePolicy returns the policy named s: "nonsv-oldest" or "oldest".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "nonsv-oldest":
		return EvictNonSVOldest, nil
	case "oldest":
		return EvictOldest, nil
	}
	return 0, fmt.Errorf("store: unknown eviction policy %q (want nonsv-oldest or oldest)", s)
}

// String returns the name ParsePolicy accepts.
func (p Policy) String() string {
	switch p {
	case EvictNonSVOldest:
		return "nonsv-oldest"
	case EvictOldest:
		return "oldest"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// Config sizes a store.
type Config struct {
	// Capacity is the number of rows held at most, > 0.
	Capacity int
	// CapacityNonzeros is the number of nonzero values held at most; 0
	// means Capacity*MaxFeatures (every row may be full).
	CapacityNonzeros int
	// MaxFeatures bounds the feature indices of a row (0..MaxFeatures-1),
	// > 0 and at most 2^31 (indices are int32).
	MaxFeatures int
	// Policy chooses the rows evicted when a batch does not fit; the zero
	// value is EvictNonSVOldest.
	Policy Policy
	// Window, when > 0, is a sliding window: the store keeps at most the
	// Window newest rows, the oldest leaving first whatever their α (Add
	// retires them before the Policy makes room; Expire after the window
	// shrank). 0 means Capacity. Not persisted: it applies from Open.
	Window int
	// MaxAge, when > 0, is how long a row stays: rows of a batch added
	// more than MaxAge ago leave at the next Expire (see Expire and
	// NextExpiry). 0 keeps rows until they are evicted or forgotten. Not
	// persisted.
	MaxAge time.Duration
}

// resolve checks c and fills in its defaults.
func (c Config) resolve() (Config, error) {
	switch {
	case c.Capacity <= 0:
		return c, fmt.Errorf("%w: capacity %d, want > 0", ErrConfig, c.Capacity)
	case c.MaxFeatures <= 0 || int64(c.MaxFeatures) > math.MaxInt32+1: // int64: on 32-bit int the bound itself overflows
		return c, fmt.Errorf("%w: max features %d, want 1..%d", ErrConfig, c.MaxFeatures, int64(math.MaxInt32+1))
	case c.CapacityNonzeros < 0:
		return c, fmt.Errorf("%w: nonzero capacity %d, want >= 0", ErrConfig, c.CapacityNonzeros)
	case c.Policy != EvictNonSVOldest && c.Policy != EvictOldest:
		return c, fmt.Errorf("%w: unknown policy %v", ErrConfig, c.Policy)
	case c.Window < 0:
		return c, fmt.Errorf("%w: window %d, want >= 0", ErrConfig, c.Window)
	case c.MaxAge < 0:
		return c, fmt.Errorf("%w: max age %v, want >= 0", ErrConfig, c.MaxAge)
	}
	if c.CapacityNonzeros == 0 {
		if c.Capacity > math.MaxInt/c.MaxFeatures {
			return c, fmt.Errorf("%w: capacity %d × %d features overflows; set the nonzero capacity",
				ErrConfig, c.Capacity, c.MaxFeatures)
		}
		c.CapacityNonzeros = c.Capacity * c.MaxFeatures
	}
	return c, nil
}

var (
	// ErrBatchTooLarge reports a batch with more rows, or more nonzeros,
	// than the whole store holds. Add leaves the store unchanged.
	ErrBatchTooLarge = errors.New("store: batch larger than the store")
	// ErrCorrupt reports a snapshot on disk that fails its checks: bad
	// magic or version, truncated, checksum mismatch, or contents that
	// are inconsistent. Open refuses it rather than start empty.
	ErrCorrupt = errors.New("store: corrupt snapshot")
	// ErrConfig reports an invalid Config, or a valid snapshot whose rows
	// do not fit the Config given to Open (fewer rows or nonzeros, or a
	// smaller MaxFeatures, than the rows held).
	ErrConfig = errors.New("store: configuration does not fit")
	// ErrDuplicate reports an Add of a batch whose hash is already
	// recorded: the daemon checks Has first, and the store refuses to
	// hold a batch twice.
	ErrDuplicate = errors.New("store: batch already ingested")
	// ErrDual reports a dual that SetDual cannot record:
	// nil, vectors whose length is not Len, too many vectors (more than
	// max(1, Len) for a linear dual, max(1, Len(Len−1)/2) pairs for C-SVC,
	// one for one-class and ε-SVR),
	// non-finite values, or for a kernel dual an unknown formulation, pairs
	// that do not match the vectors, or a negative α where the formulation
	// has α ≥ 0.
	ErrDual = errors.New("store: dual does not match the rows")
)

// SnapshotName is the snapshot's file name in the store's directory.
const SnapshotName = "store.snap"

// tempPrefix and tempSuffix frame the name of a snapshot being written:
// a dot-file ending in .tmp, which Open removes as the leftover of a
// crashed Commit.
var (
	tempPrefix = fileio.TempPrefix(SnapshotName)
	tempSuffix = fileio.TempSuffix
)

// Store holds the daemon's samples; see the package documentation.
type Store struct {
	fs  fileio.FS
	dir string
	cfg Config // resolved

	ds  *data.Dataset
	age []uint64 // len Capacity; age[i] is the generation that added row i

	// alpha holds one Capacity-long buffer per vector ever recorded; the
	// dual's vectors are alpha[k][:Len()] (core.Dual.CopyInto). known is
	// the number of leading rows whose α came from a SetDual: rows are
	// appended at the end and eviction keeps order, so rows with unknown α
	// are a suffix.
	alpha [][]float64
	dual  *core.Dual // no gradients, no primal start
	known int

	gen, published uint64
	// version is the model version of the last publication recorded
	// (SetVersion): the sequence a new publication continues, whatever is
	// left in the model directory.
	version uint64
	// dirty is whether the store changed since it was opened or last
	// committed.
	dirty bool
	// durable is whether buf holds the snapshot of the store as it was
	// last opened or committed, the state Rollback returns to.
	durable bool
	// noSync is set during CommitUnsynced; unsynced is whether the
	// journal ends with a frame written but not synced (CommitUnsynced),
	// which the next synced frame, compaction or Sync makes durable.
	noSync, unsynced bool
	hashes           []Hash
	seen             map[Hash]struct{}
	// batches records, for hashes[i], the generation that added its rows
	// (their age), when, and whether it was forgotten (forget.go).
	batches []batchRecord
	// opened is when the store was opened: the time of rows whose batch
	// was added before times were recorded (MaxAge).
	opened time.Time

	evict []int // Add's victims, cap Capacity
	// removed lists the deletions since the last TakeRemoved, each the
	// sorted positions removed at once, in the rows of that moment.
	removed [][]int
	row     []int32 // decode's scratch row
	rowv    []float32

	// The files (journal.go). buf is the snapshot on disk as last read
	// or written, and log the journal extending it, as far as it is valid
	// (its header and the frames appended since); together they are the
	// state Rollback returns to. pend holds the changes since, as journal
	// ops, for the next Commit's frame. logOK is whether the journal on
	// disk is log, so that a frame may be appended to it; otherwise the
	// next Commit compacts.
	buf, log, pend []byte
	logOK          bool
	replaying      bool   // replaying the journal: changes are not journalled again
	shapeA         []byte // replayDualDelta's scratch encoding
	compactions    int
	dualDeltas     int   // duals journalled as a change of the held one
	bytesWritten   int64 // BytesWritten
	// written is the configuration the snapshot read was written under,
	// which bounds the journal's rows too: a journal is appended to only
	// by a store of that configuration (Open).
	written writtenConfig
}

// newStore allocates an empty store for the resolved cfg.
func newStore(dir string, cfg Config) *Store {
	s := &Store{
		fs:     fileio.OS,
		dir:    dir,
		cfg:    cfg,
		ds:     data.NewSparse(cfg.Capacity, cfg.CapacityNonzeros, cfg.MaxFeatures),
		age:    make([]uint64, cfg.Capacity),
		seen:   map[Hash]struct{}{},
		evict:  make([]int, 0, cfg.Capacity),
		opened: time.Now(),
	}
	// Each row hashed once, as it comes in: a warm kernel retrain reads
	// the hashes instead of hashing every row (8 bytes a row).
	s.ds.KeepRowHashes()
	return s
}

// Open opens the store kept in dir, creating dir when missing. It loads
// dir/store.snap when present and starts empty otherwise; a snapshot that
// fails its checks is an error wrapping ErrCorrupt (the store never starts
// empty in place of damaged data). The journal beside it (store.log,
// journal.go) is replayed on it: the changes Commits appended since the
// snapshot was written, up to a last frame a crash tore, which is ignored.
// A snapshot written under another Config is kept when its rows fit cfg,
// and refused with an error wrapping ErrConfig when they do not. Temporary
// files left by a Commit that crashed are removed.
func Open(dir string, cfg Config) (*Store, error) { return OpenFS(fileio.OS, dir, cfg) }

// OpenFS is Open on the file system fsys, which the store's Commits then
// write to.
func OpenFS(fsys fileio.FS, dir string, cfg Config) (*Store, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	if err := removeTemps(fsys, dir); err != nil {
		return nil, err
	}
	s := newStore(dir, cfg)
	s.fs = fsys
	path := filepath.Join(dir, SnapshotName)
	fi, err := fsys.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.buf, s.durable = s.encode(s.buf), true
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("store: open: %w", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCorrupt, path)
	}
	data, err := fileio.ReadFileFS(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	log, err := readLog(fsys, dir)
	if err != nil {
		return nil, err
	}
	if w, ok := writtenOf(data); ok && log != nil && w != configOf(cfg) {
		// The journal's rows are bounded by the configuration it was
		// written under, which the rows between two of its frames may
		// not fit: replayed under it, read back under cfg.
		if data, err = replayWritten(data, log, w, cfg.Policy); err != nil {
			return nil, fmt.Errorf("%w (reading %s)", err, path)
		}
		log = nil
	}
	extends, valid, err := s.load(data, log)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	s.buf, s.durable = data, true
	if extends {
		s.log = log[:valid]
		// Appended to only as written: torn frames are compacted away,
		// and so is a snapshot written under another configuration,
		// whose journal would be bounded by it.
		s.logOK = valid == len(log) && s.written == configOf(cfg)
	}
	return s, nil
}

// configOf returns the part of the resolved cfg a snapshot records.
func configOf(cfg Config) writtenConfig {
	return writtenConfig{uint64(cfg.Capacity), uint64(cfg.CapacityNonzeros), uint64(cfg.MaxFeatures)}
}

// writtenOf returns the configuration the snapshot data was written under;
// ok is false when its frame or header fields are bad (decode says how).
func writtenOf(data []byte) (w writtenConfig, ok bool) {
	payload, _, err := openSnapshot(data)
	if err != nil {
		return w, false
	}
	r := &reader{b: payload}
	w = writtenConfig{r.u64(), r.u64(), r.u64()}
	return w, !r.bad
}

// replayWritten returns the snapshot of the store data and its journal log
// give under the configuration w they were written under (with policy),
// or data itself when log does not extend it. The store it replays into
// holds no more rows and nonzeros than the two files' bytes can describe
// (a row takes 12 bytes or more, a nonzero 8), whatever w claims.
func replayWritten(data, log []byte, w writtenConfig, policy Policy) ([]byte, error) {
	bound := uint64(len(data) + len(log))
	cfg, err := Config{
		Capacity:         int(min(w.capacity, bound/12+1)),
		CapacityNonzeros: int(min(w.nonzeros, bound/8+1)),
		MaxFeatures:      int(min(w.maxFeatures, math.MaxInt32+1)),
		Policy:           policy,
	}.resolve()
	if err != nil {
		return nil, corrupt("written under an impossible configuration: %v", err)
	}
	t := newStore("", cfg)
	extends, _, err := t.load(data, log)
	if err != nil || !extends {
		return data, err
	}
	return t.encode(nil), nil
}

// removeTemps removes the temporary snapshots a crashed Commit left in dir.
// Only names Commit itself makes are touched.
func removeTemps(fsys fileio.FS, dir string) error {
	for _, base := range []string{SnapshotName, LogName} {
		if _, err := fileio.RemoveTempsFS(fsys, dir, base); err != nil {
			return fmt.Errorf("store: open: remove stale temporary file: %w", err)
		}
	}
	return nil
}

// Len returns the number of rows held.
func (s *Store) Len() int { return s.ds.Len() }

// Config returns the store's configuration, with CapacityNonzeros resolved.
func (s *Store) Config() Config { return s.cfg }

// Has reports whether the batch with hash h has been added.
func (s *Store) Has(h Hash) bool {
	_, ok := s.seen[h]
	return ok
}

// Generation counts the Adds since the store was created; it is persisted.
// Each row carries the generation that added it as its age.
func (s *Store) Generation() uint64 { return s.gen }

// Published returns the generation the newest published model was trained
// on, as recorded by SetPublished: when it is below Generation, a model for
// the current rows is still to be published.
func (s *Store) Published() uint64 { return s.published }

// SetPublished records that a model trained on the rows of generation gen
// was published. It is persisted with the next Commit.
func (s *Store) SetPublished(gen uint64) {
	s.published = gen
	s.logU64(opPublished, gen)
	s.dirty = true
}

// Version returns the model version of the last publication recorded by
// SetVersion, 0 when none was: the sequence the next publication
// continues even when the model directory lost its files.
func (s *Store) Version() uint64 { return s.version }

// SetVersion records that version v was published. It is persisted with
// the next Commit.
func (s *Store) SetVersion(v uint64) {
	s.version = v
	s.logU64(opVersion, v)
	s.dirty = true
}

// TakeRemoved returns the rows removed (evicted, retired by the window or
// the maximum age, forgotten) since it was last called, and forgets them:
// one sorted list of positions per removal, each in the rows as they were
// just before it, in the order the removals happened. A caller keeping
// state per row (the daemon's last kernel gradient, core.Dual.DeleteRows)
// replays them to stay aligned with the store. Rollback empties the list.
func (s *Store) TakeRemoved() [][]int {
	r := s.removed
	s.removed = nil
	return r
}

// Rollback discards every change since the store was opened or last
// committed (an Add, with the rows it evicted back in place, a SetDual, a
// SetPublished, a SetVersion): the store is again the one its snapshot
// holds. The daemon rolls back the rows of a batch that training refuses.
// It fails only when the last Commit failed (the state to return to is
// not known); the store is then unchanged.
func (s *Store) Rollback() error {
	if !s.dirty {
		return nil
	}
	if !s.durable {
		return errors.New("store: rollback after a failed commit")
	}
	s.ds.Reset()
	s.dual, s.known = nil, 0
	s.removed = nil
	s.gen, s.published, s.version = 0, 0, 0
	s.hashes = s.hashes[:0]
	clear(s.seen)
	var log []byte
	if len(s.log) > 0 {
		log = s.log
	}
	if _, _, err := s.load(s.buf, log); err != nil {
		// buf and log are what the last Open or Commit read or wrote.
		panic("store: rollback: the last snapshot and journal do not load: " + err.Error())
	}
	s.pend = s.pend[:0]
	s.dirty = false
	return nil
}

// Uncommitted reports whether the store holds changes that are not durable
// yet: an Add, SetDual or SetPublished since it was opened or
// last committed. A Commit that failed leaves them uncommitted, in memory,
// for a later Commit to make durable.
func (s *Store) Uncommitted() bool { return s.dirty }

// Hashes returns a copy of the ingested batch hashes in ingestion order.
func (s *Store) Hashes() []Hash { return slices.Clone(s.hashes) }

// Dataset returns the rows held, oldest first. The store owns it: it is
// valid until the next Add or Rollback and callers must not modify it.
func (s *Store) Dataset() *data.Dataset { return s.ds }

// Dual returns the dual variables of the last training run recorded
// (SetDual), aligned with Dataset's rows, without gradients or a primal
// start (a trainer's WarmStart adds the last run's). It is nil when the
// store holds none: before the first SetDual, or after an eviction dropped
// the dual (see Add). Rows added since the last SetDual have α = 0. The
// store owns it (callers must not modify it: a warm start is cut from it
// by Prefix); it is valid until the next Add, SetDual or Rollback.
func (s *Store) Dual() *core.Dual { return s.dual }

// buffer returns α buffer k, Capacity values, allocating the buffers up to
// k the first time a dual has that many vectors.
func (s *Store) buffer(k int) []float64 {
	for len(s.alpha) <= k {
		s.alpha = append(s.alpha, make([]float64, s.cfg.Capacity))
	}
	return s.alpha[k]
}

// dropDual forgets the dual; the α buffers stay allocated for the next.
func (s *Store) dropDual() {
	s.dual, s.known = nil, 0
}

// SetDual records d's dual variables, those of a training run on
// Dataset(), as core.Dual.Check accepts them for Len() rows; they are
// copied into the store's α buffers (core.Dual.CopyInto), and the dual the
// store held, of either kind, is dropped. d's primal start and gradients
// are not kept: they are a run's, not the rows'. Otherwise it returns an
// error wrapping ErrDual and keeps the dual it had.
func (s *Store) SetDual(d *core.Dual) error {
	n := s.Len()
	if err := d.Check(n); err != nil {
		return fmt.Errorf("%w: %w", ErrDual, err)
	}
	s.logDual(d)
	// Its own dual back copies each vector onto itself.
	s.dual = d.CopyInto(s.buffer)
	s.known = n
	s.dirty = true
	return nil
}

// Add appends the rows of batch, with α = 0, and records h. When the rows
// do not fit it first evicts rows by the policy, as few as make room for
// both the rows and the nonzeros, and returns how many it evicted; their α
// leaves the dual with them (core.Dual.DeleteRows). Should the eviction
// leave fewer rows than the dual has vectors for (more classes than rows,
// a degenerate store: core.Dual.Fits), the dual is dropped and the next
// training starts cold. The change is in memory until Commit.
//
// Errors leave the store unchanged: ErrDuplicate when h is recorded
// already, ErrBatchTooLarge when the batch alone has more rows or nonzeros
// than the store holds, and an error wrapping data.ErrBadRow for a row with
// a feature index >= MaxFeatures. A nil batch is an empty one.
func (s *Store) Add(h Hash, batch *data.Dataset) (evicted int, err error) {
	return s.AddAt(h, batch, time.Now())
}

// AddAt is Add for a batch that arrived at t, from which Config.MaxAge
// counts its rows' age. With a Config.Window, the oldest rows beyond it
// leave first (counted in evicted), and a batch of more rows than the
// window is refused with ErrBatchTooLarge.
func (s *Store) AddAt(h Hash, batch *data.Dataset, t time.Time) (evicted int, err error) {
	if s.Has(h) {
		return 0, fmt.Errorf("%w: %x", ErrDuplicate, h[:8])
	}
	rows, nnz := 0, 0
	if batch != nil {
		rows = batch.Len()
		if nnz, err = s.checkBatch(batch); err != nil {
			return 0, err
		}
	}
	if rows > s.cfg.Capacity || nnz > s.cfg.CapacityNonzeros {
		return 0, fmt.Errorf("%w: %d rows and %d nonzeros, the store holds %d and %d",
			ErrBatchTooLarge, rows, nnz, s.cfg.Capacity, s.cfg.CapacityNonzeros)
	}
	if w := s.cfg.Window; w > 0 && rows > w {
		return 0, fmt.Errorf("%w: %d rows, the window holds %d", ErrBatchTooLarge, rows, w)
	}

	s.dirty = true // from here on, even an error may have changed the rows
	retired := 0
	if s.cfg.Window > 0 {
		// The sliding window first: its rows leave oldest first, whatever
		// their α; the policy then makes room for the nonzeros.
		if retired, err = s.retireOldest(s.Len() + rows - s.window()); err != nil {
			return 0, err
		}
	}
	victims := s.victims(s.Len()+rows-s.cfg.Capacity, s.ds.Nonzeros()+nnz-s.cfg.CapacityNonzeros)
	if len(victims) > 0 {
		if err := s.deleteRows(victims); err != nil {
			return retired, err
		}
	}
	evicted = retired + len(victims)

	s.gen++
	start := s.Len()
	for i := range rows {
		if batch.IsDense() {
			err = s.ds.AppendDense(batch.Label(i), batch.DenseRow(i))
		} else {
			idx, val := batch.SparseRow(i)
			err = s.ds.AppendSparse(batch.Label(i), idx, val)
		}
		if err != nil {
			// checkBatch and the room made above rule this out; should
			// it happen, the batch is not half-added.
			s.ds.Truncate(start)
			s.gen--
			return evicted, fmt.Errorf("store: add row %d of the batch: %w", i, err)
		}
		if w := batch.Weight(i); w != 1 {
			// The batch checked it; the store's weights are allocated
			// (Capacity values) by the first weight that is not 1.
			_ = s.ds.SetWeight(start+i, w)
		}
		s.age[start+i] = s.gen
	}
	s.logAdd(h, t.UnixNano(), start)
	s.addedBatch(h, t.UnixNano())
	return evicted, nil
}

// addedBatch records the batch h, added at t (Unix nanoseconds), whose
// rows of generation s.gen were just appended: the dual grows to them (α
// = 0), or is dropped when it no longer fits the rows.
func (s *Store) addedBatch(h Hash, t int64) {
	if s.dual != nil {
		// The rows added have α = 0, in the buffers' room.
		n := s.Len()
		s.dual.GrowInPlace(n)
		if !s.dual.Fits(n) {
			s.dropDual()
		}
	}
	s.hashes = append(s.hashes, h)
	s.batches = append(s.batches, batchRecord{gen: s.gen, added: t})
	s.seen[h] = struct{}{}
}

// checkBatch returns the number of nonzero values batch holds (what it will
// take in the store), and an error wrapping data.ErrBadRow when a row has a
// nonzero at an index >= MaxFeatures. Everything else about a row was
// checked when it was appended to batch.
func (s *Store) checkBatch(batch *data.Dataset) (nnz int, err error) {
	mf := s.cfg.MaxFeatures
	for i := range batch.Len() {
		if batch.IsDense() {
			for j, v := range batch.DenseRow(i) {
				if v != 0 {
					if j >= mf {
						return 0, fmt.Errorf("%w: row %d has index %d beyond the %d features allowed", data.ErrBadRow, i, j, mf)
					}
					nnz++
				}
			}
			continue
		}
		idx, val := batch.SparseRow(i)
		for k, j := range idx {
			if val[k] != 0 {
				if int(j) >= mf || j < 0 {
					return 0, fmt.Errorf("%w: row %d has index %d beyond the %d features allowed", data.ErrBadRow, i, j, mf)
				}
				nnz++
			}
		}
	}
	return nnz, nil
}

// victims returns, in s.evict, the rows to evict so that needRows more rows
// and needNZ more nonzeros fit: by the policy, as few as possible in its
// order. The caller has checked that evicting every row suffices.
func (s *Store) victims(needRows, needNZ int) []int {
	v := s.evict[:0]
	if needRows <= 0 && needNZ <= 0 {
		return v
	}
	take := func(i int) bool {
		v = append(v, i)
		idx, _ := s.ds.SparseRow(i)
		needRows--
		needNZ -= len(idx)
		return needRows <= 0 && needNZ <= 0
	}
	first := 0
	if s.cfg.Policy == EvictNonSVOldest && s.dual != nil {
		for i := range s.known {
			if !s.dual.IsSupport(i) && take(i) {
				return v
			}
		}
		first = len(v)
	}
	// Rows are in age order, so position order is oldest first. The rows
	// the first pass took are ascending in v[:first]; skip them.
	j := 0
	for i := range s.Len() {
		if j < first && v[j] == i {
			j++
			continue
		}
		if take(i) {
			return v
		}
	}
	return v
}

// deleteRows removes the rows at positions rows (which it sorts) from the
// data set, the dual and the ages, keeping them aligned.
func (s *Store) deleteRows(rows []int) error {
	slices.Sort(rows)
	if err := s.ds.DeleteRows(rows); err != nil {
		return fmt.Errorf("store: evict: %w", err)
	}
	s.logRemove(rows)
	s.removed = append(s.removed, slices.Clone(rows))
	// A dual without vectors has nothing to delete (and no row count).
	if s.dual.Rows() > 0 {
		if err := s.dual.DeleteRows(rows); err != nil {
			// DeleteRows checks before it moves anything, and the data
			// set took the same positions: the dual is out of step.
			panic("store: dual out of step with the rows: " + err.Error())
		}
	}
	n := s.Len() + len(rows) // before deletion
	data.DeleteSorted(s.age[:n], rows)
	below, _ := slices.BinarySearch(rows, s.known) // rows is ascending
	s.known -= below
	return nil
}

// Bytes returns the memory, in bytes, the store's buffers hold: rows,
// ages, α vectors (Capacity values each, shared by both kinds of dual), the
// hash set (its keys and slice; the map's own overhead
// is not counted), instance weights once a row has one other than 1, and
// the snapshot and journal as last read or written (Rollback's state).
// The changes not yet committed, journal ops of at most a few batches'
// rows and α, are not counted.
func (s *Store) Bytes() int {
	c := s.cfg.Capacity
	b := c*8 + (c+1)*8 + s.ds.CapNonzeros()*8 // labels, row starts, indices and values
	b += len(s.age) * 8
	b += len(s.alpha) * c * 8
	b += cap(s.hashes)*32 + len(s.seen)*32 + cap(s.batches)*int(unsafe.Sizeof(batchRecord{}))
	b += cap(s.evict)*8 + cap(s.buf) + cap(s.log) + cap(s.row)*4 + cap(s.rowv)*4
	if s.dual != nil {
		b += s.dual.MetadataBytes() // labels, pairs
	}
	if s.ds.Weights() != nil {
		b += c * 8 // instance weights, allocated by the first one not 1
	}
	return b
}
