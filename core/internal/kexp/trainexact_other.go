//go:build !amd64 || amd64.v3

package kexp

// TrainVectorExact: see trainexact_amd64.go.
const TrainVectorExact = false
