package main

import (
	"net"
	"slices"
	"strconv"
	"testing"
)

// TestLoopbackPortsFree: with no -port, servetime's ports are free and
// distinct, and a second run's, chosen while the first run's servers hold
// theirs, are others (fixed ports made two runs at once meet); with
// -port N they are N on.
func TestLoopbackPortsFree(t *testing.T) {
	const n = 13
	first := loopbackPorts(0, n)
	held := listenAll(t, first) // the first run's servers
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	second := loopbackPorts(0, n)
	for _, p := range second {
		if slices.Contains(first, p) {
			t.Fatalf("port %d given to both runs: %v and %v", p, first, second)
		}
	}
	for _, ln := range listenAll(t, second) {
		ln.Close()
	}
	if got := loopbackPorts(18470, 3); !slices.Equal(got, []int{18470, 18471, 18472}) {
		t.Errorf("loopbackPorts(18470, 3) = %v", got)
	}
}

// listenAll listens on each of ports on loopback, failing unless each is
// free and none is given twice.
func listenAll(t *testing.T, ports []int) []net.Listener {
	t.Helper()
	var lns []net.Listener
	for _, p := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d of %v: %v", p, ports, err)
		}
		lns = append(lns, ln)
	}
	return lns
}
