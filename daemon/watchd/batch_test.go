package watchd

import (
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestParseBatchSizing: parseBatch sizes the batch from its bytes (lines,
// and ':' or ',' for the nonzeros) and reads it once; batches at the
// bound's edges read whole: LIBSVM with a blank line, explicit
// zeros and no final newline, every line full; CSV with a header and a
// weight column; dense CSV rows. The row count is
// exact, and so is the refusal of a batch of more rows than the store.
func TestParseBatchSizing(t *testing.T) {
	lim := batchLimits{capacity: 4, maxFeatures: 5, maxLineBytes: 1000}
	for _, c := range []struct {
		name, text string
		lim        func(batchLimits) batchLimits
		rows, nnz  int
	}{
		{"a.txt", "1 1:0.5 2:1 3:0\n\n-1 1:1 2:1 3:1 4:1 5:1\n+1 5:2", nil, 3, 8},
		{"b.txt", "1 1:1 2:1 3:1 4:1 5:1\n-1 1:1 2:1 3:1 4:1 5:1\n", nil, 2, 10},
		{"c.csv", "y,w,a,b,c\n1,0.5,1,2,3\n-1,2,0,0,4\n", func(l batchLimits) batchLimits {
			l.csvHeader, l.weightColumn = data.CSVHeaderPresent, 2
			return l
		}, 2, 4},
		{"d.csv", "1,1,2,3,4,5\n-1,5,4,3,2,1\n1,1,1,1,1,1\n-1,2,2,2,2,2", nil, 4, 20},
	} {
		l := lim
		if c.lim != nil {
			l = c.lim(l)
		}
		ds, err := parseBatch(c.name, c.name, []byte(c.text), l)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ds.Len() != c.rows || ds.Nonzeros() != c.nnz {
			t.Errorf("%s: %d rows, %d nonzeros; want %d, %d", c.name, ds.Len(), ds.Nonzeros(), c.rows, c.nnz)
		}
	}
	_, err := parseBatch("e.txt", "e.txt", []byte("1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 1:1\n"), lim)
	if r, ok := err.(*rejection); !ok || r.reason != "e.txt: 5 rows, more than the store's capacity of 4" {
		t.Errorf("5 rows for a store of 4: %v", err)
	}
	if _, err := parseBatch("f.txt", "f.txt", []byte("\n\n"), lim); err == nil {
		t.Error("a batch of no rows was taken")
	}
}
