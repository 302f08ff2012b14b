#!/usr/bin/env bash
# Records the LIBLINEAR reference figures that liblinear_parity_test.go checks
# against. Needs Debian's liblinear-tools (2.3.0 when recorded). Prints, for
# each case, the objective value of every subproblem and the test accuracy
# (or MSE); copy the figures into the test's table.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { # name solver train test
	out=$(liblinear-train -e 0.0001 -s "$2" "$3" "$tmp/m" 2>&1)
	obj=$(echo "$out" | grep -o 'Objective value = [-0-9.e]*' | awk '{print $4}' | paste -sd, -)
	res=$(liblinear-predict "$4" "$tmp/m" "$tmp/p" | paste -sd' ' -)
	echo "$1 -s $2: objectives [$obj] $res"
}
for s in 1 3; do
	run heart_scale "$s" heart_scale heart_scale
	run breast_cancer "$s" breast_cancer.train breast_cancer.test
	run debdesc_bin "$s" debdesc_bin.train debdesc_bin.test
	run digits "$s" digits.train digits.test
done
for s in 12 13; do run diabetes "$s" diabetes.train diabetes.test; done

# The primal solvers (-s 0, -s 2, -s 11) and -s 7 (whose printed objective is the
# dual's): LIBLINEAR prints no primal objective for them,
# so the primal objective of its model is computed from the weights in the
# model file (liblinear-primal.awk, which needs the same -c and -p).
primal() { # name "options" C P train test
	liblinear-train -q -e 0.0001 $2 "$5" "$tmp/m"
	obj=$(awk -v C="$3" -v P="$4" -f liblinear-primal.awk "$tmp/m" "$5")
	res=$(liblinear-predict "$6" "$tmp/m" "$tmp/p" | paste -sd' ' -)
	echo "$1 $2: primal objectives [$obj] $res"
}
primal heart_scale "-s 2" 1 0.1 heart_scale heart_scale
primal heart_scale "-s 2 -B 1 -c 4" 4 0.1 heart_scale heart_scale
primal breast_cancer "-s 2" 1 0.1 breast_cancer.train breast_cancer.test
primal debdesc_bin "-s 2" 1 0.1 debdesc_bin.train debdesc_bin.test
primal digits "-s 2" 1 0.1 digits.train digits.test
primal digits "-s 2 -B 1" 1 0.1 digits.train digits.test
primal heart_scale "-s 0" 1 0.1 heart_scale heart_scale
primal breast_cancer "-s 0" 1 0.1 breast_cancer.train breast_cancer.test
primal debdesc_bin "-s 0" 1 0.1 debdesc_bin.train debdesc_bin.test
primal digits "-s 0 -B 1" 1 0.1 digits.train digits.test
primal heart_scale "-s 7" 1 0.1 heart_scale heart_scale
primal heart_scale "-s 7 -B 1 -c 4" 4 0.1 heart_scale heart_scale
primal breast_cancer "-s 7" 1 0.1 breast_cancer.train breast_cancer.test
primal debdesc_bin "-s 7" 1 0.1 debdesc_bin.train debdesc_bin.test
primal digits "-s 7" 1 0.1 digits.train digits.test
primal digits "-s 7 -B 1" 1 0.1 digits.train digits.test
primal diabetes "-s 11" 1 0.1 diabetes.train diabetes.test
primal diabetes "-s 11 -B 1 -c 10" 10 0.1 diabetes.train diabetes.test

# The C search (-C), on liblinear-train's own folds (glibc rand() from its
# default seed), which FindLinearC reuses.
for c in "heart_scale -s 2" "breast_cancer.train -s 2" "debdesc_bin.train -s 2" "digits.train -s 2" \
	"heart_scale -s 0" "breast_cancer.train -s 0"; do
	set -- $c
	echo "-C $2 $3 $1: $(liblinear-train -C "$2" "$3" "$1" 2>&1 | grep 'Best C')"
done

# Logistic regression probabilities (liblinear-predict -b 1): the mean log-loss on the test file
# (liblinear-logloss.awk), and two models with their per-row probabilities for the import test.
for s in 0 7 6; do
	for c in "heart_scale heart_scale heart_scale" "breast_cancer breast_cancer.train breast_cancer.test" \
		"digits digits.train digits.test"; do
		set -- $c
		liblinear-train -q -e 0.0001 -s "$s" "$2" "$tmp/m"
		liblinear-predict -b 1 "$3" "$tmp/m" "$tmp/p" >/dev/null
		echo "$1 -s $s -b 1: log-loss $(awk -f liblinear-logloss.awk "$tmp/p" "$3")"
	done
done
# heart_scale.lr.model, heart_scale.lr.prob; digits.lr7.model, digits.lr7.prob (first 40 rows)
liblinear-train -q -e 0.0001 -s 0 -B 1 heart_scale "$tmp/hm"
liblinear-predict -b 1 heart_scale "$tmp/hm" "$tmp/hp" >/dev/null
cmp "$tmp/hm" heart_scale.lr.model && cmp "$tmp/hp" heart_scale.lr.prob
liblinear-train -q -e 0.0001 -s 7 digits.train "$tmp/dm"
liblinear-predict -b 1 digits.test "$tmp/dm" "$tmp/dp" >/dev/null
cmp "$tmp/dm" digits.lr7.model && head -41 "$tmp/dp" | cmp - digits.lr7.prob
# The L1-regularized solvers (-s 5, -s 6): LIBLINEAR prints the primal
# objective and the nonzero weights of each subproblem.
l1() { # name "options" train test
	out=$(liblinear-train -e 0.0001 $2 "$3" "$tmp/m" 2>&1)
	obj=$(echo "$out" | grep -o 'Objective value = [-0-9.e]*' | awk '{print $4}' | paste -sd, -)
	nnz=$(echo "$out" | grep -o 'nonzeros/#features = [0-9]*' | awk '{print $3}' | paste -sd, -)
	res=$(liblinear-predict "$4" "$tmp/m" "$tmp/p" | paste -sd' ' -)
	echo "$1 $2: objectives [$obj] nonzeros [$nnz] $res"
}
for s in 5 6; do
	l1 heart_scale "-s $s" heart_scale heart_scale
	l1 heart_scale "-s $s -B 1 -c 4 -w-1 2" heart_scale heart_scale
	l1 breast_cancer "-s $s" breast_cancer.train breast_cancer.test
	l1 debdesc_bin "-s $s" debdesc_bin.train debdesc_bin.test
	l1 digits "-s $s" digits.train digits.test
	l1 digits "-s $s -B 1" digits.train digits.test
done
