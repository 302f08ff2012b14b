package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// beforeModel records what is written to it and whether the model file
// existed at the first write.
type beforeModel struct {
	mu         sync.Mutex
	model      string
	text       strings.Builder
	firstEarly bool
	writes     int
}

func (b *beforeModel) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.writes == 0 {
		_, err := os.Stat(b.model)
		b.firstEarly = errors.Is(err, fs.ErrNotExist)
	}
	b.writes++
	return b.text.Write(p)
}

// TestTrainProgress: --progress prints the solvers' progress to standard
// error while they run (the first line before the model file exists),
// per subproblem, for train (SMO: every 1000 iterations) and train-linear
// (a Newton step a line); without the flag, off a terminal, nothing.
func TestTrainProgress(t *testing.T) {
	dir := t.TempDir()
	for k, tc := range []struct {
		args []string
		line *regexp.Regexp
	}{
		{[]string{"train", "--progress", "-c", "1000", "-g", "0.1", "-e", "0.000001", dataDir + "breast_cancer.train"},
			regexp.MustCompile(`^progress +[0-9.]+s classes 1 vs -1: iter [0-9]*000, violation [0-9.e-]+$`)},
		{[]string{"train-linear", "--progress", "-s", "2", "-e", "0.0001", dataDir + "digits.train"},
			regexp.MustCompile(`^progress +[0-9.]+s class [0-9]: iter [0-9]+, objective [0-9.e+]+, violation [0-9.e-]+$`)},
		{[]string{"train-linear", "--progress", "-s", "40", "-B", "1", dataDir + "digits.train"},
			regexp.MustCompile(`^progress +[0-9.]+s: iter [0-9]+, objective [0-9.e+]+, violation [0-9.e-]+$`)},
	} {
		model := filepath.Join(dir, tc.args[0]+strconv.Itoa(k)+".model")
		errs := &beforeModel{model: model}
		var out strings.Builder
		if code := run(append(tc.args, model), &out, errs); code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.args, code, errs.text.String())
		}
		lines := strings.Split(strings.TrimSuffix(errs.text.String(), "\n"), "\n")
		if errs.writes == 0 || !errs.firstEarly {
			t.Errorf("%v: %d progress writes, the first before the model file: %v", tc.args, errs.writes, errs.firstEarly)
		}
		for _, l := range lines {
			if !tc.line.MatchString(l) {
				t.Errorf("%v: progress line %q", tc.args, l)
			}
		}
		os.Remove(model)
		quiet := &beforeModel{model: model}
		if code := run(append(slicesWithout(tc.args, "--progress"), model), &out, quiet); code != 0 || quiet.writes != 0 {
			t.Errorf("%v without --progress: exit %d, stderr %q", tc.args, code, quiet.text.String())
		}
	}
}

func slicesWithout(args []string, drop string) []string {
	var out []string
	for _, a := range args {
		if a != drop {
			out = append(out, a)
		}
	}
	return out
}
