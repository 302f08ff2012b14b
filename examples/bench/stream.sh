#!/usr/bin/env bash
# stream.sh — warm against cold retrains in a stream that keeps the store
# full: per batch, the oldest 1% of the rows leave and the next 1% of the
# file come in, then the trainer retrains warm from its last dual state
# and, for comparison, cold on the same rows. examples/bench/streamtime
# does this as the C ABI trainer does (core.NewDenseTrainer over dense
# rows for a kernel model, core.NewTrainer over sparse rows for a linear
# one, Dual.DeleteRows and Dual.Extended) and prints per-batch rows and a
# total; this script runs it on each case and writes a Markdown table of
# the totals, then each case's per-batch table under a heading "#### data
# options, path" (the row's first two cells, which readme_tables.py keys
# a case by), to examples/bench/out/stream.md.
#
# The same streams go through the other paths a user takes (PATHS):
# "capi", the C ABI trainer from Python (examples/bench/streamcapi.py:
# svmgo.Trainer, rows removed and added, a fresh Trainer cold); "partial_fit",
# the scikit-learn estimator's partial_fit (it appends only); "daemon",
# `svmgo watch` with --store.window keeping the store full (daemon.sh
# WINDOW, its warm retrains against --metrics.cold-every 1). Each path's
# totals are one row of the table; its per-batch table follows. The -M
# cases run in process only.
#
# The drift check: "obj", the largest relative difference of the
# objective (kernel: the dual; linear: the primal), warm against cold;
# "test rows changed", the most test rows (the .test file beside the
# .train one) whose prediction differs between a batch's warm and cold
# models: labels that differ, regression values further apart than 1e-4
# of the value (at least 1e-4).
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
#   FASHION_TEST_ROWS  rows of fashion.test for their drift check (default: 2000)
#   KEEP_MB       -M, MiB of support vectors' kernel columns kept between
#                 warm retrains (default: 0, none), for every case but
#                 Fashion's; the work columns count what keeping them costs
#   FASHION_KEEP_MB  -M for the Fashion cases (default: 200): on 784 features
#                 a kernel value costs more than reading a kept one; the
#                 capi, partial_fit (the estimators' kept_cache_size) and
#                 daemon paths get the case's -M too
#   SHUTTLE_KEEP_MB, DIGITS_KEEP_MB  -M for the cases shuttle-M (default: 400),
#                 digits-M, digits-oneclass-M and diabetes-svr-M (default: 20),
#                 in process
#   STREAM_CASES  cases to run (default: all): shuttle shuttle-M digits digits-M
#                 digits-oneclass digits-oneclass-M
#                 diabetes-svr diabetes-svr-M fashion-pair fashion10 debdesc_bin
#                 debdesc_bin-dcd debdesc_bin-s2 debdesc_bin-s0 digits-linear shuttle-10k
#                 shuttle-40k shuttle-160k (the store sizes: shuttle.train four times, the
#                 copies after the first with each value moved by up to ±0.001,
#                 174,000 rows, in a store of 10,000, 40,000 or 160,000 rows;
#                 the 160,000-row stream's last batches go on from the file's
#                 first rows, in process and through the daemon, daemon.sh);
#                 debdesc_bin is linear -s 1 as the daemon and the C ABI
#                 trainer train it (through its primal twin), debdesc_bin-dcd
#                 -s 1 -twin 0 (dual coordinate descent; not partial_fit,
#                 whose LinearSVC has no -twin), debdesc_bin-s2 and
#                 debdesc_bin-s0 the primals -s 2 and -s 0 (not partial_fit
#                 for -s 0); digits-linear -s 2 one-vs-rest over 10 classes,
#                 whose order of first appearance the removals change
#   PATHS         paths to run (default: process capi partial_fit daemon):
#                 process is the in-process one, the only one of the -M
#                 cases; a run of some paths keeps the README's rows of the
#                 others (readme_tables.py)
#   PYTHON        Python with numpy, scipy and scikit-learn (default: python3;
#                 capi and partial_fit are skipped without them)
#   SVMGO         the svmgo binary for the daemon path (default: bin/svmgo)
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
ftest=${FASHION_TEST_ROWS:-2000}
keep=${KEEP_MB:-0}
fkeep=${FASHION_KEEP_MB:-200}
skeep=${SHUTTLE_KEEP_MB:-400}
dkeep=${DIGITS_KEEP_MB:-20}
cases=${STREAM_CASES:-shuttle shuttle-M digits digits-M digits-oneclass digits-oneclass-M diabetes-svr diabetes-svr-M fashion-pair fashion10 debdesc_bin debdesc_bin-dcd debdesc_bin-s2 debdesc_bin-s0 digits-linear shuttle-10k shuttle-40k shuttle-160k}
paths=${PATHS:-process capi partial_fit daemon}
python=${PYTHON:-python3}
svmgo=${SVMGO:-$root/bin/svmgo}
[[ $batches =~ ^[1-9][0-9]*$ ]] || die "BATCHES=$batches: want a positive integer"
[[ $frows =~ ^[1-9][0-9]*$ ]] || die "FASHION_ROWS=$frows: want a positive integer"
[[ -r $shared/shuttle.train ]] || die "missing $shared/shuttle.train (set SHARED)"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/streamtime" ./examples/bench/streamtime
mkdir -p examples/bench/out

# setup CASE sets file, test (the .test file beside it, or none), opts,
# name, m (-M), store (0: the path's default) and linear; returns 1 when the
# data is missing.
setup() {
	m=$keep store=0 linear=0
	case $1 in
	shuttle) file=$shared/shuttle.train opts="-c 100 -g 1" name=shuttle ;;
	digits) file=$shared/digits.train opts="" name=digits ;;
	digits-oneclass) file=$shared/digits.train opts="-s 2 -n 0.1" name="digits one-class" ;;
	shuttle-M) file=$shared/shuttle.train opts="-c 100 -g 1" name=shuttle m=$skeep ;;
	digits-M) file=$shared/digits.train opts="" name=digits m=$dkeep ;;
	digits-oneclass-M) file=$shared/digits.train opts="-s 2 -n 0.1" name="digits one-class" m=$dkeep ;;
	shuttle-10k | shuttle-40k | shuttle-160k)
		file=$tmp/shuttle4.train opts="-c 100 -g 1"
		store=${1#shuttle-}
		store=$((${store%k} * 1000))
		name="shuttle×4, store $store"
		[[ -e $file ]] || for c in 0 1 2 3; do
			awk -v c=$c 'BEGIN { srand(21 + c) } {
				printf "%s", $1
				for (i = 2; i <= NF; i++) { split($i, a, ":"); v = a[2]; if (c > 0) v += (rand() - 0.5) * 0.002; printf " %s:%.6g", a[1], v }
				print "" }' "$shared/shuttle.train"
		done >"$file"
		;;
	diabetes-svr) file=$shared/diabetes.train opts="-s 3 -c 100 -p 5" name="diabetes ε-SVR" ;;
	diabetes-svr-M) file=$shared/diabetes.train opts="-s 3 -c 100 -p 5" name="diabetes ε-SVR" m=$dkeep ;;
	debdesc_bin) file=$shared/debdesc_bin.train opts="-s 1" name=debdesc_bin linear=1 ;;
	debdesc_bin-dcd) file=$shared/debdesc_bin.train opts="-s 1 -twin 0" name=debdesc_bin linear=1 ;;
	debdesc_bin-s2) file=$shared/debdesc_bin.train opts="-s 2" name=debdesc_bin linear=1 ;;
	debdesc_bin-s0) file=$shared/debdesc_bin.train opts="-s 0" name=debdesc_bin linear=1 ;;
	digits-linear) file=$shared/digits.train opts="-s 2" name=digits linear=1 ;;
	fashion-pair | fashion10)
		[[ -r $fdata/fashion.train ]] || return 1
		file=$tmp/fashion.train opts="-c 10 -g 0.03 -m 200" m=$fkeep
		[[ -e $file ]] || head -n "$frows" "$fdata/fashion.train" >"$file"
		[[ -e $tmp/fashion.test || ! -r $fdata/fashion.test ]] || head -n "$ftest" "$fdata/fashion.test" >"$tmp/fashion.test"
		name="Fashion ${frows}, 10 classes"
		if [[ $1 == fashion-pair ]]; then
			file=$tmp/fashion-pair.train name="Fashion ${frows}, two classes (0–4 against 5–9)"
			for f in train test; do
				[[ -e $tmp/fashion-pair.$f || ! -e $tmp/fashion.$f ]] ||
					awk '{ $1 = ($1 < 5) ? "+1" : "-1"; print }' "$tmp/fashion.$f" >"$tmp/fashion-pair.$f"
			done
		fi
		;;
	*) die "unknown case '$1'" ;;
	esac
	test=${file%.train}.test
	[[ $1 != shuttle-*k ]] || test=$shared/shuttle.test
	[[ -r $test ]] || test=
	[[ -r $file ]]
}

details=$tmp/details.md
# pathOK PATH: whether the path can run here (says why not on stderr).
pathOK() {
	case $1 in
	capi | partial_fit)
		if ! SVMGO_LIB=$root/lib/libsvmgo.so PYTHONPATH=$root/examples/python "$python" -c 'import numpy, scipy, sklearn, svmgo' 2>/dev/null; then
			echo "stream.sh: $1: $python lacks numpy, scipy or scikit-learn, or lib/libsvmgo.so is missing (make lib): skipped" >&2
			return 1
		fi
		;;
	daemon) [[ -x $svmgo ]] || { echo "stream.sh: daemon: $svmgo missing (make build): skipped" >&2; return 1; } ;;
	process) ;;
	*) die "unknown path '$1'" ;;
	esac
}
# inprocess: the stream of the case setup chose in process
# (streamtime); prints its table row and appends its per-batch table to
# $details.
inprocess() {
	local out row optv sopt=()
	read -ra optv <<<"$opts"
	((store == 0)) || sopt=(--store "$store")
	[[ -z $test ]] || sopt+=(--test "$test")
	if ((linear)); then sopt+=(--linear); else optv=(-M "$m" "${optv[@]}"); fi
	out=$(GOMAXPROCS=1 "${pin[@]}" "$tmp/streamtime" --mode stream --batches "$batches" "${sopt[@]}" --name "$name" "${optv[@]}" "$file")
	row=$(grep '^TOTAL' <<<"$out" | sed 's/^TOTAL|/|/')
	echo "$row"
	section "$row" "$out"
}
# section ROW TABLE: appends to $details the per-batch TABLE (lines of
# "|") of the case whose totals are ROW, under the heading readme_tables.py
# keys it by: "#### " and ROW's first two cells.
section() {
	{
		echo
		awk -F'|' '{ for (i = 2; i <= 3; i++) gsub(/^ +| +$/, "", $i); print "#### " $2 " " $3; exit }' <<<"$1"
		echo
		grep '^|' <<<"$2"
	} >>"$details"
}
# other CASE PATH: the stream of CASE through PATH; prints its table row and
# appends its per-batch table to $details.
other() {
	local out row rows per window kopts=$opts sopt=() topt=()
	if ((!linear)); then
		# The kernel columns kept (-M) as in process, where a case keeps any.
		kopts="-t 2${opts:+ $opts}"
		((m == 0)) || kopts="-t 2 -M $m${opts:+ $opts}"
	fi
	case $2 in
	capi | partial_fit)
		if [[ $2 == partial_fit && ($kopts == *-twin* || $1 == debdesc_bin-s0) ]]; then
			echo "stream.sh: $1: partial_fit: LinearSVC has no -twin nor -s 0: skipped" >&2
			return
		fi
		((store == 0)) || sopt=(--store "$store")
		[[ -z $test ]] || topt=(--test "$test")
		out=$(GOMAXPROCS=1 SVMGO_LIB=$root/lib/libsvmgo.so PYTHONPATH=$root/examples/python "${pin[@]}" \
			"$python" examples/bench/streamcapi.py --mode "$2" --batches "$batches" "${sopt[@]}" "${topt[@]}" \
			--name "$name" --options "$kopts" "$file")
		row=$(grep '^TOTAL' <<<"$out" | sed 's/^TOTAL|/|/')
		;;
	daemon)
		rows=$(wc -l <"$file")
		window=$store
		((window > 0)) || window=$((rows * 9 / 10))
		per=$((window / 100))
		GOMAXPROCS=1 "${pin[@]}" env SVMGO="$svmgo" WINDOW=$window BATCHES=$batches DATA="$file" \
			TRAIN_OPTIONS="$kopts" OUT=stream-daemon bash examples/bench/daemon.sh >"$tmp/daemon.out" 2>"$tmp/daemon.err" ||
			{ cat "$tmp/daemon.err" >&2; die "$1: the daemon stream failed"; }
		read -r tc cpu work obj whole <examples/bench/out/stream-daemon.total
		rm -f examples/bench/out/stream-daemon.total examples/bench/out/stream-daemon.md
		row="| $name | \`$kopts\` daemon | $window | $batches × $per | $tc | $cpu (batch $whole) | $work | $obj | |"
		out=$(grep '^|' "$tmp/daemon.out")
		;;
	esac
	echo "$row"
	section "$row" "$out"
}
{
	echo "Warm against cold retrains with the store full: per batch 1% of the rows out (the oldest),"
	echo "1% in. Paths: in process, the C ABI trainer's path in Go (examples/bench/streamtime); capi, the"
	echo "C ABI trainer from Python (svmgo.Trainer); partial_fit, the scikit-learn estimator (it only adds"
	echo "rows: the store grows by 1% a batch from 0.9 of the file); daemon, \`svmgo watch\` with"
	echo "\`--store.window\` (its solves timed by the CPU seconds it logs; \"batch\": its whole CPU for a batch, the"
	echo "store's commits and the publication too, against the cold solve). One core (taskset, GOMAXPROCS=1),"
	echo "CPU seconds; load average $(cut -d' ' -f1 /proc/loadavg) at the start. Work: kernel evaluations (kernel models),"
	echo "rows read (linear). -M: MiB of kernel columns kept between retrains, filled with the entries the"
	echo "retrains compute (the first retrain fills them, at a cold run's cost). obj: the largest relative"
	echo "difference of the objective (kernel: dual; linear: primal), warm against cold; test rows changed:"
	echo "the most test rows whose prediction differs between the warm and the cold model of a batch (labels;"
	echo "regression values further apart than 1e-4 of the value, at least 1e-4)."
	echo
	echo "| data | options, path | store | batches × rows | cold CPU s (total) | CPU warm/cold | work warm/cold | obj | test rows changed |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	ok=()
	for p in $paths; do
		if pathOK "$p"; then ok+=("$p"); fi
	done
	for c in $cases; do
		if ! setup "$c"; then
			echo "stream.sh: $c: data missing, skipped" >&2
			continue
		fi
		for p in "${ok[@]}"; do
			case $p,$c in
			process,*) inprocess ;;
			*,*-M) ;;
			*) other "$c" "$p" ;;
			esac
		done
	done
	cat "$details"
} | tee examples/bench/out/stream.md
