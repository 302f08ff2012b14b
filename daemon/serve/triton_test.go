package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// writeTritonVersion writes model bytes b as version v of the Triton
// model directory dir: the version directory, then the file in it.
func writeTritonVersion(t *testing.T, dir string, v int, b []byte) {
	t.Helper()
	vdir := filepath.Join(dir, strconv.Itoa(v))
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vdir, "model.svmgo"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTritonLayout serves a model directory in Triton's layout
// ("<v>/model.svmgo", version 3 corrupt) beside one in svmgo watch's
// layout, under the version policies; then a new version directory whose
// file arrives truncated first and whole afterwards (a copy in progress)
// is followed, and answers with its model's labels.
func TestTritonLayout(t *testing.T) {
	ds := heart(t)
	root := t.TempDir()
	tdir, ddir := filepath.Join(root, "tri"), filepath.Join(root, "own")
	if err := os.Mkdir(ddir, 0o755); err != nil {
		t.Fatal(err)
	}
	models := map[int][]byte{}
	for v := 1; v <= 5; v++ {
		b, err := modelfile.Encode(linearModel(t, ds, float64(v)))
		if err != nil {
			t.Fatal(err)
		}
		models[v] = b
	}
	for v := 1; v <= 4; v++ {
		b := models[v]
		if v == 3 {
			b = []byte("not a model")
		}
		writeTritonVersion(t, tdir, v, b)
	}
	if err := os.Mkdir(filepath.Join(tdir, "07"), 0o755); err != nil { // not a version: the name is not canonical
		t.Fatal(err)
	}
	if err := writeVersion(ddir, 1, linearModel(t, ds, 1)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ policy, want string }{
		{"latest", "[4]"}, {"latest:2", "[2 4]"}, {"all", "[1 2 4]"}, {"specific:1,3", "[1]"},
	} {
		p, err := ParsePolicy(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		repo, err := OpenRepository(root, RepositoryOptions{Policy: p})
		if err != nil {
			t.Fatal(err)
		}
		if m := repo.model("tri"); m == nil || !m.triton {
			t.Fatalf("tri: %+v, want Triton's layout", m)
		}
		if m := repo.model("own"); m == nil || m.triton || len(m.versions().list) != 1 {
			t.Fatalf("own: %+v, want svmgo watch's layout with one version", m)
		}
		var got []uint64
		for _, v := range repo.model("tri").versions().list {
			got = append(got, v.Version)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("policy %s serves %v, want %s", c.policy, got, c.want)
		}
		repo.Close()
	}

	repo, err := OpenRepository(root, RepositoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	srv, err := New(repo, Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(t.Context())
	// Version 5 arrives as a copy does: the directory, a truncated file,
	// then the whole file.
	writeTritonVersion(t, tdir, 5, models[5][:len(models[5])/2])
	time.Sleep(50 * time.Millisecond)
	if got := repo.model("tri").versions().list[0].Version; got != 4 {
		t.Fatalf("serving version %d while version 5 is truncated, want 4", got)
	}
	writeTritonVersion(t, tdir, 5, models[5])
	deadline := time.Now().Add(5 * time.Second)
	for repo.model("tri").versions().list[0].Version != 5 {
		if time.Now().After(deadline) {
			t.Fatal("version 5 not served 5 s after its file was complete")
		}
		time.Sleep(5 * time.Millisecond)
	}
	m5, err := modelfile.Decode(models[5])
	if err != nil {
		t.Fatal(err)
	}
	rows := []int{0, 1, 2, 3, 4, 5}
	code, out := post(t, srv, "/v2/models/tri/versions/5/infer",
		fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"FP32","data":%s}]}`, len(rows), ds.NumFeatures(), rowsJSON(ds, rows, true)))
	if code != 200 {
		t.Fatalf("status %d %v", code, out)
	}
	labels := out["outputs"].([]any)[0].(map[string]any)["data"].([]any)
	for i, r := range rows {
		if got, want := labels[i].(float64), m5.PredictDense(ds.DenseRow(r)); got != want {
			t.Errorf("row %d: label %v, version 5 says %v", r, got, want)
		}
	}
}
