#!/usr/bin/env bash
# serve.sh — svmgo serve (the Open Inference Protocol over REST and gRPC)
# next to the in-process C ABI call on the same model and rows: single-row
# latency with 1 and 8 clients, 1000-row batch throughput (a small and a
# large model), p99 while versions are swapped in (50 and 8 a second),
# startup to ready with a 10 MB model, and the binary's size. Prints a Markdown table, also written to
# examples/bench/out/serve.md.
#
# Run by `make bench`, or after `make`:
#
#   SVMGO=bin/svmgo SVMGO_DATA=~/.cache/libsvmgo bash examples/bench/serve.sh
#
# Environment:
#   SVMGO       the svmgo binary (default bin/svmgo)
#   SVMGO_DATA  folder holding fashion.{train,test} (default ~/.cache/libsvmgo);
#               without them capi_latency trains on synthetic 784-feature data
#   SECONDS_EACH seconds of each single-row measurement (default 2)
#   CC          C compiler (default gcc)
#
# Steps: examples/bench/capi_latency.c trains a 10-class, 784-feature linear
# SVM through the ABI and times it (the floor), writing the model and rows;
# examples/bench/servetime serves that model with svmgo serve and times it
# through both protocols (see its header for what it measures), each
# batch request's rows timed through the C ABI just before it by a
# `capi_latency --child` process; then the same for a 3 MB RBF model
# (servetime -write-big) on the same rows.
set -euo pipefail

die() { echo "serve.sh: $*" >&2; exit 1; }
say() { echo "serve.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
SVMGO=$(abs "${SVMGO:-bin/svmgo}")
if [[ -n ${SVMGO_DATA:-} ]]; then SVMGO_DATA=$(abs "$SVMGO_DATA"); else SVMGO_DATA=$HOME/.cache/libsvmgo; fi
export SVMGO_DATA
cd "$root"
CC=${CC:-gcc}
SECONDS_EACH=${SECONDS_EACH:-2}
[[ -x $SVMGO ]] || die "$SVMGO not found: run 'make' first"
[[ -f lib/libsvmgo.so ]] || die "lib/libsvmgo.so not found: run 'make' first"
command -v wrk >/dev/null && command -v h2load >/dev/null || die "needs wrk and h2load (Debian's wrk and nghttp2-client: make bench-deps)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kv() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

say "building the C benchmark and examples/bench/servetime"
"$CC" -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Iinclude \
	examples/bench/capi_latency.c examples/c/libsvm_reader.c \
	-Llib -lsvmgo -Wl,-rpath,"$root/lib" -o "$tmp/capi_latency"
go build -o "$tmp/servetime" ./examples/bench/servetime

say "C ABI, in process (trains on 2000 rows, then about 10 s of timing)"
c=$("$tmp/capi_latency" "$tmp")
say "svmgo serve, REST and gRPC, and the floors (about $((SECONDS_EACH * 23)) s, then a 10 MB model)"
s=$("$tmp/servetime" -bin "$SVMGO" -capi "$tmp/capi_latency" -seconds "$SECONDS_EACH" "$tmp")
say "p99 while swapping at the acceptance soak's rate (a version every 120 ms: 500 in 60 s)"
soak=$("$tmp/servetime" -bin "$SVMGO" -seconds "$SECONDS_EACH" -only swap -publish-every 120ms "$tmp" | tr ' ' '\n' | sed 's/^/soak_/' | tr '\n' ' ')
say "large model: a 3 MB RBF model (1000 support vectors), 1000-row batches"
"$tmp/servetime" -write-big "$tmp/big" "$tmp"
big=$({ "$tmp/capi_latency" --batch "$tmp/big"
	"$tmp/servetime" -bin "$SVMGO" -capi "$tmp/capi_latency" -only restbin_batch,restbinlean_batch,grpc_batch,grpclean_batch "$tmp/big"; } |
	tr ' ' '\n' | sed 's/^/big_/' | tr '\n' ' ')
all="$c $s $soak $big"
f() { kv "$all" "$1"; }
fmt() { awk -v v="$(f "$1")" 'BEGIN { printf "%.1f", v }'; }
us() { awk -v v="$(f "$1")" 'BEGIN { printf "%.2f", v / 1e3 }'; }
mrows() { awk -v v="$(f "$1")" 'BEGIN { printf "%.3f", v / 1e6 }'; }
krows() { awk -v v="$(f "$1")" 'BEGIN { printf "%.1f", v / 1e3 }'; }
ratio() { awk -v a="$(f "$1")" -v b="$(f "$2")" 'BEGIN { printf "%.2f", a / b }'; }
goal() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g ? "met" : "not met") }'; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
load=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "Model: linear SVM \`-s 1 -B 1\`, $(f features) features, 10 classes (capi_latency's, on $(f data));"
	echo "single rows cycle through the first 100 test rows. Clients run in one Go process on loopback;"
	echo "each request is timed alone, from its first byte written to its answer's last byte read."
	echo "REST is timed with a lean HTTP/1.1 client (a kept-alive connection, the request written in one"
	echo "call, the answer read by its Content-Length, as curl or a C client does) and with Go's net/http"
	echo "client, whose connection goroutines add two goroutine hops to each round trip. gRPC likewise, with"
	echo "grpc-go's client (a writer and a reader goroutine a connection) and with a lean client (one HTTP/2"
	echo "connection, a call's HEADERS and DATA frames written in one call, the answer's frames read by the"
	echo "calling goroutine, as a C++ synchronous client does). Load average at the start: $load."
	echo
	echo "Several clients as the serving world measures them (Triton's perf_analyzer --concurrency-range N,"
	echo "wrk -c N): one event-driven load generator, one thread, keeping N requests in flight on N connections,"
	echo "each sent as soon as its connection's answer came: nghttp2's h2load (\`h2load --h1 -c N\` for REST, the"
	echo "first row's JSON; \`h2load -c N -m 1\` for gRPC, its ModelInferRequest; each request's time from its"
	echo "log) and wrk (\`wrk -t 1 -c N\`, the 100 rows' JSON in turn; its histogram, which adds the requests a"
	echo "stalled connection would have sent: its correction for coordinated omission). The lean clients' 8-client"
	echo "rows are 8 goroutines of one Go process, so 8 client threads' worth of runnable work on 2 vCPUs."
	echo
	echo "The last two columns weigh the tail: the mean time a request took past the median, and the time the"
	echo "server's and the client's threads waited on a run queue for a CPU (another process had it), a request."
	echo
	echo "| single row, label | clients | p50 µs | p99 µs | p99 / p50 | requests/s | server CPU µs a request | client CPU µs a request | past p50 µs a request | run-queue wait µs a request, server / client |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	echo "| C ABI \`svmgo_predict_dense_f32\`, in process | 1 | $(us dense_median_ns) | $(us dense_p99_ns) | $(ratio dense_p99_ns dense_median_ns) | – | – | – | – | – |"
	row() { # row NAME KEY CLIENTS
		echo "| $1 | $3 | $(fmt ${2}_${3}_p50_us) | $(fmt ${2}_${3}_p99_us) | $(ratio ${2}_${3}_p99_us ${2}_${3}_p50_us) | $(fmt ${2}_${3}_rps) | $(fmt ${2}_${3}_server_cpu_us) | $(fmt ${2}_${3}_client_cpu_us) | $(fmt ${2}_${3}_excess_us) | $(fmt ${2}_${3}_server_runq_us) / $(fmt ${2}_${3}_client_runq_us) |"
	}
	for p in rest resthttp h2loadh1 wrk grpc grpclean h2load; do
		case $p in rest) name="REST, lean client" ;; resthttp) name="REST, Go net/http client" ;;
		h2loadh1) name="REST, one load generator (h2load --h1)" ;; wrk) name="REST, one load generator (wrk)" ;;
		grpc) name="gRPC, grpc-go client" ;; grpclean) name="gRPC, lean client" ;; h2load) name="gRPC, one load generator (h2load)" ;; esac
		for n in 1 8; do row "$name" $p $n; done
	done
	echo
	echo "Floors, measured in the same run by the same clients against servers that do no work (a process"
	echo "of servetime's own on loopback):"
	echo
	echo "| floor | clients | p50 µs | p99 µs | p99 / p50 | requests/s | server CPU µs a request | client CPU µs a request | past p50 µs a request | run-queue wait µs a request, server / client |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	row "TCP echo: reads the request by its Content-Length, writes svmgo serve's answer bytes (lean client)" echo 1
	row "net/http server with serve's timeouts, the same answer (lean client)" nethttp 1
	row "grpc-go server, generated code, a fixed one-label answer (grpc-go client)" grpcfloor 1
	row "the same grpc-go server (lean gRPC client)" grpcleanfloor 1
	echo
	diff() { awk -v a="$(f "$1")" -v b="$(f "$2")" 'BEGIN { printf "%.1f", a - b }'; }
	echo "Of REST's single-client p50 ($(fmt rest_1_p50_us) µs), the machine (kernel loopback, wake-ups, the Go runtime: the"
	echo "echo floor) is $(fmt echo_1_p50_us) µs and svmgo serve's connection loop and handler $(diff rest_1_p50_us echo_1_p50_us) µs more (a net/http"
	echo "server, which serve does not use, adds $(diff nethttp_1_p50_us echo_1_p50_us) µs to the echo doing nothing); Go's net/http client"
	echo "adds $(diff resthttp_1_p50_us rest_1_p50_us) µs. gRPC's p50 is $(ratio grpc_1_p50_us grpcfloor_1_p50_us)× grpc-go's own floor ($(fmt grpcfloor_1_p50_us) µs) with grpc-go's"
	echo "client, $(ratio grpclean_1_p50_us grpcleanfloor_1_p50_us)× it ($(fmt grpcleanfloor_1_p50_us) µs) with the lean client; grpc-go's client adds $(diff grpc_1_p50_us grpclean_1_p50_us) µs."
	echo "(svmgo serve answers gRPC on an HTTP/2 loop of its own, daemon/serve/grpch2.go; --grpc-go serves with grpc-go's server.)"
	echo
	echo "| 1000-row batch | small model: million rows/s | the C ABI's call alongside | vs it | vs the Go API alongside | large model: thousand rows/s | the C ABI's call alongside | vs it | vs the Go API alongside |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	echo "| C ABI, 1000-row calls, in process (capi_latency, before the servers run) | $(mrows batch1000_rows_per_s) | – | – | – | $(krows big_batch1000_rows_per_s) | – | – | – |"
	echo "| C ABI, one call over 10000 rows, in process (capi_latency, before the servers run) | $(mrows batch_rows_per_s) | – | – | – | $(krows big_batch_rows_per_s) | – | – | – |"
	for p in rest restbin restbinlean grpc grpclean echobin; do
		case $p in rest) name="REST (JSON)" ;; restbin) name="REST (binary tensor data extension)" ;;
		restbinlean) name="REST (binary tensor data), lean client" ;; grpc) name="gRPC (raw_input_contents)" ;;
		grpclean) name="gRPC (raw_input_contents), lean client" ;;
		echobin) name="floor: the binary request's bytes to the TCP echo (lean client)" ;; esac
		large="– | – | – | –"
		case $p in restbin | restbinlean | grpc | grpclean)
			large="$(krows big_${p}_batch_rows_per_s) | $(krows big_${p}_batch_capi_rows_per_s) | $(ratio big_${p}_batch_rows_per_s big_${p}_batch_capi_rows_per_s) | $(ratio big_${p}_batch_rows_per_s big_${p}_batch_inprocess_rows_per_s)" ;;
		esac
		echo "| $name | $(mrows ${p}_batch_rows_per_s) | $(mrows ${p}_batch_capi_rows_per_s) | $(ratio ${p}_batch_rows_per_s ${p}_batch_capi_rows_per_s) | $(ratio ${p}_batch_rows_per_s ${p}_batch_inprocess_rows_per_s) | $large |"
	done
	echo
	echo "The small model is capi_latency's linear one (32 KB); the large one a two-class RBF model of 1000"
	echo "support vectors (3.1 MB: a row costs 100 times the small one's multiply-adds), on the same rows."
	echo "Two floors, each timed on the request's 1000 rows just before it (medians of 21), so that both share"
	echo "its load: the C ABI's call (\`svmgo_predict_dense_f32\`, labels), by a \`capi_latency --child\` process on"
	echo "the same model and rows; and the Go API (PredictDenseBatch, which the server runs; for a linear model"
	echo "it is not the C ABI's path, which computes float64 decision values first). 1000 rows (3.1 MB) stay in"
	echo "cache; capi_latency's own timings before the servers run are in the first two rows. Binary"
	echo "REST is timed with Go's net/http client and with the lean client (the whole request written in one"
	echo "call; the labels checked against the in-process ones); the echo floor reads the same request by its"
	echo "Content-Length into a 64 KB buffer and answers: moving the rows over loopback alone, no server work."
	echo "gRPC likewise with grpc-go's client (which copies the message to marshal it, clearing a pooled buffer"
	echo "first, and hands it to its writer goroutine 64 KB at a time) and with the lean client (the request"
	echo "marshalled before the clock starts, its DATA in 16 KB frames written in one call). A batch of 128 rows"
	echo "or more is checked and predicted on two cores when the server has an idle helper (daemon/serve/doc.go)."
	echo
	echo "| gRPC, 1 client | p99 µs |"
	echo "|---|---:|"
	echo "| no swaps | $(fmt grpc_1_p99_calm_us) |"
	echo "| while a publisher process publishes a version every 20 ms ($(f swaps_per_s) swaps/s; timed from the first version it published being served) | $(fmt grpc_1_p99_swapping_us) |"
	echo "| no swaps (a second run) | $(fmt soak_grpc_1_p99_calm_us) |"
	echo "| while a version is published every 120 ms, the acceptance soak's rate (500 in 60 s; $(f soak_swaps_per_s) swaps/s) | $(fmt soak_grpc_1_p99_swapping_us) |"
	echo
	echo "A swap costs the server $(fmt server_cpu_per_swap_us) µs of CPU and $(f server_blocks_per_swap) blocking waits of its threads (wake-ups; the"
	echo "publisher alone, no requests: the watcher's events, its scan, reading, checking and decoding the file,"
	echo "warming the new version, the swap, and the Go runtime's sysmon, which polls every 20 µs while a thread works)."
	echo
	echo "Startup to ready (process start to the first 200 of /v2/health/ready) with a"
	echo "$(awk -v b="$(f startup_model_bytes)" 'BEGIN { printf "%.1f", b / 1e6 }') MB kernel model: $(f startup_ms) ms; to the answer of a first inference sent then"
	echo "(the model's prediction tables are built by then): $(f startup_first_answer_ms) ms (medians of 5)."
	echo "served binary (svmgo-daemon when make built bin/svmgo): $(awk -v b="$(f binary_bytes)" 'BEGIN { printf "%.1f", b / 1048576 }') MiB."
	echo
	echo "Goals: gRPC single-row p50 ≤ 100 µs: $(goal "$(f grpclean_1_p50_us)" 100) (lean client; grpc-go's client: $(goal "$(f grpc_1_p50_us)" 100));"
	echo "REST ≤ 150 µs: $(goal "$(f rest_1_p50_us)" 150) (with Go's net/http client: $(goal "$(f resthttp_1_p50_us)" 150));"
	echo "p99 ≤ 3× p50 (1 client, lean clients): REST $(goal "$(ratio rest_1_p99_us rest_1_p50_us)" 3), gRPC $(goal "$(ratio grpclean_1_p99_us grpclean_1_p50_us)" 3) (grpc-go's client: $(goal "$(ratio grpc_1_p99_us grpc_1_p50_us)" 3));"
	echo "8 clients, one load generator with 8 in flight (h2load): REST $(goal "$(ratio h2loadh1_8_p99_us h2loadh1_8_p50_us)" 3) ($(ratio h2loadh1_8_p99_us h2loadh1_8_p50_us)×; wrk's,"
	echo "corrected for coordinated omission, $(ratio wrk_8_p99_us wrk_8_p50_us)×), gRPC $(goal "$(ratio h2load_8_p99_us h2load_8_p50_us)" 3) ($(ratio h2load_8_p99_us h2load_8_p50_us)×); a request was passed by (p99) $(f h2loadh1_8_overtaken_p99) / $(f h2load_8_overtaken_p99)"
	echo "requests sent after it (REST / gRPC; 0 when answered first come first served);"
	echo "batch ≥ 50% of in-process (the C ABI's call alongside, small / large model; the Go API alongside, small):"
	for p in restbin restbinlean grpc grpclean; do
		case $p in restbin) name="REST binary" ;; restbinlean) name="REST binary, lean client" ;;
		grpc) name="gRPC raw" ;; grpclean) name="gRPC raw, lean client" ;; esac
		echo "$name $(goal 0.5 "$(ratio ${p}_batch_rows_per_s ${p}_batch_capi_rows_per_s)") / $(goal 0.5 "$(ratio big_${p}_batch_rows_per_s big_${p}_batch_capi_rows_per_s)");" \
			"$(goal 0.5 "$(ratio ${p}_batch_rows_per_s ${p}_batch_inprocess_rows_per_s)");"
	done
	echo "REST JSON $(goal 0.5 "$(ratio rest_batch_rows_per_s rest_batch_capi_rows_per_s)"); $(goal 0.5 "$(ratio rest_batch_rows_per_s rest_batch_inprocess_rows_per_s)")"
	echo "(the TCP echo of the binary request's bytes alone: $(ratio echobin_batch_rows_per_s echobin_batch_capi_rows_per_s) of the C ABI's call, $(ratio echobin_batch_rows_per_s echobin_batch_inprocess_rows_per_s) of the Go API's);"
	echo "p99 while swapping ≤ 1.1× without: $(goal "$(ratio grpc_1_p99_swapping_us grpc_1_p99_calm_us)" 1.1) ($(ratio grpc_1_p99_swapping_us grpc_1_p99_calm_us)× at 50 a second),"
	echo "$(goal "$(ratio soak_grpc_1_p99_swapping_us soak_grpc_1_p99_calm_us)" 1.1) ($(ratio soak_grpc_1_p99_swapping_us soak_grpc_1_p99_calm_us)× at the soak's 8 a second);"
	echo "startup ≤ 50 ms: $(goal "$(f startup_ms)" 50)."
	echo
	echo "- Machine: $(nproc) CPU(s)${cpu:+, $cpu}; $(go env GOVERSION); $(date -u +%Y-%m-%d)."
} >"$tmp/serve.md"

mkdir -p examples/bench/out
cp "$tmp/serve.md" examples/bench/out/serve.md
cat "$tmp/serve.md"
say "table written to examples/bench/out/serve.md"
