// Package watchd is the incremental-training daemon behind `svmgo watch`
// (DESIGN.md §8): it ingests labelled batch files dropped into a directory,
// keeps their rows in a fixed-capacity durable store, retrains from the
// stored dual variables (warm start) and publishes each new model as a
// versioned file that clients hot-swap (DESIGN.md §6).
//
// Layout under the root: incoming/ (producers rename finished batches in;
// dot-files and *.tmp are ignored), done/ (ingested batches), rejected/ (a
// refused batch and its NAME.reason file), models/ (published versions),
// state/ (the store), forget/ (requests to forget ingested batches). Anything in incoming/ that is not a regular file (a
// symbolic link, a directory, a FIFO, a socket, a device) is moved to
// rejected/ unread, with a reason: a link is moved, never followed, and a
// FIFO never opened (a batch is opened with O_NOFOLLOW and O_NONBLOCK and
// must be a regular file once open, against a swap after the check).
//
// One batch at a time, in name order:
//
//  1. read the file and hash it (SHA-256); a batch whose hash the store holds
//     was ingested before a crash and only moves to done/;
//  2. validate it in full (LIBSVM text, or CSV for *.csv, whose column
//     Config.WeightColumn holds the rows' instance weights when set): a bad
//     batch moves to rejected/ after its reason file is durable, and nothing
//     else changes;
//  3. add its rows to the store (evicting by the store's policy), retrain
//     warm, apply the gate, record α and commit the store durably;
//  4. publish the model into models/ and keep the newest Keep versions;
//     record the publication in the store (written, synced by the next
//     batch's commit or the daemon's stop);
//  5. move the batch to done/.
//
// Nothing one input does stops the daemon (issue 22): a batch training
// fails with (a weight that overflows the solver, a ν the classes make
// infeasible) is rejected with the training's reason and its rows leave
// the store again (store.Rollback: nothing of it was committed), the model
// published last serving on. Archive names fit the file-name limit (a long
// name is cut and given a hash), a name ending in .reason is archived as
// NAME.reason.batch so only reason files end so in rejected/, and a name
// with a newline or other control bytes is quoted in its reason. An entry
// of incoming/ that cannot be taken — one the daemon may not move, one
// that reads with EIO — is skipped for the pass, the batches behind it
// flowing, and reported (incoming_stuck, a storage fault naming it) until
// it moves. The version of the last model published is in the store: if
// models/ loses it (removed while running, or while stopped) the current
// model is published again as the next version, never from 1. Every file
// operation goes through Config.FS (a fileio.FS), so tests fail each one in
// turn (faultfs) and take crash clones (memfs); make soak kills the real
// daemon at random.
//
// A batch leaves incoming/ only after the store holding its rows is durable,
// so a crash at any point loses nothing and adds nothing twice; a crash
// between steps 3 and 4 is repaired at start by retraining and publishing,
// and so is a machine's crash that lost step 4's record (a kill -9 keeps it).
// The temporary files a crash leaves in models/ and rejected/ are removed
// at start (the store removes its own).
//
// # Other sources and sinks
//
// Batches may also arrive as messages (SetSource: package daemon/fleet
// reads a NATS JetStream stream). Run takes each between passes, through
// the same steps as a file (take), and settles it once the outcome is
// durable: Done when its rows are in the committed store (or were: a
// redelivery, found by its hash), Rejected once it and its reason file are
// in rejected/, Retry when a storage fault stopped it. OnPublish hears of
// each published model (daemon/fleet puts it into an object store).
//
// # Forgetting
//
// Rows leave the store by request or by policy, and each time the daemon
// retrains warm from the α of the rows that remain (the store's
// DeleteRows keeps the dual aligned; core restores feasibility) and
// publishes the model without them. A forget request is a file renamed
// into forget/ naming ingested batches by their SHA-256 (forget.go gives
// the format); it is applied after the batches in incoming/, and removed
// only once the store without those rows is durable and their model
// published, so a crash repeats it, and the repetition finds the batches
// marked forgotten and removes nothing twice. A request naming a hash never
// ingested moves to rejected/ with a reason. By policy: Config.Store.Window
// keeps the newest rows (the oldest leave first, before the eviction
// policy applies), Config.Store.MaxAge removes the rows of batches
// ingested longer ago, on a timer set for the oldest row. When the rows
// that remain cannot train a model (none, or one class), no model is
// published and the last one stays in models/. /metrics counts
// batches_forgotten_total, rows_forgotten_total and rows_expired_total.
//
// # Storage faults
//
// A write under the root that fails for a reason of the file system, not
// of the data — full (ENOSPC, EDQUOT), read-only (EROFS), unwritable
// (EACCES, EPERM), a directory of the layout removed (ENOENT), a failing
// device (EIO): see isStorageFault — does not stop the daemon. The step
// stops where it was: the batch stays in incoming/, and what the store
// could not commit stays in memory. The daemon reports itself degraded
// (/healthz answers 503 "degraded: ...", storage_degraded is 1; the first
// failure is logged, then at most one line a minute) and retries after
// Config.RetryMin, doubling up to Config.RetryMax. Each retry is one pass
// of Run's loop, the same that runs at start: it remakes the layout and
// the watches on the root and incoming/, commits the store if it holds
// uncommitted changes (or its snapshot was removed), publishes the model
// of the last retrain if its publication was not recorded (without
// retraining), and takes incoming/ again, where the batch that failed is
// found in the store and only moves to done/. The first pass that
// succeeds ends the fault ("storage recovered"). A pass that fails for any
// other reason is waited out alike: the daemon exits only when it cannot
// start. A directory of
// the layout removed under the daemon (the root is watched) is made again
// by the next pass, the store's snapshot written back from memory.
//
// The gate (Config.GateMinAccuracy > 0) scores the new model on rows it was
// not trained on. Of a batch of n rows, the last max(1, ⌊n·GateHoldBack⌋)
// are held back: they are stored like every row (nothing is lost, and
// exactly-once ingestion is unchanged), but the retrain the batch triggers
// uses every other stored row, and the gate measures the model's accuracy
// (squared correlation for regression) on the held rows. The model
// published when the gate passes is that one, trained without them. Their α
// is recorded as 0 and they enter training at the next retrain: the next
// batch's, or the recovery retrain after a restart, which trains on every
// row and applies no gate. A batch of one row holds nothing back and skips
// the gate. A refused model is logged and not published; its batch's rows
// stay stored. Held rows count as non-support vectors (α = 0) for the
// nonsv-oldest eviction policy, newest of them, so a full store may evict
// them after the older such rows and before they are trained on. For a
// one-class SVM, whose rows carry no class, the gate's score is the
// fraction of the held rows the model predicts +1 (inliers).
//
// # Linear and kernel models
//
// The training options (Config.TrainOptions) choose the model kind, as
// options.ParseTrain reads them: LIBLINEAR's options train a linear
// model by dual coordinate descent; svm-train's (a leading -syntax kernel,
// or any of -t -g -d -r -m -h present; -b alone names no family and is
// refused) a kernel model by SMO — C-SVC
// one-vs-one, one-class or ε-SVR.
// Either is published with modeldir.Publish, which takes any core.Model.
// Either kind warm-starts from the dual variables
// of the previous retrain, which the store persists (α vectors of either
// kind; new rows start at α = 0, evicted rows take theirs with them).
//
// A kernel warm start also wants the SMO gradient G = Qα + p at that α:
// rebuilding it from α costs a kernel column per support vector, about as
// much as a cold solve. The daemon keeps the gradient the last run returned
// (core.KernelDual.Gradient) in memory — G and Ḡ, twice the size of α; it is
// never persisted — and passes it with the stored α; each appended row then
// costs its entries against the support vectors. Rows that leave (evicted,
// retired by --store.window or --store.max-age, forgotten) are cut out of
// it as they go (store.Store.TakeRemoved, core.KernelDual.DeleteRows), and
// each removed support vector costs one kernel column in the next run, so a
// store kept full retrains warm (examples/bench/stream.sh: 0.16 of a cold
// solve's kernel evaluations on digits with 1% batches, 0.97 when the
// gradient was dropped at each removal). After a restart the warm start is
// α alone and core rebuilds the gradient. core checks a gradient before using it
// (the kernel, the bounds, ε, and a hash of the rows and α it was computed
// on) and rebuilds it when anything differs, so a stale gradient is never
// used: a reload that changes -c or -g, for example, keeps it in memory and
// core ignores it. Without -g the kernel's γ is 1/(1 + the largest feature
// index stored), which may change as rows come and go (the gradient then
// does not fit, α still starts the run); set -g for a fixed kernel.
//
// A stored dual of the other kind (the options switched kind, by Reload or
// across a restart) or of another SVM formulation is no warm start: the
// retrain starts cold, says so in the log, and records its own dual.
//
// # Quantized models
//
// With Config.QuantizeBits (svmgo watch --quantize int8|int16) each
// retrained model is quantized (quantize.QuantizeLinear or QuantizeKernel)
// and the quantized model, not the float one, is published: a smaller file that predicts faster, within
// the error bound quantize documents. A quantized model that changes the
// labels of its own support vectors (quantize.CheckFaithful: shuttle's
// int8 model, whose outlying values leave the deciding ones a few codes)
// is not published: the float model is, the batch is ingested as usual,
// and the refusal is logged ("quantized model refused") with its reason
// and counted (models_quantize_refused_total). The gate judges the quantized model,
// since that is what clients will serve: a model that passes as float but
// fails once quantized is not published. Training does not change: the
// store keeps the float solve's α, the next retrain starts from it, and a
// kernel run's gradient is kept as without quantization. The quantized
// model records the float model's creation time and the CRC-32C of its
// file payload (quantize's SourceCRC), though that float file is never
// written. "model published" logs the code width and the file's size, and
// /metrics exports them (model_quantized_width, model_file_bytes).
//
// The trainer is sized once for the store's capacity and MaxFeatures; a
// kernel trainer's cache is the -m budget (100 MB unless set), allocated
// at start and logged with core.KernelTrainerBytes ("bytes"), beside the
// most the dense copy core.NewSparseTrainer keeps of rows wider than 64
// features may take ("dense_copy_max_bytes": the store's capacity, dense):
// that copy is made by the first retrain whose rows are mostly nonzero, for
// the rows the store holds then, not reserved at start (with
// --store.nonzeros unset the store's nonzeros are every cell of up to 100
// features, and a start near the machine's memory was refused for a copy
// sparse rows never read); the support vectors'
// kernel columns kept between retrains take at most -M, which defaults to
// -m here but for regression (options.KernelOptions.Incremental, for
// rows of any width since kept columns pay on narrow rows too). With Config.ColdEvery
// the daemon measures the warm start against a cold solve: coordinate
// updates for linear models, kernel evaluations for kernel models, logged
// and exported in /metrics.
//
// # Imports
//
// It may import core and its sub-packages, quantize, daemon/modeldir and
// daemon/store; imports point down the package table of DESIGN.md §2, never
// sideways.
package watchd
