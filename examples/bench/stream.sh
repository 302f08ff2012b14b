#!/usr/bin/env bash
# stream.sh — warm against cold kernel retrains in a stream that keeps the
# store full: per batch, the oldest 1% of the rows leave and the next 1% of
# the file come in, then the trainer retrains warm from its last dual state
# and, for comparison, cold on the same rows. examples/bench/streamtime
# does this as the C ABI trainer does (core.NewDenseTrainer over dense
# rows, Dual.DeleteRows and Dual.Extended) and prints per-batch rows and a
# total; this script runs it on each case and writes a Markdown table of
# the totals, then each case's per-batch table, to
# examples/bench/out/stream.md.
#
# Run by `make bench`, or by hand from the repository root:
#
#   bash examples/bench/stream.sh
#
# Environment:
#   SHARED        folder of the shared data (default: ../shared/data)
#   SVMGO_DATA    folder holding fashion.train (default: ~/.cache/libsvmgo);
#                 the Fashion cases are skipped without it
#   BATCHES       batches per stream (default: 10)
#   FASHION_ROWS  rows of the Fashion subsets (default: 5000)
#   KEEP_MB       -M, MiB of support vectors' kernel columns kept between
#                 warm retrains (default: 0, none), for every case but
#                 Fashion's; the work columns count what keeping them costs
#   FASHION_KEEP_MB  -M for the Fashion cases (default: 200): on 784 features
#                 a kernel value costs more than reading a kept one
#   STREAM_CASES  cases to run (default: all): shuttle digits digits-oneclass
#                 diabetes-svr fashion-pair fashion10
#
# Every run is pinned to CPU 0 (taskset) with GOMAXPROCS=1 and timed in CPU
# seconds around each Train call. Kernel evaluations (cache misses) are the
# noise-free measure of work. The first fit of the store is not counted.
# "obj" is the largest relative difference of the dual objective, warm
# against cold, over the batches.
set -euo pipefail

die() { echo "stream.sh: $*" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
shared=${SHARED:-$root/../shared/data}
fdata=${SVMGO_DATA:-$HOME/.cache/libsvmgo}
batches=${BATCHES:-10}
frows=${FASHION_ROWS:-5000}
keep=${KEEP_MB:-0}
fkeep=${FASHION_KEEP_MB:-200}
cases=${STREAM_CASES:-shuttle digits digits-oneclass diabetes-svr fashion-pair fashion10}
[[ $batches =~ ^[1-9][0-9]*$ ]] || die "BATCHES=$batches: want a positive integer"
[[ $frows =~ ^[1-9][0-9]*$ ]] || die "FASHION_ROWS=$frows: want a positive integer"
[[ -r $shared/shuttle.train ]] || die "missing $shared/shuttle.train (set SHARED)"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/streamtime" ./examples/bench/streamtime
mkdir -p examples/bench/out

# setup CASE sets file, opts, name and m (-M); returns 1 when the data is
# missing.
setup() {
	m=$keep
	case $1 in
	shuttle) file=$shared/shuttle.train opts="-c 100 -g 1" name=shuttle ;;
	digits) file=$shared/digits.train opts="" name=digits ;;
	digits-oneclass) file=$shared/digits.train opts="-s 2 -n 0.1" name="digits one-class" ;;
	diabetes-svr) file=$shared/diabetes.train opts="-s 3 -c 100 -p 5" name="diabetes ε-SVR" ;;
	fashion-pair | fashion10)
		[[ -r $fdata/fashion.train ]] || return 1
		file=$tmp/fashion.train opts="-c 10 -g 0.03 -m 200" m=$fkeep
		[[ -e $file ]] || head -n "$frows" "$fdata/fashion.train" >"$file"
		name="Fashion ${frows}, 10 classes"
		if [[ $1 == fashion-pair ]]; then
			file=$tmp/fashion-pair.train name="Fashion ${frows}, two classes (0–4 against 5–9)"
			[[ -e $file ]] || awk '{ $1 = ($1 < 5) ? "+1" : "-1"; print }' "$tmp/fashion.train" >"$file"
		fi
		;;
	*) die "unknown case '$1'" ;;
	esac
	[[ -r $file ]]
}

details=$tmp/details.md
{
	echo "Warm against cold kernel retrains with the store full: per batch 1% of the rows out (the oldest),"
	echo "1% in, through the C ABI trainer's path (examples/bench/streamtime; one core, CPU seconds;"
	echo "load average $(cut -d' ' -f1 /proc/loadavg) at the start). -M: MiB of kernel columns kept between retrains;"
	echo "the first retrain with -M computes them (its cost is in the totals)."
	echo
	echo "| data | options (with -M) | store | batches × rows | cold CPU s (total) | CPU warm/cold | kernel evals warm/cold | obj |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|"
	for c in $cases; do
		if ! setup "$c"; then
			echo "stream.sh: $c: data missing, skipped" >&2
			continue
		fi
		read -ra optv <<<"$opts"
		out=$(GOMAXPROCS=1 "${pin[@]}" "$tmp/streamtime" --mode stream --batches "$batches" --name "$name" -M "$m" "${optv[@]}" "$file")
		grep '^TOTAL' <<<"$out" | sed 's/^TOTAL|/|/'
		{
			echo
			echo "$name (\`-M $m $opts\`):"
			echo
			grep '^|' <<<"$out"
		} >>"$details"
	done
	cat "$details"
} | tee examples/bench/out/stream.md
