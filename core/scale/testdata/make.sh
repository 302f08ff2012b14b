#!/bin/sh
# make.sh rebuilds the svm-scale fixtures of package scale from Debian's
# svm-scale (libsvm-tools 3.24) and the data in core/testdata:
#   <case>.range     the range file svm-scale -s writes (kept whole)
#   <case>.out       the scaled output, kept whole for the small cases
#   outputs.sha256   "sha256 bytes case stream" of every output, whole or not
# Run from this directory: sh make.sh
set -eu
D=../../testdata
rm -f outputs.sha256
one() { # case stream file
	printf '%s %s %s %s\n' "$(sha256sum <"$3" | cut -d' ' -f1)" "$(wc -c <"$3")" "$1" "$2" >>outputs.sha256
}
run() { # case keep-whole train test opts...
	c=$1 keep=$2 train=$3 test=$4
	shift 4
	svm-scale "$@" -s "$c.range" "$D/$train" >"/tmp/$c.out" 2>"/tmp/$c.err"
	one "$c" out "/tmp/$c.out"
	one "$c" err "/tmp/$c.err"
	svm-scale -r "$c.range" "$D/$test" >"/tmp/$c.rout" 2>"/tmp/$c.rerr"
	one "$c" restore "/tmp/$c.rout"
	one "$c" restore-err "/tmp/$c.rerr"
	if [ "$keep" = yes ]; then cp "/tmp/$c.out" "$c.out"; fi
	rm -f "/tmp/$c.out" "/tmp/$c.err" "/tmp/$c.rout" "/tmp/$c.rerr"
}
run heart_scale yes heart_scale heart_scale
run heart_scale-y yes heart_scale heart_scale -l 0 -u 1 -y -2 3
run breast_cancer no breast_cancer.train breast_cancer.test
run diabetes no diabetes.train diabetes.test -y -1 1
run digits no digits.train digits.test
run digits-l0 no digits.train digits.test -l 0
