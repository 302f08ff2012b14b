#!/usr/bin/env bash
# linear.sh — compare svmgo's linear SVM training with LIBLINEAR's
# (liblinear-train / liblinear-predict) and print a Markdown table, also
# written to examples/bench/out/linear.md, which `make bench-readme` splices
# into examples/bench/README.md (examples/bench/readme_tables.py).
#
# Run by `make bench`, or from a fresh clone after `make build`:
#
#   SVMGO_DATA=~/.cache/libsvmgo SHARED=../shared/data bash examples/bench/linear.sh
#
# Environment:
#   SHARED       folder holding debdesc_bin.{train,test} (default: ../shared/data
#                from the repository root, as in the Makefile)
#   SVMGO_DATA   folder holding fashion.{train,test} (default: ~/.cache/libsvmgo;
#                build them with `make bench-deps`)
#   BENCH_CASES  cases to run, space or comma separated: debdesc, fashion
#                (the dual solvers: -s 1, -s 3 -B 1), debdesc2, fashion2 (the
#                primal Newton method: -s 2, -s 2 -B 1) (default: all four)
#   SVMGO        the svmgo binary to time (default: bin/svmgo, built by `make build`)
#   BENCH_REPEAT runs per timing, median taken, at least 3 (default: 3); the
#                runs alternate the tools: LIBLINEAR parse, LIBLINEAR train,
#                svmgo train-linear, lineartime, then again
#
# What is measured, per case:
#   LIBLINEAR  whole command: wall time of `liblinear-train OPTS train model`;
#              parse: wall time of `liblinear-train OPTS -c 0 train`, which reads
#              the whole file and then stops with "ERROR: C <= 0" (train.c runs
#              check_parameter after read_problem); solver ≈ whole − parse;
#              accuracy: liblinear-predict.
#   svmgo      whole command: wall time of `bin/svmgo train-linear -q OPTS train
#              model`; parse and solver: the in-process timings of
#              examples/bench/lineartime (data.ReadFile, core.TrainLinear);
#              accuracy: `bin/svmgo predict`.
set -euo pipefail

die() { echo "linear.sh: $*" >&2; exit 1; }
say() { echo "linear.sh: $*" >&2; }

# Resolve the data folders and SVMGO against the caller's directory before
# moving to the repository root; the defaults are those of the Makefile.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${SHARED:-} ]]; then SHARED=$(abs "$SHARED"); else SHARED=$(cd "$root/.." && pwd)/shared/data; fi
if [[ -n ${SVMGO_DATA:-} ]]; then SVMGO_DATA=$(abs "$SVMGO_DATA"); else SVMGO_DATA=$HOME/.cache/libsvmgo; fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
cd "$root"

cases=${BENCH_CASES:-debdesc fashion debdesc2 fashion2}
cases=${cases//,/ }
for c in $cases; do
	case $c in debdesc | fashion | debdesc2 | fashion2) ;; *) die "unknown case '$c' in BENCH_CASES (want debdesc, fashion, debdesc2, fashion2)" ;; esac
done
[[ -z ${BENCH_REPEAT:-} || ($BENCH_REPEAT =~ ^[1-9][0-9]*$ && $BENCH_REPEAT -ge 3) ]] ||
	die "BENCH_REPEAT=$BENCH_REPEAT: want an integer of at least 3 (the README quotes medians of alternating runs)"

# Tools and data, checked before anything is timed.
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
for t in liblinear-train liblinear-predict go; do
	command -v "$t" >/dev/null || die "$t not found (LIBLINEAR: 'make bench-deps' or apt-get install liblinear-tools)"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"

# use_case NAME sets train, test, opts (liblinear train options) and label.
use_case() {
	case $1 in
	debdesc) train=$SHARED/debdesc_bin.train test=$SHARED/debdesc_bin.test opts="-s 1" label=debdesc_bin ;;
	fashion) train=$SVMGO_DATA/fashion.train test=$SVMGO_DATA/fashion.test opts="-s 3 -B 1" label=Fashion-MNIST ;;
	debdesc2) train=$SHARED/debdesc_bin.train test=$SHARED/debdesc_bin.test opts="-s 2" label=debdesc_bin ;;
	fashion2) train=$SVMGO_DATA/fashion.train test=$SVMGO_DATA/fashion.test opts="-s 2 -B 1" label=Fashion-MNIST ;;
	esac
}
for c in $cases; do
	use_case "$c"
	for f in "$train" "$test"; do
		if [[ ! -r $f ]]; then
			if [[ $c == fashion* ]]; then
				die "missing $f: run 'make bench-deps' (or bash $SHARED/make-fashion-mnist.sh $SVMGO_DATA)"
			fi
			die "missing $f: set SHARED to the folder holding debdesc_bin.train/.test"
		fi
	done
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say "building examples/bench/lineartime"
go build -o "$tmp/lineartime" ./examples/bench/lineartime

# walltime FILE CMD... runs CMD with its output in FILE.out/FILE.err and
# prints its wall seconds (/usr/bin/time's %e, 10 ms resolution). A failing
# CMD is fatal unless ALLOW_FAIL=1.
walltime() {
	local out=$1
	shift
	local rc=0
	/usr/bin/time -f %e -o "$out.time" "$@" >"$out.out" 2>"$out.err" || rc=$?
	if [[ $rc -ne 0 && ${ALLOW_FAIL:-0} != 1 ]]; then
		cat "$out.err" >&2
		die "failed (status $rc): $*"
	fi
	tail -n 1 "$out.time"
}

median() { # numbers as arguments -> median
	printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

field() { # line key -> value of key=value in line
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

accuracy() { # predict output file -> "84.5% (x/y)"
	sed -n 's/^Accuracy = \(.*\)$/\1/p' "$1"
}

# fmt prints seconds to /usr/bin/time's resolution; a difference of two
# such times below it (LIBLINEAR's solver estimate) prints as "< 0.01".
fmt() { awk -v v="$1" 'BEGIN { if (v < 0.005) print "< 0.01"; else printf "%.2f", v }'; }

loadavg() { cut -d ' ' -f 1 /proc/loadavg; }

ratio() { # a b -> a/b to two decimals, or n/a when b is below the timer's resolution
	awk -v a="$1" -v b="$2" 'BEGIN { if (b >= 0.005 && a >= 0) printf "%.2f", a / b; else printf "n/a" }'
}

llver=$(dpkg-query -W -f='${Version}' liblinear-tools 2>/dev/null | sed 's/[+~-].*//' || true)
lltool="LIBLINEAR${llver:+ $llver}"
rows=()
notes=()
ratios=()

for c in $cases; do
	use_case "$c"
	read -ra optv <<<"$opts"
	reps=${BENCH_REPEAT:-3}
	# Warm the page cache so that neither tool pays for the first read.
	cat "$train" "$test" >/dev/null
	load0=$(loadavg)

	llparse=() llwhole=() llsolve=() ourwhole=() ourparse=() ourtrain=()
	for ((r = 1; r <= reps; r++)); do
		say "$label $opts: run $r/$reps: LIBLINEAR parse"
		t=$(ALLOW_FAIL=1 walltime "$tmp/llparse" liblinear-train "${optv[@]}" -c 0 "$train")
		grep -q 'ERROR: C <= 0' "$tmp/llparse.err" ||
			{ cat "$tmp/llparse.err" >&2; die "liblinear-train -c 0 did not stop with 'ERROR: C <= 0'"; }
		llparse+=("$t")

		say "$label $opts: run $r/$reps: LIBLINEAR train"
		w=$(walltime "$tmp/lltrain" liblinear-train "${optv[@]}" "$train" "$tmp/$c.liblinear.model")
		llwhole+=("$w")
		llsolve+=("$(awk -v w="$w" -v p="$t" 'BEGIN { printf "%.4f", w - p }')")

		say "$label $opts: run $r/$reps: svmgo train-linear"
		ourwhole+=("$(walltime "$tmp/ourtrain" "$svmgo" train-linear -q "${optv[@]}" "$train" "$tmp/$c.svmgo.model")")

		say "$label $opts: run $r/$reps: lineartime"
		walltime "$tmp/lt" "$tmp/lineartime" "${optv[@]}" "$train" "$test" >/dev/null
		line=$(cat "$tmp/lt.out")
		ourparse+=("$(field "$line" parse_s)")
		ourtrain+=("$(field "$line" train_s)")
	done

	load1=$(loadavg)
	say "$label: predicting"
	walltime "$tmp/llpredict" liblinear-predict "$test" "$tmp/$c.liblinear.model" "$tmp/$c.liblinear.out" >/dev/null
	walltime "$tmp/ourpredict" "$svmgo" predict "$test" "$tmp/$c.svmgo.model" "$tmp/$c.svmgo.out" >/dev/null
	llacc=$(accuracy "$tmp/llpredict.out")
	ouracc=$(accuracy "$tmp/ourpredict.out")
	[[ -n $llacc && -n $ouracc ]] || die "no accuracy in the predict output of $label"
	ltacc=$(awk -v a="$(field "$line" acc)" 'BEGIN { printf "%.4f", 100 * a }')
	predacc=$(awk -v a="${ouracc%%%*}" 'BEGIN { printf "%.4f", a }')
	[[ $ltacc == "$predacc" ]] || say "warning: lineartime accuracy $ltacc% differs from svmgo predict $ouracc"

	lp=$(median "${llparse[@]}")
	lw=$(median "${llwhole[@]}")
	lsolve=$(median "${llsolve[@]}")
	op=$(median "${ourparse[@]}")
	ot=$(median "${ourtrain[@]}")
	ow=$(median "${ourwhole[@]}")
	# DCD prints "#iter = N" per subproblem; TRON a line "iter N act ..." per
	# Newton iteration.
	lliter=$(awk '/#iter = / { v = $NF } /^iter / { v = $2 } v + 0 > m { m = v + 0 } END { print m + 0 }' "$tmp/lltrain.out")
	llcapped=$(grep -c 'reaching max number of iterations' "$tmp/lltrain.out" || true)

	rows+=("| $label | \`$opts\` | $lltool | $(fmt "$lp") | $(fmt "$lsolve")¹ | $(fmt "$lw") | $llacc |")
	rows+=("| $label | \`$opts\` | svmgo | $(fmt "$op") | $(fmt "$ot") | $(fmt "$ow") | $ouracc |")
	key="$label \`$opts\`" # the rows' first two cells: readme_tables.py's case name
	ratios+=("- $key: solver ours/LIBLINEAR = $(ratio "$ot" "$lsolve"), whole command ours/LIBLINEAR = $(ratio "$ow" "$lw"), parse LIBLINEAR/ours = $(ratio "$lp" "$op")")
	notes+=("- $key: measured $(date -u +%Y-%m-%d), medians of $reps alternating runs, $lltool; 1-minute load average $load0 before the runs, $load1 after; outer passes or Newton iterations (largest over subproblems) LIBLINEAR $lliter, svmgo $(field "$line" iters); subproblems stopped by the iteration cap, not the -e test: LIBLINEAR $llcapped, svmgo $(field "$line" unconverged); svmgo rows read (coordinate updates for DCD) $(field "$line" updates).")
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
	echo "| data | options | tool | parse s | train (solver) s | whole command s | test accuracy |"
	echo "|---|---|---|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "Ratios: solver and whole command are svmgo / LIBLINEAR (below 1: svmgo is faster);"
	echo "parse is LIBLINEAR / svmgo (above 1: svmgo is faster)."
	echo
	printf '%s\n' "${ratios[@]}"
	echo
	echo "¹ LIBLINEAR's solver time is estimated as whole command − parse (the median of the"
	echo "per-run differences), so it also holds process start and the model write, and carries"
	echo "the timer's 10 ms resolution twice. Its parse time is the wall time of"
	echo "\`liblinear-train OPTS -c 0 train\`, which reads the whole file and then exits with"
	echo "\"ERROR: C <= 0\" (train.c checks the parameters after read_problem)."
	echo
	echo "- svmgo parse and solver times are in-process (examples/bench/lineartime: data.ReadFile,"
	echo "  core.TrainLinear); its whole command is \`bin/svmgo train-linear -q OPTS train model\`."
	echo "- Whole commands are wall seconds from \`/usr/bin/time -f %e\` (10 ms resolution). Each"
	echo "  time is the median of its case's runs, which alternate the tools (LIBLINEAR parse,"
	echo "  LIBLINEAR train, svmgo train-linear, lineartime, then again)."
	echo "- Test accuracy from liblinear-predict and \`bin/svmgo predict\` on the test file."
	echo "- svmgo trains one-vs-rest classes in parallel, one per CPU by default (-n); LIBLINEAR's"
	echo "  liblinear-train here is single-threaded."
	printf '%s\n' "${notes[@]}"
	echo "- Machine: $(nproc) CPU(s)${cpu:+, $cpu}; $(go env GOVERSION); $(date -u +%Y-%m-%d)."
} >"$tmp/linear.md"

mkdir -p examples/bench/out
cp "$tmp/linear.md" examples/bench/out/linear.md
cat "$tmp/linear.md"
say "table written to examples/bench/out/linear.md"
