// Package store is the daemon's sample store: a fixed number of labelled
// rows with their dual variables and the hashes of the batches ingested,
// kept durable as a snapshot (snapshot.go) and a journal of the changes
// since (journal.go): a Commit appends its changes and syncs them, and the
// snapshot is rewritten when the journal outgrows it (DESIGN §8). Rows leave by the eviction
// policy, a sliding window, a maximum age, or a named batch forgotten
// (forget.go), their α with them.
//
// The dual variables are those of the last training run, of either kind:
// a core.Dual, which the store keeps without looking inside (its methods
// check it, copy it into the store's buffers, drop rows from it, tell a
// support vector and encode it into the snapshot), recorded by SetDual.
// Recording one kind drops the other. A run's gradients and primal start
// are not stored: core rebuilds a gradient from α when a warm start has
// none.
//
// Memory is fixed by the Config: the rows (CSR, Capacity rows and
// CapacityNonzeros nonzeros) and one age a row are allocated when the store
// is opened; α vectors of Capacity values each (8 bytes a value) when first
// needed — when a dual with
// more vectors than any before is recorded (a new class, or for a kernel
// dual a new pair of classes) — and then reused by every dual of either
// kind, so their memory is Capacity × 8 bytes × the most vectors a dual has
// had. The one thing that grows is the record of ingested batches, which
// exactly-once ingestion needs for ever: a 32-byte hash and a 24-byte
// record a batch in ordered slices plus a map entry, under 150 bytes a
// batch in all.
//
// A Store is not safe for concurrent use: the daemon owns it from one
// goroutine.
//
// # Imports
//
// It may import core, core/data and core/fileio; imports point down the
// package table of DESIGN.md §2, never sideways.
package store
