package data

// CSV data files: "label,x1,x2,...", one row a line, every row with the
// same number of columns. This is the plain numeric CSV that numpy.savetxt
// and most exporters write; quoting (RFC 4180) is refused rather than half
// supported. A header line and columns to drop (an index) are handled
// before a line reaches the parser (csvlayout.go): a first line is taken
// for a header only when its label field is not a number, so no row is
// ever dropped as one.

import (
	"bytes"
	"strconv"
)

// parseCSV parses one CSV line into p.index and p.value, leaving out zeros.
func (p *lineParser) parseCSV(line []byte) (label float64, blank bool, perr *ParseError) {
	p.index, p.value = p.index[:0], p.value[:0]
	if isBlankLine(line) {
		return 0, true, nil
	}
	if q := bytes.IndexByte(line, '"'); q >= 0 {
		return 0, false, syntaxError("column %d: quoted fields are not supported", bytes.Count(line[:q], []byte{','})+1)
	}
	limit := maxIndex
	if p.maxFeatures > 0 {
		limit = p.maxFeatures
	}
	col := 0
	skip := 0 // 1 once the weight column is behind: feature index = col − 2 − skip
	if p.weightColumn > 0 {
		limit++ // the weight column is not a feature
	}
	for i := 0; ; {
		col++
		if col-1 > limit {
			return 0, false, p.csvError(col, false, "more than MaxFeatures = %d feature columns", limit)
		}
		i = skipBlanks(line, i)
		var f float64
		var v float32
		var n int
		var ok bool
		wcol := col == p.weightColumn
		if col == 1 || wcol {
			var d decimal
			if d, n, ok = scanDecimal(line[i:]); ok {
				f, ok = d.toFloat64()
			}
		} else {
			v, n, ok = float32Prefix(line[i:])
		}
		end := skipBlanks(line, i+n)
		if !ok || (end < len(line) && line[end] != ',') {
			end = bytes.IndexByte(line[i:], ',')
			if end < 0 {
				end = len(line)
			} else {
				end += i
			}
			tok := line[i:end]
			tok = tok[:len(tok)-trailingBlanks(tok)]
			if len(tok) == 0 {
				return 0, false, p.csvError(col, true, "empty field")
			}
			if col == 1 || wcol {
				f, ok = parseFloat64(tok)
			} else {
				v, ok = parseFloat32(tok)
			}
			if !ok {
				bits := 32
				if col == 1 || wcol {
					bits = 64
				}
				return 0, false, p.csvError(col, true, "%s", badNumber(tok, bits))
			}
		}
		if col == 1 {
			label = f
		} else if wcol {
			p.weight = f
			skip = 1
		} else if v != 0 {
			p.index = append(p.index, int32(col-2-skip))
			p.value = append(p.value, v)
		}
		if end == len(line) {
			break
		}
		i = end + 1
	}
	if p.weightColumn > col {
		return 0, false, syntaxError("no weight column %d: the row has %d columns", p.weightColumn, col)
	}
	if p.columns == 0 {
		p.columns = col
	} else if col != p.columns {
		return 0, false, syntaxError("%d columns, but the first row has %d", col, p.columns)
	}
	return label, false, nil
}

// csvError reports a bad field in column col (1-based). For a field that
// is not a number on the first row (badText) it adds that headers are not
// supported, since a header is the usual reason a first row is not numeric.
func (p *lineParser) csvError(col int, badText bool, format string, args ...any) *ParseError {
	what := "column 1 (label): "
	if col == p.weightColumn {
		what = "column " + strconv.Itoa(col) + " (weight): "
	} else if col > 1 {
		what = "column " + strconv.Itoa(col) + ": "
	}
	e := syntaxError(format, args...)
	e.Msg = what + e.Msg
	if badText && p.columns == 0 {
		e.Msg += " (a CSV file is all numbers after its header line, if any, and the columns skipped)"
	}
	return e
}

// scanCSVLine adds one line's counts to st: a row, its feature columns,
// and a nonzero for every feature field not spelled as a zero.
func scanCSVLine(st *FileStats, line []byte) {
	if isBlankLine(line) {
		return
	}
	st.Rows++
	i := bytes.IndexByte(line, ',') // end of the label field
	features := 0
	for i >= 0 {
		rest := line[i+1:]
		j := bytes.IndexByte(rest, ',')
		field := rest
		if j >= 0 {
			field = rest[:j]
			i += 1 + j
		} else {
			i = -1
		}
		features++
		if !isZeroField(field) {
			st.Nonzeros++
		}
	}
	st.NumFeatures = max(st.NumFeatures, features)
}

// isZeroField reports whether a CSV field is a plain zero: optional
// blanks and sign, then zeros with at most one '.', such as "0", "-0.00" or
// ".0". Other spellings of zero ("0e5") count as nonzeros, which keeps the
// count an upper bound.
func isZeroField(f []byte) bool {
	i := skipBlanks(f, 0)
	f = f[i : len(f)-trailingBlanks(f[i:])]
	if len(f) > 0 && (f[0] == '-' || f[0] == '+') {
		f = f[1:]
	}
	zeros, dots := 0, 0
	for _, c := range f {
		switch c {
		case '0':
			zeros++
		case '.':
			dots++
		default:
			return false
		}
	}
	return zeros > 0 && dots <= 1
}

// trailingBlanks returns the number of spaces and tabs that end b.
func trailingBlanks(b []byte) int {
	n := 0
	for n < len(b) && isBlank(b[len(b)-1-n]) {
		n++
	}
	return n
}
