#!/usr/bin/env bash
# lane: other
# A signal while the run's history write waits on another writer's lock
# ends the session within a second; the run is still written when the
# lock comes free within that second, and said to be lost when it does not.
. "$(dirname "$0")/lib.sh"

DB=$TMP/h.db
"$T" -b -n 1000 -p 1 --history "$DB" >/dev/null 2>&1
# hold: keeps the database's write lock until $DB.release appears (20 s
# at most), then writes the time it let go (ns, the clock date +%s%N
# reads) to $DB.freed. The release is timed from the test's signal, not
# from the lock's start: a loaded machine may take seconds to start the run.
hold() {
	rm -f "$DB.held" "$DB.release" "$DB.freed"
	python3 - "$DB" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[1] + ".held", "w").close()
end = time.monotonic() + 20
while not os.path.exists(sys.argv[1] + ".release") and time.monotonic() < end:
    time.sleep(0.01)
c.execute("ROLLBACK")
open(sys.argv[1] + ".freed", "w").write(str(time.time_ns()))
PY
	holder=$!
	cleanup "kill $holder"
	wait_for 10 test -e "$DB.held"
}
# end_during_wait NAME RELEASE_S: a batch run whose write waits on the lock,
# SIGTERM once it has printed its result (just before its write); the lock
# comes free RELEASE_S after the signal ("never": not within the test's
# wait). Writes the milliseconds from the signal to exit to NAME.ms, and
# from the lock's release to exit to NAME.after. The sanitizer's leak
# scan at exit is left out: on a loaded machine it alone took a quarter
# of a second, and every other test runs it.
end_during_wait() {
	local name=$1 t0 t1
	hold
	ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 "$T" -b -n 1000 -p 1 --history "$DB" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
	wait_for 30 grep -q ' kswapd$' "$TMP/$name.out"
	sleep 0.2
	t0=$(date +%s%N)
	kill -TERM "$pid"
	[ "$2" != never ] && { sleep "$2"; : >"$DB.release"; } &
	wait "$pid"
	echo $? >"$TMP/$name.rc"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >"$TMP/$name.ms"
	: >"$DB.release"
	wait "$holder" 2>/dev/null
	echo $(((t1 - $(cat "$DB.freed")) / 1000000)) >"$TMP/$name.after"
}
runs() { "$T" history list --history "$DB" 2>/dev/null | grep -c '^ *[0-9]'; }

# The lock stays: the session ends within a second, the run not kept.
end_during_wait held never
expect held-ends-within-1s test "$(cat "$TMP/held.ms")" -le 1000
expect held-exit-143 test "$(cat "$TMP/held.rc")" -eq 143
expect held-says-not-kept grep -q 'run 1 not kept' "$TMP/held.err"
expect held-time-line-printed grep -q ' kswapd$' "$TMP/held.out"
expect held-one-run test "$(runs)" -eq 1

# The lock frees 0.3 s after the signal: the run is written all the same,
# and the session ends within half a second of the lock's release (timed
# from the release, since a loaded machine can make the test itself late
# to let go: it took 1.3 s from the signal once, beside the other tests).
end_during_wait freed 0.3
expect freed-ends-soon-after-release bash -c "[ $(cat "$TMP/freed.after") -le 500 ] ||
	{ echo 'release to exit $(cat "$TMP/freed.after") ms, signal to exit $(cat "$TMP/freed.ms") ms' >&2; false; }"
expect freed-exit-143 test "$(cat "$TMP/freed.rc")" -eq 143
expect freed-no-error bash -c "! grep -q 'not kept' $TMP/freed.err || { cat $TMP/freed.err >&2; false; }"
expect freed-run-kept test "$(runs)" -eq 2
