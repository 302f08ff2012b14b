package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// endlessReader is an input without line breaks (as /dev/zero is): it
// returns fill bytes until limit bytes are read, then an error, so that a
// reader that does not bound its lines fails the test instead of eating
// the machine's memory.
type endlessReader struct {
	fill  byte
	n     int64
	limit int64
}

var errEndless = errors.New("endless input read past the test's limit")

func (r *endlessReader) Read(p []byte) (int, error) {
	if r.n >= r.limit {
		return 0, errEndless
	}
	p = p[:min(int64(len(p)), r.limit-r.n)]
	for i := range p {
		p[i] = r.fill
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestLineLimitStopsEndlessInput: both passes stop an input without line
// breaks at the line limit, with file:line, having read about the limit
// and no more (issue 10, fault 7: svmgo train-linear /dev/zero grew to
// gigabytes).
func TestLineLimitStopsEndlessInput(t *testing.T) {
	for _, c := range []struct {
		maxLine, want int
	}{
		{0, DefaultMaxLineBytes},
		{1000, 1000},
		{300 << 10, 300 << 10}, // more than one read buffer
	} {
		for _, format := range []Format{FormatLIBSVM, FormatCSV} {
			opt := ReadOptions{Format: format, MaxLineBytes: c.maxLine}
			check := func(pass string, err error, r *endlessReader) {
				t.Helper()
				var pe *ParseError
				want := fmt.Sprintf("zeros:1: line longer than the limit of %d bytes", c.want)
				if !errors.As(err, &pe) || !errors.Is(err, ErrLineTooLong) || err.Error() != want {
					t.Errorf("%v %s, limit %d: %v, want %q", format, pass, c.maxLine, err, want)
				}
				if bound := int64(c.want) + 2*readBufferSize; r.n > bound {
					t.Errorf("%v %s: read %d bytes of an endless line, more than %d", format, pass, r.n, bound)
				}
			}
			r := &endlessReader{fill: '0', limit: 64 << 20}
			_, err := Scan(r, "zeros", opt)
			check("Scan", err, r)
			r = &endlessReader{fill: '0', limit: 64 << 20}
			_, err = ReadInto(NewSparse(10, 10, 0), r, "zeros", opt)
			check("ReadInto", err, r)
		}
	}
}

// TestLineLimitExact: a line of exactly MaxLineBytes (line ending not
// counted, "\r\n" included) is read; one byte more is refused at its line,
// after the good lines before it, blank lines counted.
func TestLineLimitExact(t *testing.T) {
	row := "1 1:0.5 2:0.25" // 14 bytes
	for _, nl := range []string{"\n", "\r\n"} {
		in := "\n" + row + nl + "\n" + row + nl
		d := NewSparse(10, 10, 0)
		if n, err := ReadInto(d, strings.NewReader(in), "ok", ReadOptions{MaxLineBytes: len(row)}); n != 2 || err != nil {
			t.Fatalf("%q: %d rows, %v", nl, n, err)
		}
		if st, err := Scan(strings.NewReader(in), "ok", ReadOptions{MaxLineBytes: len(row)}); st.Rows != 2 || err != nil {
			t.Fatalf("Scan %q: %+v, %v", nl, st, err)
		}
		long := in + row + "0" + nl
		want := "long:5: line longer than the limit of 14 bytes"
		if _, err := ReadInto(d, strings.NewReader(long), "long", ReadOptions{MaxLineBytes: len(row)}); err == nil || err.Error() != want || d.Len() != 2 {
			t.Errorf("ReadInto %q: %v, %d rows; want %q, 2 rows", nl, err, d.Len(), want)
		}
		if _, err := Scan(strings.NewReader(long), "long", ReadOptions{MaxLineBytes: len(row)}); err == nil || err.Error() != want {
			t.Errorf("Scan %q: %v; want %q", nl, err, want)
		}
	}
}

// TestReadFileRefusesSpecialFiles: ReadFile and ScanFile refuse a FIFO
// (without waiting for a writer), a character device and a directory,
// naming the path (issue 10, fault 7).
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.fifo")
	paths := []string{dir, "/dev/zero"}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Logf("no FIFO: %v", err)
	} else {
		paths = append(paths, fifo)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Logf("skip %s: %v", p, err)
			continue
		}
		done := make(chan error, 2)
		go func() {
			_, err := ReadFile(p, ReadOptions{})
			done <- err
			_, err = ScanFile(p, ReadOptions{})
			done <- err
		}()
		for _, call := range []string{"ReadFile", "ScanFile"} {
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegularFile) || !strings.Contains(err.Error(), p) {
					t.Errorf("%s(%s) = %v, want ErrNotRegularFile naming the path", call, p, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s(%s) blocked", call, p)
			}
		}
	}
}

// TestClassLabelsNameTheLine: with ClassLabels a label that is not an
// integer class is refused at its file line, blank lines counted, in both
// formats (issue 10, fault 8: "label 1.5 of row 4" for line 5); without it
// the label is read.
func TestClassLabelsNameTheLine(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"a.txt", "1 1:1\n2 1:2\n-1 1:3\n\n1.5 1:4\n", "a.txt:5: label 1.5 is not an integer class"},
		{"b.csv", "1,1\n\n \n-3,2\n1e-3,0\n", "b.csv:5: label 0.001 is not an integer class"},
		{"c.txt", "1 1:1\n\r\n4294967296 2:1\n", "c.txt:3: label 4.294967296e+09 is not an integer class"},
		{"d.txt", "-2147483649\n", "d.txt:1: label -2.147483649e+09 is not an integer class"},
	} {
		d := NewSparse(10, 10, 0)
		_, err := ReadInto(d, strings.NewReader(c.in), c.name, ReadOptions{ClassLabels: true})
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrLabels) || err.Error() != c.want || d.Len() != 0 {
			t.Errorf("%s: %v (%d rows), want %q", c.name, err, d.Len(), c.want)
		}
		if _, err := ReadInto(d, strings.NewReader(c.in), c.name, ReadOptions{}); err != nil {
			t.Errorf("%s without ClassLabels: %v", c.name, err)
		}
	}
	d := NewSparse(10, 10, 0)
	in := "2147483647 1:1\n-2147483648 1:1\n-0 1:1\n3.0 1:1\n"
	if n, err := ReadInto(d, strings.NewReader(in), "ok", ReadOptions{ClassLabels: true}); n != 4 || err != nil {
		t.Errorf("int32 extremes: %d rows, %v", n, err)
	}
}
