package data

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The data readers' fuzz target (issue 10): whole files, LIBSVM and CSV,
// with every option that changes what is accepted, checked against a
// reference reader written the obvious way (split, strconv) and by
// writing what was read back out and reading it again.

// rzRow is a row of the reference reader.
type rzRow struct {
	label float64
	index []int32 // 0-based
	value []float32
}

// rzResult is what the reference reader makes of a file.
type rzResult struct {
	rows     []rzRow
	pairs    int // LIBSVM: index:value pairs written (Scan's exact Nonzeros)
	maxIndex int // LIBSVM: largest 1-based index (Scan's exact NumFeatures)
	errLine  int // 1-based line of the first refused line; 0 when accepted
	longLine int // 1-based line of the first line over the limit; 0 if none
}

// rzLines splits data into lines as the readers define them: "\n" ends a
// line and a "\r" before it goes with it; a last line without "\n" counts
// (and keeps a trailing "\r").
func rzLines(data string) []string {
	lines := strings.SplitAfter(data, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
		}
	}
	return lines
}

// rzReference reads data as ReadInto should, by the format's definition.
func rzReference(data string, csv bool, opt ReadOptions) rzResult {
	var r rzResult
	columns := 0       // CSV: columns of the first row
	seen := false      // CSV: a non-blank line has been read
	dropFirst := false // CSV: the header's first field was empty (pandas' index)
	for n, line := range rzLines(data) {
		ln := n + 1
		if len(line) > opt.maxLineBytes() {
			if r.longLine == 0 {
				r.longLine = ln
			}
			if r.errLine == 0 {
				r.errLine = ln
			}
			continue
		}
		if r.errLine != 0 {
			continue
		}
		var row rzRow
		var blank, ok bool
		if csv && !seen && strings.Trim(line, " \t") != "" {
			// The first non-blank line is a header when its label field
			// is not a number (the reader's own number syntax decides).
			seen = true
			label, _, _ := strings.Cut(line, ",")
			label = strings.Trim(label, " \t")
			if _, isNum := parseFloat64([]byte(label)); !isNum {
				dropFirst = label == ""
				continue
			}
		}
		if csv && dropFirst && strings.Trim(line, " \t") != "" {
			_, rest, found := strings.Cut(line, ",")
			if !found {
				rest = "," // no label left: an empty field
			}
			line = rest
		}
		if csv {
			row, blank, ok = rzCSVLine(line, max(opt.MaxFeatures, 0), &columns)
		} else {
			row.label, row.index, row.value, blank, ok = rfReferenceLine(line, max(opt.MaxFeatures, 0))
		}
		if ok && !blank && opt.ClassLabels {
			y := row.label
			ok = y == math.Floor(y) && y >= math.MinInt32 && y <= math.MaxInt32
		}
		switch {
		case !ok:
			r.errLine = ln
		case !blank:
			r.rows = append(r.rows, row)
			if !csv {
				r.pairs += len(row.index)
				if k := len(row.index); k > 0 {
					r.maxIndex = max(r.maxIndex, int(row.index[k-1])+1)
				}
			}
		}
	}
	return r
}

// rzCSVLine parses a CSV line the obvious way: split at commas, trim
// blanks, strconv each field; zeros are not stored. *columns is the first
// row's column count, set by the first row.
func rzCSVLine(line string, maxFeatures int, columns *int) (row rzRow, blank, ok bool) {
	if strings.Trim(line, " \t") == "" {
		return row, true, true
	}
	if strings.Contains(line, `"`) {
		return row, false, false
	}
	fields := strings.Split(line, ",")
	limit := math.MaxInt32
	if maxFeatures > 0 {
		limit = maxFeatures
	}
	if len(fields)-1 > limit || (*columns != 0 && len(fields) != *columns) {
		return row, false, false
	}
	for c, f := range fields {
		f = strings.Trim(f, " \t")
		bits := 32
		if c == 0 {
			bits = 64
		}
		v, err := strconv.ParseFloat(f, bits)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return row, false, false
		}
		switch {
		case c == 0:
			row.label = v
		case v != 0:
			row.index = append(row.index, int32(c-1))
			row.value = append(row.value, float32(v))
		}
	}
	if *columns == 0 {
		*columns = len(fields)
	}
	return row, false, true
}

// rzNonzeros returns row i of d as its nonzero entries, in index order.
func rzNonzeros(d *Dataset, i int) ([]int32, []float32) {
	var idx []int32
	var val []float32
	if d.IsDense() {
		for j, v := range d.DenseRow(i) {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
		return idx, val
	}
	si, sv := d.SparseRow(i)
	for k, v := range sv {
		if v != 0 {
			idx, val = append(idx, si[k]), append(val, v)
		}
	}
	return idx, val
}

// rzSame reports whether d holds exactly the reference rows: labels bit
// for bit, the same nonzero values at the same indices (a sparse data set
// does not store explicit zeros, so a -0 reads back as an absent +0).
func rzSame(d *Dataset, rows []rzRow) bool {
	if d.Len() != len(rows) {
		return false
	}
	for i, w := range rows {
		if math.Float64bits(d.Label(i)) != math.Float64bits(w.label) {
			return false
		}
		idx, val := rzNonzeros(d, i)
		k := 0
		for m, j := range w.index {
			if w.value[m] == 0 {
				continue
			}
			if k == len(idx) || idx[k] != j || val[k] != w.value[m] {
				return false
			}
			k++
		}
		if k != len(idx) {
			return false
		}
	}
	return true
}

// rzWrite writes d's rows in the given format: LIBSVM with every nonzero,
// or CSV with all n feature columns, numbers in the shortest form that
// reads back exactly.
func rzWrite(d *Dataset, n int, csv bool) string {
	var b strings.Builder
	for i := range d.Len() {
		b.WriteString(strconv.FormatFloat(d.Label(i), 'g', -1, 64))
		idx, val := rzNonzeros(d, i)
		if csv {
			x := make([]float32, n)
			for k, j := range idx {
				x[j] = val[k]
			}
			for _, v := range x {
				b.WriteByte(',')
				b.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
			}
		} else {
			for k, j := range idx {
				b.WriteString(" " + strconv.Itoa(int(j)+1) + ":" + strconv.FormatFloat(float64(val[k]), 'g', -1, 32))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// rzCheckError checks that err is the *ParseError of line in a file called
// name, "name:line: ...", and that dst kept nothing.
func rzCheckError(t *testing.T, what string, err error, name string, line int) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: error %v is not a *ParseError", what, err)
	}
	if prefix := name + ":" + strconv.Itoa(line) + ": "; pe.File != name || pe.Line != line ||
		!strings.HasPrefix(err.Error(), prefix) || len(err.Error()) == len(prefix) {
		t.Fatalf("%s: error %q, want it at %s:%d", what, err, name, line)
	}
}

func FuzzReadData(f *testing.F) {
	f.Add([]byte("+1 1:0.708333 2:1 3:1 4:-0.320755\n-1 1:0.583333 2:-1 13:-1\n\n2 \t3:0.5e1 7:-0.0\n"), false, 0, 0, false)
	f.Add([]byte("1,0.5,0,-2\r\n\n-1, 0 ,1e-3 , 0.0\n  \n2.5,0,0,0"), true, 0, 0, false)
	f.Add([]byte("1 1:1\n\n-1 2:1\n1.5 3:1\n"), false, 0, 0, true)
	f.Add([]byte("1 1:1 2:2\n1 2:1 1:1\n"), false, 0, 0, false)
	f.Add([]byte("1,2,3\n\n1,2\n"), true, 0, 0, false)
	f.Add([]byte("1 5:1\n2 3:1 9:2\n"), false, 4, 0, false)
	f.Add([]byte("1 1:1\n1 1:1 2:1 3:1\n1 1:1\n"), false, 0, 12, false)
	f.Add([]byte("label,x\n1,2\n"), true, 0, 0, true)
	f.Add([]byte("0x1p-2 1:0x10 2:1e-45 3:3.4028235e38\n-2147483648 4:-0\n"), false, 0, 0, true)
	f.Fuzz(func(t *testing.T, data []byte, csv bool, maxFeatures, maxLine int, classLabels bool) {
		// No hang: a read of these few bytes takes microseconds.
		watchdog := time.AfterFunc(10*time.Second, func() { panic("FuzzReadData: a read of " + strconv.Itoa(len(data)) + " bytes hangs") })
		defer watchdog.Stop()

		name := "in.txt"
		if csv {
			name = "in.csv"
		}
		opt := ReadOptions{Format: FormatAuto, MaxFeatures: maxFeatures % (1 << 20), MaxLineBytes: maxLine % (1 << 12), ClassLabels: classLabels}
		ref := rzReference(string(data), csv, opt)

		st, err := Scan(bytes.NewReader(data), name, opt)
		if ref.longLine != 0 {
			rzCheckError(t, "Scan", err, name, ref.longLine)
			if !errors.Is(err, ErrLineTooLong) {
				t.Fatalf("Scan: %v does not wrap ErrLineTooLong", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		d := NewSparse(st.Rows, st.Nonzeros, max(opt.MaxFeatures, 0))
		n, err := ReadInto(d, bytes.NewReader(data), name, opt)
		if ref.errLine != 0 {
			rzCheckError(t, "ReadInto", err, name, ref.errLine)
			if n != 0 || d.Len() != 0 || d.Nonzeros() != 0 {
				t.Fatalf("ReadInto failed but kept %d rows (returned %d)", d.Len(), n)
			}
			return
		}
		if err != nil {
			t.Fatalf("ReadInto: %v; the reference reads %d rows", err, len(ref.rows))
		}
		// Scan's counts: exact rows; for LIBSVM exact nonzeros and width,
		// for CSV upper bounds.
		if st.Rows != len(ref.rows) || n != st.Rows ||
			(!csv && (st.Nonzeros != ref.pairs || st.NumFeatures != ref.maxIndex)) ||
			st.Nonzeros < d.Nonzeros() || st.NumFeatures < d.NumFeatures() {
			t.Fatalf("Scan %+v, read %d rows, %d nonzeros, %d features; reference %d rows, %d pairs, width %d",
				st, n, d.Nonzeros(), d.NumFeatures(), len(ref.rows), ref.pairs, ref.maxIndex)
		}
		width := st.NumFeatures
		if !rzSame(d, ref.rows) {
			t.Fatalf("rows differ from the reference's")
		}
		// The same file into a dense data set of the scanned width.
		if st.Rows*width <= 1<<16 {
			dd := NewDense(st.Rows, width)
			if _, err := ReadInto(dd, bytes.NewReader(data), name, opt); err != nil || !rzSame(dd, ref.rows) {
				t.Fatalf("dense read: %v, or rows differ", err)
			}
		}
		// Round trips: written out in either format (CSV when its columns
		// are few), read back the same.
		for _, out := range []bool{false, true} {
			if out && st.Rows*width > 1<<16 {
				continue
			}
			text := rzWrite(d, width, out)
			o := ReadOptions{MaxLineBytes: 1 << 20, ClassLabels: classLabels}
			o.Format = FormatLIBSVM
			if out {
				o.Format = FormatCSV
			}
			st2, err := Scan(strings.NewReader(text), "rt", o)
			if err != nil {
				t.Fatalf("round trip Scan: %v", err)
			}
			d2 := NewSparse(st2.Rows, st2.Nonzeros, 0)
			if _, err := ReadInto(d2, strings.NewReader(text), "rt", o); err != nil || !rzSame(d2, ref.rows) {
				t.Fatalf("round trip (csv %v) %q: %v, or rows differ", out, text, err)
			}
		}
	})
}
