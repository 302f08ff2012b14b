package scale

// svm-scale on text files: a first pass (Scan) takes each feature's range
// and the target's over the rows, a second (Write) writes the rows scaled,
// as svm-scale's three passes do. Values are read as float64, as svm-scale's
// strtod reads them, so that every printed digit is its.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// Format is the layout of a data file.
type Format int

// The formats Scan and Write read.
const (
	// LIBSVM is "label index:value ..." with 1-based strictly increasing
	// indices.
	LIBSVM Format = iota
	// CSV is "label,x1,x2,...", as core's CSV reader reads it: feature j
	// is column j+1, zero cells are absent features, quoting is refused.
	CSV
)

// Summary is what the first pass learns of a data file.
type Summary struct {
	// Rows is the number of rows.
	Rows int
	// Nonzeros counts the features the file writes (LIBSVM: every
	// index:value pair, zeros included, as svm-scale counts them; CSV:
	// the nonzero cells).
	Nonzeros int64
	// Index lists the features (0-based) that some row writes, in
	// increasing order; Min[k] and Max[k] hold feature Index[k]'s range
	// over the rows, absent entries counting as 0. Memory follows the
	// features present, not the largest index.
	Index    []int32
	Min, Max []float64
	// YMin and YMax are the targets' range.
	YMin, YMax float64
}

// Fit returns the ranges svm-scale fits for the summarised rows:
// [lower, upper] from each feature's range, and the target's scaling to
// y = [y_lower, y_upper] when y is not nil.
// A feature whose range cannot scale finitely onto [lower, upper]
// (Scalable: one a denormal wide, say) is dropped, as a constant one is.
// The ranges are sparse (Index set).
func (s *Summary) Fit(lower, upper float64, y *[2]float64) *Ranges {
	r := &Ranges{Lower: lower, Upper: upper, Index: s.Index, Min: slices.Clone(s.Min), Max: slices.Clone(s.Max)}
	for k := range r.Min {
		if !Scalable(lower, upper, r.Min[k], r.Max[k]) {
			r.Max[k] = r.Min[k]
		}
	}
	if y != nil {
		r.Y = &YRange{Lower: y[0], Upper: y[1], Min: s.YMin, Max: s.YMax}
	}
	return r
}

// Restore returns the ranges svm-scale's -r uses on the summarised rows:
// the restored file's interval, y scaling and feature ranges; for a
// feature the file drops (does not list), the feature is dropped, and
// unseen is called when the rows do vary it (svm-scale warns "feature
// index j appeared in file ... was not seen in the scaling factor file").
// Without a y section in the file, y (the command's -y) scales the target
// over the rows' range, as in Fit. The result lists the file's features
// that are not dropped (sparse ranges, Index set); unseen is called in
// increasing index order.
func (s *Summary) Restore(file *Ranges, y *[2]float64, unseen func(index int)) *Ranges {
	r := &Ranges{Lower: file.Lower, Upper: file.Upper, Index: []int32{}}
	for k := range file.Min {
		if file.Min[k] != file.Max[k] {
			r.Index = append(r.Index, int32(file.feature(k)))
			r.Min, r.Max = append(r.Min, file.Min[k]), append(r.Max, file.Max[k])
		}
	}
	if unseen != nil {
		for k, j := range s.Index {
			if s.Min[k] != s.Max[k] && r.Dropped(int(j)) {
				unseen(int(j) + 1)
			}
		}
	}
	switch {
	case file.Y != nil:
		yr := *file.Y
		r.Y = &yr
	case y != nil:
		r.Y = &YRange{Lower: y[0], Upper: y[1], Min: s.YMin, Max: s.YMax}
	}
	return r
}

// rowReader reads the rows of a data file one at a time, as float64.
type rowReader struct {
	br     *bufio.Reader
	name   string
	format Format
	line   int
	label  float64
	index  []int32 // 0-based
	value  []float64
	long   []byte // a line longer than br's buffer
}

// MaxLineBytes is the longest line Scan, Write and ReadRanges read, the
// data readers' default (core/data's DefaultMaxLineBytes): an input
// without line breaks (/dev/zero, a wrong file) is refused after 1 MiB
// instead of being gathered whole.
const MaxLineBytes = 1 << 20

func newRowReader(r io.Reader, name string, format Format) *rowReader {
	return &rowReader{br: bufio.NewReaderSize(r, 1<<16), name: name, format: format}
}

// next reads the next row; it returns io.EOF after the last.
func (rr *rowReader) next() error {
	line, err := rr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// A long line: gather it, up to MaxLineBytes.
		rr.long = append(rr.long[:0], line...)
		for err == bufio.ErrBufferFull && len(rr.long) <= MaxLineBytes+1 {
			line, err = rr.br.ReadSlice('\n')
			rr.long = append(rr.long, line...)
		}
		line = rr.long
	}
	if len(bytes.TrimRight(line, "\r\n")) > MaxLineBytes {
		return fmt.Errorf("%s:%d: line longer than %d bytes", rr.name, rr.line+1, MaxLineBytes)
	}
	if err == io.EOF && len(line) == 0 {
		return io.EOF
	}
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", rr.name, err)
	}
	rr.line++
	line = bytes.TrimRight(line, "\r\n")
	if rr.format == CSV {
		return rr.parseCSV(line)
	}
	return rr.parseLIBSVM(line)
}

func (rr *rowReader) errorf(format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", rr.name, rr.line, fmt.Sprintf(format, a...))
}

func (rr *rowReader) number(tok []byte, what string) (float64, error) {
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, rr.errorf("%s %q is not a finite number", what, tok)
	}
	return v, nil
}

func (rr *rowReader) parseLIBSVM(line []byte) error {
	rr.index, rr.value = rr.index[:0], rr.value[:0]
	fields := bytes.Fields(line)
	if len(fields) == 0 {
		return rr.errorf("blank line")
	}
	var err error
	if rr.label, err = rr.number(fields[0], "label"); err != nil {
		return err
	}
	prev := int64(0)
	for _, f := range fields[1:] {
		c := bytes.IndexByte(f, ':')
		if c < 0 {
			return rr.errorf("%q is not index:value", f)
		}
		idx, err := strconv.ParseInt(string(f[:c]), 10, 32)
		if err != nil || idx < 1 {
			return rr.errorf("feature index %q is not a positive int32", f[:c])
		}
		if idx <= prev {
			return rr.errorf("feature index %d after %d: indices must increase", idx, prev)
		}
		prev = idx
		v, err := rr.number(f[c+1:], "value")
		if err != nil {
			return err
		}
		rr.index = append(rr.index, int32(idx-1))
		rr.value = append(rr.value, v)
	}
	return nil
}

func (rr *rowReader) parseCSV(line []byte) error {
	rr.index, rr.value = rr.index[:0], rr.value[:0]
	if len(bytes.TrimSpace(line)) == 0 {
		return rr.errorf("blank line")
	}
	if bytes.IndexByte(line, '"') >= 0 {
		return rr.errorf("quoted fields are not supported")
	}
	for col := 0; ; col++ {
		cell := line
		rest := []byte(nil)
		if c := bytes.IndexByte(line, ','); c >= 0 {
			cell, rest = line[:c], line[c+1:]
		}
		cell = bytes.TrimSpace(cell)
		if len(cell) == 0 {
			return rr.errorf("column %d: empty field", col+1)
		}
		if col == 0 {
			v, err := rr.number(cell, "label")
			if err != nil {
				return err
			}
			rr.label = v
		} else {
			if col > math.MaxInt32 {
				return rr.errorf("more than %d columns", math.MaxInt32)
			}
			v, err := rr.number(cell, fmt.Sprintf("column %d", col+1))
			if err != nil {
				return err
			}
			if v != 0 {
				rr.index = append(rr.index, int32(col-1))
				rr.value = append(rr.value, v)
			}
		}
		if rest == nil {
			return nil
		}
		line = rest
	}
}

// Scan reads a data file and returns its Summary: svm-scale's first two
// passes. Errors give the file, the line and what was wrong: svm-scale is
// lenient where this is strict (blank lines, malformed pairs, indices not
// increasing, NaN or infinite values are refused).
func Scan(r io.Reader, name string, format Format) (*Summary, error) {
	rr := newRowReader(r, name, format)
	s := &Summary{YMin: math.MaxFloat64, YMax: -math.MaxFloat64}
	// slot[j] is feature j's position in s.Min and s.Max, in the order
	// the rows first write the features; seen[k] counts the rows that
	// write it: the others hold an implicit 0, which enters its range
	// once the rows are counted.
	slot := map[int32]int{}
	var seen []int
	for {
		err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s.Rows++
		s.YMin, s.YMax = min(s.YMin, rr.label), max(s.YMax, rr.label)
		s.Nonzeros += int64(len(rr.index))
		for p, j := range rr.index {
			k, ok := slot[j]
			if !ok {
				k = len(s.Index)
				slot[j] = k
				s.Index = append(s.Index, j)
				s.Min = append(s.Min, math.MaxFloat64)
				s.Max = append(s.Max, -math.MaxFloat64)
				seen = append(seen, 0)
			}
			v := rr.value[p]
			s.Min[k], s.Max[k] = min(s.Min[k], v), max(s.Max[k], v)
			seen[k]++
		}
	}
	for k := range s.Min {
		if seen[k] < s.Rows {
			s.Min[k], s.Max[k] = min(s.Min[k], 0), max(s.Max[k], 0)
		}
	}
	// Put the features in increasing order.
	order := make([]int, len(s.Index))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return int(s.Index[a]) - int(s.Index[b]) })
	index, lo, hi := make([]int32, len(order)), make([]float64, len(order)), make([]float64, len(order))
	for k, o := range order {
		index[k], lo[k], hi[k] = s.Index[o], s.Min[o], s.Max[o]
	}
	s.Index, s.Min, s.Max = index, lo, hi
	return s, nil
}

// Write reads the data file again and writes its rows scaled by rg, in
// LIBSVM format, byte for byte as svm-scale prints them: the target as
// %.17g (scaled when rg.Y is set), then "index:value" with the value as
// %g for every feature whose scaled value is not 0, each followed by a
// space, and a newline. Features past rg.NumFeatures are dropped. It
// returns the number of index:value pairs written; svm-scale warns when
// that exceeds the file's Summary.Nonzeros (a sparse file made dense by a
// lower limit that maps 0 elsewhere).
func Write(dst io.Writer, src io.Reader, name string, format Format, rg *Ranges) (written int64, err error) {
	if err := rg.Validate(); err != nil {
		return 0, err
	}
	// feature lists the features rg scales (not dropped), increasing;
	// zero[k] is feature[k]'s scaled 0: the value of every row that does
	// not write the feature. Every other feature scales to 0 and is not
	// written, so a row costs the features rg scales, not its largest
	// index.
	var feature, pos []int // pos[k]: feature[k]'s position in rg.Min and rg.Max
	var zero []float64
	zeroesStay := true // every absent entry scales to 0
	for k := range rg.Min {
		if j := rg.feature(k); !rg.Dropped(j) {
			feature, pos, zero = append(feature, j), append(pos, k), append(zero, rg.Value(j, 0))
			zeroesStay = zeroesStay && zero[len(zero)-1] == 0
		}
	}
	rr := newRowReader(src, name, format)
	bw := bufio.NewWriterSize(dst, 1<<16)
	var b []byte
	for {
		err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return written, err
		}
		b = b[:0]
		b = appendG17(b, rg.Target(rr.label))
		b = append(b, ' ')
		put := func(j int, v float64) {
			b = strconv.AppendInt(b, int64(j+1), 10)
			b = append(b, ':')
			b = appendG(b, v)
			b = append(b, ' ')
			written++
		}
		if zeroesStay {
			// Only the row's entries can scale to nonzero values: find
			// each one's position among the features (sparse data with
			// -l 0 costs its nonzeros, not its features).
			for p, j := range rr.index {
				k, ok := slices.BinarySearch(feature, int(j))
				if !ok {
					continue // a dropped feature
				}
				if v := affineValue(rg.Lower, rg.Upper, rg.Min[pos[k]], rg.Max[pos[k]], rr.value[p]); v != 0 {
					put(int(j), v)
				}
			}
		} else {
			// Every feature may be written; next is the row's next
			// entry's feature (MaxInt past the last), so that a feature
			// the row does not write costs one comparison.
			p, next := 0, math.MaxInt
			if len(rr.index) > 0 {
				next = int(rr.index[0])
			}
			for k, j := range feature {
				v := zero[k]
				if j >= next {
					for next < j { // entries of dropped features
						p++
						next = nextEntry(rr.index, p)
					}
					if next == j {
						v = affineValue(rg.Lower, rg.Upper, rg.Min[pos[k]], rg.Max[pos[k]], rr.value[p])
						p++
						next = nextEntry(rr.index, p)
					}
				}
				if v != 0 {
					put(j, v)
				}
			}
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return written, err
		}
	}
	return written, bw.Flush()
}

// nextEntry returns index[p], or MaxInt past the last entry.
func nextEntry(index []int32, p int) int {
	if p < len(index) {
		return int(index[p])
	}
	return math.MaxInt
}

// NonzeroWarning is svm-scale's warning, for its standard error, when the
// scaled output writes more index:value pairs than the input did.
func NonzeroWarning(original, written int64) string {
	return fmt.Sprintf("WARNING: original #nonzeros %d\n       > new      #nonzeros %d\n"+
		"If feature values are non-negative and sparse, use -l 0 rather than the default -l -1\n",
		original, written)
}

// UnseenWarning is svm-scale's warning, for its standard error, when
// feature index (1-based) of data file data varies but the range file
// restore does not list it (Summary.Restore's unseen).
func UnseenWarning(index int, data, restore string) string {
	return fmt.Sprintf("WARNING: feature index %d appeared in file %s was not seen in the scaling factor file %s. The feature is scaled to 0.\n",
		index, data, restore)
}
