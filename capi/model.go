package main

import (
	"log/slog"
	"math"
	"path/filepath"

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
	kindKernelSVC = 3
	kindKernelSVR = 4
	kindOneClass  = 5
)

// kindOf returns the svmgo_model_kind value of a model: a quantized model
// has the kind of the float model it was made from.
func kindOf(info core.ModelInfo) int {
	switch {
	case info.Task == core.TaskOneClass:
		return kindOneClass
	case info.Kernel && info.Task == core.TaskRegression:
		return kindKernelSVR
	case info.Kernel:
		return kindKernelSVC
	case info.Task == core.TaskRegression:
		return kindLinearSVR
	}
	return kindLinearSVC
}

// noProbability says why SVMGO_OUTPUT_PROBABILITY does not work for a
// model whose info.Probability is false.
func noProbability(info core.ModelInfo) string {
	switch {
	case !info.Kernel && info.Task != core.TaskClassification:
		return "linear regression models give no class probabilities"
	case !info.Kernel:
		return "a linear SVC model gives them only when trained with -b 1 (logistic regression always does)"
	case info.Task != core.TaskClassification:
		return "only kernel classifiers (C-SVC, ν-SVC) give class probabilities"
	}
	return "the model was trained without probability estimates (-b 1)"
}

// loadFile reads the model file at path, of any kind: linear or kernel,
// float or quantized, validated by the one decoder every loading path
// shares (modelfile.ReadFile).
func loadFile(path string) (core.Model, error) {
	return modelfile.ReadFile(path)
}

// loadBuffer decodes the bytes of a model file of any kind; the model
// shares no memory with b.
func loadBuffer(b []byte) (core.Model, error) {
	return modelfile.Decode(b)
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
	info := p.Info()
	switch prop {
	case propKind:
		return int64(kindOf(info)), nil
	case propNumFeatures:
		return int64(info.NumFeatures), nil
	case propNumClasses:
		return int64(len(info.Labels)), nil
	case propNumDecisionValues:
		return int64(info.NumDecisionValues), nil
	case propQuantized:
		return int64(info.Bits), nil
	case propHasProbability:
		if info.Probability {
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
func copyLabels(p core.Model, dst []int32) (int, error) {
	labels := p.Info().Labels
	if len(labels) > len(dst) {
		return 0, errorf(statusCapacity, "dst_cap is %d, %d labels needed", len(dst), len(labels))
	}
	return copy(dst, labels), nil
}

// saveBuffer writes m's model file bytes into dst and returns their
// number, which it also returns with SVMGO_E_CAPACITY when they do not fit
// (dst is then left as it was).
func saveBuffer(m core.Model, dst []byte) (int, error) {
	b, err := modelfile.Encode(m)
	if err != nil {
		return 0, err
	}
	if len(b) > len(dst) {
		return len(b), errorf(statusCapacity, "dst_cap is %d, %d bytes needed", len(dst), len(b))
	}
	return copy(dst, b), nil
}

// watchSkip returns why h's watcher does not serve the newest file of its
// directory: the newest skipped version newer than the one in use and the
// reason, or 0 and "" when none was skipped.
func watchSkip(h *modelHandle) (uint64, string, error) {
	if h.watcher == nil {
		return 0, "", errorf(statusUnsupported, "the handle holds a model, it does not watch a directory")
	}
	s := h.watcher.LastSkip()
	if s == nil {
		return 0, "", nil
	}
	return s.Version, filepath.Base(s.Path) + ": " + s.Err.Error(), nil
}
