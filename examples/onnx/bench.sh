#!/usr/bin/env bash
# bench.sh — svmgo's predict against ONNX Runtime 1.17 on the same model
# (issue 26): an RBF C-SVC trained by svmgo, exported with svmgo export
# --format onnx, and the whole test set predicted by
#
#   - ONNX Runtime (onnxruntime-node 1.17.0, examples/onnx/ort_run.js):
#     InferenceSession.run on the dense float32 batch, 1 intra-op thread
#     pinned to one core (taskset -c 0), and 2 threads on both cores;
#   - svmgo: the predict work in process (examples/bench/predicttime:
#     PredictBatchParallel over the parsed rows), 1 worker pinned to one
#     core, and 2 workers on both cores.
#
# Both time the predict call alone (parsing and loading excluded), the
# median of ORT_REPEAT runs after a warm-up: on one core the CPU time (the
# process's), which a shared machine's load does not inflate as it does
# wall time; on two cores the wall time. The two tools alternate
# BENCH_REPEAT times (A B A B) and the medians of those are reported, with
# the ratio ORT / svmgo. The labels of ONNX Runtime and of svmgo predict
# must be identical. File sizes: the .svmgo model against the .onnx graph.
#
# Run by `make bench-onnx` (not part of make test), or:
#
#   SVMGO_DATA=~/.cache/libsvmgo bash examples/onnx/bench.sh
#
# Environment:
#   SVMGO_DATA    folder holding fashion.{train,test} (build them with
#                 ../shared/data/make-fashion-mnist.sh DIR); trained models
#                 are kept in $SVMGO_DATA/onnx-models between runs
#   SHARED        the shared data folder (default: ../shared/data)
#   BENCH_CASES   digits shuttle fashion10k (default: all three)
#   BENCH_REPEAT  alternations (default 3); ORT_REPEAT runs per timing (5)
#   FASHION_ROWS  predict only the first FASHION_ROWS rows of fashion.test
#                 (default: all 10,000; ONNX Runtime takes tens of seconds
#                 of CPU a run on them)
set -euo pipefail

die() { echo "bench.sh: $*" >&2; exit 1; }
say() { echo "bench.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
SVMGO_DATA=$(abs "${SVMGO_DATA:-$HOME/.cache/libsvmgo}")
SHARED=$(abs "${SHARED:-$root/../shared/data}")
models=$SVMGO_DATA/onnx-models
repeat=${BENCH_REPEAT:-3}
inner=${ORT_REPEAT:-5}
cases=${BENCH_CASES:-digits shuttle fashion10k}
svmgo=$root/bin/svmgo
predicttime=$root/bin/predicttime
export NODE_PATH=$root/.cache/ort/node_modules
cd "$root"

[[ -x $svmgo ]] || die "$svmgo missing: make build"
[[ -d $NODE_PATH/onnxruntime-node ]] || die "onnxruntime-node missing: make test-deps-onnx"
go build -o "$predicttime" ./examples/bench/predicttime
mkdir -p "$models"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

# train_case name train test features options...: the model, trained once.
prepare() {
    local name=$1 train=$2
    shift 4
    if [[ ! -s $models/$name.svmgo ]]; then
        say "training $name ($*) — once, kept in $models"
        "$svmgo" train -q "$@" "$train" "$models/$name.svmgo"
    fi
    "$svmgo" export --format onnx "$models/$name.svmgo" "$models/$name.onnx" 2>/dev/null
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| set | rows × features | SVs | ORT 1 thread, CPU ms | svmgo 1 core, CPU ms | ratio | ORT 2 threads, wall ms | svmgo 2 cores, wall ms | ratio | labels | .svmgo bytes | .onnx bytes |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for c in ${cases//,/ }; do
    case $c in
    digits) set -- digits "$SHARED/digits.train" "$SHARED/digits.test" 64 -c 10 -g 0.03 ;;
    shuttle) set -- shuttle "$SHARED/shuttle.train" "$SHARED/shuttle.test" 9 -c 100 -g 1 ;;
    fashion10k)
        [[ -s $SVMGO_DATA/fashion.train ]] || die "$SVMGO_DATA/fashion.train missing: ../shared/data/make-fashion-mnist.sh $SVMGO_DATA"
        [[ -s $models/fashion10k.train ]] || head -10000 "$SVMGO_DATA/fashion.train" > "$models/fashion10k.train"
        ftest=$SVMGO_DATA/fashion.test
        if [[ -n ${FASHION_ROWS:-} ]]; then
            ftest=$work/fashion.test.$FASHION_ROWS
            head -n "$FASHION_ROWS" "$SVMGO_DATA/fashion.test" > "$ftest"
        fi
        set -- fashion10k "$models/fashion10k.train" "$ftest" 784 -c 10 -g 0.03 -m 200 ;;
    *) die "unknown case $c" ;;
    esac
    name=$1 test=$3 nf=$4
    prepare "$@"
    model=$models/$name.svmgo graph=$models/$name.onnx
    # Labels: svmgo predict (the command) against ONNX Runtime's.
    "$svmgo" predict -q "$test" "$model" "$work/$name.svmgo.labels"
    node "$here/ort_run.js" "$graph" "$test" 0 "$nf" 2 "$work/$name.json" 0
    python3 - "$work/$name.json" "$work/$name.svmgo.labels" > "$work/$name.cmp" <<'PY'
import json, sys
ort = json.load(open(sys.argv[1]))["outputs"]["label"]["data"]
ours = [float(l) for l in open(sys.argv[2])]
diff = sum(1 for a, b in zip(ort, ours) if a != b)
print("identical" if diff == 0 and len(ort) == len(ours) else f"{diff} of {len(ours)} differ")
PY
    rows=$(wc -l < "$test")
    svs=$("$svmgo" inspect "$model" 2>/dev/null | awk '$1 == "total_sv" {print $2}')
    o1=() s1=() o2=() s2=()
    for _ in $(seq "$repeat"); do
        taskset -c 0 node "$here/ort_run.js" "$graph" "$test" 0 "$nf" 1 "$work/t.json" "$inner"
        o1+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median_cpu_ms"])' "$work/t.json")")
        s1+=("$(taskset -c 0 "$predicttime" -repeat "$inner" -workers 1 "$test" "$model" | sed -n 2p | field cpu_ms)")
        node "$here/ort_run.js" "$graph" "$test" 0 "$nf" 2 "$work/t.json" "$inner"
        o2+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median_ms"])' "$work/t.json")")
        s2+=("$("$predicttime" -repeat "$inner" -workers 2 "$test" "$model" | sed -n 2p | field predict_ms)")
    done
    m_o1=$(printf '%s\n' "${o1[@]}" | median) m_s1=$(printf '%s\n' "${s1[@]}" | median)
    m_o2=$(printf '%s\n' "${o2[@]}" | median) m_s2=$(printf '%s\n' "${s2[@]}" | median)
    r1=$(awk -v a="$m_o1" -v b="$m_s1" 'BEGIN {printf "%.1f×", a / b}')
    r2=$(awk -v a="$m_o2" -v b="$m_s2" 'BEGIN {printf "%.1f×", a / b}')
    echo "| $name | $rows × $nf | ${svs:-?} | $m_o1 | $m_s1 | $r1 | $m_o2 | $m_s2 | $r2 | $(cat "$work/$name.cmp") | $(stat -c %s "$model") | $(stat -c %s "$graph") |"
done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
