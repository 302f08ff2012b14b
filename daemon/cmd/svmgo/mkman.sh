#!/bin/sh
# mkman.sh SVMGO VERSION: writes svmgo(1) in roff to standard output,
# generated from the command's own help (svmgo --help, then each
# command's -h), so the manual says what the binary says.
set -e
svmgo=$1 version=$2
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
printf '.TH SVMGO 1 "" "libsvmgo %s" "User Commands"\n' "$version"
printf '.SH NAME\nsvmgo \\- train, predict, serve and convert libsvmgo SVM models\n'
printf '.SH SYNOPSIS\n.nf\n'
"$svmgo" --help | esc
printf '.fi\n.SH DESCRIPTION\n'
printf 'svmgo trains linear and kernel SVMs with the options of LIBLINEAR'"'"'s train and LIBSVM'"'"'s svm-train, predicts as svm-predict does, and runs the daemon that retrains warm as batches arrive.\n'
printf '.SH COMMANDS\n'
for cmd in train train-linear predict grid watch import export quantize inspect scale; do
	printf '.SS %s\n.nf\n' "$cmd"
	"$svmgo" "$cmd" -h 2>&1 | esc
	printf '.fi\n'
done
printf '.SH EXIT STATUS\n0 on success, 1 on bad arguments or bad files (one line on standard error says what was wrong), 2 on a usage error.\n'
printf '.SH SEE ALSO\nsvm-train(1), svm-predict(1), liblinear-train(1)\n'
