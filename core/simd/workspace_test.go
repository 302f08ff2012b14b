package simd

import "testing"

// TestWorkspace: GetWorkspace gives the asked lengths, keeps what a larger
// call grew (a smaller call reuses it), and a warm Get/Put allocates
// nothing.
func TestWorkspace(t *testing.T) {
	w := GetWorkspace(48, 128, 3)
	if len(w.Panels) != 48 || len(w.C) != 128 || len(w.Row) != 3 {
		t.Fatalf("lengths %d %d %d, want 48 128 3", len(w.Panels), len(w.C), len(w.Row))
	}
	w.Panels[47], w.C[127], w.Row[2] = 1, 2, 3
	PutWorkspace(w)
	v := GetWorkspace(0, 64, 1)
	if len(v.Panels) != 0 || len(v.C) != 64 || len(v.Row) != 1 {
		t.Fatalf("lengths %d %d %d, want 0 64 1", len(v.Panels), len(v.C), len(v.Row))
	}
	PutWorkspace(v)
	if got := testing.AllocsPerRun(100, func() { PutWorkspace(GetWorkspace(48, 128, 3)) }); got != 0 {
		t.Errorf("warm Get/Put: %v allocations, want 0", got)
	}
}
