// Command proctime times whole short commands at microsecond resolution, so
// that examples/bench/newton.sh can compare runs of 1–5 ms, which
// /usr/bin/time reports in 10 ms ticks.
//
// Usage:
//
//	proctime [-runs N] [-warmup W] [-logs DIR] -- cmd1 args... [--- cmd2 args... ...]
//
// It runs the commands in turn, cmd1 cmd2 … cmd1 cmd2 …, N times each (after
// W untimed rounds), with standard input from /dev/null and standard output
// and error discarded, except for the last round, whose output goes to
// DIR/1.log, DIR/2.log, … when -logs is given. For each run it takes:
//
//   - cpu: user + system time of the child from wait4's rusage. Linux
//     scales the tick-sampled user/system split so that their sum is the
//     scheduler's nanosecond run time, so the sum is exact to the
//     microsecond rusage reports (what perf stat's task-clock counts too);
//   - wall: the monotonic clock from just before the fork to just after
//     wait4 returns;
//   - faults: the child's minor page faults (ru_minflt), and
//     csw: its context switches, voluntary and not (ru_nvcsw + ru_nivcsw):
//     counts, not times, so they barely move with the machine's load.
//
// Peak memory is not measured: the child starts as a vfork copy of
// proctime, and Linux carries the old memory's peak into ru_maxrss at
// exec, so proctime's own peak would floor the child's.
//
// Pinning is the caller's: `taskset -c 0 proctime …` pins proctime, and the
// children inherit its CPU set.
//
// It prints one line a command, in the order given:
//
//	cmd=1 runs=N cpu_ms=1.234 wall_ms=2.345 faults=310 csw=14 cpu_q1=… cpu_q3=… wall_q1=… wall_q3=…
//
// with the medians (and quartiles) over the N runs. A command that exits
// non-zero stops proctime with exit status 1 and its output on standard
// error.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// sample is one run's measurement.
type sample struct {
	cpu, wall   time.Duration
	faults, csw int64
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proctime", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.Int("runs", 30, "timed runs of each command")
	warmup := fs.Int("warmup", 2, "untimed rounds first (page cache, CPU frequency)")
	logs := fs.String("logs", "", "directory for the last round's output, one K.log a command")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *runs < 1 || *warmup < 0 {
		fmt.Fprintln(stderr, "proctime: -runs must be >= 1 and -warmup >= 0")
		return 2
	}
	cmds, err := splitCommands(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "proctime: %v\n", err)
		return 2
	}
	for k, c := range cmds {
		path, err := exec.LookPath(c[0])
		if err != nil {
			fmt.Fprintf(stderr, "proctime: command %d: %v\n", k+1, err)
			return 2
		}
		c[0] = path
	}
	samples := make([][]sample, len(cmds))
	for r := -*warmup; r < *runs; r++ {
		for k, c := range cmds {
			var log *os.File
			if *logs != "" && r == *runs-1 {
				log, err = os.Create(filepath.Join(*logs, strconv.Itoa(k+1)+".log"))
				if err != nil {
					fmt.Fprintf(stderr, "proctime: %v\n", err)
					return 1
				}
			}
			s, err := runOnce(c, log)
			if log != nil {
				if cerr := log.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintf(stderr, "proctime: command %d (%s): %v\n", k+1, c[0], err)
				return 1
			}
			if r >= 0 {
				samples[k] = append(samples[k], s)
			}
		}
	}
	for k, ss := range samples {
		cpu := quartiles(ss, func(s sample) float64 { return s.cpu.Seconds() * 1e3 })
		wall := quartiles(ss, func(s sample) float64 { return s.wall.Seconds() * 1e3 })
		faults := quartiles(ss, func(s sample) float64 { return float64(s.faults) })
		csw := quartiles(ss, func(s sample) float64 { return float64(s.csw) })
		fmt.Fprintf(stdout, "cmd=%d runs=%d cpu_ms=%.4f wall_ms=%.4f faults=%.0f csw=%.0f cpu_q1=%.4f cpu_q3=%.4f wall_q1=%.4f wall_q3=%.4f\n",
			k+1, len(ss), cpu[1], wall[1], faults[1], csw[1], cpu[0], cpu[2], wall[0], wall[2])
	}
	return 0
}

// splitCommands splits args at each "---" into commands.
func splitCommands(args []string) ([][]string, error) {
	var cmds [][]string
	for len(args) > 0 {
		end := slices.Index(args, "---")
		if end < 0 {
			end = len(args)
		}
		if end == 0 {
			return nil, errors.New("empty command (two --- in a row, or --- first)")
		}
		cmds = append(cmds, slices.Clone(args[:end]))
		args = args[min(end+1, len(args)):]
	}
	if len(cmds) == 0 {
		return nil, errors.New("no command: usage: proctime [-runs N] [-warmup W] [-logs DIR] -- cmd args... [--- cmd args...]")
	}
	return cmds, nil
}

// runOnce runs argv once, its output to log (discarded when nil), and
// measures it.
func runOnce(argv []string, log *os.File) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var errOut bytes.Buffer
	if log != nil {
		cmd.Stdout, cmd.Stderr = log, log
	} else {
		cmd.Stderr = &errOut
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		if log == nil && errOut.Len() > 0 {
			return sample{}, fmt.Errorf("%w: %s", err, bytes.TrimSpace(errOut.Bytes()))
		}
		return sample{}, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, errors.New("no rusage from wait4")
	}
	cpu := time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	return sample{cpu: cpu, wall: wall, faults: ru.Minflt, csw: ru.Nvcsw + ru.Nivcsw}, nil
}

// quartiles returns the first quartile, median and third quartile of f
// over ss (linear interpolation between order statistics).
func quartiles(ss []sample, f func(sample) float64) [3]float64 {
	v := make([]float64, len(ss))
	for k, s := range ss {
		v[k] = f(s)
	}
	slices.Sort(v)
	at := func(p float64) float64 {
		x := p * float64(len(v)-1)
		i := int(x)
		if i+1 >= len(v) {
			return v[len(v)-1]
		}
		return v[i] + (x-float64(i))*(v[i+1]-v[i])
	}
	return [3]float64{at(0.25), at(0.5), at(0.75)}
}
