package fleet

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// Metadata keys of a model object.
const (
	MetaVersion = "svmgo-version"
	// MetaCRC is the CRC-32C of the file's payload, as its frame records
	// it, in 8 hexadecimal digits.
	MetaCRC = "svmgo-crc32c"
	// MetaSHA256 is the SHA-256 of the whole file, in hexadecimal.
	MetaSHA256 = "svmgo-sha256"
)

// DefaultKeep is the number of versions a bucket keeps unless configured.
const DefaultKeep = 5

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// objectMeta returns the object metadata of a model file of the given
// version, or the error of a file whose frame is not valid.
func objectMeta(version uint64, file []byte) (jetstream.ObjectMeta, error) {
	payload, _, err := modelfile.Open(file)
	if err != nil {
		return jetstream.ObjectMeta{}, err
	}
	sum := sha256.Sum256(file)
	return jetstream.ObjectMeta{
		Name: modeldir.FileName(version),
		Metadata: map[string]string{
			MetaVersion: strconv.FormatUint(version, 10),
			MetaCRC:     fmt.Sprintf("%08x", crc32.Checksum(payload, castagnoli)),
			MetaSHA256:  hex.EncodeToString(sum[:]),
		},
	}, nil
}

// Publisher puts the models the daemon publishes into an object-store
// bucket. Offer is called from the daemon (watchd.Daemon.OnPublish) and
// never blocks; Run puts what was offered, in order, retrying while the
// server is away.
type Publisher struct {
	js     jetstream.JetStream
	bucket string
	keep   int
	log    *slog.Logger

	mu      sync.Mutex
	queue   []offered
	kick    chan struct{}
	dropped int
}

type offered struct {
	version uint64
	file    []byte
}

// NewPublisher returns a publisher into bucket (created with file storage
// when missing) keeping the newest keep versions (DefaultKeep when below
// 1).
func NewPublisher(js jetstream.JetStream, bucket string, keep int, log *slog.Logger) *Publisher {
	if keep < 1 {
		keep = DefaultKeep
	}
	return &Publisher{js: js, bucket: bucket, keep: keep, log: log, kick: make(chan struct{}, 1)}
}

// Offer queues the model file of version for Run to put; file is not
// modified afterwards (the daemon's publication keeps it as is). The queue
// holds the newest Keep offers: older ones, which the bucket would not
// keep, leave it.
func (p *Publisher) Offer(version uint64, file []byte) {
	p.mu.Lock()
	p.queue = append(p.queue, offered{version, file})
	if n := len(p.queue) - p.keep; n > 0 {
		p.queue = slices.Delete(p.queue, 0, n)
		p.dropped += n
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// OfferDir offers the versions of the model directory dir newer than the
// bucket's newest, oldest first: those a stop kept from being put. It
// waits for the bucket as Run does, until ctx is done.
func (p *Publisher) OfferDir(ctx context.Context, dir string) error {
	obs := p.store(ctx)
	if obs == nil {
		return ctx.Err()
	}
	newest, err := newestVersion(ctx, obs)
	if err != nil {
		return err
	}
	entries, err := fileio.OS.ReadDir(dir)
	if err != nil {
		return err
	}
	var versions []uint64
	for _, e := range entries {
		if v, ok := modeldir.ParseFileName(e.Name()); ok && v > newest {
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	for _, v := range versions {
		file, err := fileio.ReadFileFS(fileio.OS, filepath.Join(dir, modeldir.FileName(v)))
		if err != nil {
			return err
		}
		p.Offer(v, file)
	}
	return nil
}

// newestVersion returns the highest version among the bucket's objects
// (0 when none).
func newestVersion(ctx context.Context, obs jetstream.ObjectStore) (uint64, error) {
	list, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var newest uint64
	for _, info := range list {
		if v, ok := modeldir.ParseFileName(info.Name); ok {
			newest = max(newest, v)
		}
	}
	return newest, nil
}

// store returns the bucket, creating it when missing, retrying with
// backoff until ctx is done (then nil).
func (p *Publisher) store(ctx context.Context) jetstream.ObjectStore {
	b := newBackoff()
	for ctx.Err() == nil {
		obs, err := p.js.ObjectStore(ctx, p.bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			obs, err = p.js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
				Bucket: p.bucket, Storage: jetstream.FileStorage,
				Description: "svmgo model versions",
			})
		}
		if err == nil {
			return obs
		}
		p.log.Warn("object store unavailable: retrying", "bucket", p.bucket, "err", err)
		b.wait(ctx)
	}
	return nil
}

// Run puts the offered versions into the bucket, oldest first, until ctx
// is cancelled; a failed put is logged and retried with backoff.
func (p *Publisher) Run(ctx context.Context) {
	var obs jetstream.ObjectStore
	b := newBackoff()
	for {
		p.mu.Lock()
		var next offered
		if len(p.queue) > 0 {
			next = p.queue[0] // a copy: Offer may shift the queue
		}
		dropped := p.dropped
		p.dropped = 0
		p.mu.Unlock()
		if dropped > 0 {
			p.log.Warn("versions not put into the object store: newer ones replaced them in the queue", "bucket", p.bucket, "versions", dropped)
		}
		if next.file == nil {
			select {
			case <-ctx.Done():
				return
			case <-p.kick:
				continue
			}
		}
		if obs == nil {
			if obs = p.store(ctx); obs == nil {
				return
			}
		}
		if err := p.put(ctx, obs, next.version, next.file); err != nil {
			if ctx.Err() != nil {
				return
			}
			p.log.Warn("object store put failed: retrying", "bucket", p.bucket, "version", next.version, "err", err)
			b.wait(ctx)
			continue
		}
		b.reset()
		p.mu.Lock()
		if len(p.queue) > 0 && p.queue[0].version == next.version {
			p.queue = p.queue[1:]
		}
		p.mu.Unlock()
	}
}

// put puts one version and removes the versions beyond keep.
func (p *Publisher) put(ctx context.Context, obs jetstream.ObjectStore, version uint64, file []byte) error {
	meta, err := objectMeta(version, file)
	if err != nil {
		// The daemon published it, so its frame is ours: a bug, not data.
		return fmt.Errorf("fleet: version %d: %w", version, err)
	}
	info, err := obs.Put(ctx, meta, bytes.NewReader(file))
	if err != nil {
		return err
	}
	p.log.Info("model put into the object store", "bucket", p.bucket, "object", info.Name, "bytes", info.Size)
	return p.prune(ctx, obs)
}

// prune deletes the objects of versions older than the newest keep.
func (p *Publisher) prune(ctx context.Context, obs jetstream.ObjectStore) error {
	list, err := obs.List(ctx)
	if err != nil {
		return err
	}
	type named struct {
		v    uint64
		name string
	}
	var vs []named
	for _, info := range list {
		if v, ok := modeldir.ParseFileName(info.Name); ok {
			vs = append(vs, named{v, info.Name})
		}
	}
	if len(vs) <= p.keep {
		return nil
	}
	slices.SortFunc(vs, func(a, b named) int { return cmp.Compare(b.v, a.v) })
	for _, o := range vs[p.keep:] {
		if err := obs.Delete(ctx, o.name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			return err
		}
	}
	return nil
}
