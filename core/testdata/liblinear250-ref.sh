#!/usr/bin/env bash
# Records the LIBLINEAR 2.50 reference figures of the primal Newton solvers
# (-s 0, -s 2, -s 11) that newton_parity_test.go checks, in
# liblinear250-ref.txt (its header documents the format).
#
# It runs a given LIBLINEAR build and fetches or builds nothing itself:
#   LIBLINEAR_TRAIN=/path/to/liblinear-2.50/train \
#   LIBLINEAR_PREDICT=/path/to/liblinear-2.50/predict bash liblinear250-ref.sh
# (upstream cjlin1/liblinear at tag v250, built with its own Makefile). DATA
# is the shared data directory, by default the repository's ../shared/data.
#
# For each case: the primal objective of every decision function, computed
# from the model file's weights by liblinear-primal.awk; the test set's
# accuracy (or mean squared error); and per decision function the Newton
# iterations and CG steps (Hessian-vector products) that train printed.
set -euo pipefail
cd "$(dirname "$0")"
train=${LIBLINEAR_TRAIN:?set LIBLINEAR_TRAIN to LIBLINEAR 2.50s train binary}
predict=${LIBLINEAR_PREDICT:?set LIBLINEAR_PREDICT to LIBLINEAR 2.50s predict binary}
data=${DATA:-../../../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=liblinear250-ref.txt

{
	cat <<'EOF'
# Reference figures from LIBLINEAR 2.50's train and predict, written by
# liblinear250-ref.sh; do not edit by hand.
#
# Format: blocks of lines "key value...", one block a case, ended by "end".
#   case NAME          the data set (files in ../shared/data)
#   train FILE         training file; test FILE: the file predicted
#   options OPT...     train's options (-e included; the rest its defaults)
#   c C, p P           the cost and SVR width the objectives were computed with
#   objectives F...    primal objective per decision function, from the
#                      model's weights (liblinear-primal.awk, %.10g)
#   accuracy A         test accuracy in percent (classification)
#   mse M              test mean squared error (regression)
#   newton N...        Newton iterations per decision function
#   cg K...            CG steps (Hessian-vector products) per decision function
#   csearch NAME       a -C search (train -C OPTIONS FILE), then:
#   best_c C           the best C it printed; accuracy A: its CV accuracy
#   rates R...         the CV accuracy it printed C by C from its first C
EOF
	echo
} >"$out"

# run NAME "OPTIONS" C P TRAIN TEST
run() {
	local name=$1 opts=${2% } c=$3 p=$4 tr=$5 te=$6
	# shellcheck disable=SC2086
	"$train" $opts "$data/$tr" "$tmp/m" >"$tmp/log"
	obj=$(awk -v C="$c" -v P="$p" -f liblinear-primal.awk "$tmp/m" "$data/$tr" | tr ',' ' ')
	res=$("$predict" "$data/$te" "$tmp/m" "$tmp/p")
	# Newton iterations and CG steps per decision function: each starts
	# with an "init f" line, then one "iter" line a Newton step.
	work=$(awk '/^init f/ { if (n++) { printf "%d %d\n", it, cg }; it = 0; cg = 0 }
		/^iter/ { it++; for (k = 1; k < NF; k++) if ($k == "CG") cg += $(k + 1) }
		END { if (n) printf "%d %d\n", it, cg }' "$tmp/log")
	{
		echo "case $name"
		echo "train $tr"
		echo "test $te"
		echo "options $opts"
		echo "c $c"
		echo "p $p"
		echo "objectives $obj"
		case $res in
		*"Mean squared error"*) echo "mse $(echo "$res" | grep -o 'Mean squared error = [0-9.e+-]*' | awk '{print $5}')" ;;
		*) echo "accuracy $(echo "$res" | grep -o 'Accuracy = [0-9.]*' | awk '{print $3}')" ;;
		esac
		echo "newton $(echo "$work" | awk '{print $1}' | paste -sd' ' -)"
		echo "cg $(echo "$work" | awk '{print $2}' | paste -sd' ' -)"
		echo "end"
		echo
	} >>"$out"
}

for e in "" "-e 0.0001"; do
	for s in 0 2; do
		run heart_scale "-s $s $e" 1 0.1 heart_scale heart_scale
		run breast_cancer "-s $s $e" 1 0.1 breast_cancer.train breast_cancer.test
		run digits "-s $s $e" 1 0.1 digits.train digits.test
		run debdesc_bin "-s $s $e" 1 0.1 debdesc_bin.train debdesc_bin.test
		run shuttle "-s $s $e" 1 0.1 shuttle.train shuttle.test
	done
	run heart_scale "-s 2 -B 1 -c 4 $e" 4 0.1 heart_scale heart_scale
	run digits "-s 0 -B 1 $e" 1 0.1 digits.train digits.test
	run debdesc_bin "-s 2 -B 1 $e" 1 0.1 debdesc_bin.train debdesc_bin.test
	# -s 11 at -e 0.001, libsvmgo's default (LIBLINEAR 2.3's; 2.50's is 0.0001).
	run diabetes "-s 11 ${e:--e 0.001}" 1 0.1 diabetes.train diabetes.test
	run diabetes "-s 11 -B 1 -c 10 ${e:--e 0.001}" 10 0.1 diabetes.train diabetes.test
done

# The C search (-C) on liblinear-train's own folds (glibc rand() from its
# default seed), which FindLinearC reuses.
for c in "heart_scale -s 2" "breast_cancer.train -s 2" "digits.train -s 2" "debdesc_bin.train -s 2" \
	"heart_scale -s 0" "breast_cancer.train -s 0"; do
	set -- $c
	"$train" -C "$2" "$3" "$data/$1" >"$tmp/log"
	{
		echo "csearch $1"
		echo "train $1"
		echo "options $2 $3"
		grep -o 'Best C = [0-9.e+-]*  CV accuracy = [0-9.]*' "$tmp/log" | awk '{ print "best_c " $4; print "accuracy " $8 }'
		echo "rates $(grep -o 'rate=[0-9.]*' "$tmp/log" | cut -d= -f2 | paste -sd' ' -)"
		echo "end"
		echo
	} >>"$out"
done
echo "wrote $(grep -c '^case' "$out") cases and $(grep -c '^csearch' "$out") C searches to $out" >&2
