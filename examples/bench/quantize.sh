#!/usr/bin/env bash
# quantize.sh — compare float32 models with their int8 and int16
# quantizations (svmgo quantize): model file size, test accuracy and predict
# throughput on the same rows. Prints a Markdown table, also written to
# examples/bench/out/quantize.md, which `make bench-readme` splices into
# examples/bench/README.md (examples/bench/readme_tables.py).
#
# Run by `make bench`, or from a fresh clone after `make build`:
#
#   SVMGO_DATA=~/.cache/libsvmgo bash examples/bench/quantize.sh
#
# Environment:
#   SVMGO_DATA   folder holding fashion.{train,test} (default: ~/.cache/libsvmgo;
#                build them with `make bench-deps`)
#   SHARED       folder of the shared data sets (default: ../shared/data):
#                heart_scale, shuttle.{train,test}, diabetes.{train,test}
#   BENCH_CASES  cases to run, space or comma separated (default: all):
#                linear-breast_cancer linear-digits linear-debdesc_bin
#                linear-heart_scale linear-shuttle svr-diabetes
#                rbf-breast_cancer rbf-digits rbf-heart_scale rbf-shuttle
#                rbfsvr-diabetes rbf-fashion10k linear-fashion;
#                "small" stands for the eleven that need no Fashion-MNIST
#   SVMGO        the svmgo binary (default: bin/svmgo, built by `make build`)
#   BENCH_TARGET length of one throughput timing of the float model, a Go
#                duration (default: 1s for rbf-fashion10k, whose float model
#                predicts 500 rows in it; 250ms for the others)
#   BENCH_REPEAT timed rounds, median taken, at least 3 (default: 9)
#
# Cases (issue 6's acceptance):
#   linear-*       `svmgo train-linear` defaults (-s 1) on core/testdata's
#                  breast_cancer, digits and debdesc_bin .train, tested on .test.
#   rbf-*          `svmgo train` defaults (RBF, C 1, γ 1/num_features) on
#                  breast_cancer, digits and heart_scale; shuttle with
#                  -c 100 -g 1 (its int8 model is refused by svmgo quantize,
#                  see below).
#   linear-heart_scale, linear-shuttle  `svmgo train-linear` defaults.
#   svr-diabetes   `svmgo train-linear -s 11` (L2-loss ε-SVR, primal).
#   rbfsvr-diabetes `svmgo train -s 3` (ε-SVR, RBF defaults).
#                  heart_scale has no test file of its own in ../shared/data:
#                  its rows are tested on examples/data/heart_scale.test.
#   rbf-fashion10k the first 10000 rows of fashion.train with -c 10 -g 0.03
#                  -m 200 (as kernel.sh), predicting all of fashion.test.
#   linear-fashion -s 3 -B 1 on the whole fashion.train (as linear.sh: about
#                  40 s of training on 2 cores), predicting fashion.test.
#
# What is measured, per case: the float model is trained with bin/svmgo and
# quantized with `bin/svmgo quantize --bits 8` and `--bits 16` (with --check
# on the test file for the small cases, whose largest decision-value change
# and error bound go in the notes). examples/bench/quanttime then loads the
# three files in one process and measures, for each: test accuracy over all
# test rows (batch predict on all CPUs), and predict throughput on one
# goroutine, one PredictDense call a row, on the same rows for the three models
# (warm-up, then BENCH_REPEAT rounds alternating the models, median).
#
# Goals (issue 6): int8 file at most 30% of the float32 file; test accuracy
# within 0.5 points of the float32 model's for int8 and 0.05 for int16;
# throughput at least 1.5× the float32 model's for Fashion-MNIST RBF and at
# least 1.0× (no slower) for the linear models, at either width.
set -euo pipefail

die() { echo "quantize.sh: $*" >&2; exit 1; }
say() { echo "quantize.sh: $*" >&2; }

# Resolve the data folder and SVMGO against the caller's directory before
# moving to the repository root; the defaults are those of the Makefile.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${SVMGO_DATA:-} ]]; then SVMGO_DATA=$(abs "$SVMGO_DATA"); else SVMGO_DATA=$HOME/.cache/libsvmgo; fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
if [[ -n ${SHARED:-} ]]; then shared=$(abs "$SHARED"); else shared=$(abs "$root/../shared/data"); fi
cd "$root"

small="linear-breast_cancer linear-digits linear-debdesc_bin linear-heart_scale linear-shuttle svr-diabetes rbf-breast_cancer rbf-digits rbf-heart_scale rbf-shuttle rbfsvr-diabetes"
all="$small rbf-fashion10k linear-fashion"
cases=${BENCH_CASES:-$all}
cases=${cases//,/ }
cases=${cases//small/$small}
for c in $cases; do
	[[ " $all " == *" $c "* ]] || die "unknown case '$c' in BENCH_CASES (want some of: $all; or small)"
done
repeat=${BENCH_REPEAT:-9}
[[ $repeat =~ ^[1-9][0-9]*$ && $repeat -ge 3 ]] || die "BENCH_REPEAT=$repeat: want an integer of at least 3 (the README quotes medians of alternating rounds)"

# Tools and data, checked before anything is timed.
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
command -v go >/dev/null || die "go not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# use_case NAME sets kind (linear or rbf), train, test, opts, label, src
# (the file train is cut from) and check (1: quantize --check on test).
use_case() {
	local data=${1#*-}
	kind=${1%%-*} check=1
	case $kind in
	svr) kind=linear ;;
	rbfsvr) kind=rbf ;;
	esac
	case $1 in
	linear-heart_scale | rbf-heart_scale)
		src=$shared/heart_scale train=$src test=examples/data/heart_scale.test opts="" label=heart_scale
		return
		;;
	linear-shuttle)
		src=$shared/shuttle.train train=$src test=$shared/shuttle.test opts="" label=shuttle
		return
		;;
	rbf-shuttle)
		src=$shared/shuttle.train train=$src test=$shared/shuttle.test opts="-c 100 -g 1" label=shuttle
		return
		;;
	svr-diabetes)
		src=$shared/diabetes.train train=$src test=$shared/diabetes.test opts="-s 11" label=diabetes
		return
		;;
	rbfsvr-diabetes)
		src=$shared/diabetes.train train=$src test=$shared/diabetes.test opts="-s 3" label=diabetes
		return
		;;
	esac
	case $data in
	fashion10k)
		src=$SVMGO_DATA/fashion.train train=$tmp/fashion10k.train test=$SVMGO_DATA/fashion.test
		opts="-c 10 -g 0.03 -m 200" label="Fashion-MNIST 10k" check=0
		;;
	fashion)
		src=$SVMGO_DATA/fashion.train train=$src test=$SVMGO_DATA/fashion.test
		opts="-s 3 -B 1" label=Fashion-MNIST check=0
		;;
	*)
		src=core/testdata/$data.train train=$src test=core/testdata/$data.test
		opts="" label=$data
		;;
	esac
}
for c in $cases; do
	use_case "$c"
	for f in "$src" "$test"; do
		if [[ ! -r $f ]]; then
			[[ $c == *fashion* ]] &&
				die "missing $f: run 'make bench-deps' (or bash ../shared/data/make-fashion-mnist.sh $SVMGO_DATA)"
			die "missing $f"
		fi
	done
	if [[ $c == rbf-fashion10k ]]; then
		head -n 10000 "$src" >"$train"
		[[ $(wc -l <"$train") -eq 10000 ]] || die "$src has fewer than 10000 rows"
	fi
done

# quanttime runs on one core (taskset -c 0 where there is taskset), and
# the batch time ratios are CPU time: on a shared machine a neighbour's
# load then stretches the rounds' wall time, not the ratios (TEAM.md's
# "per core with taskset -c 0").
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
say "building examples/bench/quanttime"
go build -o "$tmp/quanttime" ./examples/bench/quanttime

# walltime FILE CMD... runs CMD with its output in FILE.out/FILE.err and
# prints its wall seconds (/usr/bin/time's %e). A failing CMD is fatal.
walltime() {
	local out=$1
	shift
	local rc=0
	/usr/bin/time -f %e -o "$out.time" "$@" >"$out.out" 2>"$out.err" || rc=$?
	if [[ $rc -ne 0 ]]; then
		cat "$out.err" >&2
		die "failed (status $rc): $*"
	fi
	tail -n 1 "$out.time"
}

field() { # line key -> value of key=value in line
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

row() { # quanttime output file, model name -> its line
	grep "^model=$2 " "$1" || die "no line for model $2 in quanttime's output"
}

qrow() { # quantize report file, row name -> its value
	sed -n "s/^$2  *//p" "$1" | head -n 1
}

loadavg() { cut -d ' ' -f 1 /proc/loadavg; }

# met VALUE TEST prints "met" when the number VALUE passes the awk comparison
# TEST (e.g. "<= 0.3"), "**not met**" otherwise.
met() {
	if [[ $1 =~ ^-?[0-9.]+$ ]] && awk -v v="$1" "BEGIN { exit !(v $2) }"; then echo met; else echo "**not met**"; fi
}

calc() { awk "BEGIN { $1 }"; }

commas() { # integer -> with thousands separators
	printf '%s\n' "$1" | sed -e :a -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta'
}

rows=()
goals=()
notes=()
targets=()
for c in $cases; do
	use_case "$c"
	read -ra optv <<<"$opts"
	cat "$train" "$test" >/dev/null # page cache
	target=${BENCH_TARGET:-250ms}
	[[ $c == rbf-fashion10k ]] && target=${BENCH_TARGET:-1s}
	targets+=("$label ($kind): $target")
	load0=$(loadavg)
	float=$tmp/$c.svmgo
	if [[ $kind == linear ]]; then
		say "$label ${opts:-(defaults)}: svmgo train-linear"
		tt=$(walltime "$tmp/train" "$svmgo" train-linear -q "${optv[@]}" "$train" "$float")
	else
		say "$label ${opts:-(defaults)}: svmgo train"
		tt=$(walltime "$tmp/train" "$svmgo" train -q "${optv[@]}" "$train" "$float")
	fi
	checkv=()
	[[ $check == 1 ]] && checkv=(--check "$test")
	declare -A refused=()
	for bits in 8 16; do
		say "$label: svmgo quantize --bits $bits ${checkv[*]}"
		# A model svmgo quantize refuses (quantize.CheckFaithful: it changes
		# its own support vectors' labels) is measured all the same with
		# --force, and the table says it was refused and why.
		if ! "$svmgo" quantize --no-timing --bits "$bits" "$float" "$tmp/$c.q$bits" >/dev/null 2>"$tmp/refusal"; then
			grep -q "not written" "$tmp/refusal" || { cat "$tmp/refusal" >&2; die "svmgo quantize --bits $bits failed"; }
			refused[$bits]=$(sed -e 's/^svmgo: [^ ]* not written: quantize: //' -e 's/ (--force writes it anyway)$//' "$tmp/refusal")
			say "$label: int$bits refused (${refused[$bits]}); measured with --force"
		fi
		walltime "$tmp/q$bits" "$svmgo" quantize --force --bits "$bits" "${checkv[@]}" "$float" "$tmp/$c.q$bits" >/dev/null
	done
	say "$label: quanttime (accuracy on every test row, then throughput)"
	walltime "$tmp/qt" "${pin[@]}" "$tmp/quanttime" -target "$target" -repeat "$repeat" "$test" "$float" "$tmp/$c.q8" "$tmp/$c.q16" >/dev/null
	load1=$(loadavg)

	f32=$(row "$tmp/qt.out" float32)
	fbytes=$(field "$f32" file_bytes) facc=$(field "$f32" acc) frate=$(field "$f32" rows_per_s)
	fbcpu=$(field "$f32" batch_cpu_ns_per_row)
	regression=0
	if [[ -z $facc ]]; then # regression: the mean squared error stands for accuracy
		regression=1 facc=$(field "$f32" mse)
	fi
	what="linear \`${opts:--s 1}\`"
	[[ $kind == rbf ]] && what="RBF \`${opts:-defaults}\`"
	# Per width: size and throughput as fractions of float32's, accuracy
	# change in points.
	declare -A sizer=() rater=() dacc=() btime=() bspread=()
	for m in float32 int8 int16; do
		l=$(row "$tmp/qt.out" $m)
		b=$(field "$l" file_bytes) a=$(field "$l" acc) r=$(field "$l" rows_per_s)
		sizer[$m]=$(calc "printf \"%.4f\", $b / $fbytes")
		rater[$m]=$(calc "printf \"%.2f\", $r / $frate")
		brate=$(field "$l" batch_rows_per_s)
		# Issue 30's batch ratio: the median of the rounds' CPU time over
		# the float model's in the same round, with the rounds' least and
		# largest and how many were ≤ 1 (quanttime's batch_cpu_ratio*).
		btime[$m]=$(calc "printf \"%.2f\", $(field "$l" batch_cpu_ratio)")
		bspread[$m]="$(calc "printf \"%.2f–%.2f\", $(field "$l" batch_cpu_ratio_min), $(field "$l" batch_cpu_ratio_max)"), $(field "$l" batch_rounds_le1) of $repeat rounds ≤ 1"
		if ((regression)); then # MSE, and its change in percent
			a=$(field "$l" mse)
			dacc[$m]=$(calc "printf \"%+.4f%%\", 100 * ($a - $facc) / $facc")
			accs="MSE $a (r² $(field "$l" scc))"
		else
			dacc[$m]=$(calc "printf \"%+.4f\", 100 * ($a - $facc)")
			accs="$(calc "printf \"%.4f%%\", 100 * $a") ($(field "$l" correct)/$(field "$l" total))"
		fi
		[[ -n ${refused[${m#int}]:-} ]] && accs+=" (refused by \`svmgo quantize\`; --force)"
		if [[ $m == float32 ]]; then
			rows+=("| $label | $what | $m | $(commas "$b") | 100% | $accs | – | $(commas "$r") | 1× | $(commas "$brate") | 1× |")
		else
			rows+=("| $label | $what | $m | $(commas "$b") | $(calc "printf \"%.1f%%\", 100 * ${sizer[$m]}") | $accs | ${dacc[$m]} | $(commas "$r") | ${rater[$m]}× | $(commas "$brate") | ${btime[$m]}× (${bspread[$m]%%,*}) |")
		fi
	done
	key="$label $what" # the rows' first two cells: readme_tables.py's case name
	line="- $key: int8 size $(calc "printf \"%.1f%%\", 100 * ${sizer[int8]}") (goal ≤ 30%: $(met "${sizer[int8]}" "<= 0.30"))"
	if ((regression)); then
		line+=", mean squared error int8 ${dacc[int8]}, int16 ${dacc[int16]} (no goal)"
	else
		line+=", accuracy int8 ${dacc[int8]} (goal within 0.5: $(met "${dacc[int8]#[+-]}" "<= 0.5"))"
		line+=", int16 ${dacc[int16]} points (goal within 0.05: $(met "${dacc[int16]#[+-]}" "<= 0.05"))"
	fi
	case $c in
	rbf-fashion10k) line+=", throughput int8 ${rater[int8]}×, int16 ${rater[int16]}× (goal ≥ 1.5: $(met "${rater[int8]}" ">= 1.5"), $(met "${rater[int16]}" ">= 1.5"))" ;;
	linear-*) line+=", throughput int8 ${rater[int8]}×, int16 ${rater[int16]}× (goal ≥ 1.0: $(met "${rater[int8]}" ">= 1.0"), $(met "${rater[int16]}" ">= 1.0"))" ;;
	*) line+=", throughput int8 ${rater[int8]}×, int16 ${rater[int16]}× (no goal)" ;;
	esac
	for bits in 8 16; do
		[[ -n ${refused[$bits]:-} ]] && line+="; int$bits refused by \`svmgo quantize\`: ${refused[$bits]}"
	done
	goals+=("$line")
	# Issue 30: a quantized model is never the slow choice in a batch.
	goals+=("- $key: batch predict CPU time int8 ${btime[int8]}× (${bspread[int8]}), int16 ${btime[int16]}× (${bspread[int16]}) float32's (issue 30 goal ≤ 1.0: $(met "${btime[int8]}" "<= 1.0"), $(met "${btime[int16]}" "<= 1.0"))")
	note="- $key: measured $(date -u +%Y-%m-%d); trained in $tt s; throughput over $(field "$f32" rows) test rows × $(field "$f32" passes) passes a timing"
	if [[ $check == 1 ]]; then
		for bits in 8 16; do
			note+="; int$bits largest decision-value change $(qrow "$tmp/q$bits.out" "largest decision value change" | cut -d ' ' -f 1)"
			note+=", largest bound $(qrow "$tmp/q$bits.out" "largest error bound" | cut -d ' ' -f 1)"
		done
	fi
	for bits in 8 16; do # the quantizer's own measured verdict (issue 30)
		note+="; \`quantize --bits $bits\` says batch predict: $(qrow "$tmp/q$bits.out" "batch predict")"
	done
	notes+=("$note; 1-minute load average $load0 before, $load1 after.")
	unset dacc sizer rater btime bspread refused
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
	echo "| data | model | weights | file bytes | size vs float32 | test accuracy | Δ accuracy, points | predict rows/s | throughput vs float32 | batch rows/s | batch time vs float32 |"
	echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "Issue 6's and issue 30's goals:"
	echo
	printf '%s\n' "${goals[@]}"
	echo
	echo "- Files: \`bin/svmgo train-linear\` / \`bin/svmgo train\`, then \`bin/svmgo quantize --bits 8\` and"
	echo "  \`--bits 16\` of that float32 model. Accuracy: every test row, each model's batch predict"
	echo "  (examples/bench/quanttime, PredictBatchParallel for kernel models)."
	echo "- Throughput: one goroutine, one PredictDense call a row (PredictSparse for sparse rows),"
	echo "  the same first test rows for the three models (as many as the float32 model predicts in"
	echo "  one timing), passes over them making a timing of the float32 model (target: $(IFS=,; echo "${targets[*]}" | sed 's/,/, /g'));"
	echo "  a warm-up timing, then $repeat rounds alternating the three models, median. The timed calls"
	echo "  return the batch predictions."
	echo "- Batch: one goroutine, PredictBatch over every test row, calls repeated to make a timing (CPU time) of"
	echo "  the float32 model; a warm-up call, then $repeat rounds alternating the three models (float32,"
	echo "  int8, int16, then the other way round); quanttime pinned to one core (${pin[*]:-no taskset})."
	echo "  \"batch time vs float32\" is the median over the rounds of the model's CPU time over the"
	echo "  float32 model's in the same round, in brackets the rounds' least and largest ratio (the goal"
	echo "  lines also count the rounds ≤ 1); \"batch rows/s\" is wall time."
	echo "  Kernel models' batches give the labels of the exact integer sums, as single rows do"
	echo "  (quantize/kernelblock.go; RBF models of few features first take a float32 product of their"
	echo "  decoded support vectors under a bound, kernelfloat.go); one-function linear models' batches"
	echo "  give the single-row values bit for bit (quantize/linearblock.go)."
	echo "- Fashion-MNIST 10k trains on the first 10000 rows of fashion.train, Fashion-MNIST on all"
	echo "  60000; both predict the 10000 rows of fashion.test. breast_cancer, digits and debdesc_bin"
	echo "  are core/testdata's; heart_scale (tested on examples/data/heart_scale.test), shuttle and"
	echo "  diabetes ../shared/data's."
	printf '%s\n' "${notes[@]}"
	echo "- Machine: $(nproc) CPU(s)${cpu:+, $cpu}; $(go env GOVERSION 2>/dev/null || echo go); $(date -u +%Y-%m-%d)."
} >"$tmp/quantize.md"

mkdir -p examples/bench/out
cp "$tmp/quantize.md" examples/bench/out/quantize.md
cat "$tmp/quantize.md"
say "table written to examples/bench/out/quantize.md"
missed=$(grep -c "\*\*not met\*\*" "$tmp/quantize.md" || true) # lines with a goal not met; grep -c exits 1 on none
if ((missed > 0)); then say "$missed line(s) with a goal not met (see the table); not an error"; fi
