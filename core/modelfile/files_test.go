package modelfile

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// The package reads and writes files of any kind as bytes (ReadBytes,
// WriteBytes); daemon/modeldir's ReadFile and WriteFile add the decoding
// and encoding of every kind. These helpers do what those do for one kind,
// so that the file tests here keep checking the file layer with this
// package's models.

func writeFile(path string, m *linear.LinearModel) error {
	data, err := Marshal(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return WriteBytes(path, data)
}

func writeKernelFile(path string, m *core.KernelModel) error {
	data, err := MarshalKernel(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return WriteBytes(path, data)
}

func readFile(path string) (*linear.LinearModel, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, err
	}
	m, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return m, nil
}

func readKernelFile(path string) (*core.KernelModel, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, err
	}
	m, err := UnmarshalKernel(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return m, nil
}

func readKind(path string) (string, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return "", err
	}
	return Kind(data)
}
