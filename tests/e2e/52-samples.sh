#!/usr/bin/env bash
# lane: other
# A run keeps every sample of every series --list-plots says this machine
# gives: 15 s at -d 0.025 stores at least 590 of each, and none of the others;
# history replay plays it back with the same figures and result line.
. "$(dirname "$0")/lib.sh"

db=$TMP/h.db
# Without the stall series: whether a plain run has them depends on the
# sessions beside it (57-stalls checks them).
"$T" -b -d 0.025 --no-stalls --history "$db" -- sleep 15 >"$TMP/out" 2>"$TMP/err"; rc=$?
expect run-exit-0 test $rc -eq 0
"$T" --list-plots --no-stalls >"$TMP/list"
"$T" --history "$db" history export --format=json >"$TMP/runs.json" 2>"$TMP/err"
python3 - "$TMP/runs.json" "$TMP/list" >"$TMP/check" 2>&1 <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][-1]
ser = run["series"]
avail = {l.split()[0] for l in open(sys.argv[2]).read().splitlines()[1:]
         if l.split() and l.split()[-1] == "yes"}
n = ser["nsamples"]
print("nsamples", n)
for name in sorted(avail):
    v = ser.get(name)
    if v is None or len(v) != n:
        print("MISSING", name)
for name in ser:
    if name not in ("nsamples", "t") and name not in avail:
        print("EXTRA", name)
t = ser["t"]
print("span", round(t[-1] - t[0], 1))
print("monotonic", all(b >= a for a, b in zip(t, t[1:])))
PY
n=$(awk '$1 == "nsamples" { print $2 }' "$TMP/check")
expect "at-least-590-samples[$n]" test "${n:-0}" -ge 590
missing=$(awk '$1 == "MISSING" { printf "%s ", $2 }' "$TMP/check")
extra=$(awk '$1 == "EXTRA" { printf "%s ", $2 }' "$TMP/check")
expect "every-available-series-kept[missing: $missing]" test -z "$missing"
expect "no-unavailable-series-kept[extra: $extra]" test -z "$extra"
expect times-in-order grep -q "monotonic True" "$TMP/check"
span=$(awk '$1 == "span" { print $2 }' "$TMP/check")
expect "samples-span-the-run[$span]" awk -v s="${span:-0}" 'BEGIN { exit !(s >= 14 && s <= 17) }'
# The first sample's rates would span the time before the run started: a
# gap there; the levels are kept, and the rates from the next sample on.
first=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["runs"][-1]["series"]
print([s[k][0] for k in ("minflt", "majflt")], s["free"][0] is not None, s["minflt"][1] is not None)' "$TMP/runs.json")
expect "first-rates-a-gap[$first]" test "$first" = "[None, None] True True"

# history replay plays that run in the monitor's view: the same result
# line as the batch run printed, and the stored values in the titles.
need_tmux
S="thrashtop-e2e-$$"
cleanup "tm kill-session -t $S"
python3 - "$TMP/runs.json" >"$TMP/vals" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["runs"][-1]["series"]
print("first", int(s["procs-running"][0]), "last", int(s["procs-running"][-1]))
PY
first=$(awk '{ print $2 }' "$TMP/vals") last=$(awk '{ print $4 }' "$TMP/vals")
line=$(head -1 "$TMP/out")
tm new-session -d -s "$S" -x 100 -y 30 "$T --history $db history replay 1 --speed 8 --series=procs-running,free 2>$TMP/rerr; echo EXIT=\$? >$TMP/rrc; sleep 30"
expect replay-plays wait_for 30 bash -c "tm capture-pane -p -t $S | grep -q 'replay run 1 .*playing 8x'"
expect replay-ends wait_for 30 bash -c "tm capture-pane -p -t $S | grep -q 'replay run 1 .*END'"
expect "replay-result-line[$line]" bash -c "tm capture-pane -p -t $S | grep -qF -- '#1 $line  '"
expect "replay-last-value[$last]" bash -c "tm capture-pane -p -t $S | grep -Eq '^running $last( |$)'"
tm send-keys -t "$S" Home .
expect "replay-step-first-value[$first]" wait_for 15 bash -c "tm capture-pane -p -t $S | grep -Eq '^running $first( |$)'"
expect replay-paused-at-step bash -c "tm capture-pane -p -t $S | grep -q 'PAUSED'"
# ? lists the replay's own keys; q closes that list, not the replay
tm send-keys -t "$S" '?'
expect replay-help wait_for 5 bash -c "tm capture-pane -p -t $S | grep -q 'q Esc     close the replay'"
tm send-keys -t "$S" q
expect replay-help-closed wait_for 5 bash -c "! tm capture-pane -p -t $S | grep -q 'close the replay'"
expect replay-open-after-help bash -c "sleep 1; ! grep -qs EXIT= $TMP/rrc && tm capture-pane -p -t $S | grep -q 'replay run 1 .*PAUSED'"
tm send-keys -t "$S" q
expect replay-quit-0 wait_for 10 grep -qs EXIT=0 "$TMP/rrc"
expect replay-no-stderr test ! -s "$TMP/rerr"
"$T" --history "$db" history replay 99 >/dev/null 2>"$TMP/e"; rc=$?
expect replay-missing-run test $rc -eq 2 -a "$(cat "$TMP/e")" = "thrashtop: replay: no run 99 in the history"
end_session "$S"

# p in the monitor's history view replays the run under the cursor while
# the live session goes on beneath.
tm new-session -d -s "$S" -x 100 -y 30 "$T --history $db -d 0.2 -- sleep 30 2>$TMP/merr; echo EXIT=\$? >$TMP/mrc; sleep 30"
expect monitor-up wait_for 30 bash -c "tm capture-pane -p -t $S | grep -q 'sleep 30'"
tm send-keys -t "$S" h
expect history-open wait_for 15 bash -c "tm capture-pane -p -t $S | grep -q 'p replay'"
tm send-keys -t "$S" p
expect monitor-replay-plays wait_for 15 bash -c "tm capture-pane -p -t $S | grep -q 'replay run 1 .*playing 1x'"
tm send-keys -t "$S" End
expect monitor-replay-result wait_for 15 bash -c "tm capture-pane -p -t $S | grep -qF -- '#1 $line  '"
tm send-keys -t "$S" q
expect back-to-history wait_for 15 bash -c "tm capture-pane -p -t $S | grep -q 'p replay'"
tm send-keys -t "$S" q
expect back-to-monitor wait_for 15 bash -c "tm capture-pane -p -t $S | grep -q 'interval 0.2s'"
tm send-keys -t "$S" q
# q before sleep 30 ended: exit 1
expect monitor-quit-1 wait_for 10 grep -qs EXIT=1 "$TMP/mrc"
grep -qs EXIT=1 "$TMP/mrc" || cat "$TMP/mrc"
expect monitor-no-stderr no_err "$TMP/merr"

# The sampling interval is recorded: a 1 s run of 2 s, whose samples come
# closer at its ends, shows and replays as 1 s.
end_session "$S"
idb=$TMP/i.db
"$T" -b -d 1 --history "$idb" -- sleep 2 >/dev/null 2>"$TMP/ierr"
got=$("$T" --history "$idb" history export --format=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["interval_s"])')
expect "interval-recorded[$got]" test "$got" = 1
expect interval-shown bash -c "'$T' --history '$idb' history show 1 | grep -qE '^interval_s +1$'"
tm new-session -d -s "$S" -x 100 -y 30 "$T --history $idb history replay 1 --speed 4 2>$TMP/rerr; sleep 30"
expect replay-interval-recorded wait_for 15 bash -c "tm capture-pane -p -t $S | grep -q 'interval 1s'"
tm capture-pane -p -t "$S" | grep -q 'interval 1s' || tm capture-pane -p -t "$S" | head -3
quit_session "$S"
