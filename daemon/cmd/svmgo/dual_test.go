package main

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// The store holds one dual, of either kind (store.Store.Dual, SetDual);
// these helpers are its kind-specific views for the tests that check one.
type dualStore interface {
	Dual() *core.Dual
	SetDual(*core.Dual) error
}

// linearDual is the store's linear dual, nil when it holds none.
func linearDual(s dualStore) *linear.LinearDual {
	if d := s.Dual(); d != nil {
		return d.Linear
	}
	return nil
}

// kernelDual is the store's kernel dual, nil when it holds none.
func kernelDual(s dualStore) *core.KernelDual {
	if d := s.Dual(); d != nil {
		return d.Kernel
	}
	return nil
}

// setLinearDual records a linear dual in the store.
func setLinearDual(s dualStore, d *linear.LinearDual) error { return s.SetDual(&core.Dual{Linear: d}) }

// setKernelDual records a kernel dual in the store.
func setKernelDual(s dualStore, d *core.KernelDual) error { return s.SetDual(&core.Dual{Kernel: d}) }
