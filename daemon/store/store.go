package store

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

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
}

// resolve checks c and fills in its defaults.
func (c Config) resolve() (Config, error) {
	switch {
	case c.Capacity <= 0:
		return c, fmt.Errorf("%w: capacity %d, want > 0", ErrConfig, c.Capacity)
	case c.MaxFeatures <= 0 || c.MaxFeatures > math.MaxInt32+1:
		return c, fmt.Errorf("%w: max features %d, want 1..%d", ErrConfig, c.MaxFeatures, math.MaxInt32+1)
	case c.CapacityNonzeros < 0:
		return c, fmt.Errorf("%w: nonzero capacity %d, want >= 0", ErrConfig, c.CapacityNonzeros)
	case c.Policy != EvictNonSVOldest && c.Policy != EvictOldest:
		return c, fmt.Errorf("%w: unknown policy %v", ErrConfig, c.Policy)
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
	dir string
	cfg Config // resolved

	ds  *data.Dataset
	age []uint64 // len Capacity; age[i] is the generation that added row i

	// alpha holds one Capacity-long buffer per vector ever recorded; the
	// dual's vectors are alpha[k][:Len()]. At most one of dual and kdual is
	// set: the kind of the last dual recorded. known is the number of
	// leading rows whose α came from a SetDual: rows are
	// appended at the end and eviction keeps order, so rows with unknown α
	// are a suffix.
	alpha [][]float64
	dual  *core.LinearDual
	kdual *core.KernelDual // Gradient always nil
	known int

	gen, published uint64
	// dirty is whether the store changed since it was opened or last
	// committed.
	dirty  bool
	hashes []Hash
	seen   map[Hash]struct{}

	evict []int   // Add's victims, cap Capacity
	buf   []byte  // Commit's encoding, reused
	row   []int32 // decode's scratch row
	rowv  []float32
}

// newStore allocates an empty store for the resolved cfg.
func newStore(dir string, cfg Config) *Store {
	return &Store{
		dir:   dir,
		cfg:   cfg,
		ds:    data.NewSparse(cfg.Capacity, cfg.CapacityNonzeros, cfg.MaxFeatures),
		age:   make([]uint64, cfg.Capacity),
		seen:  map[Hash]struct{}{},
		evict: make([]int, 0, cfg.Capacity),
	}
}

// Open opens the store kept in dir, creating dir when missing. It loads
// dir/store.snap when present and starts empty otherwise; a snapshot that
// fails its checks is an error wrapping ErrCorrupt (the store never starts
// empty in place of damaged data). A snapshot written under another Config
// is kept when its rows fit cfg, and refused with an error wrapping
// ErrConfig when they do not. Temporary files left by a Commit that crashed
// are removed.
func Open(dir string, cfg Config) (*Store, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	if err := removeTemps(dir); err != nil {
		return nil, err
	}
	s := newStore(dir, cfg)
	path := filepath.Join(dir, SnapshotName)
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("store: open: %w", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCorrupt, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	if err := s.decode(data); err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return s, nil
}

// removeTemps removes the temporary snapshots a crashed Commit left in dir.
// Only names Commit itself makes are touched.
func removeTemps(dir string) error {
	if _, err := fileio.RemoveTemps(dir, SnapshotName); err != nil {
		return fmt.Errorf("store: open: remove stale temporary file: %w", err)
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
	s.dirty = true
}

// Uncommitted reports whether the store holds changes that are not durable
// yet: an Add, SetDual or SetPublished since it was opened or
// last committed. A Commit that failed leaves them uncommitted, in memory,
// for a later Commit to make durable.
func (s *Store) Uncommitted() bool { return s.dirty }

// Hashes returns a copy of the ingested batch hashes in ingestion order.
func (s *Store) Hashes() []Hash { return slices.Clone(s.hashes) }

// Dataset returns the rows held, oldest first. The store owns it: it is
// valid until the next Add and callers must not modify it.
func (s *Store) Dataset() *data.Dataset { return s.ds }

// Dual returns the dual variables of the last training run recorded
// (SetDual), aligned with Dataset's rows: a linear run's (Linear set) or a
// kernel run's (Kernel set, without a Gradient: a warm start from it alone
// makes core rebuild the gradient from α). It is nil when the store holds
// none: before the first SetDual, or after an eviction dropped the dual
// (see Add). Rows added since the last SetDual have α = 0. The store owns
// the vectors (callers must not modify them; a caller that adds a primal
// start or a gradient for a warm start sets them on the Dual returned,
// which is its own); they are valid until the next Add or SetDual.
func (s *Store) Dual() *core.Dual {
	switch {
	case s.dual != nil:
		return &core.Dual{Linear: s.dual}
	case s.kdual != nil:
		return &core.Dual{Kernel: s.kdual}
	}
	return nil
}

// maxVectorsFor returns the most vectors a dual over n rows may have: a
// linear dual max(1, n) (one per class at most), a kernel C-SVC dual
// max(1, n(n−1)/2) (one per pair of classes), one-class and ε-SVR one.
// kernel selects the kernel rule for svm. Duals with more vectors are
// refused by SetDual, and dropped by an eviction that
// leaves too few rows for them (see Add), so that every snapshot's dual
// fits its rows and decode can bound what it allocates by them.
func maxVectorsFor(kernel bool, svm core.SVMType, n int) int {
	switch {
	case !kernel:
		return max(1, n)
	case svm.IsSVC():
		return max(1, n*(n-1)/2)
	}
	return 1
}

// vectors returns the stored dual's vectors, of either kind; nil without a
// dual.
func (s *Store) vectors() [][]float64 {
	switch {
	case s.dual != nil:
		return s.dual.Alpha
	case s.kdual != nil:
		return s.kdual.Alpha
	}
	return nil
}

// maxVectors is maxVectorsFor for the stored dual's kind.
func (s *Store) maxVectors(n int) int {
	if s.kdual != nil {
		return maxVectorsFor(true, s.kdual.SVMType, n)
	}
	return maxVectorsFor(false, 0, n)
}

// dropDual forgets the dual; the α buffers stay allocated for the next.
func (s *Store) dropDual() {
	s.dual, s.kdual, s.known = nil, nil, 0
}

// SetDual records d's dual variables, those of a training run on
// Dataset(): exactly one of d.Linear and d.Kernel, checked and copied as
// setLinearDual and setKernelDual say; the dual of the other kind the store
// held is dropped. d's primal start and kernel gradient are not kept: they
// are a run's, not the rows'. Otherwise it returns an error wrapping ErrDual
// and keeps the dual it had.
func (s *Store) SetDual(d *core.Dual) error {
	switch {
	case d == nil || (d.Linear == nil && d.Kernel == nil):
		return fmt.Errorf("%w: nil dual", ErrDual)
	case d.Linear != nil && d.Kernel != nil:
		return fmt.Errorf("%w: a dual of both kinds", ErrDual)
	case d.Kernel != nil:
		return s.setKernelDual(d.Kernel)
	}
	return s.setLinearDual(d.Linear)
}

// setLinearDual records d, the dual of a linear training run on Dataset():
// each vector must hold Len() finite values, and there may be at most
// max(1, Len()) vectors (one per class at most). The values are copied; a
// kernel dual the store held is dropped.
func (s *Store) setLinearDual(d *core.LinearDual) error {
	n := s.Len()
	if err := checkVectors(d.Alpha, n, maxVectorsFor(false, 0, n), false); err != nil {
		return err
	}
	if d == s.dual {
		// Its own dual back: the values are in place, and setDual would
		// overwrite d while reading it.
		s.known = n
		s.dirty = true
		return nil
	}
	s.kdual = nil
	if s.dual == nil {
		s.dual = &core.LinearDual{}
	}
	// A copy of the labels, since the caller's may alias its own state;
	// nil stays nil (regression).
	if d.Labels == nil {
		s.dual.Labels = nil
	} else {
		s.dual.Labels = append(s.dual.Labels[:0:0], d.Labels...)
	}
	s.dual.Alpha = s.fillVectors(s.dual.Alpha, len(d.Alpha), func(k int, dst []float64) { copy(dst, d.Alpha[k]) })
	s.known = n
	s.dirty = true
	return nil
}

// setKernelDual records d, the dual of a kernel training run on Dataset():
// a formulation SMO trains (C-SVC, one-class, ε-SVR); for C-SVC one pair of
// distinct classes per vector, no pair twice (in either order), at most
// max(1, Len()(Len()−1)/2) of them; otherwise no pairs and one vector.
// Each vector holds Len() finite values, ≥ 0 for C-SVC and one-class (ε-SVR's
// β is signed). The values and pairs are copied, d.Gradient is not kept, and
// a linear dual the store held is dropped.
func (s *Store) setKernelDual(d *core.KernelDual) error {
	n := s.Len()
	if err := checkKernelShape(d.SVMType, d.Pairs, len(d.Alpha), n); err != nil {
		return err
	}
	if err := checkVectors(d.Alpha, n, maxVectorsFor(true, d.SVMType, n), !d.SVMType.IsRegression()); err != nil {
		return err
	}
	if d == s.kdual {
		s.known = n
		s.dirty = true
		return nil
	}
	s.dual = nil
	if s.kdual == nil {
		s.kdual = &core.KernelDual{}
	}
	s.kdual.SVMType = d.SVMType
	if d.Pairs == nil {
		s.kdual.Pairs = nil
	} else {
		s.kdual.Pairs = append(s.kdual.Pairs[:0:0], d.Pairs...)
	}
	s.kdual.Alpha = s.fillVectors(s.kdual.Alpha, len(d.Alpha), func(k int, dst []float64) { copy(dst, d.Alpha[k]) })
	s.known = n
	s.dirty = true
	return nil
}

// checkVectors checks that alpha has at most most vectors of n finite
// values each, non-negative when nonNeg.
func checkVectors(alpha [][]float64, n, most int, nonNeg bool) error {
	if len(alpha) > most {
		return fmt.Errorf("%w: %d vectors for %d rows (at most %d)", ErrDual, len(alpha), n, most)
	}
	for k, a := range alpha {
		if len(a) != n {
			return fmt.Errorf("%w: vector %d has %d values for %d rows", ErrDual, k, len(a), n)
		}
		for i, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: α[%d][%d] = %v is not finite", ErrDual, k, i, v)
			}
			if nonNeg && v < 0 {
				return fmt.Errorf("%w: α[%d][%d] = %v is negative", ErrDual, k, i, v)
			}
		}
	}
	return nil
}

// checkKernelShape checks a kernel dual's formulation and pairs against its
// vector count nvec (the vectors themselves are checkVectors'). Its errors
// wrap ErrDual.
func checkKernelShape(svm core.SVMType, pairs [][2]int32, nvec, n int) error {
	switch svm {
	case core.CSVC, core.NuSVC:
		if nvec == 0 || len(pairs) != nvec {
			return fmt.Errorf("%w: %v dual with %d pairs and %d vectors (want as many, at least one)", ErrDual, svm, len(pairs), nvec)
		}
		if nvec > maxVectorsFor(true, svm, n) {
			return fmt.Errorf("%w: %d pairs for %d rows (at most %d)", ErrDual, nvec, n, maxVectorsFor(true, svm, n))
		}
		seen := make(map[[2]int32]struct{}, len(pairs))
		for k, p := range pairs {
			if p[0] == p[1] {
				return fmt.Errorf("%w: pair %d is class %d against itself", ErrDual, k, p[0])
			}
			u := [2]int32{min(p[0], p[1]), max(p[0], p[1])}
			if _, dup := seen[u]; dup {
				return fmt.Errorf("%w: pair %d (%d, %d) given twice", ErrDual, k, p[0], p[1])
			}
			seen[u] = struct{}{}
		}
	case core.OneClass, core.EpsSVR, core.NuSVR:
		if nvec != 1 || len(pairs) != 0 {
			return fmt.Errorf("%w: %v dual with %d vectors and %d pairs (want one vector, no pairs)", ErrDual, svm, nvec, len(pairs))
		}
	default:
		return fmt.Errorf("%w: %v is not a formulation the store keeps", ErrDual, svm)
	}
	return nil
}

// fillVectors returns vecs holding nvec vectors of Len() values each,
// filled by fill, allocating α buffers only for vectors never held before.
func (s *Store) fillVectors(vecs [][]float64, nvec int, fill func(k int, dst []float64)) [][]float64 {
	n := s.Len()
	for len(s.alpha) < nvec {
		s.alpha = append(s.alpha, make([]float64, s.cfg.Capacity))
	}
	vecs = vecs[:0]
	for k := range nvec {
		a := s.alpha[k][:n]
		fill(k, a)
		vecs = append(vecs, a)
	}
	return vecs
}

// Add appends the rows of batch, with α = 0, and records h. When the rows
// do not fit it first evicts rows by the policy, as few as make room for
// both the rows and the nonzeros, and returns how many it evicted; their α
// leaves the dual with them (LinearDual.DeleteRows, KernelDual.DeleteRows).
// Should the eviction leave fewer rows than the dual has vectors for
// (more classes than rows, a degenerate store; see setLinearDual and
// setKernelDual for the counts), the dual is dropped and the next
// training starts cold. The change is in memory until Commit.
//
// Errors leave the store unchanged: ErrDuplicate when h is recorded
// already, ErrBatchTooLarge when the batch alone has more rows or nonzeros
// than the store holds, and an error wrapping data.ErrBadRow for a row with
// a feature index >= MaxFeatures. A nil batch is an empty one.
func (s *Store) Add(h Hash, batch *data.Dataset) (evicted int, err error) {
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

	s.dirty = true // from here on, even an error may have changed the rows
	victims := s.victims(s.Len()+rows-s.cfg.Capacity, s.ds.Nonzeros()+nnz-s.cfg.CapacityNonzeros)
	if len(victims) > 0 {
		if err := s.deleteRows(victims); err != nil {
			return 0, err
		}
	}

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
			return len(victims), fmt.Errorf("store: add row %d of the batch: %w", i, err)
		}
		if w := batch.Weight(i); w != 1 {
			// The batch checked it; the store's weights are allocated
			// (Capacity values) by the first weight that is not 1.
			_ = s.ds.SetWeight(start+i, w)
		}
		s.age[start+i] = s.gen
	}
	if vecs := s.vectors(); vecs != nil {
		n := s.Len()
		for k := range vecs {
			a := s.alpha[k][:n]
			clear(a[start:])
			vecs[k] = a
		}
		if len(vecs) > s.maxVectors(n) {
			s.dropDual()
		}
	}
	s.hashes = append(s.hashes, h)
	s.seen[h] = struct{}{}
	return len(victims), nil
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
	if s.cfg.Policy == EvictNonSVOldest && s.vectors() != nil {
		for i := range s.known {
			if s.isNonSV(i) && take(i) {
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

// isNonSV reports whether row i's α is 0 in every vector of the dual.
func (s *Store) isNonSV(i int) bool {
	for _, a := range s.vectors() {
		if a[i] != 0 {
			return false
		}
	}
	return true
}

// deleteRows removes the rows at positions rows (which it sorts) from the
// data set, the dual and the ages, keeping them aligned.
func (s *Store) deleteRows(rows []int) error {
	slices.Sort(rows)
	if err := s.ds.DeleteRows(rows); err != nil {
		return fmt.Errorf("store: evict: %w", err)
	}
	// A dual without vectors has nothing to delete (and no row count).
	if len(s.vectors()) > 0 {
		var err error
		if s.kdual != nil {
			err = s.kdual.DeleteRows(rows)
		} else {
			err = s.dual.DeleteRows(rows)
		}
		if err != nil {
			// DeleteRows checks before it moves anything, and the data
			// set took the same positions: the dual is out of step.
			panic("store: dual out of step with the rows: " + err.Error())
		}
	}
	n := s.Len() + len(rows) // before deletion
	w, k, known := rows[0], 0, s.known
	for r := rows[0]; r < n; r++ {
		if k < len(rows) && rows[k] == r {
			if r < s.known {
				known--
			}
			k++
			continue
		}
		s.age[w] = s.age[r]
		w++
	}
	s.known = known
	return nil
}

// Bytes returns the memory, in bytes, the store's buffers hold: rows,
// ages, α vectors (Capacity values each, shared by both kinds of dual), the
// hash set (its keys and slice; the map's own overhead
// is not counted), instance weights once a row has one other than 1, and
// Commit's encoding buffer.
func (s *Store) Bytes() int {
	c := s.cfg.Capacity
	b := c*8 + (c+1)*8 + s.ds.CapNonzeros()*8 // labels, row starts, indices and values
	b += len(s.age) * 8
	b += len(s.alpha) * c * 8
	b += cap(s.hashes)*32 + len(s.seen)*32
	b += cap(s.evict)*8 + cap(s.buf) + cap(s.row)*4 + cap(s.rowv)*4
	if s.kdual != nil {
		b += cap(s.kdual.Pairs) * 8
	}
	if s.ds.Weights() != nil {
		b += c * 8 // instance weights, allocated by the first one not 1
	}
	return b
}
