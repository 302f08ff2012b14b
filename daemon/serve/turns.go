package serve

// Inference work can take turns, first come first served, Config.Workers
// at a time (svmgo serve --workers N; 0, the default: no queue). Go's scheduler is not
// fair to connections: a connection's goroutine that answers a request
// and finds the client's next one already arrived serves it at once,
// without parking, and the other connections' requests wait in the
// kernel until a scheduler P runs out of work and polls the network (or
// sysmon does, every 10 ms). With 8 requests in flight from one load
// generator on 2 vCPUs, one connection was served up to 18 times in a row
// while 7 waited (strace of the connection loop), and a request was
// passed by 40-200 requests sent after it (p99; examples/bench/servetime's
// "overtaken"). Taking turns through a channel, whose waiting senders are
// queued in order and handed the freed turn directly, serves requests in
// the order they were read; leaving one P without a turn keeps a thread
// polling the network, so that requests are read, and queued, as they
// arrive, and leaves a CPU to a client on the same machine (a sidecar's
// callers). A request whose rows are read from the connection while they
// are predicted (a REST binary batch) does not take a turn: a slow sender
// would hold it.

// newTurns returns the queue of workers turns, or nil for no queue
// (workers ≤ 0).
//
// No queue is the default: on a quiet 2-vCPU machine (2026-11-28,
// serve_latency.sh CASES=gen, 3 alternated rounds, load 1.3-2.7) one turn
// (GOMAXPROCS-1) against none, 8 in flight from h2load: REST p99 1,862
// against 1,003 µs (p99/p50 7.33 against 4.54), gRPC 949 against 719 µs,
// and 14% fewer REST requests a second. The queue paid only on a machine
// whose CPUs other processes held (load 13-22: REST p99/p50 2.61 against
// 14.02 with 100 µs scheduler slices), so it is there to be asked for.
func newTurns(workers int) chan struct{} {
	if workers <= 0 {
		return nil
	}
	return make(chan struct{}, workers)
}

// takeTurn waits for inf's turn to be worked on.
func (s *Server) takeTurn(inf *inference) {
	if s.turns != nil {
		s.turns <- struct{}{}
		inf.turn = true
	}
}

// endTurn passes inf's turn, if it holds one, to the request that has
// waited longest.
func (s *Server) endTurn(inf *inference) {
	if inf.turn {
		inf.turn = false
		<-s.turns
	}
}
