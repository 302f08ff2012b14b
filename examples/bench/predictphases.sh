#!/usr/bin/env bash
# predictphases.sh — where the whole `svmgo predict` command's time goes
# (issue 30 item 4: parse and output at most 20% of it on Fashion-MNIST),
# measured on the command itself rather than beside it: perf samples the
# command's threads (cpu-clock, call stacks), each sample is put in the
# phase whose function is on its stack, and each phase gets its share of
# the samples (CPU) and the span from its first sample to its last
# against the whole run's (wall). Shares of samples hold under load,
# where wall times of one run measure the other jobs.
#
#   bash examples/bench/predictphases.sh [test_file model_file]
#
# Defaults: ~/.cache/libsvmgo/fashion.test and fashion10k.svmgo from
# ~/.cache/libsvmgo/predict-models (predict.sh trains it) or else
# ~/.cache/libsvmgo/onnx-models. Environment: SVMGO (default bin/svmgo), RUNS (default 3);
# SVMGO_BASE, another build of svmgo (say main's), makes it an A/B: the two
# alternate run by run, and each gets the median of its parse + output
# shares.
# Needs perf (linux-tools) and permission to sample (perf_event_paranoid).
set -euo pipefail
die() { echo "predictphases.sh: $*" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
svmgo=${SVMGO:-$root/bin/svmgo}
test=${1:-$HOME/.cache/libsvmgo/fashion.test}
model=${2:-$HOME/.cache/libsvmgo/predict-models/fashion10k.svmgo}
[[ -n ${2:-} || -r $model ]] || model=$HOME/.cache/libsvmgo/onnx-models/fashion10k.svmgo
runs=${RUNS:-3}
command -v perf >/dev/null || die "perf not found"
[[ -x $svmgo && -r $test && -r $model ]] || die "need $svmgo, $test and $model"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base=${SVMGO_BASE:-}
[[ -z $base || -x $base ]] || die "SVMGO_BASE $base is not executable"
sides=("$svmgo")
[[ -z $base ]] || sides=("$base" "$svmgo")
for ((r = 1; r <= runs; r++)); do
for bin in "${sides[@]}"; do
	perf record -q -e cpu-clock -F 4000 -g -o "$tmp/perf.data" -- "$bin" predict -q "$test" "$model" "$tmp/out" >/dev/null 2>&1 ||
		die "perf record failed (perf_event_paranoid?)"
	perf script -i "$tmp/perf.data" -F time,ip,sym 2>/dev/null | python3 -c '
import re, sys
# A sample is in the first phase one of whose functions is on its stack.
phases = [("predict", ("PredictBatchParallel", "predictRows", "main.predictBatch")),
          ("parse", ("data.ReadFile", "data.readMapped", "data.readLines", "data.(*halves)", "lineParser")),
          ("model load", ("main.readModelFile", "modelfile.")),
          ("output", ("main.writeLines", "fileio.WriteFile"))]
first, last, count = {}, {}, {}
t, stack = None, []
def done():
    if t is None:
        return
    s = " ".join(stack)
    ph = next((name for name, fns in phases if any(f in s for f in fns)), "other")
    first.setdefault(ph, t); last[ph] = t; count[ph] = count.get(ph, 0) + 1
for line in sys.stdin:
    m = re.match(r"\s*(\d+\.\d+):", line)
    if m:
        done(); t, stack = float(m.group(1)), []
    elif line.strip():
        stack.append(line.strip())
done()
span = max(last.values()) - min(first.values())
n = sum(count.values())
cells = []
for ph in ["parse", "output", "model load", "predict", "other"]:
    if ph in count:
        cells.append("%s %.3f CPU, %.3f wall" % (ph, count[ph] / n, (last[ph] - first[ph]) / span))
po = (count.get("parse", 0) + count.get("output", 0)) / n
print("run %s: %s; parse + output %.3f of the CPU; %d samples over %.2f s" % (sys.argv[1], "; ".join(cells), po, n, span))
' "$r $bin" | tee -a "$tmp/runs"
done
done
for bin in "${sides[@]}"; do
	grep -F " $bin: " "$tmp/runs" | sed 's/.*parse + output \([0-9.]*\) of the CPU.*/\1/' | sort -n |
		awk -v b="$bin" '{v[NR] = $1} END {printf "%s: median parse + output %.3f of the CPU over %d runs (%.3f-%.3f)\n", b, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), NR, v[1], v[NR]}'
done
echo "load average: $(cut -d ' ' -f 1-3 /proc/loadavg)"
