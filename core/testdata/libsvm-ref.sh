#!/usr/bin/env bash
# Records the LIBSVM reference figures that the kernel SVM parity tests check
# against, in libsvm-ref.txt (its header documents the format), and the text
# model files the import tests read: heart_scale.libsvm.model,
# diabetes.libsvm.model and heart_scale.liblinear.model.
#
# Needs Debian's libsvm-tools, libsvm-dev, liblinear-tools, liblinear-dev and
# gcc (libsvm 3.24+ds-6 and liblinear 2.3.0+dfsg-5 when recorded):
#   apt-get install -y libsvm-tools libsvm-dev liblinear-tools liblinear-dev gcc
#
# svm-predict prints no decision values, so a small C program linked
# against the Debian libraries (built in a temporary directory) prints them
# for the import cases, and its labels are checked against svm-predict's.
#
# Every run is deterministic: LIBSVM's -b 1 cross-validation uses rand()
# without srand, so the same binaries give the same figures.
set -euo pipefail
cd "$(dirname "$0")"
for tool in svm-train svm-predict liblinear-train liblinear-predict gcc awk dpkg-query; do
	command -v "$tool" >/dev/null || { echo "libsvm-ref.sh: $tool not found" >&2; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=libsvm-ref.txt

# decvals MODEL DATA: one line per row of DATA: the predicted label, then the
# decision values (one per class pair for LIBSVM C-SVC; one per class for
# multi-class LIBLINEAR; one otherwise), all with %.17g.
cat >"$tmp/decvals.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef LINEAR
#include <linear.h>
typedef struct feature_node node;
#else
#include <libsvm/svm.h>
typedef struct svm_node node;
#endif

int main(int argc, char **argv) {
	if (argc != 3) { fprintf(stderr, "usage: decvals model data\n"); return 2; }
#ifdef LINEAR
	struct model *m = load_model(argv[1]);
	if (!m) return 1;
	int k = get_nr_class(m);
	int ndec = (k == 2 || check_regression_model(m)) ? 1 : k;
#else
	struct svm_model *m = svm_load_model(argv[1]);
	if (!m) return 1;
	int k = svm_get_nr_class(m), t = svm_get_svm_type(m);
	int ndec = (t == C_SVC || t == NU_SVC) ? k * (k - 1) / 2 : 1;
#endif
	FILE *f = fopen(argv[2], "r");
	if (!f) return 1;
	double *dec = calloc(ndec > 0 ? ndec : 1, sizeof *dec);
	node *x = NULL;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		size_t nx = 2;
		for (char *c = line; *c; c++) nx += *c == ':';
		x = realloc(x, nx * sizeof *x);
		int n = 0;
		strtok(line, " \t\n"); /* the label */
		for (char *tok; (tok = strtok(NULL, " \t\n")) != NULL;) {
			char *colon = strchr(tok, ':');
			if (!colon) continue;
			x[n].index = atoi(tok);
			x[n].value = strtod(colon + 1, NULL);
			n++;
		}
#ifdef LINEAR
		if (m->bias >= 0) { x[n].index = get_nr_feature(m) + 1; x[n].value = m->bias; n++; }
		x[n].index = -1;
		double y = predict_values(m, x, dec);
#else
		x[n].index = -1;
		double y = svm_predict_values(m, x, dec);
#endif
		printf("%.17g", y);
		for (int i = 0; i < ndec; i++) printf(" %.17g", dec[i]);
		printf("\n");
	}
	return 0;
}
EOF
gcc -O1 -o "$tmp/svm-decvals" "$tmp/decvals.c" -lsvm
gcc -O1 -DLINEAR -o "$tmp/linear-decvals" "$tmp/decvals.c" -llinear

# case NAME TRAIN TEST OPTIONS [SAVE_MODEL_AS]: trains with svm-train,
# predicts TEST with svm-predict (-b 1 when the options ask for it) and
# prints one record.
case_() {
	local name=$1 train=$2 test=$3 opts=$4 save=${5:-}
	local prob=0
	[[ " $opts " == *" -b 1 "* ]] && prob=1
	# shellcheck disable=SC2086 # opts is a list of words
	svm-train $opts "$train" "$tmp/m" >"$tmp/train.out"
	if [[ -n $save ]]; then cp "$tmp/m" "$save"; fi
	if ((prob)); then
		svm-predict -b 1 "$test" "$tmp/m" "$tmp/p" >"$tmp/predict.out"
	else
		svm-predict "$test" "$tmp/m" "$tmp/p" >"$tmp/predict.out"
	fi
	echo "case $name"
	echo "train $train"
	echo "test $test"
	echo "options $opts"
	# The model header: kernel parameters as resolved (gamma), rho at full
	# precision, class order and SV counts, Platt parameters.
	awk '$1 == "SV" { exit } $1 ~ /^(svm_type|kernel_type|degree|gamma|coef0|nr_class|total_sv|rho|label|probA|probB|nr_sv)$/' "$tmp/m"
	# With -b 1 svm-train also prints the internal cross-validation solves,
	# so only the runs without -b 1 record their subproblems.
	if ((!prob)); then
		awk '
			/^optimization finished/ { if (s != "") print s; s = "sub iter=" $NF }
			/^nu = / { s = s " nu=" $3 }
			/^C = / { s = s " c=" $3 }
			/^epsilon = / { s = s " epsilon=" $3 }
			/^obj = / { sub(",", "", $3); s = s " obj=" $3 " rho=" $6 }
			/^nSV = / { sub(",", "", $3); s = s " nSV=" $3 " nBSV=" $6 }
			/^Total nSV = / { t = $4 }
			END { if (s != "") print s; if (t != "") print "total_nsv " t }
		' "$tmp/train.out"
	fi
	if grep -qE '^svm_type (epsilon|nu)_svr' "$tmp/m"; then
		# MSE and squared correlation at full precision from the %.17g
		# predictions (svm-predict prints them with %g).
		paste -d' ' <(cut -d' ' -f1 "$test") "$tmp/p" | awk '
			{ y = $1; v = $2; n++; e += (v - y) ^ 2; sv += v; sy += y; svv += v * v; syy += y * y; svy += v * y }
			END {
				printf "mse %.10g\n", e / n
				printf "scc %.10g\n", (n * svy - sv * sy) ^ 2 / ((n * svv - sv * sv) * (n * syy - sy * sy))
			}'
	else
		awk '/^Accuracy = / { gsub(/[%()]/, ""); split($4, r, "/"); print "accuracy " $3 " " r[1] " " r[2] }' "$tmp/predict.out"
	fi
	if grep -q '^svm_type one_class' "$tmp/m"; then
		echo "pred_pos $(grep -c '^1$' "$tmp/p" || true)"
	fi
	if ((!prob)); then
		# Every prediction, in test file order, as svm-predict wrote it.
		echo "pred $(paste -sd' ' "$tmp/p")"
	fi
	if ((prob)); then
		# Log-loss: −mean log p(true class), p read from svm-predict -b 1's
		# columns (its first line names the class of each column).
		awk '
			NR == FNR { y[FNR] = $1 + 0; next }
			FNR == 1 { for (k = 2; k <= NF; k++) col[$k + 0] = k; next }
			{ p = $(col[y[FNR - 1]]) + 0; if (p < 1e-15) p = 1e-15; s -= log(p); n++ }
			END { printf "logloss %.6f\n", s / n }
		' "$test" "$tmp/p"
	fi
	echo "end"
	echo
}

# import NAME TOOL MODEL DATA: the labels and decision values LIBSVM's or
# LIBLINEAR's library computes for every row of DATA with MODEL, checked
# against svm-predict's / liblinear-predict's labels.
import_() {
	local name=$1 tool=$2 model=$3 data=$4
	if [[ $tool == libsvm ]]; then
		"$tmp/svm-decvals" "$model" "$data" >"$tmp/dec"
		svm-predict "$data" "$model" "$tmp/p" >/dev/null
	else
		"$tmp/linear-decvals" "$model" "$data" >"$tmp/dec"
		liblinear-predict "$data" "$model" "$tmp/p" >/dev/null
	fi
	if ! paste -d' ' <(cut -d' ' -f1 "$tmp/dec") "$tmp/p" | awk '$1 + 0 != $2 + 0 { bad = 1 } END { exit bad }'; then
		echo "libsvm-ref.sh: $name: decvals and $tool's predict disagree" >&2
		exit 1
	fi
	echo "import $name"
	echo "tool $tool"
	echo "model $model"
	echo "test $data"
	sed 's/^/dec /' "$tmp/dec"
	echo "end"
	echo
}

{
	cat <<'EOF'
# Reference figures from LIBSVM (and LIBLINEAR for one import case), written
# by libsvm-ref.sh; do not edit by hand.
#
# Format: lines of space-separated fields; the first field is the line's key.
# Lines starting with # and blank lines are comments. Top-level keys:
#   libsvm VERSION / liblinear VERSION   Debian package versions used
#   case NAME ... end                    one svm-train + svm-predict run
#   import NAME ... end                  predictions of a saved text model
# Inside a case (each key at most once unless noted):
#   train FILE, test FILE   data files in this directory (svm-train / svm-predict)
#   options OPT...          svm-train's options (the rest are its defaults)
#   svm_type, kernel_type, degree, gamma, coef0, nr_class, total_sv, rho,
#   label, probA, probB, nr_sv
#                           copied from the model file's header (values as
#                           LIBSVM writes them: rho, probA, probB one per class
#                           pair; gamma as resolved). LIBSVM's pair order over
#                           the label line: (l0,l1), (l0,l2), ..., (l1,l2), ...
#   sub iter=N [nu=X] [c=X] [epsilon=X] obj=X rho=X nSV=N nBSV=N
#                           one line per binary subproblem, in LIBSVM's pair
#                           order, as svm-train prints them (%f; c is ν-SVC's
#                           C = 1/r, epsilon ν-SVR's ε = −r); absent for
#                           -b 1 runs, whose output mixes in the internal
#                           cross-validation solves
#   total_nsv N             svm-train's "Total nSV" (C-SVC without -b 1)
#   accuracy PCT CORRECT TOTAL
#                           svm-predict's accuracy on the test file (for -b 1,
#                           the label of highest probability); for one-class,
#                           agreement of the ±1 prediction with the label
#   mse X, scc X            ε-SVR, ν-SVR: test mean squared error and squared
#                           correlation, from svm-predict's %.17g predictions
#   pred_pos N              one-class: test rows predicted +1
#   pred Y...               every svm-predict prediction (label or value),
#                           in test file order; absent for -b 1 runs
#   logloss X               -b 1: −(1/n) Σ log p(true class) over the test
#                           rows, from svm-predict -b 1's probabilities (%g)
# Inside an import:
#   tool libsvm|liblinear, model FILE, test FILE
#   dec LABEL DEC...        one line per test row, in order: the predicted
#                           label and the decision values (%.17g; one per
#                           class pair for LIBSVM C-SVC, one per class for
#                           multi-class LIBLINEAR, else one)
EOF
	echo
	echo "libsvm $(dpkg-query -W -f='${Version}' libsvm-tools)"
	echo "liblinear $(dpkg-query -W -f='${Version}' liblinear-tools)"
	echo

	case_ heart_scale heart_scale heart_scale "-s 0 -t 2" heart_scale.libsvm.model
	case_ heart_scale_linear heart_scale heart_scale "-s 0 -t 0"
	case_ heart_scale_poly heart_scale heart_scale "-s 0 -t 1"
	case_ heart_scale_poly_d2_r1 heart_scale heart_scale "-s 0 -t 1 -d 2 -g 0.1 -r 1 -c 2"
	case_ heart_scale_sigmoid heart_scale heart_scale "-s 0 -t 3"
	case_ heart_scale_weighted heart_scale heart_scale "-s 0 -t 2 -c 4 -w1 2 -w-1 0.5"
	case_ heart_scale_oneclass heart_scale heart_scale "-s 2 -t 2"
	case_ heart_scale_oneclass_nu0.1 heart_scale heart_scale "-s 2 -t 2 -n 0.1"
	case_ breast_cancer breast_cancer.train breast_cancer.test "-s 0 -t 2"
	case_ digits digits.train digits.test "-s 0 -t 2"
	case_ digits_c10 digits.train digits.test "-s 0 -t 2 -c 10 -g 0.03"
	case_ diabetes diabetes.train diabetes.test "-s 3 -t 2" diabetes.libsvm.model
	case_ diabetes_c1000 diabetes.train diabetes.test "-s 3 -t 2 -c 1000 -g 1 -p 5"
	case_ breast_cancer_prob breast_cancer.train breast_cancer.test "-s 0 -t 2 -b 1"
	case_ digits_prob digits.train digits.test "-s 0 -t 2 -b 1"
	# ν-SVC and ν-SVR (issue 16). Shuttle is read from the shared data
	# directory (../shared/data from the repository root). Its class pair
	# (1, 6) allows ν ≤ 2·6/34114, and at such a ν several pairs of large
	# classes have r ≈ 0 (their reduced convex hulls meet; LIBSVM then
	# divides by a tiny or negative r) unless γ is small: -g 0.01 -n 0.0001
	# gives every pair r > 0.
	case_ heart_scale_nu heart_scale heart_scale "-s 1 -t 2 -n 0.5" heart_scale_nu.libsvm.model
	case_ heart_scale_nu_poly heart_scale heart_scale "-s 1 -t 1 -d 2 -g 0.1 -r 1 -n 0.3"
	case_ digits_nu digits.train digits.test "-s 1 -t 2 -n 0.1"
	case_ shuttle_nu ../../../shared/data/shuttle.train ../../../shared/data/shuttle.test "-s 1 -t 2 -n 0.0001 -g 0.01"
	case_ diabetes_nu diabetes.train diabetes.test "-s 4 -t 2 -n 0.5 -c 10" diabetes_nu.libsvm.model
	case_ diabetes_nu_default diabetes.train diabetes.test "-s 4 -t 2"
	case_ heart_scale_nu_prob heart_scale heart_scale "-s 1 -t 2 -n 0.5 -b 1"

	liblinear-train -q -s 1 heart_scale heart_scale.liblinear.model
	import_ heart_scale_libsvm libsvm heart_scale.libsvm.model heart_scale
	import_ diabetes_libsvm libsvm diabetes.libsvm.model diabetes.test
	import_ heart_scale_nu_libsvm libsvm heart_scale_nu.libsvm.model heart_scale
	import_ diabetes_nu_libsvm libsvm diabetes_nu.libsvm.model diabetes.test
	import_ heart_scale_liblinear liblinear heart_scale.liblinear.model heart_scale
} >"$tmp/out"
mv "$tmp/out" "$out"
