package main

import (
	"slices"
	"testing"
)

// TestOvertakes checks the overtaking counts against a brute-force count
// on hand-made spans: a FIFO order gives zeros.
func TestOvertakes(t *testing.T) {
	fifo := [][2]int64{{0, 10}, {1, 20}, {2, 30}, {11, 40}}
	if got := overtakes(fifo); !slices.Equal(got, []int{0, 0, 0, 0}) {
		t.Errorf("FIFO spans: %v, want zeros", got)
	}
	// {0,50} is passed by the three after it; {5,30} by {6,7}.
	spans := [][2]int64{{0, 50}, {5, 30}, {6, 7}, {40, 45}}
	if got := overtakes(spans); !slices.Equal(got, []int{0, 0, 1, 3}) {
		t.Errorf("spans %v: %v, want [0 0 1 3]", spans, got)
	}
}
