package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes text to name in a new temporary directory and returns
// its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTrainWideIndexRefused: a 4-line file with the index 2³¹−1 made
// train-linear allocate TRON's vectors for 2³¹ features and abort (issue
// 22, fault 6); train and train-linear refuse it with an error naming the
// memory it would take.
func TestTrainWideIndexRefused(t *testing.T) {
	in := writeFile(t, "wide.txt", "1 1:1 2147483647:1\n-1 2:1\n1 3:1\n-1 1:0.5\n")
	for _, args := range [][]string{
		{"train-linear", in},
		{"train-linear", "-s", "2", in},
		{"train-linear", "-s", "0", in},
	} {
		args = append(args, filepath.Join(t.TempDir(), "m"))
		code, _, stderr := svmgo(t, args...)
		if code != 1 || !strings.Contains(stderr, "more memory than the machine has") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the memory it needs", args, code, stderr)
		}
	}
}
