package modeldir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/textmodel"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// ReadFile reads the model file at path, of any kind, and returns the
// model it holds, decoded and validated as Decode does. The file is read
// once, frame first (modelfile.ReadBytes: a FIFO, a directory or a huge
// file that is not a model is refused without blocking or reading it
// whole), and its kind is taken from the same bytes the model is decoded
// from. Errors name the path and wrap modelfile's sentinels, the os error,
// or fileio.ErrNotRegular.
func ReadFile(path string) (core.Model, error) {
	data, err := modelfile.ReadBytes(path)
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, importHint(err, path))
	}
	m, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return m, nil
}

// importHint is what the error of a LIBSVM or LIBLINEAR text model given
// where a model file is wanted adds: the command that converts it. It
// reads the file's first line again, on this error path only.
func importHint(err error, path string) string {
	if !errors.Is(err, modelfile.ErrNotModel) {
		return ""
	}
	f, oerr := os.Open(path)
	if oerr != nil {
		return ""
	}
	defer f.Close()
	var buf [256]byte
	n, _ := io.ReadFull(f, buf[:])
	first := buf[:n]
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	kind, terr := textmodel.DetectTextModel(first)
	if terr != nil {
		return ""
	}
	name := "LIBSVM"
	if kind == textmodel.LIBLINEARText {
		name = "LIBLINEAR"
	}
	return fmt.Sprintf(": it is a %s text model; convert it with `svmgo import %s MODEL.svmgo`", name, path)
}

// Decode decodes the bytes of a model file of any kind: a *core.LinearModel,
// an initialised *core.KernelModel, or a *quantize.Linear or
// *quantize.Kernel. Each kind's decoder is its one validation (core's
// Validate for the float kinds, refusing non-finite numbers; quantize's
// checks for the quantized ones), so every path that loads a model (the C
// ABI's load and load_buffer, watchers, the command) refuses the same
// files. Errors wrap one of modelfile's sentinels. The model shares no
// memory with data.
func Decode(data []byte) (core.Model, error) {
	kind, err := modelfile.Kind(data)
	if err != nil {
		return nil, err
	}
	// A failed decoder's typed nil must not become a non-nil core.Model.
	var m core.Model
	switch kind {
	case core.KindLinear:
		var lm *core.LinearModel
		if lm, err = modelfile.Unmarshal(data); err == nil {
			m = lm
		}
	case core.KindKernel:
		var km *core.KernelModel
		if km, err = modelfile.UnmarshalKernel(data); err == nil {
			m = km
		}
	default:
		m, err = quantize.Unmarshal(data)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Encode returns the model file bytes of m, of any kind Decode returns;
// the same model always gives the same bytes. It returns an error for a
// nil model, a model its kind's encoder refuses, or a type this package
// does not know.
func Encode(m core.Model) ([]byte, error) {
	switch m := m.(type) {
	case *core.LinearModel:
		if m != nil {
			return modelfile.Marshal(m)
		}
	case *core.KernelModel:
		if m != nil {
			return modelfile.MarshalKernel(m)
		}
	case quantize.Model:
		return quantize.Marshal(m)
	default:
		if m != nil {
			return nil, fmt.Errorf("modeldir: encode: %T is not a model kind this package writes", m)
		}
	}
	return nil, errors.New("modeldir: encode: nil model")
}

// WriteFile writes m, of any kind, to path atomically (fileio.WriteFile: a
// temporary file in path's directory, synced, renamed, the directory
// synced; modelfile.WriteBytes). Errors name the path.
func WriteFile(path string, m core.Model) error {
	data, err := Encode(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return modelfile.WriteBytes(path, data)
}

// ReadFileAs reads the model file at path as ReadFile does and returns its
// model as an M (a *core.LinearModel, a *core.KernelModel, a
// quantize.Model, ...), for a caller that can use one kind only; a model
// of another kind is refused with an error wrapping modelfile.ErrKind.
func ReadFileAs[M core.Model](path string) (M, error) {
	var zero M
	m, err := ReadFile(path)
	if err != nil {
		return zero, err
	}
	as, ok := m.(M)
	if !ok {
		return zero, fmt.Errorf("%w: %s holds a %s model, want %T (reading %s)", modelfile.ErrKind, path, m.Info().Kind, zero, path)
	}
	return as, nil
}
