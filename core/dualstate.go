package core

// The training state between runs (a *Dual) is opaque to the programs
// that keep it (DESIGN.md §4): the daemon, its store and the C ABI hold it,
// cut it to the rows they keep, drop rows from it, check it, write it as a
// blob and read it back through the methods below, and never branch on
// its kind. What a warm start takes from the stored state and the last
// run's is the trainer's business (Trainer.WarmStart).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// ErrState reports a training state that cannot start a run on the rows
// given: of the other kind or formulation than the trainer's (WarmStart),
// or whose vectors do not fit the rows (Check, DecodeDual).
var ErrState = errors.New("core: training state does not fit")

// The kinds of state in the encoding (AppendBinary): the byte that starts
// it.
const (
	stateNone   = 0
	stateLinear = 1
	stateKernel = 2
)

// IsSupport reports whether row i has a nonzero dual variable in some
// vector of d (i < d.Rows()): a support vector of the run, which shapes
// its model. A nil d has none.
func (d *Dual) IsSupport(i int) bool {
	for _, a := range d.alpha() {
		if a[i] != 0 {
			return true
		}
	}
	return false
}

// Vectors returns d's α vectors, whichever kind d is, aliasing d's (read
// only): a keeper that records a run's state as a change of the one it
// holds (daemon/store's journal) compares them value by value. A nil d
// gives nil.
func (d *Dual) Vectors() [][]float64 { return d.alpha() }

// VectorsOf returns, for each α vector k of d, the index of o's vector
// that is for the same subproblem: for a kernel C-SVC or ν-SVC dual the
// same pair of classes in either order (the pair's α do not depend on
// which class is +1), for a linear dual of one vector per class the same
// class, and 0 for a dual of one vector (a two-class linear dual of the
// same two classes, one-class, the SVRs, linear regression). It returns nil
// when d and o are not of the same kind and formulation over the same
// pairs or classes. Training lists the pairs in the order the classes
// appear in the rows, which a sliding window changes: a keeper recording d
// as a change of the state it holds (daemon/store's journal) compares each
// vector with its match.
func (d *Dual) VectorsOf(o *Dual) []int {
	if d == nil || o == nil || len(d.alpha()) != len(o.alpha()) || len(d.alpha()) == 0 {
		return nil
	}
	switch {
	case d.Kernel != nil && o.Kernel != nil:
		if d.Kernel.SVMType != o.Kernel.SVMType || len(d.Kernel.Pairs) != len(o.Kernel.Pairs) {
			return nil
		}
		if len(d.Kernel.Pairs) == 0 {
			return []int{0} // one vector: checkKernelShape
		}
		unordered := func(p [2]int32) [2]int32 { return [2]int32{min(p[0], p[1]), max(p[0], p[1])} }
		at := make(map[[2]int32]int, len(o.Kernel.Pairs))
		for k, p := range o.Kernel.Pairs {
			at[unordered(p)] = k
		}
		return matchVectors(len(d.Kernel.Pairs), func(k int) (int, bool) { j, ok := at[unordered(d.Kernel.Pairs[k])]; return j, ok })
	case d.Linear != nil && o.Linear != nil:
		dl, ol := d.Linear.Labels, o.Linear.Labels
		if len(dl) != len(ol) {
			return nil
		}
		if len(d.Linear.Alpha) == 1 {
			// One decision function over these classes (or regression).
			for _, l := range dl {
				if !slices.Contains(ol, l) {
					return nil
				}
			}
			return []int{0}
		}
		if len(dl) != len(d.Linear.Alpha) {
			return nil
		}
		return matchVectors(len(dl), func(k int) (int, bool) { j := slices.Index(ol, dl[k]); return j, j >= 0 })
	}
	return nil
}

// matchVectors returns the match of each of n vectors, nil when one has
// none or two have the same.
func matchVectors(n int, match func(k int) (int, bool)) []int {
	perm := make([]int, n)
	used := make([]bool, n)
	for k := range perm {
		j, ok := match(k)
		if !ok || used[j] {
			return nil
		}
		perm[k], used[j] = j, true
	}
	return perm
}

// maxVectors returns the most vectors a state of d's kind may have over n
// rows: a linear one max(1, n) (one per class at most), a kernel C-SVC or
// ν-SVC one max(1, n(n−1)/2) (one per pair of classes), one-class and the
// SVRs one. A state with more cannot be a run's on n rows.
func (d *Dual) maxVectors(n int) int {
	switch {
	case d.Kernel == nil:
		return max(1, n)
	case d.Kernel.SVMType.IsSVC():
		return max(1, n*(n-1)/2)
	}
	return 1
}

// Fits reports whether d can be a run's state on n rows by its vector
// count (see Check); a program that removes rows drops a state that no
// longer fits them.
func (d *Dual) Fits(n int) bool { return len(d.alpha()) <= d.maxVectors(n) }

// Check reports, wrapping ErrState, why d cannot be the state of a run on
// n rows: not exactly one of a linear and a kernel dual; more vectors than
// n rows allow (Fits); a vector of another length than n; a value that is
// not finite, or negative where the formulation's variables are not (all
// but a linear or kernel regression's β); for a kernel dual, a
// formulation SMO does not train, or C-SVC pairs that are not one pair of
// distinct classes a vector with no pair twice (in either order).
func (d *Dual) Check(n int) error {
	switch {
	case d == nil || (d.Linear == nil) == (d.Kernel == nil):
		return fmt.Errorf("%w: want exactly one of a linear and a kernel dual", ErrState)
	case d.Kernel != nil:
		if err := checkKernelShape(d.Kernel.SVMType, d.Kernel.Pairs, len(d.Kernel.Alpha), n); err != nil {
			return err
		}
	}
	if !d.Fits(n) {
		return fmt.Errorf("%w: %d vectors for %d rows (at most %d)", ErrState, len(d.alpha()), n, d.maxVectors(n))
	}
	nonNeg := d.Kernel != nil && !d.Kernel.SVMType.IsRegression()
	for k, a := range d.alpha() {
		if len(a) != n {
			return fmt.Errorf("%w: vector %d has %d values for %d rows", ErrState, k, len(a), n)
		}
		if i := badAlpha(a, nonNeg); i >= 0 {
			if v := a[i]; v < 0 && !math.IsInf(v, 0) {
				return fmt.Errorf("%w: α[%d][%d] = %v is negative", ErrState, k, i, v)
			}
			return fmt.Errorf("%w: α[%d][%d] = %v is not finite", ErrState, k, i, a[i])
		}
	}
	return nil
}

// badAlpha returns the position of the first value of a that is not
// finite, or negative (−0 is not) when nonNeg is set; −1 when there is
// none. Four values take one branch: their bits, less the sign unless
// nonNeg, all lie below +Inf's only when the four are finite (and ≥ +0 for
// nonNeg). The store checks every α of a batch's retrain (SetDual) with
// it: 21 pairs over 40,000 rows are 840,000 values a batch.
func badAlpha(a []float64, nonNeg bool) int {
	const inf = 0x7ff0_0000_0000_0000 // +Inf's bits: finite values below
	sign := uint64(1) << 63
	if nonNeg {
		sign = 0
	}
	for k := 0; k < len(a); k += 4 {
		if k+4 <= len(a) {
			b := a[k : k+4 : k+4]
			if max(math.Float64bits(b[0])&^sign, math.Float64bits(b[1])&^sign,
				math.Float64bits(b[2])&^sign, math.Float64bits(b[3])&^sign) < inf {
				continue
			}
		}
		for i := k; i < min(k+4, len(a)); i++ {
			if v := a[i]; math.IsNaN(v) || math.IsInf(v, 0) || nonNeg && v < 0 {
				return i
			}
		}
	}
	return -1
}

// checkKernelShape checks a kernel dual's formulation and pairs against
// its vector count nvec over n rows.
func checkKernelShape(svm SVMType, pairs [][2]int32, nvec, n int) error {
	switch svm {
	case CSVC, NuSVC:
		if nvec == 0 || len(pairs) != nvec {
			return fmt.Errorf("%w: %v dual with %d pairs and %d vectors (want as many, at least one)", ErrState, svm, len(pairs), nvec)
		}
		if most := max(1, n*(n-1)/2); nvec > most {
			return fmt.Errorf("%w: %d pairs for %d rows (at most %d)", ErrState, nvec, n, most)
		}
		seen := make(map[[2]int32]struct{}, len(pairs))
		for k, p := range pairs {
			if p[0] == p[1] {
				return fmt.Errorf("%w: pair %d is class %d against itself", ErrState, k, p[0])
			}
			u := [2]int32{min(p[0], p[1]), max(p[0], p[1])}
			if _, dup := seen[u]; dup {
				return fmt.Errorf("%w: pair %d (%d, %d) given twice", ErrState, k, p[0], p[1])
			}
			seen[u] = struct{}{}
		}
	case OneClass, EpsSVR, NuSVR:
		if nvec != 1 || len(pairs) != 0 {
			return fmt.Errorf("%w: %v dual with %d vectors and %d pairs (want one vector, no pairs)", ErrState, svm, nvec, len(pairs))
		}
	default:
		return fmt.Errorf("%w: %v is not a formulation SMO trains", ErrState, svm)
	}
	return nil
}

// CopyInto returns a copy of d's dual variables for a keeper of fixed
// memory: vector k is copied into buf(k)[:d.Rows()] (buf(k) must hold that
// many), labels and pairs are copied, and the run's extras (primal start,
// gradients, scaling) are left out: they are a run's, not the rows'. A nil
// d gives nil.
func (d *Dual) CopyInto(buf func(k int) []float64) *Dual {
	if d == nil {
		return nil
	}
	n := d.Rows()
	vecs := func(alpha [][]float64) [][]float64 {
		out := make([][]float64, len(alpha))
		for k, a := range alpha {
			out[k] = buf(k)[:n]
			copy(out[k], a)
		}
		return out
	}
	c := &Dual{}
	if l := d.Linear; l != nil {
		c.Linear = &linear.LinearDual{Labels: cloneOrNil(l.Labels), Alpha: vecs(l.Alpha)}
	}
	if k := d.Kernel; k != nil {
		c.Kernel = &KernelDual{SVMType: k.SVMType, Pairs: cloneOrNil(k.Pairs), Alpha: vecs(k.Alpha)}
	}
	return c
}

// cloneOrNil copies s, keeping nil nil.
func cloneOrNil[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// GrowInPlace extends every vector of d to n ≥ d.Rows() rows within its
// capacity, the rows added with α = 0 (a row appended since the run
// starts there), for a keeper whose vectors are buffers of its row
// capacity (CopyInto). It drops the gradients, which cover the rows they
// were computed on. It panics if n is less than d.Rows() or past a
// vector's capacity.
func (d *Dual) GrowInPlace(n int) {
	grow := func(alpha [][]float64) {
		for k, a := range alpha {
			old := len(a)
			alpha[k] = a[:n]
			clear(alpha[k][old:])
		}
	}
	if n < d.Rows() {
		panic("core: Dual.GrowInPlace: fewer rows than the dual covers")
	}
	if l := d.Linear; l != nil {
		grow(l.Alpha)
		l.Gradient = nil
	}
	if k := d.Kernel; k != nil {
		grow(k.Alpha)
		k.Gradient = nil
	}
}

// MetadataBytes returns the memory d holds besides its α vectors and
// gradients: its labels and C-SVC pairs.
func (d *Dual) MetadataBytes() int {
	b := 0
	if l := d.Linear; l != nil {
		b += cap(l.Labels) * 4
	}
	if k := d.Kernel; k != nil {
		b += cap(k.Pairs) * 8
	}
	return b
}

// WithoutGradient returns d without its gradients (a kernel run's G and
// Ḡ, a linear run's primal Newton state), which cover rows that are gone
// once rows were removed: the α vectors, the primal start and the scaling
// are shared with d, which is not changed. A nil d gives nil.
func (d *Dual) WithoutGradient() *Dual {
	if d == nil {
		return nil
	}
	e := *d
	if k := d.Kernel; k != nil && k.Gradient != nil {
		c := *k
		c.Gradient = nil
		e.Kernel = &c
	}
	if l := d.Linear; l != nil && l.Gradient != nil {
		c := *l
		c.Gradient = nil
		e.Linear = &c
	}
	return &e
}

// AfterRemovals returns the warm start that follows d once rows left the
// store, removed listing each deletion's sorted positions in the rows of
// its moment, oldest first (daemon/store's TakeRemoved). The gradients
// survive: KernelDual.DeleteRows cuts the rows out, and the next Train
// takes the removed support vectors' terms out of it, a kernel column
// each, where dropping it made the next retrain rebuild every pair's
// gradient from α, about a cold solve's kernel work on a full store;
// LinearDual.DeleteRows takes the removed rows' terms out of the primal
// Newton state, where dropping it made the next retrain read every row at
// its start. Positions at or past d's rows (rows a caller held back from
// the run) are not d's and are skipped. d is not changed; a nil d gives
// nil.
func (d *Dual) AfterRemovals(removed [][]int) *Dual { return d.afterRemovals(removed, false) }

// AfterRemovalsInPlace is AfterRemovals for a caller that owns d's α
// vectors and will not use d again: it cuts the rows out of those
// vectors' memory instead of copying them first. The daemon calls it for
// every batch that retires rows, where the copy (every pair's α over
// every row: 27 MB at 21 pairs and 160,000 rows) and its fresh pages cost
// as much as the cut. A kernel gradient is cut in its own memory too
// (KernelDual.DeleteRows), so d's is the result's. d's other fields and
// vector headers are not changed, but its α values are left in an
// unspecified order (a kernel gradient keeps the α it was computed at, so
// it does not read them).
func (d *Dual) AfterRemovalsInPlace(removed [][]int) *Dual { return d.afterRemovals(removed, true) }

// afterRemovals is AfterRemovals, or with inPlace AfterRemovalsInPlace:
// the result cuts copies of d's α vectors and kernel gradient, or d's own
// memory under new headers.
func (d *Dual) afterRemovals(removed [][]int, inPlace bool) *Dual {
	if d == nil || len(removed) == 0 {
		return d
	}
	// removeFrom applies the removals to c, whose α vectors alpha are
	// own's of d's.
	removeFrom := func(c interface{ DeleteRows([]int) error }, alpha [][]float64) bool {
		for _, rows := range removed {
			n := len(alpha[0])
			in := rows[:0:0]
			for _, r := range rows {
				if r < n {
					in = append(in, r)
				}
			}
			if err := c.DeleteRows(in); err != nil {
				return false
			}
		}
		return true
	}
	own := cloneVectors
	if inPlace {
		own = slices.Clone[[][]float64]
	}
	e := *d
	switch k, l := d.Kernel, d.Linear; {
	case k != nil && k.Gradient != nil && len(k.Alpha) > 0:
		c := *k
		c.Alpha = own(k.Alpha)
		if !inPlace {
			c.Gradient = k.Gradient.clone()
		}
		if !removeFrom(&c, c.Alpha) {
			return d.WithoutGradient()
		}
		e.Kernel = &c
	case l != nil && l.Gradient != nil && len(l.Alpha) > 0:
		c := *l
		c.Alpha = own(l.Alpha)
		if !removeFrom(&c, c.Alpha) {
			return d.WithoutGradient()
		}
		e.Linear = &c
	default:
		return d.WithoutGradient()
	}
	return &e
}

// cloneVectors returns a copy of each vector of v.
func cloneVectors(v [][]float64) [][]float64 {
	c := make([][]float64, len(v))
	for k, a := range v {
		c[k] = slices.Clone(a)
	}
	return c
}

// HasGradient reports whether d carries a gradient a warm start can use
// instead of rebuilding it (a kernel run's G and Ḡ, a linear run's primal
// Newton state); false for a nil d.
func (d *Dual) HasGradient() bool {
	return d != nil && (d.Kernel != nil && d.Kernel.Gradient != nil || d.Linear != nil && d.Linear.Gradient != nil)
}

// HasPrimalStart reports whether d carries a linear run's w, the primal
// start of the next run; false for a nil d.
func (d *Dual) HasPrimalStart() bool { return d != nil && d.Primal != nil }

// AppendBinary appends d's dual variables to dst in the encoding the
// daemon's store snapshot holds (daemon/store), and returns the extended
// slice: the gradients, the primal start and the scaling are not encoded
// (they are a run's; core rebuilds a gradient from α). All integers are
// little-endian:
//
//	u8 kind: 0 none (a nil d), 1 linear, 2 kernel; then
//	  linear: u32 vectors, u32 labels, labels × i32,
//	          vectors × rows × f64 α
//	  kernel: u32 SVM type (LIBSVM's -s), u32 vectors; for C-SVC and
//	          ν-SVC vectors × (i32, i32) class pairs; vectors × rows × f64 α
func (d *Dual) AppendBinary(dst []byte) []byte {
	le := binary.LittleEndian
	appendAlpha := func(dst []byte, alpha [][]float64) []byte {
		for _, a := range alpha {
			for _, v := range a {
				dst = le.AppendUint64(dst, math.Float64bits(v))
			}
		}
		return dst
	}
	switch {
	case d == nil || d.Linear == nil && d.Kernel == nil:
		return append(dst, stateNone)
	case d.Kernel != nil:
		k := d.Kernel
		dst = append(dst, stateKernel)
		dst = le.AppendUint32(dst, uint32(k.SVMType))
		dst = le.AppendUint32(dst, uint32(len(k.Alpha)))
		for _, p := range k.Pairs {
			dst = le.AppendUint32(dst, uint32(p[0]))
			dst = le.AppendUint32(dst, uint32(p[1]))
		}
		return appendAlpha(dst, k.Alpha)
	}
	l := d.Linear
	dst = append(dst, stateLinear)
	dst = le.AppendUint32(dst, uint32(len(l.Alpha)))
	dst = le.AppendUint32(dst, uint32(len(l.Labels)))
	for _, lab := range l.Labels {
		dst = le.AppendUint32(dst, uint32(lab))
	}
	return appendAlpha(dst, l.Alpha)
}

// StateOptions bounds what DecodeDual accepts.
type StateOptions struct {
	// NoKernel refuses a kernel dual (an encoding older than them).
	NoKernel bool
}

// DecodeDual decodes a state that AppendBinary wrote for rows rows from
// the start of b, and returns it (nil for kind none) with the bytes after
// it. Vector k is decoded into buf(k)[:rows] (buf(k) must hold that many),
// so a keeper of fixed memory allocates nothing per vector. It never
// panics and allocates, beyond buf, in proportion to len(b): counts are
// checked against the bytes left and the rows before anything is
// allocated. Errors wrap ErrState: a truncated or unknown encoding, or a
// state Check refuses.
func DecodeDual(b []byte, rows int, o StateOptions, buf func(k int) []float64) (*Dual, []byte, error) {
	r := stateReader{b: b}
	d := &Dual{}
	switch kind := r.u8(); {
	case r.bad:
		return nil, nil, fmt.Errorf("%w: truncated: no state kind", ErrState)
	case kind == stateNone:
		return nil, r.b, nil
	case kind == stateLinear:
		nvec, nlab := uint64(r.u32()), uint64(r.u32())
		if r.bad || nvec > uint64(max(1, rows)) || !r.fits(nlab, 4) || (rows > 0 && !r.fits(nvec, uint64(8*rows))) {
			return nil, nil, fmt.Errorf("%w: linear dual with %d vectors and %d labels for %d rows, %d bytes left", ErrState, nvec, nlab, rows, len(r.b))
		}
		var labels []int32
		if nlab > 0 {
			labels = make([]int32, nlab)
			for k := range labels {
				labels[k] = int32(r.u32())
			}
		}
		d.Linear = &linear.LinearDual{Labels: labels, Alpha: r.alpha(nvec, rows, buf)}
	case kind == stateKernel && !o.NoKernel:
		svm, nvec := SVMType(r.u32()), uint64(r.u32())
		// The counts are checked before the pairs are allocated.
		if r.bad || nvec > uint64(max(1, rows*(rows-1)/2)) || (rows > 0 && !r.fits(nvec, uint64(8*rows))) ||
			svm.IsSVC() && !r.fits(nvec, 8) {
			return nil, nil, fmt.Errorf("%w: %v dual with %d vectors for %d rows, %d bytes left", ErrState, svm, nvec, rows, len(r.b))
		}
		var pairs [][2]int32
		if svm.IsSVC() {
			pairs = make([][2]int32, nvec)
			for k := range pairs {
				pairs[k] = [2]int32{int32(r.u32()), int32(r.u32())}
			}
		}
		if err := checkKernelShape(svm, pairs, int(nvec), rows); err != nil {
			return nil, nil, err
		}
		d.Kernel = &KernelDual{SVMType: svm, Pairs: pairs, Alpha: r.alpha(nvec, rows, buf)}
	default:
		return nil, nil, fmt.Errorf("%w: unknown state kind %d", ErrState, kind)
	}
	if r.bad {
		return nil, nil, fmt.Errorf("%w: truncated dual", ErrState)
	}
	if err := d.Check(rows); err != nil {
		return nil, nil, err
	}
	return d, r.b, nil
}

// stateReader reads little-endian values from b; past its end it sets bad
// and returns zeros.
type stateReader struct {
	b   []byte
	bad bool
}

func (r *stateReader) take(n uint64) []byte {
	if r.bad || uint64(len(r.b)) < n {
		r.bad = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *stateReader) u8() uint8 {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *stateReader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

// fits reports whether count values of size bytes each can follow.
func (r *stateReader) fits(count, size uint64) bool {
	return !r.bad && (size == 0 || count <= uint64(len(r.b))/size)
}

// alpha reads nvec vectors of rows values into buf's buffers (their count
// and the bytes left were checked by the caller).
func (r *stateReader) alpha(nvec uint64, rows int, buf func(k int) []float64) [][]float64 {
	raw := r.take(nvec * uint64(rows) * 8)
	if r.bad {
		return nil
	}
	out := make([][]float64, nvec)
	for k := range out {
		a := buf(k)[:rows]
		src := raw[8*rows*k:]
		for i := range a {
			a[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
		}
		out[k] = a
	}
	return out
}

// StateMismatch is WarmStart's error for a stored state that cannot start
// the trainer: of the other kind (linear or kernel), or of another kernel
// formulation. It wraps ErrState.
type StateMismatch struct {
	// OtherKind is true for a state of the other kind, false for another
	// kernel formulation.
	OtherKind bool
	// Stored and Training name the stored state's and the trainer's kind
	// ("linear", "kernel") or formulation (SVMType.String).
	Stored, Training string
}

func (e *StateMismatch) Error() string {
	what := "formulation"
	if e.OtherKind {
		what = "kind"
	}
	return fmt.Sprintf("core: a stored %s training state cannot start a %s trainer (another %s)", e.Stored, e.Training, what)
}

// Unwrap returns ErrState.
func (e *StateMismatch) Unwrap() error { return ErrState }

// stateKind names the kind of a trainer or a state, as ModelInfo.Kind
// names the kind of its models.
func stateKind(kernel bool) string {
	if kernel {
		return KindKernel
	}
	return KindLinear
}

// warmStart is Trainer.WarmStart for a trainer of the given kind and, for
// a kernel one, formulation.
func warmStart(kernel bool, svm SVMType, stored, last *Dual, rows int) (*Dual, error) {
	switch {
	case stored == nil && last != nil && last.Primal != nil && !kernel:
		// No α (a keeper dropped them), but the last linear model's w.
		return &Dual{Primal: last.Primal, Scale: last.Scale}, nil
	case stored == nil:
		return nil, nil
	case (stored.Kernel != nil) != kernel:
		return nil, &StateMismatch{OtherKind: true, Stored: stateKind(stored.Kernel != nil), Training: stateKind(kernel)}
	case kernel && stored.Kernel.SVMType != svm:
		return nil, &StateMismatch{Stored: stored.Kernel.SVMType.String(), Training: svm.String()}
	}
	warm := stored.Prefix(rows)
	if last != nil {
		// --scale: the ranges the stored α were computed under (the
		// trainer starts cold when this run's differ).
		warm.Primal, warm.Scale = last.Primal, last.Scale
		if warm.Kernel != nil && last.Kernel != nil {
			warm.Kernel.Gradient = last.Kernel.Gradient
		}
		if warm.Linear != nil && last.Linear != nil {
			// The primal Newton state (-s 1, -s 2): core checks it too.
			warm.Linear.Gradient = last.Linear.Gradient
		}
	}
	return warm, nil
}
