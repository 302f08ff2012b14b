package watchd

import (
	"bytes"
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
)

// rejection is why a batch was refused: its Error is the text of the batch's
// .reason file, "name:line: what was wrong" when a line is to blame.
type rejection struct{ reason string }

func (r *rejection) Error() string { return r.reason }

func reject(format string, a ...any) *rejection {
	return &rejection{reason: fmt.Sprintf(format, a...)}
}

// batchLimits are the limits a batch is validated against.
type batchLimits struct {
	capacity     int // rows the store holds
	maxFeatures  int // feature indices 1..maxFeatures (as written)
	maxLineBytes int
	realLabels   bool // labels are any finite number (targets, or ignored); otherwise integer classes
}

// parseBatch validates a whole batch file's bytes and returns its rows, or
// the *rejection that says which line is wrong. Nothing of a batch is used
// unless all of it is valid.
func parseBatch(name string, data []byte, lim batchLimits) (*core.Dataset, error) {
	if n, line := longestLine(data); n > lim.maxLineBytes {
		return nil, reject("%s:%d: line of %d bytes, longer than the limit of %d", name, line, n, lim.maxLineBytes)
	}
	opt := core.ReadOptions{MaxFeatures: lim.maxFeatures}
	st, err := core.Scan(bytes.NewReader(data), name, opt)
	if err != nil {
		return nil, reject("%s: %v", name, err) // not reached: a bytes.Reader does not fail
	}
	switch {
	case st.Rows == 0:
		return nil, reject("%s: empty batch: no rows", name)
	case st.Rows > lim.capacity:
		return nil, reject("%s: %d rows, more than the store's capacity of %d", name, st.Rows, lim.capacity)
	}
	ds := core.NewSparse(st.Rows, st.Nonzeros, lim.maxFeatures)
	if _, err := core.ReadInto(ds, bytes.NewReader(data), name, opt); err != nil {
		return nil, reject("%v", err) // a *core.ParseError: "name:line: ..."
	}
	if lim.realLabels {
		return ds, nil // the reader refuses labels that are not finite
	}
	for i, y := range ds.Labels() {
		if y != math.Trunc(y) || y < math.MinInt32 || y > math.MaxInt32 {
			return nil, reject("%s:%d: label %v is not an integer class", name, rowLine(data, i), y)
		}
	}
	return ds, nil
}

// longestLine returns the length of the longest line of data (without its
// newline) and its 1-based number.
func longestLine(data []byte) (n, line int) {
	for ln := 1; len(data) > 0; ln++ {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data)
		}
		if end > n {
			n, line = end, ln
		}
		data = data[min(end+1, len(data)):]
	}
	return n, line
}

// rowLine returns the 1-based line number of row i (0-based) of data, as the
// readers count them: every line counts, blank lines (only spaces and tabs)
// hold no row.
func rowLine(data []byte, i int) int {
	for ln := 1; len(data) > 0; ln++ {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data)
		}
		if len(bytes.Trim(data[:end], " \t\r")) > 0 {
			if i == 0 {
				return ln
			}
			i--
		}
		data = data[min(end+1, len(data)):]
	}
	return 0
}
