//go:build svmgo_batch

package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// The batch build (make's bin/svmgo, -tags svmgo_batch) links no server,
// NATS client or directory watcher: their packages' init functions (gRPC's
// and protobuf's registries, nats.go, net/http) would run at every start
// of every command and fault in 7 MiB of code (heart_scale train-linear:
// 13.0 MiB peak RSS with them, 6.3 MiB without). Its watch, serve and
// follow replace the process by the full build, svmgo-daemon, found next
// to it, with the same arguments: same process, same signals.

func watch(args []string, _, stderr io.Writer) int    { return execDaemon("watch", args, stderr) }
func serveCmd(args []string, _, stderr io.Writer) int { return execDaemon("serve", args, stderr) }
func follow(args []string, _, stderr io.Writer) int   { return execDaemon("follow", args, stderr) }

// execDaemon runs svmgo-daemon cmd args in place of this process; it
// returns only if that fails.
func execDaemon(cmd string, args []string, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", cmd, err))
	}
	path, err := daemonPath(exe)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", cmd, err))
	}
	err = syscall.Exec(path, append([]string{path, cmd}, args...), os.Environ())
	return fail(stderr, fmt.Errorf("%s: %w", cmd, err))
}
