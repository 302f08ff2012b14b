#!/bin/sh
# check.sh compares `svmgo scale` with Debian's svm-scale (libsvm-tools 3.24)
# on every data file in a directory: the scaled output and the range file
# (-s), the output when restoring that range file (-r) on the same file and,
# for a .train file, on its .test twin, with the default limits, with
# -l 0 -u 1 and with -y 0 1. It prints one line per case and exits 1 on any
# difference (stdout or range file byte for byte, stderr warnings too).
#
#   sh examples/bench/scale/check.sh [svmgo-binary] [data-dir]
set -u
SVMGO=${1:-./svmgo}
DATA=${2:-../shared/data}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
same() { # name file-a file-b
	if cmp -s "$2" "$3"; then echo "  $1 identical ($(wc -c <"$2") bytes)"; else echo "  $1 DIFFERS"; fail=1; fi
}
for f in "$DATA"/*; do
	case "$f" in *.train|*.test|*/heart_scale) ;; *) continue ;; esac
	for opts in "" "-l 0 -u 1" "-y 0 1"; do
		echo "$(basename "$f") [${opts:-defaults}]"
		svm-scale $opts -s "$T/ref.range" "$f" >"$T/ref.out" 2>"$T/ref.err"
		"$SVMGO" scale $opts -s "$T/our.range" "$f" >"$T/our.out" 2>"$T/our.err"
		same "-s output" "$T/ref.out" "$T/our.out"
		same "range file" "$T/ref.range" "$T/our.range"
		same "warnings" "$T/ref.err" "$T/our.err"
		restore_on="$f"
		case "$f" in *.train) restore_on="${f%.train}.test" ;; esac
		svm-scale -r "$T/ref.range" "$restore_on" >"$T/ref.out" 2>"$T/ref.err"
		"$SVMGO" scale -r "$T/ref.range" "$restore_on" >"$T/our.out" 2>"$T/our.err"
		same "-r on $(basename "$restore_on")" "$T/ref.out" "$T/our.out"
		same "-r warnings" "$T/ref.err" "$T/our.err"
	done
done
exit $fail
