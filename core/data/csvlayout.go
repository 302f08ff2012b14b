package data

// What CSV files written by tools carry besides the rows: a header line
// (pandas' DataFrame.to_csv writes one, and its index as a first column).
// ReadOptions.CSVHeader and CSVSkipColumns say how to read them.

import (
	"bytes"
	"fmt"
	"slices"
)

// CSVHeader says whether a CSV file starts with a header line.
type CSVHeader int

// The header modes.
const (
	// CSVHeaderAuto (the zero value) takes the first non-blank line for a
	// header when its label field is not a number. No data row is ever
	// taken for one (a row's label is a number), but a header whose label
	// field is a number (pandas' to_csv of a frame with integer column
	// names and no index) is read as a row: name the header then. A
	// recognised header whose first field is empty is pandas' unnamed
	// index: when no columns are skipped by option, column 1 is then
	// dropped, so that DataFrame.to_csv()'s default output reads as is.
	CSVHeaderAuto CSVHeader = iota
	// CSVHeaderNone: the first line is a row.
	CSVHeaderNone
	// CSVHeaderPresent: the first non-blank line is a header, skipped.
	CSVHeaderPresent
)

// String returns "auto", "no" or "yes", the names ParseCSVHeader reads.
func (h CSVHeader) String() string {
	switch h {
	case CSVHeaderNone:
		return "no"
	case CSVHeaderPresent:
		return "yes"
	}
	return "auto"
}

// ParseCSVHeader reads a header mode: "auto", "yes" (or "true", "1") or
// "no" (or "false", "0").
func ParseCSVHeader(s string) (CSVHeader, error) {
	switch s {
	case "auto":
		return CSVHeaderAuto, nil
	case "yes", "true", "1":
		return CSVHeaderPresent, nil
	case "no", "false", "0":
		return CSVHeaderNone, nil
	}
	return 0, fmt.Errorf("CSV header %q: want auto, yes or no", s)
}

// csvLayout is a CSV file's header mode and the columns to drop, and the
// scratch line that holds a row without them.
type csvLayout struct {
	header  CSVHeader
	skip    []int // 1-based, increasing
	scratch []byte
	seen    bool // a non-blank line has been read
}

// csvLayoutOf returns the layout o asks for; an error for a layout that
// format cannot have or columns that cannot be skipped.
func csvLayoutOf(o ReadOptions, format Format) (*csvLayout, error) {
	if format != FormatCSV {
		if o.CSVHeader == CSVHeaderPresent || len(o.CSVSkipColumns) > 0 {
			return nil, fmt.Errorf("%w: a header line and skipped columns are for CSV files", ErrSyntax)
		}
		return nil, nil
	}
	for k, c := range o.CSVSkipColumns {
		if c < 1 || (k > 0 && c <= o.CSVSkipColumns[k-1]) {
			return nil, fmt.Errorf("%w: CSV columns to skip %v: want increasing column numbers from 1", ErrSyntax, o.CSVSkipColumns)
		}
	}
	return &csvLayout{header: o.CSVHeader, skip: slices.Clone(o.CSVSkipColumns)}, nil
}

// line returns line without the skipped columns and whether it is the
// header, which the caller skips. The result aliases l's scratch until the
// next call.
func (l *csvLayout) line(line []byte) ([]byte, bool) {
	if isBlankLine(line) {
		return line, false
	}
	if len(l.skip) > 0 {
		l.scratch = l.scratch[:0]
		kept, col, start, next := 0, 1, 0, 0
		for i := 0; i <= len(line); i++ {
			if i < len(line) && line[i] != ',' {
				continue
			}
			if next < len(l.skip) && l.skip[next] == col {
				next++
			} else {
				if kept > 0 {
					l.scratch = append(l.scratch, ',')
				}
				l.scratch = append(l.scratch, line[start:i]...)
				kept++
			}
			col++
			start = i + 1
		}
		if kept == 0 {
			// Every column skipped: no label, which the parser reports
			// as column 1's empty field rather than a blank line.
			l.scratch = append(l.scratch, ',')
		}
		line = l.scratch
	}
	if l.seen {
		return line, false
	}
	l.seen = true
	switch l.header {
	case CSVHeaderPresent:
		return line, true
	case CSVHeaderNone:
		return line, false
	}
	field := line
	if c := bytes.IndexByte(field, ','); c >= 0 {
		field = field[:c]
	}
	field = field[skipBlanks(field, 0):]
	field = field[:len(field)-trailingBlanks(field)]
	if _, ok := parseFloat64(field); ok {
		return line, false
	}
	if len(field) == 0 && len(l.skip) == 0 {
		l.skip = []int{1} // pandas' unnamed index
	}
	return line, true
}
