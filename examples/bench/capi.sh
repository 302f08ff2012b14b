#!/usr/bin/env bash
# capi.sh — the cost of predicting through libsvmgo's C ABI, next to the Go
# API and the Python ctypes bindings, on the same model and rows. Prints a
# Markdown table, also written to examples/bench/out/capi.md.
#
# Run by `make bench`, or after `make`:
#
#   SVMGO_DATA=~/.cache/libsvmgo bash examples/bench/capi.sh
#
# Environment:
#   SVMGO_DATA  folder holding fashion.{train,test} (default ~/.cache/libsvmgo);
#               without them the model is trained on synthetic 784-feature data
#   CC          C compiler (default gcc)
#   PYTHON      Python interpreter (default python3)
#   BATCH_ROUNDS alternating C / Go batch runs (default 5)
#
# Steps (see each program's header for what it measures):
#   examples/bench/capi_latency.c    trains a 10-class, 784-feature linear SVM
#                                    through the ABI, times single-row and batch
#                                    predictions, writes the model and rows;
#   examples/bench/capitime          times the Go API on that model and those
#                                    rows and checks it gives the same labels;
#   examples/bench/capi_latency.py   times single-row predictions from Python.
set -euo pipefail

die() { echo "capi.sh: $*" >&2; exit 1; }
say() { echo "capi.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${SVMGO_DATA:-} ]]; then SVMGO_DATA=$(abs "$SVMGO_DATA"); else SVMGO_DATA=$HOME/.cache/libsvmgo; fi
export SVMGO_DATA
cd "$root"
CC=${CC:-gcc}
PYTHON=${PYTHON:-python3}

[[ -f lib/libsvmgo.so ]] || die "lib/libsvmgo.so not found: run 'make' first"
[[ -f $SVMGO_DATA/fashion.train ]] || say "no $SVMGO_DATA/fashion.train: using synthetic data"

BATCH_ROUNDS=${BATCH_ROUNDS:-5}
[[ $BATCH_ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BATCH_ROUNDS=$BATCH_ROUNDS: want a positive integer"

kv() { # "k=v k=v ..." key -> value
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}
median() { # numbers as arguments -> median
	printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say "building the C benchmark and examples/bench/capitime"
"$CC" -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Iinclude \
	examples/bench/capi_latency.c examples/c/libsvm_reader.c \
	-Llib -lsvmgo -Wl,-rpath,"$root/lib" -o "$tmp/capi_latency"
go build -o "$tmp/capitime" ./examples/bench/capitime

say "C ABI (trains on 2000 rows, then about 10 s of timing)"
c=$("$tmp/capi_latency" "$tmp")
say "Go API"
g=$("$tmp/capitime" "$tmp")
say "Python ctypes"
p=$(SVMGO_LIB="$root/lib/libsvmgo.so" "$PYTHON" examples/bench/capi_latency.py "$tmp")

# The batch comparison is the one that asks for a ratio, so it is repeated
# with the two sides alternating: both see the same machine load.
say "batch, C ABI and Go API alternating, $BATCH_ROUNDS rounds"
cb=() gb=()
for ((r = 1; r <= BATCH_ROUNDS; r++)); do
	cb+=("$(kv "$("$tmp/capi_latency" --batch "$tmp")" batch_median_ms)")
	gb+=("$(kv "$("$tmp/capitime" -batch "$tmp")" go_batch_median_ms)")
done
cbm=$(median "${cb[@]}")
gbm=$(median "${gb[@]}")
all="$c $g $p"

f() { # key -> value of key=value in $all
	kv "$all" "$1"
}
ns() { awk -v v="$(f "$1")" 'BEGIN { if (v == "n/a" || v == "") print "n/a"; else printf "%.0f", v }'; }
ms() { awk -v v="$(f "$1")" 'BEGIN { printf "%.2f", v }'; }
mrows() { awk -v v="$(f "$1")" 'BEGIN { printf "%.2f", v / 1e6 }'; }

ratio=$(awk -v a="$cbm" -v b="$gbm" 'BEGIN { printf "%.3f", a / b }')
ratio_fit=$(awk -v a="$(f batch_median_ms)" -v b="$gbm" 'BEGIN { printf "%.3f", a / b }')
per_s() { awk -v ms="$1" -v n="$(f test_rows)" 'BEGIN { printf "%.2f", n / (ms / 1e3) / 1e6 }'; }
ms2() { awk -v v="$1" 'BEGIN { printf "%.2f", v }'; }
med=$(f dense_median_ns)
goal_lat=$(awk -v m="$med" 'BEGIN { print (m < 1000 ? "met" : "not met") }')
goal() { awk -v r="$1" 'BEGIN { print (r <= 1.10 ? "met" : "not met") }'; }
rows=$(f test_rows)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)

{
	echo "Model: linear SVM \`-s 1 -B 1\` trained through the ABI on $(f train_rows) rows of $(f data)"
	echo "($(f features) features, $(f classes) classes, one-vs-rest: $(f classes) dot products of $(f features) a row);"
	echo "test rows: $rows, $(f test_nnz_per_row) nonzeros a row on average, accuracy $(f accuracy)."
	echo
	echo "| single row | call | median ns | p99 ns |"
	echo "|---|---|---:|---:|"
	echo "| C ABI | \`svmgo_predict_dense_f32\`, 1 dense row, label | $(ns dense_median_ns) | $(ns dense_p99_ns) |"
	echo "| C ABI | \`svmgo_predict_csr_f32\`, 1 sparse row, label | $(ns csr_median_ns) | $(ns csr_p99_ns) |"
	echo "| C ABI | \`svmgo_predict_dense_f32\`, 1 dense row, label, 2-class model | $(ns binary_median_ns) | $(ns binary_p99_ns) |"
	echo "| C ABI | \`svmgo_model_get\` (crossing the ABI, no work) | $(ns get_median_ns) | $(ns get_p99_ns) |"
	echo "| Go API | \`LinearModel.PredictDense\`, 1 row | $(ns go_single_median_ns) | $(ns go_single_p99_ns) |"
	echo "| Python | \`Model.predict([row])\`, row a list | $(ns py_list_median_ns) | $(ns py_list_p99_ns) |"
	echo "| Python | \`Model.predict(X[i:i+1])\`, numpy float32 | $(ns py_numpy_median_ns) | $(ns py_numpy_p99_ns) |"
	echo "| Python | raw ctypes \`svmgo_predict_dense_f32\` | $(ns py_raw_median_ns) | $(ns py_raw_p99_ns) |"
	echo
	echo "| batch of $rows dense rows | call | median ms | million rows/s | time vs Go |"
	echo "|---|---|---:|---:|---:|"
	echo "| C ABI | \`svmgo_predict_dense_f32\`, one call, in the process that trained the model | $(ms batch_median_ms) | $(mrows batch_rows_per_s) | $ratio_fit |"
	echo "| C ABI | \`svmgo_predict_dense_f32\`, one call, in a fresh process that loaded the model | $(ms2 "$cbm") | $(per_s "$cbm") | $ratio |"
	echo "| Go API | \`LinearModel.PredictDenseBatch\` | $(ms2 "$gbm") | $(per_s "$gbm") | 1.000 |"
	echo "| Go API | \`LinearModel.DecisionDense\`, row by row | $(ms go_decision_median_ms) | $(mrows go_decision_rows_per_s) | – |"
	echo
	echo "Goals: C single-row median under 1 µs for a linear model of 784 features: $(awk -v m="$(f binary_median_ns)" 'BEGIN { print (m < 1000 ? "met" : "not met") }')"
	echo "for one weight vector (2 classes: $(ns binary_median_ns) ns); $goal_lat for $(f classes) one-vs-rest vectors ($med ns, $(f classes) dot products"
	echo "of $(f features)). Batch through the ABI within 10% of Go: $(goal "$ratio_fit") in the training process"
	echo "(ratio $ratio_fit), $(goal "$ratio") in a fresh process (ratio $ratio)."
	echo "The Go API returned the ABI's labels on $(f go_agree)/$(f go_rows) rows."
	echo
	echo "- C: $(f calls) calls cycling through the first 100 test rows (in cache, as an application's"
	echo "  fresh row is), clock read every $(f batch) calls (clock_gettime costs $(ns timer_ns) ns); each"
	echo "  sample is a batch's time / $(f batch). Batch: one call over all $rows rows, median of 21"
	echo "  calls a run. The training process makes one run; fresh C processes (\`capi_latency --batch\`)"
	echo "  and Go runs alternate $BATCH_ROUNDS times and the table gives the median run (C runs, ms:"
	echo "  ${cb[*]}; Go runs, ms: ${gb[*]})."
	echo "- Go: the same rows and sampling with time.Now."
	echo "- Both sides run the same loop (core's DecisionDense, via PredictDense). The fresh"
	echo "  process row is there because an earlier DecisionDense, which read and wrote dst[k]"
	echo "  for every nonzero feature, ran 45 or 94 ms depending on where the goroutine's stack"
	echo "  lay. Crossing the ABI itself costs $(ns get_median_ns) ns a call (\`svmgo_model_get\`)."
	echo "- Python: $(f py_calls) calls, each timed with perf_counter_ns (costs $(ns py_timer_ns) ns)."
	echo "- Machine: $(nproc) CPU(s)${cpu:+, $cpu}; $(go env GOVERSION); $("$PYTHON" -c 'import platform; print("Python", platform.python_version())'); $(date -u +%Y-%m-%d)."
} >"$tmp/capi.md"

mkdir -p examples/bench/out
cp "$tmp/capi.md" examples/bench/out/capi.md
cat "$tmp/capi.md"
say "table written to examples/bench/out/capi.md"
