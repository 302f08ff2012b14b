package watchd

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/data"
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
	capacity     int  // rows the store holds
	maxFeatures  int  // feature indices 1..maxFeatures (as written)
	maxLineBytes int  // data.ReadOptions.MaxLineBytes
	realLabels   bool // labels are any finite number (targets, or ignored); otherwise integer classes
	weightColumn int  // a CSV batch's instance-weight column (Config.WeightColumn); 0: none
	csvHeader    data.CSVHeader
	csvSkip      []int // Config.CSVSkipColumns
}

// parseBatch validates a whole batch file's bytes and returns its rows, or
// the *rejection that says which line is wrong. Nothing of a batch is used
// unless all of it is valid. The line limit and the check of class labels
// are the readers' (data.ReadOptions), as for the command's data files.
// A CSV batch's weight column, when configured, gives its rows' instance
// weights; the batch's hash covers them, as they are part of its bytes.
//
// name is the batch's file name (its extension chooses the format), label
// the name as reasons print it (shown).
func parseBatch(name, label string, raw []byte, lim batchLimits) (*data.Dataset, error) {
	opt := data.ReadOptions{MaxFeatures: lim.maxFeatures, MaxLineBytes: lim.maxLineBytes, ClassLabels: !lim.realLabels}
	csv := strings.EqualFold(filepath.Ext(name), ".csv")
	if csv {
		opt.WeightColumn = lim.weightColumn
		opt.CSVHeader, opt.CSVSkipColumns = lim.csvHeader, lim.csvSkip
	}
	// Sized from the bytes rather than by a first parse (data.Scan), which
	// read every batch twice: a row is a line, and a nonzero takes a ':'
	// (a field, so a ',' or a line's end, in CSV).
	lines := bytes.Count(raw, []byte{'\n'}) + 1
	sep := byte(':')
	if csv {
		sep = ','
	}
	ds := data.NewSparse(lines, bytes.Count(raw, []byte{sep})+lines, lim.maxFeatures)
	if _, err := data.ReadInto(ds, bytes.NewReader(raw), label, opt); err != nil {
		return nil, reject("%v", err) // a line too long, a *data.ParseError: "name:line: ..."
	}
	switch {
	case ds.Len() == 0:
		return nil, reject("%s: empty batch: no rows", label)
	case ds.Len() > lim.capacity:
		return nil, reject("%s: %d rows, more than the store's capacity of %d", label, ds.Len(), lim.capacity)
	}
	return ds, nil
}
