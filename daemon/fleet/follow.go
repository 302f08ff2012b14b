package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
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
	// The bucket's stream, whose chunks fetch reads by direct gets.
	stream, err := js.Stream(ctx, "OBJ_"+f.cfg.Bucket)
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
			if err := f.take(ctx, stream, pending); err != nil {
				return err
			}
			pending = pending[:0]
		}
	}
}

// take publishes the newest valid version among infos above the one Dir
// holds, trying the next newest when one is refused. An error is one of
// the transport: the watch is remade and the objects seen again.
func (f *Follower) take(ctx context.Context, stream jetstream.Stream, infos []*jetstream.ObjectInfo) error {
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
	for len(best) > 0 {
		var v uint64
		for k := range best {
			v = max(v, k)
		}
		info := best[v]
		delete(best, v)
		tmp, why, err := f.fetch(ctx, stream, v, info)
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
// (modeldir.CreateTemp: a name watchers ignore) and checks it in the same
// pass, as the chunks arrive: the store's digest and the SHA-256 in the
// metadata, and the model file's frame, CRC (against the metadata too),
// body structure and kind (modelfile.Checker, which stops the transfer at
// a bad frame). It returns the temporary file, checked and synced, for
// publish to name. why says what was wrong with an object that is
// refused; err is a failure of the transport or of Dir, after which it is
// fetched again; either way the temporary file is gone.
//
// Memory: one chunk at a time, whatever the model's size; the model is
// not decoded here (the watchers of Dir decode it, and skip a version
// that fails to load).
func (f *Follower) fetch(ctx context.Context, stream jetstream.Stream, v uint64, info *jetstream.ObjectInfo) (tmp, why string, err error) {
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
	check := modelfile.NewChecker(int64(info.Size))
	n, err := f.getChunks(ctx, stream, info, io.MultiWriter(check, h, out))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, errTooLong):
		return tmp, "longer than its announced size", nil
	case isRefusal(err):
		return tmp, fmt.Sprintf("not a model file: %v", err), nil
	case errors.Is(err, jetstream.ErrMsgNotFound):
		// Chunks missing: the object was removed since the watch saw it
		// (a follower far behind a publisher that keeps few versions),
		// or it is short. Only the object still there is refused.
		if cur, ierr := f.objectInfo(ctx, info.Name); ierr != nil || cur.NUID != info.NUID || cur.Deleted {
			return tmp, "", fmt.Errorf("object gone while fetched: %w", err)
		}
		return tmp, fmt.Sprintf("%d bytes, shorter than its announced %d", n, info.Size), nil
	case err != nil:
		return tmp, "", err
	case n < info.Size:
		return tmp, fmt.Sprintf("%d bytes in %d chunks, shorter than its announced %d", n, info.Chunks, info.Size), nil
	}
	// The store's digest and our metadata's are both the SHA-256 of the
	// whole object: one hash, computed as the chunks arrived, checks both.
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	if !bytes.Equal(sum[:], digest) {
		return tmp, "the object store's digest does not match its bytes", nil
	}
	if hex.EncodeToString(sum[:]) != md[MetaSHA256] {
		return tmp, "SHA-256 does not match the metadata", nil
	}
	if _, err := check.Close(); err != nil {
		return tmp, fmt.Sprintf("not a model file: %v", err), nil
	}
	if fmt.Sprintf("%08x", check.CRC()) != md[MetaCRC] {
		return tmp, "frame CRC-32C does not match the metadata", nil
	}
	f.m.bytes.Add(info.Size)
	return tmp, "", nil
}

// isRefusal reports whether err is modelfile's refusal of a file.
func isRefusal(err error) bool {
	for _, s := range []error{modelfile.ErrNotModel, modelfile.ErrVersion, modelfile.ErrTruncated, modelfile.ErrChecksum, modelfile.ErrCorrupt} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// objectInfo returns the bucket's current info of the object name.
func (f *Follower) objectInfo(ctx context.Context, name string) (*jetstream.ObjectInfo, error) {
	obs, err := f.js.ObjectStore(ctx, f.cfg.Bucket)
	if err != nil {
		return nil, err
	}
	return obs.GetInfo(ctx, name, jetstream.GetObjectInfoShowDeleted())
}

// chunkWait bounds the wait for one chunk: after it the fetch is a
// transport failure, retried with a new watch.
const chunkWait = 10 * time.Second

// errTooLong reports an object with more bytes than its info announces.
var errTooLong = errors.New("object longer than announced")

// getChunks writes the info.Chunks chunks of the object info describes to
// w, in order, and returns the number of bytes written: fewer than
// info.Size when the chunks end early, errTooLong when they hold more.
// Each chunk is a direct get from the bucket's stream (the first message
// on the object's chunk subject after the previous chunk's sequence): one
// request and its reply, nothing made on the server, one chunk held at a
// time. (The client library's Get, or an ordered consumer, made and
// removed a consumer on the hub for every follower and version: with a
// hundred followers that was the hub's main work.)
func (f *Follower) getChunks(ctx context.Context, stream jetstream.Stream, info *jetstream.ObjectInfo, w io.Writer) (uint64, error) {
	subject := "$O." + f.cfg.Bucket + ".C." + info.NUID
	var n uint64
	seq := uint64(1)
	for range info.Chunks {
		cctx, cancel := context.WithTimeout(ctx, chunkWait)
		msg, err := stream.GetMsg(cctx, seq, jetstream.WithGetMsgSubject(subject))
		cancel()
		if err != nil {
			return n, err
		}
		if uint64(len(msg.Data)) > info.Size-n {
			return n, errTooLong
		}
		if _, err := w.Write(msg.Data); err != nil {
			return n, err
		}
		n += uint64(len(msg.Data))
		seq = msg.Sequence + 1
	}
	return n, nil
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
