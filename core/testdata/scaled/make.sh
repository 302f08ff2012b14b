#!/bin/sh
# make.sh rebuilds the references of core's TestScaleMatchesLIBSVM: the
# predictions of Debian's LIBSVM 3.24 (svm-train, svm-predict) and
# LIBLINEAR 2.3 (liblinear-train, liblinear-predict) trained and tested on
# the files svm-scale writes (-s on the train file, -r on the test file).
# Run from this directory: sh make.sh
set -eu
D=..
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
one() { # name train test scale-opts tool train-opts
	name=$1 train=$2 test=$3 sopts=$4 tool=$5 topts=$6
	svm-scale $sopts -s "$T/r" "$D/$train" >"$T/train" 2>/dev/null
	svm-scale -r "$T/r" "$D/$test" >"$T/test" 2>/dev/null
	if [ "$tool" = libsvm ]; then
		svm-train -q $topts "$T/train" "$T/model" >/dev/null
		svm-predict "$T/test" "$T/model" "$name.pred" >/dev/null
	else
		liblinear-train -q $topts "$T/train" "$T/model" >/dev/null
		liblinear-predict "$T/test" "$T/model" "$name.pred" >/dev/null
	fi
}
one digits-rbf digits.train digits.test "" libsvm "-s 0 -t 2 -c 1"
one heart-rbf-l0 heart_scale heart_scale "-l 0" libsvm "-s 0 -t 2 -c 1"
one diabetes-svr diabetes.train diabetes.test "" libsvm "-s 3 -t 2 -c 100 -p 1"
one digits-linear digits.train digits.test "" liblinear "-s 1 -c 1"
one breast-linear breast_cancer.train breast_cancer.test "-l 0" liblinear "-s 2 -c 1"
