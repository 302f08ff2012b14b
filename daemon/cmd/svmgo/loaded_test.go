package main

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// as returns the model of l as an M, the zero M for a model of another
// kind; linOf, kerOf and quantOf name the three the tests look for.
func as[M any](l *modeldir.Loaded) M { m, _ := l.Model.(M); return m }

var (
	linOf   = as[*linear.LinearModel]
	kerOf   = as[*core.KernelModel]
	quantOf = as[quantize.Model]
)

// loadLoaded reads a model file as a watcher hands it out; fileKind
// returns the kind of the model it holds.
func loadLoaded(path string) (*modeldir.Loaded, error) {
	m, err := modelfile.ReadFile(path)
	return &modeldir.Loaded{Model: m, Path: path}, err
}

func fileKind(path string) (string, error) {
	m, err := modelfile.ReadFile(path)
	if err != nil {
		return "", err
	}
	return m.Info().Kind, nil
}
