// Package serve answers the Open Inference Protocol (KServe v2: the REST
// endpoints and inference.GRPCInferenceService over gRPC) for a
// repository of model directories, each followed and hot-swapped as
// DESIGN.md §6 has it: svmgo serve and svmgo watch --serve run it.
//
// # Repository
//
// A repository is a directory of model directories, one per model name,
// each in the layout svmgo watch publishes into its models/
// ("model-<version>.svmgo", written by modeldir.Publish). Each is followed
// by a modeldir.Watcher, which loads a new version through the one opener
// (modelfile.ReadFile, every registered kind), checks it completely and
// only then swaps it in; a version that fails to load is counted
// (svmgo_serve_load_failures_total), logged and skipped, and never blocks
// the versions after it. A model's version policy chooses what is served:
// "latest" (the newest valid version, the default), "latest:N", "all" or
// "specific:V,...".
//
// A model directory may instead be in Triton's layout: version
// directories named by the version in decimal ("1", "2", ...), each
// holding model.svmgo or model.onnx (read by the same opener, so any
// kind), beside models in svmgo watch's layout in the same repository. A
// directory is taken as Triton's when it holds a version directory and no
// "model-<v>" file when the model is added. It is followed by the same
// modeldir.Watcher, told its versions by Options.Versions (fsnotify on the
// model directory and each version directory; a file that fails to load,
// such as one still being copied in, is read again once its size or
// modification time changes), under the same version policies.
// Triton's config.pbtxt is not read.
//
// The versions served are one immutable set, replaced
// by one atomic pointer store; a request reads it once and runs to its
// end on the version it resolved, so a swap never fails or mixes a
// request, and the old model is freed by the garbage collector after the
// last request holding it returns (at most the old plus the new model in
// memory, with the default policy).
//
// # REST (OIP v2)
//
//	GET  /v2/health/live                      {"live": true}
//	GET  /v2/health/ready                     200 {"ready": true} once every model has a version; 400 before, and while draining
//	GET  /v2                                  server metadata (extensions: model_repository, binary_tensor_data)
//	GET  /v2/models/{m}[/versions/{v}]        model metadata: versions, platform svmgo_<kind>, tensors, properties (task, labels)
//	GET  /v2/models/{m}[/versions/{v}]/ready  200 {"name": m, "ready": true}
//	POST /v2/models/{m}[/versions/{v}]/infer  inference
//	POST /v2/repository/index                 [{"name", "version", "state"}]: READY versions, UNAVAILABLE models with the reason
//	POST /v2/repository/models/{m}/load       serve the repository's subdirectory m (or rescan it)
//	POST /v2/repository/models/{m}/unload     stop serving m
//	GET  /metrics                             Prometheus text format, every name under svmgo_
//
// An inference request has exactly one input tensor of shape [N, F] (F the
// model's NumFeatures), datatype FP32, FP64, INT8..INT64 or UINT8..UINT64,
// its "data" flat (N×F numbers, row-major) or nested (N arrays of F).
// Values become the float32 features svmgo predict reads (FP32 numbers
// round as a data file's do). Outputs, by name in "outputs", or asked by
// the request parameters {"decision": true} and {"probability": true}
// (then the label comes too):
//
//	label        INT64 class labels (±1 for one-class), FP64 values for regression; shape [N]
//	decision     FP64 decision values, shape [N, K], in LIBSVM's order
//	probability  FP64 class probabilities, shape [N, C], in the order of the "labels" property
//
// No outputs named means label.
//
// REST is HTTP/1.1 (keep-alive, pipelining, chunked bodies, 100 Continue,
// headers capped at 64 KB: 431 past it) over a connection loop of the
// package's own (http1.go) around net/http's request parser and the same
// http.Handler, not net/http's server: that server starts and stops a
// goroutine watching the connection for every request, which costs more
// than a single-row inference (examples/bench/serve.sh's floors). HTTP/2
// is gRPC's. A request of the common form (its whole head in the
// connection's buffer, GET, POST or HEAD, HTTP/1.1, a plain path, a
// Content-Length or no body, no repeated header) is read into a Request
// and header map of the connection's, reused, without allocating
// (http1fast.go); any other by net/http's parser, as it was.
//
// The body is read by a decoder of its own (restdecode.go), not
// encoding/json: it checks the whole text's syntax and depth as strictly,
// reads the numbers of "data" straight into the pooled float32 rows (once,
// when "shape" and "datatype" come before "data"; a second pass over the
// data otherwise) and allocates nothing for a request without escaped
// strings. Member names are matched exactly as the protocol spells them
// (encoding/json also took "Inputs" for "inputs"). An unknown model or
// version is answered (404) before the body is decoded.
//
// The binary tensor data extension (Triton's and KServe's): with the
// header Inference-Header-Content-Length: L, the body's first L bytes are
// the JSON and the rest is the input's raw tensor, little-endian as
// raw_input_contents, when the input has the parameter "binary_data_size"
// (its size; no "data"). An output with the parameter {"binary_data": true},
// or every output when the request parameter "binary_data_output" is true
// (an output's own binary_data overrides it), is answered as raw INT64 or
// FP64 after the JSON, which then gives its "binary_data_size" instead of
// "data"; such an answer is application/octet-stream with the header
// Inference-Header-Content-Length. When the body's length is known, its
// JSON is read and decoded first and an FP32 tensor is then read from the
// connection straight into the rows (on little-endian machines; other
// datatypes through the body buffer), so a batch is not copied through a
// buffer of its own.
//
// Every error is {"error": "..."} with:
//
//	400  malformed JSON, JSON nested past the depth cap, no or several inputs, a shape
//	     other than [N, F] with the model's F, an unknown datatype or output, data that
//	     does not match the shape, a number that is not one of the datatype (or does not
//	     fit a float32), probabilities from a model without them, an invalid model name;
//	     a model with no version loaded yet (ready endpoints and infer); binary tensor
//	     data whose size does not match its binary_data_size, the shape or the header
//	404  an unknown model, version or endpoint
//	405  a wrong method
//	413  a body past the request-size cap, or more rows than the row cap
//	429  past the bound on requests in flight (retry later)
//	503  inference after shutdown began
//
// # gRPC
//
// inference.GRPCInferenceService from the protocol's grpc_predict_v2.proto
// (vendored in inferencepb with its Apache-2.0 licence, generated code
// committed), the same checks and outputs: inputs from the typed contents
// of their datatype or from raw_input_contents (little-endian, and then
// the outputs come back in raw_output_contents: INT64 labels or FP64);
// the request parameters decision and probability are bool_params. A
// request of the common form (one input, fp32_contents or one
// raw_input_contents entry, no parameters or outputs named) is read from
// its wire bytes straight into the pooled rows (grpcwire.go); any other is
// unmarshalled by protobuf, with the same answers. Codes:
// INVALID_ARGUMENT where REST says 400 or 413, NOT_FOUND for 404,
// UNAVAILABLE for a model not ready or a server draining,
// RESOURCE_EXHAUSTED past the in-flight bound (and, from gRPC itself, for
// a message past the size cap). The standard grpc.health.v1 service
// reports SERVING while the server is ready.
//
// gRPC runs over an HTTP/2 connection loop of the package's own
// (grpch2.go, with x/net/http2's framer and HPACK), serving the services'
// generated descriptions: a small unary call is read, answered and written
// (HEADERS, DATA and trailers in one write) by the connection's reader
// goroutine, with none of grpc-go's server's goroutine hand-offs (reader,
// stream worker, writer), each a wake-up: single-row p50 and server CPU a
// call 0.5-0.75x grpc-go's server's (examples/serve/README.md).
// Config.GRPCGo (svmgo serve --grpc-go) serves with grpc-go's server
// instead, with the same answers (TestGRPCTransportsAgree). A shutdown ends
// open streams (health watches) once the unary calls are answered, where
// grpc-go's waits for them until the drain timeout.
//
// # Batches and swaps
//
// A batch of 128 rows or more (of a linear model, also 2^17 values or
// more) is worked on by two goroutines when one of the server's helpers
// (GOMAXPROCS-1 of them) is idle: a raw FP32 batch, REST binary or gRPC
// raw, is predicted by the helper as its rows arrive while the request's
// goroutine reads and checks the rest, and a decoded one has its rows
// split between the two; the answer is the same bits as one goroutine's
// (batchstream.go). A new version is loaded, checked and warmed by the
// model directory's watcher goroutine, then swapped in; at the process's
// own CPU priority, not a lower one: a goroutine holds a scheduler P while
// it runs, so a loader the kernel keeps off a busy CPU would stall the
// requests waiting for that P (repository.go's open says what it cost).
//
// # Limits
//
// Limits caps the request size, the rows a request, the JSON depth, the
// requests in flight (refused at once, never queued) and the read, write
// and idle times. Addresses are loopback TCP or unix:PATH (mode 0660) by
// default; any other bind needs TLS or an explicit Config.Insecure.
// Shutdown drains: readiness goes false, new inferences get 503 /
// UNAVAILABLE, requests in flight finish.
//
// # Turns
//
// With Config.Workers > 0 (svmgo serve --workers; by default no queue)
// inference requests are worked on that many at a time, the others waiting
// for their turn first come first served (turns.go): Go's scheduler lets a
// connection whose client sends its next request before the last answer's
// goroutine parks be served again and again while other connections'
// requests wait in the kernel. A request whose rows are read from the
// connection while they are predicted (a REST binary batch, a gRPC batch
// started before its rows arrived) works without a turn.
// Config.SchedSlice (--sched-slice=100us) shortens the scheduler slice of
// the server's threads on Linux 6.12+, so that on a busy machine a thread
// woken by a request waits for a CPU about that long, not the kernel's
// default slice (1.4 ms on the benchmark machine).
//
// # Garbage collection
//
// A single-row gRPC call's connection loop allocates about 1.2 KB (HPACK's
// header fields), as REST's did before its requests of the common form
// were read without net/http's parser, while a small model's live heap
// stays under 1 MB: at the runtime's 4 MB least heap goal a collection
// ran every 50-75 ms at 8 requests in flight, and its pauses and mark
// assists were a visible part of the tail.
// Config.HeapFloor (svmgo serve --heap-floor-mib, 16 by default) raises
// GOGC's percentage while the live heap is small so that the goal is at
// least that floor (heapfloor.go): a quarter of the collections, for up to
// 12 MB more memory. It never lowers the percentage below the process's
// own GOGC and leaves GOGC=off alone.
//
// # Busy polling
//
// Config.BusyPoll (svmgo serve --busy-poll=50us) has each connection's
// reader, REST's and gRPC's connection loops, poll its socket without
// blocking for up to that long before it blocks (busypoll.go). On a
// virtual machine whose vCPUs are idle, a blocked reader lets its vCPU
// halt and the next request waits for the hypervisor to wake it: a
// single-row round trip is then slower on an idle machine than on a
// loaded one (examples/serve/README.md). A reader that polls reads an
// interactive client's next request without that wake-up, for up to the
// budget of CPU time a read. Off by default; at most 1 ms; at most
// GOMAXPROCS-1 connections poll at once (none with GOMAXPROCS 1), and a
// connection whose client paused past the budget is read by blocking
// until it sends within the budget again.
//
// # Imports
//
// It may import core, core/simd (the check of a batch's values for NaN and
// infinities), core/modelfile, daemon/modeldir, daemon/buildinfo, its
// generated inferencepb, google.golang.org/grpc and /protobuf,
// golang.org/x/net/http2, golang.org/x/sys/unix; it
// predicts through core.Model only, never a kind's own type.
package serve
