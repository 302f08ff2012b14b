#!/usr/bin/env bash
# smo.sh — svmgo's SMO training against LIBSVM's svm-train (issue 13): per
# core CPU time, 2-core wall time and peak memory, side by side, written as
# a Markdown table to examples/bench/out/smo.md.
#
# Run by `make bench`, or by hand after `make build`:
#
#   bash examples/bench/smo.sh
#
# Environment:
#   SHARED       folder of the shared data sets (default: ../shared/data)
#   SVMGO_DATA   folder holding fashion.train (default: ~/.cache/libsvmgo)
#   SVMGO        the svmgo binary (default: bin/svmgo)
#   RUNS         runs per measurement, alternating svm-train and svmgo, median
#                quoted (default: 3)
#   BENCH_CASES  cases to run, space or comma separated (default: all of
#                shuttle digits fashion10k fashion10k-binary heart_scale
#                breast_cancer diabetes)
#
# Whole commands (shuttle -c 100 -g 1, digits with the defaults, the first
# 10,000 rows of Fashion-MNIST with -c 10 -g 0.03 -m 200, and the same rows
# with labels 0-4 -> +1, 5-9 -> -1):
#   per core  CPU time (user+sys, /usr/bin/time) of `svm-train OPTS` and
#             `svmgo train OPTS`, both pinned with taskset -c 0;
#   2 cores   wall time of the same commands, unpinned;
#   memory    peak RSS (/usr/bin/time %M) of the unpinned runs.
# In-process (heart_scale, breast_cancer, diabetes -s 3: a run takes about a
# millisecond, below what a process timing resolves): examples/bench/smotime.c
# (libsvm-dev's svm_train, built here with -lsvm) and examples/bench/smotime
# (svmgo's KernelTrainer) each train repeatedly for a CPU second, pinned with
# taskset -c 0, and report CPU time per training; memory as above from the
# whole commands.
#
# Goals (issue 13): per core <= 0.6x and 2-core wall <= 0.4x svm-train;
# peak memory <= svm-train's + 8 MiB.
set -euo pipefail

die() { echo "smo.sh: $*" >&2; exit 1; }
say() { echo "smo.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${SHARED:-} ]]; then shared=$(abs "$SHARED"); else shared=$(abs "$root/../shared/data"); fi
if [[ -n ${SVMGO_DATA:-} ]]; then fdata=$(abs "$SVMGO_DATA"); else fdata=$HOME/.cache/libsvmgo; fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
runs=${RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: want a positive integer"
cases=${BENCH_CASES:-shuttle digits fashion10k fashion10k-binary heart_scale breast_cancer diabetes}
cases=${cases//,/ }
cd "$root"

[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
for t in svm-train taskset /usr/bin/time gcc go; do
	command -v "$t" >/dev/null || die "$t not found"
done
[[ -r /usr/include/libsvm/svm.h ]] || die "libsvm-dev not installed (/usr/include/libsvm/svm.h)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -o "$tmp/smotime_c" examples/bench/smotime.c -lsvm -lm || die "cannot build smotime.c"
go build -o "$tmp/smotime_go" ./examples/bench/smotime || die "cannot build examples/bench/smotime"

# median: the median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# timed OUT CMD...: run CMD, append "cpu wall maxrss_kb" to OUT.
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S %e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; die "failed: $*"; }
	awk '{ printf "%.3f %.3f %d\n", $1 + $2, $3, $4 }' "$tmp/t" >>"$out"
}

# data and options of a case
setup() {
	case $1 in
	shuttle) file=$shared/shuttle.train opts="-c 100 -g 1" ;;
	digits) file=$shared/digits.train opts="" ;;
	fashion10k | fashion10k-binary)
		[[ -r $fdata/fashion.train ]] || return 1
		file=$tmp/f10k.train opts="-c 10 -g 0.03 -m 200"
		[[ -e $file ]] || head -n 10000 "$fdata/fashion.train" >"$file"
		if [[ $1 == fashion10k-binary ]]; then
			file=$tmp/f10kbin.train
			[[ -e $file ]] || awk '{ $1 = ($1 < 5) ? "+1" : "-1"; print }' "$tmp/f10k.train" >"$file"
		fi
		;;
	heart_scale) file=$shared/heart_scale opts="" ;;
	breast_cancer) file=$shared/breast_cancer.train opts="" ;;
	diabetes) file=$shared/diabetes.train opts="-s 3" ;;
	*) die "unknown case '$1'" ;;
	esac
	[[ -r $file ]]
}

rows=()
for c in $cases; do
	if ! setup "$c"; then
		say "skipping $c: data not found"
		continue
	fi
	say "$c: $runs runs each"
	rm -f "$tmp"/{lc,gc,lw,gw,li,gi}
	for ((r = 0; r < runs; r++)); do
		# shellcheck disable=SC2086 # opts are words
		timed "$tmp/lw" svm-train -q $opts "$file" "$tmp/l.model"
		# shellcheck disable=SC2086
		timed "$tmp/gw" "$svmgo" train -q $opts "$file" "$tmp/g.model"
		case $c in heart_scale | breast_cancer | diabetes)
			# shellcheck disable=SC2086
			taskset -c 0 "$tmp/smotime_c" $opts "$file" | awk '{ print $1 / 1e9 }' >>"$tmp/li"
			# shellcheck disable=SC2086
			taskset -c 0 "$tmp/smotime_go" $opts "$file" | awk '{ print $1 / 1e9 }' >>"$tmp/gi"
			;;
		*)
			# shellcheck disable=SC2086
			timed "$tmp/lc" taskset -c 0 svm-train -q $opts "$file" "$tmp/l.model"
			# shellcheck disable=SC2086
			timed "$tmp/gc" taskset -c 0 "$svmgo" train -q $opts "$file" "$tmp/g.model"
			;;
		esac
	done
	if [[ -e $tmp/li ]]; then
		lcpu=$(median <"$tmp/li") gcpu=$(median <"$tmp/gi") how="in-process"
	else
		lcpu=$(cut -d' ' -f1 "$tmp/lc" | median) gcpu=$(cut -d' ' -f1 "$tmp/gc" | median) how="command"
	fi
	lwall=$(cut -d' ' -f2 "$tmp/lw" | median) gwall=$(cut -d' ' -f2 "$tmp/gw" | median)
	lmem=$(cut -d' ' -f3 "$tmp/lw" | median) gmem=$(cut -d' ' -f3 "$tmp/gw" | median)
	lsv=$(awk '$1 == "total_sv" { print $2 }' "$tmp/l.model")
	gsv=$("$svmgo" inspect "$tmp/g.model" | awk '$1 == "total_sv" { print $2 }')
	rows+=("$(awk -v c="$c" -v o="${opts:-defaults}" -v how="$how" -v lc="$lcpu" -v gc="$gcpu" -v lw="$lwall" -v gw="$gwall" \
		-v lm="$lmem" -v gm="$gmem" -v ls="$lsv" -v gs="$gsv" 'BEGIN {
		pc = (lc > 0) ? gc / lc : 0
		wall = sprintf("%.3g / %.3g s | **%.2f**", gw, lw, (lw > 0) ? gw / lw : 0)
		if (how == "in-process") wall = "n/a (too short) | n/a"
		printf "| %s | `%s` | %s | %.4g / %.4g s | **%.2f** | %s | %.1f / %.1f MiB | %+.1f | %s / %s |",
			c, o, how, gc, lc, pc, wall, gm / 1024, lm / 1024, (gm - lm) / 1024, gs, ls }')")
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
	echo "SMO training, svmgo against Debian's svm-train ($(dpkg-query -W -f '${Version}' libsvm-tools 2>/dev/null || echo '?'))"
	echo
	echo "| data | options | per-core timing | per core svmgo / svm-train | ratio | 2 cores wall svmgo / svm-train | ratio | peak memory svmgo / svm-train | difference MiB | total SV svmgo / LIBSVM |"
	echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "- per core: CPU time (user+sys) pinned with \`taskset -c 0\`; \"in-process\" rows time"
	echo "  one training in the process (smotime.c with libsvm-dev's svm_train, examples/bench/smotime"
	echo "  with svmgo's trainer), a CPU second of repeated trainings each."
	echo "- 2 cores: wall time of the whole command, unpinned; peak memory: /usr/bin/time %M of the"
	echo "  same runs. Medians of $runs runs, svm-train and svmgo alternating."
	echo "- Goals (issue 13): per core <= 0.6, 2-core wall <= 0.4, memory <= svm-train + 8 MiB."
	echo "- Machine: $(nproc) CPU(s)${cpu:+, $cpu}; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg);"
	echo "  $(go env GOVERSION 2>/dev/null || echo go); $(date -u +%Y-%m-%d)."
} >"$tmp/smo.md"
mkdir -p examples/bench/out
cp "$tmp/smo.md" examples/bench/out/smo.md
cat "$tmp/smo.md"
say "table written to examples/bench/out/smo.md"
