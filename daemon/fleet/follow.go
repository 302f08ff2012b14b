package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// Defaults of FollowConfig.
const (
	DefaultMaxBytes = 1 << 30
	DefaultResync   = 10 * time.Second
	DefaultDirKeep  = 3
	// maxRefused bounds the objects remembered as refused.
	maxRefused = 4096
)

// FollowConfig says which bucket a follower mirrors into which directory.
type FollowConfig struct {
	// Bucket is the object store's name; Dir the model directory.
	Bucket, Dir string
	// Keep is the number of versions kept in Dir (DefaultDirKeep when 0;
	// the newest is never removed).
	Keep int
	// MaxBytes refuses larger objects (DefaultMaxBytes when 0).
	MaxBytes int64
	// Resync remakes the bucket's watch after this long without an
	// update (DefaultResync when 0).
	Resync time.Duration
	// FS is the file system Dir is on (fileio.OS when nil).
	FS fileio.FS
	// Published, when not nil, is called after each version is published
	// into Dir, with the time of its rename (tests measure latency).
	Published func(version uint64, at time.Time)
}

// Follower mirrors a bucket into a model directory; see the package
// documentation. Run it once; Handler and WriteMetrics may be called from
// other goroutines.
type Follower struct {
	js  jetstream.JetStream
	nc  *nats.Conn
	cfg FollowConfig
	fs  fileio.FS
	log *slog.Logger

	resync  chan struct{} // a reconnection: remake the watch
	refused map[string]bool
	have    uint64

	m followMetrics
}

// followMetrics are what /metrics exports.
type followMetrics struct {
	version, fetched, refused, failed, bytes, lastRename atomic.Uint64
	serving                                              atomic.Bool
}

// NewFollower returns a follower of cfg.Bucket over js into cfg.Dir,
// which it creates when missing.
func NewFollower(js jetstream.JetStream, cfg FollowConfig, log *slog.Logger) (*Follower, error) {
	if cfg.Bucket == "" || cfg.Dir == "" {
		return nil, fmt.Errorf("fleet: follow needs a bucket and a directory")
	}
	if cfg.Keep <= 0 {
		cfg.Keep = DefaultDirKeep
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Resync <= 0 {
		cfg.Resync = DefaultResync
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f := &Follower{js: js, nc: js.Conn(), cfg: cfg, fs: fileio.OrOS(cfg.FS), log: log,
		resync: make(chan struct{}, 1), refused: map[string]bool{}}
	if err := fileio.MkdirAllSynced(f.fs, cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	if _, err := modeldir.RemoveStaleTempsFS(f.fs, cfg.Dir); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	have, _, err := modeldir.HighestVersion(f.fs, cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	f.have = have
	f.m.version.Store(have)
	return f, nil
}

// Reconnected tells the follower its connection was remade, so that it
// remakes its watch at once (Connect's reconnected callback).
func (f *Follower) Reconnected() {
	select {
	case f.resync <- struct{}{}:
	default:
	}
}

// Run follows the bucket until ctx is cancelled. Nothing the bucket holds
// or the server does stops it: it returns when ctx is done.
func (f *Follower) Run(ctx context.Context) {
	f.m.serving.Store(true)
	defer f.m.serving.Store(false)
	f.log.Info("follower started", "bucket", f.cfg.Bucket, "dir", f.cfg.Dir, "version", f.have)
	b := newBackoff()
	for ctx.Err() == nil {
		err := f.watch(ctx, f.js)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			f.log.Warn("bucket watch interrupted: retrying", "bucket", f.cfg.Bucket, "err", err)
			b.wait(ctx)
			continue
		}
		b.reset()
	}
	f.log.Info("follower stopping")
}

// watch watches the bucket until it has been quiet for the resync
// interval, a reconnection asks for a new watch, or the watch fails. The
// first updates are the bucket's current objects, up to a nil marker.
func (f *Follower) watch(ctx context.Context, js jetstream.JetStream) error {
	obs, err := js.ObjectStore(ctx, f.cfg.Bucket)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := obs.Watch(wctx, jetstream.IgnoreDeletes())
	if err != nil {
		return err
	}
	defer w.Stop()
	quiet := time.NewTimer(f.cfg.Resync)
	defer quiet.Stop()
	var pending []*jetstream.ObjectInfo
	initial := true
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-f.resync:
			return nil
		case <-quiet.C:
			return nil
		case info, ok := <-w.Updates():
			if !ok {
				return errors.New("watch closed")
			}
			quiet.Reset(f.cfg.Resync)
			if info == nil {
				initial = false
			} else {
				pending = append(pending, info)
			}
			// Catch up straight to the newest: take every update
			// already waiting before choosing.
			if initial || len(w.Updates()) > 0 {
				continue
			}
			if err := f.take(ctx, pending); err != nil {
				return err
			}
			pending = pending[:0]
		}
	}
}

// take publishes the newest valid version among infos above the one Dir
// holds, trying the next newest when one is refused. An error is one of
// the transport: the watch is remade and the objects seen again.
func (f *Follower) take(ctx context.Context, infos []*jetstream.ObjectInfo) error {
	best := map[uint64]*jetstream.ObjectInfo{}
	for _, info := range infos {
		if info.Deleted || f.refused[info.NUID] {
			continue
		}
		v, ok := modeldir.ParseFileName(info.Name)
		if !ok {
			f.refuse(info, fmt.Sprintf("object name %q is not model-<version>.svmgo", info.Name))
			continue
		}
		if v > f.have {
			best[v] = info
		}
	}
	if len(best) > 0 {
		// Validating a fetch holds the object's bytes and its model:
		// collect both and return their pages once done, so the follower
		// goes back to its memory at rest and the next transfer is not
		// stacked on this one's garbage (the GC's heap goal, twice the
		// last live heap, would allow that).
		defer debug.FreeOSMemory()
	}
	for len(best) > 0 {
		var v uint64
		for k := range best {
			v = max(v, k)
		}
		info := best[v]
		delete(best, v)
		tmp, why, err := f.fetch(ctx, v, info)
		if err != nil {
			f.m.failed.Add(1)
			return fmt.Errorf("fetch %s: %w", info.Name, err)
		}
		if why != "" {
			f.refuse(info, why)
			continue
		}
		return f.publish(v, tmp, info.Size)
	}
	return nil
}

// refuse counts and logs a hostile object, once per object.
func (f *Follower) refuse(info *jetstream.ObjectInfo, why string) {
	if len(f.refused) >= maxRefused {
		clear(f.refused) // a flood of hostile objects: counted again, not held for ever
	}
	f.refused[info.NUID] = true
	f.m.refused.Add(1)
	f.log.Warn("object refused", "bucket", f.cfg.Bucket, "object", strconv.Quote(info.Name), "reason", why)
}

// fetch streams the object of version v into a temporary file in Dir
// (modeldir.CreateTemp: a name watchers ignore) and checks it: the store's
// digest and the SHA-256 in the metadata while the chunks arrive, then the
// frame, its CRC against the metadata and the model itself, decoded once
// from the file and dropped. It returns the temporary file, checked and
// synced, for publish to name. why says what was wrong with an object
// that is refused; err is a failure of the transport or of Dir, after
// which it is fetched again; either way the temporary file is gone.
//
// Memory: the chunks pass through a window of chunkWindow; only the
// validation holds the file's bytes and, beside them, the decoded model.
func (f *Follower) fetch(ctx context.Context, v uint64, info *jetstream.ObjectInfo) (tmp, why string, err error) {
	md := info.Metadata
	switch {
	case md[MetaVersion] != strconv.FormatUint(v, 10):
		return "", fmt.Sprintf("metadata version %q, name says %d", md[MetaVersion], v), nil
	case info.Size > uint64(f.cfg.MaxBytes):
		return "", fmt.Sprintf("%d bytes, more than the limit of %d", info.Size, f.cfg.MaxBytes), nil
	case len(md[MetaSHA256]) != 64 || len(md[MetaCRC]) != 8:
		return "", "metadata without SHA-256 or CRC-32C", nil
	case info.Size == 0:
		return "", "an empty object", nil
	}
	digest, err := jetstream.DecodeObjectDigest(info.Digest)
	if err != nil || len(digest) != sha256.Size {
		return "", fmt.Sprintf("object store digest %q is not a SHA-256", info.Digest), nil
	}
	out, err := modeldir.CreateTemp(f.fs, f.cfg.Dir)
	if err != nil {
		return "", "", err
	}
	tmp = out.Name()
	defer func() {
		if why != "" || err != nil {
			f.fs.Remove(tmp)
			tmp = ""
		}
	}()
	h := sha256.New()
	n, err := f.getChunks(ctx, info, io.MultiWriter(out, h))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, errTooLong):
		return tmp, "longer than its announced size", nil
	case err != nil:
		return tmp, "", err
	case n < info.Size:
		return tmp, fmt.Sprintf("%d bytes, shorter than its announced %d", n, info.Size), nil
	}
	// The store's digest and our metadata's are both the SHA-256 of the
	// whole object: one hash, computed as the chunks arrived, checks both.
	sum := h.Sum(nil)
	if !bytes.Equal(sum, digest) {
		return tmp, "the object store's digest does not match its bytes", nil
	}
	if hex.EncodeToString(sum) != md[MetaSHA256] {
		return tmp, "SHA-256 does not match the metadata", nil
	}
	if why := f.validate(tmp, md[MetaCRC]); why != "" {
		return tmp, why, nil
	}
	f.m.bytes.Add(info.Size)
	return tmp, "", nil
}

// validate reads the model file at path through the one opener (frame
// first) and checks its CRC against crc and its model by decoding it, as
// every loader does: it returns why the file is refused, or "". The bytes
// and the model are garbage when it returns; take collects them.
func (f *Follower) validate(path, crc string) (why string) {
	file, err := modelfile.ReadBytes(path)
	if err != nil {
		return fmt.Sprintf("not a model file: %v", err)
	}
	payload, _, err := modelfile.Open(file)
	if err != nil {
		return fmt.Sprintf("not a model file: %v", err)
	}
	if fmt.Sprintf("%08x", crc32.Checksum(payload, castagnoli)) != crc {
		return "frame CRC-32C does not match the metadata"
	}
	if _, err := modelfile.Decode(file); err != nil {
		return fmt.Sprintf("not a model file: %v", err)
	}
	return ""
}

// chunkWindow is how many chunks of an object (128 KiB each, the client
// library's default chunk size) may wait in the client while the follower
// copies them: the client library's ObjectStore.Get has the server push
// every chunk at once, queuing a whole model in the client beside the
// follower's copy of it; a pull consumer asking for chunkWindow at a time
// bounds that queue.
const chunkWindow = 4

// chunkPull is the life of one pull request for chunks: a request or a
// reply lost on the way (a leaf node whose interest has not reached the
// hub yet) costs this long before the client library asks again, and the
// server's heartbeats come every half of it.
const chunkPull = 2 * time.Second

// chunkWait bounds the wait for one chunk: after it the fetch is a
// transport failure, retried with a new watch.
const chunkWait = 10 * time.Second

// errTooLong reports an object with more bytes than its info announces.
var errTooLong = errors.New("object longer than announced")

// getChunks writes the chunks of the object info describes to w, in
// order, through an ordered pull consumer on the bucket's stream that
// holds at most chunkWindow chunks in flight, and returns the number of
// bytes written: fewer than info.Size when the chunks end early,
// errTooLong when they hold more.
func (f *Follower) getChunks(ctx context.Context, info *jetstream.ObjectInfo, w io.Writer) (uint64, error) {
	stream := "OBJ_" + f.cfg.Bucket
	cons, err := f.js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{"$O." + f.cfg.Bucket + ".C." + info.NUID},
		InactiveThreshold: 5 * time.Second,
	})
	if err != nil {
		return 0, err
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(chunkWindow), jetstream.PullExpiry(chunkPull))
	if err != nil {
		return 0, err
	}
	defer func() {
		it.Stop()
		// The server would remove the idle consumer after
		// InactiveThreshold; removing it now keeps a fleet of followers
		// from leaving one per version behind meanwhile, without making
		// the version wait for the answer.
		if ci := cons.CachedInfo(); ci != nil {
			go func() {
				dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				f.js.DeleteConsumer(dctx, stream, ci.Name)
			}()
		}
	}()
	var n uint64
	for {
		cctx, cancel := context.WithTimeout(ctx, chunkWait)
		msg, err := it.Next(jetstream.NextContext(cctx))
		cancel()
		if err != nil {
			return n, err
		}
		meta, err := msg.Metadata()
		if err != nil {
			return n, err
		}
		data := msg.Data()
		if uint64(len(data)) > info.Size-n {
			return n, errTooLong
		}
		if _, err := w.Write(data); err != nil {
			return n, err
		}
		n += uint64(len(data))
		if meta.NumPending == 0 {
			return n, nil
		}
	}
}

// publish names tmp, a checked model file of size bytes, as version v in
// Dir and keeps the newest Keep.
func (f *Follower) publish(v uint64, tmp string, size uint64) error {
	err := modeldir.PublishTempVersion(f.fs, f.cfg.Dir, tmp, v)
	// Named by a link, or not at all: the temporary name goes before the
	// version counts as published.
	f.fs.Remove(tmp)
	if err != nil && !errors.Is(err, os.ErrExist) {
		// The directory's fault, not the object's: logged, and the watch
		// remade after the backoff tries again.
		return err
	}
	at := time.Now()
	f.have = v
	f.m.version.Store(v)
	f.m.fetched.Add(1)
	f.m.lastRename.Store(uint64(at.Unix()))
	f.log.Info("model version published", "version", v, "bytes", size, "dir", f.cfg.Dir)
	if f.cfg.Published != nil {
		f.cfg.Published(v, at)
	}
	if removed, err := modeldir.Retain(f.fs, f.cfg.Dir, f.cfg.Keep); err != nil {
		f.log.Warn("old versions not removed", "dir", f.cfg.Dir, "err", err)
	} else if len(removed) > 0 {
		f.log.Info("old versions removed", "versions", removed)
	}
	return nil
}

// Version returns the newest version in the directory.
func (f *Follower) Version() uint64 { return f.m.version.Load() }

// Refused returns the number of objects refused so far.
func (f *Follower) Refused() uint64 { return f.m.refused.Load() }

// WriteMetrics writes the follower's metrics in Prometheus's text format.
func (f *Follower) WriteMetrics(w io.Writer) {
	connected := 0
	if f.nc.IsConnected() {
		connected = 1
	}
	for _, m := range []struct {
		name, help, typ string
		value           uint64
	}{
		{"follow_model_version", "Newest model version in the directory (0: none yet).", "gauge", f.m.version.Load()},
		{"follow_versions_fetched_total", "Versions fetched, checked and published into the directory.", "counter", f.m.fetched.Load()},
		{"follow_objects_refused_total", "Objects refused: bad name, metadata, digest, size or model file.", "counter", f.m.refused.Load()},
		{"follow_fetch_failures_total", "Fetches the transport interrupted (retried).", "counter", f.m.failed.Load()},
		{"follow_bytes_fetched_total", "Bytes of the versions published into the directory.", "counter", f.m.bytes.Load()},
		{"follow_last_publish_time_seconds", "Unix time of the last version published (0: none yet).", "gauge", f.m.lastRename.Load()},
		{"follow_connected", "1 while connected to the NATS server, else 0.", "gauge", uint64(connected)},
	} {
		fmt.Fprintf(w, "# HELP svmgo_%s %s\n# TYPE svmgo_%s %s\nsvmgo_%s %d\n", m.name, m.help, m.name, m.typ, m.name, m.value)
	}
}

// Handler serves GET /healthz (200 "ok" while running and connected, 503
// otherwise), /livez, /readyz (200 once the directory holds a version) and
// /metrics, as the daemon's handler does.
func (f *Follower) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		switch {
		case !f.m.serving.Load():
			http.Error(w, "not serving", http.StatusServiceUnavailable)
		case !f.nc.IsConnected():
			http.Error(w, "disconnected: "+f.nc.Status().String(), http.StatusServiceUnavailable)
		default:
			io.WriteString(w, "ok\n")
		}
	})
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "alive\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if f.m.version.Load() == 0 {
			http.Error(w, "no model yet", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		f.WriteMetrics(w)
	})
	return mux
}
