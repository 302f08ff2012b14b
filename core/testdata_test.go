package core

import (
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// readTestdata reads testdata/name, failing the test on error.
func readTestdata(t testing.TB, name string) *data.Dataset {
	t.Helper()
	ds, err := data.ReadFile("testdata/"+name, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
