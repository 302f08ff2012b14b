#!/usr/bin/env bash
# serve_latency.sh — svmgo serve's single-row latency and its 8-client tail
# under the settings that move them, side by side: each variant is a run of
# examples/bench/servetime, the variants alternated (A B C .. A B C ..)
# ROUNDS times so that a noisy machine's load falls on each alike; prints
# the median of each figure a variant (examples/serve/README.md, "Single-row
# latency", reads it).
#
#   [ROUNDS=3] [SECONDS_EACH=2] [CASES="idle tail gen swap"] [PACED_RATE=1000] [FIFO=20] bash examples/bench/serve_latency.sh
#
# FIFO=N runs svmgo serve, the floors and the load generators under
# SCHED_FIFO priority N (servetime -fifo N; needs CAP_SYS_NICE), so that on
# a machine shared with other work they are not preempted by it; runs are
# serialized on /tmp/fifo.lock (two Go processes at one FIFO priority can
# livelock on two CPUs: servetime/fifo.go). Under FIFO no thread of the
# benchmark preempts another either, which is most of the 8-in-flight tail
# under the default scheduler (examples/serve/README.md): say which was used.
# The --sched-slice variants set the server's threads back to SCHED_OTHER
# (sched_setattr with a slice), so under FIFO they time a server that other
# processes and the FIFO generator preempt, not the slice alone.
#
# Needs `make` (bin/svmgo, bin/svmgo-daemon, lib/libsvmgo.so) and
# $SVMGO_DATA/fashion.{train,test} (default ~/.cache/libsvmgo; without them
# the model is trained on synthetic rows). SVMGO picks another binary.
#
# CASES:
#   idle  one client, single rows (REST and gRPC, lean clients; the TCP echo
#         floor; the same over unix sockets): svmgo serve as is; with
#         --busy-poll=50us; with --grpc-go (gRPC by grpc-go's server instead of
#         serve's own HTTP/2 loop); with GOMAXPROCS=1; and "kept busy": as is
#         while two nice-19 spinners (one a CPU) keep the vCPUs from halting,
#         so that no request waits for a halted vCPU's wake-up (the figure a
#         loaded machine gives; not a setting to use). On an idle machine the
#         difference between "as is" and "kept busy" is what the wake-ups
#         cost; on a loaded one the two are alike. Last, "paced": as is, the
#         client sending a request every 2 ms instead of back to back, so that
#         client and server block between requests on any machine (a pause
#         longer than --busy-poll's budget: polling cannot help it).
#   tail  eight clients, single rows: clients as goroutines of one process
#         (serve.sh's); the same with that process at GOMAXPROCS=1 (one
#         thread runs the clients, so the client process does not hold both
#         vCPUs); the same with the server's and the clients' threads given
#         a 100 µs scheduler slice (Linux 6.12+'s EEVDF custom slice; the
#         default slice here is 1.4 ms, about the 8-client p99: a thread
#         woken while another runs can wait that long); as eight processes
#         (GOMAXPROCS 1 each, as separate client programs); the same with the
#         server at GOMAXPROCS=1; with the 100 µs slices; and each client process
#         paced to PACED_RATE requests a second (default 1000: 8000/s
#         together, about half of what back-to-back clients reach here)
#         instead of back to back, as callers of a sidecar send. Beside each:
#         svmgo serve's own p99 (its /metrics histogram's bucket) and the
#         shares of requests past 1 ms as the server and as the clients timed
#         them.
#   gen   eight in flight from one load generator, as the serving
#         world measures concurrency (h2load --h1 and wrk for REST, h2load
#         for gRPC; examples/bench/servetime/loadgen.go): svmgo serve as is
#         (no queue: each connection's goroutine works as soon as it has
#         read a request); with one turn (--workers=1, GOMAXPROCS-1 here:
#         inference first come first served, daemon/serve/turns.go); the
#         two with the server's threads given a 100 µs
#         scheduler slice (--sched-slice=100us, Linux 6.12+: a thread woken
#         on a busy machine waits about that long for a CPU, not the
#         default 1.4 ms); and that with the generator's threads given the
#         same slice (-client-slice). Beside each: how many
#         requests sent after a request were answered before it (p99; 0
#         when answered in the order sent). Then echo-floor: the same
#         generators against servetime's TCP echo server, the method's own
#         p99 / p50 with no server work.
#   swap  one gRPC client's p99 without and while a publisher process
#         publishes a version every 20 ms (serve.sh's figure: 5 rounds of
#         each, alternated, SECONDS_EACH/2 a round, medians): as is; with the
#         publisher publishing into a directory the server does not follow
#         (the publisher's own cost: no swaps); and with the server's garbage
#         collector off (GOGC=off: a swap allocates about 67 KB, one more
#         collection a second at 45 swaps a second, next to about 5 a second
#         from the requests of one client at 9,000 a second); and with
#         server, client and publisher on one CPU (so GOMAXPROCS 1) shared
#         with a spinner at the same priority, a device busy with other
#         work: a loader the kernel keeps off the CPU holds the server's
#         only P (a loader at nice 19 made that p99 4-6x). Beside each: the
#         server's threads' run-queue wait a request and its own p99 (its
#         histogram's bucket), without and with swaps: a swap's cost inside
#         the handler, or in the waits for a CPU around it. "every-120ms"
#         publishes at the acceptance soak's rate (500 versions in 60 s).
set -euo pipefail

die() { echo "serve_latency.sh: $*" >&2; exit 1; }
say() { echo "serve_latency.sh: $*" >&2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
SVMGO=$(abs "${SVMGO:-bin/svmgo}")
export SVMGO_DATA=${SVMGO_DATA:-$HOME/.cache/libsvmgo}
ROUNDS=${ROUNDS:-3} SECONDS_EACH=${SECONDS_EACH:-2} CASES=${CASES:-idle tail gen swap} PACED_RATE=${PACED_RATE:-1000}
cd "$root"
[[ -x $SVMGO ]] || die "$SVMGO not found: run 'make' first"
[[ -f lib/libsvmgo.so ]] || die "lib/libsvmgo.so not found: run 'make' first"

tmp=$(mktemp -d)
spinners=()
stop_spinners() {
	((${#spinners[@]})) && kill "${spinners[@]}" 2>/dev/null || true
	spinners=()
}
trap 'stop_spinners; rm -rf "$tmp"' EXIT
"${CC:-gcc}" -std=c99 -O2 -Iinclude examples/bench/capi_latency.c examples/c/libsvm_reader.c \
	-Llib -lsvmgo -Wl,-rpath,"$root/lib" -o "$tmp/capi_latency"
go build -o "$tmp/servetime" ./examples/bench/servetime
"$tmp/capi_latency" "$tmp" >/dev/null

# run NAME ARGS...: one servetime run (under $wrap, a command prefix, when
# set), its figures appended to runs as "NAME key=value" lines.
wrap=
fifo=() fifoarg=()
if [[ -n ${FIFO:-} ]]; then
	fifo=(flock /tmp/fifo.lock) fifoarg=(-fifo "$FIFO")
fi
run() {
	local name=$1
	shift
	say "$name"
	$wrap "${fifo[@]}" "$tmp/servetime" "${fifoarg[@]}" -bin "$SVMGO" -seconds "$SECONDS_EACH" -swap-rounds 0 "$@" "$tmp" |
		tr ' ' '\n' | sed "s/^/$name /" >>"$tmp/runs"
}
idle=(-only rest,grpclean,echo,echounix -unix -clients 1)
tail=(-only rest,grpclean -clients 8)
gen=(-only h2loadh1,wrk,h2load -clients 8)
genfloor=(-only h2loadh1echo,wrkecho -clients 8)
swap=(-only swap -swap-rounds 5)

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$ROUNDS"); do
	say "round $r of $ROUNDS"
	if [[ " $CASES " == *" idle "* ]]; then
		run "as-is" "${idle[@]}"
		run "busy-poll" "${idle[@]}" -server-args --busy-poll=50us
		run "grpc-go" "${idle[@]}" -server-args --grpc-go
		run "GOMAXPROCS=1" "${idle[@]}" -server-env GOMAXPROCS=1
		for cpu in $(seq 0 $(($(nproc) - 1))); do
			nice -n 19 taskset -c "$cpu" bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
			spinners+=($!)
		done
		run "kept-busy" "${idle[@]}"
		stop_spinners
		run "paced" "${idle[@]}" -client-rate 500
	fi
	if [[ " $CASES " == *" tail "* ]]; then
		run "goroutines" "${tail[@]}"
		GOMAXPROCS=1 run "goroutines,one-client-thread" "${tail[@]}" -server-env "GOMAXPROCS=$(nproc)"
		run "goroutines,slice=100us" "${tail[@]}" -server-slice 100us -client-slice 100us
		run "processes" "${tail[@]}" -client-procs
		run "processes,GOMAXPROCS=1" "${tail[@]}" -client-procs -server-env GOMAXPROCS=1
		run "processes,slice=100us" "${tail[@]}" -client-procs -server-slice 100us -client-slice 100us
		run "processes,paced" "${tail[@]}" -client-procs -client-rate "$PACED_RATE"
	fi
	if [[ " $CASES " == *" gen "* ]]; then
		run "generator" "${gen[@]}"
		run "generator,turns" "${gen[@]}" -server-args --workers=1
		run "generator,--sched-slice=100us" "${gen[@]}" -server-args --sched-slice=100us
		run "generator,--sched-slice=100us,turns" "${gen[@]}" -server-args "--sched-slice=100us --workers=1"
		run "generator,--sched-slice=100us,client-slice=100us" "${gen[@]}" -server-args --sched-slice=100us -client-slice 100us
		run echo-floor "${genfloor[@]}"
	fi
	if [[ " $CASES " == *" swap "* ]]; then
		run "swap" "${swap[@]}"
		run "swap,every-120ms" "${swap[@]}" -publish-every 120ms
		run "swap,publisher-only" "${swap[@]}" -publish-unserved
		run "swap,GOGC=off" "${swap[@]}" -server-env GOGC=off
		taskset -c 0 bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
		spinners+=($!)
		wrap="taskset -c 0" run "swap,one-busy-cpu" "${swap[@]}"
		stop_spinners
	fi
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

med() { # med NAME KEY: the median over the rounds
	sed -n "s/^$1 $2=//p" "$tmp/runs" | sort -g | awk '{v[NR] = $1} END { if (NR) print v[int((NR + 1) / 2)]; else print "–" }'
}
echo "Load average at the start: $load0; at the end: $load1. Medians of $ROUNDS alternated runs, $SECONDS_EACH s each measurement."
if [[ " $CASES " == *" idle "* ]]; then
	echo
	echo "| one client, single row | p50 µs REST / gRPC / echo | p99 µs REST / gRPC / echo | unix socket p50 µs REST / gRPC / echo | server CPU µs a request REST / gRPC | server blocks a request REST / gRPC |"
	echo "|---|---:|---:|---:|---:|---:|"
	for v in as-is busy-poll grpc-go GOMAXPROCS=1 kept-busy paced; do
		echo "| $v | $(med $v rest_1_p50_us) / $(med $v grpclean_1_p50_us) / $(med $v echo_1_p50_us) |" \
			"$(med $v rest_1_p99_us) / $(med $v grpclean_1_p99_us) / $(med $v echo_1_p99_us) |" \
			"$(med $v restunix_1_p50_us) / $(med $v grpcleanunix_1_p50_us) / $(med $v echounix_1_p50_us) |" \
			"$(med $v rest_1_server_cpu_us) / $(med $v grpclean_1_server_cpu_us) |" \
			"$(med $v rest_1_server_blocks) / $(med $v grpclean_1_server_blocks) |"
	done
fi
if [[ " $CASES " == *" tail "* ]]; then
	echo
	echo "| 8 clients, single row | REST p50 / p99 µs | REST p99 / p50 | gRPC p50 / p99 µs | gRPC p99 / p50 | requests/s REST / gRPC | server's own p99 ≤ µs REST / gRPC | past 1 ms, server / clients, REST | past 1 ms, server / clients, gRPC | run-queue wait µs a request, server / clients, REST |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for v in goroutines goroutines,one-client-thread goroutines,slice=100us processes processes,GOMAXPROCS=1 processes,slice=100us processes,paced; do
		ratio() { awk -v a="$(med $v "$1")" -v b="$(med $v "$2")" 'BEGIN { printf "%.2f", a / b }'; }
		echo "| $v | $(med $v rest_8_p50_us) / $(med $v rest_8_p99_us) | $(ratio rest_8_p99_us rest_8_p50_us) |" \
			"$(med $v grpclean_8_p50_us) / $(med $v grpclean_8_p99_us) | $(ratio grpclean_8_p99_us grpclean_8_p50_us) |" \
			"$(med $v rest_8_rps) / $(med $v grpclean_8_rps) | $(med $v rest_8_server_p99_le_us) / $(med $v grpclean_8_server_p99_le_us) |" \
			"$(med $v rest_8_server_over_1ms) / $(med $v rest_8_client_over_1ms) | $(med $v grpclean_8_server_over_1ms) / $(med $v grpclean_8_client_over_1ms) |" \
			"$(med $v rest_8_server_runq_us) / $(med $v rest_8_client_runq_us) |"
	done
fi
if [[ " $CASES " == *" gen "* ]]; then
	echo
	echo "| 8 in flight from one load generator, single row | REST h2load p50 / p99 µs | p99 / p50 | REST wrk p50 / p99 µs | p99 / p50 | gRPC h2load p50 / p99 µs | p99 / p50 | requests/s REST / gRPC | passed by (p99) REST / gRPC | server CPU µs a request REST / gRPC | server run-queue wait µs a request REST / gRPC |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for v in generator generator,turns generator,--sched-slice=100us generator,--sched-slice=100us,turns generator,--sched-slice=100us,client-slice=100us echo-floor; do
		g=h2loadh1 w=wrk
		[[ $v == echo-floor ]] && g=h2loadh1echo w=wrkecho
		ratio() { awk -v a="$(med $v "$1")" -v b="$(med $v "$2")" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else printf "–" }'; }
		echo "| $v | $(med "$v" ${g}_8_p50_us) / $(med "$v" ${g}_8_p99_us) | $(ratio ${g}_8_p99_us ${g}_8_p50_us) |" \
			"$(med "$v" ${w}_8_p50_us) / $(med "$v" ${w}_8_p99_us) | $(ratio ${w}_8_p99_us ${w}_8_p50_us) |" \
			"$(med $v h2load_8_p50_us) / $(med $v h2load_8_p99_us) | $(ratio h2load_8_p99_us h2load_8_p50_us) |" \
			"$(med $v ${g}_8_rps) / $(med $v h2load_8_rps) | $(med $v ${g}_8_overtaken_p99) / $(med $v h2load_8_overtaken_p99) |" \
			"$(med $v ${g}_8_server_cpu_us) / $(med $v h2load_8_server_cpu_us) | $(med $v ${g}_8_server_runq_us) / $(med $v h2load_8_server_runq_us) |"
	done
fi
if [[ " $CASES " == *" swap "* ]]; then
	echo
	echo "| one gRPC client (grpc-go's), p99 µs | no swaps | while publishing | ratio | swaps/s | server run-queue wait µs a request, no swaps / publishing | server's own p99 ≤ µs, no swaps / publishing |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for v in swap swap,every-120ms swap,publisher-only swap,GOGC=off swap,one-busy-cpu; do
		echo "| $v | $(med $v grpc_1_p99_calm_us) | $(med $v grpc_1_p99_swapping_us) |" \
			"$(awk -v a="$(med $v grpc_1_p99_swapping_us)" -v b="$(med $v grpc_1_p99_calm_us)" 'BEGIN { printf "%.2f", a / b }') | $(med $v swaps_per_s) |" \
			"$(med $v grpc_1_server_runq_calm_us) / $(med $v grpc_1_server_runq_swapping_us) | $(med $v grpc_1_server_p99_le_calm_us) / $(med $v grpc_1_server_p99_le_swapping_us) |"
	done
fi
