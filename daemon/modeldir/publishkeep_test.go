package modeldir

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/fileio/faultfs"
	"github.com/libsvmgo/libsvmgo/core/fileio/memfs"
)

// TestPublishEncodedKeep: publishing with retention leaves the newest keep
// versions, at one directory listing and (keep >= 2) one sync, where
// PublishEncoded then Retain took two of each; and a crash at its end,
// whatever of the unsynced names it keeps, leaves a model to serve: the
// new version or the newest before it.
func TestPublishEncodedKeep(t *testing.T) {
	for _, keep := range []int{1, 2, 3} {
		mem := memfs.New()
		const dir = "/models"
		if err := fileio.MkdirAllSynced(mem, dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for v := uint64(1); v <= 3; v++ {
			if _, err := PublishEncoded(mem, dir, []byte{byte(v)}, 0); err != nil {
				t.Fatal(err)
			}
		}
		ffs := faultfs.New(mem)
		v, removed, err := PublishEncodedKeep(ffs, dir, []byte{4}, 0, keep)
		if err != nil || v != 4 {
			t.Fatalf("keep %d: version %d, err %v; want 4", keep, v, err)
		}
		slices.Sort(removed)
		var want []uint64
		for r := uint64(1); int(r) <= 4-keep; r++ {
			want = append(want, r)
		}
		if !slices.Equal(removed, want) {
			t.Errorf("keep %d: removed %v, want %v", keep, removed, want)
		}
		n := ffs.Counts()
		wantSyncs, wantLists := 2, 1 // the temporary file's and the directory's
		if keep == 1 {
			wantSyncs, wantLists = 3, 2 // the newest before goes after the sync
		}
		if n[faultfs.Sync] != wantSyncs || n[faultfs.ReadDir] != wantLists {
			t.Errorf("keep %d: %d syncs and %d listings, want %d and %d", keep, n[faultfs.Sync], n[faultfs.ReadDir], wantSyncs, wantLists)
		}
		left := versionsIn(t, mem, dir)
		if len(left) != keep || left[0] != 4 {
			t.Errorf("keep %d: versions left %v", keep, left)
		}
		rng := rand.New(rand.NewPCG(21, uint64(keep)))
		for range 200 {
			got := versionsIn(t, mem.CrashClone(rng), dir)
			if !slices.Contains(got, 4) && !slices.Contains(got, 3) {
				t.Fatalf("keep %d: a crash left versions %v: neither the new one nor the one before", keep, got)
			}
		}
	}
}

// versionsIn returns the versions published in dir, newest first.
func versionsIn(t *testing.T, fsys fileio.FS, dir string) []uint64 {
	t.Helper()
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var vs []uint64
	for _, ver := range publishedVersions(entries) {
		vs = append(vs, ver.v)
	}
	return vs
}
