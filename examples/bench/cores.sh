#!/usr/bin/env bash
# cores.sh — two cores never slower than one (issue 30): every shared set
# and kind trained by `svmgo train` / `svmgo train-linear` on both cores
# (unpinned) and pinned to one (taskset -c 0), alternating, written as a
# Markdown table to examples/bench/out/cores.md.
#
# Run by `make bench`, or by hand after `make build`:
#
#   bash examples/bench/cores.sh
#
# Environment:
#   SHARED       folder of the shared data sets (default: ../shared/data)
#   SVMGO        the svmgo binary (default: bin/svmgo)
#   SVMGO_BASE   optional: an earlier svmgo binary, also timed pinned, so the
#                table shows whether per-core CPU changed (default: none)
#   RUNS         alternating rounds per case, median quoted (default: 3)
#   LONG_RUNS    rounds of the two long cases, shuttle one-class and
#                shuttle ε-SVR (15–25 s of CPU a run, the rest of a round
#                together about 30 s): default the smaller of RUNS and 3,
#                so that RUNS=5 with SVMGO_BASE takes about 10 minutes on
#                the quiet machine
#   BENCH_CASES  cases to run, space or comma separated (default: all; see
#                setup() and the list in $all below). Every shared set is
#                trained as C-SVC (diabetes, whose targets are real
#                values, excepted), ε-SVR and one-class with the RBF
#                kernel, and linear (diabetes: -s 11, ε-SVR); kernel
#                debdesc_bin is its first 10,000 rows (all of it takes
#                minutes of CPU a training)
#
# A timing is one command repeated REPS times (REPS per case: the small
# sets take a few ms a run, so they repeat to about 0.3 s a timing), user+sys CPU (wait4's rusage) and wall
# (time.perf_counter) over the repetitions divided by REPS, in µs: the
# 10 ms steps of /usr/bin/time's output were 1% of a 1.25 s run, the
# margin the goal was in doubt by. A round times svmgo on both cores
# (unpinned) and pinned to CPU 0 (taskset -c 0) back to back, in turn
# first (odd rounds pinned first, so neither side always runs on a cache or
# load the other left), then SVMGO_BASE pinned when set. The table's ratio
# is the median over the rounds of each round's 2-core wall ÷ pinned wall
# (a pair's two timings run seconds apart, so a change of load between
# rounds cancels), with the smallest and largest and the count of rounds
# at or below 1.0. The same model must come out of every run (a split
# across cores never changes a result; see same() for the one recorded
# count that may differ).
#
# spamlike is generated here (python3, seeded): 3,680 rows of 57 features,
# 30% nonzero, exponential values, a noisy nonlinear label, trained -c 4 —
# the shape of the spambase set issue 30 reported (1.20× the wall time on
# two cores). debdesc10k is debdesc_bin.train's first 10,000 rows (all of it
# takes minutes of CPU).
#
# Goal (issue 30): 2-core wall ≤ pinned wall for every case, and pinned CPU
# unchanged or better (against SVMGO_BASE).
#
# Two-core wall times mean something only on a quiet machine: under load
# the second core is another process's, and a pinned run's wall includes
# waiting for CPU 0. The kernel evaluations column (kernel training
# cases) is noise-free: on 2 cores a training should do the work it does
# pinned. cores_quiet.sh runs this script when the machine is quiet.
set -euo pipefail

die() { echo "cores.sh: $*" >&2; exit 1; }
say() { echo "cores.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${SHARED:-} ]]; then shared=$(abs "$SHARED"); else shared=$(abs "$root/../shared/data"); fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
base=${SVMGO_BASE:+$(abs "$SVMGO_BASE")}
runs=${RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: want a positive integer"
longruns=${LONG_RUNS:-$((runs < 3 ? runs : 3))}
[[ $longruns =~ ^[1-9][0-9]*$ ]] || die "LONG_RUNS=$longruns: want a positive integer"
all="heart_scale breast_cancer spamlike debdesc10k oneclass svr digits shuttle
oneclass-heart_scale oneclass-diabetes oneclass-digits oneclass-shuttle oneclass-debdesc10k
svr-heart_scale svr-breast_cancer svr-digits svr-shuttle svr-debdesc10k
linear-heart_scale linear-breast_cancer linear-digits linear-debdesc_bin linear-shuttle linear-diabetes"
all=$(echo $all)
cases=${BENCH_CASES:-$all}
cases=${cases//,/ }
for c in $cases; do
	[[ " $all " == *" $c "* ]] || die "unknown case '$c' in BENCH_CASES (want some of: $all)"
done
cd "$root"
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
[[ -z $base || -x $base ]] || die "SVMGO_BASE=$base is not executable"
for t in taskset /usr/bin/time python3; do
	command -v "$t" >/dev/null || die "$t not found"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# setup CASE: sets cmd (train or train-linear), file, opts, reps, rounds,
# label.
setup() {
	cmd=train opts="" reps=1 rounds=$runs
	case $1 in
	oneclass-* | svr-*)
		local set=${1#*-}
		file=$shared/$set
		[[ -r $file ]] || file=$file.train
		[[ $set == debdesc10k ]] && file=$tmp/debdesc10k.train
		case $1 in
		oneclass-*) opts="-s 2" label="${set/debdesc10k/debdesc_bin 10k} one-class" ;;
		svr-*) opts="-s 3" label="${set/debdesc10k/debdesc_bin 10k} ε-SVR" ;;
		esac
		case $set in
		heart_scale | breast_cancer | diabetes) reps=60 ;;
		digits) reps=8 ;;
		shuttle) rounds=$longruns ;;
		esac
		;;
	heart_scale) file=$shared/heart_scale reps=60 label="heart_scale C-SVC" ;;
	breast_cancer) file=$shared/breast_cancer.train reps=60 label="breast_cancer C-SVC" ;;
	spamlike) file=$tmp/spamlike.train opts="-c 4" reps=2 label="spamlike C-SVC" ;;
	debdesc10k) file=$tmp/debdesc10k.train label="debdesc_bin 10k C-SVC" ;;
	oneclass) file=$shared/breast_cancer.train opts="-s 2" reps=60 label="breast_cancer one-class" ;;
	svr) file=$shared/diabetes.train opts="-s 3" reps=60 label="diabetes ε-SVR" ;;
	digits) file=$shared/digits.train reps=8 label="digits C-SVC" ;;
	shuttle) file=$shared/shuttle.train opts="-c 100 -g 1" label="shuttle C-SVC" ;;
	linear-*)
		cmd=train-linear file=$shared/${1#linear-}
		[[ -r $file ]] || file=$file.train
		reps=60 label="${1#linear-} linear"
		case $1 in
		linear-digits) reps=8 ;;
		linear-debdesc_bin | linear-shuttle) reps=3 ;;
		linear-diabetes) opts="-s 11" label="diabetes linear ε-SVR" ;;
		esac
		;;
	esac
}

python3 - "$tmp/spamlike.train" <<'PY'
import math, random, sys
rng = random.Random(31)
w = [rng.gauss(0, 1) for _ in range(57)]
with open(sys.argv[1], "w") as f:
    for _ in range(3680):
        x = [rng.expovariate(1.0) * (1 + j % 5) if rng.random() < 0.3 else 0.0 for j in range(57)]
        s = sum(a * math.log1p(b) for a, b in zip(w, x)) + rng.gauss(0, 2.0)
        f.write(("1" if s > 0 else "-1") + "".join(" %d:%.6g" % (j + 1, v) for j, v in enumerate(x) if v) + "\n")
PY
head -n 10000 "$shared/debdesc_bin.train" >"$tmp/debdesc10k.train"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# runs.py N OUT CMD...: run CMD N times (stdout to /dev/null), append "cpu
# wall" a run in seconds to OUT: user+sys CPU from wait4's rusage, wall from
# perf_counter around each run, both to the µs.
cat >"$tmp/runs.py" <<'PY'
import os, sys, time
n, out, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
cpu = wall = 0.0
for _ in range(n):
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    wall += time.perf_counter() - t0
    if status != 0:
        sys.exit("runs.py: %s: exit status %d" % (" ".join(argv), os.waitstatus_to_exitcode(status)))
    cpu += ru.ru_utime + ru.ru_stime
with open(out, "a") as f:
    f.write("%.6f %.6f\n" % (cpu / n, wall / n))
PY

# timed OUT MODEL PREFIX...: run "PREFIX... $cmd -q opts file MODEL" reps
# times; append "cpu wall" a run to OUT.
timed() {
	local out=$1 model=$2
	shift 2
	local -a optv=()
	[[ -n $opts ]] && read -ra optv <<<"$opts"
	python3 "$tmp/runs.py" "$reps" "$out" "$@" "$cmd" -q "${optv[@]}" "$file" "$model" 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; die "failed: $* $cmd $opts $file"; }
}

# same A B: whether model files A and B hold the same model. The files are
# compared byte for byte, except that a kernel model's training record
# counts kernel evaluations, which depend on the cache each worker gets and
# so on the number of cores; then their LIBSVM text exports (support
# vectors, coefficients, rho: no training record) are compared.
same() {
	cmp -s "$1" "$2" && return 0
	[[ $cmd == train ]] || return 1
	"$svmgo" export --format libsvm "$1" "$tmp/a.txt" && "$svmgo" export --format libsvm "$2" "$tmp/b.txt" &&
		cmp -s "$tmp/a.txt" "$tmp/b.txt"
}

rows=()
notes=()
for c in $cases; do
	setup "$c"
	[[ -r $file ]] || die "missing $file"
	say "$label ${opts:-(defaults)}: $rounds rounds of $reps run(s) a timing"
	rm -f "$tmp/two" "$tmp/one" "$tmp/base"
	load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
	for ((r = 0; r < rounds; r++)); do
		if ((r % 2 == 0)); then
			timed "$tmp/two" "$tmp/m2" "$svmgo"
			timed "$tmp/one" "$tmp/m1" taskset -c 0 "$svmgo"
		else
			timed "$tmp/one" "$tmp/m1" taskset -c 0 "$svmgo"
			timed "$tmp/two" "$tmp/m2" "$svmgo"
		fi
		if [[ -n $base ]]; then timed "$tmp/base" "$tmp/mb" taskset -c 0 "$base"; fi
		same "$tmp/m2" "$tmp/m1" || die "$label: the 2-core and pinned models differ"
		if [[ -n $base ]]; then same "$tmp/m1" "$tmp/mb" || die "$label: the pinned models of $svmgo and $base differ"; fi
	done
	load1=$(cut -d ' ' -f 1-3 /proc/loadavg)
	work="n/a"
	if [[ $cmd == train ]]; then
		# Work, noise-free: the training record's kernel evaluations of the
		# last round's 2-core and pinned models.
		evals() { "$svmgo" inspect "$1" | awk '/^ *kernel evaluations/ { gsub(",", "", $3); print $3 }'; }
		work="$(evals "$tmp/m2") / $(evals "$tmp/m1")"
	fi
	w2=$(awk '{ print $2 }' "$tmp/two" | median) c2=$(awk '{ print $1 }' "$tmp/two" | median)
	w1=$(awk '{ print $2 }' "$tmp/one" | median) c1=$(awk '{ print $1 }' "$tmp/one" | median)
	# Each round's 2-core wall ÷ pinned wall: median, range, rounds ≤ 1.
	paste -d ' ' "$tmp/two" "$tmp/one" | awk '{ print $2 / $4 }' >"$tmp/ratios"
	ratio=$(median <"$tmp/ratios" | awk '{ printf "%.3f", $1 }')
	spread=$(awk '{ if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1; if ($1 <= 1) k++ }
		END { printf "%.3f–%.3f, %d of %d ≤ 1", lo, hi, k, NR }' "$tmp/ratios")
	met=$(awk -v v="$ratio" 'BEGIN { print (v <= 1.0) ? "met" : "**not met**" }')
	basecell="n/a"
	if [[ -n $base ]]; then
		cb=$(awk '{ print $1 }' "$tmp/base" | median)
		basecell="$(awk -v a="$c1" -v b="$cb" 'BEGIN { printf "%.2f", a / b }')× ($cb s)"
	fi
	rows+=("| $label | \`${opts:-defaults}\` | $(printf '%.4f' "$w1") / $(printf '%.4f' "$c1") s | $(printf '%.4f' "$w2") / $(printf '%.4f' "$c2") s | **$ratio** ($spread) | $met | $work | $basecell |")
	notes+=("- $label \`${opts:-defaults}\`: measured $(date -u +%Y-%m-%d), $rounds rounds of $reps run(s) a timing; load average $load0 before, $load1 after.")
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
	echo "| data | options | pinned wall / CPU a run | 2 cores wall / CPU a run | 2-core wall ÷ pinned wall, median of rounds (range, rounds ≤ 1) | goal ≤ 1.0 | kernel evaluations, 2 cores / pinned | pinned CPU vs base |"
	echo "|---|---|---:|---:|---:|---|---:|---:|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "- Whole \`svmgo train\` / \`train-linear\` commands, wall and user+sys CPU (µs clocks: perf_counter, wait4) a run,"
	echo "  medians of the rounds; each round times both cores (unpinned) and \`taskset -c 0\`, in turn first${base:+, then the base binary pinned};"
	echo "  the ratio is the median of the rounds' own ratios."
	echo "  Every run's model is the same on one core and on two${base:+, and the same as with the base binary}"
	echo "  (byte for byte, or where a kernel model's count of kernel evaluations differs, which the"
	echo "  cache split sets, as LIBSVM text exports)."
	printf '%s\n' "${notes[@]}"
	echo "- Machine: $(nproc) CPU(s)${cpu:+, $cpu}; $(go env GOVERSION 2>/dev/null || echo go); $(date -u +%Y-%m-%d)."
} >"$tmp/cores.md"
mkdir -p examples/bench/out
cp "$tmp/cores.md" examples/bench/out/cores.md
cat "$tmp/cores.md"
say "table written to examples/bench/out/cores.md ($SECONDS s)"
