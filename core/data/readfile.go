package data

// Streaming readers for labelled data files (LIBSVM text and CSV).
//
// A file is read twice by ReadFile: a size query (Scan) that only counts,
// then the parse into a Dataset allocated at exactly that size, because data
// sets have a fixed capacity and never grow. Both passes stream the file
// through one bufio.Reader; the only memory that grows with the input is
// the scratch for a line longer than the reader's buffer, which is kept and
// reused, and the scratch for the longest row. After the first lines,
// parsing a line allocates nothing. A large LIBSVM file is read in two
// halves on two goroutines in both passes, on Linux through a read-only
// mapping whose pages are given back behind the readers (mapfile_linux.go).
// A LIBSVM line's features are parsed by the vector loop of
// features_amd64.s where the CPU has one, then by parseFeatures' SWAR
// loop, then one at a time (parsenum.go).

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// Format is the text format of a data file.
type Format int

const (
	// FormatAuto picks CSV for names ending in ".csv" (any case) and
	// LIBSVM for every other name.
	FormatAuto Format = iota
	// FormatLIBSVM is LIBSVM's sparse text format: one row a line,
	// "label index:value index:value ...", indices 1-based and strictly
	// increasing, separated by spaces or tabs.
	FormatLIBSVM
	// FormatCSV is comma-separated values without quoting or a header: the
	// label in the first column, feature j (0-based) in column j+2.
	FormatCSV
)

// String returns "auto", "libsvm" or "csv".
func (f Format) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatLIBSVM:
		return "libsvm"
	case FormatCSV:
		return "csv"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// resolve returns the concrete format for a file called name.
func (f Format) resolve(name string) (Format, error) {
	switch f {
	case FormatLIBSVM, FormatCSV:
		return f, nil
	case FormatAuto:
		if strings.EqualFold(filepath.Ext(name), ".csv") {
			return FormatCSV, nil
		}
		return FormatLIBSVM, nil
	}
	return f, fmt.Errorf("core: unknown data file format %d", int(f))
}

// DefaultMaxLineBytes is the longest line the readers accept when
// ReadOptions.MaxLineBytes is zero: 1 MiB, about a hundred times the
// longest row of Fashion-MNIST (10,882 bytes), and small enough that an
// input without line breaks (a wrong file, /dev/zero) is refused before it
// costs memory.
// The command's --max-line-bytes and the daemon's --ingest.max-line-bytes
// default to it.
const DefaultMaxLineBytes = 1 << 20

// ReadOptions controls how a data file is read. The zero value reads any
// LIBSVM or CSV file (chosen by the file name) with no feature limit and
// lines of up to DefaultMaxLineBytes.
type ReadOptions struct {
	// Format is the file's format; FormatAuto (the zero value) decides by
	// the file name's extension.
	Format Format
	// MaxFeatures, when positive, is the number of features a row may
	// have: a LIBSVM index above MaxFeatures (indices are 1-based in the
	// file), or a CSV row with more than MaxFeatures feature columns, is a
	// parse error. Zero or negative means no limit beyond int32.
	MaxFeatures int
	// MaxLineBytes is the longest line accepted, in bytes without its
	// line ending; zero or negative means DefaultMaxLineBytes. Both passes
	// (Scan and the parse) stop at the first longer line with a
	// *ParseError wrapping ErrLineTooLong, having held no more than
	// MaxLineBytes plus one read buffer (256 KiB) of it in memory. There is
	// no "no limit": a caller that wants longer lines says how long.
	MaxLineBytes int
	// ClassLabels refuses a label that is not an integer class, for data
	// that trains or tests a classifier: a label with a fraction or
	// outside int32 is a *ParseError at its line wrapping ErrLabels. By
	// default any finite label is accepted (regression targets; labels
	// that a one-class model ignores).
	ClassLabels bool
	// WeightColumn, for a CSV file, is the 1-based column that holds each
	// row's instance weight (see weights.go) instead of a feature: 2 or
	// more, the label being column 1; the feature columns are the others,
	// in order. A weight that is not positive and finite is a *ParseError
	// at its line wrapping ErrBadWeight. Zero (the default) means no weight
	// column. A LIBSVM file keeps its weights in a separate file
	// (ReadWeightFile): a positive WeightColumn is an error for it.
	// Columns are counted after CSVSkipColumns are dropped.
	WeightColumn int
	// CSVHeader says whether a CSV file starts with a header line, which
	// is skipped (csvlayout.go); the zero value recognises one by its label
	// field, which is not a number.
	CSVHeader CSVHeader
	// CSVSkipColumns lists, increasing and 1-based, the columns of a CSV
	// file to drop before the label column is read (pandas' to_csv writes
	// its index as column 1: {1}).
	CSVSkipColumns []int
}

// weightColumnError returns an error when o asks for a weight column that
// format cannot have.
func (o ReadOptions) weightColumnError(format Format) error {
	switch {
	case o.WeightColumn == 0:
		return nil
	case format != FormatCSV:
		return fmt.Errorf("%w: a weight column needs a CSV file (a LIBSVM file's weights are a separate file)", ErrBadWeight)
	case o.WeightColumn < 2:
		return fmt.Errorf("%w: weight column %d (column 1 is the label)", ErrBadWeight, o.WeightColumn)
	}
	return nil
}

// maxLineBytes returns the line limit o asks for.
func (o ReadOptions) maxLineBytes() int {
	if o.MaxLineBytes > 0 {
		return o.MaxLineBytes
	}
	return DefaultMaxLineBytes
}

// FileStats is the answer to the size query: the capacity a data set needs
// to hold a file.
type FileStats struct {
	// Rows is the number of rows (non-blank lines).
	Rows int
	// Nonzeros is the number of entries a sparse data set must hold. For
	// LIBSVM it counts every index:value pair, explicit zeros included;
	// for CSV every feature field not written as a plain zero.
	Nonzeros int
	// NumFeatures is the largest 1-based feature index seen (LIBSVM), or
	// the number of columns minus one (CSV).
	NumFeatures int
}

// ErrSyntax is wrapped by the ParseError for text that does not follow the
// file's format.
var ErrSyntax = errors.New("core: syntax error")

// ErrLineTooLong is wrapped by the ParseError for a line longer than
// ReadOptions.MaxLineBytes.
var ErrLineTooLong = errors.New("core: line too long")

// ErrNotRegularFile is wrapped by the error of ReadFile and ScanFile for a
// path that is not a regular file (a FIFO, a device such as /dev/zero, a
// directory): ReadFile reads its file twice, a size query and then the
// parse, and a size query of a stream is not an answer.
var ErrNotRegularFile = errors.New("core: not a regular file")

// ErrFileChanged is wrapped by the error of ReadFile for a file that
// shrank while it was read through a mapping (Linux), so that a page of it
// was gone.
var ErrFileChanged = errors.New("core: file changed while it was read")

// ErrLabels is wrapped by the errors that report training labels a
// formulation cannot use (a non-integer class, a single class, no rows),
// and by the readers' error for a label ReadOptions.ClassLabels refuses.
var ErrLabels = errors.New("core: unusable labels")

// ParseError reports a line of a data file that could not be read. Its
// Error is "file:line: what was wrong", for example
//
//	train.txt:17: feature 3: missing ':' in "3-0.5"
//
// Line numbers are 1-based and count every line, blank ones included.
// Unwrap returns the cause: ErrSyntax for malformed text, ErrLineTooLong
// for a line over the limit, ErrLabels for a label ReadOptions.ClassLabels
// refuses, ErrFull when the row does not fit the data set, or the data
// set's error (wrapping ErrBadRow) when it refuses the row.
type ParseError struct {
	File string // the name given to the reader (the path for ReadFile)
	Line int    // 1-based line number
	Msg  string // what was wrong, without the file and line
	Err  error  // the cause, for errors.Is
}

// Error returns "file:line: msg".
func (e *ParseError) Error() string {
	return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// readBufferSize is the bufio buffer of both passes: large enough that
// read system calls and per-call overhead vanish against parsing, small
// enough for an edge device.
const readBufferSize = 256 << 10

// ScanFile answers the size query for the file at path: see Scan. The
// format is resolved from path when opt.Format is FormatAuto. A path that
// is not a regular file is refused (ErrNotRegularFile) before it is read.
func ScanFile(path string, opt ReadOptions) (FileStats, error) {
	f, err := openRegular(path)
	if err != nil {
		return FileStats{}, err
	}
	defer f.Close()
	return Scan(f, path, opt)
}

// openRegular opens path for reading and returns it if it is a regular
// file, with fileio's rule (no blocking on a FIFO, fstat of the open file).
func openRegular(path string) (*os.File, error) {
	f, _, err := fileio.OpenRegular(path)
	var nr *fileio.NotRegularError
	if errors.As(err, &nr) {
		return nil, fmt.Errorf("%w: %s is %s; a data file is read twice, a size query and then the parse",
			ErrNotRegularFile, path, fileio.KindOf(nr.Mode))
	}
	return f, err
}

// Scan reads r to its end and returns the capacity needed to hold it: the
// number of rows, nonzeros and features. It is much faster than parsing
// because it does not validate: for a file that ReadInto accepts, the
// counts are upper bounds that make ReadInto succeed into a data set of
// that size (for LIBSVM they are exact, but for explicit zero values); for
// other files they are meaningless, and the parse reports the error. name
// resolves FormatAuto and appears in errors. Errors come from reading r
// and from a line longer than opt.MaxLineBytes (a *ParseError).
func Scan(r io.Reader, name string, opt ReadOptions) (FileStats, error) {
	format, err := opt.Format.resolve(name)
	if err != nil {
		return FileStats{}, err
	}
	if err := opt.weightColumnError(format); err != nil {
		return FileStats{}, err
	}
	layout, err := csvLayoutOf(opt, format)
	if err != nil {
		return FileStats{}, err
	}
	st, err := scanLines(newLineReader(r, opt.maxLineBytes()), name, format, layout)
	return st.withoutWeightColumn(opt), err
}

// withoutWeightColumn takes a CSV weight column out of the feature count.
func (st FileStats) withoutWeightColumn(opt ReadOptions) FileStats {
	if opt.WeightColumn > 0 && st.NumFeatures > 0 {
		st.NumFeatures--
	}
	return st
}

func scanLines(lr *lineReader, name string, format Format, layout *csvLayout) (FileStats, error) {
	var st FileStats
	for {
		line, err := lr.next()
		if err != nil {
			if err == io.EOF {
				return st, nil
			}
			return st, lr.readError(name, err)
		}
		if format == FormatCSV {
			line, header := layout.line(line)
			if !header {
				scanCSVLine(&st, line)
			}
		} else {
			scanLIBSVMLine(&st, line)
		}
	}
}

// scanLIBSVMLine adds one line's counts to st. A valid line has one ':' a
// feature and its last index is its largest, so two fast byte searches
// (bytes.Count is vectorised) give everything without tokenising.
func scanLIBSVMLine(st *FileStats, line []byte) {
	c := bytes.Count(line, []byte{':'})
	if c == 0 {
		if !isBlankLine(line) {
			st.Rows++ // a label alone: a row with no features
		}
		return
	}
	st.Rows++
	st.Nonzeros += c
	j := bytes.LastIndexByte(line, ':')
	k := j
	for k > 0 && line[k-1]-'0' <= 9 {
		k--
	}
	idx, _ := scanIndex(line[k:j])
	st.NumFeatures = max(st.NumFeatures, int(min(idx, maxIndex)))
}

// ReadFile reads the data file at path into a new Dataset of exactly the
// capacity it needs. It scans the file first (see Scan), then allocates a
// dense data set when PreferDense(rows, numFeatures, nonzeros), of
// width NumFeatures, and a sparse one with maxFeatures = opt.MaxFeatures
// otherwise, then parses the file into it (see ReadInto). The file must be
// seekable (use Scan and ReadInto for streams) and must not change between
// the passes: a path that is not a regular file (a FIFO, a device) is
// refused before it is read, with an error wrapping ErrNotRegularFile.
// Other errors are those of os.Open and ReadInto: a *ParseError for a bad
// line.
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	format, err := opt.Format.resolve(path)
	if err != nil {
		return nil, err
	}
	opt.Format = format
	if err := opt.weightColumnError(format); err != nil {
		return nil, err
	}
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	layout, err := csvLayoutOf(opt, format)
	if err != nil {
		return nil, err
	}
	lr := newLineReader(f, opt.maxLineBytes())
	var h *halves
	if fi, err := f.Stat(); err == nil && format == FormatLIBSVM && fi.Size() >= parallelReadBytes && runtime.GOMAXPROCS(0) > 1 {
		if off, ok := lineStart(f, fi.Size()/2, opt.maxLineBytes()); ok {
			h = &halves{f: f, size: fi.Size(), path: path, split: splitPoint{off: off}}
			if mem, unmap, ok := mapFile(f, fi.Size()); ok {
				h.mem = mem
				defer unmap()
			}
		}
	}
	var st FileStats
	var lrB *lineReader // the second half's reader
	if h != nil {
		st, lrB, err = h.scan(lr, opt)
	} else {
		st, err = scanLines(lr, path, format, layout)
	}
	if err != nil {
		return nil, err
	}
	st = st.withoutWeightColumn(opt)
	if h != nil && h.split.rows > 0 && h.split.rows < st.Rows {
		if ds, ok, err := h.read(lr, lrB, opt, st); ok {
			return ds, err
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("core: reading %s: %w", path, err)
	}
	lr.reset(f)
	var ds *Dataset
	if denseFits(st) {
		ds = NewDense(st.Rows, st.NumFeatures)
	} else {
		ds = NewSparse(st.Rows, st.Nonzeros, max(opt.MaxFeatures, 0))
	}
	if _, err := readLines(ds, lr, path, opt); err != nil {
		return nil, err
	}
	return ds, nil
}

// parallelReadBytes is the smallest LIBSVM file ReadFile parses on two
// goroutines: below it a second goroutine and reader cost more than half
// a parse saves (a 1 MB file parses in about 10 ms).
const parallelReadBytes = 4 << 20

// splitPoint is where ReadFile cuts a file in two halves: the byte offset
// of a line's start, and the number of lines, of rows and of nonzeros as
// the scan counts them (explicit zeros included) before it.
type splitPoint struct {
	off      int64
	line     int
	rows     int
	nonzeros int
}

// lineStart returns the offset of the first line of f that starts at or
// past off (0 < off), reading from off−1 on; ok is false when the file
// ends first or no line ends within maxLine+2 bytes (a line too long,
// which a sequential scan then reports at its line).
func lineStart(f *os.File, off int64, maxLine int) (start int64, ok bool) {
	buf := make([]byte, min(64<<10, maxLine+2))
	for pos := off - 1; pos-off < int64(maxLine)+2; {
		n, err := f.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, true
		}
		if err != nil {
			return 0, false
		}
		pos += int64(n)
	}
	return 0, false
}

// halves is a LIBSVM file ReadFile reads on two goroutines, one each side
// of split.off (a line's start): scan, then read.
type halves struct {
	f     *os.File
	size  int64
	path  string
	split splitPoint
	// mem, when not nil, is the file mapped (mapFile): the halves' lines
	// are views into it, not copies through a read buffer.
	mem []byte
}

// reset points lr at the first half (second false) or the second, its
// line count at 0.
func (h *halves) reset(lr *lineReader, second bool) {
	from, to := int64(0), h.split.off
	if second {
		from, to = h.split.off, h.size
	}
	if h.mem != nil {
		lr.resetMem(h.mem[from:to])
		return
	}
	if second {
		to = math.MaxInt64 // to the end, should the file have grown
	}
	lr.reset(io.NewSectionReader(h.f, from, to-from))
}

// both runs a on the calling goroutine and b on another, and returns
// their errors; with the file mapped, each turns a fault on the mapping
// into an error (readMapped).
func (h *halves) both(a, b func() error) (errA, errB error) {
	if h.mem != nil {
		a0, b0 := a, b
		a = func() error { return readMapped(h.path, a0) }
		b = func() error { return readMapped(h.path, b0) }
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		errB = b()
	}()
	errA = a()
	<-done
	return errA, errB
}

// scan answers the size query of the file on two goroutines, lr reading
// the first half; it fills split's counts and returns the second half's
// reader too, for the parse to reuse. Its answer and errors are those of
// the scan of the whole file: a line too long in the first half is
// reported before any in the second, as the whole scan stops there, and
// the second half's line numbers count from the file's start.
func (h *halves) scan(lr *lineReader, opt ReadOptions) (FileStats, *lineReader, error) {
	lrB := newLineReader(nil, opt.maxLineBytes())
	h.reset(lr, false)
	h.reset(lrB, true)
	var stA, stB FileStats
	errA, errB := h.both(func() (err error) {
		stA, err = scanLines(lr, h.path, FormatLIBSVM, nil)
		return err
	}, func() (err error) {
		stB, err = scanLines(lrB, h.path, FormatLIBSVM, nil)
		return err
	})
	if errA != nil {
		return FileStats{}, nil, errA
	}
	if errB != nil {
		if pe, ok := errB.(*ParseError); ok {
			pe.Line += lr.line
		}
		return FileStats{}, nil, errB
	}
	h.split.line, h.split.rows, h.split.nonzeros = lr.line, stA.Rows, stA.Nonzeros
	return FileStats{Rows: stA.Rows + stB.Rows, Nonzeros: stA.Nonzeros + stB.Nonzeros,
		NumFeatures: max(stA.NumFeatures, stB.NumFeatures)}, lrB, nil
}

// read parses the file into a data set of st's size on two goroutines,
// each into its own rows of the data set: the same rows, values and errors
// as the sequential parse. A bad line of the first half is reported before
// any of the second's, as the sequential parse would stop at it; each
// half's line numbers count from the file's start. lr and lrB are scan's
// readers of the halves, reused. ok is false, for the caller to parse
// sequentially, when the halves' row counts are not the scan's.
//
// A sparse second half appends into the nonzeros past the first half's
// count from the scan, with row starts of its own; they move into place
// after (its nonzeros only when the first half dropped explicit zeros).
func (h *halves) read(lr, lrB *lineReader, opt ReadOptions, st FileStats) (ds *Dataset, ok bool, err error) {
	var a, b *Dataset
	r, nz := h.split.rows, h.split.nonzeros
	if denseFits(st) {
		ds = NewDense(st.Rows, st.NumFeatures)
		nf := st.NumFeatures
		// Each half appends into a view of its own rows, so neither can write
		// into the other's (a file changed between the passes gets ErrFull).
		view := func(from, to int) *Dataset {
			return &Dataset{dense: true, numFeatures: nf, maxFeatures: nf, y: ds.y[from:to:to], x: ds.x[from*nf : to*nf : to*nf]}
		}
		a, b = view(0, r), view(r, st.Rows)
	} else {
		ds = NewSparse(st.Rows, st.Nonzeros, max(opt.MaxFeatures, 0))
		mf := ds.maxFeatures
		a = &Dataset{maxFeatures: mf, y: ds.y[:r:r], rowStart: ds.rowStart[: r+1 : r+1], index: ds.index[:nz:nz], value: ds.value[:nz:nz]}
		b = &Dataset{maxFeatures: mf, y: ds.y[r:], rowStart: make([]int, st.Rows-r+1), index: ds.index[nz:], value: ds.value[nz:]}
	}
	h.reset(lr, false)
	h.reset(lrB, true)
	lrB.line = h.split.line
	errA, errB := h.both(func() error {
		_, err := readLines(a, lr, h.path, opt)
		return err
	}, func() error {
		_, err := readLines(b, lrB, h.path, opt)
		return err
	})
	switch {
	case errA != nil:
		return nil, true, errA
	case errB != nil:
		return nil, true, errB
	case a.rows != r || b.rows != st.Rows-r:
		return nil, false, nil
	}
	if !ds.dense {
		nA, nB := a.rowStart[r], b.rowStart[b.rows]
		if nA != nz {
			copy(ds.index[nA:], ds.index[nz:nz+nB])
			copy(ds.value[nA:], ds.value[nz:nz+nB])
		}
		for k, p := range b.rowStart[1:] {
			ds.rowStart[r+1+k] = nA + p
		}
		ds.numFeatures = max(a.numFeatures, b.numFeatures)
	}
	ds.rows = st.Rows
	return ds, true, nil
}

// denseFits applies PreferDense to st, which may come from a file that
// is not valid and so hold sizes whose product overflows an int.
func denseFits(st FileStats) bool {
	if st.Rows > 0 && st.NumFeatures > math.MaxInt/8/st.Rows {
		return false
	}
	return PreferDense(st.Rows, st.NumFeatures, st.Nonzeros)
}

// ReadInto parses r and appends its rows to dst, and returns the number of
// rows appended. name resolves FormatAuto and names the input in errors.
//
// A bad line stops the read with a *ParseError: ErrSyntax for malformed
// text, ErrFull when dst has no room for the row, or dst's own error
// (wrapping ErrBadRow) when dst refuses it, for example an index beyond a
// dense data set's width. On any error, including a read error from r, dst
// is restored to its state at entry (its rows and NumFeatures) and the
// count returned is 0: nothing is half-appended.
func ReadInto(dst *Dataset, r io.Reader, name string, opt ReadOptions) (int, error) {
	format, err := opt.Format.resolve(name)
	if err != nil {
		return 0, err
	}
	opt.Format = format
	if err := opt.weightColumnError(format); err != nil {
		return 0, err
	}
	return readLines(dst, newLineReader(r, opt.maxLineBytes()), name, opt)
}

func readLines(dst *Dataset, lr *lineReader, name string, opt ReadOptions) (int, error) {
	rows0 := dst.rows
	fail := func(err error) (int, error) {
		dst.Truncate(rows0) // a failed read leaves no trace
		return 0, err
	}
	p := lineParser{format: opt.Format, maxFeatures: max(opt.MaxFeatures, 0), weightColumn: opt.WeightColumn,
		vector: vectorFeatures()}
	layout, err := csvLayoutOf(opt, opt.Format)
	if err != nil {
		return fail(err)
	}
	for {
		line, err := lr.next()
		if err != nil {
			if err == io.EOF {
				return dst.rows - rows0, nil
			}
			return fail(lr.readError(name, err))
		}
		if layout != nil {
			var header bool
			if line, header = layout.line(line); header {
				continue
			}
		}
		// A LIBSVM line bound for a dense data set with room for it is
		// parsed straight into its next row (lineParser.row), which is
		// zero until a row is appended there: an error clears it again.
		p.row = nil
		if dst.dense && p.format == FormatLIBSVM && dst.rows < len(dst.y) {
			p.row = dst.x[dst.rows*dst.numFeatures : (dst.rows+1)*dst.numFeatures]
		}
		label, blank, perr := p.parse(line)
		if perr != nil {
			clear(p.row)
			perr.File, perr.Line = name, lr.line
			return fail(perr)
		}
		if blank {
			continue
		}
		if opt.ClassLabels && !IsClassLabel(label) {
			clear(p.row)
			return fail(&ParseError{File: name, Line: lr.line, Err: ErrLabels,
				Msg: fmt.Sprintf("label %v is not an integer class", label)})
		}
		if p.row != nil {
			// The parser's features increase, are finite and lie in the
			// row; the rest of the line's (index, value) still need the
			// data set's checks.
			if err := dst.appendParsedDense(label, p.index, p.value); err != nil {
				clear(p.row)
				return fail(&ParseError{File: name, Line: lr.line, Msg: err.Error(), Err: err})
			}
			continue
		}
		if p.weightColumn > 0 {
			if err := checkWeight(p.weight); err != nil {
				return fail(&ParseError{File: name, Line: lr.line, Err: ErrBadWeight,
					Msg: fmt.Sprintf("column %d (weight): %v is not positive and finite", p.weightColumn, p.weight)})
			}
		}
		if err := dst.AppendSparse(label, p.index, p.value); err != nil {
			msg := err.Error()
			if err == ErrFull {
				msg = fmt.Sprintf("data set is full (capacity %d rows, %d nonzeros)", dst.CapRows(), dst.CapNonzeros())
			}
			return fail(&ParseError{File: name, Line: lr.line, Msg: msg, Err: err})
		}
		if p.weightColumn > 0 {
			_ = dst.SetWeight(dst.rows-1, p.weight) // checked above
		}
	}
}

// IsClassLabel reports whether a label names a class: an integer that
// fits an int32, as the trainers and the model files store classes.
func IsClassLabel(y float64) bool {
	return y == math.Trunc(y) && y >= math.MinInt32 && y <= math.MaxInt32
}

// lineReader splits a stream into lines with bufio.Reader.ReadSlice, which
// returns a view into its buffer: no copy for a line that fits, and a copy
// into a reused scratch for one that does not, up to the line limit; or a
// file's mapping, lines being views into it (resetMem).
type lineReader struct {
	// mem, when not nil, is the input (resetMem), a file's mapping: lines
	// are views into it, and br is not used. The pages before dropped
	// (an offset in mem) are given back (dropPages).
	mem     []byte
	dropped int64
	br      *bufio.Reader
	long    []byte // scratch for lines longer than br's buffer
	line    int    // 1-based number of the line last returned
	max     int    // longest line accepted, without its line ending
	off     int64  // bytes of the input consumed by the lines returned
}

// newLineReader returns a lineReader of r, or of nothing yet when r is
// nil (its buffer is made when reset gives it an input).
func newLineReader(r io.Reader, maxLineBytes int) *lineReader {
	lr := &lineReader{max: maxLineBytes}
	if r != nil {
		lr.br = bufio.NewReaderSize(r, bufferSize(r))
	}
	return lr
}

// readError returns err, an error of next, for the input called name: a
// *ParseError (a line too long) gets the name, any other error is the
// input's and is wrapped.
func (lr *lineReader) readError(name string, err error) error {
	if pe, ok := err.(*ParseError); ok {
		pe.File = name
		return pe
	}
	return fmt.Errorf("core: reading %s: %w", name, err)
}

// tooLong is the error of next for a line past the limit.
func (lr *lineReader) tooLong() error {
	return &ParseError{Line: lr.line + 1, Err: ErrLineTooLong,
		Msg: fmt.Sprintf("line longer than the limit of %d bytes", lr.max)}
}

// bufferSize returns the read buffer size for r: readBufferSize, or less
// for an input known to be smaller. A fresh buffer costs a page fault per
// 4 KiB on first use, which for a small file (a daemon reads many) costs
// more than parsing it.
func bufferSize(r io.Reader) int {
	n := int64(readBufferSize)
	switch v := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		n = int64(v.Len())
	case interface{ Stat() (fs.FileInfo, error) }: // os.File
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			n = fi.Size()
		}
	}
	return int(min(max(n, 4<<10), readBufferSize))
}

// reset rewinds the line count and reads from r, keeping the buffers.
func (lr *lineReader) reset(r io.Reader) {
	if lr.br == nil {
		lr.br = bufio.NewReaderSize(r, bufferSize(r))
	} else {
		lr.br.Reset(r)
	}
	lr.mem, lr.line, lr.off = nil, 0, 0
}

// resetMem rewinds the line count and reads the lines of mem.
func (lr *lineReader) resetMem(mem []byte) {
	lr.mem, lr.line, lr.off, lr.dropped = mem[:len(mem):len(mem)], 0, 0, 0
}

// memKeepBytes is how much of a mapping a lineReader reads past before it
// gives the pages behind it back: a mapped page counts in the process's
// resident memory until then, and a whole file's pages would add the
// file's size to the peak (38 MB of fashion.test's 58 MB to svmgo predict).
const memKeepBytes = 1 << 20

// next returns the next line without its "\n" or "\r\n", valid until the
// following call, and io.EOF after the last line. A last line without a
// newline is still a line. A line longer than lr.max is a *ParseError
// (without File), returned as soon as more than lr.max+2 bytes of it are
// read: what is held of a line is bounded by the limit plus one buffer.
func (lr *lineReader) next() ([]byte, error) {
	if lr.mem != nil {
		return lr.nextMem()
	}
	line, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(lr.long) > lr.max+2 { // even without a "\r\n" ending
				return nil, lr.tooLong()
			}
			line, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, line...)
		}
		line = lr.long
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	return lr.took(line)
}

// took counts line, as read with its end of line, and returns it without
// that end ("\n" or "\r\n"), or the error of a line over the limit.
func (lr *lineReader) took(line []byte) ([]byte, error) {
	lr.off += int64(len(line))
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	if len(line) > lr.max {
		return nil, lr.tooLong()
	}
	lr.line++
	return line, nil
}

// nextMem is next for a reader of memory: the same lines, line numbers,
// offsets and errors.
func (lr *lineReader) nextMem() ([]byte, error) {
	if lr.off-lr.dropped >= memKeepBytes {
		lr.dropped = dropPages(lr.mem, lr.dropped, lr.off)
	}
	rest := lr.mem[lr.off:]
	if len(rest) == 0 {
		return nil, io.EOF
	}
	line := rest
	if n := bytes.IndexByte(rest, '\n'); n >= 0 {
		line = rest[:n+1]
	}
	return lr.took(line)
}

// LineReader reads a stream line by line under a line limit, as the data
// readers do: for other line formats read under the same rules (the
// LIBSVM and LIBLINEAR text model import), so that a stream without line
// breaks is refused at its line, not read into memory.
type LineReader struct{ lr *lineReader }

// NewLineReader returns a LineReader of r that accepts lines of at most
// maxLineBytes bytes, without their line ending.
func NewLineReader(r io.Reader, maxLineBytes int) *LineReader {
	return &LineReader{newLineReader(r, maxLineBytes)}
}

// Next returns the next line without its "\n" or "\r\n", valid until the
// following call, and io.EOF after the last line. A line over the limit is
// a *ParseError wrapping ErrLineTooLong (without File; see Err).
func (l *LineReader) Next() ([]byte, error) { return l.lr.next() }

// Line returns the 1-based number of the line Next returned last.
func (l *LineReader) Line() int { return l.lr.line }

// Err returns err, an error of Next, for the input called name: a
// *ParseError gets the name, any other error is the input's and is
// wrapped.
func (l *LineReader) Err(name string, err error) error { return l.lr.readError(name, err) }

// lineParser parses one line at a time into reused scratch slices.
type lineParser struct {
	format      Format // FormatLIBSVM or FormatCSV
	maxFeatures int    // 0 = no limit
	index       []int32
	value       []float32
	// row, when not nil, is the dense row a LIBSVM line's features go to:
	// parseFeatures writes the features it takes straight there (direct
	// counts them), and only the others go to index and value, for the
	// caller to add (Dataset.appendParsedDense). The caller clears row when
	// the line turns out bad.
	row    []float32
	direct int
	// vector runs parseFeaturesVector ahead of parseFeatures' own loop
	// (vectorFeatures: AVX-512 with BMI2 on amd64).
	vector  bool
	columns int // CSV: the column count of the first row; 0 before it
	// weightColumn is ReadOptions.WeightColumn (CSV); weight is the last
	// row's value there.
	weightColumn int
	weight       float64
	// tail holds a LIBSVM line's last bytes, fewer than featureBytes, then
	// a blank and zeros, so that parseFeatures takes the line's last
	// features too (see parseLIBSVM).
	tail [2*featureBytes + 1]byte
}

// parse reads one line (without its newline) into p.index and p.value
// (0-based indices) and returns its label; blank reports a line that holds
// only spaces and tabs. perr has no File or Line: the caller knows them.
func (p *lineParser) parse(line []byte) (label float64, blank bool, perr *ParseError) {
	if p.format == FormatCSV {
		return p.parseCSV(line)
	}
	return p.parseLIBSVM(line)
}

// parseLIBSVM parses "label index:value index:value ...".
func (p *lineParser) parseLIBSVM(line []byte) (label float64, blank bool, perr *ParseError) {
	p.index, p.value, p.direct = p.index[:0], p.value[:0], 0
	i := skipBlanks(line, 0)
	if i == len(line) {
		return 0, true, nil
	}

	d, n, ok := scanDecimal(line[i:])
	end := i + n
	if ok && (end == len(line) || isBlank(line[end])) {
		label, ok = d.toFloat64()
	} else {
		ok = false
	}
	if !ok {
		end = tokenEnd(line, i)
		tok := line[i:end]
		if bytes.IndexByte(tok, ':') >= 0 {
			return 0, false, syntaxError("label missing: the line starts with feature %s", quoteToken(tok))
		}
		if label, ok = parseFloat64(tok); !ok {
			return 0, false, syntaxError("label: %s", badNumber(tok, 64))
		}
	}
	i = end

	limit := int64(maxIndex)
	if p.maxFeatures > 0 {
		limit = int64(p.maxFeatures)
	}
	prev := int64(0)
	for {
		i = skipBlanks(line, i)
		i, prev = p.parseFeatures(line, i, prev, limit)
		if rest := len(line) - i; rest > 0 && rest < featureBytes {
			// Too few bytes left for parseFeatures' word loads: the
			// line's last features (a third of heart_scale's) go through
			// a copy that ends as the line does, with a blank, and then
			// zeros, which end any number (the blank is consumed only
			// after a feature the line ends with).
			t := p.tail[:rest+1+featureBytes]
			copy(t, line[i:])
			t[rest] = ' '
			clear(t[rest+1:])
			var j int
			j, prev = p.parseFeatures(t, 0, prev, limit)
			i += min(j, rest)
		}
		if i == len(line) {
			return label, false, nil
		}
		// The rest of the line, or a feature parseFeatures does not
		// take: an unusual spelling, the line's last few features, or an
		// error to report.
		k := p.direct + len(p.index) + 1 // the feature's position, for messages
		start := i
		idx, n := scanIndex(line[i:])
		i += n
		if n == 0 || i == len(line) || line[i] != ':' || idx <= prev || idx > limit {
			// one test on the hot path; work out what was wrong here
			return 0, false, badFeature(k, line[start:tokenEnd(line, start)], n, idx, prev, p.maxFeatures)
		}
		i++

		v, n, ok := float32Prefix(line[i:])
		end := i + n
		if !ok || (end < len(line) && !isBlank(line[end])) {
			end = tokenEnd(line, i)
			if end == i {
				return 0, false, syntaxError("feature %d: empty value in %s", k, quoteToken(line[start:end]))
			}
			if v, ok = parseFloat32(line[i:end]); !ok {
				return 0, false, syntaxError("feature %d: value %s", k, badNumber(line[i:end], 32))
			}
		}
		p.index = append(p.index, int32(idx-1))
		p.value = append(p.value, v)
		prev = idx
		i = end
	}
}

// featureBytes is how much of a line parseFeatures needs from a feature's
// start: "9999999:-9999999." and three 8-byte words of fraction digits (41
// bytes, the most it loads) and the blank after the longest feature it
// takes, with room to spare.
const featureBytes = 48

// parseFeatures parses LIBSVM features from line[i:] into p.index and
// p.value (or p.row, for indices within it) for as long as they take the common form — a blank-separated
// index of 1 to 7 digits above prev and at most limit, ':', and a value
// [-]digits[.digits] with at most 7 integer and 23 fraction digits, 19 in
// all — and featureBytes of the line remain. It returns where it stopped
// and the last index parsed; the caller goes on the general way from there,
// which also reports errors. Values are exactly float32Prefix's.
//
// This is the hot loop of reading a LIBSVM file. Parsing a feature with
// scanIndex and float32Prefix costs four calls and a branch per digit, and
// the branch on where a number ends mispredicts whenever the digit count
// changes, as it does from one feature to the next in every file. Here
// digits are found and converted 8 at a time without branches (see
// digitRun), and the fraction's two 8-byte loads do not wait on each other.
func (p *lineParser) parseFeatures(line []byte, i int, prev, limit int64) (int, int64) {
	const zeros = 0x3030303030303030
	for {
		if p.vector {
			// The vector loop takes the common features; this one
			// the next feature it leaves, if it can, and then hands
			// back to it.
			i, prev = p.parseFeaturesVector(line, i, prev, limit)
			i = skipBlanks(line, i)
		}
		if i+featureBytes > len(line) {
			break
		}
		b := (*[featureBytes]byte)(line[i : i+featureBytes])
		w := binary.LittleEndian.Uint64(b[0:8])
		k := bits.TrailingZeros64(nonDigits(w)) >> 3
		if k == 0 || k == 8 || b[k] != ':' {
			break
		}
		idx := int64(eightDigitsValue((w - zeros) << (64 - 8*k))) // a shift by 64 gives 0
		if idx <= prev || idx > limit || (p.row != nil && idx > int64(len(p.row))) {
			break // the general way reports it, or the data set refuses it
		}
		j := k + 1
		neg := b[j] == '-'
		if neg {
			j++
		}
		w = binary.LittleEndian.Uint64(b[j : j+8])
		k = bits.TrailingZeros64(nonDigits(w)) >> 3
		if k == 8 {
			break
		}
		m := eightDigitsValue((w - zeros) << (64 - 8*k))
		j += k
		digits := k
		frac := 0
		if b[j] == '.' {
			j++
			w1 := binary.LittleEndian.Uint64(b[j : j+8])
			w2 := binary.LittleEndian.Uint64(b[j+8 : j+16])
			k1 := bits.TrailingZeros64(nonDigits(w1)) >> 3
			k2 := bits.TrailingZeros64(nonDigits(w2)) >> 3
			k2 &= -(k1 >> 3) // the second word counts only if the first is all digits
			m = (m*exactPow10Int[k1]+eightDigitsValue((w1-zeros)<<(64-8*k1)))*exactPow10Int[k2] +
				eightDigitsValue((w2-zeros)<<(64-8*k2))
			frac = k1 + k2
			if k2 == 8 {
				// More than 16 fraction digits (%.17g's, numpy's): a
				// third word. Past 19 digits m wraps; the digit count
				// below refuses it.
				w3 := binary.LittleEndian.Uint64(b[j+16 : j+24])
				k3 := bits.TrailingZeros64(nonDigits(w3)) >> 3
				if k3 == 8 {
					break
				}
				m = m*exactPow10Int[k3] + eightDigitsValue((w3-zeros)<<(64-8*k3))
				frac += k3
			}
			j += frac
			digits += frac
		}
		if digits == 0 || digits > 19 || m>>63 != 0 || (b[j] != ' ' && b[j] != '\t') {
			break
		}
		x := float64(int64(m))
		if (frac > 0 || m>>53 != 0) && m != 0 {
			x *= inversePow10[frac]
			// see float32Prefix for this rounding test
			if d := int64(math.Float64bits(x)&(1<<29-1)) - 1<<28; d >= -8 && d <= 8 {
				break
			}
		}
		if neg {
			x = -x
		}
		if p.row != nil {
			p.row[idx-1] = float32(x) // idx ≤ len(p.row): checked with limit
			p.direct++
		} else {
			p.index = append(p.index, int32(idx-1))
			p.value = append(p.value, float32(x))
		}
		prev = idx
		i = skipBlanks(line, i+j)
	}
	return i, prev
}

// badFeature explains why the k-th feature token tok was refused; n and
// idx are scanIndex's result for its start.
func badFeature(k int, tok []byte, n int, idx, prev int64, maxFeatures int) *ParseError {
	q := quoteToken(tok)
	switch {
	case n < len(tok) && tok[n] == ':' && n == 0:
		return syntaxError("feature %d: empty index in %s", k, q)
	case n == len(tok) || (tok[n] != ':' && bytes.IndexByte(tok, ':') < 0):
		return syntaxError("feature %d: missing ':' in %s", k, q)
	case tok[n] != ':':
		return syntaxError("feature %d: index is not a positive integer in %s", k, q)
	case idx == 0:
		return syntaxError("feature %d: index 0 in %s: indices start at 1", k, q)
	case idx > maxIndex:
		return syntaxError("feature %d: index overflows int32 in %s", k, q)
	case idx <= prev:
		return syntaxError("feature %d: index %d after %d in %s: indices must increase", k, idx, prev, q)
	default:
		return syntaxError("feature %d: index %d is above MaxFeatures %d", k, idx, maxFeatures)
	}
}

// badNumber says why tok, which parseFloat refused, is not a usable
// number. Only the error path gets here, so it may allocate.
func badNumber(tok []byte, bitSize int) string {
	f, err := strconv.ParseFloat(string(tok), bitSize)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return fmt.Sprintf("%s is out of range for float%d", quoteToken(tok), bitSize)
	case err != nil:
		return fmt.Sprintf("%s is not a number", quoteToken(tok))
	case math.IsNaN(f) || math.IsInf(f, 0):
		return fmt.Sprintf("%s is not finite", quoteToken(tok))
	}
	return fmt.Sprintf("%s was refused", quoteToken(tok)) // not reached
}

func syntaxError(format string, args ...any) *ParseError {
	return &ParseError{Msg: fmt.Sprintf(format, args...), Err: ErrSyntax}
}

// quoteToken quotes a token for an error message, cut short: a token can
// be megabytes long when a line has no separators.
func quoteToken(tok []byte) string {
	const maxShown = 40
	if len(tok) > maxShown {
		return strconv.Quote(string(tok[:maxShown])) + "..."
	}
	return strconv.Quote(string(tok))
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlanks(line []byte, i int) int {
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	return i
}

// tokenEnd returns the index of the first space or tab at or after i, or
// len(line).
func tokenEnd(line []byte, i int) int {
	for i < len(line) && !isBlank(line[i]) {
		i++
	}
	return i
}

// isBlankLine reports whether line holds only spaces and tabs; both passes
// use it, so they agree on which lines are rows.
func isBlankLine(line []byte) bool {
	return skipBlanks(line, 0) == len(line)
}
