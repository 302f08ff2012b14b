//go:build !amd64 || amd64.v3

package core

// trainVectorExact: see trainexact_amd64.go.
const trainVectorExact = false
