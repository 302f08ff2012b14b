package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// testModelFile returns a valid linear model file of about 4·features
// bytes, its weights drawn from seed.
func testModelFile(t testing.TB, features int, seed uint64) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 28))
	w := make([]float32, features)
	for i := range w {
		w[i] = rng.Float32() - 0.5
	}
	m := &linear.LinearModel{Solver: linear.L2LossSVCDual, Labels: []int32{1, -1}, NumFeatures: features, Bias: -1, W: w}
	file, err := modelfile.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return file
}

// putRaw writes an object the way the client library does, but with the
// digest and announced size given: a hostile bucket (or a corrupted
// store) the client library cannot make.
func putRaw(t testing.TB, js jetstream.JetStream, bucket, name string, data []byte, size uint64, digest [32]byte, md map[string]string) {
	t.Helper()
	ctx := context.Background()
	h := sha256.Sum256([]byte(name)) // one chunk subject per name
	nuid := "HOSTILE" + strings.ToUpper(hex.EncodeToString(h[:6]))
	if _, err := js.Publish(ctx, "$O."+bucket+".C."+nuid, data); err != nil {
		t.Fatal(err)
	}
	info := jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: name, Metadata: md},
		Bucket:     bucket, NUID: nuid, Size: size, Chunks: 1, ModTime: time.Now(),
		Digest: "SHA-256=" + base64.URLEncoding.EncodeToString(digest[:]),
	}
	meta, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	msg := &nats.Msg{Subject: "$O." + bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(name)),
		Data: meta, Header: nats.Header{"Nats-Rollup": {"sub"}}}
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
}

// startFollower runs a follower of bucket on url into dir until the test
// ends.
func startFollower(t testing.TB, url, bucket, dir string, published func(uint64, time.Time)) *Follower {
	t.Helper()
	var f *Follower
	nc, err := Connect(ConnOptions{URL: url, ReconnectWait: 50 * time.Millisecond}, testLog(t), func() { f.Reconnected() })
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.NewWithDomain(nc, "hub")
	if err != nil {
		t.Fatal(err)
	}
	f, err = NewFollower(js, FollowConfig{Bucket: bucket, Dir: dir, Resync: 2 * time.Second, Published: published}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; nc.Close() })
	return f
}

// TestFollowRefusesHostileObjects puts hostile objects above a good
// version: a "../" name, a truncated file, a SHA-256 that does not match
// the metadata, a store digest that does not match the bytes, metadata
// naming another version, more bytes than the object announces, a framed
// body that is not msgpack. The follower refuses and counts each, and ends
// at the good version, byte-identical; a good newer version put through
// the Publisher follows, and a follower restarted on the directory
// fetches nothing it holds.
func TestFollowRefusesHostileObjects(t *testing.T) {
	hub := startHub(t)
	_, js := connect(t, hub.URL())
	ctx := context.Background()
	const bucket = "models"
	obs, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucket})
	if err != nil {
		t.Fatal(err)
	}
	put := func(name string, file []byte, md map[string]string) {
		t.Helper()
		if _, err := obs.Put(ctx, jetstream.ObjectMeta{Name: name, Metadata: md}, bytes.NewReader(file)); err != nil {
			t.Fatal(err)
		}
	}
	metaOf := func(v uint64, file []byte) map[string]string {
		t.Helper()
		m, err := objectMeta(v, file)
		if err != nil {
			t.Fatal(err)
		}
		return m.Metadata
	}
	good := testModelFile(t, 100, 8)
	put(modeldir.FileName(8), good, metaOf(8, good))
	hostile := testModelFile(t, 100, 9)
	put("../"+modeldir.FileName(9), hostile, metaOf(9, hostile))
	trunc := hostile[:len(hostile)-7]
	md := metaOf(10, hostile)
	sum := sha256.Sum256(trunc)
	md[MetaSHA256] = hex.EncodeToString(sum[:])
	put(modeldir.FileName(10), trunc, md)
	md = metaOf(11, hostile)
	md[MetaSHA256] = strings.Repeat("0", 64)
	put(modeldir.FileName(11), hostile, md)
	putRaw(t, js, bucket, modeldir.FileName(12), hostile, uint64(len(hostile)), sha256.Sum256(good), metaOf(12, hostile))
	put(modeldir.FileName(13), hostile, metaOf(14, hostile))
	putRaw(t, js, bucket, modeldir.FileName(15), hostile, uint64(len(hostile)-100), sha256.Sum256(hostile), metaOf(15, hostile))
	// A valid frame and CRC around a body that is no msgpack map: every
	// digest matches, the streaming check refuses it.
	noBody := append(make([]byte, modelfile.HeaderSize), 0x81, 0xa1, 'k', 0xc1)
	if err := modelfile.Seal(noBody, modelfile.KindLinear); err != nil {
		t.Fatal(err)
	}
	sum = sha256.Sum256(noBody)
	put(modeldir.FileName(16), noBody, map[string]string{MetaVersion: "16", MetaSHA256: hex.EncodeToString(sum[:]),
		MetaCRC: fmt.Sprintf("%08x", crc32.Checksum(noBody[modelfile.HeaderSize:], castagnoli))})

	dir := filepath.Join(t.TempDir(), "models")
	f := startFollower(t, hub.URL(), bucket, dir, nil)
	waitFor(t, 20*time.Second, func() bool { return f.Refused() == 7 && f.Version() == 8 })
	sameFile(t, filepath.Join(dir, modeldir.FileName(8)), good)
	onlyModels(t, dir, 8)

	p := NewPublisher(js, bucket, 3, testLog(t))
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go p.Run(pctx)
	newer := testModelFile(t, 200, 20)
	p.Offer(20, newer)
	waitFor(t, 20*time.Second, func() bool { return f.Version() == 20 })
	sameFile(t, filepath.Join(dir, modeldir.FileName(20)), newer)
	if f.Refused() != 7 {
		t.Errorf("refused %d objects, want 7 (each counted once)", f.Refused())
	}
	var m bytes.Buffer
	f.WriteMetrics(&m)
	for _, want := range []string{"svmgo_follow_model_version 20", "svmgo_follow_objects_refused_total 7", "svmgo_follow_versions_fetched_total 2"} {
		if !strings.Contains(m.String(), want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, m.String())
		}
	}

	// The publisher keeps 3 of its versions: the older valid ones go.
	for v := uint64(21); v <= 23; v++ {
		p.Offer(v, testModelFile(t, 50, v))
	}
	waitFor(t, 20*time.Second, func() bool { return f.Version() == 23 })
	waitFor(t, 10*time.Second, func() bool {
		newest, err := newestVersion(ctx, obs)
		list, _ := obs.List(ctx)
		valid := 0
		for _, info := range list {
			if v, ok := modeldir.ParseFileName(info.Name); ok && v >= 21 {
				valid++
			}
		}
		// The publisher prunes after its put: version 23 can be in the
		// bucket a moment before version 20 is gone.
		_, err20 := obs.GetInfo(ctx, modeldir.FileName(20))
		return err == nil && newest == 23 && valid == 3 && err20 != nil
	}) // fails the test when version 20 stays in the bucket, which keeps 3

	// A second follower on the same directory starts from what it holds.
	g := startFollower(t, hub.URL(), bucket, dir, nil)
	time.Sleep(time.Second)
	if g.Version() != 23 || g.m.fetched.Load() != 0 {
		t.Errorf("restarted follower: version %d, fetched %d; want 23 and nothing fetched", g.Version(), g.m.fetched.Load())
	}
}

// sameFile fails unless path holds want.
func sameFile(t testing.TB, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes, not the %d published", path, len(got), len(want))
	}
}

// onlyModels fails unless dir holds model files (of versions up to
// highest) and nothing else: no temporary file, nothing a hostile name
// could have placed.
func onlyModels(t testing.TB, dir string, highest uint64) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if v, ok := modeldir.ParseFileName(e.Name()); !ok || v > highest {
			t.Errorf("%s holds %q", dir, e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), modeldir.FileName(9))); err == nil {
		t.Error("a '../' object name wrote outside the directory")
	}
}

// TestFollowMissingChunks: an object whose chunks are gone because it was
// removed after the watch saw it is a transport failure (fetched again
// from a new watch, not refused); one that is still in the bucket with
// fewer chunks than it announces is refused.
func TestFollowMissingChunks(t *testing.T) {
	hub := startHub(t)
	_, js := connect(t, hub.URL())
	ctx := context.Background()
	obs, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, "OBJ_gone")
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFollower(js, FollowConfig{Bucket: "gone", Dir: t.TempDir()}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	file := testModelFile(t, 100, 3)
	meta, err := objectMeta(3, file)
	if err != nil {
		t.Fatal(err)
	}
	info, err := obs.Put(ctx, meta, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if err := obs.Delete(ctx, info.Name); err != nil {
		t.Fatal(err)
	}
	if tmp, why, err := f.fetch(ctx, stream, 3, info); err == nil || why != "" || tmp != "" {
		t.Errorf("removed object: %q, %q, %v; want a transport error", tmp, why, err)
	}

	meta.Metadata[MetaVersion] = "4"
	putRaw(t, js, "gone", modeldir.FileName(4), file[:len(file)/2], uint64(len(file)), sha256.Sum256(file), meta.Metadata)
	short, err := obs.GetInfo(ctx, modeldir.FileName(4))
	if err != nil {
		t.Fatal(err)
	}
	short.Chunks = 2 // the second half's chunk is missing
	if tmp, why, err := f.fetch(ctx, stream, 4, short); err != nil || !strings.Contains(why, "shorter than its announced") || tmp != "" {
		t.Errorf("short object: %q, %q, %v; want it refused as short", tmp, why, err)
	}
	entries, _ := os.ReadDir(f.cfg.Dir)
	if len(entries) != 0 {
		t.Errorf("the directory holds %d entries after two failed fetches", len(entries))
	}
}
