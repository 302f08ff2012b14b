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
#   GRIDPY       grid.py to compare with (default: Debian's svm-grid when
#                on PATH; "none": no comparison). It runs once a case, on
#                the same grid and options, with SVMTRAIN and one worker
#                (its job order is then fixed, and with it the tie rule's
#                winner)
#   SVMTRAIN     svm-train for GRIDPY (default: svm-train on PATH)
#   RUNS         alternating rounds per case, median quoted (default: 3)
#   BENCH_CASES  cases to run, space or comma separated (default: all of
#                heart_scale breast_cancer diabetes digits shuttle debdesc10k
#                debdesc_bin)
#
# Grid sizes, each chosen to finish: heart_scale, breast_cancer, diabetes
# (ε-SVR) and digits run grid.py's default grid (110 points, 5 folds;
# digits takes svmgo grid about 9 s of CPU, grid.py about 130 s); shuttle
# and debdesc10k (debdesc_bin.train's first 10,000 rows) a 2 × 2 grid
# around their usual parameters (their default grids take hours); all of
# debdesc_bin (50,928 rows) two points, C = 1 and 4 at γ = 2^−3
# (debdesc10k's best γ), with 2 folds: about 90 s of CPU for svmgo grid,
# 100 s for one svmgo train at the defaults, and about 90 s for grid.py
# (an earlier 2 × 5-fold run did not finish in 70 minutes at load 15–42).
# BENCH_CASES picks cases. Peak RSS is /usr/bin/time's %M; a
# train's peak is its median over the rounds too.
#
# grid.py against svmgo grid: the best line (C, γ, rate) must be the same,
# and the table counts the points whose rates are equal (the warm C path
# stops at the same tolerance from another start, so a held-out row near
# the margin may fall the other way). grid.py keeps the highest rate of
# svm-train's first "Cross" line, for ε-SVR the largest mean squared error;
# for -s 3 it is given a wrapper of svm-train that prints the error's
# reciprocal there, so that its best is the least error (a negated error
# would not do: grid.py's best starts at −1). The rates are turned back
# into errors (%g, svm-train's format) to compare.
#
# Goal (issue 30): grid peak RSS ≤ 2 × train peak RSS on every set, with
# the same results (grid.py's best line; with SVMGO_BASE, every point's
# rate equal to the base's) and the same speed.
set -euo pipefail

die() { echo "grid.sh: $*" >&2; exit 1; }
say() { echo "grid.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${SHARED:-} ]]; then shared=$(abs "$SHARED"); else shared=$(abs "$root/../shared/data"); fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
base=${SVMGO_BASE:+$(abs "$SVMGO_BASE")}
gridpy=${GRIDPY-$(command -v svm-grid || true)}
[[ $gridpy == none ]] && gridpy=""
svmtrain=${SVMTRAIN:-$(command -v svm-train || true)}
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
if [[ -n $gridpy ]]; then
	[[ -r $gridpy ]] || die "GRIDPY=$gridpy not found (GRIDPY=none: no comparison)"
	[[ -x $svmtrain ]] || die "svm-train not found for grid.py: set SVMTRAIN, or GRIDPY=none"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -n 10000 "$shared/debdesc_bin.train" >"$tmp/debdesc10k.train"
# grid.py's svm-train for ε-SVR: the mean squared error's reciprocal, where
# grid.py reads its rate (the first "Cross" line's last word, less its last
# character).
cat >"$tmp/svm-train-mse" <<EOF
#!/bin/sh
"$svmtrain" "\$@" | awk '/^Cross Validation Mean squared error = / { printf "Cross Validation Mean squared error = %.17g%%\\n", 1 / \$NF; next } /^Cross/ { next } { print }'
EOF
chmod +x "$tmp/svm-train-mse"

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

# gridpyCompare runs grid.py on the case (file, gridv, optv, label) and
# compares it with svmgo grid's best line (best) and results
# ($tmp/new.out): sets gp (grid.py's best line, and whether it is the
# same), gpeq (points whose rates are equal) and gptime (its CPU and wall).
gridpyCompare() {
	local train=$svmtrain inv=0 got want
	if [[ " ${optv[*]} " == *" -s 3 "* ]]; then train=$tmp/svm-train-mse inv=1; fi
	say "$label: grid.py"
	(cd "$tmp" && /usr/bin/time -f '%U %S %e' -o "$tmp/gpt" python3 "$gridpy" -svmtrain "$train" -gnuplot null \
		-out "$tmp/gp.out" "${gridv[@]}" "${optv[@]}" "$file" >"$tmp/gridpy" 2>"$tmp/gperr") ||
		{ cat "$tmp/gperr" >&2; die "$gridpy failed on $file"; }
	gptime=$(awk '{ printf "%.1f / %.1f s", $1 + $2, $3 }' "$tmp/gpt")
	# Rates as svm-train prints them (%g), grid.py's reciprocals undone.
	got=$(tail -n 1 "$tmp/gridpy" | awk -v inv="$inv" '{ $NF = sprintf("%g", inv ? 1 / $NF : $NF); print }')
	want=$(awk '{ $NF = sprintf("%g", $NF); print }' <<<"$best")
	if [[ $got == "$want" ]]; then gp="same ($got)"; else gp="**differs**: $got"; fi
	# Both .out files hold a "log2c=… log2g=… rate=…" line a point, each
	# in its own order: join them on the point.
	gpeq=$(awk -v inv="$inv" '
		{ r = $3; sub(/^rate=/, "", r) }
		FNR == NR { ref[$1 " " $2] = sprintf("%g", inv ? 1 / r : r); next }
		($1 " " $2) in ref { n++; d = r - ref[$1 " " $2]; if (d == 0) eq++; if (d < 0) d = -d; if (d > big) big = d }
		END { printf "%d of %d", eq, n; if (eq < n) printf " (largest difference %g)", big }' "$tmp/gp.out" "$tmp/new.out")
}

# writeTable writes the table of the cases run so far to
# examples/bench/out/grid.md: after each case, so that a long run stopped
# part way keeps the rows it finished.
writeTable() {
	{
		echo "| data | grid, options | train peak MiB | grid peak MiB | grid ÷ train | goal ≤ 2 | grid CPU / wall | against base | best line (C, γ, rate) | grid.py's best | points equal to grid.py's | grid.py CPU / wall |"
		echo "|---|---|---:|---:|---:|---|---:|---|---|---|---|---:|"
		printf '%s\n' "${rows[@]}"
		echo
		echo "- Whole commands, peak RSS (/usr/bin/time %M), user+sys CPU and wall: medians of the rounds;"
		echo "  each round runs \`svmgo train\`, \`svmgo grid\`${base:+, then the base binary's grid (whose .out file must equal this one's)}."
		printf '%s\n' "${notes[@]}"
		if [[ -n $gridpy ]]; then
			echo "- grid.py: $gridpy with one worker and $svmtrain (for -s 3 through a wrapper that prints"
			echo "  the mean squared error's reciprocal, since grid.py keeps the highest rate), run once a case."
		fi
		echo "- Machine: $(nproc) CPU(s); $(date -u +%Y-%m-%d)."
	} >"$tmp/grid.md"
	mkdir -p examples/bench/out
	cp "$tmp/grid.md" examples/bench/out/grid.md
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
	gp="n/a" gpeq="n/a" gptime="n/a"
	if [[ -n $gridpy ]]; then gridpyCompare; fi
	rows+=("| $label | \`${grid:-default grid}${opts:+ $opts}\` | $(awk -v a="$mt" 'BEGIN { printf "%.1f", a / 1024 }') | $(awk -v a="$mg" 'BEGIN { printf "%.1f", a / 1024 }') | **$ratio** | $met | $cg / $wg s | $basecell | $best | $gp | $gpeq | $gptime |")
	notes+=("- $label \`${grid:-default grid}${opts:+ $opts}\`: measured $(date -u +%Y-%m-%d), $runs rounds; load average $load0 before, $load1 after.")
	writeTable
done

cat "$tmp/grid.md"
say "table written to examples/bench/out/grid.md"
