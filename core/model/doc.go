// Package model holds the vocabulary every model family shares: the one
// model interface (Model, ProbabilityModel, ModelInfo), the kinds and
// tasks, the training summary every kind reports (FitSummary), the
// progress callback, class weights, the parameter and memory errors, and
// the checks every kind makes of its scaling. It sits below the families
// (core/linear, and the kernel family in core) so that they implement one
// interface and core's Trainer can dispatch to them; package core keeps
// these names as aliases.
//
// # Imports
//
// It may import core/data and core/scale.
package model
