#!/usr/bin/env bash
# grid.sh — svmgo grid in bounded memory (issue 30 item 2): on every shared
# set, the peak RSS of `svmgo grid` against one `svmgo train` of the same
# data and options, and the grid's CPU and wall time (against SVMGO_BASE's,
# alternating, when given, with a check that every point's rate is the
# same), written as a Markdown table to examples/bench/out/grid.md.
#
# Run by hand after `make build`:
#
#   bash examples/bench/grid.sh
#   SVMGO_BASE=/tmp/svmgo.main RUNS=3 bash examples/bench/grid.sh
#
# Environment:
#   SHARED       folder of the shared data sets (default: ../shared/data)
#   SVMGO        the svmgo binary (default: bin/svmgo)
#   SVMGO_BASE   optional: an earlier svmgo binary, timed the same way
#                (default: none)
#   GRIDPY       optional: grid.py (Debian's svm-grid) to compare best
#                lines with, on the C-SVC sets whose grid it finishes in
#                minutes (heart_scale, breast_cancer: the default grid;
#                debdesc_bin: its 2 × 2-fold grid)
#   RUNS         alternating rounds per case, median quoted (default: 3)
#   BENCH_CASES  cases to run, space or comma separated (default: all of
#                heart_scale breast_cancer diabetes digits shuttle debdesc10k
#                debdesc_bin)
#
# The small sets and digits run grid.py's default grid (110 points, 5
# folds); shuttle and debdesc10k (debdesc_bin.train's first 10,000 rows) a
# 2 × 2 grid around their usual parameters, since their default grids take
# hours. debdesc_bin (all 50,928 rows) runs two points, C = 1 and 4 at
# γ = 2^−3 (debdesc10k's best γ), with 2 folds: about 90 s of CPU for
# svmgo grid and 100 s for one svmgo train at the defaults, where 5 folds
# or the 2 × 2 grid would take many times that (an earlier 2 × 5-fold run
# did not finish in 70 minutes at load 15–42). Peak RSS is /usr/bin/time's
# %M; a train's peak is its median over the rounds too.
#
# Goal (issue 30): grid peak RSS ≤ 2 × train peak RSS on every set, with
# the same results (the best line, and every point's rate against the base)
# and the same speed.
set -euo pipefail

die() { echo "grid.sh: $*" >&2; exit 1; }
say() { echo "grid.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${SHARED:-} ]]; then shared=$(abs "$SHARED"); else shared=$(abs "$root/../shared/data"); fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
base=${SVMGO_BASE:+$(abs "$SVMGO_BASE")}
gridpy=${GRIDPY:-}
runs=${RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: want a positive integer"
all="heart_scale breast_cancer diabetes digits shuttle debdesc10k debdesc_bin"
cases=${BENCH_CASES:-$all}
cases=${cases//,/ }
for c in $cases; do
	[[ " $all " == *" $c "* ]] || die "unknown case '$c' in BENCH_CASES (want some of: $all)"
done
cd "$root"
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
[[ -z $base || -x $base ]] || die "SVMGO_BASE=$base is not executable"
command -v /usr/bin/time >/dev/null || die "/usr/bin/time not found"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -n 10000 "$shared/debdesc_bin.train" >"$tmp/debdesc10k.train"

# setup CASE: sets file, opts (svm-train options), grid (grid options), label.
setup() {
	opts="" grid=""
	case $1 in
	heart_scale) file=$shared/heart_scale label="heart_scale C-SVC" ;;
	breast_cancer) file=$shared/breast_cancer.train label="breast_cancer C-SVC" ;;
	diabetes) file=$shared/diabetes.train opts="-s 3" label="diabetes ε-SVR" ;;
	digits) file=$shared/digits.train label="digits C-SVC" ;;
	shuttle) file=$shared/shuttle.train grid="-log2c 5,9,4 -log2g -1,3,4" label="shuttle C-SVC, 2 × 2 grid" ;;
	debdesc10k) file=$tmp/debdesc10k.train grid="-log2c 1,5,4 -log2g -3,1,4" label="debdesc_bin 10k C-SVC, 2 × 2 grid" ;;
	debdesc_bin) file=$shared/debdesc_bin.train grid="-log2c 0,2,2 -log2g -3,-3,1 -v 2" label="debdesc_bin C-SVC, 2 points × 2 folds" ;;
	esac
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# timed OUT CMD...: run CMD, append "cpu wall peakKiB" to OUT.
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S %e %M' -o "$tmp/t" "$@" >"$tmp/stdout" 2>"$tmp/err" || { cat "$tmp/err" >&2; die "failed: $*"; }
	awk '{ printf "%.3f %.3f %d\n", $1 + $2, $3, $4 }' "$tmp/t" >>"$out"
}

rows=()
notes=()
for c in $cases; do
	setup "$c"
	[[ -r $file ]] || die "missing $file"
	say "$label: $runs rounds"
	rm -f "$tmp/train" "$tmp/grid" "$tmp/base"
	read -ra optv <<<"$opts"
	read -ra gridv <<<"$grid"
	load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
	for ((r = 0; r < runs; r++)); do
		timed "$tmp/train" "$svmgo" train -q "${optv[@]}" "$file" "$tmp/model"
		timed "$tmp/grid" "$svmgo" grid "${gridv[@]}" "${optv[@]}" -out "$tmp/new.out" "$file"
		best=$(tail -n 1 "$tmp/stdout")
		if [[ -n $base ]]; then
			timed "$tmp/base" "$base" grid "${gridv[@]}" "${optv[@]}" -out "$tmp/base.out" "$file"
			cmp -s "$tmp/new.out" "$tmp/base.out" || die "$label: the grid's rates differ from $base's"
		fi
	done
	load1=$(cut -d ' ' -f 1-3 /proc/loadavg)
	col() { awk -v k="$2" '{ print $k }' "$1" | median; }
	mt=$(col "$tmp/train" 3) mg=$(col "$tmp/grid" 3)
	ratio=$(awk -v a="$mg" -v b="$mt" 'BEGIN { printf "%.2f", a / b }')
	met=$(awk -v v="$ratio" 'BEGIN { print (v <= 2.0) ? "met" : "**not met**" }')
	cg=$(col "$tmp/grid" 1) wg=$(col "$tmp/grid" 2)
	basecell="n/a"
	if [[ -n $base ]]; then
		cb=$(col "$tmp/base" 1) mb=$(col "$tmp/base" 3)
		basecell="$(awk -v a="$cg" -v b="$cb" 'BEGIN { printf "%.2f", a / b }')× CPU; peak $(awk -v a="$mb" 'BEGIN { printf "%.1f", a / 1024 }') MiB; rates equal"
	fi
	gp="n/a"
	# grid.py maximizes the rate, so its ε-SVR "best" is the largest
	# error: C-SVC only.
	if [[ -n $gridpy && -z $opts && ( -z $grid && $c != digits || $c == debdesc_bin ) ]]; then
		(cd "$tmp" && python3 "$gridpy" -svmtrain "$(command -v svm-train)" -gnuplot null -out null "${gridv[@]}" "$file" >"$tmp/gridpy" 2>/dev/null) || die "$gridpy failed on $file"
		gp="$(tail -n 1 "$tmp/gridpy")"
		[[ $gp == "$best" ]] && gp="same ($gp)" || gp="**differs**: $gp"
	fi
	rows+=("| $label | \`${grid:-default grid}${opts:+ $opts}\` | $(awk -v a="$mt" 'BEGIN { printf "%.1f", a / 1024 }') | $(awk -v a="$mg" 'BEGIN { printf "%.1f", a / 1024 }') | **$ratio** | $met | $cg / $wg s | $basecell | $best | $gp |")
	notes+=("- $label \`${grid:-default grid}${opts:+ $opts}\`: measured $(date -u +%Y-%m-%d), $runs rounds; load average $load0 before, $load1 after.")
done

{
	echo "| data | grid, options | train peak MiB | grid peak MiB | grid ÷ train | goal ≤ 2 | grid CPU / wall | against base | best line (C, γ, rate) | grid.py |"
	echo "|---|---|---:|---:|---:|---|---:|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "- Whole commands, peak RSS (/usr/bin/time %M), user+sys CPU and wall: medians of the rounds;"
	echo "  each round runs \`svmgo train\`, \`svmgo grid\`${base:+, then the base binary's grid (whose .out file must equal this one's)}."
	printf '%s\n' "${notes[@]}"
	echo "- Machine: $(nproc) CPU(s); $(date -u +%Y-%m-%d)."
} >"$tmp/grid.md"
mkdir -p examples/bench/out
cp "$tmp/grid.md" examples/bench/out/grid.md
cat "$tmp/grid.md"
say "table written to examples/bench/out/grid.md"
