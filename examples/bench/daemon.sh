#!/usr/bin/env bash
# daemon.sh — what the warm start saves in `svmgo watch`: stream a data set
# through the daemon in batches and compare, after each batch, the warm
# retrain with a cold solve on the same rows (--metrics.cold-every 1). Prints
# a Markdown table, also written to examples/bench/out/$OUT.md.
#
# Run by hand (or from `make bench`) after `make build`:
#
#   bash examples/bench/daemon.sh
#
# Environment:
#   DATA           LIBSVM file to stream (default: core/testdata/debdesc_bin.train)
#   BATCHES        number of batches, cut in file order (default: 10)
#   TRAIN_OPTIONS  the daemon's --train.options (default: -s 1, its default)
#   SVMGO          the svmgo binary (default: bin/svmgo, built by `make build`)
#   BATCH_TIMEOUT  seconds to wait for one batch (default: 600)
#   WINDOW         keep the store full instead: the first batch is the file's
#                  first WINDOW rows, then BATCHES batches of WINDOW/100 rows
#                  (1%) follow, and --store.window WINDOW retires the oldest
#                  1% as each comes in (issue 21's stream; 0 or unset: the
#                  whole file in BATCHES batches, nothing evicted). When the
#                  file is shorter than that, the batches go on from its
#                  first row again, as streamtime's in-process stream does
#                  (shuttle×4's 174,000 rows for a window of 160,000 and 10
#                  batches of 1,600): a row comes back after it left the
#                  window
#   OUT            name of the table's file in examples/bench/out, without
#                  .md (default: daemon); make bench runs the script twice:
#                  daemon (debdesc_bin, -s 1) and daemon-kernel (shuttle,
#                  -t 2 -c 100 -g 1)
#
# What is measured, per batch, from the daemon's JSON log records:
#   "batch added"                rows stored after the batch;
#   "retrained"                  the warm retrain (from the stored α and, for the
#                                L2-loss linear formulations, the last w; the first
#                                batch has none): iterations, the work done
#                                (linear: rows read, "updates"; kernel: kernel
#                                evaluations), support vectors, seconds;
#   "cold solve for comparison"  the same solve from α = 0: iterations, work,
#                                seconds, and warm/cold work.
#   "batch done"                 the batch's whole cost to the daemon, from parsing
#                                to done/ (its retrain, the store's commits, the
#                                publication, and the cold solve, which the table
#                                takes out): "batch s" is that less the cold solve.
# Seconds are the daemon's CPU seconds over each solve ("cpu_seconds", the
# process's user and system time), or its wall seconds from a daemon that
# does not log them: a loaded machine stretches wall time, CPU time much
# less, and stream.sh compares the daemon with in-process CPU figures.
# The kind of model (linear or kernel, from the records' "kind" field) picks
# the work measure and the table's columns.
# Without WINDOW the store is sized to hold the whole file, so no row is
# evicted and both solves see exactly the rows streamed so far; with it both
# see the window's rows.
set -euo pipefail

die() { echo "daemon.sh: $*" >&2; exit 1; }
say() { echo "daemon.sh: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
if [[ -n ${DATA:-} ]]; then data=$(abs "$DATA"); else data=$root/core/testdata/debdesc_bin.train; fi
if [[ -n ${SVMGO:-} ]]; then svmgo=$(abs "$SVMGO"); else svmgo=$root/bin/svmgo; fi
batches=${BATCHES:-10}
train_opts=${TRAIN_OPTIONS:--s 1}
batch_timeout=${BATCH_TIMEOUT:-600}
out=${OUT:-daemon}
cd "$root"

[[ $batches =~ ^[1-9][0-9]*$ ]] || die "BATCHES=$batches: want a positive integer"
[[ $batch_timeout =~ ^[1-9][0-9]*$ ]] || die "BATCH_TIMEOUT=$batch_timeout: want a positive integer"
[[ $out =~ ^[a-z0-9_-]+$ ]] || die "OUT=$out: want a name of [a-z0-9_-]"
[[ -x $svmgo ]] || die "$svmgo not found: run 'make build' first"
[[ -r $data ]] || die "missing $data (set DATA to a LIBSVM file)"

# Size the store to the whole file: rows, largest feature index, nonzeros.
read -r nrows maxfeat nnz < <(awk '{ for (i = 2; i <= NF; i++) { split($i, a, ":"); if (a[1] + 0 > m) m = a[1] + 0; z++ } }
	END { print NR, m, z }' "$data")
((nrows >= batches)) || die "$data has $nrows rows, fewer than BATCHES=$batches"
per=$(((nrows + batches - 1) / batches))
window=${WINDOW:-0}
[[ $window =~ ^[0-9]+$ ]] || die "WINDOW=$window: want a row count"
store_flags=(--store.capacity "$nrows")
if ((window > 0)); then
	per=$((window / 100 > 0 ? window / 100 : 1))
	((window + batches * per <= nrows || window < nrows && window + batches * per <= 2 * nrows)) ||
		die "WINDOW=$window and $batches batches of $per rows: more than twice the $nrows rows of $data, or a row back while in the window"
	store_flags=(--store.capacity "$((window + per))" --store.window "$window")
fi

# loadavg: the 1-minute load average, which moves the wall times.
loadavg() { cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo '?'; }
load_start=$(loadavg)

tmp=$(mktemp -d)
pid=
cleanup() {
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/batches" "$tmp/root/incoming"
if ((window > 0)); then
	say "cutting $data: the first $window rows, then $batches batches of $per rows (1%), store window $window"
	# The file twice over: the batches past its end go on from its start.
	awk -v w="$window" -v per="$per" -v n="$batches" -v dir="$tmp/batches" 'NR <= w + n * per {
		f = sprintf("%s/batch-%03d.txt", dir, NR <= w ? 0 : 1 + int((NR - w - 1) / per)); print > f }' "$data" "$data"
else
	say "cutting $data ($nrows rows) into $batches batches of up to $per rows"
	awk -v per="$per" -v dir="$tmp/batches" '{ f = sprintf("%s/batch-%03d.txt", dir, int((NR - 1) / per)); print > f }' "$data"
fi

"$svmgo" watch --root "$tmp/root" --log.format json --metrics.cold-every 1 \
	--train.options "$train_opts" "${store_flags[@]}" --store.max-features "$maxfeat" \
	--store.nonzeros "$nnz" --watch.debounce 1ms --models.keep 2 2>"$tmp/daemon.log" &
pid=$!

# wait_for TEST DESCRIPTION: poll TEST until it holds, the daemon dies or
# BATCH_TIMEOUT passes.
wait_for() {
	local deadline=$((SECONDS + batch_timeout))
	until eval "$1"; do
		kill -0 "$pid" 2>/dev/null || { cat "$tmp/daemon.log" >&2; die "the daemon exited while waiting for $2"; }
		((SECONDS < deadline)) || { cat "$tmp/daemon.log" >&2; die "timed out waiting for $2"; }
		sleep 0.05
	done
}
wait_for "grep -q '\"msg\":\"daemon started\"' '$tmp/daemon.log'" "the daemon to start"

for f in "$tmp"/batches/batch-*.txt; do
	name=$(basename "$f")
	say "streaming $name ($(wc -l <"$f") rows)"
	# A producer's protocol: a dot-file temporary name, then a rename.
	cp "$f" "$tmp/root/incoming/.$name.tmp"
	mv "$tmp/root/incoming/.$name.tmp" "$tmp/root/incoming/$name"
	wait_for "[[ -e '$tmp/root/done/$name' ]]" "$name to be ingested"
	[[ ! -e $tmp/root/rejected/$name ]] || die "$name rejected: $(cat "$tmp/root/rejected/$name.reason")"
done

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[[ $rc -eq 0 ]] || { cat "$tmp/daemon.log" >&2; die "the daemon exited with status $rc after SIGTERM"; }

# One table row per batch from the JSON records (flat objects, so a
# pattern per key does; mawk has no JSON).
awk '
function get(key,   s) {
	if (!match($0, "\"" key "\":(\"[^\"]*\"|[^,}]*)")) return ""
	s = substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
	gsub(/"/, "", s)
	return s
}
function num(v, d) { return sprintf("%." d "f", v) }
function secs(   c) { c = get("cpu_seconds"); return (c == "") ? get("seconds") : c }
/"msg":"batch added"/ { b = get("batch"); stored[b] = get("samples"); order[++n] = b }
/"msg":"retrained"/ {
	b = get("batch"); warm[b] = get("warm"); wit[b] = get("iterations")
	kernel = (get("kind") == "kernel")
	wup[b] = kernel ? get("kernel_evals") : get("updates")
	sv[b] = get("support_vectors"); conv[b] = get("converged"); wsec[b] = secs(); cur = b
}
/"msg":"batch done"/ { whole[get("batch")] = secs() }
/"msg":"cold solve for comparison"/ {
	cit[cur] = get("cold_iterations"); csec[cur] = secs()
	wo = get("warm_objective"); co = get("cold_objective")
	d = (co != 0) ? (wo - co) / co : wo - co
	if (d < 0) d = -d
	if (cur != order[1] && d > worst) worst = d
	cup[cur] = (get("kind") == "kernel") ? get("cold_kernel_evals") : get("cold_updates")
	ratio[cur] = get("warm_cold_ratio")
}
END {
	work = kernel ? "kernel evals" : "updates"
	print "| batch | rows stored | start | warm iterations | warm " work " | cold iterations | cold " work " | warm/cold " work " | warm retrain s | cold solve s | warm/cold s | batch s | batch/cold s | support vectors |"
	print "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		b = order[i]
		if (!(b in cup)) { print "daemon.sh: no cold solve logged for " b > "/dev/stderr"; exit 1 }
		note = (conv[b] == "true") ? "" : " (iteration cap)"
		own = (b in whole) ? whole[b] - csec[b] : ""
		printf "| %d | %d | %s | %d%s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %d |\n", i, stored[b], (warm[b] == "true") ? "warm" : "cold",
			wit[b], note, wup[b], cit[b], cup[b], num(ratio[b], 3), num(wsec[b], 3), num(csec[b], 3),
			(csec[b] > 0) ? num(wsec[b] / csec[b], 3) : "n/a", (own == "") ? "n/a" : num(own, 3),
			(own != "" && csec[b] > 0) ? num(own / csec[b], 3) : "n/a", sv[b]
		if (warm[b] == "true") { sw += wup[b]; sc += cup[b]; tw += wsec[b]; tc += csec[b]; to += own; k++ }
	}
	if (k > 0) {
		print ""
		printf "Over the %d warm retrains: %d %s warm against %d cold (%s), %s s against %s s (%s), %s s for the whole batches (%s); warm objectives within %.1e of the cold ones (relative).\n",
			k, sw, work, sc, (sc > 0) ? num(sw / sc, 3) : "n/a", num(tw, 3), num(tc, 3), (tc > 0) ? num(tw / tc, 3) : "n/a",
			num(to, 3), (tc > 0) ? num(to / tc, 3) : "n/a", worst
		# A row of the table of stream.sh: cold seconds, warm/cold
		# seconds, warm/cold work, objective, whole batches/cold seconds.
		printf "%s %s %s %.1e %s\n", num(tc, 3), (tc > 0) ? num(tw / tc, 3) : "n/a", (sc > 0) ? num(sw / sc, 3) : "n/a", worst,
			(tc > 0) ? num(to / tc, 3) : "n/a" > total
	}
}' total="$tmp/total" "$tmp/daemon.log" >"$tmp/table.md"

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
	if ((window > 0)); then
		echo "Warm against cold retraining in \`svmgo watch\` with the store full: the first $window rows of"
		echo "$(basename "$data"), then $batches batches of $per rows (1%) in file order, \`--store.window $window\`"
		echo "retiring the oldest $per rows as each comes in; train options \`$train_opts\`."
	else
		echo "Warm against cold retraining in \`svmgo watch\`: $(basename "$data") ($nrows rows) streamed in"
		echo "$batches batches of up to $per rows, in file order; train options \`$train_opts\`."
	fi
	echo
	cat "$tmp/table.md"
	echo
	echo "- warm: the daemon's retrain after the batch, started from the α it stored after the"
	echo "  previous one (new rows start at α = 0) and, for the L2-loss linear formulations, from"
	echo "  the previous model's w; cold: \`--metrics.cold-every 1\`'s solve of the same rows from"
	echo "  α = 0, whose model is discarded. Batch 1 has no stored α, so both are cold."
	if grep -q '"msg":"retrained".*"kind":"kernel"' "$tmp/daemon.log"; then
		echo "- iterations: SMO iterations summed over the subproblems; kernel evals: kernel values"
		echo "  computed (cache misses), the work measure behind the daemon's warm_cold_ratio metric."
	else
		echo "- iterations: outer passes of dual coordinate descent, or Newton iterations of the Newton method (-s 2,"
		echo "  -s 11, and -s 1/-s 12, which the daemon trains through their primal twins unless"
		echo "  \`-twin 0\`); updates: rows read (a DCD coordinate step reads one; the Newton method reads rows in"
		echo "  its function, gradient and Hessian-vector passes), the work measure behind the"
		echo "  daemon's warm_cold_ratio metric."
	fi
	if grep -q '"msg":"retrained".*"cpu_seconds"' "$tmp/daemon.log"; then
		echo "- seconds: the daemon's CPU seconds over each solve (its log records' cpu_seconds); load average"
	else
		echo "- seconds: in-process solver wall time from the daemon's log records; load average"
	fi
	echo "  $load_start at the start, $(loadavg) at the end (other work on the machine lengthens both solves)."
	echo "- Machine: $(nproc) CPU(s)${cpu:+, $cpu}; $(go env GOVERSION 2>/dev/null || echo go); $(date -u +%Y-%m-%d)."
} >"$tmp/daemon.md"

mkdir -p examples/bench/out
cp "$tmp/daemon.md" "examples/bench/out/$out.md"
# The totals alone, for stream.sh's table: cold s, warm/cold s, warm/cold
# work, the largest relative objective difference.
[[ ! -e $tmp/total ]] || cp "$tmp/total" "examples/bench/out/$out.total"
cat "$tmp/daemon.md"
say "table written to examples/bench/out/$out.md"
