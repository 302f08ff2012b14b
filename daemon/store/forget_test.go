package store

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestForget follows a forget by hand: batches a (rows 1..3), b (4, 5), c
// (6); α known for all six. Forgetting b removes rows 4 and 5 with their α,
// advances the generation, and leaves a and c; forgetting it again removes
// nothing; the hash stays recorded (a duplicate if b comes back); an
// unknown hash is refused. The record survives Commit and Open.
func TestForget(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 10, MaxFeatures: 4}
	s := open(t, dir, cfg)
	add(t, s, "a", ids(1, 3, 1)...)
	add(t, s, "b", ids(4, 2, 2)...)
	add(t, s, "c", ids(6, 1, 1)...)
	if err := setLinearDual(s, &linear.LinearDual{Labels: []int32{1}, Alpha: [][]float64{{.1, .2, .3, .4, .5, .6}}}); err != nil {
		t.Fatal(err)
	}
	s.SetPublished(3)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(hashOf("z")); !errors.Is(err, ErrUnknownBatch) || s.Uncommitted() {
		t.Fatalf("Forget(unknown) = %v, uncommitted %v", err, s.Uncommitted())
	}
	n, err := s.Forget(hashOf("b"))
	if err != nil || n != 2 {
		t.Fatalf("Forget(b) = %d, %v; want 2 rows", n, err)
	}
	wantLabels(t, s, 1, 2, 3, 6)
	wantAlpha(t, s, []float64{.1, .2, .3, .6})
	if s.Generation() != 4 || s.Published() != 3 || !s.Forgotten(hashOf("b")) || s.Forgotten(hashOf("a")) {
		t.Errorf("generation %d published %d forgotten b %v a %v", s.Generation(), s.Published(),
			s.Forgotten(hashOf("b")), s.Forgotten(hashOf("a")))
	}
	if s.Dataset().Nonzeros() != 4 {
		t.Errorf("%d nonzeros, want 4", s.Dataset().Nonzeros())
	}
	if _, err := s.Add(hashOf("b"), batch(t, ids(4, 2, 2)...)); !errors.Is(err, ErrDuplicate) {
		t.Errorf("b again: %v, want ErrDuplicate", err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir, cfg)
	equalStores(t, r, s)
	if !r.Forgotten(hashOf("b")) || r.Generation() != 4 {
		t.Fatalf("reopened: forgotten %v, generation %d", r.Forgotten(hashOf("b")), r.Generation())
	}
	// Forgetting again, in the reopened store: nothing.
	if n, err := r.Forget(hashOf("b")); n != 0 || err != nil || r.Generation() != 4 {
		t.Errorf("Forget(b) again = %d, %v, generation %d", n, err, r.Generation())
	}
	// A batch added after the forget has the next generation, and is
	// forgotten alone.
	add(t, r, "d", ids(7, 2, 1)...)
	if r.Generation() != 5 {
		t.Errorf("generation %d after d, want 5", r.Generation())
	}
	if n, err := r.Forget(hashOf("c")); n != 1 || err != nil {
		t.Fatalf("Forget(c) = %d, %v", n, err)
	}
	wantLabels(t, r, 1, 2, 3, 7, 8)
	if n, err := r.Forget(hashOf("d")); n != 2 || err != nil {
		t.Fatalf("Forget(d) = %d, %v", n, err)
	}
	wantLabels(t, r, 1, 2, 3)
	if got := r.age[:r.Len()]; !slices.Equal(got, []uint64{1, 1, 1}) {
		t.Errorf("ages %v", got)
	}
}

// TestWindow: a window of 4 rows in a store of 10. Batches of 3, 2 and 2
// rows: the second retires row 1, the third rows 2 and 3, oldest first
// whatever their α (row 2's is not 0); a batch of 5 rows is refused.
func TestWindow(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 10, MaxFeatures: 4, Window: 4})
	add(t, s, "a", ids(1, 3, 1)...)
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	if ev := add(t, s, "b", ids(4, 2, 1)...); ev != 1 {
		t.Fatalf("evicted %d, want 1", ev)
	}
	wantLabels(t, s, 2, 3, 4, 5)
	wantAlpha(t, s, []float64{1, 0, 0, 0})
	if ev := add(t, s, "c", ids(6, 2, 1)...); ev != 2 {
		t.Fatalf("evicted %d, want 2", ev)
	}
	wantLabels(t, s, 4, 5, 6, 7)
	if _, err := s.Add(hashOf("e"), batch(t, ids(8, 5, 1)...)); !errors.Is(err, ErrBatchTooLarge) {
		t.Errorf("5 rows in a window of 4: %v", err)
	}
	wantLabels(t, s, 4, 5, 6, 7)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	// Reopened with a smaller window: Expire retires the excess.
	r := open(t, s.dir, Config{Capacity: 10, MaxFeatures: 4, Window: 3})
	if n, err := r.Expire(time.Now()); n != 1 || err != nil {
		t.Fatalf("Expire = %d, %v; want 1", n, err)
	}
	wantLabels(t, r, 5, 6, 7)
	if n, err := r.Expire(time.Now()); n != 0 || err != nil || r.Generation() != 4 {
		t.Fatalf("Expire again = %d, %v, generation %d", n, err, r.Generation())
	}
}

// TestMaxAge: MaxAge one hour. Batches at t0, t0+20m, t0+50m. NextExpiry
// is t0+1h; Expire at t0+1h removes the first batch, at t0+1h30m nothing
// more, at t0+1h50m the last two. Times survive Commit and Open.
func TestMaxAge(t *testing.T) {
	cfg := Config{Capacity: 10, MaxFeatures: 4, MaxAge: time.Hour}
	s := open(t, t.TempDir(), cfg)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for k, name := range []string{"a", "b", "c"} {
		at := t0.Add([]time.Duration{0, 20 * time.Minute, 50 * time.Minute}[k])
		if _, err := s.AddAt(hashOf(name), batch(t, ids(10*k+10, 2, 1)...), at); err != nil {
			t.Fatal(err)
		}
	}
	if next, ok := s.NextExpiry(); !ok || !next.Equal(t0.Add(time.Hour)) {
		t.Fatalf("NextExpiry = %v, %v; want %v", next, ok, t0.Add(time.Hour))
	}
	if n, _ := s.Expire(t0.Add(59 * time.Minute)); n != 0 {
		t.Fatalf("expired %d rows before the hour", n)
	}
	if n, err := s.Expire(t0.Add(time.Hour)); n != 2 || err != nil {
		t.Fatalf("Expire at the hour = %d, %v", n, err)
	}
	wantLabels(t, s, 20, 21, 30, 31)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	r := open(t, s.dir, cfg)
	if next, ok := r.NextExpiry(); !ok || !next.Equal(t0.Add(80*time.Minute)) {
		t.Fatalf("reopened NextExpiry = %v, %v; want %v", next, ok, t0.Add(80*time.Minute))
	}
	if n, _ := r.Expire(t0.Add(90 * time.Minute)); n != 2 {
		t.Fatalf("Expire at 1h30 = %d, want 2", n)
	}
	if n, _ := r.Expire(t0.Add(110 * time.Minute)); n != 2 || r.Len() != 0 {
		t.Fatalf("Expire at 1h50 = %d, %d left", n, r.Len())
	}
	if _, ok := r.NextExpiry(); ok {
		t.Error("NextExpiry of an empty store")
	}
	// Without MaxAge nothing expires by age.
	u := open(t, t.TempDir(), Config{Capacity: 10, MaxFeatures: 4})
	add(t, u, "a", ids(1, 2, 1)...)
	if n, _ := u.Expire(time.Now().Add(1000 * time.Hour)); n != 0 {
		t.Errorf("expired %d rows without MaxAge", n)
	}
	if _, ok := u.NextExpiry(); ok {
		t.Error("NextExpiry without MaxAge")
	}
}
