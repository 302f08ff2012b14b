package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/textmodel"
)

// readModelFile is modelfile.ReadFile with withImportHint's advice.
func readModelFile(path string) (core.Model, error) {
	m, err := modelfile.ReadFile(path)
	return m, withImportHint(err, path)
}

// withImportHint adds to the error of a LIBSVM or LIBLINEAR text model
// given where a model file is wanted the command that converts it. It
// reads the file's first line again, on this error path only; other
// errors pass unchanged.
func withImportHint(err error, path string) error {
	if !errors.Is(err, modelfile.ErrNotModel) {
		return err
	}
	f, oerr := os.Open(path)
	if oerr != nil {
		return err
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
		return err
	}
	name := "LIBSVM"
	if kind == textmodel.LIBLINEARText {
		name = "LIBLINEAR"
	}
	return fmt.Errorf("%w: it is a %s text model; convert it with `svmgo import %s MODEL.svmgo`", err, name, path)
}
