#!/usr/bin/env bash
# make demo's main job (issue 4): svmgo watch on a temporary root, a Python
# client holding a watched model handle on ROOT/models, and the bundled
# batches (heart_scale.train in four parts) dropped into ROOT/incoming one by
# one. After each batch the daemon retrains warm and publishes a version, and
# the client, which hot-swaps it, prints its accuracy on heart_scale.test.
# Then SIGTERM stops both, a summary is printed, and the same 200 rows are
# trained at once offline for comparison. Exits 0 only when every step did
# what it should; everything temporary goes on any exit.
#
# Environment: BIN (bin/svmgo), DATA (examples/data, holding
# heart_scale.train and .test), PYTHON (python3), SVMGO_LIB (the library
# the svmgo package loads; by default the repository's lib/libsvmgo.so), DEMO_TIMEOUT
# (seconds any one step may take, 20).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../../bin/svmgo}
PYTHON=${PYTHON:-python3}
TIMEOUT=${DEMO_TIMEOUT:-20}
data=${DATA:-$here/../data}
options="-s 1 -B 1 -e 0.001"

tmp=$(mktemp -d)
root=$tmp/root
daemon_pid=
client_pid=

cleanup() {
	local status=$?
	for pid in $client_pid $daemon_pid; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
	echo "demo: $*" >&2
	for log in daemon client; do
		if [ -s "$tmp/$log.log" ]; then
			echo "--- last lines of the $log's output:" >&2
			tail -n 20 "$tmp/$log.log" >&2
		fi
	done
	exit 1
}

# wait_until WHAT COMMAND...: polls COMMAND until it succeeds; fails after
# TIMEOUT seconds, or at once when the daemon or the client has died.
wait_until() {
	local what=$1 deadline=$((SECONDS + TIMEOUT))
	shift
	until "$@"; do
		for pid in $daemon_pid $client_pid; do
			kill -0 "$pid" 2>/dev/null || fail "process $pid exited while waiting for $what"
		done
		[ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${TIMEOUT}s waiting for $what"
		sleep 0.02
	done
}

# stop PID NAME: SIGTERM, then the exit status within TIMEOUT seconds.
stop() {
	local pid=$1 name=$2 deadline=$((SECONDS + TIMEOUT)) status=0
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || fail "$name did not stop within ${TIMEOUT}s of SIGTERM"
		sleep 0.02
	done
	wait "$pid" || status=$?
	[ "$status" -eq 0 ] || fail "$name exited with status $status after SIGTERM"
}

# Prints the client's lines not printed yet.
shown=0
show_client() {
	local n
	n=$(wc -l <"$tmp/client.log")
	if [ "$n" -gt "$shown" ]; then
		tail -n +"$((shown + 1))" "$tmp/client.log" | head -n "$((n - shown))" | sed 's/^/  /'
		shown=$n
	fi
}

# log_value LINE KEY: the value of KEY=value in one of the daemon's log lines
# (slog's text format). The demo fails when LINE lacks KEY, so a change of the
# daemon's log cannot make it report blanks unnoticed (make test discards the
# demo's output and sees only its status). Assign its output on a line of its
# own (v=$(log_value ...)): set -e then stops the demo when it fails.
log_value() {
	local v
	v=$(sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1")
	[ -n "$v" ] || fail "no $2= in the daemon's log line: ${1:-(no line)}"
	printf '%s\n' "$v"
}

client_has() { grep -q "^client: $1" "$tmp/client.log"; }
daemon_has() { grep -q "$1" "$tmp/daemon.log"; }
cold_solves_logged() { [ "$(grep -c 'msg="cold solve' "$tmp/daemon.log")" -ge "$1" ]; }

mkdir -p "$root/incoming" "$root/models"
# The logs exist before their writers start: a background command's
# redirection is opened in the child, which the polls below may outrun.
: >"$tmp/daemon.log"
: >"$tmp/client.log"
echo "== svmgo watch --root $root --train.options \"$options\""
"$BIN" watch --root "$root" --train.options "$options" --store.capacity 1000 \
	--store.max-features 13 --watch.debounce 20ms --metrics.cold-every 1 2>"$tmp/daemon.log" &
daemon_pid=$!
wait_until "the daemon to start" daemon_has 'msg="daemon started"'
echo "== client: $PYTHON examples/demo/client.py ROOT/models heart_scale.test"
"$PYTHON" "$here/client.py" "$root/models" "$data/heart_scale.test" >"$tmp/client.log" &
client_pid=$!
wait_until "the client to open its watched model" client_has watching
show_client

batches=("$here"/batches/*.txt)
n=${#batches[@]}
for i in $(seq 1 "$n"); do
	b=${batches[$((i - 1))]}
	name=$(basename "$b")
	echo "== batch $i/$n: $name ($(wc -l <"$b") rows) -> incoming/ (written as .tmp, then mv)"
	cp "$b" "$root/incoming/.$name.tmp"
	mv "$root/incoming/.$name.tmp" "$root/incoming/$name"
	wait_until "version $i of the model" test -f "$root/models/model-$i.svmgo"
	# --metrics.cold-every 1: after each retrain the daemon also solves
	# from α = 0 and logs both amounts of work.
	wait_until "the daemon's log of retrain $i" cold_solves_logged "$i"
	line=$(grep ' msg=retrained ' "$tmp/daemon.log" | grep -F " batch=$name " || true)
	cold=$(grep 'msg="cold solve' "$tmp/daemon.log" | sed -n "${i}p")
	warm=$(log_value "$line" warm)
	samples=$(log_value "$line" samples)
	warm_updates=$(log_value "$cold" warm_updates)
	cold_updates=$(log_value "$cold" cold_updates)
	case $warm in
	true) start=warm ;;
	false) start=cold ;;
	*) fail "warm=$warm in the daemon's log line, want true or false: $line" ;;
	esac
	echo "  daemon: retrained $start on $samples samples, $warm_updates rows read" \
		"(from α = 0: $cold_updates), published model-$i.svmgo"
	wait_until "the client to serve version $i" client_has "now serving version $i:"
	show_client
done

echo "== SIGTERM to the daemon and the client"
stop "$daemon_pid" daemon
daemon_pid=
daemon_has 'msg="daemon stopped"' || fail "the daemon's log lacks \"daemon stopped\""
stop "$client_pid" client
client_pid=
show_client

done_n=$(find "$root/done" -type f | wc -l)
rejected_n=$(find "$root/rejected" -type f | wc -l)
published=$(grep -c 'msg="model published"' "$tmp/daemon.log" || true)
served=$(sed -n 's/^client: stopped; versions served: //p' "$tmp/client.log")
final=$(grep "^client: now serving version $n:" "$tmp/client.log" | sed -n 's/.*accuracy \([0-9.]*%\) .*/\1/p')
[ -n "$final" ] || fail "no accuracy in the client's line for version $n"
[ "$done_n" -eq "$n" ] && [ "$rejected_n" -eq 0 ] && [ "$published" -eq "$n" ] &&
	[ "$served" = "$(seq -s ' ' 1 "$n")" ] ||
	fail "expected $n batches in done/, none rejected, $n models published and served; got $done_n, $rejected_n, $published, \"$served\""
echo "== summary: $n batches ingested (done/ $done_n, rejected/ $rejected_n), $published versions" \
	"published and hot-swapped into the client (served: $served); daemon and client stopped with status 0;" \
	"final accuracy $final"

echo "== reference: svmgo train-linear $options on all of heart_scale.train at once, predict, 5-fold cross-validation"
"$BIN" train-linear -q $options "$data/heart_scale.train" "$tmp/heart.model"
"$BIN" predict "$data/heart_scale.test" "$tmp/heart.model" "$tmp/heart.out" | sed 's/^/  /'
"$BIN" train-linear -q $options -v 5 "$data/heart_scale.train" | sed 's/^/  /'
