package main

import (
	"log/slog"
	"math"

	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// Model properties, svmgo.h's enum svmgo_model_property.
const (
	propKind              = 1
	propNumFeatures       = 2
	propNumClasses        = 3
	propNumDecisionValues = 4
	propQuantized         = 5
	propHasProbability    = 6
	propVersion           = 7
)

// loadFile reads the model file at path, of any kind: linear or kernel,
// float or quantized.
func loadFile(path string) (predictor, error) {
	l, err := modeldir.Load(path)
	if err != nil {
		return nil, err
	}
	return checked(l)
}

// loadBuffer decodes the bytes of a model file of any kind; the model
// shares no memory with b.
func loadBuffer(b []byte) (predictor, error) {
	l, err := modeldir.Decode(b)
	if err != nil {
		return nil, err
	}
	return checked(l)
}

// checked returns the predictor of a loaded model. The model file
// decoder has validated it (core's Validate for float models, refusing
// non-finite weights too; quantize's checks for quantized ones): the one
// validation every path shares, watchers and the command included.
func checked(l *modeldir.Loaded) (predictor, error) {
	return predictorOf(l), nil
}

// watch opens a watcher on dir. The library never writes to stdout or
// stderr, so the watcher's log is discarded; a version that fails to load
// shows as a version number that does not advance.
func watch(dir string) (*modelHandle, error) {
	w, err := modeldir.Watch(dir, modeldir.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, errorf(statusIO, "%w", err)
	}
	return &modelHandle{watcher: w}, nil
}

// property returns a model property (svmgo_model_property). A watched
// handle without a model has none: SVMGO_E_NO_MODEL, even for the version.
func property(h *modelHandle, prop int) (int64, error) {
	p, version, err := h.current()
	if err != nil {
		return 0, err
	}
	switch prop {
	case propKind:
		return int64(p.kind()), nil
	case propNumFeatures:
		return int64(p.numFeatures()), nil
	case propNumClasses:
		return int64(p.numClasses()), nil
	case propNumDecisionValues:
		return int64(p.numDecisionValues()), nil
	case propQuantized:
		return int64(p.bits()), nil
	case propHasProbability:
		if p.hasProbability() {
			return 1, nil
		}
		return 0, nil
	case propVersion:
		if version > math.MaxInt64 {
			return 0, errorf(statusInternal, "version %d does not fit an int64_t", version)
		}
		return int64(version), nil
	}
	return 0, errorf(statusInvalidArgument, "property is %d, not an svmgo_model_property value", prop)
}

// copyLabels copies m's class labels into dst and returns their number;
// when they do not fit it writes nothing.
func copyLabels(p predictor, dst []int32) (int, error) {
	labels := p.labels()
	if len(labels) > len(dst) {
		return 0, errorf(statusCapacity, "dst_cap is %d, %d labels needed", len(dst), len(labels))
	}
	return copy(dst, labels), nil
}
