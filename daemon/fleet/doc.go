// Package fleet connects the daemon to NATS JetStream (DESIGN.md §1, §6):
// it feeds `svmgo watch` batches from a stream exactly once (Ingest),
// puts each model the daemon publishes into an object-store bucket
// (Publisher), and mirrors such a bucket into a local model directory on
// each device (Follower, `svmgo follow`).
//
// # Ingest
//
// Each message of the stream is one batch, LIBSVM text unless its
// Svmgo-Format header (or IngestConfig.Format) says csv; a CSV batch's
// Svmgo-Weight-Column header names its instance-weight column. A durable
// pull consumer with explicit acknowledgement and one message in flight
// hands each message to the daemon (watchd.Message), which hashes,
// validates, stores, retrains and publishes it like a file of incoming/,
// and only then settles it: acknowledged once its rows are durable in the
// store (a redelivery after a crash is found by its content hash and only
// acknowledged), terminated with its reason once it and its reason file
// are durable in rejected/, or negatively acknowledged for a later
// redelivery when a storage fault kept the daemon from taking it. Its
// name in logs and in rejected/ is STREAM-SEQUENCE with the format's
// extension.
//
// # Publish
//
// Each version the daemon publishes is put into the bucket as the object
// "model-<version>.svmgo" (the file's own name in models/), with the
// version, the CRC-32C of the frame's payload and the SHA-256 of the file
// in its metadata; the bucket keeps the newest Keep versions. Versions
// wait in a queue of at most Keep entries while the server is away, and at
// start those in models/ newer than the bucket's newest are put.
//
// # Follow
//
// A follower watches the bucket and fetches the newest version above the
// newest in its directory (versions in between are skipped: it catches up
// straight to the newest), reading exactly the object's announced size.
// It reads the object's chunks one at a time, each by a direct get from
// the bucket's stream (nothing is made on the server for a fetch: a
// consumer per follower and version was the hub's main work with a
// hundred followers), into a temporary file in the directory
// (modeldir.CreateTemp: a name watchers ignore), and checks them in the
// same pass as they arrive: the SHA-256 and modelfile.Checker (the
// opener's frame, CRC, body structure and kind checks, in bounded
// memory). Its memory does not grow with the model: it neither holds the
// file nor decodes the model; the watchers of the directory decode each
// version with the one opener and skip one that fails (DESIGN §6).
// It refuses, and counts, an object whose name is not a canonical
// "model-<version>.svmgo" (the name is never used as a path: the file is
// named from the parsed version), whose metadata disagree with its name,
// whose size is above the limit, whose bytes fail the store's digest or
// the metadata's SHA-256, whose frame CRC is not the metadata's, or that
// the check refuses. A version
// that passes is published into the directory by naming its synced
// temporary file (modeldir.PublishTempVersion: hard link, directory
// fsync), so a reader of the directory never sees a partial file. The
// watch is remade after a reconnection and whenever it has been quiet for
// the resync interval, which covers a leaf node cut off from its hub.
//
// # Imports
//
// It may import core/fileio, core/modelfile, daemon/modeldir and
// daemon/watchd, and the NATS client.
package fleet
