#!/usr/bin/env bash
# serve_ab.sh — two svmgo binaries' serving side by side: examples/bench/
# servetime run on each in turn (A B A B ..., ROUNDS times each) on the same
# model and rows, so that a noisy machine's load falls on both alike; prints
# the median of each figure for A and B and the ratio B / A as a Markdown
# table.
#
#   A=old/svmgo B=bin/svmgo [ROUNDS=3] [SECONDS_EACH=1] bash examples/bench/serve_ab.sh
#
# A_BINARY=false leaves the binary tensor data batch out of A's runs (a
# binary from before the extension refuses it). Needs lib/libsvmgo.so (make)
# and $SVMGO_DATA/fashion.{train,test} (default ~/.cache/libsvmgo; without
# them the model is trained on synthetic rows).
set -euo pipefail

die() { echo "serve_ab.sh: $*" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
[[ -n ${A:-} && -n ${B:-} ]] || die "set A and B to the two svmgo binaries"
A=$(abs "$A") B=$(abs "$B")
export SVMGO_DATA=${SVMGO_DATA:-$HOME/.cache/libsvmgo}
ROUNDS=${ROUNDS:-3} SECONDS_EACH=${SECONDS_EACH:-1}
cd "$root"
[[ -f lib/libsvmgo.so ]] || die "lib/libsvmgo.so not found: run 'make' first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CC:-gcc}" -std=c99 -O2 -Iinclude examples/bench/capi_latency.c examples/c/libsvm_reader.c \
	-Llib -lsvmgo -Wl,-rpath,"$root/lib" -o "$tmp/capi_latency"
go build -o "$tmp/servetime" ./examples/bench/servetime
"$tmp/capi_latency" "$tmp" >/dev/null

echo "serve_ab.sh: load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq "$ROUNDS"); do
	for side in A B; do
		bin=$A extra=(-binary="${A_BINARY:-true}")
		[[ $side == B ]] && bin=$B extra=()
		echo "serve_ab.sh: round $r, $side" >&2
		"$tmp/servetime" -bin "$bin" -seconds "$SECONDS_EACH" -startup=false "${extra[@]}" "$tmp" |
			tr ' ' '\n' | sed "s/^/$side /" >>"$tmp/runs"
	done
done
echo "serve_ab.sh: load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

echo "| figure (median of $ROUNDS runs each, alternated) | A | B | B / A |"
echo "|---|---:|---:|---:|"
for k in rest_1_p50_us rest_1_p99_us rest_1_server_cpu_us rest_8_rps resthttp_1_p50_us grpc_1_p50_us grpc_1_p99_us \
	grpc_1_server_cpu_us grpc_8_rps grpclean_1_p50_us grpclean_1_p99_us grpclean_1_server_cpu_us grpclean_8_rps \
	echo_1_p50_us nethttp_1_p50_us nethttp_1_server_cpu_us grpcfloor_1_p50_us grpcleanfloor_1_p50_us grpcleanfloor_1_server_cpu_us \
	rest_1_excess_us rest_1_server_runq_us echo_1_excess_us \
	rest_batch_rows_per_s restbin_batch_rows_per_s restbinlean_batch_rows_per_s grpc_batch_rows_per_s echobin_batch_rows_per_s \
	rest_batch_inprocess_rows_per_s restbin_batch_server_cpu_us restbinlean_batch_server_cpu_us grpc_batch_server_cpu_us \
	grpc_1_p99_calm_us grpc_1_p99_swapping_us server_cpu_per_swap_us server_blocks_per_swap; do
	med() { sed -n "s/^$1 $k=//p" "$tmp/runs" | sort -g | awk '{v[NR] = $1} END { if (NR) print v[int((NR + 1) / 2)] }'; }
	a=$(med A) b=$(med B)
	awk -v k="$k" -v a="$a" -v b="$b" 'BEGIN {
		printf "| %s | %s | %s | %s |\n", k, (a == "" ? "–" : a), (b == "" ? "–" : b), (a == "" || b == "" || a == 0 ? "–" : sprintf("%.2f", b / a)) }'
done
