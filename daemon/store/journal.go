package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// The journal: a Commit appends what changed since the last one to
// store.log and syncs it, instead of rewriting the whole snapshot; the
// snapshot is rewritten (compaction) only when the journal's bytes, dead
// once the snapshot is rewritten, outgrow the store's live bytes. A daemon
// batch so costs one append of its rows, the removals it caused and the α
// that changed, where it cost two rewrites of every row and α.
//
// Journal file format (store.log). All integers are little-endian.
//
//	bytes  0–7   magic "\x89SVL\r\n\x1a\n" (logMagic)
//	bytes  8–9   format major version, uint16 (1); another is refused
//	bytes 10–11  format minor version, uint16 (1: opDualXor; 0 before it,
//	             whose journals replay the same); not checked
//	bytes 12–19  the payload length of the snapshot it extends, uint64
//	bytes 20–23  the CRC-32C of that snapshot's payload, uint32
//	bytes 24–27  CRC-32C of bytes 0–23, uint32
//
// then one frame per Commit, in order:
//
//	u32 body length n, u32 CRC-32C of the body, n bytes of body
//
// A body is the changes of one Commit, in the order they were made, each
// an op byte and its fields; replayed on the snapshot they give the store
// as that Commit left it:
//
//	opRemove     u32 count, count × u32 positions, strictly increasing,
//	             each below the rows held: rows deleted at once (an
//	             eviction, the window, the maximum age, a forgotten batch),
//	             their α and age with them
//	opAdd        32-byte hash (not recorded before), i64 time added (Unix
//	             nanoseconds), u32 rows, u8 weighted (0 or 1); per row:
//	             f64 label, f64 weight (when weighted), u32 k, k × i32
//	             indices, k × f32 values (as the snapshot's rows); the
//	             generation advances by one, the rows' age
//	opForget     32-byte hash of a batch recorded: marked forgotten
//	opGeneration u64, one more than the generation: Forget and Expire
//	opDual       core.Dual's own encoding (Dual.AppendBinary) for the rows
//	             held: SetDual, when the dual is for other subproblems than
//	             the held one's or its change (opDualXor) would be longer
//	opDualDelta  (written by format 1.0, replayed still) SetDual of a dual
//	             for the held one's subproblems (core.Dual.VectorsOf), as a
//	             change of it: u32 length and the dual's shape
//	             (core.Dual.Prefix(0)'s encoding: kind, formulation, pairs
//	             or labels, vector count); u32 vectors, then for each the
//	             index of the held vector it matches (each once); u32
//	             count, count × (u32 vector, u32 row, f64 α), the values
//	             that differ from their match's bit for bit. Replayed: the
//	             encoding of the shape followed by the matched vectors,
//	             changed, decoded as opDual's
//	opDualXor    the change opDualDelta records, its values packed: the
//	             shape and the matches as opDualDelta's; then per vector,
//	             in order, u32 count and count changed values, each a
//	             uvarint gap<<3 | z and 8 − z bytes: x, the XOR of the
//	             value's bits with its match's, without its z (0–7) zero
//	             high bytes, little-endian; gap is the row's distance
//	             from the vector's previous changed row minus 1 (the
//	             first's: its row). A linear retrain changes every
//	             nonzero α a little (41% of debdesc_bin's), so x keeps
//	             the sign, exponent and leading mantissa bits as zeros,
//	             and the rows are near: about 7.6 bytes a change where
//	             opDualDelta took 16
//	opPublished  u64 generation published (≤ the generation)
//	opVersion    u64 model version (> 0)
//
// The snapshot a journal extends is named by its payload's length and
// checksum: a compaction writes the snapshot (fileio.WriteFileFS: temporary
// file, sync, rename, directory sync) and then a new, empty journal the
// same way, so a crash between the two leaves the new snapshot with the
// old journal, which names the old snapshot and is ignored. A frame is
// synced before Commit returns; a crash in the middle of an append leaves
// a torn last frame (shorter than its length says, or failing its
// checksum with nothing after it), which Open ignores: that Commit did not
// return, so nothing acted on it. The first Commit after such an Open (or
// after an append failed) compacts. A bad frame with bytes after it is
// corruption: a torn append is always the last.
//
// A snapshot without a journal (every store written before journals, or
// one whose journal was removed) loads as it always did; its first Commit
// writes a journal beside it.

// LogName is the journal's file name in the store's directory, beside
// SnapshotName.
const LogName = "store.log"

const (
	logMagic      = "\x89SVL\r\n\x1a\n"
	logHeaderSize = 28
	logMajor      = 1
	logMinor      = 1
	frameHeader   = 8 // u32 length, u32 CRC-32C
)

// The ops of a journal frame's body.
const (
	opRemove = 1 + iota
	opAdd
	opForget
	opGeneration
	opDual
	opDualDelta
	opPublished
	opVersion
	opDualXor
)

// logHeader returns the header of a journal extending the snapshot snap.
func logHeader(snap []byte) []byte {
	le := binary.LittleEndian
	h := make([]byte, 0, logHeaderSize)
	h = append(h, logMagic...)
	h = le.AppendUint16(h, logMajor)
	h = le.AppendUint16(h, logMinor)
	h = append(h, snap[12:24]...) // the snapshot's payload length and CRC-32C
	return le.AppendUint32(h, crc32.Checksum(h, castagnoli))
}

// The log functions append to s.pend the op of a change, unless the
// change is a replay of the journal itself.

func (s *Store) logRemove(rows []int) {
	if s.replaying {
		return
	}
	le := binary.LittleEndian
	s.pend = append(s.pend, opRemove)
	s.pend = le.AppendUint32(s.pend, uint32(len(rows)))
	for _, r := range rows {
		s.pend = le.AppendUint32(s.pend, uint32(r))
	}
}

// logAdd records the batch of rows [start, Len()) added as h at t.
func (s *Store) logAdd(h Hash, t int64, start int) {
	if s.replaying {
		return
	}
	le := binary.LittleEndian
	n := s.Len()
	weighted := false
	for i := start; i < n; i++ {
		weighted = weighted || s.ds.Weight(i) != 1
	}
	s.pend = append(s.pend, opAdd)
	s.pend = append(s.pend, h[:]...)
	s.pend = le.AppendUint64(s.pend, uint64(t))
	s.pend = le.AppendUint32(s.pend, uint32(n-start))
	s.pend = append(s.pend, boolByte(weighted))
	for i := start; i < n; i++ {
		s.pend = le.AppendUint64(s.pend, math.Float64bits(s.ds.Label(i)))
		if weighted {
			s.pend = le.AppendUint64(s.pend, math.Float64bits(s.ds.Weight(i)))
		}
		idx, val := s.ds.SparseRow(i)
		s.pend = le.AppendUint32(s.pend, uint32(len(idx)))
		for _, j := range idx {
			s.pend = le.AppendUint32(s.pend, uint32(j))
		}
		for _, v := range val {
			s.pend = le.AppendUint32(s.pend, math.Float32bits(v))
		}
	}
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (s *Store) logHash(op byte, h Hash) {
	if !s.replaying {
		s.pend = append(append(s.pend, op), h[:]...)
	}
}

func (s *Store) logU64(op byte, v uint64) {
	if !s.replaying {
		s.pend = binary.LittleEndian.AppendUint64(append(s.pend, op), v)
	}
}

// logDual records that d (checked for Len() rows) replaces the held dual.
// When d's vectors are for the subproblems of the held one's (in any order:
// core.Dual.VectorsOf), it records d's shape, the match and the values that
// differ (opDualXor), unless that is longer than d whole, which it then
// records. Call it before d is copied in.
func (s *Store) logDual(d *core.Dual) {
	if s.replaying {
		return
	}
	if s.dual != nil && s.dual.Rows() == s.Len() && !aliases(s.dual.Vectors(), d.Vectors()) {
		if perm := d.VectorsOf(s.dual); perm != nil {
			var ok bool
			if s.pend, ok = appendDualXor(s.pend, d, s.dual.Vectors(), perm); ok {
				s.dualDeltas++
				return
			}
		}
	}
	s.pend = d.AppendBinary(append(s.pend, opDual))
}

// appendDualXor appends to dst the opDualXor op that turns the held
// vectors old into d's, whose vector k matches old[perm[k]], and returns
// it and true; or dst as it was and false when the op would be as long as
// d's whole encoding: one pass, given up there.
func appendDualXor(dst []byte, d *core.Dual, old [][]float64, perm []int) ([]byte, bool) {
	le := binary.LittleEndian
	start := len(dst)
	dst = append(dst, opDualXor)
	at := len(dst)
	dst = le.AppendUint32(dst, 0) // the shape's length, below
	dst = d.Prefix(0).AppendBinary(dst)
	le.PutUint32(dst[at:], uint32(len(dst)-at-4))
	dst = le.AppendUint32(dst, uint32(len(perm)))
	for _, j := range perm {
		dst = le.AppendUint32(dst, uint32(j))
	}
	cur := d.Vectors()
	most := start + 1 + 8*len(cur)*(d.Rows()+1) // about opDual's length
	for k, a := range cur {
		b := old[perm[k]][:len(a)] // as long: the compiler drops b's bounds checks
		at = len(dst)
		dst = le.AppendUint32(dst, 0) // the count, below
		count, prev := 0, -1
		for i, v := range a {
			x := math.Float64bits(v) ^ math.Float64bits(b[i])
			if x == 0 {
				continue
			}
			z := bits.LeadingZeros64(x) / 8 // < 8: x is not 0
			dst = binary.AppendUvarint(dst, uint64(i-prev-1)<<3|uint64(z))
			end := len(dst) + 8 - z
			dst = le.AppendUint64(dst, x)[:end]
			count, prev = count+1, i
		}
		le.PutUint32(dst[at:], uint32(count))
		if len(dst) >= most {
			return dst[:start], false
		}
	}
	return dst, true
}

// aliases reports whether some vector of b is a's, the same memory
// (a dual cut from the held one by Prefix, or the held one itself): its
// values cannot be told from the held ones', and it is journalled whole.
func aliases(a, b [][]float64) bool {
	for k := range min(len(a), len(b)) {
		if len(a[k]) > 0 && len(b[k]) > 0 && &a[k][0] == &b[k][0] {
			return true
		}
	}
	return false
}

// replay applies the journal log (its header checked by the caller) to s,
// freshly decoded from the snapshot it extends, and returns the length of
// its valid prefix: shorter than log when the last frame is torn. A bad
// frame followed by more bytes, or a frame whose ops do not apply, is
// corruption. It never panics.
func (s *Store) replay(log []byte) (valid int, err error) {
	s.replaying = true
	defer func() { s.replaying = false }()
	le := binary.LittleEndian
	off := logHeaderSize
	for off < len(log) {
		rest := log[off:]
		if len(rest) < frameHeader {
			return off, nil // torn frame header
		}
		n := uint64(le.Uint32(rest))
		if n > uint64(len(rest)-frameHeader) {
			return off, nil // torn: shorter than its length says
		}
		body := rest[frameHeader : frameHeader+n]
		if crc32.Checksum(body, castagnoli) != le.Uint32(rest[4:]) {
			if uint64(len(rest)-frameHeader) == n {
				return off, nil // the last frame, torn
			}
			return 0, corrupt("journal frame at byte %d fails its checksum, %d bytes follow", off, uint64(len(rest)-frameHeader)-n)
		}
		if err := s.applyFrame(body); err != nil {
			return 0, fmt.Errorf("%w (journal frame at byte %d)", err, off)
		}
		off += frameHeader + int(n)
	}
	return off, nil
}

// applyFrame applies the ops of one frame's body.
func (s *Store) applyFrame(body []byte) error {
	r := &reader{b: body}
	for len(r.b) > 0 && !r.bad {
		var err error
		switch op := r.u8(); op {
		case opRemove:
			err = s.replayRemove(r)
		case opAdd:
			err = s.replayAdd(r)
		case opForget:
			var h Hash
			copy(h[:], r.take(32))
			i := s.batchIndex(h)
			if r.bad || i < 0 {
				return corrupt("journal forgets a batch never added")
			}
			s.batches[i].forgotten = true
		case opGeneration:
			if g := r.u64(); !r.bad && g != s.gen+1 {
				return corrupt("journal sets generation %d after %d", g, s.gen)
			}
			s.gen++
		case opDual:
			dual, rest, derr := core.DecodeDual(r.b, s.Len(), core.StateOptions{}, s.buffer)
			if derr != nil || dual == nil {
				return corrupt("journal dual: %v", derr)
			}
			r.b = rest
			s.dual, s.known = dual, s.Len()
		case opDualDelta:
			err = s.replayDualDelta(r, false)
		case opDualXor:
			err = s.replayDualDelta(r, true)
		case opPublished:
			if p := r.u64(); !r.bad && p > s.gen {
				return corrupt("journal publishes generation %d after the current %d", p, s.gen)
			} else {
				s.published = p
			}
		case opVersion:
			if v := r.u64(); !r.bad && v == 0 {
				return corrupt("journal records model version 0")
			} else {
				s.version = v
			}
		default:
			return corrupt("journal op %d", op)
		}
		if err != nil {
			return err
		}
	}
	if r.bad {
		return corrupt("journal frame truncated inside an op")
	}
	return nil
}

func (s *Store) replayRemove(r *reader) error {
	n := uint64(r.u32())
	if !r.fits(n, 4) || n == 0 || n > uint64(s.Len()) {
		return corrupt("journal removes %d of %d rows", n, s.Len())
	}
	rows := s.evict[:0]
	prev := -1
	for range n {
		p := int(r.u32())
		if p <= prev || p >= s.Len() {
			return corrupt("journal removes row %d after %d of %d", p, prev, s.Len())
		}
		rows = append(rows, p)
		prev = p
	}
	return s.deleteRows(rows)
}

func (s *Store) replayAdd(r *reader) error {
	var h Hash
	copy(h[:], r.take(32))
	t := int64(r.u64())
	rows, weighted := uint64(r.u32()), r.u8()
	switch {
	case r.bad:
		return corrupt("journal add truncated")
	case s.Has(h):
		return corrupt("journal adds batch %x twice", h[:8])
	case weighted > 1 || rows > s.written.capacity-uint64(s.Len()) || !r.fits(rows, 12):
		return corrupt("journal adds %d rows (weighted %d) to %d of %d", rows, weighted, s.Len(), s.written.capacity)
	case rows > uint64(s.cfg.Capacity-s.Len()):
		return fmt.Errorf("%w: the journal adds %d rows to %d, the store is configured for %d", ErrConfig, rows, s.Len(), s.cfg.Capacity)
	}
	s.gen++
	start := s.Len()
	for i := range int(rows) {
		y := math.Float64frombits(r.u64())
		w := 1.0
		if weighted == 1 {
			w = math.Float64frombits(r.u64())
		}
		k := uint64(r.u32())
		if r.bad || !r.fits(k, 8) {
			return corrupt("journal add truncated at row %d", i)
		}
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return corrupt("journal row %d has label %v", i, y)
		}
		switch nnz := uint64(s.ds.Nonzeros()) + k; {
		case nnz > s.written.nonzeros:
			return corrupt("journal add beyond the %d nonzeros written", s.written.nonzeros)
		case nnz > uint64(s.cfg.CapacityNonzeros):
			return fmt.Errorf("%w: the journal adds %d nonzeros, the store is configured for %d", ErrConfig, nnz, s.cfg.CapacityNonzeros)
		}
		b := r.take(8 * k)
		if err := s.decodeRow(start+i, y, b[:4*k], b[4*k:], s.written.maxFeatures); err != nil {
			return err
		}
		if w != 1 {
			if err := s.ds.SetWeight(start+i, w); err != nil {
				return corrupt("journal row %d: %v", i, err)
			}
		}
		s.age[start+i] = s.gen
	}
	s.addedBatch(h, t)
	return nil
}

// replayDualDelta applies an opDualDelta, or with packed an opDualXor:
// the dual whose encoding is the shape recorded followed by the held
// vectors in the order recorded, the changed values set, decoded into the
// α buffers (core.DecodeDual, which checks it as SetDual does).
func (s *Store) replayDualDelta(r *reader, packed bool) error {
	le := binary.LittleEndian
	shape := r.take(uint64(r.u32()))
	nvec := uint64(r.u32())
	n := s.Len()
	if r.bad || s.dual == nil || s.dual.Rows() != n || nvec == 0 || nvec != uint64(len(s.dual.Vectors())) || !r.fits(nvec, 4) {
		return corrupt("journal changes %d α vectors of a dual of %d vectors over %d rows, %d held", nvec, len(s.dual.Vectors()), s.dual.Rows(), n)
	}
	old := s.dual.Vectors()
	// The encoding is built in a scratch buffer: decoding writes the
	// vectors into the buffers it reads them from.
	enc := append(s.shapeA[:0], shape...)
	used := make([]bool, nvec)
	for range nvec {
		j := r.u32()
		if uint64(j) >= nvec || used[j] {
			return corrupt("journal matches α vector %d twice or past %d", j, nvec)
		}
		used[j] = true
		for _, v := range old[j] {
			enc = le.AppendUint64(enc, math.Float64bits(v))
		}
	}
	vecs := enc[len(shape):]
	if packed {
		for k := range nvec {
			if err := replayXor(r, vecs[8*k*uint64(n):8*(k+1)*uint64(n)]); err != nil {
				return err
			}
		}
	} else {
		m := uint64(r.u32())
		if !r.fits(m, 16) {
			return corrupt("journal changes %d α values, %d bytes left", m, len(r.b))
		}
		for range m {
			k, i, v := uint64(r.u32()), uint64(r.u32()), r.u64()
			if k >= nvec || i >= uint64(n) {
				return corrupt("journal changes α[%d][%d] of %d vectors of %d rows", k, i, nvec, n)
			}
			le.PutUint64(vecs[8*(k*uint64(n)+i):], v)
		}
	}
	s.shapeA = enc
	dual, rest, err := core.DecodeDual(enc, n, core.StateOptions{}, s.buffer)
	if err != nil || dual == nil || len(rest) != 0 {
		return corrupt("journal dual change: %v (%d bytes left)", err, len(rest))
	}
	s.dual, s.known = dual, n
	return nil
}

// replayXor applies one vector's changed values of an opDualXor to vec,
// the vector's little-endian float64 values.
func replayXor(r *reader, vec []byte) error {
	n := uint64(len(vec) / 8)
	m := uint64(r.u32())
	if !r.fits(m, 2) || m > n {
		return corrupt("journal changes %d of %d α values, %d bytes left", m, n, len(r.b))
	}
	var x [8]byte
	next := uint64(0) // the first row the next change may be at
	for range m {
		v, w := binary.Uvarint(r.b)
		if w <= 0 {
			return corrupt("journal α change: bad uvarint")
		}
		r.b = r.b[w:]
		gap, z := v>>3, v&7
		if gap >= n-next {
			return corrupt("journal changes α row %d+%d of %d", next, gap, n)
		}
		i := next + gap
		p := r.take(8 - z)
		if p == nil {
			return corrupt("journal α change truncated")
		}
		x = [8]byte{}
		copy(x[:], p)
		o := vec[8*i:]
		le := binary.LittleEndian
		le.PutUint64(o, le.Uint64(o)^le.Uint64(x[:]))
		next = i + 1
	}
	return nil
}

// load sets s, fresh from newStore, to the snapshot snap extended by the
// journal log (nil: none): it returns whether log extends snap and how
// much of it is valid (a torn last frame is not).
func (s *Store) load(snap, log []byte) (extends bool, valid int, err error) {
	if err := s.decode(snap); err != nil {
		return false, 0, err
	}
	if log == nil {
		return false, 0, nil
	}
	if len(log) < logHeaderSize || string(log[:8]) != logMagic ||
		crc32.Checksum(log[:24], castagnoli) != binary.LittleEndian.Uint32(log[24:28]) {
		return false, 0, corrupt("%s: bad journal header", LogName)
	}
	if v := binary.LittleEndian.Uint16(log[8:10]); v != logMajor {
		return false, 0, corrupt("%s: format version %d, this reader knows %d", LogName, v, logMajor)
	}
	if !bytes.Equal(log[12:24], snap[12:24]) {
		return false, 0, nil // a journal of the snapshot before a compaction
	}
	valid, err = s.replay(log)
	s.removed = nil // the rows of a replay are no caller's to follow
	return err == nil, valid, err
}

// readLog reads the journal in dir; nil without one.
func readLog(fsys fileio.FS, dir string) ([]byte, error) {
	log, err := fileio.ReadFileFS(fsys, filepath.Join(dir, LogName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	return log, nil
}

// Commit makes the changes since the last Commit durable. It appends them
// to the journal as one frame and syncs it, when the journal on disk
// extends the snapshot on disk and is as this store last wrote it (both
// files of the sizes it knows); otherwise, and when the journal's bytes
// would pass the live ones (the snapshot the store would write now) or the
// frame its 4 GiB limit, it compacts: writes the snapshot (DESIGN §6's
// recipe: a temporary dot-file ending in .tmp, written, synced and closed,
// renamed to store.snap, the directory synced) and then an empty journal
// the same way. Once Commit
// returns nil a crash loses nothing it wrote. After an error the changes
// stay in memory, uncommitted, and the next Commit compacts; what is on
// disk is the state before the Commit or after it.
func (s *Store) Commit() error {
	if s.logOK && s.intact() {
		if len(s.pend) == 0 {
			s.dirty = false
			return nil
		}
		if len(s.buf)+len(s.log)+frameHeader+len(s.pend) <= 2*s.liveBytes() && uint64(len(s.pend)) <= math.MaxUint32 {
			return s.appendFrame()
		}
	}
	return s.compact()
}

// CommitUnsynced is Commit for changes whose loss a crash may cost: it
// writes them to the journal as a frame but does not sync it (a compaction
// is synced, as Commit's). The write survives the process's death (kill -9:
// the kernel holds it) and the next Commit's sync makes it durable with
// that Commit's frame, as does Sync; only a machine's crash before then can
// lose it, or tear it (a torn last frame is dropped at Open). The daemon
// records a publication so (SetPublished, SetVersion): a lost record is a
// model published but not recorded, which it repairs at start as it does a
// crash between the model's naming and the record (it republishes), and
// the fsync it saves was a fifth of a batch's.
func (s *Store) CommitUnsynced() error {
	s.noSync = true
	defer func() { s.noSync = false }()
	return s.Commit()
}

// Sync makes durable a frame CommitUnsynced wrote (nothing when there is
// none).
func (s *Store) Sync() error {
	if !s.unsynced {
		return nil
	}
	f, err := s.fs.OpenFile(filepath.Join(s.dir, LogName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("store: sync: %w", err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: sync: %w", err)
	}
	s.unsynced = false
	return nil
}

// Compact rewrites the snapshot with every change in it and starts an
// empty journal (see Commit), whatever the journal's size.
func (s *Store) Compact() error { return s.compact() }

func (s *Store) compact() error {
	s.buf, s.durable, s.logOK = s.encode(s.buf[:0]), false, false
	if err := fileio.WriteFileFS(s.fs, filepath.Join(s.dir, SnapshotName), s.buf); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.log = append(s.log[:0], logHeader(s.buf)...)
	if err := fileio.WriteFileFS(s.fs, filepath.Join(s.dir, LogName), s.log); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.pend = s.pend[:0]
	s.dirty, s.durable, s.logOK, s.unsynced = false, true, true, false
	s.compactions++
	s.bytesWritten += int64(len(s.buf) + len(s.log))
	return nil
}

// appendFrame appends s.pend to the journal as one frame and syncs it.
func (s *Store) appendFrame() error {
	le := binary.LittleEndian
	start := len(s.log)
	s.log = le.AppendUint32(s.log, uint32(len(s.pend)))
	s.log = le.AppendUint32(s.log, crc32.Checksum(s.pend, castagnoli))
	s.log = append(s.log, s.pend...)
	err := s.writeFrame(s.log[start:])
	if err != nil {
		// The journal may hold part of the frame: the next Commit
		// compacts, which replaces both files.
		s.log = s.log[:start]
		s.logOK, s.durable = false, false
		return fmt.Errorf("store: commit: %w", err)
	}
	s.pend = s.pend[:0]
	s.dirty, s.durable, s.unsynced = false, true, s.noSync
	s.bytesWritten += int64(len(s.log) - start)
	return nil
}

func (s *Store) writeFrame(frame []byte) error {
	f, err := s.fs.OpenFile(filepath.Join(s.dir, LogName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(frame); err != nil {
		f.Close()
		return err
	}
	// A CommitUnsynced frame is synced by the next frame's sync (one file).
	if s.noSync {
		return f.Close()
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// intact reports whether the snapshot and the journal on disk are the
// files this store last wrote or read, by their sizes: neither removed
// (state/ deleted under a running daemon) nor replaced.
func (s *Store) intact() bool {
	for _, f := range [...]struct {
		name string
		size int
	}{{SnapshotName, len(s.buf)}, {LogName, len(s.log)}} {
		fi, err := s.fs.Lstat(filepath.Join(s.dir, f.name))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(f.size) {
			return false
		}
	}
	return true
}

// liveBytes returns the size of the snapshot Commit would write now, to
// within the optional sections' few bytes a batch.
func (s *Store) liveBytes() int {
	n, h := s.Len(), len(s.hashes)
	b := snapHeaderSize + 68 + 32*h + 24*n + 8 + 8*s.ds.Nonzeros() + 17*h + 10
	if s.dual != nil {
		b += 9 + 8*len(s.dual.Vectors())*(n+1)
	}
	if s.ds.Weights() != nil {
		b += 1 + 8*n
	}
	return b
}

// Compactions returns how many times this store rewrote its snapshot
// since it was opened (Commit's compactions, Compact).
func (s *Store) Compactions() int { return s.compactions }

// BytesWritten returns how many bytes this store's Commits and Compacts
// wrote to its files since it was opened: journal frames, and the snapshot
// and fresh journal of each compaction.
func (s *Store) BytesWritten() int64 { return s.bytesWritten }
