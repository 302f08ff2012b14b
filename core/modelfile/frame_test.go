package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/tinylib/msgp/msgp"
)

// quantizedBody returns a msgpack map of kind k with one more field, the
// shape of a body package quantize writes.
func quantizedBody(k string) []byte {
	p := msgp.AppendMapHeader(nil, 2)
	p = msgp.AppendString(p, "k")
	p = msgp.AppendString(p, k)
	p = msgp.AppendString(p, "qb")
	return msgp.AppendInt(p, 8)
}

func sealBody(t *testing.T, body []byte, kind string) []byte {
	t.Helper()
	b := append(make([]byte, HeaderSize), body...)
	if err := Seal(b, kind); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSealOpen(t *testing.T) {
	for kind, minor := range map[string]uint16{KindLinear: 0, KindKernel: 1, KindQLinear: 2, KindQKernel: 2} {
		body := quantizedBody(kind)
		b := sealBody(t, body, kind)
		if got := binary.LittleEndian.Uint16(b[10:12]); got != minor {
			t.Errorf("%s: sealed with minor %d, want %d", kind, got, minor)
		}
		if !bytes.Equal(b[:HeaderSize], frame(body, Major, minor)[:HeaderSize]) {
			t.Errorf("%s: Seal's frame differs from putHeader's", kind)
		}
		payload, k, err := Open(b)
		if err != nil || k != kind || !bytes.Equal(payload, body) {
			t.Errorf("%s: Open = %q, %v", kind, k, err)
		}
		if a := testing.AllocsPerRun(10, func() { Open(b) }); a != 0 {
			t.Errorf("%s: Open allocates %v times", kind, a)
		}
	}
	// Open checks the frame as the decoders do.
	valid := sealBody(t, quantizedBody(KindQLinear), KindQLinear)
	for name, c := range map[string]struct {
		b    []byte
		want error
	}{
		"magic":     {append([]byte("x"), valid[1:]...), ErrNotModel},
		"truncated": {valid[:len(valid)-1], ErrTruncated},
		"crc":       {append(bytes.Clone(valid[:len(valid)-1]), valid[len(valid)-1]^1), ErrChecksum},
		"trailing":  {append(bytes.Clone(valid), 0), ErrCorrupt},
		"shape":     {frame([]byte{0x81, 0xa1, 'k'}, Major, 2), ErrCorrupt},
	} {
		if _, _, err := Open(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// An unknown kind: a newer format's in a newer minor version, else
	// corruption.
	if _, _, err := Open(frame(quantizedBody("qforest"), Major, Minor+1)); !errors.Is(err, ErrVersion) {
		t.Errorf("unknown kind at minor %d: %v, want ErrVersion", Minor+1, err)
	}
	if _, _, err := Open(frame(quantizedBody("qforest"), Major, Minor)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("unknown kind at minor %d: %v, want ErrCorrupt", Minor, err)
	}
}

// TestQuantizedKinds checks that the float decoders refuse the quantized
// kinds with ErrKind and that Kind reports them.
func TestQuantizedKinds(t *testing.T) {
	if Minor < 2 {
		t.Fatalf("Minor = %d; format 1.2 added the quantized kinds", Minor)
	}
	for _, kind := range []string{KindQLinear, KindQKernel} {
		b := sealBody(t, quantizedBody(kind), kind)
		if k, err := Kind(b); err != nil || k != kind {
			t.Errorf("Kind = %q, %v; want %q", k, err, kind)
		}
		if _, err := Unmarshal(b); !errors.Is(err, ErrKind) {
			t.Errorf("Unmarshal of %s: %v, want ErrKind", kind, err)
		}
		if _, err := UnmarshalKernel(b); !errors.Is(err, ErrKind) {
			t.Errorf("UnmarshalKernel of %s: %v, want ErrKind", kind, err)
		}
	}
}

func TestSealPanicsAndLimits(t *testing.T) {
	for name, f := range map[string]func(){
		"short":   func() { Seal(make([]byte, HeaderSize-1), KindQLinear) },
		"unknown": func() { Seal(make([]byte, HeaderSize+1), "qforest") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Seal %s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestReadWriteBytes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q.svmgo")
	b := frame(quantizedBody(KindQKernel), Major, 2)
	if err := WriteBytes(path, b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBytes(path)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("ReadBytes: %v", err)
	}
	// A directory is not a corrupt model but an I/O mistake (issue 10): a
	// path error wrapping fileio.ErrNotRegular, none of the format's
	// sentinels.
	var pe *fs.PathError
	if _, err := ReadBytes(dir); !errors.Is(err, fileio.ErrNotRegular) || !errors.As(err, &pe) || errors.Is(err, ErrNotModel) {
		t.Errorf("ReadBytes of a directory: %v, want a path error wrapping fileio.ErrNotRegular", err)
	}
	if _, err := ReadBytes(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadBytes of a missing file: %v", err)
	}
}
