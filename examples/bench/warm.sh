#!/usr/bin/env bash
# warm.sh — what a warm start saves when rows are added to a linear training
# set: examples/bench/warmtime trains the first 90% (then 99%) of debdesc_bin
# cold, then all of it cold and warm, alternating, and prints a Markdown
# table, also written to examples/bench/out/warm.md.
#
# Run by `make bench`, or by hand from the repository root:
#
#   bash examples/bench/warm.sh
#
# Environment:
#   DATA   LIBSVM file (default: core/testdata/debdesc_bin.train)
#   RUNS   cold and warm runs per row, median taken (default: 5)
#
# Every run is pinned to CPU 0 (taskset) and timed in CPU seconds, which a
# loaded machine disturbs less than wall time; the wall ratio is given too.
set -euo pipefail

die() { echo "warm.sh: $*" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${DATA:-} ]]; then data=$(abs "$DATA"); else data=$root/core/testdata/debdesc_bin.train; fi
runs=${RUNS:-5}
cd "$root"
[[ -r $data ]] || die "missing $data (set DATA to a LIBSVM file)"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: want a positive integer"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/warmtime" ./examples/bench/warmtime

{
	echo "Warm against cold training on $(basename "$data"): the first part of the rows trained cold,"
	echo "then all of them cold and warm (median of $runs alternating runs, one core)."
	echo
	echo "| options | first part | cold CPU s | warm CPU s | CPU warm/cold | wall warm/cold | Hv cold | Hv warm | Hv warm/cold | rows read warm/cold | objective (warm − cold)/cold | cold (f − f*)/f* | warm (f − f*)/f* |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for opts in "-s 2" "-s 2 -e 0.001" "-s 1 -twin 1" "-s 1 -twin 1 -e 0.01"; do
		for frac in 0.9 0.99; do
			read -ra optv <<<"$opts"
			"${pin[@]}" "$tmp/warmtime" -frac "$frac" -runs "$runs" "${optv[@]}" "$data"
		done
	done
	# The dual solvers keep DCD's warm start from α.
	for opts in "-s 1" "-s 3"; do
		read -ra optv <<<"$opts"
		"${pin[@]}" "$tmp/warmtime" -frac 0.9 -runs "$runs" -start alpha "${optv[@]}" "$data"
	done
	echo
	echo "- Warm: started from the first model's w (core.PrimalOf, as the daemon and the C ABI"
	echo "  trainer do) for the primal Newton method (-s 2, and -s 1 -twin 1: -s 1 through its"
	echo "  primal twin, at 0.1 × its -e); from the first run's α for -s 1 and -s 3 by DCD."
	echo "- CPU: user+system seconds of the Train call; wall: its elapsed time (same runs)."
	echo "- Hv: Hessian-vector products of TRON (n/a for DCD); rows read: TrainResult.Updates."
	echo "- f*: the primal objective of a cold run at -e/1000, standing for the optimum."
	echo "- The primal stopping rule ‖∇f(w)‖ ≤ eps·‖∇f(0)‖ (LIBLINEAR's) bounds the objective"
	echo "  only loosely (f − f* ≤ ½‖∇f‖²): a cold run ends well inside it, its last Newton"
	echo "  step landing far below the threshold, while a warm start stops as soon as it is"
	echo "  inside, or at once if its w already is (99% at the default -e: no Newton step)."
	echo "  At -e 0.001 (-s 1: 0.01) warm and cold agree to a few 1e-6."
	echo "- Machine: $(nproc) CPU(s); load $(cut -d' ' -f1-3 /proc/loadavg); $(go env GOVERSION); $(date -u +%Y-%m-%d)."
} >"$tmp/warm.md"
mkdir -p examples/bench/out
cp "$tmp/warm.md" examples/bench/out/warm.md
cat "$tmp/warm.md"
