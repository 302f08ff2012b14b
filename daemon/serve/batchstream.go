package serve

import "sync/atomic"

// A large batch is checked and predicted on two cores: the goroutine
// answering the request and one of the server's idle helpers.
//
// A raw FP32 batch (a REST request's binary tensor data, read from the
// connection; a gRPC request's raw contents, copied as the HTTP/2 loop's
// reader puts them in place, or from grpc-go's frame buffers) is streamed:
// the request's goroutine moves the rows into place a chunk at a time and
// checks each chunk for non-finite values while the copy has left it in
// its cache (fillFP32; simd.FirstNonFinite), and the helper predicts each
// run of rows that has arrived; once every row is in place the two share
// what is left. The helper checked the rows itself before, reading them
// first from the other core's cache: that scan took two thirds as long as
// the prediction (perf, examples/serve/README.md). Moving, checking and
// predicting a batch one after the other on one core left the other idle:
// on loopback the client has written its whole 1000-row, 3.1 MB request
// into the socket by the time the server has read a fifth of it, and then
// waits for the server's copy, check and prediction in turn. A batch that
// is not streamed (JSON, typed gRPC contents, a small raw one), decoded
// and checked already, is shared the same way for its prediction.
//
// Helpers are a fixed set of goroutines (GOMAXPROCS-1), so a batch never
// waits for one: a request takes a helper only when one is idle, and is
// otherwise checked and predicted by its own goroutine as before. The rows
// are split by an atomic claim on a prefix (rowStream.claim). A row's
// outputs do not depend on the rows predicted with it (runRows; no claim
// is small enough for a linear model's row-at-a-time path), so the answer
// is the same bits however the rows were split
// (TestStreamedBatchMatchesOneCore); rows are checked in order before they
// are announced, so a request refused for a non-finite value names the
// first one. A request waits for its helper to stop before it returns, so
// the pooled buffers are never touched after the request ends.

// streamRows is the rows the helper takes at a time while a batch
// arrives, and shareRows the fewest either takes once all have. The
// helper waits for streamRows at a time, which keeps its wake-ups few,
// and takes no more even when it is behind (as it is when the client's
// sending keeps the other core busy), so that what is left when the last
// row arrives is split between the two: taking every ready row, it once
// took 936 of 1000 and finished 420 µs after the request's goroutine.
const (
	streamRows = 128
	shareRows  = 64
)

// helpValues is the fewest values (rows × features) a batch of a linear
// model has for a helper to take part: below it the helper's wake-up
// costs more than half the work saves. A kernel model's row costs a kernel
// value for each support vector, so its batches are shared from
// 2·shareRows rows whatever their width.
const helpValues = 1 << 17

// rowStream is what a request and its helper share while both work on its
// rows.
type rowStream struct {
	v       *version
	rows    int64        // the batch's
	ready   atomic.Int64 // rows in place and checked, which may be claimed
	claimed atomic.Int64 // rows taken, by either goroutine
	end     atomic.Bool  // ready is final
	// wake (capacity 1) tells the helper that ready or end changed;
	// finished that the helper has stopped, panicked what it panicked
	// with (nil for nothing).
	wake, finished chan struct{}
	panicked       any
}

// startHelpers starts n goroutines that work on large batches with their
// requests (Start: one for each core beyond the first).
func (s *Server) startHelpers(n int) {
	s.helpers, s.helpersQuit = make(chan *inference), make(chan struct{})
	for range n {
		s.helpersWG.Go(func() {
			for {
				select {
				case inf := <-s.helpers:
					inf.help()
				case <-s.helpersQuit:
					return
				}
			}
		})
	}
}

// stopHelpers stops them (once, however often Shutdown is called). A
// request still running (gRPC's Stop does not wait for its handlers)
// finds none idle and works alone.
func (s *Server) stopHelpers() {
	if s.helpersQuit != nil {
		s.helpersStop.Do(func() { close(s.helpersQuit) })
		s.helpersWG.Wait()
	}
}

// getInference returns a pooled inference whose batches the server's
// helpers may work on.
func (s *Server) getInference() *inference {
	inf := inferencePool.Get().(*inference)
	inf.helpers = s.helpers
	return inf
}

// startStream hands inf, whose rows will be put in inf.x and checked
// (arrived), to an idle helper that predicts them on v as they come; it
// reports whether one took it, after which endStream must be called once
// they are in place, or their reading failed. input must have sized inf
// first.
func (inf *inference) startStream(v *version) bool {
	return inf.handOff(v, 0, false)
}

// share predicts the rows of inf past inf.done, all in place and checked,
// with a helper when one is idle; it reports whether one took part.
func (inf *inference) share(v *version) bool {
	if !inf.handOff(v, inf.rows, true) {
		return false
	}
	inf.endStream(nil)
	return true
}

// handOff gives an idle helper the rows of inf past inf.done, ready of
// them in place, end telling whether that is all; it reports false, and
// nothing changes, for a batch too small to share, outputs v cannot give,
// or no idle helper.
func (inf *inference) handOff(v *version, ready int, end bool) bool {
	rows := inf.rows - inf.done
	if inf.helpers == nil || rows < 2*shareRows || !v.info.Kernel && rows*inf.cols < helpValues || inf.prepare(v) != nil {
		return false
	}
	st := inf.st
	if st == nil {
		st = &rowStream{wake: make(chan struct{}, 1), finished: make(chan struct{}, 1)}
		inf.st = st
	}
	st.v, st.rows = v, int64(inf.rows)
	st.ready.Store(int64(ready))
	st.claimed.Store(int64(inf.done))
	st.end.Store(end)
	select {
	case inf.helpers <- inf:
		inf.helped = true
		return true
	default:
		return false
	}
}

// arrived tells a streamed inference that the first values values of
// inf.x are in place and checked. The helper is woken only when it has
// rows to claim: not at every chunk, whose wake-ups would cost more than
// its work.
func (inf *inference) arrived(values int) {
	if !inf.helped {
		return
	}
	st := inf.st
	rows := int64(values / inf.cols)
	st.ready.Store(rows)
	if rows-st.claimed.Load() >= streamRows {
		st.signal()
	}
}

// endStream ends a helped inference's stream; readErr is why its rows
// could not all be read or were refused (nil: all are in place and
// checked). The request's goroutine then works on what is left together
// with the helper, and returns readErr once the helper has stopped. It
// does nothing for an inference no helper took.
func (inf *inference) endStream(readErr error) error {
	if !inf.helped {
		return readErr
	}
	st := inf.st
	if readErr == nil {
		st.ready.Store(st.rows)
	}
	st.end.Store(true)
	st.signal()
	for {
		from, to, ok := st.claim()
		if !ok {
			break
		}
		inf.runRows(st.v, from, to)
	}
	<-st.finished
	inf.done, inf.helped = int(st.claimed.Load()), false
	st.v = nil
	if p := st.panicked; p != nil {
		// A predict that panicked on the helper panics here, in the
		// request's goroutine, whose server recovers it as it did when
		// that goroutine predicted alone.
		st.panicked = nil
		panic(p)
	}
	return readErr
}

// help is a helper's work on one inference: the rows it can claim, until
// the stream has ended and none are left. A panic stops it and is handed
// to the request's goroutine (endStream); the helper carries on.
func (inf *inference) help() {
	st := inf.st
	defer func() {
		st.panicked = recover()
		st.finished <- struct{}{}
	}()
	for {
		end := st.end.Load() // before the claim: a claim that fails after it leaves nothing
		if from, to, ok := st.claim(); ok {
			inf.runRows(st.v, from, to)
			continue
		}
		if end {
			return
		}
		<-st.wake
	}
}

// signal wakes the helper if it waits.
func (st *rowStream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// claim takes the next rows, [from, to): while rows still arrive,
// streamRows of them once they are ready; once all have, half of what is
// left, so that the two goroutines finish together. It never
// leaves fewer than shareRows rows unclaimed but none, so every claim has
// shareRows rows or more (a batch is shared from 2·shareRows): a linear
// model predicts fewer than 8 rows a row at a time, in float64, whose
// labels may differ from the blocked float32 product's on a near tie, and
// a batch's labels must not depend on how it was split. It reports false
// when there is nothing to take now.
func (st *rowStream) claim() (from, to int, ok bool) {
	for {
		end := st.end.Load()
		c, k := st.claimed.Load(), st.ready.Load()
		n := k - c
		switch {
		case n <= 0, n < streamRows && !end:
			return 0, 0, false
		case !end:
			n = streamRows
			if tail := st.rows - (c + n); tail > 0 && tail < shareRows {
				n -= shareRows - tail
			}
		case n >= 2*shareRows:
			n /= 2
		}
		if st.claimed.CompareAndSwap(c, c+n) {
			return int(c), int(c + n), true
		}
	}
}
