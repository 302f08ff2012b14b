package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
)

// progressFlag asks train and train-linear to print the solvers' progress
// to standard error as it goes; on a terminal they do after a second
// anyway (unless -q).
const progressFlag = "--progress"

// progressUsage documents progressFlag in the train commands' usage.
const progressUsage = `--progress : print the solvers' progress to standard error as they go
   (iterations, objective, violation, per subproblem); on a terminal it
   starts after a second of training without the flag (not with -q)
`

// takeProgressFlag removes --progress from the options that start args
// (whose other options all take a value except -q) and reports whether it
// was there.
func takeProgressFlag(args []string) ([]string, bool) {
	rest := make([]string, 0, len(args))
	found := false
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		if args[i] == progressFlag || args[i] == progressFlag[1:] {
			found = true
			continue
		}
		rest = append(rest, args[i])
		if args[i] != "-q" && i+1 < len(args) {
			i++
			rest = append(rest, args[i])
		}
	}
	return append(rest, args[i:]...), found
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressPrinter prints ProgressEvents, one line each: all of them when
// asked, or on a terminal those after delay at most one per interval. It
// is safe for concurrent use (subproblems train in parallel).
type progressPrinter struct {
	mu       sync.Mutex
	w        io.Writer
	start    time.Time
	delay    time.Duration
	interval time.Duration
	last     time.Time
}

// newProgressPrinter returns the printer for a train command, or nil when
// it prints nothing: asked (--progress) prints every event; otherwise a
// terminal stderr, unless quiet, prints after a second, four lines a
// second at most.
func newProgressPrinter(stderr io.Writer, asked, quiet bool) *progressPrinter {
	switch {
	case asked:
		return &progressPrinter{w: stderr, start: time.Now()}
	case !quiet && isTerminal(stderr):
		return &progressPrinter{w: stderr, start: time.Now(), delay: time.Second, interval: 250 * time.Millisecond}
	}
	return nil
}

// report prints e unless throttled.
func (p *progressPrinter) report(e core.ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < p.delay || now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	var b strings.Builder
	fmt.Fprintf(&b, "progress %6.1fs", now.Sub(p.start).Seconds())
	switch e.Classes {
	case 2:
		fmt.Fprintf(&b, " classes %d vs %d:", e.Subproblem, e.Second)
	case 1:
		fmt.Fprintf(&b, " class %d:", e.Subproblem)
	default:
		b.WriteString(":")
	}
	fmt.Fprintf(&b, " iter %d", e.Iteration)
	if !math.IsNaN(e.Objective) {
		fmt.Fprintf(&b, ", objective %.6g", e.Objective)
	}
	fmt.Fprintf(&b, ", violation %.3g\n", e.Violation)
	io.WriteString(p.w, b.String())
}

// fn returns p.report, or nil for a nil p.
func (p *progressPrinter) fn() core.ProgressFunc {
	if p == nil {
		return nil
	}
	return p.report
}
