// Package store is the daemon's sample store: a fixed number of labelled
// rows with their dual variables and the hashes of the batches ingested,
// saved as one atomic snapshot (DESIGN §8).
//
// The dual variables are those of the last training run, of either kind:
// a core.Dual holding a linear dual (core.LinearDual: one α vector per
// decision function) or a kernel dual (core.KernelDual: one vector per SMO
// subproblem — k(k−1)/2 one-vs-one pairs for k classes, one for one-class
// and ε-SVR), recorded by SetDual. The store holds at most one of them:
// recording one kind drops the other. A kernel dual's gradient
// (core.KernelDual.Gradient) is not stored: it is twice the size of α (G
// and Ḡ), and core rebuilds it from α when a warm start has none.
//
// Memory is fixed by the Config: the rows (CSR, Capacity rows and
// CapacityNonzeros nonzeros) and one age a row are allocated when the store
// is opened; α vectors of Capacity values each (8 bytes a value) when first
// needed — when a dual with
// more vectors than any before is recorded (a new class, or for a kernel
// dual a new pair of classes) — and then reused by every dual of either
// kind, so their memory is Capacity × 8 bytes × the most vectors a dual has
// had. The one thing that grows is the set of ingested batch hashes, which
// exactly-once ingestion needs for ever: 32 bytes a batch in the ordered
// slice plus a map entry, under 100 bytes a batch in all.
//
// A Store is not safe for concurrent use: the daemon owns it from one
// goroutine.
//
// # Imports
//
// It may import core, core/data and core/fileio; imports point down the
// package table of DESIGN.md §2, never sideways.
package store
