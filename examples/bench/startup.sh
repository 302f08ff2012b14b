#!/usr/bin/env bash
# startup.sh — where a small set's whole svmgo train-linear run goes,
# against LIBLINEAR 2.50's train: the floors of a process on this machine
# (a C and a Go program that print a line; the same two spinning about a
# millisecond first, which shows what the Go runtime costs while a process
# lives: sysmon's wake-ups, its other threads), svmgo version (the Go floor
# plus every linked package's init), then each small set's svmgo
# train-linear and LIBLINEAR train. Prints a Markdown table, also written to
# examples/bench/out/startup.md.
#
#   LIBLINEAR250=/path/to/liblinear-2.50/train bash examples/bench/startup.sh
#
# Environment:
#   LIBLINEAR250  LIBLINEAR 2.50's train binary (required; without it the
#                 script says so and exits 0)
#   SHARED        the shared data folder (default: ../shared/data from the root)
#   SVMGO         the svmgo binary (default: bin/svmgo, built by `make build`)
#   RUNS          runs of each command, alternating run by run (default 200)
#   CC            the C compiler for the C floor (default cc)
#
# Per core is the CPU time (user + sys, every thread, wait4's rusage) of
# each whole command pinned with taskset -c 0; 2 cores its wall time
# unpinned (examples/bench/proctime); faults and csw are its minor page
# faults and context switches (medians; counts, which load barely moves).
# Shares are of LIBLINEAR's run on the same set (the floors and svmgo
# version: of LIBLINEAR on heart_scale -s 2). Issue 25's goals are 0.6 per
# core and 0.4 of the wall.
set -euo pipefail

die() { echo "startup.sh: $*" >&2; exit 1; }
if [[ -z ${LIBLINEAR250:-} ]]; then
	echo "startup.sh: LIBLINEAR250 is not set (LIBLINEAR 2.50's train binary): skipped" >&2
	exit 0
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
liblinear=$(abs "$LIBLINEAR250")
if [[ -n ${SHARED:-} ]]; then SHARED=$(abs "$SHARED"); else SHARED=$(cd "$root/.." && pwd)/shared/data; fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
runs=${RUNS:-200}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: want a positive integer"
[[ -x $liblinear ]] || die "$liblinear is not executable"
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
cc=${CC:-cc}
for t in taskset go "$cc"; do command -v "$t" >/dev/null || die "$t not found"; done
cd "$root"
mkdir -p examples/bench/out
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/proctime" ./examples/bench/proctime || die "cannot build examples/bench/proctime"

# The floors: print a line, after spinning argv[1] iterations (0: none).
# The spin is the same integer loop in both (a multiply-add chain in a
# register, whose result is printed so that no compiler drops it), about
# a millisecond at 1e6.
cat >"$tmp/hello.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	unsigned long x = 0;
	long n = argc > 1 ? atol(argv[1]) : 0;
	for (long i = 0; i < n; i++) x = x * 31 + (unsigned long)i;
	printf("hello %lu\n", x);
	return 0;
}
EOF
"$cc" -O2 -o "$tmp/hello_c" "$tmp/hello.c" || die "cannot build the C floor"
mkdir -p "$tmp/gohello"
cat >"$tmp/gohello/main.go" <<'EOF'
package main

import (
	"os"
	"strconv"
)

func main() {
	n := 0
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	x := uint64(0)
	for i := 0; i < n; i++ {
		x = x*31 + uint64(i)
	}
	os.Stdout.WriteString("hello " + strconv.FormatUint(x, 10) + "\n")
}
EOF
printf 'module gohello\n\ngo 1.21\n' >"$tmp/gohello/go.mod"
(cd "$tmp/gohello" && CGO_ENABLED=0 go build -trimpath -o "$tmp/hello_go" .) || die "cannot build the Go floor"
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# add NAME CMD...: a command to measure, with its row's name. All are
# measured by one pinned and one unpinned proctime call, alternating run
# by run.
names=() cmds=()
add() {
	names+=("$1")
	shift
	local c
	printf -v c '%q ' "$@"
	cmds+=("$c")
}
spin=1000000
add "C: print a line" "$tmp/hello_c"
add "C: spin, then print" "$tmp/hello_c" "$spin"
add "Go: print a line" "$tmp/hello_go"
add "Go: spin, then print" "$tmp/hello_go" "$spin"
add "svmgo version" "$svmgo" version
for s in "heart_scale:-s 0" "heart_scale:-s 2" "breast_cancer.train:-s 0" "breast_cancer.train:-s 2" "diabetes.train:-s 11 -e 0.001"; do
	f=$SHARED/${s%%:*} opts=${s#*:}
	[[ -r $f ]] || { echo "startup.sh: no $f: skipped" >&2; continue; }
	# shellcheck disable=SC2086
	add "svmgo ${s%%:*} $opts" "$svmgo" train-linear $opts "$f" "$tmp/g.model"
	# shellcheck disable=SC2086
	add "LIBLINEAR ${s%%:*} $opts" "$liblinear" $opts "$f" "$tmp/l.model"
done
args=()
for c in "${cmds[@]}"; do
	((${#args[@]})) && args+=(---)
	eval "args+=($c)"
done
taskset -c 0 "$tmp/proctime" -runs "$runs" -- "${args[@]}" >"$tmp/pinned" || die "proctime failed"
"$tmp/proctime" -runs "$runs" -- "${args[@]}" >"$tmp/wall" || die "proctime failed"

# value FILE N FIELD
value() { awk -v k="cmd=$2" -v f="$3" '$1 == k { for (i = 2; i <= NF; i++) if (index($i, f "=") == 1) print substr($i, length(f) + 2) }' "$1"; }
# The reference of row k: LIBLINEAR on the same set, the floors' heart_scale -s 2.
ref_of() {
	local k=$1 n=${#names[@]} j
	case ${names[k]} in
	svmgo\ heart_scale* | svmgo\ breast* | svmgo\ diabetes*) echo $((k + 1)) ;;
	LIBLINEAR*) echo "$k" ;;
	*) for ((j = 0; j < n; j++)); do [[ ${names[j]} == "LIBLINEAR heart_scale -s 2" ]] && echo "$j"; done ;;
	esac
	return 0
}
{
	echo "| command | per core (ms) | share | 2-core wall (ms) | share | faults | csw |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for ((k = 0; k < ${#names[@]}; k++)); do
		r=$(ref_of "$k")
		[[ -n $r ]] || r=$k
		awk -v name="${names[k]}" -v c="$(value "$tmp/pinned" $((k + 1)) cpu_ms)" -v rc="$(value "$tmp/pinned" $((r + 1)) cpu_ms)" \
			-v w="$(value "$tmp/wall" $((k + 1)) wall_ms)" -v rw="$(value "$tmp/wall" $((r + 1)) wall_ms)" \
			-v f="$(value "$tmp/pinned" $((k + 1)) faults)" -v s="$(value "$tmp/pinned" $((k + 1)) csw)" \
			'BEGIN { printf "| %s | %.3f | %.2f | %.3f | %.2f | %s | %s |\n", name, c, c / rc, w, w / rw, f, s }'
	done
	echo
	echo "Medians of $runs runs of each command, all alternating run by run (examples/bench/proctime);"
	echo "share: of LIBLINEAR 2.50 ($liblinear) on the same set (the floors and svmgo version: on"
	echo "heart_scale -s 2). Load average at the start: $load0, at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee examples/bench/out/startup.md
