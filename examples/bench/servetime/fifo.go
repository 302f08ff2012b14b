package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// -fifo N runs svmgo serve, the floors' process and the load generators
// under SCHED_FIFO at priority N (chrt -f N), so that on a machine other
// processes keep busy they are not preempted by those (Linux keeps 5% of
// each CPU for SCHED_OTHER tasks). servetime itself, whose clients are
// not timed with -fifo's generators, stays SCHED_OTHER: two Go processes
// at the same FIFO priority can livelock on two CPUs, each with a thread
// spinning in its runtime (a collection waiting for a goroutine to stop)
// for a thread of its own queued behind the other's spinner, since
// equal-priority FIFO threads neither preempt nor migrate to a busy CPU
// (two such runs at 12:38 on 2026-11-28 held both CPUs for 10 minutes).
// So with -fifo a generator that outlives its run by fifoGrace is killed
// with the servers, and concurrent -fifo runs should be serialized
// (serve_latency.sh and serve_ab.sh take a lock).
var fifoPrio = flag.Int("fifo", 0, "run svmgo serve, the floors and the load generators under SCHED_FIFO at this priority (chrt -f; 0: not)")

// fifoGrace is how long past its run a generator under -fifo may take
// before servetime kills it and the servers.
const fifoGrace = 30 * time.Second

// fifoWrap makes cmd, not started yet, run under chrt -f with -fifo.
func fifoWrap(cmd *exec.Cmd) {
	if *fifoPrio > 0 {
		chrt, err := exec.LookPath("chrt")
		check(err)
		cmd.Args = append([]string{"chrt", "-f", strconv.Itoa(*fifoPrio), cmd.Path}, cmd.Args[1:]...)
		cmd.Path = chrt
	}
}

// fifoWatchdog kills cmd and the servers and stops servetime if cmd runs
// past runFor plus fifoGrace under -fifo; the returned func disarms it.
func fifoWatchdog(cmd *exec.Cmd, runFor time.Duration) func() bool {
	if *fifoPrio <= 0 {
		return func() bool { return true }
	}
	t := time.AfterFunc(runFor+fifoGrace, func() {
		cmd.Process.Kill()
		die(fmt.Errorf("%s ran past %v under -fifo: killed (a spinning FIFO process?)", cmd.Path, runFor+fifoGrace))
	})
	return t.Stop
}

// preemptions returns the involuntary context switches of process pid's
// threads so far (/proc/PID/task/TID/status): the times a running thread
// was put off its CPU for another, which under the default scheduler is
// how a thread holding a request loses its CPU to the generator or to
// another of the server's threads.
func preemptions(pid int) int64 {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0
	}
	var n int64
	for _, t := range tasks {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue // the thread exited
		}
		if _, v, ok := strings.Cut(string(status), "\nnonvoluntary_ctxt_switches:"); ok {
			v, _, _ = strings.Cut(v, "\n")
			k, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			check(err)
			n += k
		}
	}
	return n
}
