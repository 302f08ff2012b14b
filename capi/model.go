package main

import (
	"log/slog"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
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

// Model kinds, svmgo.h's enum svmgo_model_kind.
const (
	kindLinearSVC = 1
	kindLinearSVR = 2
)

// loadFile reads the model file at path.
func loadFile(path string) (*core.LinearModel, error) {
	m, err := modelfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return m, checkWeights(m)
}

// loadBuffer decodes the bytes of a model file; the model shares no memory
// with b.
func loadBuffer(b []byte) (*core.LinearModel, error) {
	m, err := modelfile.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return m, checkWeights(m)
}

// checkWeights refuses a model with a non-finite weight or bias, which the
// file format carries but no training produces: every prediction from it
// would be refused as non-finite, so the loader says why instead.
func checkWeights(m *core.LinearModel) error {
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return errorf(statusCorrupt, "the model's bias %v is not finite", m.Bias)
	}
	for i, w := range m.W {
		if f := float64(w); math.IsNaN(f) || math.IsInf(f, 0) {
			return errorf(statusCorrupt, "the model's weight %d is %v", i, f)
		}
	}
	return nil
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
	m, version, err := h.current()
	if err != nil {
		return 0, err
	}
	switch prop {
	case propKind:
		if m.IsRegression() {
			return kindLinearSVR, nil
		}
		return kindLinearSVC, nil
	case propNumFeatures:
		return int64(m.NumFeatures), nil
	case propNumClasses:
		return int64(len(m.Labels)), nil
	case propNumDecisionValues:
		return int64(m.NumDecisionValues()), nil
	case propQuantized, propHasProbability:
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
func copyLabels(m *core.LinearModel, dst []int32) (int, error) {
	if len(m.Labels) > len(dst) {
		return 0, errorf(statusCapacity, "dst_cap is %d, %d labels needed", len(dst), len(m.Labels))
	}
	return copy(dst, m.Labels), nil
}
