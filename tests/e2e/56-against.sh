#!/usr/bin/env bash
# lane: other
# --against: a stored run drawn faintly behind the live plots, where it
# went higher; refused as bad input when it cannot be drawn.
. "$(dirname "$0")/lib.sh"
need_tmux

S="thrashtop-e2e-$$"
db=$TMP/h.db
cleanup "tm kill-session -t $S"

# A stored run, and a copy of it whose blocked-task count is 500 at every
# sample: live, this machine has a handful at most, so the stored trace
# stands above the live one all along.
"$T" -b -n 1000000 -p 1 -d 0.1 --history "$db" -L base >/dev/null 2>"$TMP/err"
expect stored-run test $? -eq 0
"$T" --history "$db" history export --format=json >"$TMP/runs.json"
python3 - "$TMP/runs.json" >"$TMP/high.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
r["uuid"] = ""
r["label"] = "high"
r["series"]["procs-blocked"] = [500] * r["series"]["nsamples"]
json.dump(d, sys.stdout)
PY
"$T" --history "$db" history import "$TMP/high.json" >/dev/null 2>"$TMP/err"
expect import-high test $? -eq 0
id=$("$T" --history "$db" history list | awk '$4 == "high" { print $1 }')
expect high-id test -n "$id"

# Bad input: one line, exit 2, nothing started.
"$T" --history "$db" --against 999 -n 1000 -p 1 >"$TMP/o" 2>"$TMP/e" </dev/null; rc=$?
expect batch-refused test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1
expect batch-says grep -q 'not in batch mode' "$TMP/e"
"$T" --history "$db" --against x -n 1000 -p 1 >/dev/null 2>"$TMP/e"; rc=$?
expect bad-id-refused test $rc -eq 2
expect bad-id-says grep -q "^thrashtop: --against 'x': want the ID of a stored run" "$TMP/e"
tm new-session -d -s "$S" -x 100 -y 30 "$T --history $db --against 999 -- sleep 5 2>$TMP/e; echo EXIT=\$? >$TMP/rc; sleep 30"
expect missing-run-exit-2 wait_for 30 grep -qs EXIT=2 "$TMP/rc"
expect missing-run-says grep -q '^thrashtop: --against 999: no run 999 in the history' "$TMP/e"
end_session "$S"
# The same of a history not there: refused, and none left made by it.
tm new-session -d -s "$S" -x 100 -y 30 "$T --history $TMP/typo.db --against 1 -- sleep 5 2>$TMP/e; echo EXIT=\$? >$TMP/rc; sleep 30"
expect typo-history-exit-2 wait_for 30 grep -qs EXIT=2 "$TMP/rc"
expect typo-history-not-made test ! -e "$TMP/typo.db"
end_session "$S"

# Faint cells: the grey (256 colours) or dim attribute inside the plot.
faint() { tm capture-pane -e -p -t "$S" | sed -n '5,$p' | grep -cE $'\e\\[(2|38;5;242)m'; }
export -f faint
export S

# Without --against, none: the check below can fail.
rm -f "$TMP/rc"
tm new-session -d -s "$S" -x 100 -y 30 "$T --history $db --plots=procs-blocked -d 0.1 -- sleep 30 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 30"
expect plain-plot-shows wait_for 30 bash -c "tm capture-pane -p -t $S | grep -q 'blocked on I/O'"
sleep 2
n=$(faint)
expect "no-faint-without-against[$n]" test "$n" -eq 0
end_session "$S"

rm -f "$TMP/rc"
tm new-session -d -s "$S" -x 100 -y 30 "$T --history $db --against $id --plots=procs-blocked -d 0.1 -- sleep 30 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 30"
expect legend wait_for 30 bash -c "tm capture-pane -p -t $S | grep -q 'faint: run $id \"high\"'"
# the scale takes the stored run's 500 in: 0..500
expect scale-covers-stored wait_for 30 bash -c "tm capture-pane -p -t $S | grep -q 'blocked on I/O .* 0..500'"
expect faint-cells wait_for 30 bash -c '[ "$(faint)" -ge 5 ]'
[ "$(faint)" -ge 5 ] || tm capture-pane -e -p -t "$S" | cat -v | head -12 | sed 's/^/  /'
tm send-keys -t "$S" q
# q before sleep 30 ended: exit 1
expect quit-exit-1 wait_for 10 grep -qs EXIT=1 "$TMP/rc"
grep -qs EXIT=1 "$TMP/rc" || cat "$TMP/rc"
expect no-stderr no_err "$TMP/err"
[ ! -s "$TMP/err" ] || cat "$TMP/err" >&2
