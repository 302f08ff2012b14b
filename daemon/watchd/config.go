package watchd

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// ErrConfig is wrapped by every configuration error (Validate, New, Reload).
var ErrConfig = errors.New("watchd: invalid configuration")

// Defaults of the configuration; the svmgo watch flags document the same
// values.
const (
	DefaultTrainOptions  = "-s 1"
	DefaultCapacity      = 100000
	DefaultMaxFeatures   = 1000000
	DefaultKeep          = 5
	DefaultDebounce      = 200 * time.Millisecond
	DefaultMaxBatchBytes = 64 << 20
	DefaultMaxLineBytes  = data.DefaultMaxLineBytes
	DefaultRetryMin      = time.Second
	DefaultRetryMax      = time.Minute
	// DefaultNonzerosPerRow sizes the store's nonzeros when
	// Store.CapacityNonzeros is 0: 8 bytes a nonzero, 80 MB at the default
	// capacity.
	DefaultNonzerosPerRow = 100
)

// GateHoldBack is the fraction of the newest batch's rows, taken from its
// end, that the retrain for that batch leaves out and on which the accuracy
// gate measures the candidate model; those rows are trained on from the next
// retrain.
const GateHoldBack = 0.2

// Config configures a Daemon. Start from DefaultConfig; Validate reports the
// first field out of range.
type Config struct {
	// Root holds incoming/, done/, rejected/, models/ and state/.
	Root string
	// TrainOptions are the training options, in one of two syntaxes
	// (options.ParseTrain): LIBLINEAR's train options ("-s 1 -c 10",
	// options.ParseLinear) train a linear model; svm-train's ("-t 2
	// -c 4", options.ParseKernel; there -s and -n are LIBSVM's) train
	// a kernel model by SMO. A leading "-syntax linear" or "-syntax
	// kernel" names the syntax ("-syntax kernel -s 3" is ε-SVR with the
	// RBF kernel); without it, options holding any of -t -g -d -r -m -h
	// are svm-train's (options.KernelSyntax), and -b without one of them
	// names no family and is refused. -v (cross-validation) is refused in
	// either.
	// Reloadable, also from one kind to the other: the first retrain after
	// a switch starts cold, the stored dual being of the other kind.
	TrainOptions string
	// Store sizes the sample store and says when rows leave it (its
	// Window and MaxAge: forget.go); Store.MaxFeatures is also the reader's
	// index limit (a feature index above it rejects the batch). A
	// Store.CapacityNonzeros of 0 means Capacity × min(MaxFeatures,
	// DefaultNonzerosPerRow): the store's own default, every row full,
	// would reserve Capacity × MaxFeatures nonzeros (800 GB at the
	// defaults).
	Store store.Config
	// Keep is how many published model files are retained (>= 1): the
	// newest is never removed. Reloadable.
	Keep int
	// GateMinAccuracy, when > 0, is the accuracy (classification) a new
	// model must reach on the last GateHoldBack of the newest batch's rows,
	// held back from its training, to be published; a refused model is
	// logged, its samples stay stored.
	// For regression (linear or ε-SVR) it is a bound on the squared
	// correlation; for a one-class SVM, whose rows carry no class, on the
	// fraction of the held rows the model predicts +1 (inliers): a batch
	// the model calls outliers is refused. 0 turns the gate off.
	// Reloadable.
	GateMinAccuracy float64
	// ColdEvery, when > 0, also runs a cold solve every ColdEvery retrains
	// to measure what the warm start saves (extra CPU): coordinate updates
	// for a linear model, kernel evaluations for a kernel model.
	// Reloadable.
	ColdEvery int
	// Debounce delays a rescan of incoming/ after a file event, so a burst
	// of events costs one scan. Reloadable.
	Debounce time.Duration
	// MaxBatchBytes rejects larger batch files before they are read, which
	// bounds the daemon's memory. Reloadable.
	MaxBatchBytes int64
	// MaxLineBytes rejects a batch with a longer line. Reloadable.
	MaxLineBytes int
	// WeightColumn, when >= 2, is the 1-based column of a CSV batch (*.csv)
	// that holds each row's instance weight instead of a feature
	// (data.ReadOptions.WeightColumn): the weight multiplies the row's C,
	// is stored with the row and kept across restarts. A weight that is
	// not positive and finite rejects the batch at its line. LIBSVM text
	// batches carry no weights: their rows weigh 1. 0, the default, reads
	// every CSV column after the label as a feature. Reloadable.
	WeightColumn int
	// CSVHeader and CSVSkipColumns say how a CSV batch is laid out
	// (data.ReadOptions): a header line (by default recognised by its
	// label field, and pandas' unnamed index column with it) and columns
	// to drop before the label; WeightColumn counts after them.
	// Reloadable.
	CSVHeader      data.CSVHeader
	CSVSkipColumns []int
	// QuantizeBits, when 8 or 16, publishes each retrained model quantized
	// to int8 or int16 codes (quantize.QuantizeLinear or QuantizeKernel)
	// instead of the float model (the float model when the quantized one
	// changes its support vectors' labels: quantize.CheckFaithful); 0,
	// the default, publishes float models.
	// The gate, when on, judges the quantized model, the one published.
	// Training is unchanged: the store keeps the float solve's α, from
	// which the next retrain starts. Reloadable.
	QuantizeBits int
	// RetryMin is the delay before the daemon retries after a storage
	// fault (a full disk, a read-only or unwritable root: see fault.go);
	// the delay doubles at each failure up to RetryMax. Reloadable.
	RetryMin time.Duration
	// RetryMax bounds the delay between retries (>= RetryMin). Reloadable.
	RetryMax time.Duration
	// FS is the file system the root is on: nil, the default, is the
	// operating system's (fileio.OS). Every file operation of the daemon,
	// its store and its model publishing goes through it, so tests can
	// fail any one of them or take crash clones (fileio/faultfs,
	// fileio/memfs); Run's watch on incoming/ uses the operating system's
	// notifications, which only the operating system's file system has.
	// Fixed at New: a reload keeps the daemon's.
	FS fileio.FS
}

// DefaultConfig returns the defaults, with no Root.
func DefaultConfig() Config {
	return Config{
		TrainOptions:  DefaultTrainOptions,
		Store:         store.Config{Capacity: DefaultCapacity, MaxFeatures: DefaultMaxFeatures, Policy: store.EvictNonSVOldest},
		Keep:          DefaultKeep,
		Debounce:      DefaultDebounce,
		MaxBatchBytes: DefaultMaxBatchBytes,
		MaxLineBytes:  DefaultMaxLineBytes,
		RetryMin:      DefaultRetryMin,
		RetryMax:      DefaultRetryMax,
	}
}

// Validate reports the first field out of range, wrapping ErrConfig.
func (c *Config) Validate() error {
	_, err := c.validate()
	return err
}

// trainSpec is parsed training options, a linear trainer's with LIBLINEAR's
// incremental defaults (LinearOptions.Incremental): -s 1 and -s 12 retrain
// through their primal twins (-twin 0 opts out), since a warm-started
// Newton method is what pays here.
type trainSpec struct {
	opts options.TrainOptions
}

// kind names the model kind, for logs.
func (s trainSpec) kind() string {
	if s.opts.IsKernel() {
		return "kernel"
	}
	return "linear"
}

// realLabels reports whether a batch's labels may be any finite number:
// regression targets, or the ignored labels of a one-class SVM. Otherwise
// they are integer classes.
func (s trainSpec) realLabels() bool {
	if s.opts.IsKernel() {
		svm := s.opts.Kernel.Params.SVMType
		return svm.IsRegression() || svm == core.OneClass
	}
	return s.opts.Linear.Params.Solver.IsRegression()
}

// validate checks c and returns its parsed training options.
func (c *Config) validate() (trainSpec, error) {
	bad := func(format string, a ...any) (trainSpec, error) {
		return trainSpec{}, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	if c.Root == "" {
		return bad("no root directory")
	}
	spec, err := parseTrainOptions(c.TrainOptions, c.rowWidth())
	if err != nil {
		return bad("train options %q: %v", c.TrainOptions, err)
	}
	switch {
	case c.Store.Capacity < 1:
		return bad("store capacity %d: must be at least 1", c.Store.Capacity)
	case c.Store.CapacityNonzeros < 0:
		return bad("store nonzeros %d: must not be negative", c.Store.CapacityNonzeros)
	case c.Store.MaxFeatures < 1 || c.Store.MaxFeatures > math.MaxInt32:
		return bad("store max features %d: must be in [1, %d]", c.Store.MaxFeatures, math.MaxInt32)
	case c.Store.Capacity > math.MaxInt32/min(c.Store.MaxFeatures, DefaultNonzerosPerRow):
		return bad("store capacity %d: too large", c.Store.Capacity)
	case c.Store.Window < 0:
		return bad("store window %d: must not be negative", c.Store.Window)
	case c.Store.MaxAge < 0:
		return bad("store maximum age %v: must not be negative", c.Store.MaxAge)
	case c.Keep < 1:
		return bad("models to keep %d: must be at least 1", c.Keep)
	case !(c.GateMinAccuracy >= 0 && c.GateMinAccuracy <= 1):
		return bad("gate minimum accuracy %g: must be in [0, 1]", c.GateMinAccuracy)
	case c.ColdEvery < 0:
		return bad("cold solve interval %d: must not be negative", c.ColdEvery)
	case c.Debounce < 0:
		return bad("debounce %v: must not be negative", c.Debounce)
	case c.MaxBatchBytes < 1:
		return bad("max batch bytes %d: must be at least 1", c.MaxBatchBytes)
	case c.MaxLineBytes < 1:
		return bad("max line bytes %d: must be at least 1", c.MaxLineBytes)
	case c.WeightColumn != 0 && c.WeightColumn < 2:
		return bad("weight column %d: must be 0 (none) or 2 or more (column 1 is the label)", c.WeightColumn)
	case c.QuantizeBits != 0 && c.QuantizeBits != 8 && c.QuantizeBits != 16:
		return bad("quantize bits %d: must be 0 (off), 8 or 16", c.QuantizeBits)
	case c.RetryMin <= 0:
		return bad("storage retry delay %v: must be positive", c.RetryMin)
	case c.RetryMax < c.RetryMin:
		return bad("storage retry maximum %v: must be at least the first delay %v", c.RetryMax, c.RetryMin)
	}
	return spec, nil
}

// parseTrainOptions parses the daemon's training options, LIBLINEAR's or
// svm-train's as options.ParseTrain reads them (a leading -syntax, or
// options.KernelSyntax): a cross validation (-v) or a file name makes no
// sense there.
func parseTrainOptions(s string, rowWidth int) (trainSpec, error) {
	o, rest, err := options.ParseTrain(strings.Fields(s), options.SyntaxAuto)
	switch {
	case err != nil:
		return trainSpec{}, err
	case len(rest) > 0:
		return trainSpec{}, fmt.Errorf("unexpected argument %q", rest[0])
	case o.CrossValidation() > 0:
		return trainSpec{}, errors.New("-v (cross-validation) is not a daemon option")
	}
	if o.IsKernel() {
		o.Kernel.Params = o.Kernel.Incremental(rowWidth)
	} else {
		o.Linear.Params = o.Linear.Incremental()
	}
	return trainSpec{opts: o}, nil
}

// rowWidth returns the values the kernels read per stored row, about
// (options.KernelOptions.Incremental keeps kernel columns for wide rows):
// core.KernelRowWidth of the nonzeros the store keeps per row of its
// capacity, which counts rows narrow and dense enough for the trainer's
// dense copy as MaxFeatures wide. digits (64 features, 33 nonzeros a row)
// kept none here when the nonzeros alone counted, and kept them through
// the C ABI's dense rows: the daemon's warm retrains cost 0.35 of a cold
// solve's CPU (0.15 of its kernel evaluations) against 0.28 (0.02) with
// them.
func (c *Config) rowWidth() int {
	w := DefaultNonzerosPerRow
	if c.Store.CapacityNonzeros > 0 && c.Store.Capacity > 0 {
		w = c.Store.CapacityNonzeros / c.Store.Capacity
	}
	return core.KernelRowWidth(c.Store.MaxFeatures, w)
}

// storeConfig returns c.Store with CapacityNonzeros resolved.
func (c *Config) storeConfig() store.Config {
	sc := c.Store
	if sc.CapacityNonzeros == 0 {
		sc.CapacityNonzeros = sc.Capacity * min(sc.MaxFeatures, DefaultNonzerosPerRow)
	}
	return sc
}

// sameFixed reports which field, if any, differs between a and b among
// those a reload cannot change: the root and the store's layout.
func sameFixed(a, b *Config) error {
	switch {
	case a.Root != b.Root:
		return fmt.Errorf("%w: the root cannot change on reload (%q to %q)", ErrConfig, a.Root, b.Root)
	case a.storeConfig() != b.storeConfig():
		return fmt.Errorf("%w: the store configuration cannot change on reload", ErrConfig)
	}
	return nil
}
