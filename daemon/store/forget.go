package store

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Rows leave the store in four ways (DESIGN §4, §8): by the eviction
// Policy when a batch does not fit; by the sliding window (Config.Window:
// the oldest rows beyond it); by age (Config.MaxAge: rows of a batch added
// longer ago); and by request, a named batch forgotten (Forget). Each
// takes the rows' α out of the stored dual with them (the dual's own
// DeleteRows), so the next training starts warm from the α of the rows
// that remain.
//
// Every batch ever added stays recorded (its hash, the generation that
// added its rows, when, and whether it was forgotten): a forgotten batch is
// still a duplicate if it arrives again, and a request to forget it again
// removes nothing, which makes a forget request idempotent across crashes.

// ErrUnknownBatch reports a Forget of a hash no Add recorded.
var ErrUnknownBatch = errors.New("store: no batch with this hash was added")

// batchRecord is what the store keeps of one ingested batch.
type batchRecord struct {
	gen       uint64 // the generation its Add made: its rows' age
	added     int64  // when it was added, Unix nanoseconds; 0: unknown (a snapshot from before times)
	forgotten bool   // Forget removed it
}

// window returns the number of rows the store keeps at most: Config.Window,
// or Capacity without one.
func (s *Store) window() int {
	if w := s.cfg.Window; w > 0 && w < s.cfg.Capacity {
		return w
	}
	return s.cfg.Capacity
}

// retireOldest removes the n oldest rows (none when n ≤ 0) and returns how
// many it removed.
func (s *Store) retireOldest(n int) (int, error) {
	n = min(n, s.Len())
	if n <= 0 {
		return 0, nil
	}
	v := s.evict[:0]
	for i := range n {
		v = append(v, i)
	}
	if err := s.deleteRows(v); err != nil {
		return 0, err
	}
	return n, nil
}

// batchIndex returns the index in s.hashes of the batch h, or -1.
func (s *Store) batchIndex(h Hash) int {
	if !s.Has(h) {
		return -1
	}
	return slices.Index(s.hashes, h)
}

// Forgotten reports whether the batch h was forgotten (Forget).
func (s *Store) Forgotten(h Hash) bool {
	i := s.batchIndex(h)
	return i >= 0 && s.batches[i].forgotten
}

// Forget removes the rows of the batch h that the store still holds, with
// their α, and marks the batch forgotten; it returns how many rows went.
// Rows the window, the age limit or an eviction took already are not
// counted. When rows went, the generation advances (a model for the rows
// that remain is due: Published < Generation). A batch forgotten before
// gives 0 and changes nothing; the batch stays recorded, so it is a
// duplicate if it arrives again. An h no Add recorded is an error wrapping
// ErrUnknownBatch, and nothing changes. The change is in memory until
// Commit.
func (s *Store) Forget(h Hash) (rows int, err error) {
	i := s.batchIndex(h)
	switch {
	case i < 0:
		return 0, fmt.Errorf("%w: %x", ErrUnknownBatch, h[:8])
	case s.batches[i].forgotten:
		return 0, nil
	}
	gen := s.batches[i].gen
	v := s.evict[:0]
	for r := range s.Len() {
		if s.age[r] == gen {
			v = append(v, r)
		}
	}
	s.batches[i].forgotten = true
	s.logHash(opForget, h)
	s.dirty = true
	if len(v) == 0 {
		return 0, nil
	}
	if err := s.deleteRows(v); err != nil {
		return 0, err
	}
	s.gen++
	s.logU64(opGeneration, s.gen)
	return len(v), nil
}

// Expire removes the rows outside the window (Config.Window: the oldest
// beyond it, after a restart with a smaller window) and those of batches
// added MaxAge or more before now (Config.MaxAge), with their α, and
// returns how many went; when rows went, the generation advances. The
// change is in memory until Commit.
func (s *Store) Expire(now time.Time) (rows int, err error) {
	n := s.Len() - s.window()
	if age := s.cfg.MaxAge; age > 0 {
		// Rows are in the order they were added: the expired ones lead.
		limit := now.Add(-age)
		old := 0
		for old < s.Len() && !s.added(s.age[old]).After(limit) {
			old++
		}
		n = max(n, old)
	}
	if n <= 0 {
		return 0, nil
	}
	s.dirty = true
	if rows, err = s.retireOldest(n); err != nil {
		return 0, err
	}
	s.gen++
	s.logU64(opGeneration, s.gen)
	return rows, nil
}

// NextExpiry returns when Expire will next remove rows by age: the time the
// oldest row's batch was added plus MaxAge. ok is false without MaxAge or
// rows.
func (s *Store) NextExpiry() (t time.Time, ok bool) {
	if s.cfg.MaxAge <= 0 || s.Len() == 0 {
		return time.Time{}, false
	}
	return s.added(s.age[0]).Add(s.cfg.MaxAge), true
}

// added returns when the batch of generation gen was added: the time
// recorded, or when the store was opened for a batch recorded without one
// (or none: a row's age always names a batch, but a damaged record must not
// expire rows early).
func (s *Store) added(gen uint64) time.Time {
	i, found := slices.BinarySearchFunc(s.batches, gen, func(b batchRecord, g uint64) int {
		switch {
		case b.gen < g:
			return -1
		case b.gen > g:
			return 1
		}
		return 0
	})
	if !found || s.batches[i].added == 0 {
		return s.opened
	}
	return time.Unix(0, s.batches[i].added)
}
