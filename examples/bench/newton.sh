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
#   RUNS          rounds per measurement (default 3): each tool runs RUNS
#                 times (the small sets 50 x RUNS, digits 10 x RUNS), the two
#                 alternating run by run, and the median is taken
#   MEM_RUNS      /usr/bin/time runs of each tool for peak memory (default 1)
#   BENCH_SETS    data sets to run (default: heart_scale breast_cancer digits
#                 diabetes debdesc_bin shuttle fashion)
#
# What is measured, per data set and options (examples/bench/proctime times
# each run from wait4's rusage and the monotonic clock, to the microsecond:
# the small sets run 2-5 ms, which /usr/bin/time would count in 10 ms ticks):
#   per core   CPU time (user + sys, every thread) of the whole command
#              (exec, read, train, write, exit), both pinned with
#              taskset -c 0; svmgo / LIBLINEAR
#   2 cores    wall time of the whole command, unpinned, from just before the
#              fork to the reaped exit; svmgo / LIBLINEAR
#   memory     peak RSS (/usr/bin/time %M) of unpinned runs, MiB
#              (proctime's children start as vfork copies of proctime, whose
#              own peak would floor theirs)
#   work       Newton iterations and CG steps (Hessian-vector products),
#              summed over the decision functions: noise-free
# Both tools print their reports (no -q), to /dev/null.
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
runs=${RUNS:-3} memruns=${MEM_RUNS:-1}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: want a positive integer"
[[ $memruns =~ ^[1-9][0-9]*$ ]] || die "MEM_RUNS=$memruns: want a positive integer"
[[ -x $liblinear ]] || die "$liblinear is not executable"
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
for t in taskset /usr/bin/time go; do [[ -x $(command -v "$t") ]] || die "$t not found"; done
cd "$root"
mkdir -p examples/bench/out
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/proctime" ./examples/bench/proctime || die "cannot build examples/bench/proctime"
load0=$(cut -d' ' -f1-3 /proc/loadavg)

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# field NAME N: the value of NAME= on proctime's line for command N.
field() { awk -v k="cmd=$2" -v f="$1" '$1 == k { for (i = 2; i <= NF; i++) if (index($i, f "=") == 1) print substr($i, length(f) + 2) }' "$tmp/pt"; }

# bench LABEL TRAIN "OPTIONS"
rows=()
bench() {
	local label=$1 train=$2 opts=$3
	[[ -r $train ]] || { echo "newton.sh: no $train: $label skipped" >&2; return; }
	local n=$((runs * inner)) lc gc lw gw lm gm lwork gwork
	mkdir -p "$tmp/logs"
	# shellcheck disable=SC2086
	taskset -c 0 "$tmp/proctime" -runs "$n" -- "$liblinear" $opts "$train" "$tmp/l.model" \
		--- "$svmgo" train-linear $opts "$train" "$tmp/g.model" >"$tmp/pt" || die "failed: $label $opts"
	lc=$(field cpu_ms 1) gc=$(field cpu_ms 2)
	# shellcheck disable=SC2086
	"$tmp/proctime" -runs "$n" -logs "$tmp/logs" -- "$liblinear" $opts "$train" "$tmp/l.model" \
		--- "$svmgo" train-linear $opts "$train" "$tmp/g.model" >"$tmp/pt" || die "failed: $label $opts"
	lw=$(field wall_ms 1) gw=$(field wall_ms 2)
	rm -f "$tmp"/{lm,gm}
	for ((r = 0; r < memruns; r++)); do
		# shellcheck disable=SC2086
		/usr/bin/time -f %M -o "$tmp/m" "$liblinear" $opts "$train" "$tmp/l.model" >/dev/null 2>&1 || die "failed: $liblinear"
		cat "$tmp/m" >>"$tmp/lm"
		# shellcheck disable=SC2086
		/usr/bin/time -f %M -o "$tmp/m" "$svmgo" train-linear $opts "$train" "$tmp/g.model" >/dev/null 2>&1 || die "failed: $svmgo"
		cat "$tmp/m" >>"$tmp/gm"
	done
	lm=$(median <"$tmp/lm") gm=$(median <"$tmp/gm")
	# LIBLINEAR prints a line "iter N ... CG K" a Newton step; svmgo one
	# line a decision function (daemon/cmd/svmgo/train.go).
	lwork=$(awk '/^iter/ { n++; for (k = 1; k < NF; k++) if ($k == "CG") cg += $(k + 1) } END { printf "%d/%d", n, cg }' "$tmp/logs/1.log")
	gwork=$(grep -o '#Newton iter = [0-9]*, #Hessian-vector products = [0-9]*' "$tmp/logs/2.log" | tr -d ',' |
		awk '{ n += $4; cg += $8 } END { printf "%d/%d", n, cg }')
	rows+=("$(awk -v l="$label" -v o="$opts" -v lc="$lc" -v gc="$gc" -v lw="$lw" -v gw="$gw" -v lm="$lm" -v gm="$gm" \
		-v lwork="$lwork" -v gwork="$gwork" 'BEGIN {
		printf "| %s | `%s` | %.2f (%.3f / %.3f ms) | %.2f (%.3f / %.3f ms) | %.1f / %.1f (%+.1f) | %s / %s |\n",
			l, o, gc / lc, gc, lc, gw / lw, gw, lw, gm / 1024, lm / 1024, (gm - lm) / 1024, gwork, lwork }')")
	echo "${rows[-1]}" >&2
}

sets=${BENCH_SETS:-heart_scale breast_cancer digits diabetes debdesc_bin shuttle fashion}
for s in $sets; do
	inner=1
	case $s in heart_scale | breast_cancer | diabetes) inner=50 ;; digits) inner=10 ;; esac
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
	echo "svmgo / LIBLINEAR 2.50 ($liblinear), whole commands, medians of runs alternating run by run"
	echo "(RUNS=$runs: the small sets $((50 * runs)), digits $((10 * runs)), the others $runs), timed by proctime;"
	echo "load average at the start: $load0, at the end: $(cut -d' ' -f1-3 /proc/loadavg). Goals (issue 25): per core ≤ 0.6,"
	echo "2-core wall ≤ 0.4, memory ≤ LIBLINEAR's + 4 MiB."
} | tee examples/bench/out/newton.md
