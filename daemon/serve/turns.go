package serve

import "runtime"

// Inference work takes turns, first come first served, Config.Workers at
// a time (by default GOMAXPROCS-1, at least 1). Go's scheduler is not
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

// newTurns returns the queue of workers turns (0: GOMAXPROCS-1, at least
// 1), or nil for no queue (workers < 0).
func newTurns(workers int) chan struct{} {
	if workers < 0 {
		return nil
	}
	if workers == 0 {
		workers = max(1, runtime.GOMAXPROCS(0)-1)
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
