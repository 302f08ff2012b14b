package libsvmref

import (
	"slices"
	"testing"
)

// TestReadOptions checks the float32 reading of svm-train's real-valued
// options against the values Debian's svm-train writes to its model files
// (gamma 0.0099999997764825821 for -g 0.01, coef0 0.30000001192092896 for
// -r 0.3), and that -q, integers and option names are left alone.
func TestReadOptions(t *testing.T) {
	c := Case{Options: []string{"-s", "1", "-q", "-t", "2", "-g", "0.01", "-r", "0.3", "-n", "0.1",
		"-c", "10", "-w-1", "0.3", "-e", "0.001", "-p", "0.5", "-m", "0.1"}}
	want := []string{"-s", "1", "-q", "-t", "2", "-g", "0.009999999776482582", "-r", "0.30000001192092896",
		"-n", "0.10000000149011612", "-c", "10", "-w-1", "0.30000001192092896", "-e", "0.0010000000474974513",
		"-p", "0.5", "-m", "0.1"}
	if got := c.ReadOptions(); !slices.Equal(got, want) {
		t.Errorf("ReadOptions:\n got %q\nwant %q", got, want)
	}
	if c.Options[6] != "0.01" {
		t.Errorf("ReadOptions changed Options: %q", c.Options)
	}
}
