package main

import (
	"os/exec"
	"slices"
	"testing"
)

// TestFifoWrap: -fifo N runs a command under chrt -f N with its own
// arguments; without it the command is left as it was.
func TestFifoWrap(t *testing.T) {
	if _, err := exec.LookPath("chrt"); err != nil {
		t.Skip("no chrt")
	}
	defer func(p int) { *fifoPrio = p }(*fifoPrio)
	*fifoPrio = 0
	cmd := exec.Command("true", "-a", "b")
	fifoWrap(cmd)
	if want := []string{"true", "-a", "b"}; !slices.Equal(cmd.Args, want) {
		t.Errorf("without -fifo: %q, want %q", cmd.Args, want)
	}
	*fifoPrio = 20
	cmd = exec.Command("true", "-a", "b")
	path := cmd.Path
	fifoWrap(cmd)
	if want := []string{"chrt", "-f", "20", path, "-a", "b"}; !slices.Equal(cmd.Args, want) {
		t.Errorf("with -fifo 20: %q, want %q", cmd.Args, want)
	}
	if chrt, _ := exec.LookPath("chrt"); cmd.Path != chrt {
		t.Errorf("with -fifo 20: runs %s, want %s", cmd.Path, chrt)
	}
}
