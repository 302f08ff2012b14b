package scale

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzReadRanges is the fuzz target of the range-file reader (svm-scale's
// -r files, svmgo's --scale-ranges): `go test` runs its seeds, `go test
// -fuzz FuzzReadRanges ./core/scale` searches further.
//
// What must hold for any bytes: no panic, no hang; an error names the file;
// ranges that are returned validate, and written back with WriteTo and read
// again they scale every feature as before (same interval, y section and,
// for each feature, dropped or the same [min, max]).
func FuzzReadRanges(f *testing.F) {
	for _, name := range []string{"heart_scale.range", "heart_scale-y.range", "digits-l0.range"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("x\n-1 1\n1 0 5\n3 2 2\n7 -1e300 1e300\n"))
	f.Add([]byte("\n y \n0 1\n-3 3\n\nx\n0 1\n2 0.5 0.75\n"))
	f.Add([]byte("x\n0 1\n2 1 0\n"))
	f.Add([]byte("x\r\n0x1p-3 1\r\n1 0 NaN\r\n"))
	const name = "fuzz.range"
	f.Fuzz(func(t *testing.T, b []byte) {
		watchdog := time.AfterFunc(10*time.Second, func() {
			panic("FuzzReadRanges: a read of " + strconv.Itoa(len(b)) + " bytes hangs")
		})
		defer watchdog.Stop()
		r, err := ReadRanges(bytes.NewReader(b), name)
		if err != nil {
			if r != nil {
				t.Fatalf("error %v with ranges", err)
			}
			if !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("error %q does not start with the file name", err)
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("ranges read without error do not validate: %v", err)
		}
		var out bytes.Buffer
		if _, err := r.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		back, err := ReadRanges(&out, name)
		if err != nil {
			t.Fatalf("ranges written by WriteTo do not read back: %v\n%s", err, out.Bytes())
		}
		if back.Lower != r.Lower || back.Upper != r.Upper || (back.Y == nil) != (r.Y == nil) ||
			(r.Y != nil && *back.Y != *r.Y) {
			t.Fatalf("read back [%v, %v] y %v, want [%v, %v] y %v", back.Lower, back.Upper, back.Y, r.Lower, r.Upper, r.Y)
		}
		// Every feature either side lists (the ranges may be sparse: a
		// feature index up to 2^31-1 costs one entry, not a loop to it).
		same := func(j int) bool {
			if r.Dropped(j) || back.Dropped(j) {
				return r.Dropped(j) == back.Dropped(j)
			}
			k, _ := r.position(j)
			kb, _ := back.position(j)
			return r.Min[k] == back.Min[kb] && r.Max[k] == back.Max[kb]
		}
		for _, x := range []*Ranges{r, back} {
			for k := range x.Min {
				if j := x.feature(k); !same(j) {
					t.Fatalf("feature %d read back differently:\n%s", j+1, out.Bytes())
				}
			}
		}
	})
}
