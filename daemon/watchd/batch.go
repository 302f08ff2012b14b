package watchd

import (
	"bytes"
	"fmt"

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
	capacity     int  // rows the store holds
	maxFeatures  int  // feature indices 1..maxFeatures (as written)
	maxLineBytes int  // core.ReadOptions.MaxLineBytes
	realLabels   bool // labels are any finite number (targets, or ignored); otherwise integer classes
}

// parseBatch validates a whole batch file's bytes and returns its rows, or
// the *rejection that says which line is wrong. Nothing of a batch is used
// unless all of it is valid. The line limit and the check of class labels
// are the readers' (core.ReadOptions), as for the command's data files.
func parseBatch(name string, data []byte, lim batchLimits) (*core.Dataset, error) {
	opt := core.ReadOptions{MaxFeatures: lim.maxFeatures, MaxLineBytes: lim.maxLineBytes, ClassLabels: !lim.realLabels}
	st, err := core.Scan(bytes.NewReader(data), name, opt)
	if err != nil {
		return nil, reject("%v", err) // a line too long, a *core.ParseError: "name:line: ..."
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
	return ds, nil
}
