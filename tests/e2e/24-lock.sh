#!/usr/bin/env bash
# A signal while the run's history write waits on another writer's lock
# ends the session within a second; the run is still written when the
# lock comes free within that second, and said to be lost when it does not.
. "$(dirname "$0")/lib.sh"

DB=$TMP/h.db
"$T" -b -n 1000 -p 1 --history "$DB" >/dev/null 2>&1
# hold LOCKED_S: keeps the database's write lock for that long.
hold() {
	python3 - "$DB" "$1" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[1] + ".held", "w").close()
time.sleep(float(sys.argv[2]))
c.execute("ROLLBACK")
PY
	holder=$!
	cleanup "kill $holder"
	wait_for 10 test -e "$DB.held"
}
# end_during_wait NAME HOLD_S: a batch run whose write waits on the lock,
# SIGTERM 1 s into the wait; prints the seconds from the signal to exit.
end_during_wait() {
	local name=$1 t0 t1
	rm -f "$DB.held"
	hold "$2"
	"$T" -b -n 1000 -p 1 --history "$DB" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
	sleep 1
	t0=$(date +%s%N)
	kill -TERM "$pid"
	wait "$pid"
	echo $? >"$TMP/$name.rc"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >"$TMP/$name.ms"
}
runs() { "$T" history list --history "$DB" 2>/dev/null | grep -c '^ *[0-9]'; }

# The lock stays: the session ends within a second, the run not kept.
end_during_wait held 10
expect held-ends-within-1s test "$(cat "$TMP/held.ms")" -le 1000
expect held-exit-143 test "$(cat "$TMP/held.rc")" -eq 143
expect held-says-not-kept grep -q 'run 1 not kept' "$TMP/held.err"
expect held-time-line-printed grep -q ' kswapd$' "$TMP/held.out"
wait "$holder" 2>/dev/null
expect held-one-run test "$(runs)" -eq 1

# The lock frees 0.3 s after the signal: the run is written all the same.
end_during_wait freed 1.3
expect freed-ends-within-1s test "$(cat "$TMP/freed.ms")" -le 1000
expect freed-exit-143 test "$(cat "$TMP/freed.rc")" -eq 143
expect freed-no-error bash -c "! grep -q 'not kept' $TMP/freed.err || { cat $TMP/freed.err >&2; false; }"
expect freed-run-kept test "$(runs)" -eq 2
