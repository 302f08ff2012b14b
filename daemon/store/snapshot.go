package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
)

// Snapshot file format (store.snap). All integers are little-endian.
//
// Frame, as core/modelfile's:
//
//	bytes  0–7   magic "\x89SVS\r\n\x1a\n" (snapMagic)
//	bytes  8–9   format major version, uint16 (2; 1 is still read);
//	             another is refused
//	bytes 10–11  format minor version, uint16 (0); not checked
//	bytes 12–19  payload length n, uint64; the file is exactly 24 + n bytes
//	bytes 20–23  CRC-32C (Castagnoli) of the payload, uint32
//
// Payload:
//
//	u64 capacity, u64 nonzero capacity, u64 max features, u32 policy
//	             the Config it was written under (the rows must fit it)
//	u64 generation, u64 published (≤ generation)
//	u64 h, then h × 32 bytes   batch hashes in ingestion order, distinct
//	u64 rows, u64 nonzeros, u64 known (rows with α from SetDual, a prefix)
//	rows × u64   ages, nondecreasing, each in 1..generation
//	rows × f64   labels, finite
//	(rows+1) × u64   row starts, from 0, nondecreasing, to nonzeros
//	nonzeros × i32   feature indices, strictly increasing within a row
//	nonzeros × f32   values, finite and nonzero
//	the dual: core.Dual's own encoding (Dual.AppendBinary, read back by
//	  core.DecodeDual, which checks it as SetDual does; kind 2, kernel,
//	  in version 2 only):
//	  u8 dual kind: 0 none, 1 linear, 2 kernel; then
//	  linear: u32 vectors (≤ max(1, rows)), u32 labels, labels × i32,
//	          vectors × rows × f64 α (finite)
//	  kernel: u32 SVM type (LIBSVM's -s: 0 C-SVC, 1 ν-SVC, 2 one-class, 3 ε-SVR, 4 ν-SVR), u32 vectors;
//	          for C-SVC vectors × (i32, i32) class pairs, distinct classes,
//	          no pair twice in either order, vectors ≤ max(1, rows(rows−1)/2);
//	          otherwise exactly one vector and no pairs;
//	          vectors × rows × f64 α (finite; ≥ 0 but for ε-SVR's β)
//	only when some row's instance weight is not 1 (minor version 1):
//	  u8 1, then rows × f64 weights (positive, finite)
//	only when some batch's record is not the default (version 3):
//	  u8 2, then h × (u64 generation, i64 time added in Unix nanoseconds
//	  (0: unknown), u8 flags (bit 0: forgotten; no other bit set)), one
//	  per hash in the same order, generations strictly increasing, each
//	  in 1..generation
//	only when a model version was recorded (SetVersion; version 3):
//	  u8 3, then u64 the version (> 0)
//
// and nothing after. Without a dual, known is 0. A kernel dual's gradient
// is not stored. A snapshot without the weights section (every snapshot
// written before weights existed) reads with every weight 1. Without the
// batches section, batch i (from 0) added generation i + 1 at an unknown
// time and is not forgotten: what every Add recorded before windows, ages
// and Forget existed, so such snapshots keep their bytes.
//
// A snapshot is written with the oldest major version that holds it: 2
// without the batches and version sections, 3 with either.
//
// Version history: 1 had no kernel dual (kind 2 did not exist); its bytes
// are otherwise version 2's, so a version 1 snapshot reads as it was
// written and is rewritten as version 2 by the next Commit. Version 1
// readers refuse version 2 snapshots by their major version. Version 3
// added the batches section; its bytes are otherwise version 2's, and
// version 2 readers refuse it by its major version.
const (
	snapMagic      = "\x89SVS\r\n\x1a\n"
	snapHeaderSize = 24
	snapMajor      = 3
	snapMinor      = 0
	// snapMajorKernel is the first major version with kernel duals.
	snapMajorKernel = 2
	// snapMajorBatches is the first major version with the batches
	// section.
	snapMajorBatches = 3
	// snapMajorOldest is the oldest major version decode reads.
	snapMajorOldest = 1
	// snapMinorWeights marks a snapshot with the instance-weights section.
	snapMinorWeights = 1
)

// hasWeights reports whether some weight of w is not 1.
func hasWeights(w []float64) bool {
	for _, v := range w {
		if v != 1 {
			return true
		}
	}
	return false
}

// Sections after the dual, in this order when present.
const (
	sectionWeights = 1
	sectionBatches = 2
	sectionVersion = 3
)

// batchFlagForgotten marks a forgotten batch in the batches section.
const batchFlagForgotten = 1

// defaultBatches reports whether every batch record is the one a snapshot
// without the batches section reads as: batch i added generation i + 1 at
// an unknown time, not forgotten.
func (s *Store) defaultBatches() bool {
	for i, b := range s.batches {
		if b.gen != uint64(i+1) || b.added != 0 || b.forgotten {
			return false
		}
	}
	return true
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encode appends the snapshot of s to dst.
func (s *Store) encode(dst []byte) []byte {
	le := binary.LittleEndian
	start := len(dst)
	dst = append(dst, make([]byte, snapHeaderSize)...)
	dst = le.AppendUint64(dst, uint64(s.cfg.Capacity))
	dst = le.AppendUint64(dst, uint64(s.cfg.CapacityNonzeros))
	dst = le.AppendUint64(dst, uint64(s.cfg.MaxFeatures))
	dst = le.AppendUint32(dst, uint32(s.cfg.Policy))
	dst = le.AppendUint64(dst, s.gen)
	dst = le.AppendUint64(dst, s.published)
	dst = le.AppendUint64(dst, uint64(len(s.hashes)))
	for _, h := range s.hashes {
		dst = append(dst, h[:]...)
	}
	n := s.Len()
	dst = le.AppendUint64(dst, uint64(n))
	dst = le.AppendUint64(dst, uint64(s.ds.Nonzeros()))
	dst = le.AppendUint64(dst, uint64(s.known))
	for _, a := range s.age[:n] {
		dst = le.AppendUint64(dst, a)
	}
	for _, y := range s.ds.Labels() {
		dst = le.AppendUint64(dst, math.Float64bits(y))
	}
	p := 0
	dst = le.AppendUint64(dst, 0)
	for i := range n {
		idx, _ := s.ds.SparseRow(i)
		p += len(idx)
		dst = le.AppendUint64(dst, uint64(p))
	}
	for i := range n {
		idx, _ := s.ds.SparseRow(i)
		for _, j := range idx {
			dst = le.AppendUint32(dst, uint32(j))
		}
	}
	for i := range n {
		_, val := s.ds.SparseRow(i)
		for _, v := range val {
			dst = le.AppendUint32(dst, math.Float32bits(v))
		}
	}
	dst = s.dual.AppendBinary(dst)
	minor := uint16(snapMinor)
	if w := s.ds.Weights(); hasWeights(w) {
		// Written only when needed: a store without weights writes the
		// bytes it wrote before weights existed.
		minor = snapMinorWeights
		dst = append(dst, sectionWeights)
		for _, v := range w {
			dst = le.AppendUint64(dst, math.Float64bits(v))
		}
	}
	major := uint16(snapMajorKernel)
	if !s.defaultBatches() {
		major = snapMajorBatches
		dst = append(dst, sectionBatches)
		for _, b := range s.batches {
			dst = le.AppendUint64(dst, b.gen)
			dst = le.AppendUint64(dst, uint64(b.added))
			var flags byte
			if b.forgotten {
				flags = batchFlagForgotten
			}
			dst = append(dst, flags)
		}
	}
	if s.version != 0 {
		// Likewise: a store that never recorded a version writes the
		// bytes it wrote before versions were recorded.
		major = snapMajorBatches
		dst = append(dst, sectionVersion)
		dst = le.AppendUint64(dst, s.version)
	}
	h := dst[start : start+snapHeaderSize]
	payload := dst[start+snapHeaderSize:]
	copy(h[0:8], snapMagic)
	le.PutUint16(h[8:10], major)
	le.PutUint16(h[10:12], minor)
	le.PutUint64(h[12:20], uint64(len(payload)))
	le.PutUint32(h[20:24], crc32.Checksum(payload, castagnoli))
	return dst
}

// reader reads little-endian values from a payload; the first read past
// the end sets bad, and every later read returns zero.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u8() uint8 {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

// fits reports whether count elements of size bytes each are left, without
// overflow: the check made before anything is allocated for them.
func (r *reader) fits(count, size uint64) bool {
	return !r.bad && count <= uint64(len(r.b))/size
}

// corrupt returns an error wrapping ErrCorrupt.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// decode loads the snapshot data into s, which must be empty (fresh from
// newStore). It never panics. Allocation is bounded by s's Config and
// len(data): the store's own buffers are already allocated; hashes take
// 32 bytes of input each; a scratch row is at most MaxFeatures long; and α
// vectors (Capacity values each) are at most maxVectorsFor(rows) and
// len(data)/(8·rows) in number (so at most sqrt(len(data)/8) for a linear
// dual, (len(data)/8)^(2/3) for a kernel one), a kernel dual's pairs 8
// bytes of input each. Errors wrap ErrCorrupt, or ErrConfig when a valid snapshot's
// rows do not fit s's Config; on error s is left partly filled and must be
// discarded.
func (s *Store) decode(data []byte) error {
	payload, major, err := openSnapshot(data)
	if err != nil {
		return err
	}
	r := &reader{b: payload}
	written, err := s.decodeHeader(r)
	if err != nil {
		return err
	}
	if err := s.decodeHashes(r); err != nil {
		return err
	}
	s.written = written
	n, known, err := s.decodeRows(r, written)
	if err != nil {
		return err
	}
	dual, rest, err := core.DecodeDual(r.b, n, core.StateOptions{NoKernel: major < snapMajorKernel}, s.buffer)
	if err != nil {
		return corrupt("%v", err)
	}
	r.b = rest
	if dual == nil && known != 0 {
		return corrupt("%d rows with α but no dual", known)
	}
	if dual != nil {
		s.dual, s.known = dual, int(known)
	}
	if err := s.decodeSections(r, n, major); err != nil {
		return err
	}
	if r.bad {
		return corrupt("truncated")
	}
	if len(r.b) != 0 {
		return corrupt("%d bytes after the payload's last field", len(r.b))
	}
	return nil
}

// openSnapshot checks a snapshot's frame (magic, major version, payload
// length and checksum) and returns its payload and major version.
func openSnapshot(data []byte) (payload []byte, major uint16, err error) {
	if len(data) < snapHeaderSize {
		return nil, 0, corrupt("%d bytes, shorter than the %d-byte header", len(data), snapHeaderSize)
	}
	le := binary.LittleEndian
	if string(data[:8]) != snapMagic {
		return nil, 0, corrupt("not a store snapshot (bad magic)")
	}
	major = le.Uint16(data[8:10])
	if major < snapMajorOldest || major > snapMajor {
		return nil, 0, corrupt("format version %d.%d, this reader knows %d to %d", major, le.Uint16(data[10:12]), snapMajorOldest, snapMajor)
	}
	if n := le.Uint64(data[12:20]); n != uint64(len(data)-snapHeaderSize) {
		return nil, 0, corrupt("payload of %d bytes, the header says %d", len(data)-snapHeaderSize, n)
	}
	payload = data[snapHeaderSize:]
	if crc32.Checksum(payload, castagnoli) != le.Uint32(data[20:24]) {
		return nil, 0, corrupt("checksum mismatch")
	}
	return payload, major, nil
}

// writtenConfig is the configuration a snapshot was written under, as far
// as its rows are bounded by it.
type writtenConfig struct {
	capacity, nonzeros, maxFeatures uint64
}

// decodeHeader reads the payload's header fields: the configuration it
// was written under and s's generations.
func (s *Store) decodeHeader(r *reader) (writtenConfig, error) {
	var w writtenConfig
	var policy uint32
	w.capacity, w.nonzeros, w.maxFeatures, policy = r.u64(), r.u64(), r.u64(), r.u32()
	s.gen, s.published = r.u64(), r.u64()
	if r.bad {
		return w, corrupt("truncated header fields")
	}
	if w.capacity == 0 || w.maxFeatures == 0 || w.maxFeatures > math.MaxInt32+1 || policy > uint32(EvictOldest) {
		return w, corrupt("written under an impossible configuration (capacity %d, max features %d, policy %d)", w.capacity, w.maxFeatures, policy)
	}
	if s.published > s.gen {
		return w, corrupt("published generation %d after the current %d", s.published, s.gen)
	}
	return w, nil
}

// decodeHashes reads the hashes of the batches ingested.
func (s *Store) decodeHashes(r *reader) error {
	nh := r.u64()
	if !r.fits(nh, 32) {
		return corrupt("%d hashes claimed, %d bytes left", nh, len(r.b))
	}
	s.hashes = make([]Hash, nh)
	s.batches = make([]batchRecord, nh)
	for i := range s.hashes {
		s.batches[i].gen = uint64(i + 1) // unless the batches section says otherwise
		copy(s.hashes[i][:], r.take(32))
		if s.Has(s.hashes[i]) {
			return corrupt("hash %x recorded twice", s.hashes[i][:8])
		}
		s.seen[s.hashes[i]] = struct{}{}
	}
	return nil
}

// decodeRows reads the rows (ages, labels and nonzeros) into s and
// returns their count and how many have α.
func (s *Store) decodeRows(r *reader, w writtenConfig) (n int, known uint64, err error) {
	le := binary.LittleEndian
	rows, nnz, known := r.u64(), r.u64(), r.u64()
	if r.bad {
		return 0, 0, corrupt("truncated row counts")
	}
	// Per row 8 (age) + 8 (label) + 8 (start); per nonzero 4 + 4.
	if !r.fits(rows, 24) || !r.fits(nnz, 8) || rows*24+nnz*8+8 > uint64(len(r.b)) {
		return 0, 0, corrupt("%d rows and %d nonzeros claimed, %d bytes left", rows, nnz, len(r.b))
	}
	if rows > w.capacity || nnz > w.nonzeros || known > rows {
		return 0, 0, corrupt("%d rows, %d nonzeros, %d with α, beyond the capacity written (%d rows, %d nonzeros)",
			rows, nnz, known, w.capacity, w.nonzeros)
	}
	if rows > uint64(s.cfg.Capacity) || nnz > uint64(s.cfg.CapacityNonzeros) {
		return 0, 0, fmt.Errorf("%w: the snapshot holds %d rows and %d nonzeros, the store is configured for %d and %d",
			ErrConfig, rows, nnz, s.cfg.Capacity, s.cfg.CapacityNonzeros)
	}
	n = int(rows)
	ages := r.take(rows * 8)
	labels := r.take(rows * 8)
	starts := r.take((rows + 1) * 8)
	indices := r.take(nnz * 4)
	values := r.take(nnz * 4)
	prevAge := uint64(1)
	for i := range n {
		a := le.Uint64(ages[8*i:])
		if a < prevAge || a > s.gen {
			return 0, 0, corrupt("row %d has age %d (previous %d, generation %d)", i, a, prevAge, s.gen)
		}
		s.age[i], prevAge = a, a
	}
	if le.Uint64(starts) != 0 || le.Uint64(starts[8*n:]) != nnz {
		return 0, 0, corrupt("row starts do not span the %d nonzeros", nnz)
	}
	for i := range n {
		lo, hi := le.Uint64(starts[8*i:]), le.Uint64(starts[8*i+8:])
		if hi < lo || hi > nnz {
			return 0, 0, corrupt("row %d spans nonzeros %d to %d of %d", i, lo, hi, nnz)
		}
		y := math.Float64frombits(le.Uint64(labels[8*i:]))
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return 0, 0, corrupt("row %d has label %v", i, y)
		}
		if err := s.decodeRow(i, y, indices[4*lo:4*hi], values[4*lo:4*hi], w.maxFeatures); err != nil {
			return 0, 0, err
		}
	}
	return n, known, nil
}

// decodeSections reads the optional sections after the dual, each at most
// once and in order, as a version major snapshot may hold them.
func (s *Store) decodeSections(r *reader, n int, major uint16) error {
	for last := byte(0); len(r.b) > 0 && !r.bad; {
		var err error
		sec := r.u8()
		switch {
		case sec == sectionWeights && last < sectionWeights:
			err = s.decodeWeights(r, n)
		case sec == sectionBatches && last < sectionBatches && major >= snapMajorBatches:
			err = s.decodeBatches(r)
		case sec == sectionVersion && last < sectionVersion && major >= snapMajorBatches:
			if s.version = r.u64(); s.version == 0 && !r.bad {
				err = corrupt("model version section holding 0")
			}
		default:
			return corrupt("section %d after section %d in a version %d snapshot", sec, last, major)
		}
		if err != nil {
			return err
		}
		last = sec
	}
	return nil
}

// decodeBatches reads the batches section: one record per hash decoded.
func (s *Store) decodeBatches(r *reader) error {
	const size = 17 // u64 generation, i64 time, u8 flags
	if !r.fits(uint64(len(s.batches)), size) {
		return corrupt("%d batch records claimed, %d bytes left", len(s.batches), len(r.b))
	}
	le := binary.LittleEndian
	prev := uint64(0)
	for i := range s.batches {
		p := r.take(size)
		gen, added, flags := le.Uint64(p), int64(le.Uint64(p[8:])), p[16]
		if gen <= prev || gen > s.gen || flags&^batchFlagForgotten != 0 {
			return corrupt("batch %d: generation %d (previous %d, current %d), flags %#x", i, gen, prev, s.gen, flags)
		}
		s.batches[i] = batchRecord{gen: gen, added: added, forgotten: flags&batchFlagForgotten != 0}
		prev = gen
	}
	return nil
}

// decodeWeights reads the instance-weights section of n rows, after its
// section byte.
func (s *Store) decodeWeights(r *reader, n int) error {
	if !r.fits(uint64(n), 8) {
		return corrupt("%d weights claimed, %d bytes left", n, len(r.b))
	}
	w := r.take(uint64(n) * 8)
	for i := range n {
		v := math.Float64frombits(binary.LittleEndian.Uint64(w[8*i:]))
		if err := s.ds.SetWeight(i, v); err != nil {
			return corrupt("row %d: %v", i, err)
		}
	}
	return nil
}

// decodeRow checks row i (label y, little-endian indices and values) and
// appends it to the data set; written is the MaxFeatures it was written
// under, which its indices must respect.
func (s *Store) decodeRow(i int, y float64, indices, values []byte, written uint64) error {
	le := binary.LittleEndian
	k := len(indices) / 4
	if uint64(k) > written {
		return corrupt("row %d has %d nonzeros, more than the %d features written", i, k, written)
	}
	if k > s.cfg.MaxFeatures {
		return fmt.Errorf("%w: row %d has %d nonzeros, the store is configured for %d features", ErrConfig, i, k, s.cfg.MaxFeatures)
	}
	if cap(s.row) < k {
		s.row, s.rowv = make([]int32, k), make([]float32, k)
	}
	idx, val := s.row[:k], s.rowv[:k]
	prev := int64(-1)
	for t := range k {
		j := int32(le.Uint32(indices[4*t:]))
		v := math.Float32frombits(le.Uint32(values[4*t:]))
		if int64(j) <= prev || uint64(j) >= written {
			return corrupt("row %d: index %d after %d (features written %d)", i, j, prev, written)
		}
		if v == 0 || v-v != 0 {
			return corrupt("row %d: value %v at index %d", i, v, j)
		}
		if int(j) >= s.cfg.MaxFeatures {
			return fmt.Errorf("%w: row %d has index %d, the store is configured for %d features", ErrConfig, i, j, s.cfg.MaxFeatures)
		}
		idx[t], val[t], prev = j, v, int64(j)
	}
	if err := s.ds.AppendSparse(y, idx, val); err != nil {
		// The checks above and the capacities checked by decode rule
		// this out.
		return corrupt("row %d: %v", i, err)
	}
	return nil
}
