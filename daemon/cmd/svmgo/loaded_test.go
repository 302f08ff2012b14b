package main

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// linOf, kerOf and quantOf return the model of l as its kind, nil for
// another kind.
func linOf(l *modeldir.Loaded) *core.LinearModel {
	m, _ := l.Model.(*core.LinearModel)
	return m
}

func kerOf(l *modeldir.Loaded) *core.KernelModel {
	m, _ := l.Model.(*core.KernelModel)
	return m
}

func quantOf(l *modeldir.Loaded) quantize.Model {
	m, _ := l.Model.(quantize.Model)
	return m
}

// loadLoaded reads a model file as modeldir.ReadFile does, in a Loaded as
// a watcher hands it out.
func loadLoaded(path string) (*modeldir.Loaded, error) {
	m, err := modeldir.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &modeldir.Loaded{Model: m, Path: path}, nil
}

// fileKind returns the kind of the model in the file at path.
func fileKind(path string) (string, error) {
	m, err := modeldir.ReadFile(path)
	if err != nil {
		return "", err
	}
	return m.Info().Kind, nil
}
