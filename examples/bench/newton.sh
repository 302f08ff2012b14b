#!/usr/bin/env bash
# newton.sh — the primal Newton solvers (-s 0, -s 2, -s 11) against upstream
# LIBLINEAR 2.50's train, whole commands, on every shared data set (and
# Fashion-MNIST when built): per core (CPU time pinned to one core), 2-core
# wall time and peak memory. Prints a Markdown table, also written to
# examples/bench/out/newton.md.
#
#   LIBLINEAR250=/path/to/liblinear-2.50/train bash examples/bench/newton.sh
#
# LIBLINEAR 2.50 is not Debian's (2.3.0): build cjlin1/liblinear at tag v250
# with its own Makefile, outside this repository. Without LIBLINEAR250 the
# script says so and exits 0 (make bench goes on).
#
# Environment:
#   LIBLINEAR250  LIBLINEAR 2.50's train binary (required to run)
#   SHARED        the shared data folder (default: ../shared/data from the root)
#   SVMGO_DATA    folder holding fashion.{train,test} (default: ~/.cache/libsvmgo)
#   SVMGO         the svmgo binary (default: bin/svmgo, built by `make build`)
#   RUNS          runs per measurement, alternating the tools, median (default 3)
#   BENCH_SETS    data sets to run (default: heart_scale breast_cancer digits
#                 diabetes debdesc_bin shuttle fashion)
#
# What is measured, per data set and options:
#   per core   CPU time (user + sys) of the whole command (read, train, write),
#              both pinned with taskset -c 0; svmgo / LIBLINEAR (the small
#              sets time 20 runs in a row, digits 5, and divide)
#   2 cores    wall time of the whole command, unpinned; svmgo / LIBLINEAR
#   memory     peak RSS (/usr/bin/time %M) of the unpinned runs, MiB
#   work       Newton iterations and CG steps (Hessian-vector products),
#              summed over the decision functions: noise-free
set -euo pipefail

die() { echo "newton.sh: $*" >&2; exit 1; }
if [[ -z ${LIBLINEAR250:-} ]]; then
	echo "newton.sh: LIBLINEAR250 is not set (LIBLINEAR 2.50's train binary): skipped" >&2
	exit 0
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
liblinear=$(abs "$LIBLINEAR250")
if [[ -n ${SHARED:-} ]]; then SHARED=$(abs "$SHARED"); else SHARED=$(cd "$root/.." && pwd)/shared/data; fi
if [[ -n ${SVMGO_DATA:-} ]]; then SVMGO_DATA=$(abs "$SVMGO_DATA"); else SVMGO_DATA=$HOME/.cache/libsvmgo; fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
runs=${RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: want a positive integer"
[[ -x $liblinear ]] || die "$liblinear is not executable"
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
for t in taskset /usr/bin/time; do [[ -x $(command -v "$t") ]] || die "$t not found"; done
cd "$root"
mkdir -p examples/bench/out
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# timed OUT CMD...: appends "cpu wall maxrss_kib" of CMD, run $inner times
# in a row (small sets: one run is below the clock's 10 ms), to OUT, the
# times per run.
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S %e %M' -o "$tmp/t" bash -c 'for ((k = 0; k < $0; k++)); do "$@" || exit; done' \
		"$inner" "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; die "failed: $*"; }
	awk -v n="$inner" '{ printf "%.4f %.4f %d\n", ($1 + $2) / n, $3 / n, $4 }' "$tmp/t" >>"$out"
}

# bench LABEL TRAIN "OPTIONS"
rows=()
bench() {
	local label=$1 train=$2 opts=$3
	[[ -r $train ]] || { echo "newton.sh: no $train: $label skipped" >&2; return; }
	rm -f "$tmp"/{lc,gc,lw,gw}
	for ((r = 0; r < runs; r++)); do
		# shellcheck disable=SC2086
		timed "$tmp/lc" taskset -c 0 "$liblinear" $opts "$train" "$tmp/l.model"
		# shellcheck disable=SC2086
		timed "$tmp/gc" taskset -c 0 "$svmgo" train-linear -q $opts "$train" "$tmp/g.model"
		# shellcheck disable=SC2086
		timed "$tmp/lw" "$liblinear" $opts "$train" "$tmp/l.model"
		cp "$tmp/log" "$tmp/l.log"
		# shellcheck disable=SC2086
		timed "$tmp/gw" "$svmgo" train-linear $opts "$train" "$tmp/g.model"
		cp "$tmp/log" "$tmp/g.log"
	done
	local lc gc lw gw lm gm lwork gwork
	lc=$(cut -d' ' -f1 "$tmp/lc" | median) gc=$(cut -d' ' -f1 "$tmp/gc" | median)
	lw=$(cut -d' ' -f2 "$tmp/lw" | median) gw=$(cut -d' ' -f2 "$tmp/gw" | median)
	lm=$(cut -d' ' -f3 "$tmp/lw" | median) gm=$(cut -d' ' -f3 "$tmp/gw" | median)
	# LIBLINEAR prints a line "iter N ... CG K" a Newton step; svmgo one
	# line a decision function (daemon/cmd/svmgo/train.go).
	lwork=$(awk '/^iter/ { n++; for (k = 1; k < NF; k++) if ($k == "CG") cg += $(k + 1) } END { printf "%d/%d", n / reps, cg / reps }' reps="$inner" "$tmp/l.log")
	gwork=$(grep -o '#Newton iter = [0-9]*, #Hessian-vector products = [0-9]*' "$tmp/g.log" | tr -d ',' |
		awk -v k="$inner" '{ n += $4; cg += $8 } END { printf "%d/%d", n / k, cg / k }')
	rows+=("$(awk -v l="$label" -v o="$opts" -v lc="$lc" -v gc="$gc" -v lw="$lw" -v gw="$gw" -v lm="$lm" -v gm="$gm" \
		-v lwork="$lwork" -v gwork="$gwork" 'BEGIN {
		printf "| %s | `%s` | %.2f (%.3f / %.3f s) | %.2f (%.3f / %.3f s) | %.1f / %.1f (%+.1f) | %s / %s |\n",
			l, o, gc / lc, gc, lc, gw / lw, gw, lw, gm / 1024, lm / 1024, (gm - lm) / 1024, gwork, lwork }')")
	echo "${rows[-1]}" >&2
}

sets=${BENCH_SETS:-heart_scale breast_cancer digits diabetes debdesc_bin shuttle fashion}
for s in $sets; do
	inner=1
	case $s in heart_scale | breast_cancer | diabetes) inner=20 ;; digits) inner=5 ;; esac
	case $s in
	heart_scale) f=$SHARED/heart_scale ;;
	fashion) f=$SVMGO_DATA/fashion.train ;;
	diabetes)
		# -e 0.001 for both: svmgo's default for -s 11 is LIBLINEAR 2.3's,
		# 2.50's is 0.0001.
		bench diabetes "$SHARED/diabetes.train" "-s 11 -e 0.001"
		continue
		;;
	*) f=$SHARED/$s.train ;;
	esac
	bench "$s" "$f" "-s 0"
	bench "$s" "$f" "-s 2"
done

{
	echo "| data | options | per core | 2-core wall | peak memory (MiB) | Newton iterations / CG steps |"
	echo "|---|---|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "svmgo / LIBLINEAR 2.50 ($liblinear), whole commands, median of $runs alternating runs;"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Goals (issue 25): per core ≤ 0.6,"
	echo "2-core wall ≤ 0.4, memory ≤ LIBLINEAR's + 4 MiB."
} | tee examples/bench/out/newton.md
