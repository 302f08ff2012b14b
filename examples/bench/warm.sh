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
	echo "| options | start | first part | cold CPU s | warm CPU s | CPU warm/cold | wall warm/cold | Hv cold | Hv warm | Hv warm/cold | rows read warm/cold | objective (warm − cold)/cold | cold (f − f*)/f* | warm (f − f*)/f* |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	row() { # start options...
		local start=$1 frac
		shift
		for frac in 0.9 0.99; do
			"${pin[@]}" "$tmp/warmtime" -frac "$frac" -runs "$runs" -start "$start" "$@" "$data"
		done
	}
	for opts in "-s 2" "-s 1 -twin 1" "-s 2 -B 1" "-s 2 -e 0.001"; do
		read -ra optv <<<"$opts"
		row state "${optv[@]}"
	done
	row w -s 2
	# What a restarted daemon has: the first run's α alone.
	for opts in "-s 2" "-s 2 -B 1"; do
		read -ra optv <<<"$opts"
		row alpha "${optv[@]}"
	done
	# The dual solvers keep DCD's warm start from α.
	for opts in "-s 1" "-s 3"; do
		read -ra optv <<<"$opts"
		"${pin[@]}" "$tmp/warmtime" -frac 0.9 -runs "$runs" -start alpha "${optv[@]}" "$data"
	done
	echo
	echo "- Start state: what the daemon and the C ABI trainer pass, the first run's dual with"
	echo "  the primal Newton method's state (LinearDual.Gradient: its exact w, ∇f, ∇f(0), ∇²f's"
	echo "  diagonal and loss over its rows, so the warm run reads only the rows added at its start) and"
	echo "  model's w, with a trainer that keeps that state for both runs; w: the first model's"
	echo "  w alone (core.PrimalOf), every row read at the start; alpha: the first run's α"
	echo "  alone (a restarted daemon's), DCD for -s 1 and -s 3, and for -s 2 the Newton method from w(α)"
	echo "  with the stiff coordinates w(α) = w − ∇f(w) lost restored (core/linear/primal_rebuild.go;"
	echo "  its passes and Hessian products counted). -s 1 -twin 1: -s 1 through its primal"
	echo "  twin, at 0.1 × its -e."
	echo "- CPU: user+system seconds of the in-process Train call (data read before);"
	echo "  wall: its elapsed time (same runs). Medians; pinned to one core."
	echo "- Hv: Hessian-vector products (CG steps) of the Newton method (n/a for DCD); rows read: TrainResult.Updates."
	echo "- f*: the primal objective of a cold run at -e/1000, standing for the optimum."
	echo "- A warm Newton run stops on LIBLINEAR's ‖∇f(w)‖ ≤ eps·‖∇f(0)‖ and, besides, on the"
	echo "  objective: ½∇fᵀD⁻¹∇f ≤ eps²·f (the Newton decrement with the Hessian's diagonal D),"
	echo "  since a cold run's last Newton step lands well inside the gradient test while a warm"
	echo "  start is inside at once (after 99% at the default -e it stopped 1.9e-3 above f*)."
	echo "  At the default -e the cold run (the line-search Newton method, as LIBLINEAR 2.50's)"
	echo "  is 9e-4 above f* here, the warm runs nearer: read the objective columns against f*."
	echo "- Machine: $(nproc) CPU(s); load $(cut -d' ' -f1-3 /proc/loadavg); $(go env GOVERSION); $(date -u +%Y-%m-%d)."
} >"$tmp/warm.md"
mkdir -p examples/bench/out
cp "$tmp/warm.md" examples/bench/out/warm.md
cat "$tmp/warm.md"
